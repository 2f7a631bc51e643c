#!/bin/bash
# Endless, binary and absurd inputs (issue 17, items 4, 12, 13): every reader
# fails fast or streams in bounded memory, binary data is one clear error,
# repeated warnings are capped with a count, counts are exact to 2^64-1 and
# fractions stay fractions.
. "$(dirname "$0")/../lib.sh"

# run under a 1 GB address-space limit (ASan reserves far more: skip the limit there) and 10 s
bounded() {
	if [ -n "${SONDE_SANITIZED:-}" ]; then timeout ${T:-10} "$@"; else (ulimit -v 1000000; exec timeout ${T:-10} "$@"); fi
}

test_expect_success '/dev/zero as a recording: one line, at once, for report/script/collapse/flame' '
	for c in report script collapse flame; do
		rc=0; bounded $SONDE $c -i /dev/zero >out 2>err || rc=$? &&
		[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] &&
		grep -q "not a perf.data file: bad magic" err || { echo "$c: rc $rc"; cat err; exit 1; }
		rc=0; bounded $SONDE $c -i - </dev/zero >out 2>err || rc=$? &&
		[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] || { echo "$c -i -: rc $rc"; cat err; exit 1; }
	done
'

test_expect_success '/dev/zero as text (collapse, flame on stdin): binary data, one line' '
	rc=0; bounded $SONDE collapse </dev/zero >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && grep -q "binary data, not text" err &&
	rc=0; bounded $SONDE flame </dev/zero >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && grep -q "binary data, not text" err
'

test_expect_success 'an endless line without a NUL is refused at 16 MiB' '
	rc=0; tr "\0" x </dev/zero | bounded $SONDE flame >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && grep -q "a line longer than 16 MiB" err
'

test_expect_success 'an endless valid stream is read in bounded memory' '
	rc=0; yes "main;a;b 1" | T=3 bounded $SONDE flame --format folded >out 2>err || rc=$? &&
	[ $rc -eq 124 ]
'

test_expect_success 'random bytes: collapse and collapse --diff say binary, once' '
	head -c 100000 /dev/urandom >garbage.bin && printf "a;b 1\n" >a.folded &&
	rc=0; $SONDE collapse <garbage.bin >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && [ ! -s out ] && [ $(wc -l <err) -eq 1 ] && grep -q "binary data" err &&
	rc=0; $SONDE collapse --diff garbage.bin a.folded >out 2>err || rc=$? &&
	[ $rc -eq 1 ] && [ $(wc -l <err) -eq 1 ] && grep -q "cannot read .garbage.bin.: binary data" err
'

test_expect_success 'repeated warnings are capped with a count' '
	seq 1 400 | sed "s/$/ x/" >text.folded &&
	$SONDE collapse --diff text.folded a.folded >out 2>err &&
	[ $(wc -l <err) -eq 6 ] && grep -q "text.folded: ... and 395 more lines skipped" err
'

test_expect_success 'counts are exact to 2^64-1; a sum past it is refused' '
	printf "a;b 9223372036854775807\n" | $SONDE flame --format folded >out &&
	echo "a;b 9223372036854775807" | test_cmp - out &&
	printf "a;b 18446744073709551614\na;b 1\n" | $SONDE flame --format folded >out &&
	echo "a;b 18446744073709551615" | test_cmp - out &&
	printf "a;b 18446744073709551615\na;c 1\n" | $SONDE flame --format folded >out 2>err &&
	echo "a;b 18446744073709551615" | test_cmp - out &&
	grep -q "<stdin>:2: line skipped: the counts add up to more than 2^64-1" err &&
	printf "a;b 18446744073709551616\n" | $SONDE collapse --diff - a.folded 2>err >/dev/null &&
	grep -q "the count is over 2^64-1" err &&
	printf "a;b 18446744073709551615\n" | $SONDE flame | grep -q "<title>b (18,446,744,073,709,551,615 samples"
'

test_expect_success 'fractional counts stay fractions: folded and tooltips' '
	printf "a;b 0.5\na;c 0.25\n" >frac.folded &&
	$SONDE flame --format folded frac.folded >out 2>/dev/null &&
	printf "a;b 0.5\na;c 0.25\n" | test_cmp - out &&
	$SONDE flame frac.folded 2>/dev/null >f.svg &&
	grep -q "<title>b (0.5 samples, 66.67%)" f.svg && grep -q "<title>all (0.75 samples, 100%)" f.svg
'

test_done
