#!/bin/bash
# t0775: the top tools (filetop, biotop, tcptop, slabratetop) and oomkill. Each
# top tool prints, every interval, the time and /proc/loadavg, a header and its
# rows, largest first, at most -r of them; a trigger with a known answer (N reads
# of a known size, a direct-I/O dd, a loopback transfer of known bytes, N opens)
# is found in the one interval the tool prints (`TOOL -C 3 1`).
. "$(dirname "$0")/../lib.sh"

test_expect_success 'the top tools: argparse help from their headers, a bad -s refused' '
	$SONDE filetop --help >help &&
	grep -q "^usage: filetop \[-h\] \[-C\] \[-r ROWS\] \[-s SORT\] \[-a\] \[-p PID\] \[interval\] \[count\]" help &&
	$SONDE slabratetop --help | grep -q "^  -s SORT, --sort SORT" &&
	rc=0 && $SONDE filetop -s nosuch >out 2>err || rc=$?
	test $rc -ne 0 && grep -q "invalid sort method: nosuch" err
'
require_root 'the tools run on this kernel'

# run a tool that prints once after 3 s (`-C 3 1`): start it, wait for its header,
# run the trigger, wait for the tool to end by itself
top_run() {
	local out=$1
	shift
	tool_start "$out" "$@" &&
	trigger && wait $TOOL_PID && cat "$out"
}
# the lines of the one interval printed: "HH:MM:SS loadavg: ...", a blank line, the header, rows, a blank line
check_layout() {
	sed -n 2p "$1" | grep -qE "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] loadavg: [0-9.]+ [0-9.]+ [0-9.]+ [0-9]+/[0-9]+ [0-9]+$" &&
	test -z "$(sed -n 3p "$1")" && sed -n 4p "$1" >hdr && test_cmp want-hdr hdr &&
	test -z "$(tail -1 "$1")" && test $(grep -c " loadavg: " "$1") -eq 1
}

DATA=$TMP/sonde-t0775-data
head -c 102400 /dev/urandom >"$DATA"
trigger() { dd if="$DATA" of=/dev/null bs=4096 count=25 2>/dev/null & DD=$!; wait $DD; }
test_expect_success 'filetop: the 25 reads of 4096 bytes of a known file, by dd, in one row' '
	printf "%-7s %-16s %-6s %-6s %-7s %-7s %1s %s\n" TID COMM READS WRITES R_Kb W_Kb T FILE >want-hdr &&
	top_run out $SONDE filetop -C -r 10240 3 1 &&
	head -1 out | grep -q "^Tracing... Output every 3 secs. Hit Ctrl-C to end$" &&
	check_layout out &&
	grep " sonde-t0775-data$" out >rows &&
	printf "%-7d %-16s %-6d %-6d %-7d %-7d %c %s\n" $DD dd 25 0 100 0 R sonde-t0775-data >want && test_cmp want rows &&
	! grep -q " R null$" out
'
test_expect_success 'filetop -a: /dev/null written 25 times (type O); -p only that process' '
	rm -f go && mkfifo go &&
	{ read -t 30 x <>go; exec dd if="$DATA" of=/dev/null bs=4096 count=25 2>dd.err; } & P=$! &&
	trigger() { echo >go; wait $P; } &&
	top_run out $SONDE filetop -C -a -p $P -r 10240 3 1 &&
	printf "%-7s %-16s %-6s %-6s %-7s %-7s %1s %s\n" TID COMM READS WRITES R_Kb W_Kb T FILE >want-hdr &&
	check_layout out &&
	grep -q "^$P  *dd  *0  *25  *0  *100  *O null$" out &&
	grep -q "^$P  *dd  *25  *0  *100  *0  *R sonde-t0775-data$" out &&
	sed -n "5,\$p" out | sed "\$d" | { grep -v "^$P " || true; } >others && ! test -s others
'
test_expect_success 'filetop -s rbytes -r 3: at most 3 rows, by R_Kb, largest first' '
	printf "%-7s %-16s %-6s %-6s %-7s %-7s %1s %s\n" TID COMM READS WRITES R_Kb W_Kb T FILE >want-hdr &&
	trigger() { for i in 1 2 3; do cat /etc/hostname /etc/passwd >/dev/null; done; } &&
	top_run out $SONDE filetop -C -s rbytes -r 3 3 1 &&
	check_layout out &&
	sed -n "5,\$p" out | sed "\$d" >rows && test $(wc -l <rows) -le 3 && test $(wc -l <rows) -ge 1 &&
	awk "{ print \$5 }" rows >kb && sort -rn kb >sorted && test_cmp sorted kb
'

# a process that waits for "go" (30 s at most), then opens a file 1000 times (bash: no fork for `: <file`)
opener() {
	rm -f go && mkfifo go &&
	{ read -t 30 x <>go; exec bash -c "for i in \$(seq 1000); do : </etc/hostname; done"; } & P=$!
	trigger() { echo >go; wait $P; }
}
test_expect_success 'slabratetop -p: 1000 opens by one process are 1000 or more filp allocations' '
	opener &&
	printf "%-32s %6s %10s\n" CACHE ALLOCS BYTES >want-hdr &&
	top_run out $SONDE slabratetop -C -p $P -r 100 3 1 &&
	check_layout out &&
	n=$(awk "\$1 == \"filp\" { print \$2 }" out) && test "$n" -ge 1000 && test "$n" -le 1100 &&
	b=$(awk "\$1 == \"filp\" { print \$3 }" out) && test $((b % n)) -eq 0 &&
	sed -n "5,\$p" out | sed "\$d" | awk "{ print \$3 }" >bytes && sort -rn bytes >sorted && test_cmp sorted bytes
'
test_expect_success 'slabratetop -s name -r 5 and -s count: names in order, counts largest first' '
	printf "%-32s %6s %10s\n" CACHE ALLOCS BYTES >want-hdr &&
	trigger() { ls / >/dev/null; } &&
	top_run out $SONDE slabratetop -C -s name -r 5 3 1 &&
	check_layout out && sed -n "5,\$p" out | sed "\$d" >rows &&
	test $(wc -l <rows) -eq 5 && awk "{ print \$1 }" rows >names && LC_ALL=C sort names >sorted && test_cmp sorted names &&
	top_run out $SONDE slabratetop -C -s count 3 1 &&
	check_layout out && sed -n "5,\$p" out | sed "\$d" | awk "{ print \$2 }" >counts &&
	test $(wc -l <counts) -le 20 && sort -rn counts >sorted && test_cmp sorted counts
'

# 16 direct writes of 64 KiB to a file on a disk: 16 block I/Os of dd's, 1024 Kbytes
trigger() { dd if=/dev/zero of="$TMP/direct" bs=64k count=16 oflag=direct 2>/dev/null & DD=$!; wait $DD; }
if [ "$(stat -f -c %T "$TMP")" = tmpfs ] || ! dd if=/dev/zero of="$TMP/direct" bs=64k count=1 oflag=direct 2>/dev/null; then
	test_skip 'biotop: dd oflag=direct is 16 writes, 1024 Kbytes' "no direct I/O to a disk in $TMP"
else
test_expect_success 'biotop: dd oflag=direct is 16 writes, 1024 Kbytes, in one row; -s io -r 2 cuts and sorts' '
	printf "%-7s %-16s %1s %-3s %-3s %-8s %5s %7s %6s\n" PID COMM D MAJ MIN DISK I/O Kbytes AVGms >want-hdr &&
	top_run out $SONDE biotop -C -r 10240 3 1 &&
	check_layout out &&
	grep -E "^$DD +dd +W " out >rows && test $(wc -l <rows) -eq 1 &&
	grep -qE "^$DD +dd +W [0-9]+ +[0-9]+ +[a-z0-9]+ +16 +1024 +[0-9]+\.[0-9][0-9]$" rows &&
	test "$(cut -c1-35 rows)" = "$(printf "%-7d %-16s %1s " $DD dd W)$(awk "{ printf \"%-3d %-3d \", \$4, \$5 }" rows)" &&
	top_run out $SONDE biotop -C -s io -r 2 3 1 &&
	check_layout out && sed -n "5,\$p" out | sed "\$d" >rows && test $(wc -l <rows) -le 2 &&
	awk "{ print \$7 }" rows >ios && sort -rn ios >sorted && test_cmp sorted ios
'
fi

# a loopback TCP transfer of known bytes, each way, in IPv4 and in IPv6
cat >"$TMP/xfer.py" <<'PYEOF'
import select, socket, sys, threading
print("ready", flush=True)  # its imports done: at load 8 they took longer than the 3 s interval
select.select([sys.stdin], [], [], 30)  # "go" (30 s at most): python has started before the tool
def xfer(fam, host, up, down):
    s = socket.socket(fam); s.bind((host, 0)); s.listen()
    c = socket.create_connection(s.getsockname()[:2]); a, _ = s.accept()
    def rd(sock, n):
        while n > 0: n -= len(sock.recv(min(n, 65536)))
    t = threading.Thread(target=rd, args=(a, up)); t.start(); c.sendall(b"x" * up); t.join()
    t = threading.Thread(target=rd, args=(c, down)); t.start(); a.sendall(b"y" * down); t.join()
xfer(socket.AF_INET, "127.0.0.1", 300 * 1024, 5000 * 1024)
xfer(socket.AF_INET6, "::1", 20 * 1024, 7 * 1024)
PYEOF
# the transfer waits for "go" with python started, so that it fits in the tool's interval
py_ready() { for _ in $(seq 600); do grep -q ready py.out 2>/dev/null && return 0; sleep 0.05; done; echo "python3 did not start in 30 s"; return 1; }
test_expect_success 'tcptop: 300 KB one way and 5000 KB back on loopback, then 20 and 7 KB on IPv6' '
	rm -f go && mkfifo go &&
	{ exec python3 "$TMP/xfer.py" <>go >py.out; } & PY=$! && py_ready &&
	trigger() { echo >go; wait $PY; } &&
	printf "%-6s %-12s %-21s %-21s %6s %6b" PID COMM LADDR RADDR RX_KB "TX_KB\n" >want-hdr &&
	top_run out $SONDE tcptop -C 3 1 &&
	check_layout out &&
	grep "^$PY " out >rows && test $(wc -l <rows) -eq 4 &&
	grep -qE "^$PY +python3 +127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:[0-9]+ +5000 +300$" rows &&
	grep -qE "^$PY +python3 +127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:[0-9]+ +300 +5000$" rows &&
	grep -qE "^$PY +python3 +::1:[0-9]+ +::1:[0-9]+ +7 +20$" rows &&
	grep -qE "^$PY +python3 +::1:[0-9]+ +::1:[0-9]+ +20 +7$" rows &&
	printf "\n%-6s %-12s %-51s %-51s %6s %6b" PID COMM LADDR6 RADDR6 RX_KB "TX_KB\n" >want6 &&
	grep -B1 "^PID .*LADDR6" out >hdr6 && test_cmp want6 hdr6 &&
	grep "^$PY .*::1:" rows | cut -c1-72 | grep -qE ":[0-9]+ +$" &&
	grep "^$PY .*127\.0\.0\.1:" rows | cut -c1-42 | grep -qE ":[0-9]+ +$"
'
test_expect_success 'tcptop -4 -S -p: that process, IPv4 only, no loadavg line' '
	rm -f go && mkfifo go &&
	{ exec python3 "$TMP/xfer.py" <>go >py.out; } & P=$! && py_ready &&
	trigger() { echo >go; wait $P; } &&
	top_run out $SONDE tcptop -C -S -4 -p $P 3 1 &&
	! grep -q loadavg out && ! grep -q LADDR6 out &&
	sed -n "2,\$p" out | grep -v "^$" >rows && test $(wc -l <rows) -eq 3 &&
	sed 1d rows | { grep -v "^$P " || true; } >others && ! test -s others
'

# an OOM kill inside a memory cgroup limited to 32 MB (cgroup v1's memory controller,
# or a cgroup v2 directory with memory.max): a python3 that fills 200 MB is killed
CG=
if [ -w /sys/fs/cgroup/memory/cgroup.procs ] && mkdir /sys/fs/cgroup/memory/sonde-t0775-$$ 2>/dev/null; then
	CG=/sys/fs/cgroup/memory/sonde-t0775-$$
	echo 32M >$CG/memory.limit_in_bytes 2>/dev/null || { rmdir $CG; CG=; }
fi
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -z "$CG" ] && grep -qw memory $d/cgroup.subtree_control 2>/dev/null && mkdir $d/sonde-t0775-$$ 2>/dev/null &&
		CG=$d/sonde-t0775-$$ && { echo 32M >$CG/memory.max 2>/dev/null || { rmdir $CG; CG=; }; }
done
if [ -z "$CG" ]; then
	test_skip 'oomkill: one line for an OOM kill in a memory cgroup' 'no memory cgroup could be made here'
else
export CG
test_expect_success 'oomkill: one line for an OOM kill in a 32 MB memory cgroup, 8192 pages' '
	tool_start out $SONDE oomkill &&
	head -1 out | grep -q "^Tracing OOM kills... Ctrl-C to stop.$" &&
	rc=0 && sh -c "echo \$\$ >$CG/cgroup.procs && exec python3 -c \"s = b\\\"a\\\" * (200 << 20)\"" || rc=$?
	test $rc -eq 137 && sleep 0.5 && tool_stop && cat out &&
	test $(wc -l <out) -eq 2 &&
	grep -qE "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] Triggered by PID [0-9]+ \(\"python3\"\), OOM kill of PID [0-9]+ \(\"python3\"\), 8192 pages, loadavg: [0-9.]+ [0-9.]+ [0-9.]+ [0-9]+/[0-9]+ [0-9]+$" out
'
rmdir $CG 2>/dev/null
fi
test_done
