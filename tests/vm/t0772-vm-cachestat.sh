#!/bin/bash
# t0772 in the VM, whose kernel has kprobes: cachestat counts HITS there (a kprobe
# on folio_mark_accessed), so no line says it cannot, and no column is "-".
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
test_done
