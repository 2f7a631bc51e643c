#!/bin/bash
# tools.sh - sonde's BCC tools vs their anchors, in the same run:
#  1. start-up: from exec to the first line of output (the header a tool prints
#     once its probes are attached), vs Debian's libbpf-tools binary (compiled C
#     + BPF) and bpftrace running Debian's .bt version; BCC's Python tools
#     (bpfcc-tools) where they run here (they need kernel headers).
#  2. cost per event: a workload making N events, timed alone and under each
#     tool; (traced - alone) / N, sonde vs libbpf-tools.
# Ratios are sonde/anchor. Needs root.
set -u
. "$(dirname "$0")/lib.sh"
N=${N:-5}
[ "$(id -u)" = 0 ] || { echo "tools.sh: needs root"; exit 0; }

# first_line CMD...: seconds from exec to the tool's first line on stdout (best of $N), then
# Ctrl-C. bpftrace's own "Attaching N probes..." comes before it attaches: the line after it
# (the tool's header, printed by BEGIN once the probes are attached) is the one timed.
first_line() {
	python3 - "$N" "$@" <<'PY'
import os, select, signal, subprocess, sys, time
n, cmd, best = int(sys.argv[1]), sys.argv[2:], None
for _ in range(n):
    s = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = b"Attaching"
    while line.startswith(b"Attaching"):
        ready, _, _ = select.select([p.stdout], [], [], 20)	# a tool that prints nothing: nan
        line = p.stdout.readline() if ready else b""
    t = time.perf_counter() - s
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill(); p.communicate()
    if not line:
        print("nan"); sys.exit(0)
    best = t if best is None or t < best else best
    time.sleep(0.2)	# the last run's probes detached: their grace periods do not delay the next start
print("%.4f" % best)
PY
}

echo "start-up to the first line (best of $N):"
for t in execsnoop opensnoop biolatency runqlat exitsnoop tcpstates bitesize syscount; do
	"$SONDE" tools --names | grep -qx "$t" || continue
	s=$(first_line "$SONDE" "$t")
	line=$(printf '  %-11s sonde %ss' "$t" "$s")
	if [ -x /usr/sbin/$t ]; then	# stdbuf: libbpf-tools' stdout to a pipe is block-buffered
		l=$(first_line stdbuf -oL /usr/sbin/$t)
		line="$line$(printf '  libbpf-tools %ss  sonde/libbpf-tools = %s' "$l" "$(ratio "$s" "$l")")"
	fi
	if [ -r /usr/sbin/$t.bt ] && command -v bpftrace >/dev/null; then
		b=$(first_line bpftrace /usr/sbin/$t.bt)
		[ "$b" = nan ] || line="$line$(printf '  bpftrace %ss  sonde/bpftrace = %s' "$b" "$(ratio "$s" "$b")")"
	fi
	if command -v $t-bpfcc >/dev/null; then
		p=$(first_line $t-bpfcc)
		[ "$p" = nan ] && line="$line  (BCC python: does not run here)" ||
			line="$line$(printf '  bcc %ss  sonde/bcc = %s' "$p" "$(ratio "$s" "$p")")"
	fi
	echo "$line"
done

# cost_per_event EVENTS TOOLCMD...: ns per event the tool adds to the workload $W
cost_per_event() {
	local n=$1 base traced
	shift
	base=$(best_of 5 $W)
	"$@" >/dev/null 2>&1 &
	local pid=$!
	sleep 2	# attached (a bench: timing is what it measures)
	traced=$(best_of 5 $W)
	kill -INT $pid; wait $pid 2>/dev/null
	# the untraced time again, after: a machine busy with something else slows both alike
	local again
	again=$(best_of 5 $W)
	base=$(awk -v a="$base" -v b="$again" 'BEGIN { print (a < b ? a : b) }')
	awk -v a="$traced" -v b="$base" -v n="$n" 'BEGIN { d = (a - b) * 1e9 / n; if (d < 0) d = 0; printf "%.0f", d }'
}
echo
echo "cost per event (ns added per event, workload best of 5):"
EV=200000
W="$BUILD/workloads/syscalls $EV"
if [ -x "$BUILD/workloads/syscalls" ]; then
	for t in opensnoop syscount; do
		"$SONDE" tools --names | grep -qx "$t" || continue
		s=$(cost_per_event $((EV * 2)) "$SONDE" $t)
		line=$(printf '  %-11s sonde %s ns' "$t" "$s")
		if [ -x /usr/sbin/$t ]; then
			l=$(cost_per_event $((EV * 2)) /usr/sbin/$t)
			line="$line$(printf '  libbpf-tools %s ns  sonde/libbpf-tools = %s' "$l" "$(ratio "$s" "$l")")"
		fi
		echo "$line"
	done
fi
W="$BUILD/workloads/pingpong"
if [ -x "$W" ] && "$SONDE" tools --names | grep -qx runqlat; then
	s=$(cost_per_event 100000 "$SONDE" runqlat)
	l=$(cost_per_event 100000 /usr/sbin/runqlat)
	printf '  %-11s sonde %s ns  libbpf-tools %s ns  sonde/libbpf-tools = %s  (per 1e5 switches of pingpong)\n' runqlat "$s" "$l" "$(ratio "$s" "$l")"
fi

# biolatency: O_DIRECT writes of 4 KiB to a loop device, one block request each (and as many on the
# disk under the backing file): the tracepoints block_rq_issue/complete (and insert) per request
IMG=$(mktemp /tmp/sonde-bench-disk.XXXXXX)
truncate -s 64M "$IMG"
if LOOP=$(losetup -f --show "$IMG" 2>/dev/null); then
	EV=20000
	W="dd if=/dev/zero of=$LOOP bs=4k count=$EV oflag=direct"
	s=$(cost_per_event $EV "$SONDE" biolatency)
	line=$(printf '  %-11s sonde %s ns' biolatency "$s")
	if [ -x /usr/sbin/biolatency ]; then
		l=$(cost_per_event $EV /usr/sbin/biolatency)
		line="$line$(printf '  libbpf-tools %s ns  sonde/libbpf-tools = %s' "$l" "$(ratio "$s" "$l")")"
	fi
	echo "$line  (per 4 KiB O_DIRECT write to a loop device)"
	losetup -d "$LOOP"
fi
rm -f "$IMG"
