#!/bin/bash
# t0772: the file tools (opensnoop, statsnoop, filelife, fsslower and its
# aliases, fileslower, vfsstat, cachestat): each with a trigger from this test's
# shell whose answer is known (N opens of one file, N stats, one short-lived
# file, an fsync...), and the same header and columns as libbpf-tools' tool of
# that name where that one runs here.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'the file tools answer --help with their options' '
	$SONDE opensnoop --help >help && grep -q "^  -f FLAG, --flag-filter FLAG" help &&
	$SONDE statsnoop --help | grep -q "^usage: statsnoop \[-h\] \[-t\] \[-x\] \[-p PID\]"
'
require_root 'the file tools run on this kernel'

# bash opens the file itself for a redirection: 5 opens and one failed open, all by $BASHPID
open_trigger() {
	for i in 1 2 3 4 5; do : <"$TMP/t0772-open"; done
	{ : <"$TMP/t0772-missing"; } 2>/dev/null || true
}
test_expect_success 'opensnoop: the 5 opens of a file (FD, ERR 0) and the failed one (-1, ENOENT)' '
	: >t0772-open && me=$BASHPID &&
	tool_start out $SONDE opensnoop -p $me &&
	open_trigger && sleep 0.2 && tool_stop &&
	head -1 out >hdr && printf "%-6s %-16s %3s %3s PATH\n" PID COMM FD ERR >want && test_cmp want hdr &&
	test $(grep -c "^$me  *bash  *[0-9]  *0 $TMP/t0772-open$" out) -eq 5 &&
	test $(grep -c "^$me  *bash  *-1   2 $TMP/t0772-missing$" out) -eq 1 &&
	test $(grep -c t0772 out) -eq 6
'
test_expect_success 'opensnoop -x -T -U -e: the failed open only, with time, UID and flags columns' '
	tool_start out $SONDE opensnoop -x -T -U -e -p $BASHPID &&
	open_trigger && sleep 0.2 && tool_stop &&
	head -1 out | grep -q "^TIME     UID     PID    COMM              FD ERR FLAGS    PATH$" &&
	test $(grep -c t0772 out) -eq 1 && ! grep -q "   0 [0-7]\{8\} " out &&
	grep -q "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] 0       $BASHPID  *bash  *-1   2 00000000 $TMP/t0772-missing$" out
'
test_expect_success 'opensnoop -f O_WRONLY -e: only the open for writing (O_WRONLY|O_CREAT|O_TRUNC)' '
	tool_start out $SONDE opensnoop -e -f O_WRONLY -t $BASHPID &&
	open_trigger && : >"$TMP/t0772-write" && sleep 0.2 && tool_stop &&
	test $(grep -c t0772 out) -eq 1 && grep -q " 00001101 $TMP/t0772-write$" out &&
	rc=0 && $SONDE opensnoop -f O_NOSUCH 2>err || rc=$?
	test $rc -ne 0 && grep -q "bad flag" err
'
test_expect_success 'opensnoop -F: a relative path with the working directory; -n and -u filter' '
	tool_start out $SONDE opensnoop -F -p $BASHPID &&
	: <t0772-open && sleep 0.2 && tool_stop &&
	grep -q "^$BASHPID  *bash  *[0-9]  *0 $TMP/t0772-open$" out &&
	tool_start out $SONDE opensnoop -n nosuchname &&
	open_trigger && sleep 0.2 && tool_stop &&
	test $(wc -l <out) -eq 1 &&
	tool_start out $SONDE opensnoop -u $(id -u) -p $BASHPID &&
	open_trigger && sleep 0.2 && tool_stop && test $(grep -c t0772 out) -eq 6 &&
	tool_start out $SONDE opensnoop -u 54321 -p $BASHPID &&
	open_trigger && sleep 0.2 && tool_stop && test $(wc -l <out) -eq 1
'
test_expect_success 'opensnoop -d 1 ends by itself after a second' '
	timeout 20 $SONDE opensnoop -d 1 -p $BASHPID >out && test $(wc -l <out) -eq 1
'
test_expect_success "opensnoop -T -U -e -x, -e: the same header and lines as libbpf-tools' opensnoop" '
	test -x /usr/sbin/opensnoop || { echo "libbpf-tools is not installed (make test installs it)"; exit 1; }
	for t in "$SONDE opensnoop" "stdbuf -oL /usr/sbin/opensnoop"; do
		tool_start out $t -T -U -e -x -p $BASHPID && open_trigger && sleep 0.2 && tool_stop
		{ head -1 out; grep t0772-missing out; } | sed -E "s/[0-9:]+ +/N /g" >>both
		tool_start out $t -e -p $BASHPID && open_trigger && sleep 0.2 && tool_stop
		{ head -1 out; grep t0772 out; } | sed -E "s/^[0-9]+ +/N /" >>both
	done &&
	test $(wc -l <both) -eq 18 && head -9 both >a && tail -9 both >b && test_cmp b a
'
# bash's test -e is a stat (newfstatat): 4 of an existing file and one of a missing one
stat_trigger() {
	for i in 1 2 3 4; do test -e "$TMP/t0772-stat"; done
	test -e "$TMP/t0772-nostat" || true
}
test_expect_success 'statsnoop: the 4 stats of a file (RET 0) and the failed one (-1, ENOENT)' '
	: >t0772-stat && me=$BASHPID &&
	tool_start out $SONDE statsnoop -p $me &&
	stat_trigger && sleep 0.2 && tool_stop &&
	head -1 out >hdr && printf "%-7s %-20s %-4s %-4s %-s\n" PID COMM RET ERR PATH >want && test_cmp want hdr &&
	test $(grep -c "^$me  *bash  *0    0    $TMP/t0772-stat$" out) -eq 4 &&
	test $(grep -c "^$me  *bash  *-1   2    $TMP/t0772-nostat$" out) -eq 1 &&
	test $(grep -c t0772 out) -eq 5
'
test_expect_success 'statsnoop -t -x: the failed stat only, after seconds with 9 decimals' '
	me=$BASHPID &&
	tool_start out $SONDE statsnoop -t -x -p $me &&
	stat_trigger && sleep 0.2 && tool_stop &&
	head -1 out | grep -q "^TIME(s)        PID     COMM                 RET  ERR  PATH$" &&
	test $(grep -c t0772 out) -eq 1 &&
	grep -Eq "^[0-9]+\.[0-9]{9} +$me +bash +-1   2    $TMP/t0772-nostat$" out &&
	grep t0772 out | cut -c16- | grep -q "^$me  *bash "
'
test_expect_success "statsnoop -t: the header of libbpf-tools' statsnoop (0.26 traces nothing here)" '
	test -x /usr/sbin/statsnoop || { echo "libbpf-tools is not installed (make test installs it)"; exit 1; }
	tool_start out $SONDE statsnoop -t && tool_stop &&
	tool_start out2 stdbuf -oL /usr/sbin/statsnoop -t && tool_stop &&
	head -1 out >a && head -1 out2 >b && test_cmp b a
'
# a file that lives 0.5 s: created by bash (openat, FMODE_CREATED), deleted by rm
test_expect_success 'filelife: the file, deleted by rm, with an age of at least 0.5 s' '
	me=$BASHPID &&
	tool_start out $SONDE filelife &&
	: >"$TMP/t0772-life" && sleep 0.5 && rm "$TMP/t0772-life" && sleep 0.2 && tool_stop &&
	head -1 out | grep -q "^Tracing the lifespan of short-lived files ... Hit Ctrl-C to end.$" &&
	sed -n 2p out >hdr && printf "%-8s %-6s %-16s %-7s %s\n" TIME PID COMM "AGE(s)" FILE >want && test_cmp want hdr &&
	grep " t0772-life$" out >got && test $(wc -l <got) -eq 1 &&
	grep -Eq "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] [0-9]+ +rm +[0-9]+\.[0-9][0-9] +t0772-life$" got &&
	age=$(awk "{print \$4 * 100}" got) && test $age -ge 50 && test $age -lt 1000
'
test_expect_success 'filelife -p: only files that process created; a fifo by mknod; a file kept is not shown' '
	me=$BASHPID &&
	tool_start out $SONDE filelife -p $me &&
	: >"$TMP/t0772-mine" && sh -c ": >\"$TMP/t0772-theirs\"" && : >"$TMP/t0772-kept" &&
	rm "$TMP/t0772-mine" "$TMP/t0772-theirs" && sleep 0.2 && tool_stop &&
	test $(grep -c t0772 out) -eq 1 && grep -q " t0772-mine$" out &&
	tool_start out $SONDE filelife &&
	mkfifo t0772-fifo && rm t0772-fifo && sleep 0.2 && tool_stop &&
	grep -Eq " rm +[0-9.]+ +t0772-fifo$" out
'
test_expect_success 'filelife off ext4 (tmpfs): matched by path, named by the file; a fifo by its path' '
	test "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs || { echo "skipped: no tmpfs at /dev/shm"; exit 0; }
	d=/dev/shm/t0772-$BASHPID && mkdir $d &&
	tool_start out $SONDE filelife &&
	: >$d/t0772-shm && mkfifo $d/t0772-shmfifo && rm $d/t0772-shm $d/t0772-shmfifo && rmdir $d &&
	sleep 0.2 && tool_stop &&
	grep -Eq "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] [0-9]+ +rm +[0-9]+\.[0-9][0-9] +t0772-shm$" out &&
	grep -Eq " rm +[0-9]+\.[0-9][0-9] +$d/t0772-shmfifo$" out
'
# dd, held on a fifo until the tool runs (so its pid is known): an open, two
# writes of 4 KiB and an fsync of t0772-fs, a file on the file system of $TMP
fs_trigger() {
	rm -f go && mkfifo go &&
	{ read -r _ <go; exec dd if=/dev/zero of="$TMP/t0772-fs" bs=4096 count=2 conv=fsync 2>/dev/null; } &
	ddpid=$!
}
fs_go() { echo go >go && wait $ddpid && sleep 0.2; }
test_expect_success 'fsslower -m 0 on the file system of the file: its open, 2 writes and fsync, in order' '
	fs=$(stat -f -c %T .) && case $fs in ext2/ext3) fs=ext4 ;; esac &&
	fs_trigger && tool_start out $SONDE fsslower -t $fs -m 0 -p $ddpid && fs_go && tool_stop &&
	head -1 out | grep -q "^Tracing $fs operations... Hit Ctrl-C to end.$" &&
	sed -n 2p out >hdr &&
	printf "%-8s %-16s %-7s %1s %-7s %-8s %7s %s\n" TIME COMM PID T BYTES OFF_KB "LAT(ms)" FILENAME >want &&
	test_cmp want hdr &&
	grep " t0772-fs$" out | cut -c10- | sed -E "s/[ 0-9]{4}\.[0-9]{2} t0772-fs$/NNNN.NN t0772-fs/" >got &&
	printf "dd               %-7d O 0       0        NNNN.NN t0772-fs\n" $ddpid >want &&
	printf "dd               %-7d W 4096    0        NNNN.NN t0772-fs\n" $ddpid >>want &&
	printf "dd               %-7d W 4096    4        NNNN.NN t0772-fs\n" $ddpid >>want &&
	printf "dd               %-7d F LL_MAX  0        NNNN.NN t0772-fs\n" $ddpid >>want &&
	test_cmp want got &&
	grep -Eq "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] dd .* +[0-9]+\.[0-9][0-9] t0772-fs$" out
'
test_expect_success 'ext4slower (an alias) -c: CSV lines; xfsslower, btrfsslower and nfsslower see none of them' '
	test "$(stat -f -c %T .)" = ext2/ext3 || { echo "skipped: $TMP is not on ext4"; exit 0; }
	fs_trigger && tool_start out $SONDE ext4slower -c -m 0 -p $ddpid && fs_go && tool_stop &&
	head -1 out | grep -q "^ENDTIME_ns,TASK,PID,TYPE,BYTES,OFFSET_b,LATENCY_us,FILE$" &&
	grep ",t0772-fs$" out | cut -d, -f2-5,8 >got &&
	printf "dd,$ddpid,O,0,t0772-fs\ndd,$ddpid,W,4096,t0772-fs\ndd,$ddpid,W,4096,t0772-fs\ndd,$ddpid,F,LL_MAX,t0772-fs\n" >want &&
	test_cmp want got && grep ",W,4096,4096,[0-9]*,t0772-fs$" out &&
	ln -s "$SONDE" xfsslower && ln -s "$SONDE" btrfsslower && ln -s "$SONDE" nfsslower &&
	for t in ./xfsslower ./btrfsslower ./nfsslower; do
		fs_trigger && tool_start out $t -m 0 -p $ddpid && fs_go && tool_stop &&
		test $(wc -l <out) -eq 2 || exit 1
	done
'
test_expect_success 'fileslower 0 (BCC Python'"'"'s): the 2 writes of 4 KiB, with TID and BYTES; 10000 shows none' '
	fs_trigger && tool_start out $SONDE fileslower -p $ddpid 0 && fs_go && tool_stop &&
	head -1 out | grep -q "^Tracing sync read/writes slower than 0 ms$" &&
	sed -n 2p out >hdr && printf "%-8s %-14s %-6s %1s %-7s %7s %s\n" "TIME(s)" COMM TID D BYTES "LAT(ms)" FILENAME >want &&
	test_cmp want hdr &&
	grep " t0772-fs$" out | cut -c10- | sed -E "s/[ 0-9]{4}\.[0-9]{2} t0772-fs$/NNNN.NN t0772-fs/" >got &&
	printf "dd             %-6d W 4096    NNNN.NN t0772-fs\n" $ddpid $ddpid >want && test_cmp want got &&
	grep -Eq "^[0-9]+\.[0-9]{3} +dd " out &&
	fs_trigger && tool_start out $SONDE fileslower -p $ddpid 10000 && fs_go && tool_stop &&
	test $(wc -l <out) -eq 2 &&
	fs_trigger && tool_start out $SONDE fsslower --fs any -m 10000 -p $ddpid && fs_go && tool_stop &&
	head -1 out | grep -q "^Tracing file system operations slower than 10000 ms... Hit Ctrl-C to end.$" &&
	test $(wc -l <out) -eq 2 &&
	timeout 20 $SONDE fsslower -t ext4 -d 1 -p 1 >out && head -1 out | grep -q "slower than 10 ms for 1 secs.$" &&
	! $SONDE fsslower -t vfat 2>err && grep -q "the file system (-t) is btrfs, ext4, nfs, xfs or any" err
'
# bash's read builtin reads a regular file once a line (4096 bytes, then lseek back)
# (where the kernel has kprobes, vfs_create counts no open's creates, as libbpf-tools')
test_expect_success 'vfsstat -p: the test shell'"'"'s 20 reads, 25 opens and 5 creates, over its lines' '
	echo abc >t0772-in && me=$BASHPID &&
	tool_start out $SONDE vfsstat -p $me &&
	i=0 && while [ $i -lt 20 ]; do read -r x <t0772-in; i=$((i + 1)); done &&
	for i in 1 2 3 4 5; do : >t0772-new$i; done && sleep 2.5 && tool_stop &&
	creates=0 &&
	if ! test -e /sys/bus/event_source/devices/kprobe/type; then
		creates=5 && head -1 out | grep -q "^vfsstat: this kernel has no kprobes: the syscalls that make the VFS calls are counted$" &&
		sed -i 1d out
	fi &&
	head -1 out >hdr && { printf "%-8s  " TIME; for c in READ WRITE FSYNC OPEN CREATE; do printf " %6s/s" $c; done; echo; } >want &&
	test_cmp want hdr &&
	test $(sed 1d out | grep -Evc "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]:  ( {0,7}[0-9]+ ?){5}$") -eq 0 &&
	cat out && sed 1d out | awk "{ r += \$2; w += \$3; f += \$4; o += \$5; c += \$6 } END { print r, w, f, o, c }" >got &&
	echo "20 0 0 25 $creates" >want && test_cmp want got
'
test_expect_success 'vfsstat 1 2: two lines, then it ends' '
	timeout 20 $SONDE vfsstat 1 2 >out && test $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]: " out) -eq 2
'
# a 1 MiB file written back and dropped from the page cache (dd iflag=nocache
# count=0: POSIX_FADV_DONTNEED), then read: 256 pages come into the cache; and
# 256 writes of 4 KiB to a new file dirty 256 folios
# fsslower -m 0 writing its lines to a file it traces: each line it prints is a
# write it traces, a flood that must not keep Ctrl-C from ending it
test_expect_success 'fsslower -m 0 writing to a file it traces still ends on Ctrl-C' '
	fs=$(stat -f -c %T .) && case $fs in ext2/ext3) fs=ext4 ;; esac &&
	tool_start flood $SONDE fsslower -t $fs -m 0 && sleep 1 && kill -INT $TOOL_PID &&
	i=0 && while kill -0 $TOOL_PID 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done &&
	if kill -0 $TOOL_PID 2>/dev/null; then kill -KILL $TOOL_PID; echo "still running 15 s after Ctrl-C"; exit 1; fi &&
	grep -q " sonde  *[0-9]*  *W .* flood$" flood && rm flood
'
test_expect_success 'cachestat: a file read from outside the cache: MISSES >= its 256 pages; DIRTIES >= 256' '
	dd if=/dev/zero of=t0772-cache bs=64k count=16 conv=fsync 2>/dev/null &&
	dd if=t0772-cache iflag=nocache count=0 2>/dev/null &&
	tool_start out $SONDE cachestat 1 &&
	cat t0772-cache >/dev/null && dd if=/dev/zero of=t0772-dirty bs=4k count=256 2>/dev/null &&
	sleep 1.5 && tool_stop &&
	printf "%8s %8s %8s %8s %12s %10s\n" HITS MISSES DIRTIES HITRATIO BUFFERS_MB CACHED_MB >want &&
	grep -v "^cachestat: " out >lines && head -1 lines >hdr && test_cmp want hdr &&
	sed 1d lines | awk "{ m += \$2; d += \$3 } END { print m, d }" >sums && cat sums &&
	test $(cut -d" " -f1 sums) -ge 256 && test $(cut -d" " -f2 sums) -ge 256 &&
	cached=$(awk "/^Cached:/ { print int(\$2 / 1024) }" /proc/meminfo) &&
	last=$(tail -1 lines | awk "{ print \$6 }") &&
	test $((last * 10)) -ge $((cached * 9)) && test $((last * 9)) -le $((cached * 10))
'
test_expect_success 'cachestat -T 1 2 without kprobes: one line says so, HITS and HITRATIO are "-"' '
	timeout 20 $SONDE cachestat -T 1 2 >out &&
	if test -e /sys/bus/event_source/devices/kprobe/type || test -e /sys/kernel/tracing/kprobe_events; then
		test $(wc -l <out) -eq 3 && ! grep -q " - " out
	else
		test $(wc -l <out) -eq 4 &&
		head -1 out | grep -q "^cachestat: HITS and HITRATIO are not counted: no kprobe on folio_mark_accessed" &&
		sed -n 2p out | grep -q "^TIME         HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB$" &&
		test $(grep -Ec "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]        -  +[0-9]+  +[0-9]+        -  +[0-9]+  +[0-9]+$" out) -eq 2
	fi
'
test_expect_success 'meminfo(): /proc/meminfo fields, divided, as the program prints them' '
	$SONDE probe -e "BEGIN { printf(\"%s %s\\n\", meminfo(\"MemTotal\"), meminfo(\"MemTotal\", 1024)); exit(); }" >out &&
	awk "/^MemTotal:/ { print \$2, int(\$2 / 1024) }" /proc/meminfo >want && grep -v "^Attaching" out | grep . >got &&
	test_cmp want got
'
test_done
