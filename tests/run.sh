#!/bin/bash
# run.sh - every test: unit tests (plain and ASan/UBSan), the fuzz targets, the
# end-to-end scripts against build/sonde, then those of tests/e2e/asan-list
# against the ASan build.
# Ends with "N passed, N failed, N skipped"; exits 1 if anything failed.
# TESTS=t0100 limits the end-to-end scripts to names containing that string.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
results=$(mktemp /tmp/sonde-results.XXXXXX)
trap 'rm -f "$results"' EXIT
export RESULTS=$results
# leaks inside libraries sonde does not own (see the file) are not sonde's
export LSAN_OPTIONS=suppressions=$ROOT/tests/lsan.supp:print_suppressions=0

unit() {	# unit BINARY LABEL
	local out
	out=$("$1" 2>&1)
	echo "$out" | grep -v '^ok - ' || true
	echo "$out" | sed -n "s/^ok - \(.*\)/pass unit$2: \1/p" >>"$results"
	echo "$out" | sed -n "/^FAIL - /{s/^FAIL - \([^:]*\).*/fail unit$2: \1/;p}" >>"$results"
	# a crash before the count line is a failure too
	echo "$out" | grep -q '^unit: ' || echo "fail unit$2: the unit test binary crashed" >>"$results"
}

# The VM's tests (t0900: tests/vm/ inside qemu) touch nothing of this machine's tracing state:
# they run beside the unit tests, the fuzzing and the scripts of tests/e2e/side-list, whose
# answers do not depend on timing, and the other end-to-end tests start once they are done
# (a busy CPU would slow the timed ones). Their output is shown where t0900 comes in order.
vm_job= vm_log=
case t0900-vm-nosan in *"${TESTS:-}"*)
	if [ -f tests/e2e/t0900-vm-nosan.sh ]; then
		vm_log=$(mktemp /tmp/sonde-vm.XXXXXX)
		( start=$SECONDS; bash tests/e2e/t0900-vm-nosan.sh </dev/null >"$vm_log" 2>&1
		  echo "   (tests/e2e/t0900-vm-nosan.sh: $((SECONDS - start))s, beside the unit tests and fuzzing)" >>"$vm_log" ) &
		vm_job=$!
	fi ;;
esac
side_dir=$(mktemp -d /tmp/sonde-side.XXXXXX)
trap 'rm -rf "$results" "$side_dir" ${vm_log:+"$vm_log"}; [ -z "$vm_job" ] || kill $vm_job 2>/dev/null' EXIT

# selected MODE SCRIPT: whether the end-to-end script runs in this mode (plain or asan).
# Scripts named *-nosan.sh never run under ASan (timing-bound or slow); the others do
# when tests/e2e/asan-list names them (or ASAN_ALL=1).
selected() {
	case "$2" in *"${TESTS:-}"*) ;; *) return 1 ;; esac
	[ "$1" = plain ] && return 0
	case "$2" in *-nosan.sh) return 1 ;; esac
	[ -n "${ASAN_ALL:-}" ] || grep -qx "$(basename "$2" .sh)" tests/e2e/asan-list
}
# the CPU seconds (user + system, in clock ticks) of this shell's waited-for children:
# run_e2e prints a script's next to its wall time, the measure of what could share the CPUs
children_ticks() {	# children_ticks PID (the shell's own: $BASHPID, read outside a $(...))
	local s
	read -r s </proc/$1/stat
	set -- ${s##*) }	# the fields after the command's name: the 16th and 17th are the 14th and 15th here
	echo $(( ${14} + ${15} ))
}
TICKS=$(getconf CLK_TCK 2>/dev/null || echo 100)
# run_e2e MODE SCRIPT: run it, with its time and a word on files it left in the checkout
run_e2e() {
	local start=$SECONDS before left me=$BASHPID ticks
	ticks=$(children_ticks $me)
	if [ "$1" = asan ]; then
		export SONDE=$ROOT/build-san/sonde SONDE_SANITIZED=1
		export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	else
		export SONDE=$ROOT/build/sonde
		unset SONDE_SANITIZED ASAN_OPTIONS UBSAN_OPTIONS
	fi
	before=$(git ls-files --others --exclude-standard 2>/dev/null)
	if ! bash "$2"; then :; fi
	echo "   ($2: $((SECONDS - start))s, $(( ($(children_ticks $me) - ticks) / TICKS ))s CPU${3:-})"
	# a test writes in its own $TMP: say so when files appear in the checkout instead
	left=$(comm -13 <(echo "$before") <(git ls-files --others --exclude-standard 2>/dev/null) | head -5 | tr '\n' ' ')
	[ -z "$left" ] || echo "   warning: new files in the checkout after $2: $left"
}

echo "== unit tests"
unit build/unit-tests ""
echo "== unit tests under ASan/UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 unit build-san/unit-tests "-asan"

echo "== fuzz targets (seed corpus, then ${FUZZ_SECONDS:-3}s of new inputs each)"
for f in build-fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=${f#build-fuzz/fuzz_}
	corpus=tests/fuzz/corpus/$name
	work=$(mktemp -d /tmp/sonde-fuzz.XXXXXX)
	[ -d "$corpus" ] && cp -r "$corpus/." "$work/"
	if "$f" -max_total_time="${FUZZ_SECONDS:-3}" -max_len=65536 -rss_limit_mb=2048 -artifact_prefix="$work.crash-" "$work" >"$work.log" 2>&1; then
		echo "ok - fuzz $name ($(grep -o 'Done [0-9]* runs' "$work.log" | head -1))"
		echo "pass fuzz: $name" >>"$results"
	else
		echo "FAIL - fuzz $name"; tail -n 30 "$work.log"
		for a in "$work".crash-*; do [ -e "$a" ] && cp "$a" build-fuzz/ && echo "   input kept in build-fuzz/$(basename "$a")"; done
		echo "fail fuzz: $name" >>"$results"
	fi
	rm -rf "$work" "$work.log" "$work".crash-*
done

# The scripts of tests/e2e/side-list use no tracing and read no state of the system (the
# flame graph's files, the browsers, the install and the .deb): they run here, on the CPU the
# VM leaves, and their output is shown where each comes in order below.
side_ran=
if [ -n "$vm_job" ]; then
	echo "== while the VM's tests run: the end-to-end scripts of tests/e2e/side-list"
	for mode in plain asan; do
		for t in $(grep -v '^#' tests/e2e/side-list); do
			t=tests/e2e/$t.sh
			[ -f "$t" ] && selected $mode "$t" || continue
			run_e2e $mode "$t" ", beside the VM" >"$side_dir/$mode.$(basename "$t")" 2>&1
		done
	done
	side_ran=1
	echo "== waiting for the VM's tests (t0900)"
	wait $vm_job
	vm_job=
fi

for mode in plain asan; do
	if [ $mode = asan ]; then
		echo "== end-to-end tests under ASan/UBSan"
	else
		echo "== end-to-end tests"
	fi
	for t in tests/e2e/t*.sh; do
		selected $mode "$t" || continue
		if [ $mode = plain ] && [ -n "$vm_log" ] && [ "$t" = tests/e2e/t0900-vm-nosan.sh ]; then
			cat "$vm_log"	# it ran at the start (above)
			continue
		fi
		if [ -n "$side_ran" ] && [ -f "$side_dir/$mode.$(basename "$t")" ]; then
			cat "$side_dir/$mode.$(basename "$t")"
			continue
		fi
		run_e2e $mode "$t"
	done
done

pass=$(grep -c '^pass ' "$results")
fail=$(grep -c '^fail ' "$results")
skip=$(grep -c '^skip ' "$results")
if [ "$fail" -gt 0 ]; then
	echo
	echo "failed:"
	grep '^fail ' "$results" | sed 's/^fail /  /'
fi
echo
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
