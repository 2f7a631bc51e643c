#!/bin/bash
# sonde collapse and sonde flame on the maps bpftrace and sonde probe print
# (`@[ustack] = count()`, issue 13): folded as stackcollapse-bpftrace.pl folds
# them, offsets stripped unless --offsets; compared with the script itself
# where it is installed (no Debian package: set STACKCOLLAPSE_BPFTRACE_PL, or
# FLAMEGRAPH_PL to a FlameGraph checkout's flamegraph.pl, or put it in PATH).
. "$(dirname "$0")/../lib.sh"

# the output of a profile of one process: probe lines, printf's, one map
cat >"$TMP/bt.txt" <<'EOF'
Attaching 2 probes...
Sampling at 99 Hertz... Hit Ctrl-C to end.


@[
    func_c+20
    func_b+9
    main+30
    __libc_start_call_main+122
]: 123
@[
    func_c+24
    func_b+9
    main+30
    __libc_start_call_main+122
]: 7
@[
    func_d+3
    main+41
    __libc_start_call_main+122
]: 40
@[
    native_safe_halt+14
    default_idle+9
    do_idle+208
    cpu_startup_entry+37
]: 11
@[, swapper/0]: 5
EOF

test_expect_success 'stacks root first, offsets stripped, entries of a function merged' '
	$SONDE collapse -i bt.txt >out 2>err &&
	cat >expect <<-\EOF &&
	__libc_start_call_main;main;func_b;func_c 130
	__libc_start_call_main;main;func_d 40
	cpu_startup_entry;do_idle;default_idle;native_safe_halt 11
	swapper/0 5
	EOF
	test_cmp expect out && [ ! -s err ] &&
	$SONDE collapse <bt.txt >out2 && test_cmp expect out2 &&
	$SONDE collapse --offsets <bt.txt >out3 &&
	grep -qx "__libc_start_call_main+122;main+30;func_b+9;func_c+24 7" out3
'

test_expect_success 'sonde flame draws them: the same folded stacks, an SVG' '
	$SONDE flame --format folded bt.txt >f.folded &&
	$SONDE collapse <bt.txt >c.folded && test_cmp c.folded f.folded &&
	$SONDE flame <bt.txt >g.svg 2>/dev/null &&
	grep -q "<title>func_c (130 samples, 69.89%)</title>" g.svg &&
	$SONDE flame --diff --format folded bt.txt bt.txt >d.folded &&
	grep -qx "__libc_start_call_main;main;func_d 40 40" d.folded
'

test_expect_success 'a comm key, several and named maps: --map picks one' '
	cat >maps.txt <<-\EOF &&
	Attaching 1 probe...
	@bytes[bash]: 4096
	@c[bash, 
	    readline+4
	    main+1
	]: 3
	@k[
	    schedule+4
	, 
	    write+23
	    main+9
	]: 2
	@total: 9
	EOF
	$SONDE collapse <maps.txt >out 2>err &&
	echo "bash;main;readline 3" | test_cmp - out &&
	grep -q "several stack maps in the input: keeping .@c. only (choose with --map)" err &&
	$SONDE collapse --map @k <maps.txt >out 2>err &&
	echo "main;write;schedule 2" | test_cmp - out && [ ! -s err ] &&
	$SONDE collapse --map k <maps.txt >out2 && test_cmp out out2
'

# one clear line, never a crash
fails_with() {	# expected-text command...
	local want=$1 rc=0
	shift
	"$@" >out 2>err || rc=$?
	[ $rc -ne 0 ] && [ $rc -lt 128 ] || { echo "rc $rc"; cat err; return 1; }
	[ $(wc -l <err) -eq 1 ] && grep -q -- "$want" err || { cat err; return 1; }
}

test_expect_success 'broken or unfit input: one clear line' '
	printf "Attaching 1 probe...\n@[bash]: 5\n" >nostack.txt &&
	fails_with "no map keyed by a stack (such as @\[ustack\] = count()) in stdin" $SONDE collapse <nostack.txt &&
	fails_with "no map .@nope. keyed by a stack in bt.txt (it has .@.)" $SONDE collapse --map @nope -i bt.txt &&
	fails_with "--pid does not apply to bpftrace" $SONDE collapse --pid <bt.txt &&
	fails_with "--offsets does not apply to perf script text" $SONDE collapse --offsets </dev/null &&
	printf "Attaching 1 probe...\n@h[\n    main+1\n]: \n[4, 8)  2 |@@@@|\n" >hist.txt &&
	rc=0; $SONDE collapse <hist.txt >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && grep -q "stdin:2: skipped: @h: the value is not a count (a histogram?)" err &&
	grep -q "no entry of .@h. in stdin could be folded" err &&
	{ printf "Attaching 1 probe...\n"; yes hello | head -c 70000; printf "\0\n"; } >bin.txt &&
	fails_with "cannot read bpftrace output from stdin: binary data, not text" $SONDE collapse <bin.txt &&
	fails_with "cannot read .bin.txt.: binary data, not text" $SONDE flame bin.txt
'

test_expect_success 'cut short: the entry is left out with a warning, the rest folded' '
	head -n 17 bt.txt >cut.txt &&
	$SONDE collapse <cut.txt >out 2>err &&
	echo "__libc_start_call_main;main;func_b;func_c 130" | test_cmp - out &&
	grep -q "stdin:17: skipped: @: the input ends inside the entry" err &&
	$SONDE flame --format folded cut.txt 2>err >out &&
	grep -q "cut.txt:17: line skipped: @: the input ends inside the entry" err
'

PL=${STACKCOLLAPSE_BPFTRACE_PL:-$(command -v stackcollapse-bpftrace.pl || true)}
[ -z "$PL" ] && [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$(dirname "$FLAMEGRAPH_PL")/stackcollapse-bpftrace.pl" ] &&
	PL=$(dirname "$FLAMEGRAPH_PL")/stackcollapse-bpftrace.pl
if [ -n "$PL" ]; then
	test_expect_success 'stackcollapse-bpftrace.pl prints the same stacks (--offsets: byte for byte)' '
		perl "$PL" bt.txt | LC_ALL=C sort >pl.folded &&
		$SONDE collapse --offsets -i bt.txt >sonde.folded &&
		[ $(wc -l <pl.folded) -eq 5 ] && test_cmp pl.folded sonde.folded &&
		perl "$PL" bt.txt | sed -E "s/\+[0-9]+(;| )/\1/g" |
			awk "{ n = \$NF; sub(/ [0-9]+\$/, \"\"); c[\$0] += n } END { for (s in c) print s, c[s] }" |
			LC_ALL=C sort >pl2.folded &&
		$SONDE collapse -i bt.txt >sonde2.folded && test_cmp pl2.folded sonde2.folded
	'
else
	test_skip 'stackcollapse-bpftrace.pl prints the same stacks' \
		'stackcollapse-bpftrace.pl is not installed (no Debian package; set STACKCOLLAPSE_BPFTRACE_PL)'
fi

require_root 'sonde probe output folded' 'BPF needs root'

# a uprobe at chain_c's entry: the stack is main -> chain_a -> chain_b -> chain_c, once
# a copy of this run's own: a uprobe is on a file, and other tests run the shared one beside this
W=$TMP/symchain
cp "$WORKLOADS/symchain" "$W"
P="uprobe:$W:chain_c { @[ustack(3)] = count(); @c[comm, ustack(4)] = count(); @p[ustack(3), pid] = count(); }"

test_expect_success 'sonde probe @[ustack] = count() folds to the known chain' '
	$SONDE probe -c "$W 0.05" -e "$P" >probe.txt 2>probe.err &&
	grep -q "^ready$" probe.txt &&
	$SONDE collapse <probe.txt >out 2>err &&
	echo "chain_a;chain_b;chain_c 1" | test_cmp - out &&
	grep -q "several stack maps in the input: keeping .@. only" err &&
	$SONDE collapse --map @c <probe.txt >out &&
	echo "symchain;main;chain_a;chain_b;chain_c 1" | test_cmp - out &&
	$SONDE collapse --map @p <probe.txt >out &&
	grep -qx "[0-9][0-9]*;chain_a;chain_b;chain_c 1" out &&
	$SONDE collapse --map @c --offsets <probe.txt >out &&
	grep -qx "symchain;main+[0-9]*;chain_a+[0-9]*;chain_b+[0-9]*;chain_c+0 1" out
'

test_expect_success 'sonde probe | sonde flame: an SVG of the chain' '
	$SONDE probe -c "$W 0.05" -e "uprobe:$W:chain_c { @[ustack(4)] = count(); }" 2>/dev/null |
		$SONDE flame 2>err >g.svg &&
	grep -q "<title>chain_c (1 samples, 100.00%)</title>" g.svg &&
	grep -q "<title>main (1 samples, 100.00%)</title>" g.svg
'

if have_bpftrace; then
	# bpftrace 0.17 may leave these addresses unresolved (the command has
	# exited when it prints): the frame at a uprobe on chain_c is its address
	test_expect_success 'bpftrace @[comm, ustack] output folds the same way' '
		bpftrace -c "$W 2" -e "uprobe:$W:chain_c { @c[comm, ustack(3)] = count(); exit(); }" \
			>bt-real.txt 2>/dev/null &&
		addr=$(sed -n "s/^0x\([0-9a-f]*\) chain_c$/\1/p" bt-real.txt) && [ -n "$addr" ] &&
		$SONDE collapse <bt-real.txt >out &&
		grep -Eqx "symchain;(chain_a|0x[0-9a-f]+);(chain_b|0x[0-9a-f]+);(chain_c|0x$addr) 1" out
	'
else
	test_skip 'bpftrace @[comm, ustack] output folds the same way' 'bpftrace is not installed'
fi

test_done
