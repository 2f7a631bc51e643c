#!/bin/bash
# flame.sh - sonde flame against flamegraph.pl and `sort` on the same folded
# file: 200,000 distinct deep stacks (5-45 frames, 2,000 names, about 105 MB,
# made by bench/flame-gen.py with a fixed seed). Prints wall and CPU (user+sys) time, best of 3 (flamegraph.pl
# once: it is slow), peak RSS and the ratios, taken on CPU time, which other
# jobs on the machine disturb less than wall time. flamegraph.pl is taken from $FLAMEGRAPH_PL or PATH
# (Debian does not package FlameGraph); without it that row says so.
# Then the cost curve (CURVE="10000 100000 1000000", empty for none): sonde and
# sort at each size, CPU time, peak RSS and the tree's nodes, per stack and per
# node, which should stay flat (memory follows the distinct tree nodes).
set -u
cd "$(dirname "$0")/.."
SONDE=${SONDE:-$PWD/build/sonde}
DIR=${BUILD:-$PWD/build}/bench-flame
STACKS=${STACKS:-200000}
mkdir -p "$DIR"
CURVE=${CURVE-10000 100000 1000000}
# input N: the folded file of N stacks, made once
input() {
	local in=$DIR/stacks-$1.folded
	if [ ! -s "$in" ]; then
		python3 bench/flame-gen.py "$1" >"$in.tmp" && mv "$in.tmp" "$in" || { echo "cannot generate $in" >&2; return 1; }
	fi
	echo "$in"
}
IN=$(input "$STACKS") || exit 1
FG=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl || true)}

# run NAME RUNS CMD...: the run with the least CPU time: $wall $cpu $rss (KB)
run() {
	local name=$1 runs=$2 w u s m
	shift 2
	cpu= wall= rss=
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S %M" -o "$DIR/time" "$@" >"$DIR/out.$name" 2>/dev/null || { echo "$name failed"; return 1; }
		read -r w u s m <"$DIR/time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then
			cpu=$c wall=$w rss=$m
		fi
	done
}
mb() { awk -v v="$1" -v d="$2" 'BEGIN { printf "%.1f", v / d }'; }
row() { printf "%-16s %7s %7s %12s %10s\n" "$@"; }

printf "input: %s stacks, %s bytes, %s frames\n" "$STACKS" "$(stat -c %s "$IN")" \
	"$(awk '{ n += split($0, f, ";") } END { print n }' "$IN")"
row tool "wall s" "CPU s" "peak RSS MB" "output MB"
run sonde 3 "$SONDE" flame "$IN" || exit 1
s_t=$cpu
row "sonde flame" "$wall" "$cpu" "$(mb "$rss" 1024)" "$(mb "$(stat -c %s "$DIR/out.sonde")" 1048576)"
drawn=$(grep -c '^<g><title>' "$DIR/out.sonde")
run sort 3 env LC_ALL=C sort "$IN" || exit 1
o_t=$cpu
row "sort (LC_ALL=C)" "$wall" "$cpu" "$(mb "$rss" 1024)" "-"
if [ -n "$FG" ]; then
	run flamegraph 1 perl "$FG" "$IN" || exit 1
	f_t=$cpu
	row "flamegraph.pl" "$wall" "$cpu" "$(mb "$rss" 1024)" "$(mb "$(stat -c %s "$DIR/out.flamegraph")" 1048576)"
	echo "frames drawn: sonde $drawn, flamegraph.pl $(grep -c '<title>' "$DIR/out.flamegraph")"
	awk -v a="$f_t" -v b="$s_t" 'BEGIN { printf "ratio: sonde flame is %.1fx faster than flamegraph.pl (CPU time)\n", a / b }'
else
	echo "flamegraph.pl: not found (set FLAMEGRAPH_PL=/path/to/flamegraph.pl; Debian has no package)"
	echo "frames drawn: sonde $drawn"
fi
awk -v a="$s_t" -v b="$o_t" 'BEGIN { printf "ratio: sonde flame takes %.1fx the CPU time of sort on the same file\n", a / b }'

[ -n "$CURVE" ] || exit 0
echo
echo "cost curve (CPU s best of 3; nodes: distinct stack prefixes, the tree's size)"
printf "%-8s %9s %8s %8s %9s %8s %8s %9s %9s\n" stacks nodes "sonde s" "RSS MB" "sort s" "RSS MB" "sonde/sort" "us/stack" "B/node"
for n in $CURVE; do
	in=$(input "$n") || exit 1
	run sonde 3 "$SONDE" flame "$in" || exit 1
	# the tree's nodes, root included: those drawn and those the SVG says it left out
	nodes=$(( $(grep -c '^<g><title>' "$DIR/out.sonde") + \
		$(sed -n 's/^<!-- ELIDED: \([0-9]*\) frame.*/\1/p' "$DIR/out.sonde" | head -1) + 0 ))
	sc=$cpu sr=$rss
	run sort 3 env LC_ALL=C sort "$in" || exit 1
	printf "%-8s %9s %8s %8s %9s %8s %8s %9s %9s\n" "$n" "$nodes" "$sc" "$(mb "$sr" 1024)" "$cpu" "$(mb "$rss" 1024)" \
		"$(awk -v a="$sc" -v b="$cpu" 'BEGIN { printf "%.1f", a / b }')" \
		"$(awk -v a="$sc" -v n="$n" 'BEGIN { printf "%.2f", a * 1e6 / n }')" \
		"$(awk -v r="$sr" -v n="$nodes" 'BEGIN { printf "%.0f", r * 1024 / n }')"
done
