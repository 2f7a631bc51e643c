#!/bin/bash
# t0860: `sonde ltrace` (ltrace): the library calls of tests/workloads/ltracee,
# whose calls and arguments are known, one line each as ltrace prints them;
# the same lines as Debian's ltrace once addresses are masked; -c counts,
# -e/-l filters, -T, -tt, -f (fork and thread), -S, -o, -s, -p, SIGTERM,
# DWARF prototypes, and the inputs it cannot trace (one line each).
. "$(dirname "$0")/../lib.sh"

W=$WORKLOADS/ltracee

# addresses become ADDR and runs of blanks one blank (the value's column moves with the address's width);
# rand's arguments are whatever its caller left in the registers
mask() { sed -E 's/0x[0-9a-f]{9,}/ADDR/g; s/^(ltracee->)?rand\(.*/\1rand(...)/; s/ +/ /g' "$@"; }

cat >"$TMP/want" <<'EOT'
strlen("hello") = 5
malloc(100) = ADDR
free(ADDR) = <void>
puts("ltracee") = 8
fflush(ADDR) = 0
atoi("42") = 42
getenv("LTRACEE_UNSET") = nil
strcmp("abc", "abd") = -1
strlen("a string of forty-four character"...) = 42
toupper('a') = 'A'
toupper('a') = 'A'
toupper('a') = 'A'
strcmp("-", "fork") = -57
strcmp("-", "thread") = -71
rand(...)
strcmp("-", "loop") = -63
exit(0 <no return ...>
+++ exited (status 0) +++
EOT

test_expect_success 'usage errors: one line, exit 129' '
	rc=0 && $SONDE ltrace 2>err || rc=$?
	test $rc -eq 129 && grep -q "give a command to run, or -p PID" err &&
	rc=0 && $SONDE ltrace -p 1 -- true 2>err || rc=$?
	test $rc -eq 129 && grep -q "exclude each other" err &&
	rc=0 && $SONDE ltrace -e "/[/" true 2>err || rc=$?
	test $rc -eq 129 && grep -q "cannot compile the regular expression" err
'
test_expect_success 'bad input: a static binary, a Go binary, no ELF file, no command, no process' '
	gcc -static -o st -x c - <<<"int main(void) { return 0; }" &&
	rc=0 && $SONDE ltrace ./st >out 2>err || rc=$?
	test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "^sonde: .\./st. is statically linked" err &&
	echo go >note && objcopy --add-section .note.go.buildid=note st gost &&
	rc=0 && $SONDE ltrace ./gost >out 2>err || rc=$?
	test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "is a Go program" err &&
	rc=0 && $SONDE ltrace /etc/passwd >out 2>err || rc=$?
	test $rc -eq 1 && grep -qx "sonde: cannot read ./etc/passwd.: not an ELF executable of this machine" err &&
	printf "#!/bin/sh\ntrue\n" >script.sh && chmod +x script.sh &&
	rc=0 && $SONDE ltrace ./script.sh >out 2>err || rc=$?
	test $rc -eq 1 && grep -qx "sonde: .\./script\.sh. is a script: trace its interpreter (sonde ltrace -- INTERPRETER \./script\.sh)" err &&
	rc=0 && $SONDE ltrace /nonexistent-t0860 >out 2>err || rc=$?
	test $rc -eq 127 && test $(wc -l <err) -eq 1 &&
	rc=0 && $SONDE ltrace -p 999999 >out 2>err || rc=$?
	test $rc -eq 1 && grep -qx "sonde: cannot attach to process 999999: no such process" err
'
if command -v go >/dev/null; then
	test_expect_success 'a real Go program (go build): one line, exit 1' '
		printf "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hi\") }\n" >m.go &&
		HOME=$PWD GOCACHE=$PWD/gocache GOPATH=$PWD/gopath go build -o gobin m.go &&
		rc=0 && $SONDE ltrace ./gobin >out 2>err || rc=$?
		test $rc -eq 1 && test $(wc -l <err) -eq 1 &&
		grep -qx "sonde: .\./gobin. is a Go program: it calls no C library through a PLT, there is nothing to trace" err
	'
else
	test_skip 'a real Go program (go build)' 'no Go compiler: scripts/deps.sh test installs golang-go'
fi
require_root 'ltrace on a known workload'
# Debian ltrace and sonde ltrace on ltracee: never beside the other ltrace script (lib.sh)
exclusive ltracee

test_expect_success 'the known calls, arguments and values, one line each, values at column 50' '
	$SONDE ltrace "$W" >out 2>err && echo ltracee >o && test_cmp o out &&
	mask err >got && test_cmp want got &&
	grep -qx "strlen(\"hello\")                                  = 5" err &&
	grep -qx "toupper(.a.)                                     = .A." err
'
test_expect_success 'the same lines with perf-event uprobes (no uprobe_multi links), -f too' '
	SONDE_NO_UPROBE_MULTI=1 $SONDE ltrace "$W" 2>err >/dev/null && mask err >got && test_cmp want got &&
	SONDE_NO_UPROBE_MULTI=1 $SONDE ltrace -f "$W" 1 - fork 2>err >/dev/null &&
	# whole, or cut by the other process line: "strlen("hello" <unfinished ...>"
	{ test $(grep -c "^\[pid [0-9]*\] strlen(\"hello\"\() *= 5\| <unfinished ...>\)$" err) -eq 2 ||
		{ cat err; exit 1; }; }
'
test_expect_success 'the same lines as Debian ltrace, addresses masked (atoi: sonde knows its prototype)' '
	command -v ltrace >/dev/null || { echo "ltrace is missing: scripts/deps.sh test"; exit 1; }
	ltrace "$W" 2>l >/dev/null && $SONDE ltrace "$W" 2>s >/dev/null &&
	mask l | grep -v "^atoi(" >lm && mask s | grep -v "^atoi(" >sm && test_cmp lm sm &&
	test $(wc -l <sm) -eq 17
'
test_expect_success 'a stripped executable: the same lines (the PLT comes from .dynsym and relocations)' '
	cp "$W" ./ltracee && strip ./ltracee && $SONDE ltrace ./ltracee 2>err >/dev/null &&
	mask err >got && test_cmp want got
'
test_expect_success 'an IBT build (.plt.sec stubs): the same lines; -fno-plt: one line, nothing to trace' '
	gcc -O1 -fno-inline -fcf-protection=full -Wl,-z,ibtplt -o ltibt "$ROOT/tests/workloads/ltracee.c" &&
	readelf -SW ltibt | grep -q " \.plt\.sec " &&
	$SONDE ltrace ./ltibt 2>err >/dev/null && mask err >got && test_cmp want got &&
	gcc -O1 -fno-inline -fno-plt -o ltnoplt "$ROOT/tests/workloads/ltracee.c" &&
	rc=0 && $SONDE ltrace ./ltnoplt >out 2>err || rc=$?
	test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "has no PLT stubs (it calls no library function, or was built with -fno-plt)" err
'
test_expect_success '-c: the calls of each function, exactly, and the same counts as ltrace -c' '
	$SONDE ltrace -c "$W" 7 >/dev/null 2>err &&
	head -2 err >h && printf "%% time     seconds  usecs/call     calls      function\n%s\n" \
		"------ ----------- ----------- --------- --------------------" >hw && test_cmp hw h &&
	awk "NR > 2 && !/^---/ { print \$(NF - 1), \$NF }" err | sort >got &&
	printf "%s\n" "1 fflush" "1 free" "1 getenv" "1 malloc" "1 puts" "1 rand" "2 atoi" "2 strlen" \
		"4 strcmp" "7 toupper" "21 total" | sort >w && test_cmp w got &&
	ltrace -c "$W" 7 2>l >/dev/null && awk "NR > 2 && !/^---/ { print \$(NF - 1), \$NF }" l | sort >lg &&
	test_cmp lg got
'
test_expect_success '-e malloc+free, -e -strlen, -e !strlen, -l libc: the caller named, as ltrace does' '
	$SONDE ltrace -e malloc+free "$W" 2>err >/dev/null && mask err >got &&
	printf "%s\n" "ltracee->malloc(100) = ADDR" "ltracee->free(ADDR) = <void>" "+++ exited (status 0) +++" >w &&
	test_cmp w got &&
	$SONDE ltrace -e -strlen "$W" 2>err >/dev/null && ! grep -q strlen err &&
	grep -qx "ltracee->puts(\"ltracee\") *= 8" err &&
	$SONDE ltrace -e "!strlen" "$W" 2>err >/dev/null && ! grep -q strlen err &&
	$SONDE ltrace -e "strlen@MAIN" "$W" 2>err >/dev/null && mask err >got &&
	printf "%s\n" "ltracee->strlen(\"hello\") = 5" \
		"ltracee->strlen(\"a string of forty-four character\"...) = 42" "+++ exited (status 0) +++" >w &&
	test_cmp w got &&
	$SONDE ltrace -e "*@libc.so*" "$W" 2>err >/dev/null && grep -q "^libc\.so\.6->[a-z_]*(" err &&
	! grep -v "^libc\.so\.6->\|^+++ exited" err &&
	$SONDE ltrace -l "libc.so*" "$W" 2>err >/dev/null && grep -qx "ltracee->getenv(\"LTRACEE_UNSET\") *= nil" err &&
	rc=0 && $SONDE ltrace -l "libssl.so*" "$W" >out 2>err || rc=$?
	test $rc -eq 1 && test $(wc -l <err) -eq 1 && grep -q "loads no library matching .libssl.so\*." err
'
test_expect_success '-T: the time in each call; -tt/-ttt/-r: times; -i: return addresses; -s 5: shorter strings' '
	$SONDE ltrace -T "$W" 2>err >/dev/null &&
	test $(grep -c " = .* <0\.[0-9]\{6\}>$" err) -eq 16 &&
	$SONDE ltrace -tt "$W" 2>err >/dev/null &&
	test $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]\{6\} " err) -eq 18 &&
	$SONDE ltrace -ttt "$W" 2>err >/dev/null && test $(grep -c "^[0-9]\{10\}\.[0-9]\{6\} " err) -eq 18 &&
	$SONDE ltrace -r "$W" 2>err >/dev/null && test $(grep -c "^  [0-9]\.[0-9]\{6\} " err) -eq 18 &&
	$SONDE ltrace -i "$W" 2>err >/dev/null && test $(grep -c "^\[0x[0-9a-f]*\] [a-z]*(" err) -eq 17 &&
	$SONDE ltrace -s 5 "$W" 2>err >/dev/null &&
	grep -q "^strlen(\"hello\") *= 5$" err && grep -q "^strlen(\"a str\"\.\.\.) *= 42$" err
'
test_expect_success '-o FILE: the trace in the file, nothing on stderr' '
	$SONDE ltrace -o trace "$W" >out 2>err && ! test -s err && mask trace >got && test_cmp want got
'
test_expect_success '-f: a forked child and a thread, each line with [pid N]' '
	$SONDE ltrace -f "$W" 1 - fork 2>err >/dev/null &&
	parent=$(sed -n "s/^\[pid \([0-9]*\)\] strcmp(\"fork\", \"fork\") .*/\1/p" err) &&
	child=$(sed -n "s/^\[pid \([0-9]*\)\] <... fork resumed> ) *= 0$/\1/p" err) &&
	test -n "$parent" && test -n "$child" &&
	grep -q "^\[pid $parent\] \(fork()\|<... fork resumed> )\) *= $child$" err &&
	test $(grep -c "^\[pid $child\] strlen(" err) -eq 2 &&
	grep -qx "\[pid $child\] +++ exited (status 0) +++" err &&
	grep -qx "\[pid $parent\] +++ exited (status 0) +++" err &&
	grep -q "^\[pid $parent\] \(waitpid(.*\|<... waitpid resumed> )\) *= $child$" err &&
	$SONDE ltrace -f "$W" 1 - thread 2>err >/dev/null &&
	test $(grep -o "^\[pid [0-9]*\] toupper" err | sort -u | wc -l) -eq 2 &&
	test $(grep -c "getenv(\"LTRACEE_UNSET\") *= nil" err) -eq 2
'
test_expect_success '-S: syscalls in order, inside the library call that made them' '
	$SONDE ltrace -S "$W" 2>err >/dev/null && mask err >got &&
	grep -A2 "^fflush(ADDR <unfinished ...>$" got >w &&
	printf "%s\n" "fflush(ADDR <unfinished ...>" "SYS_write(1, \"ltracee\\n\", 8) = 8" \
		"<... fflush resumed> ) = 0" >x && test_cmp x w &&
	tail -3 got >t && printf "%s\n" "exit(0 <unfinished ...>" "SYS_exit_group(0 <no return ...>" \
		"+++ exited (status 0) +++" >x && test_cmp x t && ! grep -q uretprobe got
'
# wait_exec PID: until PID runs ltracee
wait_exec() {
	for i in $(seq 100); do
		[ "$(readlink /proc/$1/exe)" = "$W" ] && return 0
		sleep 0.02
	done
	echo "ltracee did not start"; return 1
}
test_expect_success '-p PID: the calls after attaching, the exit, then sonde ends by itself' '
	rm -f go && mkfifo go &&
	{ "$W" 3 wait <go >/dev/null & } && lpid=$! &&
	exec 9>go && wait_exec $lpid &&
	tool_start att sh -c "exec $SONDE ltrace -v -o trace -p $lpid 2>&1" &&
	echo >&9 && exec 9>&- && wait $TOOL_PID &&
	grep -q "PLT stubs probed" att && sed -E "s/^$lpid //" trace | mask >got &&
	sed "s/^strcmp(\"-\", \"loop\") = -63/strcmp(\"wait\", \"loop\") = 11/" want >w && test_cmp w got &&
	grep -q "^$lpid strlen(\"hello\")" trace
'
test_expect_success 'SIGTERM: sonde ends, the -p process runs on, no probe is left behind' '
	"$W" 1 loop - 20 >/dev/null & lpid=$! &&
	wait_exec $lpid &&
	tool_start att sh -c "exec $SONDE ltrace -v -o trace -p $lpid 2>&1" && sleep 0.3 &&
	# its programs, by id: another sonde ltrace running beside this test has programs of the same names
	ids=$(cat /proc/$TOOL_PID/fdinfo/* 2>/dev/null | sed -n "s/^prog_id:[^0-9]*//p" | sort -u) &&
	test -n "$ids" &&
	kill -TERM $TOOL_PID && rc=0 && wait $TOOL_PID || rc=$?
	kill -0 $lpid && sleep 0.1 && kill -0 $lpid && kill $lpid &&
	test $rc -eq 0 && grep -q "^$lpid toupper(.a.) *= .A.$" trace &&
	for id in $ids; do ! bpftool prog show id $id 2>/dev/null || exit 1; done
'
test_expect_success 'a reader that stalls: the records lost are counted on stderr, never silently' '
	rm -f go && mkfifo go &&
	{ "$W" 300000 wait <go >/dev/null & } && lpid=$! &&
	exec 9>go && wait_exec $lpid &&
	tool_start att sh -c "exec $SONDE ltrace -v -o trace -p $lpid 2>&1" &&
	kill -STOP $TOOL_PID && echo >&9 && exec 9>&- &&
	while kill -0 $lpid 2>/dev/null; do sleep 0.1; done &&
	kill -CONT $TOOL_PID && wait $TOOL_PID &&
	grep -q "^sonde: warning: [0-9]* records lost: the ring buffer was full" att &&
	lost=$(sed -n "s/^sonde: warning: \([0-9]*\) records lost.*/\1/p" att) &&
	test $(( lost + $(grep -c "toupper" trace) )) -ge 300000
'
test_expect_success 'DWARF prototypes: a library built with -g gives its parameters types' '
	printf "%s\n" "int lt_add(int a, const char *s) { return a + (int)__builtin_strlen(s); }" >lib.c &&
	printf "%s\n" "int lt_add(int, const char *);" "int main(void) { return lt_add(2, \"xyz\") != 5; }" >main.c &&
	gcc -g -shared -fPIC -o libltadd.so lib.c && gcc -o ltmain main.c -L. -lltadd -Wl,-rpath,"$PWD" &&
	$SONDE ltrace ./ltmain 2>err && grep -qx "lt_add(2, \"xyz\") *= 5" err &&
	gcc -shared -fPIC -o libltadd.so lib.c && $SONDE ltrace ./ltmain 2>err &&
	grep -q "^lt_add(2, ADDR\|^lt_add(2, 0x[0-9a-f]*, " err
'
test_done
