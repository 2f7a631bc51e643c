#!/bin/bash
# t0771: the process and scheduler tools (exitsnoop, threadsnoop, killsnoop,
# runqlat, runqlen, cpudist, syscount, offcputime): each with a trigger whose
# answer is known exactly, filtered by the trigger's pids, and compared with
# Debian's libbpf-tools binary of the same name where it runs here.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'every tool of this file is listed by sonde tools' '
	$SONDE tools -q >list &&
	for t in exitsnoop threadsnoop killsnoop; do grep -q "^$t " list || exit 1; done
'
require_root 'the tools trace this kernel'

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
# run_threads N: the threads workload, W its pid
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
	: >both && for t in "$SONDE exitsnoop" /usr/sbin/exitsnoop; do
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
	run_threads 5 && sleep 0.2 && tool_stop &&
	head -1 out >hdr && printf "%-10s %-7s %-16s %s\n" "TIME(ms)" PID COMM FUNC >want && test_cmp want hdr &&
	grep " $W " out >got && test $(wc -l <got) -eq 5 &&
	test $(grep -c "^[0-9][0-9]*  *$W  *threads          thread_worker$" got) -eq 5
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
	: >both && for t in "$SONDE killsnoop" /usr/sbin/killsnoop; do
		tool_start out $t -n && kill_trigger && sleep 0.2 && tool_stop
		{ head -1 out; kill_lines out | cut -c9- | sed -E "s/ ($K|$K2) / K /"; } >>both
	done &&
	cat both && test $(wc -l <both) -eq 8 && head -4 both >a && tail -4 both >b && test_cmp b a
'
test_done
