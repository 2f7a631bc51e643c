# lib.sh - the end-to-end test harness, sourced by tests/e2e/tNNNN-topic.sh.
#
#   test_expect_success 'what it checks' '
#           shell commands; the test fails at the first failing command
#   '
#   test_skip 'what it would check' 'why it cannot run here'
#   test_done
#
# Helpers: test_cmp EXPECTED ACTUAL (diff -u), $SONDE (the binary under test),
# $BUILD (build dir with workloads/ and examples/), $TMP (a private scratch dir),
# mask_numbers (turns digits into N, to compare layouts with perf's),
# require_root 'what the script checks' ['why'] (skips the whole script,
# with the reason, unless root), have_bpftrace (true where a bpftrace that
# runs is installed, to compare sonde probe with), tool_start/tool_stop (a tool
# in the background, from its header line to Ctrl-C), exclusive NAME (never
# beside another script that holds NAME).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SONDE=${SONDE:-$BUILD/sonde}
WORKLOADS=$BUILD/workloads
EXAMPLES=$BUILD/examples
RESULTS=${RESULTS:-/dev/null}
TEST_NAME=$(basename "$0" .sh)
# what the results name the script by: the ASan build's run is told apart (tests/run.sh runs both at once)
_label=$TEST_NAME${SONDE_SANITIZED:+ (ASan)}
TMP=$(mktemp -d "/tmp/sonde-$TEST_NAME.XXXXXX")
trap '_end_tools; rm -rf "$TMP"' EXIT
_pass=0 _fail=0 _skip=0

say() { printf '%s\n' "$*"; }

test_expect_success() {
	local desc=$1 body=$2 log=$TMP/.log rc
	( cd "$TMP" && set -e && eval "$body" ) >"$log" 2>&1 </dev/null
	rc=$?
	_end_tools
	if [ $rc -eq 0 ]; then
		say "ok - $_label: $desc"
		echo "pass $_label: $desc" >>"$RESULTS"
		_pass=$((_pass + 1))
	else
		say "FAIL - $_label: $desc (exit $rc)"
		sed 's/^/    | /' "$log" | tail -n 40
		echo "fail $_label: $desc" >>"$RESULTS"
		_fail=$((_fail + 1))
	fi
}

test_skip() {
	say "skip - $_label: $1 ($2)"
	echo "skip $_label: $1 ($2)" >>"$RESULTS"
	_skip=$((_skip + 1))
}

test_cmp() { diff -u "$1" "$2"; }

# digits become N, runs of spaces are kept: the layout stays, the values go
mask_numbers() { sed -E 's/[0-9]+/N/g; s/N(,N)+/N/g; s/N\.N/N/g'; }

# perf report's text with its ties in one order, the text's (tests/e2e/report-ties.py
# says why perf's order of equal entries and equal graph siblings is none to match)
report_ties_sorted() { python3 "$ROOT/tests/e2e/report-ties.py" "$@"; }
# perf script's text without the frames the two tools name differently: kernel modules
# and BPF programs (0xffffffffc...) resolve through the live /proc/kallsyms for sonde
# and not at all for perf; a frame in a PLT stub perf cannot match to its relocation
# (a sample in ld.so's call to libc's stub: perf "@plt+0x0", sonde and objdump
# __tunable_get_val@plt)
script_comparable() { sed -E '/^\tffffffffc[0-9a-f]{7} /d; /@plt\+0x[0-9a-f]+ \(/d'; }

# fail unless "$1" (a command's output) contains "$2"
expect_contains() { case "$1" in *"$2"*) return 0 ;; esac; echo "expected to find: $2"; echo "in: $1"; return 1; }

# the rest of the script cannot run: say why once, end
_skip_script() {
	test_skip "$1" "$2"
	test_done
	exit
}

# is_root: true when the tests run as root (the one root check; require_root skips a whole script)
# kill -SIG PID once PID takes SIG as data (SIG blocked: sonde's event loop reads
# it from its signalfd). A signal before that ends sonde by its default action, or
# is lost where the shell left it ignored (SIGINT of a background job); a fixed
# sleep before the kill was not enough for a loaded machine or an ASan build.
kill_ready() {
	local sig=$1 pid=$2 nr blk
	nr=$(kill -l "$sig") || return 1
	for _ in $(seq 6000); do
		blk=$(sed -n "s/^SigBlk:[[:space:]]*//p" /proc/$pid/status 2>/dev/null)
		[ -n "$blk" ] || break
		(( (0x$blk >> (nr - 1)) & 1 )) && break
		sleep 0.01
	done
	kill -"$sig" "$pid"
}

is_root() {
	[ "$(id -u)" = 0 ]
}

# require_root 'what the script checks' ['why']: skip the whole script unless root
require_root() {
	is_root || _skip_script "$1" "${2:-BPF needs root}"
}

# exclusive NAME: hold the lock NAME until the script ends. tests/run.sh runs scripts three at a
# time; those that must not overlap take the same lock (Debian ltrace's breakpoints and another
# test's uprobes on the same program each break the other's answer: t0860, t0861)
exclusive() {
	exec {_lock_fd}>>"${TMPDIR:-/tmp}/sonde-tests-$1.lock" && flock "$_lock_fd"
}

# true where a bpftrace that runs is installed (the reference for sonde probe)
have_bpftrace() {
	command -v bpftrace >/dev/null && bpftrace --version >/dev/null 2>&1
}

# tool_start OUT CMD...: run CMD (a sonde tool) in the background, stdout to OUT and
# stderr to OUT.err, and return once OUT has its first line: a tool prints its header
# once its probes are attached (src/tools/README.md). TOOL_PID is its pid; 1 when it
# ended first or printed nothing in 30 s.
tool_start() {
	local out=$1 i=0
	shift
	: >"$out"	# now, not when the background job gets to it: an old OUT must not count
	"$@" >"$out" 2>"$out.err" &
	TOOL_PID=$!
	# ended by the harness if the test fails before tool_stop; written by a child process, so that
	# this shell opens nothing a tool filtering on its pid (vfsstat -p $BASHPID) would count
	(echo $TOOL_PID >>"$TMP/.tools")
	while ! grep -q . "$out" 2>/dev/null; do
		# no redirection here nor in tool_stop: one on a builtin is an open by this shell, which
		# vfsstat -p $BASHPID counts when it falls between the tool's attach and its header
		[ -e /proc/$TOOL_PID ] || { echo "the tool ended before its header:"; cat "$out.err"; return 1; }
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "no header from the tool in 30 s"; return 1; }
		sleep 0.05
	done
}

# the tools a test started and did not stop (it failed before tool_stop): SIGINT, then SIGKILL
_end_tools() {
	[ -s "$TMP/.tools" ] || return 0
	local p
	for p in $(cat "$TMP/.tools"); do
		kill -INT $p 2>/dev/null && sleep 1 && kill -KILL $p 2>/dev/null
	done
	rm -f "$TMP/.tools"
	return 0
}

# tool_stop: Ctrl-C to the tool tool_start ran; waits for it and returns its exit status
tool_stop() {
	local rc=0
	kill -INT $TOOL_PID 2>&-
	wait $TOOL_PID || rc=$?
	# after the tool ended: a tool still tracing execs would see this sed (and its $TMP argument)
	sed -i "/^$TOOL_PID\$/d" "$TMP/.tools" 2>/dev/null
	return $rc
}

test_done() {
	say "# $_label: $_pass passed, $_fail failed, $_skip skipped"
	[ $_fail -eq 0 ]
}
