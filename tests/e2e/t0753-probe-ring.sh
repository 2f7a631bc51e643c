#!/bin/bash
# t0753: the output ring buffer: its size follows perf_rb_pages (upstream's config),
# a full one loses records and the count is said at the end, exactly (printed + lost =
# sent), and an exit() whose record was lost still ends the run, with its code.
. "$(dirname "$0")/../lib.sh"

require_root 'the output ring buffer'
B='BEGIN { $i = 0; while ($i < 300) { printf("line %d of a long run of output that fills a one-page ring\n", $i); $i++; } exit(3); }'
P="config = { perf_rb_pages = 1 } $B"

test_expect_success 'a one-page ring: lines printed + records lost = the 300 lines and the exit; the exit still ends the run with its code' '
	rc=0 && timeout 20 $SONDE probe -e "$P" >out 2>err || rc=$?
	test $rc -eq 3 &&
	printed=$(grep -c "^line [0-9]* of a long run" out) &&
	lost=$(sed -n "s/^sonde: warning: \([0-9]*\) events lost: the output ring buffer was full.*perf_rb_pages = N.*/\1/p" err) &&
	test -n "$lost" && test "$lost" -gt 0 &&
	test $((printed + lost)) -eq 301
'
test_expect_success 'the default ring holds them all: nothing lost, nothing said' '
	rc=0 && timeout 20 $SONDE probe -e "$B" >out 2>err || rc=$?
	test $rc -eq 3 && test "$(grep -c "^line [0-9]* of a long run" out)" -eq 300 && ! test -s err
'
test_expect_success 'perf_rb_pages sizes the ring (pages, rounded up to a power of two), bpftool sees it' '
	! command -v bpftool >/dev/null && exit 0
	$SONDE probe -e "config = { perf_rb_pages = 3 } interval:ms:1500 { exit(); }" >/dev/null &
	s=$! && sleep 0.7 &&
	bpftool map show >maps; wait $s &&
	grep -A1 "ringbuf  name sonde_out" maps | grep -q "max_entries 16384"
'
test_done
