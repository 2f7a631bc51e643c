#!/bin/bash
# sonde flame's SVG in a real browser (headless Chromium from Debian): it
# renders, Ctrl-F searches through the browser's prompt and shows the matched
# percentage, a click zooms, Reset Zoom restores. The expected values come
# from the folded input, computed here with awk.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/flame-npm.sh"

if ! flame_npm_setup >"$TMP/why"; then
	test_skip 'the SVG works in headless Chromium' "$(cat "$TMP/why")"
	test_done
	exit
fi

cat >"$TMP/in.folded" <<'EOF2'
main;do_work;hot_loop 600
main;do_work;warm_loop 300
main;do_work;hot_loop;memcpy 40
main;cold_path;a_very_long_function_name_that_cannot_fit_in_its_narrow_frame 25
main;cold_path 35
main;do_io;write;sys_write_[k];vfs_write_[k] 20
main;do_io;read 12
other_thread;hot_loop 8
EOF2

# percentage of all samples whose stack has a frame matching the ERE $1
matched_pct() {
	awk -v re="$1" '{ c = $NF; s = substr($0, 1, length($0) - length($NF) - 1); tot += c
		n = split(s, f, ";"); for (i = 1; i <= n; i++) { g = f[i]; sub(/_\[[kwij]\]$/, "", g); if (g ~ re) { m += c; break } } }
		END { printf "Matched: %.1f%%\n", 100 * m / tot }' "$2"
}

test_expect_success 'renders, searches with Ctrl-F, zooms on click, resets' '
	$SONDE flame in.folded -o in.svg 2>/dev/null &&
	timeout 120 node "$ROOT/tests/e2e/flame-browser.js" svg "$TMP/in.svg" "_loop\$" do_work "$TMP/shot.png" >seen &&
	cat seen &&
	grep -qx "frames $(grep -c "^<g><title>" in.svg)" seen &&
	grep -qx "root all (1,040 samples, 100%)" seen &&
	grep -qx "rootbox 1180" seen &&
	grep -q "^truncated [1-9]" seen &&
	grep -qx "prompt prompt" seen &&
	grep -qx "matched $(matched_pct "_loop\$" in.folded)" seen &&
	grep -qx "matched Matched: 91.2%" seen &&
	grep -qx "magenta 3" seen &&
	grep -qx "searchbutton Reset Search" seen &&
	grep -qx "details Function: do_work (940 samples, 90.38%)" seen &&
	grep -q "^zoomwidth 1066.[0-9]* -> 1180.00$" seen &&
	grep -qx "parents 2" seen &&
	grep -q "^hidden [1-9]" seen &&
	grep -qx "unzoomshown true" seen &&
	grep -q "^url ?x=[0-9.]*&y=[0-9.]*&s=_loop%24$" seen &&
	grep -qx "afterreset 0 classed, root 1180" seen &&
	grep -qx "errors none" seen &&
	[ $(stat -c %s shot.png) -gt 5000 ]
'

test_expect_success 'a search for another term reports its own percentage' '
	timeout 120 node "$ROOT/tests/e2e/flame-browser.js" svg "$TMP/in.svg" "^(read|write)" do_io "" >seen2 &&
	grep -qx "matched $(matched_pct "^(read|write)" in.folded)" seen2 &&
	grep -qx "matched Matched: 3.1%" seen2 &&
	grep -qx "magenta 2" seen2 &&
	grep -qx "parents 2" seen2
'

test_expect_success 'an icicle graph zooms the same way (ancestors above)' '
	$SONDE flame --inverted in.folded -o ice.svg 2>/dev/null &&
	timeout 120 node "$ROOT/tests/e2e/flame-browser.js" svg "$TMP/ice.svg" "memcpy" hot_loop "" >seen3 &&
	grep -qx "matched $(matched_pct "memcpy" in.folded)" seen3 &&
	grep -qx "details Function: hot_loop (640 samples, 61.54%)" seen3 &&
	grep -q "^zoomwidth [0-9.]* -> 1180.00$" seen3 &&
	grep -qx "parents 3" seen3 &&
	grep -qx "errors none" seen3
'

test_done
