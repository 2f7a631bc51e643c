#!/bin/bash
# probe.sh - sonde probe vs bpftrace (the issue quotes ~0.25 s and 91 MB for
# `BEGIN { exit(); }`): start-up, peak memory, attach+detach of
# tracepoint:syscalls:sys_enter_* (hundreds of probes), and the time a count()
# probe adds to a syscall-heavy workload. Ratios are sonde/bpftrace.
set -u
. "$(dirname "$0")/lib.sh"
W=$BUILD/workloads/syscalls
N=${N:-7}
if ! command -v bpftrace >/dev/null; then
	echo "probe.sh: bpftrace is not installed (scripts/deps.sh test)"; exit 0
fi

P='BEGIN { exit(); }'
s=$(best_of $N "$SONDE" probe -e "$P")
b=$(best_of $N bpftrace -e "$P")
printf 'BEGIN { exit(); }          sonde %.4fs  bpftrace %.4fs  sonde/bpftrace = %s\n' "$s" "$b" "$(ratio "$s" "$b")"

P='tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); @h = hist(args->__syscall_nr); exit(); }'
s=$(best_of $N "$SONDE" probe -e "$P" -c "$W 10")
b=$(best_of $N bpftrace -e "$P" -c "$W 10")
printf 'tracepoint + maps + exit   sonde %.4fs  bpftrace %.4fs  sonde/bpftrace = %s\n' "$s" "$b" "$(ratio "$s" "$b")"

# a program that reads kernel types: BTF is parsed only then (~10 MB, ~15 ms here)
P='BEGIN { printf("%d\n", curtask->real_parent->pid); exit(); }'
s=$(best_of $N "$SONDE" probe -e "$P")
b=$(best_of $N bpftrace -e "$P")
printf 'BTF: curtask->...          sonde %.4fs  bpftrace %.4fs  sonde/bpftrace = %s\n' "$s" "$b" "$(ratio "$s" "$b")"

t=$(mktemp)
/usr/bin/time -f %M -o "$t" "$SONDE" probe -e 'BEGIN { exit(); }' >/dev/null 2>&1; rss_s=$(tail -1 "$t")
/usr/bin/time -f %M -o "$t" bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; rss_b=$(tail -1 "$t")
printf 'peak RSS, BEGIN            sonde %s KB  bpftrace %s KB  sonde/bpftrace = %s\n' "$rss_s" "$rss_b" "$(ratio "$rss_s" "$rss_b")"
/usr/bin/time -f %M -o "$t" "$SONDE" probe -e "$P" >/dev/null 2>&1; rss_s=$(tail -1 "$t")
/usr/bin/time -f %M -o "$t" bpftrace -e "$P" >/dev/null 2>&1; rss_b=$(tail -1 "$t")
printf 'peak RSS, BTF              sonde %s KB  bpftrace %s KB  sonde/bpftrace = %s\n' "$rss_s" "$rss_b" "$(ratio "$rss_s" "$rss_b")"

# hundreds of tracepoints: attach, first interval tick, exit, detach
P='tracepoint:syscalls:sys_enter_* { @[probe] = count(); } interval:ms:100 { exit(); }'
n=$("$SONDE" probe -e "$P" 2>/dev/null | sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p')
s=$(best_of 1 "$SONDE" probe -e "$P")
b=$(best_of 1 timeout 120 bpftrace -e "$P")
printf 'sys_enter_* (%s probes)   sonde %.3fs  bpftrace %.3fs  sonde/bpftrace = %s\n' "$n" "$s" "$b" "$(ratio "$s" "$b")"

# many uprobes: attach, first tick, exit, detach (sonde's uprobe_multi links, its
# perf-event path, and bpftrace 0.17's perf events)
L=$(realpath /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null || echo libc)
P="uprobe:$L:str* { @[probe] = count(); } interval:ms:100 { exit(); }"
n=$("$SONDE" probe -e "$P" 2>/dev/null | sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p')
s=$(best_of 1 "$SONDE" probe -e "$P")
p=$(SONDE_NO_UPROBE_MULTI=1 best_of 1 "$SONDE" probe -e "$P")
b=$(best_of 1 timeout 120 bpftrace -e "$P")
printf 'libc str* uprobes (%s)     sonde %.3fs  (perf path %.3fs)  bpftrace %.3fs  sonde/bpftrace = %s\n' "$n" "$s" "$p" "$b" "$(ratio "$s" "$b")"

# per-event cost: a count() on every syscall of 200,000 x (getppid, open, close, write)
base=$(best_of 5 $W 200000)
P='tracepoint:raw_syscalls:sys_enter { @[pid] = count(); }'
s=$(best_of 5 "$SONDE" probe -e "$P" -c "$W 200000")
b=$(best_of 5 bpftrace -e "$P" -c "$W 200000")
printf 'count() on raw_syscalls    sonde %.4fs  bpftrace %.4fs  (bare %.4fs)  sonde/bpftrace = %s\n' "$s" "$b" "$base" "$(ratio "$s" "$b")"
printf '  time added               sonde %.4fs  bpftrace %.4fs\n' "$(added "$s" "$base")" "$(added "$b" "$base")"
rm -f "$t"
