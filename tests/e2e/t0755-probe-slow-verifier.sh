#!/bin/bash
# A program the kernel's verifier takes seconds on (issue 17 item 6): a while
# loop of 200000 rounds, which the verifier walks round by round up to its
# limit of a million instructions (1 to 2.5 s here, by the machine's load,
# then refused). sonde says the verifier is slow after 2 s; the tests shorten
# that to 0.3 s (SONDE_VERIFIER_SLOW_MS) so the message always comes before
# the verifier gives up, and SIGTERM or SIGINT stops the load at once
# (libbpf would retry it from the start) with the status the signal gives.
. "$(dirname "$0")/../lib.sh"

require_root 'a slow verifier'

SLOW='BEGIN { $i = 0; while ($i < 200000) { $i++; } printf("%d\n", $i); exit(); }'
export SLOW SONDE SONDE_VERIFIER_SLOW_MS=300

# slow_then SIG: start the slow program, wait for the message, send SIG; "STATUS MS" into result
slow_then() {
	python3 - "$1" >result <<'PY'
import os, signal, subprocess, sys, time
sig = getattr(signal, sys.argv[1])
p = subprocess.Popen([os.environ['SONDE'], 'probe', '-e', os.environ['SLOW']], stdout=open('out', 'w'),
                     stderr=open('err', 'w'), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
end = time.time() + 30
while time.time() < end and p.poll() is None and 'verifier has been checking' not in open('err').read():
    time.sleep(0.05)
t = time.time()
p.send_signal(sig)
p.wait()
print(p.returncode, int((time.time() - t) * 1000))
PY
}

test_expect_success 'after 0.3 s of verifying, sonde says so; SIGTERM then stops it at once (143)' '
	slow_then SIGTERM &&
	cat result err &&
	grep -q "^sonde: warning: the kernel.s verifier has been checking the program for 0.3 s (now .BEGIN.)" err &&
	grep -qx "sonde: interrupted by SIGTERM while the kernel verified the programs" err &&
	read status ms <result && [ "$status" = -15 ] && [ "$ms" -lt 1500 ]
'

test_expect_success 'SIGINT (Ctrl-C) stops it too (130)' '
	slow_then SIGINT &&
	cat result err &&
	grep -qx "sonde: interrupted by SIGINT while the kernel verified the programs" err &&
	read status ms <result && [ "$status" = -2 ] && [ "$ms" -lt 1500 ]
'

test_expect_success 'left alone, the program is refused with the verifier'"'"'s words, after the message' '
	rc=0; $SONDE probe -e "$SLOW" >out 2>err || rc=$?
	[ $rc = 1 ] && head -1 err | grep -q "verifier has been checking" &&
	grep -q "the kernel refused the program of .BEGIN." err
'

test_expect_success 'a quick program: no message' '
	$SONDE probe -e "BEGIN { printf(\"hi\\n\"); exit(); }" >out 2>err &&
	! grep -q verifier err
'

test_done
