#!/bin/bash
# sonde flame --format speedscope, checked by speedscope's own code: its
# released app (npm package speedscope) in headless Chromium imports the file
# through its file input; the Sandwich view must list every function with the
# totals computed here with awk from the folded input.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/flame-npm.sh"

if ! flame_npm_setup >"$TMP/why"; then
	test_skip 'speedscope imports the export' "$(cat "$TMP/why")"
	test_done
	exit
fi
INDEX=$NPMDIR/node_modules/speedscope/dist/release/index.html

cat >"$TMP/in.folded" <<'EOF2'
main;do_work;hot_loop 600
main;do_work;warm_loop 300
main;cold_path 60
main;do_io;sys_write_[k] 40
EOF2

test_expect_success 'speedscope imports the export and shows the same totals' '
	$SONDE flame --format speedscope --title "sonde test" in.folded -o in.speedscope.json 2>/dev/null &&
	timeout 120 node "$ROOT/tests/e2e/flame-browser.js" speedscope "$INDEX" "$TMP/in.speedscope.json" "$TMP/ss.png" >seen &&
	cat seen &&
	grep -qx "title sonde test - speedscope" seen &&
	grep -qx "alerts none" seen && grep -qx "errors none" seen &&
	grep -q " 600 (60%) 600 (60%) hot_loop " seen &&
	grep -q " 300 (30%) 300 (30%) warm_loop " seen &&
	grep -q " 900 (90%) 0 (<0.01%) do_work " seen &&
	grep -q " 1,000 (100%) 0 (<0.01%) main$" seen &&
	grep -q " 40 (4.0%) 40 (4.0%) sys_write_\[k\] " seen
'

test_expect_success 'the check can fail: speedscope rejects a file with weights missing' '
	sed "s/\"weights\":\[[0-9,]*\]/\"weights\":[1]/" in.speedscope.json >broken.json &&
	! cmp -s broken.json in.speedscope.json &&
	timeout 120 node "$ROOT/tests/e2e/flame-browser.js" speedscope "$INDEX" "$TMP/broken.json" "" >seen2 &&
	cat seen2 && ! grep -qx "title sonde test - speedscope" seen2 &&
	grep -q "^errors .*Expected samples.length (4) to equal weights.length (1)" seen2
'

test_expect_success 'names with quotes, backslashes and invalid UTF-8 still import' '
	printf "main;say \"hi\\\\there\";bad\\xffname 5\nmain;ok 5\n" >odd.folded &&
	$SONDE flame --format speedscope odd.folded -o odd.json 2>/dev/null &&
	timeout 120 node "$ROOT/tests/e2e/flame-browser.js" speedscope "$INDEX" "$TMP/odd.json" "" >seen3 &&
	cat seen3 && grep -qx "title sonde flame - speedscope" seen3 && grep -qx "alerts none" seen3 &&
	grep -q "say \"hi\\\\there\"" seen3 && grep -q "bad.name" seen3
'

test_done
