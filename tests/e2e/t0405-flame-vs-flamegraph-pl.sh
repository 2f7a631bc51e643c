#!/bin/bash
# sonde flame against flamegraph.pl itself, when it is installed (Debian has no
# package: set FLAMEGRAPH_PL=/path/to/flamegraph.pl or put it in PATH): the
# same frames, at the same depths, with the same tooltips, x and widths
# (within the 0.1 px rounding of flamegraph.pl's output).
. "$(dirname "$0")/../lib.sh"

FG=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl || true)}
if [ -z "$FG" ]; then
	test_skip 'sonde flame draws the frames flamegraph.pl draws' \
		'flamegraph.pl is not installed (no Debian package; set FLAMEGRAPH_PL)'
	test_done
	exit
fi

# "depth x width title" per frame, depth from the root's row, sorted
frames() {
	sed -n 's/.*<title>\(.*\)<\/title>.*<rect x="\([0-9.]*\)" y="\([0-9.]*\)" width="\([0-9.]*\)".*/\3 \2 \4 \1/p' "$1" |
		sed 's/_\[[kwij]\] (/ (/; s/ samples, 100\.00%)$/ samples, 100%)/' |
		awk '{ y[NR] = $1; line[NR] = $0; if ($1 > max) max = $1 }
		     END { for (i = 1; i <= NR; i++) { $0 = line[i]; $1 = int((max - $1) / 16 + 0.5); print } }' |
		sort -k1,1n -k2,2n -k4
}
# every frame of $1 has one in $2 at the same depth, with the same title, and
# x and width within 0.11 px (flamegraph.pl rounds to 0.1 px)
agree() {
	awk 'FNR == NR { t = $0; sub(/^[^ ]* [^ ]* [^ ]* /, "", t); k = $1 SUBSEP t
			 n[k]++; x[k, n[k]] = $2; w[k, n[k]] = $3; next }
	     { t = $0; sub(/^[^ ]* [^ ]* [^ ]* /, "", t); k = $1 SUBSEP t; found = 0
	       for (i = 1; i <= n[k]; i++) {
		       if (used[k, i]) continue
		       dx = x[k, i] - $2; dw = w[k, i] - $3
		       if (dx <= 0.11 && dx >= -0.11 && dw <= 0.11 && dw >= -0.11) { used[k, i] = 1; found = 1; break }
	       }
	       if (!found) { print "no match for:", $0; bad++ } }
	     END { exit bad > 0 }' "$2" "$1"
}

# names that prefix others ("io", "io-wait") sort as flamegraph.pl's lines do; only
# leaves have their own counts (flamegraph.pl splits a frame that has both when a
# sibling sorts between its lines: sonde draws one frame per tree node)
awk 'BEGIN { srand(7); split("main parse lex eval gc io read write alloc free hash_[k] sys_read_[k] io-wait read2", n, " ")
	for (i = 0; i < 3000; i++) { d = 2 + int(rand() * 6); s = "main"
		for (j = 0; j < d; j++) s = s ";" n[2 + int(rand() * 13)]
		print s ";leaf" int(rand() * 3), 1 + int(rand() * rand() * 500) } }' >"$TMP/gen.folded"

test_expect_success 'the same frames, depths, tooltips, x and widths as flamegraph.pl' '
	perl "$FG" gen.folded >fg.svg 2>/dev/null &&
	$SONDE flame gen.folded >sonde.svg 2>/dev/null &&
	frames fg.svg >fg.frames && frames sonde.svg >sonde.frames &&
	[ $(wc -l <fg.frames) -gt 100 ] &&
	[ $(wc -l <fg.frames) = $(wc -l <sonde.frames) ] &&
	agree fg.frames sonde.frames
'

test_expect_success 'the same with --width 600 --minwidth 2 (fewer frames kept)' '
	perl "$FG" --width 600 --minwidth 2 gen.folded >fg2.svg 2>/dev/null &&
	$SONDE flame --width 600 --minwidth 2 gen.folded >sonde2.svg 2>/dev/null &&
	[ $(wc -l <fg.frames) -gt $(frames fg2.svg | wc -l) ] &&
	frames fg2.svg >fg2.frames && frames sonde2.svg >sonde2.frames &&
	[ $(wc -l <fg2.frames) = $(wc -l <sonde2.frames) ] &&
	agree fg2.frames sonde2.frames
'

test_done
