#!/bin/bash
# The cached kernel symbol table (src/lib/symbol/ksymcache.c): kernel
# addresses resolve to the same name and offset with it, without it
# (SONDE_NO_KSYMCACHE=1) and while it is made; a warm run does not read
# /proc/kallsyms whole; a changed module list or boot id rebuilds it; it is
# private; a corrupted, truncated or foreign file is rebuilt, never believed.
. "$(dirname "$0")/../lib.sh"
require_root 'the kernel symbol cache' 'kallsyms hides its addresses from other users'

export XDG_CACHE_HOME=$TMP/xdg
CACHE=$XDG_CACHE_HOME/sonde/kallsyms.cache
# the test hooks: the module list and boot id the cache is keyed by, as files of the test's
export SONDE_TEST_KSYMCACHE_MODULES=$TMP/modules SONDE_TEST_KSYMCACHE_BOOT_ID=$TMP/boot_id
cat /proc/modules >$TMP/modules 2>/dev/null || : >$TMP/modules
cp /proc/sys/kernel/random/boot_id $TMP/boot_id

# addr+N for each hex address on stdin, for each N given
plus() { python3 -c 'import sys
for l in sys.stdin:
    for d in sys.argv[1:]: print("%x" % (int(l.split()[0], 16) + int(d)))' "$@"; }
# addresses to ask about: every 13th text symbol of the kernel, at it, inside it and just
# before it, the end markers and past them, and below the kernel (the modules' area is
# where BPF programs of tests running beside this one come and go: a test of its own)
awk '$2 ~ /^[tTwW]$/ && NF == 3 && NR % 13 == 0 { print $1 }' /proc/kallsyms >$TMP/syms
{
	plus 0 5 -1 <$TMP/syms
	awk '$3 ~ /^(_etext|_einittext|_end|__init_end|_stext)$/' /proc/kallsyms | plus 0 64
	echo ffffffff80000000
} >$TMP/addrs

resolve() { $SONDE addr2sym -k <$TMP/addrs; }
# bytes read from /proc/kallsyms by a run asking for the kernel's own symbols (LeakSanitizer
# cannot run under ptrace: the ASan build's leak check is off for it)
kallsyms_bytes() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -y -e trace=read -o $TMP/strace.log $SONDE addr2sym -k <$TMP/syms >/dev/null &&
	grep "</proc/kallsyms>" $TMP/strace.log | sed -E "s/.*= ([0-9]+)$/\1/" | awk '{ s += $1 } END { print s + 0 }'
}

test_expect_success 'setup: the answers without the cache' '
	SONDE_NO_KSYMCACHE=1 resolve >nocache &&
	[ $(wc -l <nocache) -gt 10000 ] &&
	[ ! -e $CACHE ] &&
	grep -q "^ *ffffffff[0-9a-f]* [a-z_].*+0x5 (\[kernel.kallsyms\])" nocache
'

test_expect_success 'the same names and offsets while the cache is made and from it' '
	resolve >cold && test_cmp nocache cold &&
	[ -s $CACHE ] &&
	resolve >warm && test_cmp nocache warm
'

test_expect_success 'a known symbol from /proc/kallsyms: its name and offset' '
	line=$(awk "\$2 == \"T\" && \$3 == \"schedule\" { print; exit }" /proc/kallsyms) &&
	addr=$(printf "%x" $((0x${line%% *} + 0x10))) &&
	$SONDE addr2sym -k $addr >out &&
	echo "$addr schedule+0x10 ([kernel.kallsyms])" >expect &&
	sed -E "s/^ +//" out >got && test_cmp expect got
'

test_expect_success 'a warm run reads a line of /proc/kallsyms, not all of it' '
	[ $(kallsyms_bytes) -le 4096 ] &&
	[ $(SONDE_NO_KSYMCACHE=1 kallsyms_bytes) -gt 1000000 ]
'

test_expect_success 'the directory is 0700 and the file 0600' '
	[ $(stat -c %a $XDG_CACHE_HOME/sonde) = 700 ] &&
	[ $(stat -c %a $CACHE) = 600 ] &&
	chmod 644 $CACHE && resolve >out && test_cmp nocache out &&
	[ $(stat -c %a $CACHE) = 600 ] &&
	chmod 755 $XDG_CACHE_HOME/sonde && resolve >out && test_cmp nocache out &&
	[ $(stat -c %a $XDG_CACHE_HOME/sonde) = 700 ]
'

test_expect_success 'used as it is while the module list and boot stay; rebuilt when they change' '
	ino=$(stat -c %i $CACHE) &&
	resolve >out && test_cmp nocache out && [ $(stat -c %i $CACHE) = $ino ] &&
	echo "sonde_test_mod 16384 0 - Live 0xffffffffc0ff0000" >>$TMP/modules &&
	resolve >out && test_cmp nocache out && [ $(stat -c %i $CACHE) != $ino ] &&
	ino=$(stat -c %i $CACHE) &&
	resolve >out && test_cmp nocache out && [ $(stat -c %i $CACHE) = $ino ] &&
	echo 00000000-1111-2222-3333-444444444444 >$TMP/boot_id &&
	resolve >out && test_cmp nocache out && [ $(stat -c %i $CACHE) != $ino ]
'

test_expect_success 'a corrupted, truncated or foreign cache is rebuilt; the answers stay right' '
	cp $CACHE good &&
	printf "\x5a\x5a\x5a\x5a" | dd of=$CACHE bs=1 seek=300000 conv=notrunc 2>/dev/null &&
	resolve >out && test_cmp nocache out && cmp good $CACHE &&
	truncate -s 100000 $CACHE &&
	resolve >out && test_cmp nocache out && cmp good $CACHE &&
	head -c 3000000 /dev/urandom >$CACHE &&
	resolve >out && test_cmp nocache out && cmp good $CACHE &&
	: >$CACHE &&
	resolve >out && test_cmp nocache out && cmp good $CACHE
'

test_expect_success 'SONDE_NO_KSYMCACHE=1 neither reads nor writes it; report --help says so' '
	$SONDE report --help >help && grep -q "SONDE_NO_KSYMCACHE=1" help &&
	rm -f $CACHE &&
	SONDE_NO_KSYMCACHE=1 resolve >out && test_cmp nocache out && [ ! -e $CACHE ]
'

test_expect_success 'report: the same text with and without the cache' '
	$SONDE record -F 4999 -g -o rec.data -- $WORKLOADS/syscalls 300000 >/dev/null 2>&1 &&
	SONDE_NO_KSYMCACHE=1 $SONDE report -i rec.data >r0 &&
	grep -q "\[k\] [a-z_]" r0 &&
	rm -f $CACHE && $SONDE report -i rec.data >r1 && [ -s $CACHE ] &&
	$SONDE report -i rec.data >r2 &&
	# BPF programs of tests running beside this one (on the syscall tracepoints) are in
	# the workload'"'"'s kernel stacks, and come and go between the reports: their lines
	# are named, or not, by what is loaded at the time
	for f in r0 r1 r2; do grep -v "\[k\] 0x\|bpf_prog_\|bpf_trampoline" $f >$f.k; done &&
	test_cmp r0.k r1.k && test_cmp r0.k r2.k
'

test_expect_success 'BPF programs loaded after the cache was made: named as kallsyms names them' '
	[ -s $CACHE ] &&
	tool_start probe.out $SONDE probe -e "tracepoint:syscalls:sys_enter_getppid { @n = count(); }" &&
	grep "\[bpf\]" /proc/kallsyms | sort >bpf1 &&
	plus 0 4 <bpf1 >$TMP/addrs &&
	SONDE_NO_KSYMCACHE=1 resolve >b0 && resolve >b1 &&
	grep "\[bpf\]" /proc/kallsyms | sort >bpf2 &&
	tool_stop &&
	# only the programs loaded all along (others of tests running beside this one come and go)
	comm -12 bpf1 bpf2 | plus 0 4 >stable &&
	grep -F -f stable b0 >s0 && grep -F -f stable b1 >s1 &&
	grep -q "bpf_prog_.*+0x4 (\[bpf\])" s0 && test_cmp s0 s1
'

test_done
