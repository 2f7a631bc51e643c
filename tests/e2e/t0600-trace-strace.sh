#!/bin/bash
# t0600: sonde trace against strace on the same deterministic programs: the
# lines agree (after masking addresses and pids), and so do the -c counts.
. "$(dirname "$0")/../lib.sh"

if ! command -v strace >/dev/null; then
	test_skip 'sonde trace lines equal strace lines' 'strace is not installed'
	test_done
	exit
fi
# skip only when the kernel refuses the BPF side (a broken sonde must fail, not skip)
if ! $SONDE trace -e trace=getppid -o /dev/null -- true 2>"$TMP/probe.err" &&
   grep -q -e "cannot load the BPF" -e "cannot attach" -e "cannot open the BPF" "$TMP/probe.err"; then
	test_skip 'sonde trace lines equal strace lines' "sonde trace cannot run here: $(head -1 "$TMP/probe.err")"
	test_done
	exit
fi

# addresses differ between runs (ASLR): mask them, and where a masked address
# changed the width of the call, the padding before "= " with it
mask_addr() {
	awk '{ if ($0 ~ /0x[0-9a-f]+/) { gsub(/0x[0-9a-f]+/, "ADDR"); gsub(/\)  +=/, ") =") } print }'
}

# -f output: one stream per process, pids numbered by first appearance;
# strace's <unfinished ...>/<... resumed> pairs joined into one line; the
# SIGCHLD lines dropped from strace's side: an ignored SIGCHLD is only
# delivered to a ptraced process (strace changes what it traces, sonde does not)
per_process() {
	awk '
	{ pid = $1; if (!(pid in id)) id[pid] = "P" (++n); line = substr($0, length(pid) + 2); sub(/^ +/, "", line) }
	line ~ / <unfinished \.\.\.>$/ { sub(/ <unfinished \.\.\.>$/, "", line); pend[pid] = line; next }
	line ~ /^<\.\.\. [a-z0-9_]+ resumed>/ { sub(/^<\.\.\. [a-z0-9_]+ resumed>/, "", line); line = pend[pid] line }
	line ~ /^--- SIGCHLD / { next }
	{ out[++m] = pid; txt[m] = line }
	# a number is a pid by its place, never by its value (an mmap length of
	# 12288 is no pid, even when a pid is 12288): the return value of the calls
	# that return one, the pid arguments of wait4/kill/tkill/tgkill, clone3'"'"'s
	# parent_tid=[N] and a signal'"'"'s si_pid=N
	function pid_at(t, re,   r, s, l, m) {
		r = ""
		while (match(t, re)) {
			s = RSTART; l = RLENGTH; m = substr(t, s, l)
			r = r substr(t, 1, s - 1)
			t = substr(t, s + l)
			if (match(m, /-?[0-9]+[]]?$/)) {
				num = substr(m, RSTART, RLENGTH); tail = ""
				if (num ~ /[]]$/) { tail = "]"; num = substr(num, 1, length(num) - 1) }
				m = substr(m, 1, RSTART - 1) ((num in id) ? id[num] : num) tail
			}
			r = r m
		}
		return r t
	}
	function pids(t) {
		if (t ~ /^(clone|clone3|fork|vfork|wait4|waitid|getpid|gettid|getppid|set_tid_address)\(/)
			t = pid_at(t, "\\) += -?[0-9]+$")
		if (t ~ /^(wait4|kill|tkill|tgkill)\(/)
			t = pid_at(t, "^[a-z0-9]+\\(-?[0-9]+")
		if (t ~ /^tgkill\(/)
			t = pid_at(t, "^tgkill\\([A-Z0-9]+, [0-9]+")
		t = pid_at(t, "parent_tid=\\[[0-9]+]")
		return pid_at(t, "si_pid=[0-9]+")
	}
	END {
		for (i = 1; i <= m; i++) {
			t = txt[i]
			gsub(/0x[0-9a-f]+/, "ADDR", t)	# first: a pid'"'"'s digits inside an address are no pid
			t = pids(t); gsub(/\) +=/, ") =", t)
			print id[out[i]] " " t
		}
	}' "$1" | sort -s -k1,1
}

# per_process is what the -f comparisons stand on: a pid is masked by where it
# is, so a length that happens to equal a pid stays a length (a CI run once
# compared mmap(NULL, P1, ...) with mmap(NULL, 12288, ...))
test_expect_success 'the -f comparison masks pids by place, not by value' '
	cat >in <<-\EOF &&
	12288 mmap(NULL, 12288, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f0000000000
	12288 clone3({flags=CLONE_VM, parent_tid=0x7f00}, 88) = 12290
	12288 wait4(12290, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 12290
	12290 read(3, "x", 12288)          = 12288
	12290 tgkill(12288, 12290, SIGUSR1) = 0
	12288 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=12288, si_uid=0} ---
	EOF
	cat >exp <<-\EOF &&
	P1 mmap(NULL, 12288, PROT_READ, MAP_PRIVATE, 3, 0) = ADDR
	P1 clone3({flags=CLONE_VM, parent_tid=ADDR}, 88) = P2
	P1 wait4(P2, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = P2
	P1 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=P1, si_uid=0} ---
	P2 read(3, "x", 12288) = 12288
	P2 tgkill(P1, P2, SIGUSR1) = 0
	EOF
	per_process in >out &&
	test_cmp exp out
'

# the syscall, calls and errors columns of a -c table, by name
counts() {
	awk '/^-/ { sep++; next } sep >= 1 && NF >= 5 { e = (NF == 6) ? $5 : 0; print $NF, $4, e }' "$1" | sort
}

test_expect_success 'the lines of a whole run equal strace -o (loader included)' '
	strace -o st.txt "$WORKLOADS/syscalls" 3 &&
	$SONDE trace -o so.txt "$WORKLOADS/syscalls" 3 &&
	# getppid and set_tid_address return pids
	sed -E "s/^(getppid\(\) +|set_tid_address\(0x[0-9a-f]+\) +)= [0-9]+$/\1= PID/" st.txt | mask_addr >expect &&
	sed -E "s/^(getppid\(\) +|set_tid_address\(0x[0-9a-f]+\) +)= [0-9]+$/\1= PID/" so.txt | mask_addr >actual &&
	test $(wc -l <expect) -gt 40 &&
	test_cmp expect actual
'

test_expect_success 'the lines of ls -la, id and uname -a equal strace -o' '
	mkdir -p d && touch d/a d/b &&
	for cmd in "ls -la d" "id" "uname -a"; do
		strace -o st.txt $cmd >/dev/null &&
		$SONDE trace -o so.txt $cmd >/dev/null &&
		# pids and random bytes differ from run to run
		sed -E "s/^(set_tid_address\(0x[0-9a-f]+\) +)= [0-9]+$/\1= PID/; s/^getrandom\(\"[^\"]*\"/getrandom(RANDOM/" st.txt | mask_addr >expect &&
		sed -E "s/^(set_tid_address\(0x[0-9a-f]+\) +)= [0-9]+$/\1= PID/; s/^getrandom\(\"[^\"]*\"/getrandom(RANDOM/" so.txt | mask_addr >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'open flags, ENOENT, mmap, signals, sockets, pipes, fork with -f equal strace -f' '
	mkdir -p w &&
	strace -f -o st.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	$SONDE trace -f -o so.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	per_process st.txt >expect &&
	per_process so.txt >actual &&
	grep -q "ENOENT" actual && grep -q "^P2 exit_group(7)" actual &&
	grep -q "SIGUSR1 {si_signo" actual && grep -q "inet_addr(\"127.0.0.1\")" actual &&
	test_cmp expect actual
'

test_expect_success 'interleaved calls are cut with <unfinished ...> and <... resumed> as strace does' '
	$SONDE trace -f -e trace=read,write,clock_nanosleep -o so.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	parent=$(head -1 so.txt | cut -d" " -f1) &&
	grep -E "^$parent +read\([0-9]+,  <unfinished \.\.\.>$" so.txt &&
	grep -E "^$parent +<\.\.\. read resumed>\"y\", 1\) += 1$" so.txt &&
	grep -E "^[0-9]+ +clock_nanosleep\(CLOCK_REALTIME, 0, \{tv_sec=0, tv_nsec=50000000\}, NULL\) += 0$" so.txt
'

test_expect_success 'threads (clone3, exit) followed with -f equal strace -f' '
	strace -f -e trace=clone3,exit,exit_group,rt_sigprocmask -o st.txt "$WORKLOADS/spin" 0.1 2 >/dev/null &&
	$SONDE trace -f -e trace=clone3,exit,exit_group,rt_sigprocmask -o so.txt "$WORKLOADS/spin" 0.1 2 >/dev/null &&
	per_process st.txt >expect && per_process so.txt >actual &&
	grep -q "=> {parent_tid=\[P2\]}, 88) = P2" actual &&
	test_cmp expect actual
'

test_expect_success '-c counts and errors equal strace -c' '
	strace -c -o st.txt "$WORKLOADS/syscalls" 1000 &&
	$SONDE trace -c -o so.txt "$WORKLOADS/syscalls" 1000 &&
	counts st.txt >expect && counts so.txt >actual &&
	grep -q "^getppid 1000 0$" actual && grep -q "^total 4031 1$" actual &&
	test_cmp expect actual &&
	strace -f -c -o st.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	$SONDE trace -f -c -o so.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	counts st.txt >expect && counts so.txt >actual &&
	test_cmp expect actual
'

test_expect_success '-c keeps strace -c layout' '
	head -2 so.txt >actual &&
	printf "%s\n" "% time     seconds  usecs/call     calls    errors syscall" \
		"------ ----------- ----------- --------- --------- ----------------" >expect &&
	test_cmp expect actual &&
	grep -E "^ *[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{6} +[0-9]+ +[0-9]+ +([0-9]+ )? *total$" so.txt
'

test_expect_success '-e trace= sets and classes select what strace selects' '
	for e in "trace=%file" "trace=openat,close" "trace=!write,getppid" "trace=%memory,%signal" \
		 "trace=%network" "status=failed" "trace=/^(open|close|mmap)"; do
		strace -f -e "$e" -o st.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
		$SONDE trace -f -e "$e" -o so.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
		per_process st.txt | grep -v "^P[0-9]* +++ exited" >expect &&
		per_process so.txt | grep -v "^P[0-9]* +++ exited" >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success '-s cuts strings as strace -s does' '
	strace -s 4 -o st.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	$SONDE trace -s 4 -o so.txt "$WORKLOADS/trace_mix" "$TMP/w" &&
	grep "\"hell\"\.\.\." so.txt &&
	grep -E "^(write|read)\(" st.txt | mask_addr >expect &&
	grep -E "^(write|read)\(" so.txt | mask_addr >actual &&
	test_cmp expect actual
'

test_expect_success 'a path not yet paged in is read again at exit (fresh binary)' '
	cp "$WORKLOADS/coldpath" ./fresh &&
	strace -e trace=openat -o st.txt ./fresh &&
	$SONDE trace -v -e trace=openat -o so.txt ./fresh 2>err &&
	grep "\"/etc/hostname\"" so.txt &&
	test_cmp st.txt so.txt &&
	grep -E "[1-9][0-9]* strings read again at exit" err
'

test_expect_success '-tt -T and -r lines have strace layout' '
	strace -tt -T -e trace=getppid,close -o st.txt "$WORKLOADS/syscalls" 2 &&
	$SONDE trace -tt -T -e trace=getppid,close -o so.txt "$WORKLOADS/syscalls" 2 &&
	mask_numbers <st.txt >expect && mask_numbers <so.txt >actual &&
	test_cmp expect actual &&
	strace -r -e trace=getppid -o st.txt "$WORKLOADS/syscalls" 2 &&
	$SONDE trace -r -e trace=getppid -o so.txt "$WORKLOADS/syscalls" 2 &&
	mask_numbers <st.txt >expect && mask_numbers <so.txt >actual &&
	test_cmp expect actual
'

test_done
