#!/bin/bash
# t0300-addr2sym.sh - the symbolizer through the hidden `sonde addr2sym`, against
# binutils addr2line on the same addresses (names, inline chains, line numbers),
# on a live process, on the kernel, and on corrupted ELF files.
. "$(dirname "$0")/../lib.sh"
W=$WORKLOADS/symchain

test_expect_success 'addr2sym --help exits 0 and is not listed in sonde --help' '
	$SONDE addr2sym --help >out &&
	grep -q "addr2sym" out &&
	! $SONDE --help | grep -q addr2sym
'

test_expect_success 'function names and lines agree with addr2line' '
	nm $W | awk "/ [Tt] (chain_[abc]|main)\$/ {print \$1}" >addrs &&
	test $(wc -l <addrs) = 4 &&
	addr2line -f -e $W <addrs | paste - - | sed -E "s/ \(discriminator [0-9]+\)//; s#[^\t]*/##" |
		awk -F"\t" "{print \$1, \$2}" >expect &&
	$SONDE addr2sym -s -e $W <addrs | sed -E "s/^ *[0-9a-f]+ ([^+]*)\+0x0 \([^)]*\) .*\/(.*)$/\1 \2/" >actual &&
	test_cmp expect actual
'

test_expect_success 'inline chains and lines agree with addr2line over all of chain_c' '
	read -r start size < <(nm -S $W | awk "/ chain_c\$/ {print \$1, \$2}") &&
	python3 -c "import sys; s, n = int(sys.argv[1], 16), int(sys.argv[2], 16); print(\"\n\".join(\"%x\" % a for a in range(s, s + n)))" $start $size >addrs &&
	addr2line -f -i -a -e $W <addrs >a2l &&
	$SONDE addr2sym -i -s -e $W <addrs >sonde &&
	python3 - <<-\EOF
	import re
	want, cur = {}, None
	lines = open("a2l").read().split("\n")
	i = 0
	while i < len(lines):
	    if lines[i].startswith("0x"):
	        cur = int(lines[i], 16); want[cur] = []; i += 1
	    elif lines[i]:
	        want[cur].append((lines[i], re.sub(r" \(discriminator \d+\)", "", lines[i + 1]).rsplit("/", 1)[-1])); i += 2
	    else:
	        i += 1
	got = {}
	for l in open("sonde"):
	    p = l.split()
	    got.setdefault(int(p[0], 16), []).append((p[1].rsplit("+", 1)[0], p[-1].rsplit("/", 1)[-1]))
	inlined = sum(1 for v in want.values() if len(v) > 1)
	bad = [(hex(a), want[a], got.get(a)) for a in want if want[a] != got.get(a)]
	print(len(want), "addresses,", inlined, "with inlined frames,", len(bad), "differ", bad[:3])
	assert inlined > 0 and not bad
	EOF
'

test_expect_success 'addresses of a live process (-p) and of the kernel (-k)' '
	$W 10 >funcs &
	pid=$! &&
	while ! grep -q ready funcs; do sleep 0.05; done &&
	awk "/chain_b/ {print \$1}" funcs >addr &&
	$SONDE addr2sym -p $pid $(cat addr) >out;
	kill $pid; wait $pid || :;
	grep -q " chain_b+0x0 ($W)\$" out &&
	a=$(awk "\$3 == \"schedule\" {print \$1; exit}" /proc/kallsyms) &&
	$SONDE addr2sym -k $a >out &&
	grep -q " schedule+0x0 (\[kernel.kallsyms\])\$" out
'

test_expect_success 'unknown addresses print [unknown], bad ones one error line' '
	$SONDE addr2sym -e $W 10 >out &&
	grep -q "^ *10 \[unknown\] ($W)\$" out &&
	test_must_fail_1() { "$@"; test $? = 1; } &&
	test_must_fail_1 $SONDE addr2sym -e $W xyz 2>err &&
	test "$(cat err)" = "sonde: '\''xyz'\'' is not a hexadecimal address"
'

test_expect_success 'corrupted and truncated ELF files: an error or [unknown], never a crash' '
	cp $W good && addrs=$(nm good | awk "/ T / {print \$1}") &&
	head -c 3000 good >truncated &&
	$SONDE addr2sym -i -s -e truncated $addrs >out 2>err; rc=$? &&
	test $rc -le 1 &&
	for seed in 1 2 3 4 5 6 7 8; do
		python3 -c "import random, sys
random.seed(int(sys.argv[1])); b = bytearray(open(\"good\", \"rb\").read())
for _ in range(64): b[random.randrange(64, len(b))] = random.randrange(256)
open(\"bad\", \"wb\").write(b)" $seed &&
		{ $SONDE addr2sym -i -s -e bad $addrs >out 2>err; rc=$?; } &&
		{ test $rc -le 1 || { echo "seed $seed: exit $rc"; cat err; exit 1; }; }
	done &&
	printf "not an elf" >text &&
	{ $SONDE addr2sym -e text 0 2>err; test $? = 1; } &&
	test "$(cat err)" = "sonde: cannot read symbols from '\''text'\'': not an ELF file"
'

test_done
