#!/bin/bash
# sonde probe's program-level features: named parameters (getopt() and -- --NAME=VALUE,
# -- --help), fail(), kfunc_exist()/kfunc_allowed(), self:signal:SIGUSR1, missing_probes,
# --test, --bench, -B and --no-warnings.
. "$(dirname "$0")/../lib.sh"

require_root 'probe runtime features'

# ---- named and positional parameters (getopt()'s flags are bools: true/false, as upstream's docs say) ----
test_expect_success 'getopt(): an integer, a flag, a string and a negative integer given after --' '
	$SONDE probe -e "BEGIN { print((getopt(\"aa\", 1), getopt(\"bb\"), getopt(\"cc\", \"hello\"), getopt(\"dd\", -5, \"the dd\"))); exit() }" \
		-- --aa=20 --bb --cc=bye --dd=-7 >out &&
	printf "Attaching 1 probe...\n(20, true, bye, -7)\n\n\n" >exp && test_cmp exp out
'
test_expect_success 'getopt(): the defaults when nothing is given' '
	$SONDE probe -e "BEGIN { print((getopt(\"aa\", 1), getopt(\"bb\"), getopt(\"cc\", \"hello\"), getopt(\"dd\", -5, \"the dd\"), getopt(\"ee\", true))); exit() }" >out &&
	printf "Attaching 1 probe...\n(1, false, hello, -5, true)\n\n\n" >exp && test_cmp exp out
'
test_expect_success 'getopt(): flags take =true/=1/=false/=0; hex integers; an empty string' '
	$SONDE probe -e "BEGIN { print((getopt(\"a\", true), getopt(\"b\"), getopt(\"c\", false), getopt(\"n\", 0), getopt(\"s\", \"x\"))); exit() }" \
		-- --a=false --b=1 --c=true --n=0x10 --s= >out &&
	printf "Attaching 1 probe...\n(false, true, true, 16, )\n\n\n" >exp && test_cmp exp out
'
test_expect_success 'positional parameters before and after --, mixed with named ones' '
	$SONDE probe -e "BEGIN { print((\$1, getopt(\"aa\", 1), getopt(\"bb\"), \$2, \$#)); exit() }" p1 -- --aa=20 --bb p2 >out &&
	printf "Attaching 1 probe...\n(p1, 20, true, p2, 2)\n\n\n" >exp && test_cmp exp out
'
if have_bpftrace; then
	test_expect_success 'positional parameters around -- read as bpftrace 0.17 reads them' '
		prog="BEGIN { printf(\"%s %s %d %d\n\", str(\$1), str(\$2), \$3, \$#); exit() }" &&
		bpftrace -e "$prog" p1 -- p2 7 >exp 2>/dev/null &&
		$SONDE probe -e "$prog" p1 -- p2 7 >out && test_cmp exp out
	'
else
	test_skip 'positional parameters compared with bpftrace' 'bpftrace is not installed'
fi
test_expect_success 'a named parameter changes the code: an if on it is settled when compiling' '
	prog="BEGIN { if (getopt(\"verbose\")) { printf(\"verbose\n\"); } else { printf(\"quiet\n\"); } exit() }" &&
	$SONDE probe -e "$prog" >out1 && $SONDE probe -e "$prog" -- --verbose >out2 &&
	grep -qx quiet out1 && grep -qx verbose out2 && ! grep -q verbose out1 &&
	$SONDE probe -v --dry-run -e "$prog" >dump && ! grep -q verbose dump
'
test_expect_success '-- --help lists the options with their descriptions and defaults, runs nothing' '
	$SONDE probe -e "BEGIN { print((getopt(\"aa\", 10, \"Description of aa\"), getopt(\"bb\", \"hello\"), getopt(\"cc\"), getopt(\"dd\", false))); printf(\"ran\n\"); }" -- --help >out &&
	cat >exp <<-\EOF &&
	options of stdin (give them after --, as in: -- --aa=N):
	    --aa=N                   Description of aa (default: 10)
	    --bb=TEXT                (default: "hello")
	    --cc[=BOOL]              (default: false)
	    --dd[=BOOL]              (default: false)
	EOF
	test_cmp exp out
'
test_expect_success '-- --help of a script file without options' '
	echo "BEGIN { exit() }" >s.bt &&
	$SONDE probe s.bt -- --help >out && echo "s.bt declares no named options (getopt())" >exp && test_cmp exp out
'
bad_named() {	# $1: what is given; $2: the one line expected on stderr
	! $SONDE probe -e 'BEGIN { print((getopt("aa", 1), getopt("bb"), getopt("cc", "s"))); exit() }' -- $1 >out 2>err &&
	echo "$2" >exp && test_cmp exp err && test ! -s out
}
test_expect_success 'an unknown named option is one error line' '
	bad_named --zz=1 "sonde: unknown program option '\''--zz'\'' (the program'\''s options: --aa, --bb, --cc; -- --help lists them)"
'
test_expect_success 'an integer option given a word is one error line' '
	bad_named --aa=x1 "sonde: program option '\''--aa'\'' takes an integer, not '\''x1'\''"
'
test_expect_success 'an integer option takes an errno name as its number (syscount -e ENOENT)' '
	$SONDE probe -e "BEGIN { printf(\"%d\n\", getopt(\"aa\", 1)); exit() }" -- --aa=ENOENT >out &&
	printf "Attaching 1 probe...\n2\n\n\n" >exp && test_cmp exp out &&
	bad_named --aa=ENOPE "sonde: program option '\''--aa'\'' takes an integer, not '\''ENOPE'\''"
'
test_expect_success 'an integer option out of range is one error line' '
	bad_named --aa=99999999999999999999 "sonde: program option '\''--aa'\'' takes an integer, not '\''99999999999999999999'\'' (out of range)"
'
test_expect_success 'a flag given a word is one error line' '
	bad_named --bb=maybe "sonde: program option '\''--bb'\'' is true or false (1 or 0), not '\''maybe'\''"
'
test_expect_success 'a string option without a value is one error line' '
	bad_named --cc "sonde: program option '\''--cc'\'' needs a value: --cc=TEXT"
'
test_expect_success 'named options of a program that declares none' '
	! $SONDE probe -e "BEGIN { exit() }" -- --aa 2>err &&
	echo "sonde: unknown program option '\''--aa'\'' (the program declares no options with getopt(); -- --help lists them)" >exp &&
	test_cmp exp err
'

# ---- fail() ----
failprog='BEGIN { if ($1 < 2) { fail("Expected the first positional param to be greater than 1. Got %d", $1); } printf("got %d\n", $1); exit() }'
test_expect_success 'fail() not reached: the program runs' '
	$SONDE probe -e "$failprog" 5 >out && grep -qx "got 5" out
'
test_expect_success 'fail() reached: the message with the source line and a caret, nothing runs' '
	! $SONDE probe -e "$failprog" 1 >out 2>err &&
	cat >exp <<-EOF &&
	stdin:1:23: error: Expected the first positional param to be greater than 1. Got 1
	$failprog
	                      ^^^^
	EOF
	test_cmp exp err && test ! -s out
'
test_expect_success 'fail() on a named parameter' '
	prog="BEGIN { if (getopt(\"n\", 1) > 3) { fail(\"n is %d, at most 3\", getopt(\"n\", 1)); } exit() }" &&
	$SONDE probe -e "$prog" -- --n=3 >/dev/null &&
	! $SONDE probe -e "$prog" -- --n=4 2>err && grep -q "error: n is 4, at most 3" err
'

# ---- kfunc_exist() / kfunc_allowed() ----
if [ -r /sys/kernel/btf/vmlinux ] && command -v bpftool >/dev/null; then
	test_expect_success 'kfunc_exist(): the kernel BTF decides, as bpftool reads it' '
		bpftool btf dump file /sys/kernel/btf/vmlinux >btf.txt &&
		id=$(grep -m1 "] FUNC '\''bpf_rcu_read_lock'\''" btf.txt | sed "s/^\[\([0-9]*\)\].*/\1/") &&
		test -n "$id" && grep -q "DECL_TAG '\''bpf_kfunc'\'' type_id=$id " btf.txt &&
		$SONDE probe -e "BEGIN { printf(\"%d %d %d\n\", kfunc_exist(\"bpf_rcu_read_lock\"), kfunc_exist(\"no_such_kfunc_xyz\"), kfunc_exist(\"vfs_read\")); exit() }" >out &&
		grep -q "] FUNC '\''vfs_read'\''" btf.txt &&
		printf "Attaching 1 probe...\n1 0 0\n\n\n" >exp && test_cmp exp out
	'
else
	test_skip 'kfunc_exist() against bpftool' 'no kernel BTF or no bpftool'
fi
test_expect_success 'kfunc_allowed(): the verifier says which program types may call a kfunc' '
	$SONDE probe -e "BEGIN { printf(\"%d %d %d\n\", kfunc_allowed(\"bpf_rcu_read_lock\"), kfunc_allowed(\"bpf_ct_release\"), kfunc_allowed(\"no_such_kfunc_xyz\")); exit() }" >out &&
	printf "Attaching 1 probe...\n1 0 0\n\n\n" >exp && test_cmp exp out
'
test_expect_success 'kfunc_exist() settles an if: the other branch is not compiled' '
	$SONDE probe -e "BEGIN { if (kfunc_exist(\"no_such_kfunc_xyz\")) { fail(\"impossible\"); } else { printf(\"no kfunc\n\"); } exit() }" >out &&
	grep -qx "no kfunc" out &&
	! $SONDE probe --dry-run -e "BEGIN { if (kfunc_exist(\"bpf_rcu_read_lock\")) { fail(\"has %s\", \"it\"); } }" 2>err &&
	grep -q "error: has it" err
'

# ---- self:signal:SIGUSR1 ----
test_expect_success 'self:signal:SIGUSR1 runs each time sonde gets SIGUSR1' '
	$SONDE probe -e "self:signal:SIGUSR1 { printf(\"usr1 %d\n\", @n); @n++; } BEGIN { printf(\"ready\n\") } interval:s:4 { exit() }" >out 2>err &
	pid=$! &&
	for i in $(seq 50); do grep -q ready out && break; sleep 0.1; done &&
	kill -USR1 $pid && sleep 0.3 && kill -USR1 $pid && sleep 0.3 && kill -USR1 $pid && sleep 0.3 &&
	kill -INT $pid && wait $pid &&
	grep -c "^usr1 " out >n && echo 3 >exp && test_cmp exp n &&
	grep -qx "usr1 2" out && grep -qx "@n: 3" out
'
test_expect_success 'self probes take only SIGUSR1' '
	! $SONDE probe --dry-run -e "self:signal:SIGHUP { }" 2>err && grep -q "self:signal:SIGUSR1" err
'

# ---- missing_probes ----
missing='tracepoint:nosuch:thing { @a = count(); } tracepoint:syscalls:sys_enter_getppid, tracepoint:nosuch:other { @b = count(); } BEGIN { printf("began\n"); exit(); }'
test_expect_success 'missing_probes = error (the default): a probe that does not exist is an error' '
	! $SONDE probe -e "$missing" >out 2>err && grep -q "error: no tracepoint matches '\''nosuch:thing'\''" err &&
	! BPFTRACE_MISSING_PROBES=error $SONDE probe -e "$missing" 2>/dev/null
'
test_expect_success 'missing_probes = warn: skipped with a warning each, the rest runs' '
	$SONDE probe -e "config = { missing_probes = warn } $missing" >out 2>err &&
	grep -qx began out && grep -q "^Attaching 2 probes" out &&
	test $(grep -c "warning: skipping" err) = 3 &&
	grep -q "skipping '\''tracepoint:nosuch:other'\''" err
'
test_expect_success 'missing_probes = ignore: skipped silently (also from BPFTRACE_MISSING_PROBES)' '
	BPFTRACE_MISSING_PROBES=ignore $SONDE probe -e "$missing" >out 2>err &&
	grep -qx began out && test ! -s err
'
attachfail='rawtracepoint:no_such_raw_tp { @a = count(); } interval:ms:100 { printf("tick\n"); exit(); }'
test_expect_success 'a probe that fails to attach: error, warn, ignore' '
	! $SONDE probe -e "$attachfail" >out 2>err && grep -q "no_such_raw_tp" err && ! grep -q tick out &&
	$SONDE probe -e "config = { missing_probes = warn } $attachfail" >out 2>err && grep -qx tick out &&
	grep -q "warning: skipping '\''rawtracepoint:no_such_raw_tp'\''" err &&
	$SONDE probe -e "config = { missing_probes = ignore } $attachfail" >out 2>err && grep -qx tick out && test ! -s err
'
test_expect_success '--no-warnings silences the skipped probes'\'' warnings' '
	$SONDE probe --no-warnings -e "config = { missing_probes = warn } $missing" >out 2>err &&
	grep -qx began out && test ! -s err
'

# ---- --test ----
cat >"$TMP/tests.bt" <<'EOF'
test:okay { printf("okay output is dropped\n"); }
test:failure { printf("the failure's output is shown\n"); return 1; }
test:arith { $a = 6; $b = 7; return $a * $b - 42; }
test:early { if (1) { return 0; } }
BEGIN { printf("BEGIN does not run in test mode\n"); }
bench:b { @x = count(); }
EOF
test_expect_success '--test: each test: probe once, which pass, exit 1 when one fails' '
	! $SONDE probe --test tests.bt >out 2>err &&
	cat >exp <<-\EOF &&
	Attaching 4 probes...
	test:okay: ok
	test:failure: FAILED (returned 1)
	the failure'\''s output is shown
	test:arith: ok
	test:early: ok

	4 tests: 3 passed, 1 failed
	EOF
	test_cmp exp out
'
test_expect_success '--test: all pass, exit 0; exit() fails a test' '
	$SONDE probe --test -e "test:a { return 0; } test:b { \$x = 1; }" >out &&
	grep -qx "2 tests: 2 passed, 0 failed" out &&
	! $SONDE probe --test -e "test:c { exit(); }" >out &&
	grep -qx "test:c: FAILED (called exit(0))" out
'
test_expect_success '--test: exit(CODE) and errorf() fail their test, the others run; the status is 1, not CODE' '
	{ $SONDE probe --test -e "test:a { exit(3); } test:b { errorf(\"bad %d\", 7); } test:c { warnf(\"w\"); } test:d { return 0; }" >out 2>err; test $? = 1; } &&
	printf "%s\n" "Attaching 4 probes..." "test:a: FAILED (called exit(3))" "test:b: FAILED (called errorf())" \
		"test:c: ok" "test:d: ok" "" "4 tests: 2 passed, 2 failed" >exp && test_cmp exp out &&
	grep -q "^stdin:1:30-49: ERROR: bad 7\$" err &&
	{ $SONDE probe --test -e "test:a { exit(0); } test:b { }" >out; test $? = 1; } &&
	{ $SONDE probe --test -e "test:a { exit(5); }" >out; test $? = 1; } &&
	grep -qx "test:a: FAILED (called exit(5))" out
'
test_expect_success 'exit(CODE) outside --test: sonde exits with CODE after END and the maps' '
	{ $SONDE probe -e "BEGIN { @n = 1; \$c = 4; exit(\$c + 1); } END { printf(\"end\\n\"); }" >out; test $? = 5; } &&
	grep -qx "end" out && grep -qx "@n: 1" out &&
	{ $SONDE probe -e "BEGIN { exit(); }" >out; test $? = 0; } &&
	! $SONDE probe --dry-run -e "BEGIN { exit(\"x\"); }" 2>err && grep -q "exit() takes an integer exit code" err
'
# the loop may end at the -c command's exit before it reads the exit() record: END's lines
# used to come after it and were dropped as records after exit(), about one run in two
test_expect_success 'exit() with -c: END prints, whether the loop saw the exit() or the command end first' '
	for i in 1 2 3 4 5 6; do
		$SONDE probe -c "$WORKLOADS/syscalls 5" -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n = count(); exit(); }
  END { printf(\"end\n\"); }" >out &&
		printf "Attaching 2 probes...\nend\n\n\n@n: 1\n" >want && test_cmp want out || exit 1
	done
'
test_expect_success 'without --test the test: probes are left out (and checked)' '
	$SONDE probe -e "test:t { printf(\"test ran\n\"); } BEGIN { printf(\"begin ran\n\"); exit(); }" >out &&
	grep -qx "begin ran" out && ! grep -q "test ran" out && grep -q "^Attaching 1 probe" out &&
	! $SONDE probe --test -e "test:t { return \"no\"; }" 2>err && grep -q "return takes an integer" err &&
	! $SONDE probe --test -e "BEGIN { exit(); }" 2>err && grep -qx "sonde: --test: the program has no test: probes" err
'

# ---- --bench ----
cat >"$TMP/bench.bt" <<'EOF'
bench:lhist { @a = lhist(rand % 10, 1, 10, 1); }
bench:count { @b = count(); }
bench:my_loop { $a = 0; for ($i : 0..10) { $a++; } }
bench:heavy { $a = 0; for ($i : 0..300) { $a += $i; } @h = $a; }
bench:empty { }
test:t { }
EOF
test_expect_success '--bench: the table of average ns per run, sorted by name, in a sane order' '
	$SONDE probe --bench bench.bt >out &&
	sed -n "1p" out >head && echo "Attaching 5 probes..." >exp && test_cmp exp head &&
	sed "1d" out | mask_numbers | sed "s/N  */N /" >layout &&
	{ printf "%-40s %-15s%s\n" Benchmark "Time(ns)" Iterations &&
	  printf "%066d\n" 0 | tr 0 - &&
	  for b in count empty heavy lhist my_loop; do printf "%-40s N N\n" $b; done &&
	  printf "\n\n"; } >exp &&
	test_cmp exp layout &&
	ns() { awk -v n="$1" "\$1 == n { print \$2 }" out; } &&
	e=$(ns empty) && h=$(ns heavy) && c=$(ns count) &&
	test "$e" -gt 0 && test "$e" -lt 100000 && test "$c" -gt 0 && test "$c" -lt 100000 &&
	test "$h" -gt $((e + 100)) && test "$h" -lt 1000000 &&
	test "$(awk "\$1 == \"empty\" { print \$3 }" out)" -ge 1000
'
test_expect_success '--mode bench is --bench; -q -f json: one benchmark_result line per bench' '
	$SONDE probe -q -f json --mode bench bench.bt >out &&
	sed "s/[0-9][0-9]*/N/g" out >layout &&
	for b in count empty heavy lhist my_loop; do
		echo "{\"type\": \"benchmark_result\", \"data\": {\"$b\": {\"average\": N, \"iters\": N}}}"
	done >exp && test_cmp exp layout &&
	$SONDE probe -f json --mode test -e "test:t { }" >out &&
	head -1 out >got && echo "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}" >exp && test_cmp exp got &&
	! $SONDE probe --mode fast bench.bt 2>err && grep -q "takes run, test or bench, not .fast." err &&
	! $SONDE probe --test --mode bench bench.bt 2>err && grep -q "do not go together" err
'
test_expect_success '--bench and --test together are refused' '
	! $SONDE probe --bench --test bench.bt 2>err && grep -q "do not go together" err
'

# ---- -B ----
ticks='BEGIN { printf("begin\n") } interval:ms:100 { printf("tick\n") } interval:s:2 { exit() }'
test_expect_success '-B full: nothing reaches the file before the buffer fills or sonde ends' '
	$SONDE probe -B full -e "$ticks" >out 2>err & pid=$! &&
	sleep 1 && n=$(grep -c tick out || true) && wait $pid &&
	test "$n" = 0 && test $(grep -c tick out) -ge 15
'
test_expect_success '-B line and -B none: each line as it comes' '
	for m in line none; do
		$SONDE probe -B $m -e "$ticks" >out 2>err & pid=$!
		sleep 1; n=$(grep -c tick out || true); wait $pid || exit 1
		test "$n" -ge 3 || exit 1
	done
'
test_expect_success '-B takes line, full or none' '
	! $SONDE probe -B sometimes -e "BEGIN { exit() }" 2>err && grep -q "^sonde: -B takes line, full or none" err
'
test_expect_success 'a program file that cannot be read: one line saying why, exit 1' '
	mkdir d && { $SONDE probe d 2>err; test $? = 1; } &&
	echo "sonde: cannot read '"'"'d'"'"': Is a directory" >want && test_cmp want err
'

test_done
