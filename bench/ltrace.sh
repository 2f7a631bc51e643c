#!/bin/bash
# ltrace.sh - the cost of tracing library calls: tests/workloads/ltracee making
# N (100k) calls to toupper through its PLT, bare, under Debian's ltrace and
# under `sonde ltrace` (both writing every line to /dev/null with -o), and
# under `sonde ltrace -c` (counts only), and under empty programs on the same
# uprobe and uretprobe (the kernel's floor for any uprobe tracer). Times are CPU seconds (user + system
# of the tool and the command together, as GNU time counts them: the uprobes'
# cost lands in the command's system time) and wall seconds; the added time per
# call and the ratio sonde/ltrace of the added CPU time are printed. The
# medians of REPS interleaved rounds are reported.
set -u
. "$(dirname "$0")/lib.sh"
W=$BUILD/workloads/ltracee
N=${N:-100000}
REPS=${REPS:-3}
T=$(mktemp -d /tmp/sonde-bench-ltrace.XXXXXX)
trap 'rm -rf "$T"' EXIT

cpu() { /usr/bin/time -f "%U %S %e" -o "$T/t" "$@" >/dev/null 2>&1; awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$T/t"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# the kernel's floor: empty BPF programs on toupper's entry and return (the uprobe's
# trap and the uretprobe's trampoline, which any uprobe-based tracer pays per call)
LIBC=$(ldd "$W" | awk '$1 ~ /^libc\.so/ { print $3 }')
floor() {
	"$SONDE" probe -e "uprobe:$LIBC:toupper { } uretprobe:$LIBC:toupper { }" >"$T/floor.out" 2>&1 &
	local pid=$!
	while ! grep -q Attaching "$T/floor.out" 2>/dev/null; do sleep 0.05; done
	sleep 0.5	# the line comes before the attach (a bench: timing is what it measures)
	cpu "$W" "$N"
	kill -INT $pid; wait $pid 2>/dev/null
}
for rep in $(seq "$REPS"); do
	cpu "$W" "$N" >>"$T/bare"
	[ -n "$LIBC" ] && floor >>"$T/floor"
	cpu "$SONDE" ltrace -o /dev/null "$W" "$N" >>"$T/sonde"
	cpu "$SONDE" ltrace -c -o /dev/null "$W" "$N" >>"$T/sonde_c"
	command -v ltrace >/dev/null && cpu ltrace -o /dev/null "$W" "$N" >>"$T/ltrace"
done
col() { awk -v c="$2" '{ print $c }' "$T/$1" | median; }
per_call() { awk -v a="$1" -v n="$N" 'BEGIN { printf "%.2f", a * 1e6 / n }'; }
bare=$(col bare 1)
printf 'ltracee with %s calls to toupper, median of %s rounds: CPU s (wall s)\n' "$N" "$REPS"
printf '%-18s %ss (%ss)\n' "bare:" "$bare" "$(col bare 2)"
for c in floor sonde sonde_c ltrace; do
	[ -s "$T/$c" ] || continue
	a=$(added "$(col $c 1)" "$bare")
	printf '%-18s %ss (%ss)  added %ss, %s us per call\n' "$c:" "$(col $c 1)" "$(col $c 2)" "$a" "$(per_call "$a")"
done
if [ -s "$T/ltrace" ]; then
	printf 'added CPU time sonde/ltrace = %s (-c: %s); wall: %s\n' \
		"$(ratio "$(added "$(col sonde 1)" "$bare")" "$(added "$(col ltrace 1)" "$bare")")" \
		"$(ratio "$(added "$(col sonde_c 1)" "$bare")" "$(added "$(col ltrace 1)" "$bare")")" \
		"$(ratio "$(added "$(col sonde 2)" "$(col bare 2)")" "$(added "$(col ltrace 2)" "$(col bare 2)")")"
	[ -s "$T/floor" ] && printf 'the floor alone (empty uprobe + uretprobe programs)/ltrace = %s: sonde adds %s us per call to it\n' \
		"$(ratio "$(added "$(col floor 1)" "$bare")" "$(added "$(col ltrace 1)" "$bare")")" \
		"$(per_call "$(added "$(col sonde 1)" "$(col floor 1)")")"
fi
