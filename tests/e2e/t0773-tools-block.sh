#!/bin/bash
# t0773: the block I/O tools (biosnoop, biolatency, bitesize) on a loop device of
# this test's own: dd with O_DIRECT writes exactly N requests of 4096 bytes (and
# reads 3 of 8192) to a known disk, so each tool's answer is known exactly. Where
# Debian's libbpf-tools runs here (biolatency, bitesize), it watches the same
# workload at the same time and both outputs are compared.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'the tools take BCC options: biolatency -D is --disks, -d DISK; biosnoop [duration]' '
	$SONDE tool biolatency --help >help &&
	head -1 help |
		grep -q "^usage: biolatency \[-h\] \[-T\] \[-Q\] \[-m\] \[-D\] \[-F\] \[-e\] \[-d DISK\] \[interval\] \[count\]$" &&
	grep -q "^  -D, --disks  " help &&
	$SONDE tool biosnoop --help | head -1 | grep -q "^usage: biosnoop \[-h\] \[-Q\] \[-d DISK\] \[duration\]$" &&
	$SONDE tool bitesize --help | head -1 |
		grep -q "^usage: bitesize \[-h\] \[-T\] \[-c COMM\] \[-d DISK\] \[interval\] \[count\]$"
'
require_root 'the block tools'
command -v losetup >/dev/null || _skip_script 'the block tools' 'no losetup'
truncate -s 16M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || _skip_script 'the block tools' 'no loop device here'
# the loop device goes whatever happens: on exit, and on Ctrl-C or a kill
trap 'losetup -d "$LOOP"; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP
DISK=${LOOP#/dev/}
TAB=$(printf "\t")
export LOOP DISK TAB
N=12

# N direct 4 KiB writes from block 100 on (sectors 800, 808, ...), then 3 direct 8 KiB reads;
# DD_PIDS: the two dd processes
trigger() {
	dd if=/dev/zero of="$LOOP" bs=4k count=$N seek=100 oflag=direct 2>/dev/null &
	DD_PIDS=$!
	wait $!
	dd if="$LOOP" of=/dev/null bs=8k count=3 iflag=direct 2>/dev/null &
	DD_PIDS="$DD_PIDS $!"
	wait $!
	sleep 0.2
}

# the counts of a histogram section's rows: the section from its line $2 in file $1, summed
section_total() {
	awk -v s="$2" '$0 == s { on = 1; next } on && / -> / { n += $5; next } on && !/usecs|msecs|Kbytes/ { on = 0 }
		END { print n + 0 }' "$1"
}

test_expect_success 'disk_name(args->dev) names the loop device at a block tracepoint' '
	# "Attaching 1 probe..." comes before the attach, as bpftrace prints it; with -q, BEGIN runs
	# once the probes are attached, so its line says the tracepoint is live
	tool_start out $SONDE probe -q -e "BEGIN { printf(\"ready\n\"); } tracepoint:block:block_rq_issue {
		printf(\"%s %s %d\n\", disk_name(args->dev), args->rwbs, args->bytes); }" &&
	trigger && tool_stop &&
	{ test $(grep -c "^$DISK WS 4096$" out) -eq $N && test $(grep -c "^$DISK RS 8192$" out) -eq 3 ||
		{ echo "the requests seen:"; sort out | uniq -c; exit 1; }; }
'
test_expect_success 'biosnoop: the N writes and 3 reads of dd on the loop device, with pid, sector and size' '
	tool_start out $SONDE tool biosnoop && trigger && tool_stop &&
	head -1 out >hdr &&
	printf "%-11s %-14s %-7s %-7s %-4s %-10s %-7s %7s\n" "TIME(s)" COMM PID DISK T SECTOR BYTES "LAT(ms)" >want &&
	test_cmp want hdr &&
	set -- $DD_PIDS &&
	grep " $DISK " out >lines && test $(wc -l <lines) -eq $((N + 3)) &&
	for i in $(seq 0 $((N - 1))); do
		grep -q "^[0-9]*\.[0-9]\{6\}  *dd  *$1  *$DISK  *WS  *$((800 + 8 * i))  *4096  *[0-9]*\.[0-9]\{3\}$" lines || exit 1
	done &&
	test $(grep -c "^[0-9. ]*dd  *$2  *$DISK  *RS  *[0-9]*  *8192  " lines) -eq 3 &&
	awk "{ if (length(\$1) < 8 || substr(\$0, 12, 1) != \" \") exit 1 }" lines
'
test_expect_success 'biosnoop -d DISK: that disk only; -d with another name: none of its I/O' '
	tool_start out $SONDE tool biosnoop -d "$DISK" && trigger && tool_stop &&
	test $(grep -c " $DISK  *WS " out) -eq $N && test $(sed 1d out | grep -vc " $DISK ") -eq 0 &&
	tool_start out $SONDE tool biosnoop -d nosuchdisk && trigger && tool_stop &&
	test $(wc -l <out) -eq 1
'
test_expect_success 'biosnoop -Q: QUE(ms) is 0.000 without a scheduler, a time with mq-deadline' '
	tool_start out $SONDE tool biosnoop -Q -d "$DISK" && trigger && tool_stop &&
	head -1 out | grep -q " BYTES   QUE(ms) LAT(ms)$" &&
	test $(grep -c " WS  *[0-9]*  *4096  *  0\.000  *[0-9]*\.[0-9]\{3\}$" out) -eq $N &&
	if echo mq-deadline >/sys/block/$DISK/queue/scheduler 2>/dev/null; then
		tool_start out $SONDE tool biosnoop -Q -d "$DISK" && trigger && tool_stop
		echo none >/sys/block/$DISK/queue/scheduler
		test $(grep -c " WS  *[0-9]*  *4096  *  [0-9]*\.[0-9]\{3\}  *[0-9]*\.[0-9]\{3\}$" out) -eq $N &&
		! grep -q -- "-1\.000" out
	fi
'
test_expect_success 'biosnoop 1: ends by itself after its duration' '
	timeout 20 $SONDE tool biosnoop 1 >out && head -1 out | grep -q "^TIME(s) "
'

test_expect_success "biolatency -D: a section for the loop device with the N writes and 3 reads" '
	tool_start out $SONDE tool biolatency -D && trigger && tool_stop &&
	head -3 out >hdr && printf "Tracing block device I/O... Hit Ctrl-C to end.\n\n\n" >want && test_cmp want hdr &&
	test $(grep -c "^disk = $DISK$TAB$" out) -eq 1 &&
	test $(section_total out "disk = $DISK$TAB") -eq $((N + 3)) &&
	grep -A1 "^disk = $DISK$TAB$" out | tail -1 | grep -q "^     usecs               : count    distribution$"
'
test_expect_success 'biolatency -F -d DISK -e -m: Idle-Sync-Write has the N writes; the avg line counts all' '
	tool_start out $SONDE tool biolatency -F -d "$DISK" -e -m && trigger && tool_stop &&
	test $(section_total out "flags = Idle-Sync-Write") -eq $N &&
	test $(section_total out "flags = Sync-Read") -eq 3 &&
	grep -A1 "^flags = Sync-Read$" out | tail -1 | grep -q "^     msecs  " &&
	grep -q "^avg = [0-9]* msecs, total: [0-9]* msecs, count: $((N + 3))$" out &&
	test $(grep -c "^flags = " out) -eq 2
'
test_expect_success 'biolatency -T 1 2: two outputs a second apart, each after its time, then it ends' '
	timeout 20 $SONDE tool biolatency -T -d "$DISK" 1 2 >out &&
	printf "Tracing block device I/O... Hit Ctrl-C to end.\n\n" >want && head -2 out >hdr && test_cmp want hdr &&
	test $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" out) -eq 2 && test $(wc -l <out) -eq 5
'
test_expect_success "biolatency -D -F: the same sections and totals as libbpf-tools' biolatency, run alongside" '
	test -x /usr/sbin/biolatency || { echo "libbpf-tools is not installed (make test installs it)"; exit 1; }
	tool_start ref stdbuf -oL /usr/sbin/biolatency -D -F -d "$DISK" && P=$TOOL_PID &&
	tool_start out $SONDE tool biolatency -D -F -d "$DISK" &&
	trigger && kill -INT $P && wait $P && tool_stop &&
	for f in ref out; do
		grep "^disk = " $f | sort >$f.sections
		for s in "disk = $DISK${TAB}flags = Idle-Sync-Write" "disk = $DISK${TAB}flags = Sync-Read"; do
			section_total $f "$s"
		done >$f.totals
		head -3 $f >$f.head
		grep " -> " $f | sed -E "s/[0-9]+/N/g; s/\|[* ]{40}\|$/|BAR|/; s/ +/ /g" | sort -u >$f.rows
	done &&
	test_cmp ref.sections out.sections && test_cmp ref.totals out.totals && test_cmp ref.head out.head &&
	test_cmp ref.rows out.rows && printf "%s\n" $N 3 >want && test_cmp want out.totals
'

test_expect_success 'bitesize: a dd section with the N writes in 4 -> 7 and the 3 reads in 8 -> 15' '
	tool_start out $SONDE tool bitesize -d "$DISK" && trigger && tool_stop &&
	printf "Tracing block device I/O... Hit Ctrl-C to end.\n\n\nProcess Name = dd\n" >want &&
	printf "     %-19s : count    distribution\n" Kbytes >>want &&
	printf "%10d -> %-10d : %-8d |%-40s|\n" 0 1 0 "" 2 3 0 "" 4 7 $N "****************************************" \
		8 15 3 "**********" >>want &&
	test_cmp want out
'
test_expect_success 'bitesize -c COMM: commands whose name starts with COMM; -T: the time' '
	tool_start out $SONDE tool bitesize -c d -T -d "$DISK" && trigger && tool_stop &&
	grep -q "^Process Name = dd$" out && sed -n 3p out | grep -q "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" &&
	tool_start out $SONDE tool bitesize -c dx -d "$DISK" && trigger && tool_stop &&
	test $(wc -l <out) -eq 2
'
test_expect_success "bitesize: the same output as libbpf-tools' bitesize, run alongside" '
	test -x /usr/sbin/bitesize || { echo "libbpf-tools is not installed (make test installs it)"; exit 1; }
	tool_start ref stdbuf -oL /usr/sbin/bitesize -c dd -d "$DISK" && P=$TOOL_PID &&
	tool_start out $SONDE tool bitesize -c dd -d "$DISK" &&
	trigger && kill -INT $P && wait $P && tool_stop &&
	test_cmp ref out
'
test_done
