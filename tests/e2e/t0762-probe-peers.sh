#!/bin/bash
# sonde probe where bpftrace's own runtime tests (issue 22, run locally by
# scripts/peer-suites.sh) found it apart from bpftrace: the runner's
# attach notification, -q, -o FILE, a program of BEGIN/END probes only
# ending by itself. Each answer is exact.
. "$(dirname "$0")/../lib.sh"
require_root 'sonde probe'

test_expect_success 'a program of BEGIN and END probes only ends after BEGIN (maps printed)' '
	timeout 20 $SONDE probe -e "BEGIN { @a = 1; } END { printf(\"end\n\"); }" >out &&
	printf "Attaching 2 probes...\nend\n\n\n@a: 1\n" >expect && test_cmp expect out
'

test_expect_success '__BPFTRACE_NOTIFY_PROBES_ATTACHED: the line once attached, before what BEGIN printed' '
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout 20 $SONDE probe -e "BEGIN { printf(\"hi\n\"); exit(); }" >out &&
	printf "Attaching 1 probe...\n__BPFTRACE_NOTIFY_PROBES_ATTACHED\nhi\n\n\n" >expect && test_cmp expect out &&
	timeout 20 $SONDE probe -e "BEGIN { exit(); }" >out && ! grep -q NOTIFY out
'

test_expect_success '-q: no Attaching line (text and json)' '
	timeout 20 $SONDE probe -q -e "BEGIN { printf(\"hi\n\"); exit(); }" >out &&
	printf "hi\n\n\n" >expect && test_cmp expect out &&
	timeout 20 $SONDE probe -q -f json -e "begin { @scalar = 5; }" >out &&
	printf "\n\n{\"type\": \"map\", \"data\": {\"@scalar\": 5}}\n" >expect && test_cmp expect out
'

test_expect_success '-o FILE: the output, system()'"'"'s included, goes to FILE' '
	timeout 20 $SONDE probe --unsafe -o f.txt -e "BEGIN { printf(\"x %d\n\", 1); system(\"echo sys\"); @=lhist(50, 0, 100, 10); exit(); }" >out &&
	[ ! -s out ] && head -3 f.txt >got &&
	printf "Attaching 1 probe...\nx 1\nsys\n" >expect && test_cmp expect got &&
	grep -q "^\[50, 60) *1 |@*|$" f.txt &&
	! $SONDE probe -o /nonexistent/dir/f -e "BEGIN { exit(); }" 2>err && grep -q "cannot write ./nonexistent/dir/f." err
'

test_expect_success '-f json: time(), system() and cat() are events of their own type, as bpftrace 0.17 prints them' '
	printf "line one\n" >c.txt &&
	timeout 20 $SONDE probe --unsafe -q -f json -e "BEGIN { time(\"%Y\n\"); system(\"echo a b c\"); cat(\"c.txt\"); exit(); }" >out &&
	printf "{\"type\": \"time\", \"data\": \"%s\\\\n\"}\n" "$(date +%Y)" >expect &&
	printf "{\"type\": \"syscall\", \"data\": \"a b c\\\\n\"}\n{\"type\": \"cat\", \"data\": \"line one\\\\n\"}\n\n\n" >>expect &&
	test_cmp expect out
'

test_expect_success 'BPFTRACE_DUMMY_TS_MAP=@ts: tseries() takes its time from @ts (bpftrace'"'"'s tests'"'"' clock)' '
	# @ts runs 250..540 ms by 10: the last value of 300-390 ms is 14 % 10, of 500-540 ms 29 % 10
	P="config = { unstable_tseries = enable } BEGIN { @ts = (uint64)0; } i:ms:1 { \$i = (uint64)0; @ts = 250000000;"
	P="$P while (\$i < 30) { @a = tseries(\$i % 10, 100ms, 3); @ts += 10000000; \$i++; } clear(@ts); exit(); }" &&
	BPFTRACE_DUMMY_TS_MAP=@ts timeout 20 $SONDE probe -q -f json -e "$P" >out &&
	printf "\n\n{\"type\": \"tseries\", \"data\": {\"@a\": [%s, %s, %s]}}\n" \
		"{\"interval_start\": \"1970-01-01 00:00:00.300000000\", \"value\": 4}" \
		"{\"interval_start\": \"1970-01-01 00:00:00.400000000\", \"value\": 4}" \
		"{\"interval_start\": \"1970-01-01 00:00:00.500000000\", \"value\": 9}" >expect &&
	test_cmp expect out
'

test_expect_success 'a positional parameter past int64 is an unsigned 64-bit one' '
	timeout 20 $SONDE probe -e "BEGIN { printf(\"%lu %d\n\", \$1, \$2); exit(); }" 0xffffffffffffffff 42 >out &&
	printf "Attaching 1 probe...\n18446744073709551615 42\n\n\n" >expect && test_cmp expect out
'

test_expect_success '-l: interval and profile units, software aliases, a program'"'"'s probes' '
	$SONDE probe -l "interval:*" >out && printf "interval:hz:\ninterval:us:\ninterval:ms:\ninterval:s:\n" >expect &&
	test_cmp expect out &&
	$SONDE probe -l "p:m*" >out && echo "profile:ms:" >expect && test_cmp expect out &&
	$SONDE probe -l "software:cpu*" >out && printf "software:cpu-clock:\nsoftware:cpu:\nsoftware:cpu-migrations:\n" >expect &&
	test_cmp expect out &&
	$SONDE probe -l -e "tracepoint:sched:sched_switch { exit(); } i:us:10 {} BEGIN {}" >out &&
	printf "tracepoint:sched:sched_switch\ninterval:us:\nBEGIN\n" >expect && test_cmp expect out &&
	printf "interval:s:1 { exit(); }\nsoftware:faults:1 { }\n" >p.bt && $SONDE probe -l p.bt >out &&
	printf "interval:s:\nsoftware:faults:\n" >expect && test_cmp expect out
'
test_expect_success '-f json: a value cast to an enum is its enumerator'"'"'s name, a string' '
	P="enum BAZ { FOO = 333, BAR }; BEGIN { \$y = 3; print((enum BAZ)333); print((enum BAZ)\$y); @[(enum BAZ)334] = 1; exit(); }" &&
	$SONDE probe -q -f json -e "$P" >out &&
	printf "{\"type\": \"value\", \"data\": \"FOO\"}\n{\"type\": \"value\", \"data\": 3}\n\n\n{\"type\": \"map\", \"data\": {\"@\": {\"BAR\": 1}}}\n" >expect &&
	test_cmp expect out
'
test_expect_success 'a string positional parameter: str($1 + N) starts N bytes in; kaddr(str($1)) takes it' '
	$SONDE probe -e "BEGIN { printf(\"%s %s %d\n\", str(\$1 + 1), str(\$2 + 5), kaddr(str(\$1)) == kaddr(\"vfs_read\")); exit(); }" vfs_read hello >out &&
	printf "Attaching 1 probe...\nfs_read  1\n\n\n" >expect && test_cmp expect out
'
test_expect_success '--probe-filter REGEX: only the probes whose names it finds, BEGIN and END kept' '
	timeout 20 $SONDE probe --probe-filter "ms:(200|300)" -e "BEGIN { printf(\"begin\n\"); } i:ms:100 { printf(\"bad\n\"); exit(); } i:ms:200 { printf(\"a\n\"); } i:ms:300 { printf(\"b\n\"); exit(); } END { printf(\"end\n\"); }" >out &&
	printf "Attaching 4 probes...\nbegin\na\nb\nend\n\n\n" >expect && test_cmp expect out &&
	! $SONDE probe --probe-filter "nothing_xyz" -e "i:ms:100 { exit(); }" 2>err &&
	grep -q "No probes to attach" err &&
	! $SONDE probe --probe-filter "[bad" -e "i:ms:100 { exit(); }" 2>err &&
	grep -q "Invalid --probe-filter regex" err
'
test_expect_success 'unroll ($1): a positional parameter is a constant count' '
	$SONDE probe -e "BEGIN { \$a = 1; unroll (\$1) { \$a = \$a + 1; } printf(\"a=%d\n\", \$a); exit(); }" 10 >out &&
	printf "Attaching 1 probe...\na=11\n\n\n" >expect && test_cmp expect out &&
	! $SONDE probe --dry-run -e "BEGIN { unroll (\$1) { } }" 101 2>err && grep -q "unroll takes a constant from 1 to 100" err
'
test_expect_success 'rawtracepoint: args.NAME are the raw tracepoint'"'"'s arguments, typed by BTF' '
	timeout 20 $SONDE probe -c /bin/true -e "rawtracepoint:sched_process_exec { if (args.p->pid == cpid) { printf(\"%s %d\n\", str(args.bprm->filename), args.old_pid == cpid); } }" >out &&
	printf "Attaching 1 probe...\n/bin/true 1\n\n\n" >expect && test_cmp expect out &&
	! $SONDE probe --dry-run -e "rawtracepoint:sched_process_exec { print(args.nope); }" 2>err &&
	grep -q "raw tracepoint .sched_process_exec. has no argument .nope." err
'
test_expect_success '-f json: a record'"'"'s fields after ", ", a tuple'"'"'s after "," (upstream'"'"'s json-output record)' '
	timeout 20 $SONDE probe -q -f json -e "BEGIN { \$v = (x=1, y=2); @a = (a=0, c=\"str\", d=(5, 6), e=\$v); exit(); }" >out &&
	grep "^{\"type\": \"map\"" out >got &&
	printf "%s\n" "{\"type\": \"map\", \"data\": {\"@a\": {\"a\": 0, \"c\": \"str\", \"d\": [5,6], \"e\": {\"x\": 1, \"y\": 2}}}}" >expect &&
	test_cmp expect got
'
test_expect_success '-l lists raw tracepoints; -lv gives their arguments from BTF (upstream'"'"'s listing)' '
	$SONDE probe -l >all && grep -qx "rawtracepoint:sched_switch" all &&
	$SONDE probe -lv "rawtracepoint:sched_switch" >out &&
	head -1 out >first && echo rawtracepoint:sched_switch >expect && test_cmp expect first &&
	grep -qx "    struct task_struct \*next" out
'
test_expect_success '-l '"'"'struct a,struct b'"'"' names the kernel'"'"'s types; -lv prints a definition as 0.17 does' '
	$SONDE probe -l "struct fd,struct file, struct no_such_type_x" >out &&
	printf "struct fd\nstruct file\n" >expect && test_cmp expect out &&
	$SONDE probe -lv "struct fd" >out &&
	printf "struct fd {\n\tlong unsigned int word;\n};\n\n" >expect && test_cmp expect out
'
test_expect_success '--include HEADER: the header'"'"'s constants, as an #include line gives them' '
	$SONDE probe --include errno.h --include sys/socket.h -e "BEGIN { print((EPERM, AF_INET)); print(strerror(EPERM)); exit(); }" >out &&
	printf "Attaching 1 probe...\n(1, 2)\nOperation not permitted\n\n\n" >expect && test_cmp expect out &&
	! $SONDE probe --dry-run -e "BEGIN { print(EPERM); }" 2>err && grep -q "unknown identifier .EPERM." err
'
test_expect_success 'errorf()/warnf() in a macro: each call it was expanded from, with its line (upstream'"'"'s text)' '
	$SONDE probe -e "macro bad(x) { warnf(\"w %d%%\", x); } macro outer(y) { bad(y + 1) }
BEGIN { outer(2); errorf(\"top\"); exit(); }" >out 2>err &&
	cat >expect <<-\EOF &&
	stdin:1:16-34: WARNING: w 3%
	stdin:1:55-65: WARNING: expanded from
	macro bad(x) { warnf("w %d%%", x); } macro outer(y) { bad(y + 1) }
	                                                      ~~~~~~~~~~
	stdin:2:9-17: WARNING: expanded from
	BEGIN { outer(2); errorf("top"); exit(); }
	        ~~~~~~~~
	stdin:2:19-32: ERROR: top
	EOF
	test_cmp expect err
'
test_expect_success '--info: the system, the build, the kernel'"'"'s helpers, features and probe types' '
	$SONDE probe --info >out &&
	grep -x "System\|Build\|Kernel helpers\|Kernel features\|Probe types" out >sections &&
	printf "%s\n" System Build "Kernel helpers" "Kernel features" "Probe types" >expect && test_cmp expect sections &&
	grep -qx "  Arch: $(uname -m)" out && grep -qx "  libbpf: [0-9]*\.[0-9]*" out &&
	for k in loop btf kprobe_multi kprobe_session uprobe_multi iter fentry; do
		grep -qx "  $k: \(yes\|no\)" out || { echo "no line for $k"; exit 1; }
	done &&
	grep -qx "  btf: yes" out && grep -qx "  loop: yes" out
'
test_expect_success '-l NAME.bt with no such file: a warning that it is taken as a pattern' '
	$SONDE probe -l no_such_file.bt >out 2>err && ! test -s out &&
	echo "sonde: warning: no file '"'"'no_such_file.bt'"'"': listing the probes it matches as a pattern" >expect &&
	test_cmp expect err
'
test_expect_success 'tseries() of several keys: the map'"'"'s window for each, least recent key first; json leaves out empty intervals' '
	# "b" writes 100-200 ms, "a" 300-400 ms: both series end at 400 ms, "b" with two empty intervals
	P="config = { unstable_tseries = enable } BEGIN { @ts = (uint64)0; } i:ms:1 { \$i = 0; @ts = 100000000;"
	P="$P while (\$i < 2) { @t[\"b\"] = tseries(7, 100ms, 5); @ts += 100000000; \$i++; }"
	P="$P while (\$i < 4) { @t[\"a\"] = tseries(\$i, 100ms, 5); @ts += 100000000; \$i++; } clear(@ts); exit(); }" &&
	BPFTRACE_DUMMY_TS_MAP=@ts timeout 20 $SONDE probe -q -e "$P" >out &&
	awk "/^@/ { print } /^00:/ { print \$1, \$NF }" out >got &&
	printf "%s\n" "@t[b]:" "00:00:00.100 7" "00:00:00.200 7" "00:00:00.300 -" "00:00:00.400 -" \
		"@t[a]:" "00:00:00.300 2" "00:00:00.400 3" >expect && test_cmp expect got &&
	BPFTRACE_DUMMY_TS_MAP=@ts timeout 20 $SONDE probe -q -f json -e "$P" >out &&
	grep -o "\"[ab]\": \[[^]]*\]" out | sed "s/1970-01-01 00:00:00\.\([0-9]\)00000000/\1/g" >got &&
	printf "%s\n" "\"b\": [{\"interval_start\": \"1\", \"value\": 7}, {\"interval_start\": \"2\", \"value\": 7}]" \
		"\"a\": [{\"interval_start\": \"3\", \"value\": 2}, {\"interval_start\": \"4\", \"value\": 3}]" >expect &&
	test_cmp expect got
'
test_done
