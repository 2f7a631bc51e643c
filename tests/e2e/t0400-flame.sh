#!/bin/bash
# sonde flame: folded stacks to SVG. Frames and widths are checked against
# prefix sums computed here with awk from the same input, the XML with xmllint.
. "$(dirname "$0")/../lib.sh"

# "name count" for every prefix of every stack (what each frame's tooltip must say)
expected_frames() {
	awk '{ c = $NF; s = substr($0, 1, length($0) - length($NF) - 1); sub(/[ \t]+$/, "", s)
	       n = split(s, f, ";"); p = ""; tot += c
	       for (i = 1; i <= n; i++) { p = p ";" f[i]; sum[p] += c; name[p] = f[i] } }
	     END { printf "all %d\n", tot; for (p in sum) printf "%s %d\n", name[p], sum[p] }' "$@" | sort
}
# the same from the SVG's tooltips: "name (1,234 samples, 5.00%)" -> "name 1234"
svg_frames() {
	sed -n 's/^<g><title>\(.*\) (\([0-9,]*\) samples, .*<\/title>.*/\1 \2/p' "$1" | tr -d , | sort
}

# expect_code N command...: the command exits with N
expect_code() { local rc=0; "${@:2}" || rc=$?; [ $rc = $1 ] || { echo "exit $rc, expected $1: ${*:2}"; return 1; }; }

cat >"$TMP/simple.folded" <<EOF
main;do_work;hot_loop 60
main;do_work;warm_loop 30
main;cold_path 6
main;do_io;write;sys_write_[k] 4
EOF

test_expect_success 'a folded file gives a well-formed SVG with one frame per tree node' '
	$SONDE flame simple.folded >out.svg 2>err &&
	xmllint --noout out.svg &&
	expected_frames simple.folded | sed "s/_\[k\]//" >expect &&
	svg_frames out.svg >actual &&
	test_cmp expect actual
'

test_expect_success 'widths are proportional to the counts (1180 px for the total)' '
	$SONDE flame simple.folded >out.svg &&
	grep -o "<title>hot_loop .*width=\"[0-9.]*\"" out.svg | grep -q "width=\"708.00\"" &&
	grep -o "<title>all .*width=\"[0-9.]*\"" out.svg | grep -q "width=\"1180.00\"" &&
	grep -q "<title>hot_loop (60 samples, 60.00%)</title>" out.svg
'

test_expect_success 'stdin and several files are merged into one tree' '
	printf "main;do_work;hot_loop 40\nother;x 5\n" >more.folded &&
	$SONDE flame simple.folded more.folded >two.svg 2>/dev/null &&
	cat simple.folded more.folded | $SONDE flame >stdin.svg 2>/dev/null &&
	test_cmp two.svg stdin.svg &&
	grep -q "<title>hot_loop (100 samples, 68.97%)" two.svg &&
	expected_frames simple.folded more.folded | sed "s/_\[k\]//" >expect &&
	svg_frames two.svg >actual && test_cmp expect actual
'

test_expect_success 'the output is the same bytes on every run' '
	$SONDE flame simple.folded >a.svg && $SONDE flame simple.folded >b.svg && cmp a.svg b.svg &&
	$SONDE flame --hash simple.folded >a.svg && $SONDE flame --hash simple.folded >b.svg && cmp a.svg b.svg
'

test_expect_success 'malformed lines are skipped with a warning naming the line' '
	printf "main;a 5\nno count here\nmain;b -3\nmain;;c 2\nmain;d 1e5\n;x 2\nmain;e 7\n   \nmain;f\n" >bad.folded &&
	$SONDE flame bad.folded >bad.svg 2>err &&
	xmllint --noout bad.svg &&
	grep -q "bad.folded:2: line skipped" err &&
	grep -q "bad.folded:3: line skipped: negative count" err &&
	grep -q "bad.folded:4: line skipped: empty frame" err &&
	grep -q "bad.folded:5: line skipped" err &&
	grep -q "bad.folded:6: line skipped: empty frame" err &&
	grep -q "bad.folded:9: line skipped: no count" err &&
	! grep -q "bad.folded:8:" err &&
	grep -q "<title>all (12 samples" bad.svg
'

test_expect_success 'names with <, &, quotes and invalid UTF-8 are escaped' '
	printf "main;operator<<(std::ostream&);f\"q\" 5\nmain;caf\\xc3\\xa9;bad\\xff\\xfeutf 3\nmain;tab\\there 1\n" >esc.folded &&
	$SONDE flame esc.folded >esc.svg 2>/dev/null &&
	xmllint --noout esc.svg &&
	grep -q "<title>operator&lt;&lt;(std::ostream&amp;) (5 samples" esc.svg &&
	grep -q "<title>f&quot;q&quot; (5 samples" esc.svg &&
	grep -q "<title>café (3 samples" esc.svg &&
	grep -q "<title>bad��utf (3 samples" esc.svg
'

test_expect_success 'no valid input: an SVG that says so, exit 2' '
	printf "garbage\n" >empty.folded &&
	expect_code 2 $SONDE flame empty.folded 2>err >empty.svg &&
	xmllint --noout empty.svg && grep -q "ERROR: No valid input" empty.svg &&
	grep -q "no valid stacks" err
'

test_expect_success 'frames under --minwidth are left out and the SVG says how many' '
	awk "BEGIN { print \"main;big 100000\"; for (i = 0; i < 500; i++) printf \"main;small%d;leaf 1\n\", i }" >wide.folded &&
	$SONDE flame wide.folded >wide.svg 2>/dev/null &&
	grep -q "<!-- ELIDED: 1000 frames narrower than 0.1 px left out -->" wide.svg &&
	grep -q ">1000 frames under 0.1 px not drawn<" wide.svg &&
	[ $(grep -c "^<g><title>" wide.svg) = 3 ] &&
	$SONDE flame --minwidth 0 wide.folded >all.svg 2>/dev/null &&
	[ $(grep -c "^<g><title>" all.svg) = 1003 ] && ! grep -q ELIDED all.svg &&
	$SONDE flame --minwidth 0.5% wide.folded >pct.svg &&
	grep -q "ELIDED: 1000 frames narrower than 0.5%" pct.svg
'

test_expect_success '--title, --subtitle, --countname, --nametype, --notes, --width, --height' '
	$SONDE flame --title "CPU <hot>" --subtitle "sub & title" --countname ms --nametype "Func:" \
		--notes "made by a test" --width 800 --height 20 simple.folded >o.svg 2>/dev/null &&
	xmllint --noout o.svg &&
	grep -q "<text id=\"title\" [^>]*>CPU &lt;hot&gt;</text>" o.svg &&
	grep -q "<text id=\"subtitle\" [^>]*>sub &amp; title</text>" o.svg &&
	grep -q "<title>main (100 ms, 100.00%)" o.svg &&
	grep -q "nametype: \"Func:\"" o.svg &&
	grep -q "<!-- NOTES: made by a test -->" o.svg &&
	grep -q "<svg version=\"1.1\" width=\"800\" height=\"[0-9]*\"" o.svg &&
	grep -q "height=\"19.0\"" o.svg && grep -q "<title>all .*width=\"780.00\"" o.svg &&
	! $SONDE flame --notes "a<b" simple.folded >/dev/null 2>err && grep -q "notes cannot contain" err
'

test_expect_success '--inverted puts the root at the top, --flamechart keeps input order' '
	$SONDE flame --inverted simple.folded >ice.svg &&
	grep -q ">Icicle Graph<" ice.svg &&
	yroot=$(sed -n "s/^<g><title>all .*<rect x=\"[^\"]*\" y=\"\([0-9.]*\)\".*/\1/p" ice.svg) &&
	yhot=$(sed -n "s/^<g><title>hot_loop .*<rect x=\"[^\"]*\" y=\"\([0-9.]*\)\".*/\1/p" ice.svg) &&
	awk -v a="$yroot" -v b="$yhot" "BEGIN { exit !(a < b) }" &&
	printf "main;zeta 1\nmain;alpha 1\nmain;zeta 1\n" >chart.folded &&
	$SONDE flame --flamechart chart.folded >chart.svg 2>/dev/null &&
	grep -q ">Flame Chart<" chart.svg &&
	[ $(grep -c "<title>zeta " chart.svg) = 2 ] &&
	sed -n "s/^<g><title>\([a-z]*\) .*/\1/p" chart.svg | tr "\n" " " | grep -q "^all main zeta alpha zeta $" &&
	$SONDE flame chart.folded 2>/dev/null | sed -n "s/^<g><title>\([a-z]*\) .*/\1/p" | tr "\n" " " | grep -q "^all main alpha zeta $"
'

test_expect_success '--reverse makes the leaves the roots' '
	$SONDE flame --reverse simple.folded >rev.svg 2>/dev/null &&
	printf "hot_loop;do_work;main 60\nwarm_loop;do_work;main 30\ncold_path;main 6\nsys_write;write;do_io;main 4\n" >r.folded &&
	expected_frames r.folded >expect && svg_frames rev.svg >actual && test_cmp expect actual
'

fills() { sed -n 's/.*fill="rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))" rx.*/\1 \2 \3/p' "$1"; }

test_expect_success 'every palette stays in its colour range' '
	awk "BEGIN { for (i = 0; i < 200; i++) printf \"root;fn_%d;x%c%c 1\n\", i, 97 + i % 26, 65 + i % 7 }" >many.folded &&
	for p in hot:205:255:0:230:0:55 mem:0:0:190:240:0:210 io:80:140:80:140:190:245 \
		 red:200:255:50:130:50:130 green:50:110:200:255:50:110 blue:80:140:80:140:205:255 \
		 aqua:50:110:165:220:165:220 yellow:175:230:175:230:50:70 purple:190:255:80:140:190:255 \
		 orange:190:255:90:155:0:0 wakeup:50:110:165:220:165:220; do
		IFS=: read name r0 r1 g0 g1 b0 b1 <<<"$p"
		$SONDE flame --colors $name many.folded >p.svg 2>/dev/null || exit 1
		fills p.svg | awk -v r0=$r0 -v r1=$r1 -v g0=$g0 -v g1=$g1 -v b0=$b0 -v b1=$b1 -v p=$name \
			"\$1 < r0 || \$1 > r1 || \$2 < g0 || \$2 > g1 || \$3 < b0 || \$3 > b1 { print p, \$0; bad = 1 } END { exit bad }" || exit 1
		[ $(fills p.svg | sort -u | wc -l) -gt 20 ] || exit 1
	done
'

colour_of() { sed -n "s|^<g><title>$1 (.*fill=\"\(rgb([0-9,]*)\)\".*|\1|p" "$2" | head -1; }
in_range() { echo "$1" | tr -d 'rgb()' | tr , ' ' | awk -v r0=$2 -v r1=$3 -v g0=$4 -v g1=$5 -v b0=$6 -v b1=$7 '{ exit !($1 >= r0 && $1 <= r1 && $2 >= g0 && $2 <= g1 && $3 >= b0 && $3 <= b1) }'; }

test_expect_success 'annotated frames: java/js/perl/chain colours as flamegraph.pl, labels without _[x]' '
	printf "java/lang/Thread.run;Interpreter_[j];inlined_fn_[i];Foo::bar;do_sys_open_[k];plain 5\n" >j.folded &&
	$SONDE flame --colors java j.folded >j.svg 2>/dev/null &&
	in_range "$(colour_of Interpreter j.svg)" 50 110 200 255 50 110 &&
	in_range "$(colour_of inlined_fn j.svg)" 50 110 165 220 165 220 &&
	in_range "$(colour_of java/lang/Thread.run j.svg)" 50 110 200 255 50 110 &&
	in_range "$(colour_of Foo::bar j.svg)" 175 230 175 230 50 70 &&
	in_range "$(colour_of do_sys_open j.svg)" 190 255 90 155 0 0 &&
	in_range "$(colour_of plain j.svg)" 200 255 50 130 50 130 &&
	! grep "_\[[kijw]\]" j.svg &&
	printf "app;handler /srv/app.js:10;node::Start;v8_[j];x 3\n" >js.folded &&
	$SONDE flame --colors js js.folded >js.svg 2>/dev/null &&
	in_range "$(colour_of "handler /srv/app.js:10" js.svg)" 50 110 200 255 50 110 &&
	in_range "$(colour_of node::Start js.svg)" 175 230 175 230 50 70 &&
	in_range "$(colour_of v8 js.svg)" 50 110 165 220 165 220 &&
	printf "perl;main::run;Perl_pp_entersub;x 3\n" >pl.folded &&
	$SONDE flame --colors perl pl.folded >pl.svg 2>/dev/null &&
	in_range "$(colour_of main::run pl.svg)" 175 230 175 230 50 70 &&
	in_range "$(colour_of Perl_pp_entersub pl.svg)" 50 110 200 255 50 110 &&
	printf "waker;wake_up;--;sleeper;schedule 4\n" >ch.folded &&
	$SONDE flame --colors chain ch.folded >ch.svg 2>/dev/null &&
	[ "$(colour_of -- ch.svg)" = "rgb(160,160,160)" ] &&
	in_range "$(colour_of wake_up ch.svg)" 80 140 80 140 205 255 &&
	in_range "$(colour_of schedule ch.svg)" 50 110 165 220 165 220
'

test_expect_success '--bgcolors, and a bad palette or background is a usage error (129)' '
	$SONDE flame --bgcolors "#123456" simple.folded | grep -q "stop-color=\"#123456\"" &&
	$SONDE flame --bgcolors blue simple.folded | grep -q "stop-color=\"#e0e0ff\"" &&
	$SONDE flame --colors mem simple.folded | grep -q "stop-color=\"#e0ffe0\"" &&
	expect_code 129 $SONDE flame --colors nope simple.folded >/dev/null 2>err &&
	grep -q "unknown palette" err &&
	expect_code 129 $SONDE flame --bgcolors pink simple.folded >/dev/null 2>err &&
	expect_code 129 $SONDE flame --minwidth 1x simple.folded >/dev/null 2>err
'

test_expect_success '--hash gives similar names similar colours; --random differs between runs' '
	printf "r;aaaa_one 1\nr;aaaa_two 1\nr;zzzz 1\n" >h.folded &&
	$SONDE flame --hash h.folded >h.svg 2>/dev/null &&
	g1=$(colour_of aaaa_one h.svg | cut -d, -f2) && g2=$(colour_of aaaa_two h.svg | cut -d, -f2) &&
	g3=$(colour_of zzzz h.svg | cut -d, -f2) && [ "$g1" = "$g2" ] && [ "$g1" != "$g3" ] &&
	$SONDE flame --random many.folded >r1.svg 2>/dev/null && sleep 0.01 &&
	$SONDE flame --random many.folded >r2.svg 2>/dev/null && ! cmp -s r1.svg r2.svg
'

test_expect_success '--cp keeps known colours in palette.map across runs and palettes' '
	$SONDE flame --cp simple.folded >c1.svg 2>/dev/null &&
	grep -q "^hot_loop->rgb(" palette.map &&
	hot=$(colour_of hot_loop c1.svg) &&
	grep -q "^hot_loop->$hot$" palette.map &&
	printf "main;brand_new 5\nmain;do_work;hot_loop 5\n" >c2.folded &&
	$SONDE flame --cp --colors blue c2.folded >c2.svg 2>/dev/null &&
	[ "$(colour_of hot_loop c2.svg)" = "$hot" ] &&
	grep -q "^brand_new->rgb(" palette.map &&
	in_range "$(colour_of brand_new c2.svg)" 80 140 80 140 205 255
'

test_expect_success '--factor scales the counts shown, --total the 100%' '
	$SONDE flame --factor 1000 simple.folded | grep -q "<title>hot_loop (60,000 samples, 60.00%)" &&
	$SONDE flame --total 200 simple.folded >t.svg &&
	grep -q "<title>hot_loop (60 samples, 30.00%)" t.svg &&
	grep -q "<title>all .*width=\"590.00\"" t.svg &&
	$SONDE flame --total 50 simple.folded 2>err | grep -q "<title>hot_loop (60 samples, 60.00%)" &&
	grep -q "is less than the actual total" err
'

test_expect_success 'decimal counts are accepted as flamegraph.pl accepts them, shown as they are' '
	printf "a;b 1.5\na;c 2.\na;b 0.25\n" >dec.folded &&
	$SONDE flame dec.folded 2>/dev/null | grep -q "<title>a (3.75 samples, 100.00%)" &&
	$SONDE flame dec.folded 2>/dev/null | grep -q "<title>b (1.75 samples, 46.67%)"
'

test_expect_success '--diff: red grew, blue shrank, delta in the tooltip; --negate; -n' '
	printf "main;a 10\nmain;b 30\nmain;c 10\n" >before.folded &&
	printf "main;a 30\nmain;b 10\nmain;c 10\n" >after.folded &&
	$SONDE flame --diff before.folded after.folded >d.svg 2>/dev/null &&
	xmllint --noout d.svg &&
	grep -q "<title>a (30 samples, 60.00%; +40.00%)" d.svg &&
	grep -q "<title>b (10 samples, 20.00%; -40.00%)" d.svg &&
	[ "$(colour_of a d.svg)" = "rgb(255,0,0)" ] &&
	[ "$(colour_of b d.svg)" = "rgb(0,0,255)" ] &&
	[ "$(colour_of c d.svg)" = "rgb(255,255,255)" ] &&
	$SONDE flame --diff --negate before.folded after.folded >n.svg 2>/dev/null &&
	[ "$(colour_of a n.svg)" = "rgb(0,0,255)" ] &&
	grep -q "<title>a (30 samples, 60.00%; -40.00%)" n.svg &&
	printf "main;a 20\nmain;b 60\nmain;c 20\n" >before2.folded &&
	$SONDE flame --diff -n before2.folded after.folded >nn.svg 2>/dev/null &&
	grep -q "<title>a (30 samples, 60.00%; +40.00%)" nn.svg &&
	$SONDE flame --diff before2.folded after.folded 2>/dev/null | grep -q "<title>a (30 samples, 60.00%; +20.00%)"
'

test_expect_success 'two-count lines (difffolded.pl output) are read as a diff' '
	printf "main;a 10 30\nmain;b 30 10\nmain;c 10 10\n" >two.folded &&
	$SONDE flame two.folded 2>/dev/null >two.svg &&
	grep -q "<title>a (30 samples, 60.00%; +40.00%)" two.svg &&
	expect_code 129 $SONDE flame --diff before.folded >/dev/null 2>&1
'

test_expect_success 'a file that cannot be read or written is one error line' '
	! $SONDE flame /nonexistent/x.folded >/dev/null 2>err &&
	[ $(wc -l <err) = 1 ] && grep -q "cannot open '\''/nonexistent/x.folded'\''" err &&
	mkdir adir && ! $SONDE flame adir >/dev/null 2>err &&
	[ $(wc -l <err) = 1 ] && grep -q "cannot read '\''adir'\'': Is a directory" err &&
	! $SONDE flame -o /nonexistent/dir/out.svg simple.folded 2>err &&
	grep -q "cannot create" err
'

test_expect_success '--fonttype, --fontsize and --fontwidth reach the CSS and the script' '
	$SONDE flame --fonttype "DejaVu Sans Mono" --fontsize 10 --fontwidth 0.6 simple.folded >f.svg &&
	grep -q "font-family: DejaVu Sans Mono; font-size: 10px" f.svg &&
	grep -q "fontsize: 10, fontwidth: 0.6" f.svg
'

test_expect_success 'the golden files are what their first line makes' '
	for g in "$ROOT"/tests/golden/flame-*.svg; do
		cmd=$(head -1 "$g" | sed "s/^# sonde //") &&
		(cd "$ROOT" && eval "\$SONDE $cmd" 2>/dev/null) >out &&
		tail -n +2 "$g" | cmp - out || exit 1
	done
'

test_expect_success '--format folded: merged stacks sorted as stackcollapse-perf.pl, --diff as difffolded.pl' '
	printf "a;b 1\na-x 2\na 3\na;b 4\n" | $SONDE flame --format folded >m &&
	printf "a 3\na-x 2\na;b 5\n" >expect && test_cmp expect m &&
	printf "main;a 10\nmain;b 30\nmain;c 10\n" >b1 && printf "main;a 90\n" >a1 &&
	$SONDE flame --diff -n --format folded b1 a1 >d &&
	printf "main;a 18 90\nmain;b 54 0\nmain;c 18 0\n" >expect && test_cmp expect d
'

test_done
