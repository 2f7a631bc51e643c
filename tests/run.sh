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
# they start first and run beside the unit tests, the fuzzing and, in one lane, the end-to-end
# scripts (below). Their output is shown when they end.
vm_job= vm_log=
case t0900-vm-nosan in *"${TESTS:-}"*)
	if [ -f tests/e2e/t0900-vm-nosan.sh ]; then
		vm_log=$(mktemp /tmp/sonde-vm.XXXXXX)
		( start=$SECONDS; bash tests/e2e/t0900-vm-nosan.sh </dev/null >"$vm_log" 2>&1
		  echo "   (tests/e2e/t0900-vm-nosan.sh: $((SECONDS - start))s, beside the other tests)" >>"$vm_log" ) &
		vm_job=$!
	fi ;;
esac
side_dir=$(mktemp -d /tmp/sonde-side.XXXXXX)
declare -A running=()	# the end-to-end jobs running in lanes (below): pid -> the queue's index, or "vm"
trap 'rm -rf "$results" "$side_dir" ${vm_log:+"$vm_log"}; [ -z "$vm_job" ] || kill $vm_job 2>/dev/null
      [ ${#running[@]} -eq 0 ] || kill "${!running[@]}" 2>/dev/null' EXIT

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
	# a script that hangs is ended and counted as a failure: the suite always ends
	# (a script that builds a whole package says how long it may take: "# e2e-timeout: N")
	local rc=0 name limit
	limit=$(sed -n 's/^# e2e-timeout: \([0-9][0-9]*\)$/\1/p' "$2" | head -1)
	limit=${limit:-${E2E_TIMEOUT:-900}}
	timeout -k 30 "$limit" bash "$2" || rc=$?
	name="$(basename "$2" .sh)${SONDE_SANITIZED:+ (ASan)}"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "FAIL - $name: still running after $limit s: ended"
		echo "fail $name: still running after $limit s" >>"$results"
	elif [ $rc -gt 1 ]; then	# test_done says 1 for failed tests, counted already
		echo "FAIL - $name: the script itself ended with status $rc (a syntax error?) before its end"
		echo "fail $name: the script ended with status $rc" >>"$results"
	fi
	echo "   ($2${SONDE_SANITIZED:+ under ASan}: $((SECONDS - start))s, $(( ($(children_ticks $me) - ticks) / TICKS ))s CPU${3:-})"
	# a test writes in its own $TMP: say so when files appear in the checkout instead
	left=$(comm -13 <(echo "$before") <(git ls-files --others --exclude-standard 2>/dev/null) | head -5 | tr '\n' ' ')
	[ -z "$left" ] || echo "   warning: new files in the checkout after $2: $left"
}

# the ASan/UBSan build and the fuzz targets' replay binaries: built here, beside the VM's tests
# (a CPU they leave), not before them; `make test` has built the plain tree
echo "== building the ASan/UBSan tree (build-san/) and the fuzz targets' replays"
if ! out=$(make --no-print-directory -j"${JOBS:-$(nproc)}" SANITIZE=1 all build-san/unit-tests fuzz-replay 2>&1); then
	echo "$out" | tail -n 30
	echo "FAIL - make SANITIZE=1 all build-san/unit-tests fuzz-replay"
	echo "fail build: the ASan/UBSan tree" >>"$results"
fi

echo "== unit tests"
unit build/unit-tests ""
echo "== unit tests under ASan/UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 unit build-san/unit-tests "-asan"

# Each fuzz target over its committed corpus (tests/fuzz/corpus/NAME/), built without libFuzzer
# against the ASan/UBSan library (tests/fuzz/replay.c): the inputs that once crashed stay fixed.
# Searching for new inputs is `make fuzz-long` (clang's libFuzzer, minutes per target).
echo "== fuzz targets: their corpus, under ASan/UBSan"
for f in build-san/fuzz-replay/fuzz_*; do
	[ -x "$f" ] || continue
	name=${f#build-san/fuzz-replay/fuzz_}
	if out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		 "$f" "tests/fuzz/corpus/$name" 2>&1); then
		echo "ok - fuzz $name (${out##*replay: })"
		echo "pass fuzz: $name" >>"$results"
	else
		echo "FAIL - fuzz $name"; echo "$out" | grep -v '^replay: tests/' | tail -n 30
		echo "   the input: $(echo "$out" | sed -n 's/^replay: \(tests\/.*\)/\1/p' | tail -1)"
		echo "fail fuzz: $name" >>"$results"
	fi
done

# The end-to-end scripts run in lanes: E2E_JOBS (default 3) at once, the VM's tests taking two
# lanes while they run. Most scripts only see what they start themselves, and their answers do
# not depend on what else runs (a loaded machine is one they must pass on). Those named in
# tests/e2e/alone-list watch the whole machine or its shared tracing state, or time something
# another script's load would change: they run last, one at a time, with nothing beside them.
# Those of tests/e2e/side-list start first, beside the VM. Each script's output is shown
# when it ends, so the order is that of their ends.
listed() { grep -v '^#' "tests/e2e/$1" | grep -qx "$(basename "$2" .sh)"; }
queue=() alone=()
for pass in side rest; do
	for mode in plain asan; do
		for t in tests/e2e/t*.sh; do
			selected $mode "$t" || continue
			[ $mode = plain ] && [ -n "$vm_job" ] && [ "$t" = tests/e2e/t0900-vm-nosan.sh ] && continue
			if listed side-list "$t"; then [ $pass = side ] || continue; else [ $pass = rest ] || continue; fi
			if listed alone-list "$t"; then alone+=("$mode $t"); else queue+=("$mode $t"); fi
		done
	done
done
lanes=${E2E_JOBS:-3}
[ -n "$vm_job" ] && running[$vm_job]=vm
# wait for one running job to end, and show what it printed
reap_one() {
	local pid=
	wait -n -p pid "${!running[@]}"
	[ -n "$pid" ] || { echo "tests/run.sh: lost track of a job"; exit 2; }
	if [ "${running[$pid]}" = vm ]; then
		cat "$vm_log"
		vm_job=
	else
		cat "$side_dir/${running[$pid]}"
	fi
	unset "running[$pid]"
}
echo "== end-to-end tests, $lanes at once${vm_job:+ (the VM tests, t0900, take two lanes while they run)}" "(at ${SECONDS} s)"
# the jobs that may run at once: while the VM runs (a CPU busy the whole time, its tests timed
# by its slowed clock), one script fewer
room() { if [ -n "$vm_job" ]; then echo $((lanes - 1)); else echo "$lanes"; fi; }
for i in "${!queue[@]}"; do
	while [ ${#running[@]} -ge "$(room)" ]; do reap_one; done
	set -- ${queue[$i]}
	run_e2e "$1" "$2" >"$side_dir/$i" 2>&1 &
	running[$!]=$i
done
while [ ${#running[@]} -gt 0 ]; do reap_one; done
if [ ${#alone[@]} -gt 0 ]; then
	echo "== end-to-end tests of tests/e2e/alone-list, one at a time" "(at ${SECONDS} s)"
	for job in "${alone[@]}"; do
		set -- $job
		run_e2e "$1" "$2"
	done
fi

echo "== the tests took ${SECONDS} s"
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
