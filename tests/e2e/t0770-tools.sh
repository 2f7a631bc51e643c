#!/bin/bash
# t0770: `sonde tools` and `sonde tool NAME`: the listing tries each tool on this
# kernel, a tool runs by `sonde tool NAME`, `sonde NAME` and a symlink, takes its
# options as BCC's argparse does, and execsnoop reports exactly the execs a trigger makes.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'sonde tool NAME --help: argparse layout from the tool header; --source prints the program' '
	$SONDE tool execsnoop --help >help &&
	head -1 help | grep -q "^usage: execsnoop \[-h\] \[-T\] \[-t\] \[-x\] " &&
	grep -q "^  -u UID, --uid UID     trace this UID only$" help &&
	grep -q "^examples:$" help &&
	$SONDE execsnoop --source >src && test_cmp "$ROOT/src/tools/execsnoop.bt" src
'
test_expect_success 'an unknown option or an extra argument: one line and the usage, exit 129' '
	rc=0 && $SONDE tool execsnoop -Z >out 2>err || rc=$?
	test $rc -eq 129 && grep -q "unknown option .-Z.; see .execsnoop --help." err && ! test -s out &&
	rc=0 && $SONDE execsnoop extra 2>err || rc=$?
	test $rc -eq 129 && grep -q "unexpected argument .extra." err &&
	rc=0 && $SONDE tool nosuchtool 2>err || rc=$?
	test $rc -eq 1 && grep -q "not a sonde tool; .sonde tools. lists them" err
'
test_expect_success 'sonde tools -q lists every tool in src/tools, one line each' '
	$SONDE tools -q >list &&
	test $(wc -l <list) -eq $(($(ls "$ROOT"/src/tools/*.bt | wc -l) + 2)) &&	# + offcputime, memleak (commands)
	grep -q "^execsnoop      -    trace exec" list
'
test_expect_success 'make install DESTDIR= PREFIX=: sonde and a symlink per tool name; uninstall removes them' '
	make -s -C "$ROOT" BUILD="$BUILD" install DESTDIR="$TMP/root" PREFIX=/usr >/dev/null &&
	test -x root/usr/bin/sonde &&
	for n in $($SONDE tools --names); do test "$(readlink root/usr/bin/$n)" = sonde || exit 1; done &&
	root/usr/bin/execsnoop --help | head -1 | grep -q "^usage: execsnoop " &&
	make -s -C "$ROOT" BUILD="$BUILD" uninstall DESTDIR="$TMP/root" PREFIX=/usr >/dev/null &&
	test -z "$(ls root/usr/bin)"
'
test_expect_success 'tool names with aliases: --names lists each once' '
	$SONDE tools --names >names && test $(sort names | uniq -d | wc -l) -eq 0 && grep -qx execsnoop names
'
require_root 'the tools run on this kernel'

test_expect_success 'sonde tools: each tool is loaded and attached here; execsnoop runs' '
	$SONDE tools >list &&
	grep -q "^execsnoop      yes  trace exec" list &&
	tail -1 list | grep -q "^[0-9]* of [0-9]* tools run on this kernel$"
'
# five execs with known arguments, one failed one, all from this test's shell
trigger() {
	for i in 1 2 3 4 5; do /bin/true sonde-t0770 "arg $i"; done
	/nonexistent-t0770 x 2>/dev/null || true
}
test_expect_success 'execsnoop: exactly the 5 execs, with pid, ppid, ret 0 and the arguments' '
	tool_start out $SONDE tool execsnoop &&
	trigger && sleep 0.2 && tool_stop &&
	head -1 out >hdr && printf "%-16s %-6s %-6s %3s %s\n" PCOMM PID PPID RET ARGS >want && test_cmp want hdr &&
	grep "sonde-t0770" out >got &&
	test $(wc -l <got) -eq 5 &&
	for i in 1 2 3 4 5; do grep -q "^true  *[0-9][0-9]*  *$BASHPID  *0 /bin/true sonde-t0770 arg $i $" got || exit 1; done &&
	! grep -q nonexistent-t0770 out
'
test_expect_success 'execsnoop -x -U -T by a symlink: the failed exec too (ret -2), UID and time columns' '
	ln -s "$SONDE" execsnoop &&
	tool_start out ./execsnoop -x -U -T &&
	trigger && sleep 0.2 && tool_stop &&
	head -1 out | grep -q "^TIME     UID    PCOMM            PID    PPID   RET ARGS$" &&
	test $(grep -c "sonde-t0770" out) -eq 5 &&
	grep -q "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] 0     bash  *[0-9]*  *[0-9]*  *-2 /nonexistent-t0770 x $" out
'
test_expect_success 'execsnoop -n and -l filter by name and by argument; -q quotes' '
	tool_start out $SONDE execsnoop -l "arg 3" -q &&
	trigger && sleep 0.2 && tool_stop &&
	test $(grep -c sonde-t0770 out) -eq 1 && grep -q "\"/bin/true\" \"sonde-t0770\" \"arg 3\" $" out &&
	tool_start out $SONDE execsnoop -n nosuchname &&
	trigger && sleep 0.2 && tool_stop &&
	test $(wc -l <out) -eq 1
'
test_expect_success "execsnoop -T -t -U -x: the same header and columns as libbpf-tools' execsnoop" '
	test -x /usr/sbin/execsnoop || { echo "libbpf-tools is not installed (make test installs it)"; exit 1; }
	for t in "$SONDE execsnoop" "stdbuf -oL /usr/sbin/execsnoop"; do
		tool_start out $t -T -t -U -x && trigger && sleep 0.2 && tool_stop
		{ head -1 out; grep "sonde-t0770 arg 1 \$" out; grep nonexistent-t0770 out; } |
			sed -E "s/[0-9.:]+ +/N /g" >>both
	done &&
	test $(wc -l <both) -eq 6 && head -3 both >a && tail -3 both >b && test_cmp b a
'
test_done
