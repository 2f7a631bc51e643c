#!/bin/bash
# report.sh - reading a big recording (100k+ samples with call graphs):
# sonde collapse vs perf script report stackcollapse, sonde report vs
# perf report --stdio, sonde script vs perf script; the same perf.data for both.
set -u
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/sonde-bench-report.XXXXXX)
trap 'rm -rf "$T"' EXIT
# cpu-clock every 50 us: 20,000 samples a second of the demo's CPU time
perf record -q -e cpu-clock -c 50000 -g -o $T/big.data -- $BUILD/examples/demo 6 >/dev/null 2>&1
n=$(perf script -i $T/big.data -F tid 2>/dev/null | wc -l)
echo "recording: $n samples with call graphs"
"$SONDE" report -i $T/big.data >/dev/null 2>&1	# the kernel symbol cache (~/.cache/sonde), warm as a user's is

sc=$(best_of 3 "$SONDE" collapse -i $T/big.data)
pc=$(best_of 1 perf script report stackcollapse -i $T/big.data)
printf 'collapse   sonde %.3fs  perf script report stackcollapse %.3fs  perf/sonde = %s\n' "$sc" "$pc" "$(ratio "$pc" "$sc")"
# the floor: reading the file once (page cache warm); the goal (issue 21) is 2x this
cf=$(best_of 3 cat $T/big.data)
printf 'collapse   sonde %.3fs  cat of the file (%s MB) %.3fs  sonde/cat = %s\n' "$sc" \
	"$(($(stat -c %s $T/big.data) >> 20))" "$cf" "$(ratio "$sc" "$cf")"
# the least a collapse can do (bench/collapse-floor.c): read once, hash and count each
# sample's thread and stack; no symbols, no time order. What sonde adds is above this
cc -O2 -o $T/floor "$(dirname "$0")/collapse-floor.c" &&
	ff=$(best_of 3 $T/floor $T/big.data) &&
	printf 'collapse   floor (read, hash, count) %.3fs  floor/cat = %s  sonde/floor = %s\n' "$ff" \
		"$(ratio "$ff" "$cf")" "$(ratio "$sc" "$ff")"

# medians of 3; the goals (issue 21): 0.1x perf report's time, 0.5x its peak RSS
read -r sr srm < <(median3 "$SONDE" report -i $T/big.data)
read -r pr prm < <(median3 perf report --stdio -i $T/big.data)
printf 'report     sonde %.3fs %sMB  perf report --stdio %.3fs %sMB  perf/sonde = %s  sonde/perf: time %sx, RSS %sx\n' \
	"$sr" "$srm" "$pr" "$prm" "$(ratio "$pr" "$sr")" "$(ratio "$sr" "$pr")" "$(ratio "$srm" "$prm")"
sn=$(best_of 3 env SONDE_NO_KSYMCACHE=1 "$SONDE" report -i $T/big.data)
printf 'report     sonde reading /proc/kallsyms (SONDE_NO_KSYMCACHE=1) %.3fs  perf/sonde = %s\n' "$sn" "$(ratio "$pr" "$sn")"

ss=$(best_of 3 "$SONDE" script -i $T/big.data)
ps=$(best_of 1 perf script -i $T/big.data)
printf 'script     sonde %.3fs  perf script %.3fs  perf/sonde = %s\n' "$ss" "$ps" "$(ratio "$ps" "$ss")"

# DWARF call graphs: both unwind the stack copies and expand inlined frames (perf runs addr2line)
perf record -q -e cpu-clock -c 500000 --call-graph dwarf -o $T/dw.data -- $BUILD/workloads/symchain 3 >/dev/null 2>&1
n=$(perf script -i $T/dw.data -F tid 2>/dev/null | wc -l)
echo "dwarf recording: $n samples"
sr=$(best_of 3 "$SONDE" report -i $T/dw.data)
pr=$(best_of 1 perf report --stdio -i $T/dw.data)
printf 'report     sonde %.3fs  perf report --stdio %.3fs  perf/sonde = %s\n' "$sr" "$pr" "$(ratio "$pr" "$sr")"
sc=$(best_of 3 "$SONDE" collapse -i $T/dw.data)
pc=$(best_of 1 perf script report stackcollapse -i $T/dw.data)
printf 'collapse   sonde %.3fs  perf script report stackcollapse %.3fs  perf/sonde = %s\n' "$sc" "$pc" "$(ratio "$pc" "$sc")"

# System-wide with many distinct kernel stacks (file-system walks and copies): wide
# call graphs, where a kernel function has thousands of different callees and callers
# in children mode. A sibling list searched linearly made this report as slow as perf's.
perf record -q -a -e cpu-clock -c 100000 -g -o $T/sys.data -- sh -c \
	'timeout 8 sh -c "while :; do tar cf - /usr/lib /usr/share 2>/dev/null | cat >/dev/null; done" &
	 timeout 8 sh -c "while :; do find / -xdev >/dev/null 2>&1; done"; wait' >/dev/null 2>&1
n=$(perf report -i $T/sys.data --stats 2>/dev/null | awk "/SAMPLE events:/ {print \$3; exit}")
echo "system-wide recording: $n samples"
read -r sr srm < <(median3 "$SONDE" report -i $T/sys.data)
read -r pr prm < <(median3 perf report --stdio -i $T/sys.data)
printf 'report -a  sonde %.3fs %sMB  perf report --stdio %.3fs %sMB  sonde/perf: time %sx, RSS %sx\n' \
	"$sr" "$srm" "$pr" "$prm" "$(ratio "$sr" "$pr")" "$(ratio "$srm" "$prm")"
