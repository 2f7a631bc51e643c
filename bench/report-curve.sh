#!/bin/bash
# report-curve.sh - how sonde report and sonde collapse grow with the recording:
# about 10k, 100k and 1M samples with call graphs (the demo workload, cpu-clock
# every 10 us, frame pointers, kernel + user), each against perf report --stdio
# and perf script report stackcollapse on the same file, in the same run: wall
# time and peak RSS (medians of 3), and sonde's as a share of perf's ("0.08"
# is 0.08x perf's). The time per sample should stay flat (anything worse than
# linear is a bug). sonde's kernel symbol cache is warm; the "no cache" column
# is SONDE_NO_KSYMCACHE=1 (reading /proc/kallsyms every run).
set -u
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/sonde-bench-curve.XXXXXX)
trap 'rm -rf "$T"' EXIT

# one line a sample (perf script -G -F ip printed every frame of some of perf's recordings)
samples() { perf script -i "$1" -F tid 2>/dev/null | wc -l; }
# cpu-clock every 10 us (PERIOD ns; one round of the demo already gives 100k+ samples at
# that rate here, so the recordings of 100k samples or fewer sample every 100 us)
PERIOD=10000
record() { perf record -q -e cpu-clock -c $PERIOD -g -o "$2" -- "$BUILD/examples/demo" "$1" >/dev/null 2>&1; }

# how many samples a second of the demo gives: not a constant in a VM (the timer
# interrupts cost more than the 10 us between them, and the demo's phases differ),
# so each recording is sized by trying: a duration scaled by want/got, up to 4 tries
record 0.5 $T/cal.data
"$SONDE" report -i $T/cal.data >/dev/null 2>&1	# the kernel symbol cache, made once
# sized WANT FILE: a recording of about WANT samples (within 0.7-1.5x) in FILE
sized() {
	local d n=0 try
	d=$(awk -v n="$1" 'BEGIN { printf "%.3f", n / 50000 }')
	for try in 1 2 3 4; do
		record "$d" "$2"
		n=$(samples "$2")
		[ "$n" -gt 0 ] || { echo "perf record gave no samples" >&2; return 1; }
		awk -v n="$n" -v w="$1" 'BEGIN { exit !(n >= 0.7 * w && n <= 1.5 * w) }' && return 0
		d=$(awk -v d="$d" -v n="$n" -v w="$1" 'BEGIN { f = w / n; if (f > 8) f = 8; d *= f; if (d > 120) d = 120; printf "%.3f", d }')
	done
}

# sonde's time and peak RSS as a share of perf's (the goals: report 0.1x the time, 0.5x the RSS)
printf '%-9s %-9s %9s %7s %9s %7s %9s %7s %7s %9s\n' samples what sonde RSS perf RSS "no cache" "time x" "RSS x" "us/sample"
for want in 10000 100000 1000000; do
	PERIOD=$([ $want -le 100000 ] && echo 100000 || echo 10000)
	sized $want $T/r.data || exit 1
	n=$(samples $T/r.data)
	for what in report collapse; do
		if [ $what = report ]; then
			anchor=(perf report --stdio -i $T/r.data)
		else
			anchor=(perf script report stackcollapse -i $T/r.data)
		fi
		read -r s sm < <(median3 "$SONDE" $what -i $T/r.data)
		read -r p pm < <(median3 "${anchor[@]}")
		nc=$(best_of 1 env SONDE_NO_KSYMCACHE=1 "$SONDE" $what -i $T/r.data)
		printf '%-9s %-9s %8.3fs %5sMB %8.3fs %5sMB %8.3fs %7s %7s %9.2f\n' "$n" $what "$s" "$sm" "$p" "$pm" "$nc" \
			"$(ratio "$s" "$p")" "$(ratio "$sm" "$pm")" "$(awk -v s="$s" -v n="$n" 'BEGIN { print s * 1e6 / n }')"
	done
done
