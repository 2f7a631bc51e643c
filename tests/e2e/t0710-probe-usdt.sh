#!/bin/bash
# sonde probe's usdt: probes on tests/workloads/usdt.c (known arguments of
# every size and sign, in registers, in memory, constants, a %rip-relative
# global, a semaphore-guarded probe, a probe with two locations) and on a
# shared library built here: the arguments printed, compared with bpftrace
# 0.17 where it can read them, -l, wildcards, -p, -c and the errors.
. "$(dirname "$0")/../lib.sh"

W=$WORKLOADS/usdt
require_root 'usdt probes'

P_ARGS="usdt:$W:sonde_test:start { printf(\"%s\\n\", probe); }
usdt:$W:sonde_test:one { printf(\"one %d\\n\", arg0); @one = sum(arg0); }
usdt:$W:sonde_test:three { printf(\"three %d %d %lld %x\\n\", arg0, arg1, arg2, arg0); @l = arg1; @m = min(arg0); @x = max(arg1); }
usdt:$W:sonde_test:mem { printf(\"mem %d %d %d\\n\", arg0, arg1, arg2 != 0); @h = hist(arg0); }
usdt:$W:sonde_test:guarded { printf(\"guarded %d\\n\", arg0); }
usdt:$W:twice { printf(\"twice %d %s\\n\", arg0, probe); @t[probe] = count(); }
usdt:$W:sonde_test:indexed { printf(\"indexed %d %d %d\\n\", arg0, arg1, arg2); }"

# the workload's own lines (its pid, the semaphore) come through its own stdout: not compared in order
test_expect_success '-c: every argument as the workload passed it' '
	$SONDE probe -c "$W 3" -e "$P_ARGS" >out &&
	grep -v "^pid \|^semaphore" out >sonde.out &&
	cat >expect <<-EOF &&
	one 1
	three -1 60001 -1000000000000 ffffffff
	mem 7 5 1
	guarded 100
	twice 1 usdt:$W:sonde_test:twice
	twice 1001 usdt:$W:sonde_test:twice
	EOF
	grep -A6 "^usdt:$W:sonde_test:start$" sonde.out | sed 1d | head -6 >got &&
	test_cmp expect got &&
	grep -q "^three -3 60003 -3000000000000 fffffffd$" sonde.out &&
	grep -q "^twice 1003 " sonde.out &&
	grep "^indexed" sonde.out >got && printf "indexed %s\n" "10 -2 -200" "20 -3 -300" "30 -4 -400" >expect &&
	test_cmp expect got &&
	grep -q "^@one: 6$" sonde.out && grep -q "^@m: -3$" sonde.out && grep -q "^@l: 60003$" sonde.out &&
	grep -q "^@t\[usdt:$W:sonde_test:twice\]: 6$" sonde.out
'

if have_bpftrace; then
	test_expect_success 'the same output as bpftrace 0.17 (printf, maps, two locations, semaphore)' '
		$SONDE probe -c "$W 3" -e "$P_ARGS" >sonde.all &&
		bpftrace -c "$W 3" -e "$P_ARGS" 2>bpftrace.err >bpftrace.all &&
		grep -v "^pid \|^semaphore" sonde.all >sonde.out && grep -v "^pid \|^semaphore" bpftrace.all >bpftrace.out &&
		test_cmp bpftrace.out sonde.out &&
		grep "^semaphore" sonde.all >s.sem && grep "^semaphore" bpftrace.all >b.sem && test_cmp b.sem s.sem &&
		grep -q "^semaphore seen nonzero 3 of 3 times$" s.sem
	'
	test_expect_success '-l and wildcards list what bpftrace lists' '
		$SONDE probe -l "usdt:$W:*" >sonde.out &&
		bpftrace -l "usdt:$W:*" >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out && [ $(wc -l <sonde.out) -eq 8 ] &&
		$SONDE probe -l "U:$W:sonde_test:t*" >sonde.out &&
		printf "usdt:$W:sonde_test:%s\n" three twice >expect &&
		test_cmp expect sonde.out
	'
	if command -v gcc >/dev/null && readelf -S "$(command -v gcc)" 2>/dev/null | grep -q stapsdt; then
		test_expect_success '-l: a binary named by its name in PATH (gcc), as bpftrace' '
			$SONDE probe -l "usdt:gcc:*" >sonde.out && bpftrace -l "usdt:gcc:*" >bpftrace.out 2>/dev/null &&
			test_cmp bpftrace.out sonde.out && grep -q "^usdt:/.*/gcc[-0-9]*:" sonde.out
		'
	fi
	test_expect_success 'a wildcard probe attaches every location, as bpftrace' '
		P="U:$W:sonde_*:t* { @[probe] = count(); @s[probe] = sum(arg0 & 0xffff); }" &&
		$SONDE probe -c "$W 4" -e "$P" | grep -v "^pid \|^semaphore" >sonde.out &&
		bpftrace -c "$W 4" -e "$P" 2>/dev/null | grep -v "^pid \|^semaphore" >bpftrace.out &&
		test_cmp bpftrace.out sonde.out && grep -q "^Attaching 3 probes" sonde.out
	'
else
	test_skip 'the same output as bpftrace 0.17' 'no bpftrace here'
fi

test_expect_success 'a global read %rip-relative (bpftrace 0.17 cannot): 1, 3, 6' '
	$SONDE probe -c "$W 3" -e "usdt:$W:sonde_test:global { printf(\"g %d\\n\", arg0); }" >out &&
	grep "^g " out >got && printf "g 1\ng 3\ng 6\n" >expect && test_cmp expect got
'

test_expect_success 'the semaphore is counted only while its probe is traced' '
	$W 2 >plain.out && grep -q "semaphore seen nonzero 0 of 2 times" plain.out &&
	$SONDE probe -c "$W 2" -e "usdt:$W:sonde_test:one { @ = count(); }" >out &&
	grep -q "semaphore seen nonzero 0 of 2 times" out && grep -q "^@: 2$" out &&
	$SONDE probe -c "$W 2" -e "usdt:$W:sonde_test:guarded { @ = sum(arg0); }" >out &&
	grep -q "semaphore seen nonzero 2 of 2 times" out && grep -q "^@: 300$" out
'

test_expect_success '-p PID: fires in that process only, its semaphore only' '
	$W 3 1000 >w1.out &
	w1=$!
	$W 3 1000 >w2.out &
	w2=$!
	sleep 0.2 &&
	$SONDE probe -p $w1 -e "usdt:$W:guarded { @[pid] = count(); @s = sum(arg0); } interval:ms:1800 { exit(); }" >out;
	wait $w1 $w2; cat out w1.out w2.out;
	grep -q "^@\[$w1\]: 3$" out && ! grep -q "^@\[$w2\]" out && grep -q "^@s: 600$" out &&
	grep -q "semaphore seen nonzero 3 of 3 times" w1.out && grep -q "semaphore seen nonzero 0 of 3 times" w2.out
'

# a shared library with a probe, and a program using it
if command -v cc >/dev/null && [ -e /usr/include/x86_64-linux-gnu/sys/sdt.h -o -e /usr/include/sys/sdt.h ]; then
	cat >"$TMP/lib.c" <<-'EOF'
	#include <sys/sdt.h>
	int lib_fire(int x, long y)
	{
		STAP_PROBE2(sonde_lib, fire, x, y);
		return x + 1;
	}
	EOF
	cat >"$TMP/main.c" <<-'EOF'
	#include <stdlib.h>
	#include <unistd.h>
	int lib_fire(int x, long y);
	int main(int argc, char **argv)
	{
		int n = atoi(argv[1]);
		usleep(atoi(argv[2]) * 1000);
		for (int i = 1; i <= n; i++)
			lib_fire(i, -10L * i);
		return 0;
	}
	EOF
	(cd "$TMP" && cc -O1 -shared -fPIC -o libsondeusdt.so lib.c && cc -O1 -o uselib main.c -L. -lsondeusdt -Wl,-rpath,"$TMP")
	test_expect_success 'a probe in a shared library, by path, with -c; -l' '
		$SONDE probe -c "$TMP/uselib 3 0" -e "usdt:$TMP/libsondeusdt.so:sonde_lib:fire { printf(\"fire %d %d\\n\", arg0, arg1); }" >out &&
		printf "fire %s\n" "1 -10" "2 -20" "3 -30" >expect &&
		grep "^fire" out >got && test_cmp expect got &&
		$SONDE probe -l "usdt:$TMP/libsondeusdt.so" >got && echo "usdt:$TMP/libsondeusdt.so:sonde_lib:fire" >expect &&
		test_cmp expect got
	'
	test_expect_success '-p PID: a library named as the process maps it, every file it maps, -l' '
		# stopped until the probes are attached (starting takes seconds under ASan on a
		# loaded machine); its library is mapped by then
		$TMP/uselib 2 500 &
		u=$!
		sleep 0.2 && kill -STOP $u &&
		$SONDE probe -p $u -l "usdt:*" >list &&
		{ $SONDE probe -p $u -e "usdt:sondeusdt:fire { @a[pid] = sum(arg1); } usdt::sonde_lib:* { @b = count(); } interval:ms:3000 { exit(); }" >out & p=$!; } &&
		SECONDS=0 && until grep -q "^Attaching" out || [ $SECONDS -gt 60 ]; do sleep 0.1; done
		kill -CONT $u; wait $p || true; wait $u; cat list out;
		grep -q "^@a\[$u\]: 18446744073709551586$" out && grep -q "^@b: 2$" out &&
		echo "usdt:$TMP/libsondeusdt.so:sonde_lib:fire" >expect && test_cmp expect list
	'
else
	test_skip 'a probe in a shared library' 'no cc or no <sys/sdt.h> (systemtap-sdt-dev)'
fi

# the section headers of a 64-bit ELF file, for the tests that edit its notes
cat >"$TMP/elf.py" <<-\EOF
	import struct
	def header(d):
	    shoff, = struct.unpack_from("<Q", d, 0x28)
	    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
	    return shoff, shentsize, shnum, shstrndx
	def sections(d):
	    shoff, shentsize, shnum, _ = header(d)
	    for i in range(shnum):
	        yield struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
	def name(d, s):
	    shoff, shentsize, _, shstrndx = header(d)
	    strtab = struct.unpack_from("<IIQQQQIIQQ", d, shoff + shstrndx * shentsize)[4]
	    return bytes(d[strtab + s[0]:].split(b"\0")[0])
EOF

# prelink moves a library's sections but not its (unloaded) notes: the note's
# .stapsdt.base then differs from the section's address by as much as its pc
test_expect_success 'a prelinked file: addresses corrected by .stapsdt.base' '
	cp $W moved &&
	python3 - moved "$TMP/elf.py" <<-\EOF &&
	import sys
	exec(open(sys.argv[2]).read())
	d = bytearray(open(sys.argv[1], "rb").read())
	for s in sections(d):
	    if name(d, s) != b".note.stapsdt":
	        continue
	    off, end = s[4], s[4] + s[5]
	    while off < end:
	        namesz, descsz, typ = struct.unpack_from("<III", d, off)
	        desc = off + 12 + ((namesz + 3) & ~3)
	        for k in (0, 8, 16):	# pc, base, semaphore: 0x100000 higher, as linked before a move
	            v, = struct.unpack_from("<Q", d, desc + k)
	            if v:
	                struct.pack_into("<Q", d, desc + k, v + 0x100000)
	        off = desc + ((descsz + 3) & ~3)
	open(sys.argv[1], "wb").write(d)
	EOF
	! cmp -s "$W" moved && chmod +x moved &&
	$SONDE probe -c "$TMP/moved 2" -e "usdt:$TMP/moved:three { printf(\"three %d %d\\n\", arg0, arg1); } usdt:$TMP/moved:guarded { @ = count(); }" >out &&
	grep "^three" out >got && printf "three %s\n" "-1 60001" "-2 60002" >expect && test_cmp expect got &&
	grep -q "semaphore seen nonzero 2 of 2 times" out
'

test_expect_success 'errors: a missing binary, a missing probe, no notes, an argument too many' '
	! $SONDE probe -e "usdt:/no/such/bin:a:b { }" 2>err && cat err &&
	grep -q "^stdin:1:1: error: cannot find binary or library ./no/such/bin.$" err &&
	! $SONDE probe -e "usdt:$W:sonde_test:nope { }" 2>err && cat err &&
	grep -q "error: no USDT probe sonde_test:nope in $W (see sonde probe -l .usdt:$W:\*.)" err &&
	! $SONDE probe -e "usdt:$WORKLOADS/spin:a:b { }" 2>err && cat err &&
	grep -q "error: $WORKLOADS/spin has no USDT probes (no .note.stapsdt section)" err &&
	! $SONDE probe --dry-run -e "usdt:$W:sonde_test:three { print(arg3); }" 2>err && cat err &&
	grep -q "^stdin:1:.*: error: usdt probe .sonde_test:three. ($W) has 3 arguments: no arg3$" err &&
	grep -q "^ *\^\^\^\^$" err &&
	! $SONDE probe -e "usdt::a:b { }" 2>err && grep -q "needs -p PID" err
'

test_expect_success 'corrupted input: a broken note section, a broken argument, a file that is no ELF' '
	cp $W bad &&
	python3 - bad "$TMP/elf.py" <<-\EOF &&
	import sys
	exec(open(sys.argv[2]).read())
	d = bytearray(open(sys.argv[1], "rb").read())
	for s in sections(d):
	    if name(d, s) == b".note.stapsdt":
	        struct.pack_into("<I", d, s[4] + 4, 0x7fffffff)	# the first note claims a huge desc
	open(sys.argv[1], "wb").write(d)
	EOF
	! $SONDE probe -e "usdt:$TMP/bad:one { }" 2>err && cat err &&
	grep -q "cannot read the USDT probes of .$TMP/bad.: malformed .note.stapsdt section" err &&
	python3 -c "import sys; d = open(sys.argv[1], \"rb\").read(); open(sys.argv[2], \"wb\").write(d.replace(b\"sonde_test\\0one\\0-4@%edi\", b\"sonde_test\\0one\\0-4@%xyz\", 1))" $W badarg &&
	chmod +x badarg &&
	! $SONDE probe --dry-run -e "usdt:$TMP/badarg:one { print(arg0); }" 2>err && cat err &&
	grep -q "^stdin:1:.*error: cannot read the arguments of usdt probe .sonde_test:one. ($TMP/badarg): cannot parse argument .-4@%xyz.$" err &&
	$SONDE probe -c "$TMP/badarg 2" -e "usdt:$TMP/badarg:one { @ = count(); }" >out && grep -q "^@: 2$" out &&
	echo "not elf" >text && chmod +x text &&
	! $SONDE probe -e "usdt:$TMP/text:one { }" 2>err && cat err &&
	grep -q "is not an ELF file" err && [ $(wc -l <err) -eq 3 ]
'

test_done
