#!/bin/bash
# t0771: the process and scheduler tools (exitsnoop, threadsnoop, killsnoop,
# runqlat, runqlen, cpudist, syscount, offcputime): each with a trigger whose
# answer is known exactly, filtered by the trigger's pids, and compared with
# Debian's libbpf-tools binary of the same name where it runs here.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'every tool of this file is listed by sonde tools' '
	$SONDE tools -q >list &&
	for t in exitsnoop threadsnoop killsnoop runqlat runqlen cpudist syscount offcputime; do grep -q "^$t " list || exit 1; done
'
require_root 'the tools trace this kernel'


# (their stdout is a file here: stdbuf makes it line-buffered, so the header shows when printed)
libbpf_tool() {
	test -x /usr/sbin/$1 || { echo "libbpf-tools is not installed (make test installs it)"; return 1; }
}

# --- exitsnoop
# sh exits with 3; a sleep dies of SIGTERM; the main shell is their parent
exit_trigger() {
	sh -c "exit 3" & E=$!
	wait $E || true
	sleep 10 & K=$!
	while [ "$(cat /proc/$K/comm)" != sleep ]; do sleep 0.01; done
	kill -TERM $K && wait $K || true
}
# start_sleep: a sleep in the background, S its pid, once it is sleep (exec'd)
start_sleep() {
	sleep 10 & S=$!
	while [ "$(cat /proc/$S/comm)" != sleep ]; do sleep 0.01; done
}
# ME: the test's shell (each test runs in a subshell: $BASHPID, not $$), the
# parent of what these functions start
# run_threads "N [MS]": the threads workload, W its pid
run_threads() {
	"$WORKLOADS/threads" $1 & W=$!
	wait $W
}
# the lines of the pids E and K, AGE masked
exit_lines() {
	sed -E "s/^([0-9:]+ )?(.{16} [0-9 ]{8}[0-9 ]{8}[0-9 ]{8})[0-9]+\.[0-9]{2} */\1\2A.AA    /" "$1" |
		grep -E "^([0-9:]+ )?[a-z]+ +($E|$K) " | sed -E "s/^[0-9]{2}:[0-9]{2}:[0-9]{2} /HH:MM:SS /"
}
test_expect_success 'exitsnoop: exit code 3 and signal 15 (Terminated), with pid, ppid, tid' '
	ME=$BASHPID &&
	tool_start out $SONDE tool exitsnoop &&
	exit_trigger && sleep 0.2 && tool_stop &&
	head -1 out >hdr && printf "%-16s %-7s %-7s %-7s %-7s %s\n" PCOMM PID PPID TID "AGE(s)" EXIT_CODE >want &&
	test_cmp want hdr &&
	exit_lines out >got &&
	printf "%-16s %-7d %-7d %-7d A.AA    code 3\n" sh $E $ME $E >want &&
	printf "%-16s %-7d %-7d %-7d A.AA    signal 15 (Terminated)\n" sleep $K $ME $K >>want &&
	test_cmp want got &&
	grep -q "^sleep  *$K  *$ME  *$K  *0\.[0-9][0-9]    signal" out
'
test_expect_success 'exitsnoop -x: failed exits only; -p PID: that process only' '
	ME=$BASHPID &&
	tool_start out $SONDE exitsnoop -x &&
	exit_trigger && true && sleep 0.2 && tool_stop &&
	! grep -q " 0$" out && exit_lines out | grep -c . | grep -qx 2 &&
	start_sleep &&
	tool_start out $SONDE exitsnoop -p $S &&
	exit_trigger && kill -KILL $S && { wait $S || true; } && sleep 0.2 && tool_stop &&
	test $(wc -l <out) -eq 2 && grep -q "^sleep  *$S  *$ME  *$S  *[0-9.]*  *signal 9 (Killed)$" out || { cat out; false; }
'
test_expect_success 'exitsnoop -T: every thread, TID apart from PID' '
	ME=$BASHPID &&
	tool_start out $SONDE exitsnoop -T &&
	run_threads 3 && sleep 0.2 && tool_stop &&
	test $(grep -c "^threads  *$W " out) -eq 4 &&
	test $(grep "^threads  *$W  *$ME  *$W  " out | wc -l) -eq 1 &&
	tool_start out $SONDE exitsnoop &&
	run_threads 3 && sleep 0.2 && tool_stop &&
	test $(grep -c "^threads  *$W " out) -eq 1 || { cat out; false; }
'
test_expect_success "exitsnoop -t: the same header and lines as libbpf-tools' exitsnoop" '
	ME=$BASHPID &&
	libbpf_tool exitsnoop &&
	: >both && for t in "$SONDE exitsnoop" "stdbuf -oL /usr/sbin/exitsnoop"; do
		tool_start out $t -t && exit_trigger && sleep 0.2 && tool_stop
		{ head -1 out; exit_lines out | sed -E "s/ [0-9]+ / N /g; s/ [0-9]+ / N /g"; } >>both
	done &&
	cat both && test $(wc -l <both) -eq 6 && head -3 both >a && tail -3 both >b && test_cmp b a &&
	grep -q "^HH:MM:SS sh  *N  *N  *N  *A.AA    code 3$" a
'

# --- threadsnoop
test_expect_success 'threadsnoop: the 5 pthread_create()s of a workload, FUNC its start routine' '
	ME=$BASHPID &&
	tool_start out $SONDE tool threadsnoop &&
	run_threads "5 500" && tool_stop &&
	head -1 out >hdr && printf "%-10s %-7s %-16s %s\n" "TIME(ms)" PID COMM FUNC >want && test_cmp want hdr &&
	grep " $W " out >got && test $(wc -l <got) -eq 5 &&
	test $(grep -c "^[0-9][0-9]*  *$W  *threads          thread_worker$" got) -eq 5 || { cat out; false; }
'

test_expect_success 'a tool prints its header first, before the events that came while it attached' '
	"$WORKLOADS/threads" 100000000 & W=$! &&
	for i in 1 2 3; do
		tool_start out $SONDE threadsnoop && sleep 0.3 && tool_stop &&
		head -1 out | grep -q "^TIME(ms) " && grep -q " thread_worker$" out || { kill $W; exit 1; }
	done &&
	kill $W
'

# --- killsnoop
# the lines of kill_trigger's kills (the test's own kill -INT of the tool may show too)
kill_lines() {
	grep -E "^[0-9:]{8} $ME +bash +[A-Z0-9]+ +($K|$K2|2147483600) " "$1"
}
kill_trigger() {
	ME=$BASHPID
	sleep 10 & K=$!
	sleep 10 & K2=$!
	kill -USR1 $K; kill -TERM $K2; wait $K $K2 || true
	kill -TERM 2147483600 2>/dev/null || true
}
test_expect_success 'killsnoop: kill -USR1 and -TERM of a known pid, and one that fails (-ESRCH)' '
	ME=$BASHPID &&
	tool_start out $SONDE tool killsnoop &&
	kill_trigger && sleep 0.2 && tool_stop &&
	head -1 out >hdr && printf "%-8s %-7s %-16s %-9s %-7s %-6s\n" TIME PID COMM SIG TPID RESULT >want && test_cmp want hdr &&
	kill_lines out | cut -c10- >got &&
	printf "%-7d %-16s %-9d %-7d %-6d\n" $ME bash 10 $K 0 $ME bash 15 $K2 0 $ME bash 15 2147483600 -3 >want &&
	test_cmp want got
'
test_expect_success 'killsnoop -n names the signals; -x failed only; -s SIG one signal; -p PID its sender' '
	ME=$BASHPID &&
	tool_start out $SONDE killsnoop -n -p $ME &&
	kill_trigger && sleep 0.2 && tool_stop &&
	test $(kill_lines out | wc -l) -eq 3 && ! grep -v "^[0-9:]\{8\} $ME " out | sed 1d | grep . &&
	grep -q "^[0-9:]\{8\} $ME  *bash  *SIGUSR1   $K  *0     $" out &&
	tool_start out $SONDE killsnoop -x -p $ME && kill_trigger && sleep 0.2 && tool_stop &&
	test $(wc -l <out) -eq 2 && grep -q " 15  *2147483600 -3    $" out &&
	tool_start out $SONDE killsnoop -s 10 && kill_trigger && sleep 0.2 && tool_stop &&
	test $(kill_lines out | wc -l) -eq 1 && grep -q " 10  *$K  *0 " out && ! grep -v " 10 " out | sed 1d | grep . &&
	tool_start out $SONDE killsnoop -p 1 && kill_trigger && sleep 0.2 && tool_stop &&
	test $(wc -l <out) -eq 1
'
test_expect_success "killsnoop -n: the same lines as libbpf-tools' killsnoop" '
	ME=$BASHPID &&
	libbpf_tool killsnoop &&
	: >both && for t in "$SONDE killsnoop" "stdbuf -oL /usr/sbin/killsnoop"; do
		tool_start out $t -n && kill_trigger && sleep 0.2 && tool_stop
		{ head -1 out; kill_lines out | cut -c9- | sed -E "s/ ($K|$K2) +/ K /"; } >>both
	done &&
	cat both && test $(wc -l <both) -eq 8 && head -4 both >a && tail -4 both >b && test_cmp b a
'
# --- runqlat, cpudist, runqlen: CPU-bound processes pinned to CPU 0 queue behind each other
# spinners N SECS: N spin workloads on CPU 0 in the background; SP their pids, A and B the
# first two; once each is spin (libbpf-tools names a section by the task it first saw)
spinners() {
	SP=
	for i in $(seq $1); do taskset -c 0 "$WORKLOADS/spin" $2 >/dev/null & SP="$SP $!"; done
	for p in $SP; do while [ "$(cat /proc/$p/comm)" != spin ]; do sleep 0.01; done; done
	set -- $SP; A=$1 B=${2:-}
}
# hist_rows FILE: every row of its log2 histograms is in libbpf-tools' layout
hist_rows() {
	! grep -E " -> " "$1" | grep -vE "^ {0,9}[0-9]{1,10} -> [0-9]+ {0,10}: [0-9]+ {0,8}\|[* ]{40}\|$"
}
# section_counts FILE LINE [MIN]: the total of the counts of the rows from MIN up (0: all) under LINE
section_counts() {
	awk -v s="$2" -v min="${3:-0}" '$0 == s { on = 1; next } on && /^$/ { on = 0 }
		on && / -> / { if ($1 >= min) n += $5 } END { print n + 0 }' "$1"
}
test_expect_success 'runqlat -P: two CPU-bound processes on one CPU: a section each, waits of a time slice' '
	ME=$BASHPID &&
	spinners 2 2.5 && tool_start out $SONDE tool runqlat -P && sleep 1.5 && tool_stop && wait $SP &&
	echo "Tracing run queue latency... Hit Ctrl-C to end." >want && head -1 out >hdr && test_cmp want hdr &&
	hist_rows out &&
	for p in $SP; do
		grep -A1 -x "pid = $p spin" out | tail -1 | grep -qx "     usecs               : count    distribution" &&
		test $(section_counts out "pid = $p spin") -gt 10 &&
		test $(section_counts out "pid = $p spin" 1024) -gt 0 || exit 1
	done
'
test_expect_success 'runqlat -p PID -m -T 1 2: two timed histograms of that process alone, then it ends' '
	spinners 2 8 &&
	$SONDE runqlat -p $A -m -T 1 2 >out && { { kill $SP; wait $SP; } 2>/dev/null || true; } &&
	grep -v " -> " out | sed -E "s/^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$/HH:MM:SS/" >got &&
	{ echo "Tracing run queue latency... Hit Ctrl-C to end."
	  for i in 1 2; do printf "\nHH:MM:SS\n     msecs               : count    distribution\n"; done; } >want &&
	test_cmp want got && hist_rows out && test $(grep -c " -> " out) -ge 2
'
test_expect_success 'runqlat -L and --pidnss: a section per thread, one for the pid namespace (the first task'\''s comm); cpudist -L' '
	spinners 2 8 &&
	$SONDE runqlat -L 1 1 >out && $SONDE runqlat --pidnss 1 1 >ns && $SONDE cpudist -L 1 1 >cd &&
	{ kill $SP; wait $SP; } 2>/dev/null || true

	hist_rows out && hist_rows ns && hist_rows cd &&
	# (any on-CPU time: on a loaded machine a time slice can stay under a millisecond)
	for p in $SP; do
		test $(section_counts out "tid = $p spin") -gt 0 && test $(section_counts cd "tid = $p spin") -gt 0 ||
			{ cat out cd; exit 1; }
	done &&
	n=$(readlink /proc/self/ns/pid | tr -dc 0-9) && grep "^pidns = " ns >sec && test $(wc -l <sec) -eq 1 &&
	grep -q "^pidns = $n [^ ]" sec && test $(section_counts ns "$(cat sec)" 1024) -gt 0
'
test_expect_success 'runqlat -P -L: only one of -P, -L, --pidnss' '
	! $SONDE runqlat -P -L >out 2>err && grep -q "pidnss, pids, tids cann.t be used together." err
'
# the spinners outlive the tool's start, however slow (a busy machine), and are stopped after it
test_expect_success "runqlat -P: the layout of libbpf-tools' runqlat" '
	libbpf_tool runqlat &&
	: >both && for t in "$SONDE runqlat" "stdbuf -oL /usr/sbin/runqlat"; do
		spinners 2 30 && tool_start out $t -P && sleep 1 && tool_stop &&
		{ { kill $SP; wait $SP; } 2>/dev/null || true; } && hist_rows out &&
		{ head -3 out; for p in $SP; do grep -B1 -A1 -x "pid = $p spin" out | sed "s/ $p / P /"; done; } >>both
	done &&
	cat both && test $(wc -l <both) -eq 18 && head -9 both >a && tail -9 both >b && test_cmp b a
'
test_expect_success 'cpudist -P and -O: CPU-bound processes sharing a CPU run and wait in time slices' '
	spinners 2 2.5 && tool_start out $SONDE tool cpudist -P && sleep 1.5 && tool_stop && wait $SP &&
	echo "Tracing on-CPU time... Hit Ctrl-C to end." >want && head -1 out >hdr && test_cmp want hdr &&
	hist_rows out &&
	for p in $SP; do
		test $(section_counts out "pid = $p spin" 1024) -gt 10 || exit 1
	done &&
	spinners 2 8 &&
	$SONDE cpudist -O -p $A 1 1 >out && { { kill $SP; wait $SP; } 2>/dev/null || true; } &&
	head -2 out | grep -qx "Tracing off-CPU time... Hit Ctrl-C to end." &&
	! grep -q "pid = " out && test $(section_counts out "     usecs               : count    distribution" 1024) -gt 10
'
test_expect_success "cpudist -P -m: the layout of libbpf-tools' cpudist" '
	libbpf_tool cpudist &&
	: >both && for t in "$SONDE cpudist" "stdbuf -oL /usr/sbin/cpudist"; do
		spinners 2 30 && tool_start out $t -P -m && sleep 1 && tool_stop &&
		{ { kill $SP; wait $SP; } 2>/dev/null || true; } && hist_rows out &&
		{ head -3 out; for p in $SP; do grep -B1 -A1 -x "pid = $p spin" out | sed "s/ $p / P /"; done; } >>both
	done &&
	cat both && test $(wc -l <both) -eq 18 && head -9 both >a && tail -9 both >b && test_cmp b a
'
# runqlen: three CPU-bound processes on CPU 0 keep two queued behind the running one (when
# one of them is running: other tests' tasks, in other cgroups, count their own queues)
test_expect_success 'runqlen -C: CPU 0 often has 2 tasks queued; -O -C: it is often occupied' '
	spinners 3 8 && sleep 0.2 &&
	$SONDE tool runqlen -C 1 1 >out &&
	$SONDE runqlen -O -C -T 1 1 >occ && { { kill $SP; wait $SP; } 2>/dev/null || true; } &&
	echo "Sampling run queue length... Hit Ctrl-C to end." >want && head -1 out >hdr && test_cmp want hdr &&
	cat out occ &&
	awk "/^cpu = 0\$/ { on = 1; next } /^cpu = / { on = 0 } on && /^ +[0-9]+ +: / { n += \$3; if (\$1 >= 2) q += \$3 }
		END { exit !(n > 50 && q * 5 > n) }" out &&
	grep -A1 -x "cpu = 0" out | tail -1 | grep -qx "     runqlen       : count     distribution" &&
	! grep -E "^ +[0-9]+ +: " out | grep -vE "^        [0-9]{1,10} {0,9} : [1-9][0-9]* {0,7} \|[* ]{40}\|$" &&
	sed -n 3p occ | grep -qE "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" &&
	grep -qE "^runqocc, CPU 0   ( [3-9][0-9]|100)\.[0-9]{2}%$" occ && grep -qE "^runqocc, CPU 1   [ 0-9]{3}\.[0-9]{2}%$" occ &&
	$SONDE runqlen -O 1 1 >occ && sed -n 3p occ | grep -qE "^runqocc: [0-9]+\.[0-9]{2}%$"
'
# --- syscount: the syscalls workload makes exactly N getppid() and N write()s; it is held on a
# fifo until the tool traces its pid (P), then runs
held_syscalls() {
	rm -f go && mkfifo go
	( read -r _ <go; exec "$WORKLOADS/syscalls" $1 ) & P=$!
}
release() {
	echo >go
	wait $P || true
}
test_expect_success 'syscount -p PID: COUNT 777 for getppid and write, rows by count' '
	held_syscalls 777 &&
	tool_start out $SONDE tool syscount -p $P -T 20 && release && tool_stop &&
	echo "Tracing syscalls, printing top 20... Ctrl+C to quit." >want && head -1 out >hdr && test_cmp want hdr &&
	sed -n 2p out | grep -qE "^\[[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\]$" &&
	sed -n 3p out | grep -qx "SYSCALL                   COUNT" &&
	printf "%-22s %8d\n" getppid 777 write 777 >want && grep -E "^(getppid|write) " out | sort >got && test_cmp want got &&
	sed -n "4,\$p" out | sed "\$d" | awk "{ if (NR > 1 && \$2 > last) exit 1; last = \$2 }" &&
	test "$(tail -1 out)" = ""
'
test_expect_success 'syscount -P: one row for the process; -L: its latency column; -x: no failure there' '
	held_syscalls 300 &&
	tool_start out $SONDE syscount -P -p $P && release && tool_stop &&
	sed -n 3p out | grep -qx "PID    COMM               COUNT" && test $(grep -c . out) -eq 4 &&
	n=$(sed -n 4p out | awk "{ print \$3 }") && test $n -gt 1200 &&
	sed -n 4p out | grep -qx "$(printf "%-6d %-15s %8d" $P syscalls $n)" &&
	held_syscalls 300 &&
	tool_start out $SONDE syscount -L -m -p $P && release && tool_stop &&
	sed -n 3p out | grep -qx "SYSCALL                   COUNT        TIME (ms)" &&
	grep -qE "^getppid {15}      300 {8}[ 0-9]{4}[0-9]\.[0-9]{3}$" out &&
	held_syscalls 300 &&
	tool_start out $SONDE syscount -x -p $P && release && tool_stop &&
	! grep -qE "^(getppid|write) " out
'
test_expect_success 'syscount -e ESRCH, -e 3: the 7 kill()s of a missing pid, the only calls failing so' '
	for e in ESRCH 3; do
		rm -f go && mkfifo go &&
		{ ( read -r _ <go; exec sh -c "for i in 1 2 3 4 5 6 7; do kill -0 2147483600 2>/dev/null; done" ) & P=$!; } &&
		tool_start out $SONDE syscount -e $e -p $P && release && tool_stop &&
		sed 1,2d out >got && printf "%-22s %8s\n%-22s %8d\n\n" SYSCALL COUNT kill 7 >want && test_cmp want got || exit 1
	done
'
test_expect_success 'syscount -i 1 -d 2: a summary each second, then it ends; -l lists the syscalls' '
	$SONDE syscount -i 1 -d 2 >out &&
	test $(grep -cE "^\[[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\]$" out) -eq 2 && test $(grep -cx "SYSCALL  *COUNT" out) -eq 2 &&
	$SONDE syscount -l >list && grep -qx "110: getppid" list && grep -qx "  0: read" list
'
test_expect_success "syscount -L -p PID: the same lines as libbpf-tools' syscount; -l the same names" '
	libbpf_tool syscount &&
	: >both && for t in "$SONDE syscount" "stdbuf -oL /usr/sbin/syscount"; do
		held_syscalls 500 && tool_start out $t -L -p $P -T 20 && release && tool_stop &&
		{ head -1 out; sed -n 3p out; grep -E "^(getppid|write) " out | sed -E "s/ +[0-9]+\.[0-9]{3}$/ T.TTT/" | sort; } >>both
	done &&
	cat both && test $(wc -l <both) -eq 8 && head -4 both >a && tail -4 both >b && test_cmp b a &&
	$SONDE syscount -l | head -335 >a && /usr/sbin/syscount -l | head -335 >b && test_cmp b a
'
# --- offcputime: sonde offcpu under BCC's name; the offcpu workload sleeps 5 x 100 ms in block_here()
# (sonde ends when the -p process does: a DURATION of 10 s never cuts its sleeps, however late it starts)
held_offcpu() {
	rm -f go && mkfifo go
	( read -r _ <go; exec "$WORKLOADS/offcpu" ${1:-5} 100 20 2>measured ) & P=$!
}
# block_us FILE: the microseconds of the entry whose stack sleeps in block_here (do_nanosleep
# there): other entries may pass through block_here too (a preemption, a fault: short ones)
block_us() {
	awk -v RS= "/\n    do_nanosleep\n/ && /\n    block_here\n/ { print \$NF; exit }" "$1"
}
test_expect_success 'offcputime -p PID DURATION: the 500 ms the workload slept in block_here, as sonde offcpu' '
	held_offcpu &&
	tool_start out $SONDE tool offcputime -p $P 10 && release && wait $TOOL_PID &&
	m=$(sed -E "s/.*block_here ([0-9]+) us.*/\1/" measured) && b=$(block_us out) &&
	echo "measured $m, offcputime $b" &&
	# on a failure, what failed last: the output is cut to its last lines
	{ test $b -le $m && test $((b * 10)) -ge $((m * 9)) || { cat out out.err; echo "measured $m, offcputime $b"; exit 1; }; } &&
	{ grep -A1 -x "    block_here" out | tail -1 | grep -qx "    main" || { cat out; echo "block_here not called by main"; exit 1; }; } &&
	grep -qx "    -                offcpu ($P)" out
'
test_expect_success 'offcputime -f -m: folded stacks above a minimum; an option offcpu lacks is refused' '
	# folded, the tool prints nothing before the end: it may attach after the sleep, on a
	# busy machine; the workload blocks 30 times 100 ms, and the first ones may go unseen
	held_offcpu 30 &&
	{ $SONDE offcputime -f -m 90000 -p $P 10 >out & T=$!; } && sleep 1 && release && wait $T &&
	grep -qE "^offcpu;.*;block_here;.*nanosleep.* [0-9]+$" out &&
	! grep -q ";wait_pipe;" out &&
	rc=0 && $SONDE offcputime --perf-max-stack-depth 10 2>err || rc=$?
	test $rc -eq 129 && grep -q "offcputime: .--perf-max-stack-depth. is not in .sonde offcpu." err &&
	$SONDE tools >list 2>err && grep -q "^offcputime     yes  " list && ! test -s err
'
test_expect_success 'offcputime -k: kernel threads only (not the workload); -u: user threads only' '
	held_offcpu &&
	{ $SONDE offcputime -k -f -p $P 2 >out & T=$!; } && sleep 1 && release && wait $T &&
	! grep -q . out &&
	# the workload sleeps in block_here until killed (30 s), longer than both windows and their
	# start-up under load: a user thread known to go off CPU (an idle machine may have no other)
	{ "$WORKLOADS/offcpu" 300 100 1 2>/dev/null & w=$!; } &&
	$SONDE offcputime -k -f 1 >kt && $SONDE offcputime -u -f 1 >ut && { kill $w; wait $w || :; } &&
	# every kernel thread starts in kthread(), but kthreadd (pid 2), which forks them, in kthreadd()
	# a stack the kernel could not keep (a stack map collision under load) is "[Missed Kernel Stack]",
	# counted on stderr as BCC does: it says nothing about the thread
	{ grep -v -e ";kthread;" -e "^kthreadd;.*;kthreadd;" -e "\[Missed Kernel Stack\]" kt >odd || :; } &&
	cat odd && grep -q ";kthread;" kt && ! grep -q . odd &&
	! grep -q "^offcpu;" kt && grep -q "^offcpu;.*;block_here;" ut && ! grep -q ";kthread;" ut &&
	rc=0 && $SONDE offcpu -u -k 2>err || rc=$?
	test $rc -eq 129 && grep -q "exclude each other" err
'
# the workload blocks 3 s, longer than a slow start of either tool (the sleep 1 is no bound)
test_expect_success "offcputime: the entry lines of libbpf-tools' offcputime" '
	libbpf_tool offcputime &&
	: >both && for t in "$SONDE offcputime" "stdbuf -oL /usr/sbin/offcputime"; do
		held_offcpu 30 && { $t -p $P 2 >out 2>/dev/null & T=$!; } && sleep 1 && release && wait $T &&
		awk "/^    -  / { if (sl) { print; getline; print } sl = 0; next } /clock_nanosleep/ { sl = 1 }" out |
			sed -E "s/[0-9]+/N/g" | sort -u >>both
	done &&
	cat both && test $(wc -l <both) -eq 4 && head -2 both >a && tail -2 both >b && test_cmp b a
'
test_done
