#!/bin/bash
# record.sh - the cost of sampling: `sonde record -g` vs `perf record -g` at 99 and
# 999 Hz, and `--call-graph dwarf` at 999 Hz, on the demo workload. demo works for a
# fixed time and says how many rounds it made, so the rounds lost under a profiler
# are its overhead on the workload (the profilers' own CPU time is too small to
# show: the cost is the sampling in demo's context). The rounds are coarse (one is
# about 0.8%) and a loaded machine moves them: run it more than once (REPS=5).
# Also: the wall time of the whole command (start-up and teardown) and file sizes.
set -u
. "$(dirname "$0")/lib.sh"
DEMO=$BUILD/examples/demo
SECS=${SECS:-3}
REPS=${REPS:-3}
T=$(mktemp -d /tmp/sonde-bench-record.XXXXXX)
trap 'rm -rf "$T"' EXIT

# rounds TOOL...: run the demo under TOOL (nothing for bare); prints "rounds wall_s"
rounds() {
	local s e out
	s=$(date +%s.%N)
	out=$("$@" "$DEMO" "$SECS" 2>/dev/null | sed -n 's/^demo: \([0-9]*\) rounds.*/\1/p')
	e=$(date +%s.%N)
	echo "${out:-0} $(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}')"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

declare -A R W
configs="bare sonde99 perf99 sonde999 perf999 sondedw perfdw"
for rep in $(seq "$REPS"); do
	for c in $configs; do
		case $c in
		bare) set -- ;;
		sonde99) set -- "$SONDE" record -q -F 99 -g -o "$T/s99.data" -- ;;
		perf99) set -- perf record -q -F 99 -g -o "$T/p99.data" -- ;;
		sonde999) set -- "$SONDE" record -q -F 999 -g -o "$T/s999.data" -- ;;
		perf999) set -- perf record -q -F 999 -g -o "$T/p999.data" -- ;;
		sondedw) set -- "$SONDE" record -q -F 999 --call-graph dwarf -o "$T/sdw.data" -- ;;
		perfdw) set -- perf record -q -F 999 --call-graph dwarf -o "$T/pdw.data" -- ;;
		esac
		read -r r w < <(rounds "$@")
		R[$c]="${R[$c]:-} $r"
		W[$c]="${W[$c]:-} $w"
	done
done
for c in $configs; do
	R[$c]=$(echo ${R[$c]} | tr ' ' '\n' | median)
	W[$c]=$(echo ${W[$c]} | tr ' ' '\n' | median)
done
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
printf 'demo %ss, median of %s runs: bare %s rounds\n' "$SECS" "$REPS" "${R[bare]}"
for hz in 99 999 dw; do
	s=${R[sonde$hz]} p=${R[perf$hz]}
	case $hz in dw) what='-F 999 --call-graph dwarf' ;; *) what="-F $hz -g" ;; esac
	printf -- '%s\n            rounds:    sonde %s (%.1f%% lost)  perf %s (%.1f%% lost)  sonde/perf = %s\n' "$what" \
		"$s" "$(awk -v a="$s" -v b="${R[bare]}" 'BEGIN{print (1-a/b)*100}')" \
		"$p" "$(awk -v a="$p" -v b="${R[bare]}" 'BEGIN{print (1-a/b)*100}')" "$(ratio "$s" "$p")"
	printf '            wall:      sonde %ss  perf %ss  sonde/perf = %s\n' "${W[sonde$hz]}" "${W[perf$hz]}" \
		"$(ratio "${W[sonde$hz]}" "${W[perf$hz]}")"
	printf '            file:      sonde %s B  perf %s B  sonde/perf = %s\n' "$(size "$T/s$hz.data")" \
		"$(size "$T/p$hz.data")" "$(ratio "$(size "$T/s$hz.data")" "$(size "$T/p$hz.data")")"
done
