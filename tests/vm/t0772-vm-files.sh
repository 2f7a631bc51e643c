#!/bin/bash
# t0772 in the VM, whose kernel has kprobes: there cachestat counts HITS (a kprobe
# on folio_mark_accessed) and vfsstat counts vfs_read... as libbpf-tools does, so
# neither says in a line what it cannot count; filelife matches deletions at
# vfs_unlink by inode on any file system.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'cachestat with kprobes: reading a cached file 4 times: HITS >= its pages' '
	dd if=/dev/zero of=t0772-cache bs=4096 count=64 2>/dev/null && cat t0772-cache >/dev/null &&
	tool_start out $SONDE cachestat 1 &&
	for i in 1 2 3 4; do cat t0772-cache >/dev/null; done && sleep 1.5 && tool_stop &&
	cat out &&
	head -1 out | grep -q "^    HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB$" &&
	! grep -q " - " out &&
	sed 1d out | awk "{ h += \$1 } END { print h }" >hits && test $(cat hits) -ge 64
'
# bash's read builtin: one vfs_read a line; an open of a new file is no vfs_create
test_expect_success 'vfsstat -p with kprobes: the shell'"'"'s 20 vfs_reads, 25 vfs_opens, no vfs_create' '
	echo abc >t0772-in && me=$BASHPID &&
	tool_start out $SONDE vfsstat -p $me &&
	i=0 && while [ $i -lt 20 ]; do read -r x <t0772-in; i=$((i + 1)); done &&
	for i in 1 2 3 4 5; do : >t0772-new$i; done && sleep 2.5 && tool_stop &&
	cat out && head -1 out | grep -q "^TIME         READ/s  WRITE/s  FSYNC/s   OPEN/s CREATE/s$" &&
	sed 1d out | awk "{ r += \$2; w += \$3; f += \$4; o += \$5; c += \$6 } END { print r, w, f, o, c }" >got &&
	echo "20 0 0 25 0" >want && test_cmp want got
'
# created by its absolute path, deleted by a relative one: only the inode matches
test_expect_success 'filelife with kprobes: vfs_unlink matches the file by inode, whatever the path' '
	tool_start out $SONDE filelife &&
	: >"$TMP/t0772-life" && sleep 0.3 && rm ./t0772-life && sleep 0.2 && tool_stop &&
	cat out && grep -Eq "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] [0-9]+ +rm +0\.[0-9][0-9] +t0772-life$" out
'
test_done
