#!/bin/bash
# memleak.sh - the cost of leak checking on an allocation-heavy workload
# (tests/workloads/leaky with N more malloc/free pairs): `sonde memleak -- CMD`
# against `valgrind --leak-check=full CMD` and against no tracing. Times are CPU
# seconds (user + system, the command and the tool together, as GNU time counts
# them): a machine shared with other jobs makes wall time wander, CPU time much
# less. BCC's memleak (bpfcc-tools) needs kernel headers this VM lacks, so it is
# not run. The medians of REPS interleaved rounds are reported.
set -u
. "$(dirname "$0")/lib.sh"
L=$BUILD/workloads/leaky
N=${N:-1000000}
REPS=${REPS:-3}
T=$(mktemp -d /tmp/sonde-bench-memleak.XXXXXX)
trap 'rm -rf "$T"' EXIT

cpu() { /usr/bin/time -f "%U %S %e" -o "$T/t" "$@" >/dev/null 2>&1; awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$T/t"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for rep in $(seq "$REPS"); do
	cpu "$L" 0 - "$N" >>"$T/bare"
	cpu "$SONDE" memleak -- "$L" 0 - "$N" >>"$T/sonde"
	cpu "$SONDE" memleak --combined-only -- "$L" 0 - "$N" >>"$T/combined"
	command -v valgrind >/dev/null && cpu valgrind --leak-check=full "$L" 0 - "$N" >>"$T/valgrind"
done
col() { awk -v c="$2" '{ print $c }' "$T/$1" | median; }
bare=$(col bare 1)
printf 'leaky with %s malloc/free pairs, median of %s rounds: CPU s (wall s)\n' "$N" "$REPS"
printf 'bare:                      %ss (%ss)\n' "$bare" "$(col bare 2)"
for c in sonde combined valgrind; do
	[ -s "$T/$c" ] || continue
	printf '%-26s %ss (%ss)  added %ss\n' "$c:" "$(col $c 1)" "$(col $c 2)" "$(added "$(col $c 1)" "$bare")"
done
if [ -s "$T/valgrind" ]; then
	printf 'added CPU time sonde/valgrind = %s (--combined-only: %s)\n' \
		"$(ratio "$(added "$(col sonde 1)" "$bare")" "$(added "$(col valgrind 1)" "$bare")")" \
		"$(ratio "$(added "$(col combined 1)" "$bare")" "$(added "$(col valgrind 1)" "$bare")")"
fi
