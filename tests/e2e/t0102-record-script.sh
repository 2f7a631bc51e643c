#!/bin/bash
# sonde script and the perf.data reader: perf script's text for sonde's and perf's
# recordings (fp and dwarf call graphs, several events, tracepoints), -F fields,
# and truncated or corrupted files (one error line with the offset, no crash).
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1; then
	test_skip 'sonde script against perf script' 'perf is not installed'
	test_done
	exit
fi


test_expect_success 'setup: one fp recording by sonde, fp and dwarf ones by perf' '
	$SONDE record -q -g -F 499 -o s.data -- $EXAMPLES/demo 0.5 >/dev/null &&
	perf record -q -g -F 499 -o p.data -- $EXAMPLES/demo 0.5 >/dev/null 2>&1 &&
	perf record -q --call-graph dwarf,2048 -F 199 -o pd.data -- $EXAMPLES/demo 0.5 >/dev/null 2>&1 &&
	ls -l s.data p.data pd.data
'

test_expect_success 'sonde script prints what perf script prints for a sonde recording' '
	$SONDE script -i s.data | script_comparable >ours &&
	perf script -i s.data 2>/dev/null | script_comparable >theirs &&
	[ -s ours ] && test_cmp theirs ours
'

test_expect_success 'and for perf'\''s own frame-pointer recording' '
	$SONDE script -i p.data | script_comparable >ours &&
	perf script -i p.data 2>/dev/null | script_comparable >theirs &&
	[ -s ours ] && test_cmp theirs ours
'

test_expect_success 'the reader counts as many samples as perf report --stats (fp and dwarf)' '
	for f in s.data p.data pd.data; do
		n=$($SONDE script -i $f -G -F comm | wc -l) &&
		p=$(perf report -i $f --stats 2>/dev/null | awk "/SAMPLE events:/ {print \$3; exit}") &&
		echo "$f: sonde $n perf $p" && [ "$n" -gt 0 ] && [ "$n" = "$p" ] || exit 1
	done
'

test_expect_success 'perf files whose events lay records out differently (cpu-clock + a tracepoint)' '
	perf record -q -e cpu-clock -e sched:sched_switch -F 499 -o mix.data -- $EXAMPLES/demo 0.3 >/dev/null 2>&1 &&
	$SONDE script -i mix.data -F comm,tid,time,event >ours &&
	perf script -i mix.data -F comm,tid,time,event >theirs 2>/dev/null &&
	grep -q sched:sched_switch ours && grep -q cpu-clock ours && test_cmp theirs ours
'

test_expect_success 'perf'\''s dwarf recording: unwound by sonde to work and main' '
	$SONDE script -i pd.data >dw &&
	grep -A3 " hot_loop+0x" dw | grep -q " work+0x" &&
	grep -A4 " hot_loop+0x" dw | grep -q " main+0x"
'

# perf 6.1 expands the inlined frames of DWARF-unwound user frames only, names a
# function after DWARF where it is an alias (__libc_start_main_impl (inlined)),
# and gives callers at their return address - 1
test_expect_success 'perf'\''s dwarf recordings: perf script'\''s text, inlined frames, callers in the call; --no-inline' '
	perf record -q --no-bpf-event --call-graph dwarf -F 199 -o sd.data -- $WORKLOADS/symchain 0.5 >/dev/null 2>&1 &&
	for f in pd.data sd.data; do
		$SONDE script -i $f | script_comparable >ours && perf script -i $f 2>/dev/null | script_comparable >theirs &&
		test_cmp theirs ours &&
		$SONDE script --no-inline -i $f | script_comparable >ours && perf script --no-inline -i $f 2>/dev/null | script_comparable >theirs &&
		test_cmp theirs ours || exit 1
	done &&
	$SONDE script -i sd.data | grep -A1 " spin_inline+0x[0-9a-f]* (inlined)$" | grep -q " chain_c+0x" &&
	! $SONDE script --no-inline -i sd.data | grep -q inlined
'

# sonde script -F +srcline against perf script for file $1. perf runs addr2line on a
# BPF program's frame (the program's name is its DSO, not a file); addr2line fails,
# and perf dies of its closed pipe (SIGPIPE) there or at a later frame: then what
# perf printed before it died is compared
srcline_cmp() {
	$SONDE script -i $1 -F +srcline >ours.raw &&
	{ perf script -i $1 -F +srcline >theirs.raw 2>/dev/null; rc=$?; } &&
	{ [ $rc -eq 0 ] || { [ $rc -eq 141 ] && grep -q " (bpf_prog_[0-9a-f]*_" theirs.raw; } ||
		{ echo "perf script -F +srcline exited $rc"; return 1; }; } &&
	n=$(wc -l <theirs.raw) &&
	head -n $n ours.raw | script_comparable >ours && head -n $n theirs.raw | script_comparable >theirs &&
	test_cmp theirs ours
}

# perf prints a line's file by its base name; where addr2line says "??:?" (a
# .symtab, no line) "??:0" from a DWARF-unwound frame's inline list, else no
# line; "DSO[addr]" where it asks for none (the kernel)
test_expect_success '-F +srcline: perf script'\''s lines, fp and dwarf call graphs' '
	cc -O2 -g0 -fno-omit-frame-pointer -o demo_nog $ROOT/examples/demo.c &&
	perf record -q --no-bpf-event -g -F 199 -o nog.data -- ./demo_nog 0.5 >/dev/null 2>&1 &&
	for f in p.data sd.data nog.data; do
		srcline_cmp $f || exit 1
	done &&
	$SONDE script -i p.data -F +srcline | grep -q "^  demo.c:[0-9]*$" &&
	$SONDE script -i sd.data -F +srcline | grep -q "^  symchain.c:[0-9]* (inlined)$" &&
	! $SONDE script -i nog.data -F +srcline | grep -q "^  ??:0"
'

# a program on the syscall tracepoints runs in every syscall's kernel stack: its own DSO,
# and "NAME[offset]" for its line where perf has none to give
test_expect_success 'BPF programs in kernel stacks: named as perf script names them' '
	$SONDE probe -q -e "BEGIN { printf(\"on\\n\"); } tracepoint:raw_syscalls:sys_enter { @n = count(); }" >bp.out 2>&1 &
	p=$! &&
	while ! grep -q "^on$" bp.out; do kill -0 $p || exit 1; sleep 0.05; done &&
	$SONDE record -q -g -F 999 -o bpf.data -- dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null &&
	kill -INT $p && wait $p &&
	$SONDE script -i bpf.data >ours.all && perf script -i bpf.data >theirs.all 2>/dev/null &&
	grep " (bpf_prog_[0-9a-f]*_[a-z_]*)$" ours.all >ours &&
	grep " (bpf_prog_[0-9a-f]*_[a-z_]*)$" theirs.all >theirs &&
	[ -s ours ] && test_cmp theirs ours &&
	grep -A1 -m1 " (bpf_prog_[0-9a-f]*_[a-z_]*)$" ours.all >b && cat b &&
	$SONDE script -i bpf.data -F +srcline | grep -A1 -m1 -F "$(head -1 b)" | tail -1 >l &&
	grep -qE "^  bpf_prog_[0-9a-f]+_[a-z_]+\[[0-9a-f]+\]$" l &&
	srcline_cmp bpf.data
'

# binutils (2.40) starts a DWARF 5 line sequence with file 0, the unit's own,
# where the standard starts with file 1: a header's function at the start of
# .text has its lines under the .c file's name in perf, and so in sonde's
# perf-compatible output (addr2sym keeps libdw's answer, h.h)
test_expect_success '-F +srcline and report --sort srcline name files as binutils does (DWARF 5)' '
	printf "%s\n" "volatile unsigned long sink;" \
		"static void __attribute__((noinline)) spin_hdr(unsigned long n)" "{" \
		"	for (unsigned long i = 0; i < n; i++)" "		sink += i;" "}" >h.h &&
	# no call through the PLT in the loop (time() was): perf 6.1 names a stub _init+0x30, sonde time@plt
	printf "%s\n" "#include \"h.h\"" "int main(void)" "{" \
		"	for (int i = 0; i < 10000; i++)" "		spin_hdr(100000);" \
		"	return 0;" "}" >m.c &&
	cc -g -O2 -fno-omit-frame-pointer -o hdr m.c &&
	$SONDE addr2sym -s -e hdr $(nm hdr | awk "/ spin_hdr/ {print \$1; exit}") | grep -q "/h.h:[0-9]*$" &&
	perf record -q --no-bpf-event -g -F 199 -o hdr.data -- ./hdr >/dev/null 2>&1 &&
	$SONDE script -i hdr.data -F +srcline | script_comparable >ours &&
	perf script -i hdr.data -F +srcline 2>/dev/null | script_comparable >theirs &&
	test_cmp theirs ours && grep -A1 " spin_hdr" ours | grep -q "^  m.c:[0-9]*$" &&
	$SONDE report -i hdr.data --no-children -s sym,srcline -g none | grep -v "^# (Tip" >ours &&
	perf report -i hdr.data --stdio --no-children -s sym,srcline -g none 2>/dev/null | grep -v "^# (Tip" >theirs &&
	test_cmp theirs ours
'

test_expect_success '-F picks fields, +f/-f change the defaults, as perf script does' '
	$SONDE script -i s.data -F comm,tid,time,ip,sym | script_comparable >ours &&
	perf script -i s.data -F comm,tid,time,ip,sym 2>/dev/null | script_comparable >theirs && test_cmp theirs ours &&
	$SONDE script -i s.data -G -F pid,tid,event,ip,sym,dso >ours &&
	perf script -i s.data -G -F pid,tid,event,ip,sym,dso >theirs 2>/dev/null && test_cmp theirs ours &&
	rc=0; $SONDE script -i s.data -F comm,bogus 2>err || rc=$? &&
	[ $rc -eq 129 ] && grep -q "unknown field .bogus." err
'

test_expect_success 'several events and tracepoints: names aligned, fields decoded' '
	$SONDE record -q -e cpu-clock -e syscalls:sys_enter_openat -F 499 -o two.data -- $EXAMPLES/demo 0.3 >/dev/null &&
	$SONDE script -i two.data -F comm,tid,time,event >ours &&
	perf script -i two.data -F comm,tid,time,event >theirs 2>/dev/null && test_cmp theirs ours &&
	$SONDE script -i two.data | grep "syscalls:sys_enter_openat: " >tp &&
	perf script -i two.data 2>/dev/null | grep "syscalls:sys_enter_openat: " >tp.perf &&
	test_cmp tp.perf tp && grep -q "dfd: 0xffffff9c, filename: 0x[0-9a-f]*, flags: 0x" tp
'

test_expect_success 'tracepoint fields whose print fmt is name=value come out as perf prints them' '
	$SONDE record -q -e sched:sched_process_exec -o exec.data -- sh -c "true; /bin/true" &&
	$SONDE script -i exec.data >ours && perf script -i exec.data >theirs 2>/dev/null &&
	grep -q "sched:sched_process_exec: filename=/bin/true pid=[0-9]* old_pid=[0-9]*$" ours &&
	test_cmp theirs ours
'

test_expect_success '--show-task-events and --show-mmap-events print the side-band records' '
	$SONDE script -i s.data --show-task-events --show-mmap-events | grep PERF_RECORD >ours &&
	grep -q "PERF_RECORD_COMM exec: demo:" ours &&
	grep -q "PERF_RECORD_MMAP2 .*r-xp .*examples/demo$" ours &&
	grep -q "PERF_RECORD_EXIT" ours
'

test_expect_success 'system-wide: the idle task is swapper, CPUs shown, as perf script' '
	$SONDE record -q -a -o all.data --duration 0.3 &&
	$SONDE script -i all.data -F comm,tid,cpu,time,event | script_comparable >ours &&
	perf script -i all.data -F comm,tid,cpu,time,event 2>/dev/null | script_comparable >theirs &&
	test_cmp theirs ours
'

# a page fault while exec loads the new image (elf_load) is after the COMM exec
# record and before the new image's mmaps: its user frame is the old image's
# execve, which perf names from the maps it keeps until new ones overlap them.
# A fixed period (-c 1) is not in the records; perf prints the attr's.
test_expect_success 'exec: a sample between the COMM and the new maps has the old image'"'"'s frame; -c N periods' '
	perf record -q -e page-faults -c 1 -g -o $TMP/exec.data -- /bin/sh -c ":; exec /usr/bin/env true" 2>/dev/null &&
	perf evlist -v -i $TMP/exec.data 2>/dev/null | grep -v "sample_type: [A-Z|]*PERIOD" &&
	$SONDE script -i $TMP/exec.data | grep -v "@plt+" >out &&
	perf script -i $TMP/exec.data 2>/dev/null | grep -v "@plt+" >perf.out &&
	test_cmp perf.out out &&
	grep -A9 "^env .* 1 page-faults:" out | grep -m1 -B9 "/libc.so.6)$" >first &&
	grep -q elf_load first && grep -q " __GI___execve+0x[0-9a-f]* (.*libc.so.6)$" first &&
	$SONDE record -q -e page-faults -c 1 -g -o $TMP/exec2.data -- /bin/sh -c ":; exec /usr/bin/env true" &&
	$SONDE report -i $TMP/exec2.data --comms env --no-children -s dso,sym -g caller >out &&
	grep -q "__GI___execve" out && ! grep -q "\[unknown\]" out
'

test_expect_success 'a truncated file is one error line with the offset' '
	size=$(stat -c %s s.data) &&
	for cut in 50 200 $((size / 2)) $((size - 10)); do
		head -c $cut s.data >t.data &&
		rc=0; $SONDE script -i t.data >out 2>err || rc=$? &&
		cat err && [ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] &&
		grep -qE "truncated|offset|not a perf.data" err || exit 1
	done
'

test_expect_success 'corrupted files never crash: an error line or a warning naming the offset' '
	for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
		python3 -c "
import random, sys
b = bytearray(open(\"s.data\", \"rb\").read())
r = random.Random($seed)
for _ in range(1 + $seed % 5):
    b[r.randrange(len(b))] ^= r.randrange(1, 256)
open(\"c.data\", \"wb\").write(b)" &&
		rc=0; timeout 20 $SONDE script -i c.data >out 2>err || rc=$? &&
		[ $rc -eq 0 ] || [ $rc -eq 1 ] || { echo "seed $seed: exit $rc"; cat err; exit 1; }
		if [ -s err ]; then grep -qE "offset|truncated|not a perf.data|corrupted|bad" err || { cat err; exit 1; }; fi
	done
'

# demo's CPU time is its samples: on a loaded machine 0.3 s gives 16 in hot_loop, not 90
test_expect_success 'compressed perf files (perf record -z): read as perf reads them, from a file and a pipe' '
	perf record -q -z -g -F 499 -o z.data -- $EXAMPLES/demo 0.3 >/dev/null 2>&1 &&
	perf report -i z.data --header-only 2>/dev/null | grep -q "^# compressed : Zstd" &&
	$SONDE script -i z.data | script_comparable >ours && perf script -i z.data 2>/dev/null | script_comparable >theirs &&
	[ $(grep -c hot_loop ours) -gt 5 ] && test_cmp theirs ours &&
	perf record -q -z -e sched:sched_switch -o - -- $EXAMPLES/demo 0.2 2>/dev/null >zp.data &&
	$SONDE script -i - <zp.data >ours && perf script -i zp.data 2>/dev/null >theirs &&
	grep -q "sched:sched_switch: prev_comm=demo" ours && test_cmp theirs ours
'

test_expect_success 'a corrupted compressed record is one error line naming its offset' '
	perf record -q -z -o zc.data -- $EXAMPLES/demo 0.2 >/dev/null 2>&1 &&
	python3 - <<-\EOT &&
	import struct
	d = bytearray(open("zc.data", "rb").read())
	off, end = struct.unpack_from("<QQ", d, 40)
	end += off
	while off < end:
	    t, m, sz = struct.unpack_from("<IHH", d, off)
	    if t == 81:
	        d[off + 8:off + 12] = b"\x00\x00\x00\x00"  # the zstd frame magic
	        break
	    off += sz
	open("zc.data", "wb").write(d)
	print("%#x" % off)
	EOT
	rc=0; $SONDE script -i zc.data >out 2>err || rc=$? && [ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] &&
	grep -q "corrupted compressed record at offset 0x[0-9a-f]* (perf record -z)" err
'

test_expect_success 'pipe mode (perf record -o -): from a file and from stdin, as perf script reads it' '
	perf record -q -g -F 499 -o - -- $EXAMPLES/demo 0.3 2>/dev/null >pipe.data &&
	$SONDE script -i pipe.data | script_comparable >ours && perf script -i pipe.data 2>/dev/null | script_comparable >theirs &&
	[ -s ours ] && test_cmp theirs ours &&
	$SONDE script -i - <pipe.data | script_comparable >ours2 && test_cmp theirs ours2 &&
	perf record -q -e cpu-clock -e sched:sched_switch -o - -- $EXAMPLES/demo 0.2 2>/dev/null |
		$SONDE script -i - -F comm,tid,event >mixed &&
	grep -q " sched:sched_switch: *$" mixed && grep -qE " cpu-clock(:ppp)?: *$" mixed
'

test_expect_success 'not a perf.data file, or a missing one' '
	echo "hello" >x.data &&
	rc=0; $SONDE script -i x.data 2>err || rc=$? && [ $rc -eq 1 ] && grep -q "not a perf.data file" err &&
	rc=0; $SONDE script -i nope.data 2>err || rc=$? && [ $rc -eq 1 ] && grep -q "nope.data" err
'

test_expect_success 'a hostile print format dividing by a field (libtraceevent would die of SIGFPE) prints the fields' '
	$SONDE script -i "$ROOT/tests/fuzz/corpus/perfdata/divide-by-field" >out 2>err &&
	grep -q "syscalls:sys_enter_openat:  __syscall_nr=257 dfd=0xffffff9c filename=0x" out
'
test_done
