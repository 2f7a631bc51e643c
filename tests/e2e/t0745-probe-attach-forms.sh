#!/bin/bash
# t0745: attach-point spellings of upstream's docs/language.md beyond 0.17's: counts
# written as integers are (1e6, 1_000, an empty count takes the event's default), and
# uprobe:BIN:FUNC+OFFSET, probed where the DWARF line table says an instruction starts
# (elsewhere only with --unsafe: a uprobe inside an instruction corrupts the process).
# ftrace_calls N calls tick N times; tick's line 14 starts 0x11 bytes in (objdump agrees).
. "$(dirname "$0")/../lib.sh"

require_root 'attach-point forms'
# a copy of this run's own: a uprobe is on a file, and other tests run the shared one beside this
FC=$TMP/ftrace_calls
cp "$WORKLOADS/ftrace_calls" "$FC"
# the instance names -v prints, one per line
names() { $SONDE probe --dry-run -v -e "$1" 2>&1 | sed -n 's/^; \([^ ]*\): [0-9]* instructions.*/\1/p'; }

test_expect_success 'counts: 1e6, 1_000, 2e2; an empty count is the event'"'"'s default' '
	test "$(names "hardware:cache-misses:1e6 { 1 }")" = hardware:cache-misses:1000000 &&
	test "$(names "software:faults:1_000 { 1 }")" = software:faults:1000 &&
	test "$(names "s:page-faults:2e2 { 1 }")" = software:page-faults:200 &&
	test "$(names "software:cs: { 1 }")" = software:cs:1000 &&
	test "$(names "profile:hz:1e2 { 1 }")" = profile:hz:100 &&
	test "$(names "interval:ms:1_0 { 1 }")" = interval:ms:10
'
test_expect_success 'counts that are none: 0, 1e, 1e30, abc: one line each' '
	for c in 0 1e 1e30 abc; do
		! $SONDE probe --dry-run -e "software:faults:$c { 1 }" 2>err &&
		grep -q "^stdin:1:1: error: '"'"'$c'"'"' is not a positive count$" err || exit 1
	done
'
test_expect_success 'FUNC+OFFSET where a line starts (hex or decimal): every call, probe and func name it' '
	$SONDE probe -e "uprobe:$FC:tick+0x11 { @a = count(); } uprobe:$FC:tick+17 { @[probe, func] = count(); }" -c "$FC 33" >out &&
	grep -qx "@a: 33" out && grep -qx "@\[uprobe:$FC:tick+17, tick\]: 33" out
'
test_expect_success 'FUNC+OFFSET where no line starts: refused, says why; --unsafe probes it' '
	! $SONDE probe -e "uprobe:$FC:tick+7 { @ = count(); }" -c "$FC 3" >out 2>err &&
	grep -q "cannot tell that an instruction starts 7 bytes into '"'"'tick'"'"' (no row of its DWARF line table begins there)" err &&
	objdump -d "$FC" | grep -A3 "<tick>:" | grep -q "^ *$(printf %x $((0x$(nm "$FC" | sed -n "s/^\([0-9a-f]*\) T tick$/\1/p") + 7))):" &&
	$SONDE probe --unsafe -e "uprobe:$FC:tick+7 { @ = count(); }" -c "$FC 3" >out &&
	grep -qx "@: 3" out
'
test_expect_success 'FUNC+OFFSET mistakes: past the end, on a uretprobe, not a number' '
	! $SONDE probe --dry-run -e "uprobe:$FC:tick+999 { 1 }" 2>err && grep -q "offset 999 is past the end of '"'"'tick'"'"' (" err &&
	! $SONDE probe --dry-run -e "uretprobe:$FC:tick+17 { 1 }" 2>err && grep -q "a uretprobe fires where a function returns: it takes no offset" err &&
	! $SONDE probe --dry-run -e "uprobe:$FC:tick+zz { 1 }" 2>err && grep -q "'"'"'zz'"'"' is not an offset into '"'"'tick'"'"'" err
'
test_done
