#!/bin/bash
# sonde probe's kernel-type features, checked against what the kernel and /proc say
# on their own: enum names against bpftool's dump of BTF, %gr against the kernel's
# own formatting of the kmem:kmalloc event (tracefs, an instance of our own),
# pid(curr_ns|init) in a new pid namespace against the shell's $$ and NSpid,
# comm(pid) of a known process, iter:task/task_file/task_vma against /proc, iterator
# pins in a private bpffs, percpu_kaddr where the kernel can resolve per-CPU symbols.
# socket_cookie() needs fentry: tests/vm/t0730-vm-types.sh (with percpu_kaddr again).
. "$(dirname "$0")/../lib.sh"

require_root 'kernel types in sonde probe'
BTF=/sys/kernel/btf/vmlinux
if [ ! -r $BTF ] || ! command -v bpftool >/dev/null; then
	test_skip 'kernel types in sonde probe' 'needs the kernel BTF and bpftool'
	test_done
	exit
fi
bpftool btf dump file $BTF >"$TMP/btf.txt"
# the value of enumerator $1 in the kernel's BTF, read by bpftool
enum_val() { sed -n "s/^\t'$1' val=\(-\?[0-9]*\)\$/\1/p" "$TMP/btf.txt" | head -1; }

test_expect_success 'enum: a kernel enumerator by name and number (upstream'"'"'s example), with a script one' '
	v=$(enum_val SKB_DROP_REASON_SOCKET_FILTER) && test -n "$v" &&
	$SONDE probe -e "enum custom { CUSTOM_ENUM = 3 }; BEGIN { \$r = SKB_DROP_REASON_SOCKET_FILTER; printf(\"%d, %s, %s\\n\", \$r, \$r, CUSTOM_ENUM); exit(); }" >out &&
	grep -qx "$v, SKB_DROP_REASON_SOCKET_FILTER, CUSTOM_ENUM" out
'
test_expect_success 'enum: a tracepoint field of enum type (hrtimer_start'"'"'s mode) named as BTF names its value' '
	grep -q "field:enum hrtimer_mode mode" /sys/kernel/tracing/events/timer/hrtimer_start/format &&
	timeout 20 $SONDE probe -e "tracepoint:timer:hrtimer_start { printf(\"%d %s\\n\", args.mode, args.mode); if (++@n == 20) { exit(); } }" >out &&
	grep -E "^[0-9]+ [A-Z_]+$" out >lines && test "$(wc -l <lines)" -ge 20 &&
	while read -r num name; do
		case $name in HRTIMER_MODE_*) ;; *) echo "not an hrtimer_mode: $name"; exit 1 ;; esac
		test "$(enum_val "$name")" = "$num" || { echo "$name is $(enum_val "$name"), printed with $num"; exit 1; }
	done <lines
'

# the kernel's gfp_flags=TEXT for value $1: the kmem:kmalloc event filtered to it, in a tracefs instance of ours
kernel_gfp() {
	local inst=/sys/kernel/tracing/instances/sonde_t0730_$$
	mkdir "$inst" || return 1
	echo "gfp_flags == $1" >"$inst/events/kmem/kmalloc/filter" &&
	echo 1 >"$inst/events/kmem/kmalloc/enable" &&
	"$WORKLOADS/syscalls" 200 && ls -l / >/dev/null && sleep 0.2 &&
	echo 0 >"$inst/events/kmem/kmalloc/enable" &&
	sed -n "s/.* gfp_flags=\([^ ]*\) .*/\1/p" "$inst/trace" | head -1
	rmdir "$inst"
}
if [ -d /sys/kernel/tracing/events/kmem/kmalloc ] && [ -d /sys/kernel/tracing/instances ]; then
	test_expect_success '%gr: the GFP flags the kernel'"'"'s kmallocs use, as the kernel itself prints them' '
		$SONDE probe -e "tracepoint:kmem:kmalloc { @[args.gfp_flags] = count(); }" -c "sh -c \"$WORKLOADS/syscalls 200; ls -l / >/dev/null\"" >vals &&
		sed -n "s/^@\[\([0-9]*\)\]: [0-9]*$/\1/p" vals | tail -8 >top && test -s top &&
		n=0 &&
		while read -r v; do
			want=$(kernel_gfp "$v") &&
			if [ -z "$want" ]; then continue; fi &&	# not allocated again while we looked
			got=$($SONDE probe -e "BEGIN { printf(\"%gr|%-30gr|\\n\", $v, $v); exit(); }" | sed -n 2p) &&
			test "$got" = "$want|$(printf "%-30s" "$want")|" || { echo "$v: kernel $want, sonde $got"; exit 1; }
			n=$((n + 1))
		done <top &&
		test $n -ge 1
	'
	test_expect_success '%gr: bits no name covers print as 0x... after the names (%pGg); 0 prints nothing' '
		want=$(kernel_gfp 0xcc0) && test -n "$want" &&
		$SONDE probe -e "BEGIN { printf(\"[%gr] [%gr] [%gr]\\n\", 0xcc0 | 0x80000000, 0, 0x80000000); exit(); }" >out &&
		grep -qx "\[$want|0x80000000\] \[\] \[0x80000000\]" out
	'
else
	test_skip '%gr against the kernel'"'"'s formatting' 'no kmem:kmalloc tracepoint or tracefs instances'
fi

test_expect_success 'casts to kernel typedefs: as wide as BTF says (sizeof agrees)' '
	$SONDE probe -e "BEGIN { printf(\"%d %d %d %d\\n\", sizeof((uint64_t)1), (u8)257, (pid_t)4294967295, (__u16)65537); exit(); }" >out &&
	grep -qx "8 1 -1 1" out
'

if have_bpftrace; then
	test_expect_success 'casts to kernel typedefs print as bpftrace 0.17 prints the casts to the types they name' '
		P="BEGIN { \$x = -1; \$y = 70000; printf(\"%d %d %d %x %d %u %d %d\\n\", (T64)\$x, (T32)\$x, (TPID)\$x, (T8)\$x, (TS16)\$y, (TU16)\$y, (TS8)\$y, (T32)\$y); @a = (T32)\$y; @b = (TS16)\$x; exit(); }" &&
		echo "$P" | sed "s/T64/uint64_t/; s/T32/u32/g; s/TPID/pid_t/; s/T8/uint8_t/; s/TS16/__s16/g; s/TU16/__u16/; s/TS8/s8/" >sonde.bt &&
		echo "$P" | sed "s/T64/uint64/; s/T32/uint32/g; s/TPID/int32/; s/T8/uint8/; s/TS16/int16/g; s/TU16/uint16/; s/TS8/int8/" >bpftrace.bt &&
		$SONDE probe sonde.bt >sonde.out && bpftrace bpftrace.bt >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out
	'
fi

if unshare -fp --mount-proc true 2>/dev/null; then
	# the workload under a name of its own: a syscalls workload another test left running is not it
	cp "$WORKLOADS/syscalls" "$TMP/t0730ns"
	test_expect_success 'pid/tid(curr_ns) in a new pid namespace: as the namespace sees them; init: as the host does' '
		unshare -fp --mount-proc bash -c "
			$SONDE probe -e \"BEGIN { printf(\\\"%d %d %d %d %d\\\\n\\\", pid, pid(curr_ns), tid(curr_ns), pid(init) != pid(curr_ns) && pid(init) > 2, tid(init) == pid(init)); exit(); }\" >begin &
			echo \$! >sondepid; wait
			$SONDE probe -e \"tracepoint:syscalls:sys_enter_getppid /comm == \\\"t0730ns\\\"/ { printf(\\\"%d %d %d %d\\\\n\\\", pid, pid(curr_ns), cpid, pid(init)); exit(); }\" -c \"$TMP/t0730ns 50\" >tp
		" &&
		cat begin tp &&	# shown when the test fails
		p=$(cat sondepid) && test "$p" -lt 100 && grep -qx "$p $p $p 1 1" begin &&
		read -r a b c d < <(grep -E "^[0-9]+ [0-9]+ [0-9]+ [0-9]+$" tp) &&
		test "$a" = "$b" && test "$a" = "$c" && test "$a" -lt 100 && test "$d" != "$a" && test "$d" -gt 2	# as the host sees it: not 1 or 2 (init, kthreadd), not as the namespace does
	'
	test_expect_success 'sonde in a pid namespace tracing a process outside it: pid 0 there (curr_ns), its host pid (init)' '
		"$TMP/t0730ns" 5000000 &
		w=$! &&
		timeout 60 unshare -fp --mount-proc $SONDE probe -e "tracepoint:syscalls:sys_enter_getppid /comm == \"t0730ns\"/ { printf(\"%d %d %d\\n\", pid, pid(curr_ns), pid(init)); exit(); }" >out;
		kill $w; wait $w || true;
		grep -qx "0 0 $w" out
	'
else
	test_skip 'pid namespaces' 'unshare -fp cannot make one here'
fi

# a process known to be there till the end (killed there): under ASan on a busy machine
# the tests below took 76 s
sleep 3600 &
SLEEP=$!
test_expect_success 'comm(pid): another process'"'"'s name (bpf_task_from_pid); a pid nobody has: empty' '
	$SONDE probe -e "tracepoint:sched:sched_switch { printf(\"%s|%s|%s\\n\", comm($SLEEP), comm(2147483647), comm($$)); exit(); }" >out &&
	grep -qx "sleep||$(cat /proc/$$/comm)" out &&
	$SONDE probe -e "interval:ms:10 { printf(\"%s\\n\", comm($SLEEP)); exit(); }" >out &&
	grep -qx "sleep" out
'
test_expect_success 'comm(pid) where the kernel refuses the kfunc (BEGIN, syscalls: raw tracepoints): why, and where it can' '
	! $SONDE probe --dry-run -e "BEGIN { printf(\"%s\\n\", comm(1)); }" 2>err &&
	grep -q "bpf_task_from_pid, which this kernel does not let raw tracepoint (BEGIN, END, rawtracepoint, and the syscalls tracepoints sonde runs as raw ones) programs call (tracepoint, profile, interval, software, fentry, fexit and iter probes can)" err &&
	! $SONDE probe --dry-run -e "tracepoint:syscalls:sys_enter_getppid { printf(\"%s\\n\", comm(1)); }" 2>err &&
	grep -q "does not let raw tracepoint (BEGIN" err &&
	$SONDE probe --dry-run -e "tracepoint:sched:sched_switch, interval:s:1 { printf(\"%s\\n\", comm(1)); }"
'

# the tasks (tid comm) /proc lists, but this machine's pid 1 and its threads: that
# process (the sandbox's agent) is invisible to the kernel's own pid lookups here
# (bpf_task_from_pid(1) finds nothing, the task iterator skips it), which is not sonde's
proc_tasks() {
	for t in /proc/[0-9]*/task/[0-9]*; do
		p=${t#/proc/}; p=${p%%/*}
		[ "$p" = 1 ] && continue
		c=$(cat "$t/comm" 2>/dev/null) && echo "${t##*/} ${c:0:15}"	# the kernel keeps 15 bytes of a comm
	done | kworkers | sort
}
# /proc names a workqueue worker kworker/0:1-events (its work's queue added), the task kworker/0:1
kworkers() { sed "s|^\([0-9]* kworker/\).*|\1|"; }
test_expect_success 'iter:task: every task /proc lists before and after, with its comm' '
	proc_tasks >before &&
	$SONDE probe -e "iter:task { printf(\"%d %s\\n\", ctx.task.pid, ctx.task.comm); }" >out &&
	proc_tasks >after &&
	grep -E "^[0-9]+ " out | kworkers | sort >got &&
	comm -12 before after >both && test "$(wc -l <both)" -gt 20 &&
	comm -23 both got >missing && test_cmp /dev/null missing
'
test_expect_success 'iter:task_file (it: short name): the fds of a process, the inode and path (bpf_d_path) of each' '
	exec 7</etc/hostname &&
	want="7 $(stat -L -c %i /etc/hostname) $(readlink /proc/$BASHPID/fd/7)" &&
	$SONDE probe -e "it:task_file /ctx.task.pid == $BASHPID/ { printf(\"%d %lu %s\\n\", ctx.fd, ctx.file.f_inode.i_ino, path(ctx.file.f_path)); }" >out &&
	exec 7<&- &&
	grep -qx "$want" out &&
	test "$(grep -cE "^[0-9]+ [0-9]+ " out)" -ge 4
'
test_expect_success 'iter:task_vma: a process'"'"'s mappings, as /proc/PID/maps lists them' '
	$SONDE probe -e "iter:task_vma /ctx.task.pid == $SLEEP/ { printf(\"%lx-%lx\\n\", ctx.vma.vm_start, ctx.vma.vm_end); }" >out &&
	grep -E "^[0-9a-f]+-[0-9a-f]+$" out >got &&
	cut -d" " -f1 /proc/$SLEEP/maps | grep -v "^ffffffffff600000" >want &&
	test_cmp want got
'
test_expect_success 'iter: comm(pid) and print() in an iterator, maps printed at the end' '
	$SONDE probe -e "iter:task /ctx.task.pid == $SLEEP/ { printf(\"%s\\n\", comm(ctx.task.tgid)); @n = count(); }" >out &&
	grep -qx "sleep" out && grep -qx "@n: 1" out
'
test_expect_success 'iter with -f json: one printf event a line of the iterator'"'"'s output' '
	$SONDE probe -f json -e "iter:task /ctx.task.pid == $SLEEP || ctx.task.pid == 2/ { printf(\"%d %s\\n\", ctx.task.pid, ctx.task.comm); }" >out &&
	grep -qx "{\"type\": \"printf\", \"data\": \"2 kthreadd\\\\n\"}" out &&
	grep -qx "{\"type\": \"printf\", \"data\": \"$SLEEP sleep\\\\n\"}" out
'
test_expect_success '-lv iter:*: the members of each iterator'"'"'s context, from BTF' '
	$SONDE probe -lv "iter:*" >out &&
	cat >want <<-\EOF &&
	iter:task
	    struct task_struct *task
	iter:task_file
	    struct task_struct *task
	    u32 fd
	    struct file *file
	iter:task_vma
	    struct task_struct *task
	    struct vm_area_struct *vma
	EOF
	test_cmp want out
'
if unshare -m true 2>/dev/null; then
	test_expect_success 'iter:task:PIN pins under /sys/fs/bpf; the pin runs after sonde is gone' '
		unshare -m bash -c "
			mount -t bpf bpf /sys/fs/bpf || exit 1
			$SONDE probe -e \"iter:task:sonde_t0730 /ctx.task.pid == $SLEEP/ { printf(\\\"%s %d\\\\n\\\", ctx.task.comm, ctx.task.pid); }\" >pin.out || exit 1
			cat /sys/fs/bpf/sonde_t0730 >cat1.out
			cat /sys/fs/bpf/sonde_t0730 >cat2.out
			! $SONDE probe -e \"iter:task:/sys/fs/bpf/sonde_t0730 { printf(\\\"x\\\\n\\\"); }\" >again.out 2>again.err
			cat /sys/fs/bpf/sonde_t0730 >cat3.out
			! $SONDE probe -e \"iter:task:/sys/fs/bpf/no_dir/x { printf(\\\"x\\\\n\\\"); }\" 2>nodir.err
			ls /sys/fs/bpf >ls.out
		" &&
		grep -qx "Program pinned to /sys/fs/bpf/sonde_t0730" pin.out &&
		echo "sleep $SLEEP" >want && test_cmp want cat1.out && test_cmp want cat2.out && test_cmp want cat3.out &&
		grep -q "the file exists (sonde removes nothing it did not create)" again.err &&
		grep -q "/sys/fs/bpf/no_dir/x: No such file or directory" nodir.err &&
		grep -qx sonde_t0730 ls.out && ! grep -q no_dir ls.out
	'
fi
test_expect_success 'iter pin outside a BPF file system: refused, says why, leaves nothing' '
	d=$(mktemp -d) &&
	! $SONDE probe -e "iter:task:$d/pin { printf(\"x\\n\"); }" 2>err &&
	grep -q "is not a BPF file system" err && test -z "$(ls -A "$d")" && rmdir "$d"
'
kill $SLEEP 2>/dev/null

if grep -qw process_counts /proc/kallsyms; then
	test_expect_success 'percpu_kaddr: a per-CPU counter, this CPU and CPU 0' '
		$SONDE probe -e "BEGIN { printf(\"%d %d\\n\", *percpu_kaddr(\"process_counts\") > 0, *percpu_kaddr(\"process_counts\", 0) > 0); exit(); }" >out &&
		grep -qx "1 1" out
	'
else
	test_expect_success 'percpu_kaddr: the kernel cannot resolve per-CPU symbols (no CONFIG_KALLSYMS_ALL): why' '
		! $SONDE probe -e "BEGIN { \$p = percpu_kaddr(\"process_counts\"); exit(); }" 2>err &&
		grep -q "/proc/kallsyms has no .process_counts. (data symbols need CONFIG_KALLSYMS_ALL" err
	'
fi
test_done
