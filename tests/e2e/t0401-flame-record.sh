#!/bin/bash
# sonde flame -i: a recording straight to a flame graph, folded as sonde
# collapse -i folds it; the demo workload's known hot functions show up.
. "$(dirname "$0")/../lib.sh"

if ! $SONDE record -g -F 499 -q -o "$TMP/demo.data" -- "$EXAMPLES/demo" >"$TMP/rec.out" 2>&1; then
	test_skip 'sonde flame -i on a recording' "sonde record failed here: $(tail -1 "$TMP/rec.out")"
	test_done
	exit
fi

test_expect_success 'flame -i draws what collapse -i | flame draws' '
	$SONDE flame -i demo.data -o rec.svg 2>err &&
	xmllint --noout rec.svg &&
	$SONDE collapse -i demo.data | $SONDE flame >piped.svg 2>/dev/null &&
	cmp rec.svg piped.svg
'

test_expect_success 'the demo'\''s hot_loop and warm_loop have their share (~60% and ~30%)' '
	pct() { sed -n "s/^<g><title>$1 ([0-9,]* samples, \([0-9.]*\)%).*/\1/p" rec.svg | sort -rn | head -1; } &&
	h=$(pct hot_loop) && w=$(pct warm_loop) && echo "hot $h warm $w" &&
	awk -v h="$h" -v w="$w" "BEGIN { exit !(h > 40 && h < 80 && w > 15 && w < 45) }"
'

test_expect_success 'speedscope and pprof straight from a recording' '
	$SONDE flame -i demo.data --format speedscope -o rec.json &&
	grep -q "\"name\":\"hot_loop\"" rec.json &&
	$SONDE flame -i demo.data --format pprof -o rec.pb.gz && gzip -t rec.pb.gz
'

test_expect_success 'a file that is not a recording: an error, exit 1' '
	echo "not a recording" >bogus.data &&
	rc=0 && $SONDE flame -i bogus.data >out.svg 2>err || rc=$? &&
	[ $rc = 1 ] && grep -q "sonde: cannot" err && [ $(wc -l <err) = 1 ] &&
	rc=0 && $SONDE flame -i demo.data extra.folded 2>err || rc=$? && [ $rc = 129 ]
'

test_done
