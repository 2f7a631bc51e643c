#!/bin/bash
# flight.sh - the flight recorder's steady-state cost: `sonde record --flight`
# against plain `sonde record` at the same rate (-F 999 -g) on a CPU-bound
# workload that also reads all along (spiky with no spike: reads of
# /dev/zero back to back), so a --trigger's BPF program on read is paid on
# every call. The workload's reads in a fixed time are its throughput: what a
# recorder takes from it is its overhead. Also sonde's peak memory (the ring).
set -u
. "$(dirname "$0")/lib.sh"
SP=$BUILD/workloads/spiky
SECS=${SECS:-3}
REPS=${REPS:-3}
T=$(mktemp -d /tmp/sonde-bench-flight.XXXXXX)
trap 'rm -rf "$T"' EXIT

# reads TOOL...: "reads maxrss_kb" of spiky under TOOL (nothing for bare)
reads() {
	/usr/bin/time -f "rss %M" -o "$T/time" "$@" "$SP" "$SECS" 1e12 200 1000 >"$T/out" 2>/dev/null
	echo "$(sed -n 's/^spiky: \([0-9]*\) fast reads.*/\1/p' "$T/out") $(sed -n 's/^rss //p' "$T/time")"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

declare -A N M
configs="bare record flight trigger p99"
for rep in $(seq "$REPS"); do
	for c in $configs; do
		rm -f "$T"/f.*
		case $c in
		bare) set -- ;;
		record) set -- "$SONDE" record -q -F 999 -g -o "$T/r.data" -- ;;
		flight) set -- "$SONDE" record -q --flight 30s -F 999 -g -o "$T/f" -- ;;
		trigger) set -- "$SONDE" record -q --flight 30s -F 999 -g -o "$T/f" --trigger 'syscall:read > 1s' -- ;;
		p99) set -- "$SONDE" record -q --flight 30s -F 999 -g -o "$T/f" --trigger 'p99(read) > 1s' -- ;;
		esac
		read -r n m < <(reads "$@")
		N[$c]="${N[$c]:-} ${n:-0}"
		M[$c]="${M[$c]:-} ${m:-0}"
	done
done
for c in $configs; do
	N[$c]=$(echo ${N[$c]} | tr ' ' '\n' | median)
	M[$c]=$(echo ${M[$c]} | tr ' ' '\n' | median)
done
lost() { awk -v a="$1" -v b="${N[bare]}" 'BEGIN { printf "%.1f", (1 - a / b) * 100 }'; }
printf 'spiky %ss of back-to-back reads, median of %s runs, -F 999 -g\n' "$SECS" "$REPS"
printf '%-36s %12s %8s %10s\n' "" "reads" "lost" "peak RSS"
printf '%-36s %12s %8s %10s\n' "bare" "${N[bare]}" "" "${M[bare]} KB"
printf '%-36s %12s %7s%% %10s\n' "sonde record" "${N[record]}" "$(lost "${N[record]}")" "${M[record]} KB"
printf '%-36s %12s %7s%% %10s\n' "sonde record --flight 30s" "${N[flight]}" "$(lost "${N[flight]}")" "${M[flight]} KB"
printf '%-36s %12s %7s%% %10s\n' "  + --trigger 'syscall:read > 1s'" "${N[trigger]}" "$(lost "${N[trigger]}")" "${M[trigger]} KB"
printf '%-36s %12s %7s%% %10s\n' "  + --trigger 'p99(read) > 1s'" "${N[p99]}" "$(lost "${N[p99]}")" "${M[p99]} KB"
printf 'throughput flight/record = %s (1.00: the same cost; above: cheaper)\n' "$(ratio "${N[flight]}" "${N[record]}")"
printf 'throughput flight+trigger/record = %s, flight+p99/record = %s\n' \
	"$(ratio "${N[trigger]}" "${N[record]}")" "$(ratio "${N[p99]}" "${N[record]}")"
