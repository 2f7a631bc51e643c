#!/bin/bash
# sonde probe's macros, records, has_key() and len() (which bpftrace 0.17 lacks)
# on a real workload: a script with macros prints byte for byte what bpftrace
# 0.17 prints for the same script with the macros written out by hand; errors
# in a script file point at the file; broken macro definitions give one
# located error, never a crash.
. "$(dirname "$0")/../lib.sh"

W=$WORKLOADS/syscalls
require_root 'sonde probe macros'

cat >"$TMP/macros.bt" <<'EOF'
macro mine() { pid == cpid }
macro bucket(x) { x % 3 == 0 ? "three" : "other" }
macro tally(@m, $n, k) { $n += 1; @m[k] = count(); }
tracepoint:syscalls:sys_enter_write /mine/ {
	$n = 0;
	tally(@w, $n, bucket(args->count + @i));
	@i += $n;
}
tracepoint:syscalls:sys_enter_getppid /mine()/ { @g[comm] = count(); }
EOF
cat >"$TMP/inlined.bt" <<'EOF'
tracepoint:syscalls:sys_enter_write /pid == cpid/ {
	$n = 0;
	$n += 1; @w[(args->count + @i) % 3 == 0 ? "three" : "other"] = count();
	@i += $n;
}
tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @g[comm] = count(); }
EOF

if have_bpftrace; then
	test_expect_success 'a script with macros prints what bpftrace prints for it written out' '
		timeout 60 $SONDE probe -c "$W 300" macros.bt >sonde.out &&
		timeout 60 bpftrace -c "$W 300" inlined.bt >bpftrace.out 2>bpftrace.err &&
		test_cmp bpftrace.out sonde.out &&
		grep -q "^@w\[three\]: 100$" sonde.out && grep -q "^@g\[syscalls\]: 300$" sonde.out
	'
else
	test_skip 'macros against bpftrace' 'bpftrace is not installed'
fi

if have_bpftrace; then
	test_expect_success '-f json: tuples are arrays, as bpftrace prints them' '
		P="BEGIN { print((1, \"two\", (3, 4))); @t[1] = (5, \"six\"); @u[2] = (-7, (8, \"x\")); exit(); }" &&
		timeout 30 $SONDE probe -f json -e "$P" >sonde.out &&
		timeout 30 bpftrace -f json -e "$P" >bpftrace.out 2>bpftrace.err &&
		test_cmp bpftrace.out sonde.out
	'
fi
test_expect_success '-f json: records are objects, their fields after ", " as upstream'"'"'s' '
	timeout 30 $SONDE probe -f json -e "BEGIN { print((z=-1, s=\"a\")); @r = (a=1, b=(c=\"x\")); exit(); }" >out &&
	grep -qx "{\"type\": \"value\", \"data\": {\"z\": -1, \"s\": \"a\"}}" out &&
	grep -qx "{\"type\": \"map\", \"data\": {\"@r\": {\"a\": 1, \"b\": {\"c\": \"x\"}}}}" out
'

test_expect_success 'has_key() and len() in a tracepoint program, records as map values' '
	cat >keys.bt <<-EOF &&
	tracepoint:syscalls:sys_enter_getppid /pid == cpid/ {
		@seen[tid] = (calls=@n + 1, who=comm);
		@n++;
		if (has_key(@seen, tid) && len(@seen) == 1) { @ok = count(); }
	}
	EOF
	timeout 60 $SONDE probe -c "$W 50" keys.bt >out &&
	grep -q "^@ok: 50$" out &&
	grep -q "^@n: 50$" out &&
	grep -Eq "^@seen\[[0-9]+\]: \{ \.calls = 50, \.who = syscalls \}$" out
'

test_expect_success 'an error in a macro called from a script file names the file, the body and the call' '
	printf "macro twice(x) {\n  x * \"2\"\n}\nBEGIN { print(twice(4)); }\n" >bad.bt &&
	! $SONDE probe --dry-run bad.bt 2>err &&
	cat >expect <<-EOF &&
	bad.bt:2:5: error: type mismatch: int64 with string[8]
	  x * "2"
	    ^
	bad.bt:4:15: note: in macro '"'"'twice'"'"', called here
	BEGIN { print(twice(4)); }
	              ^^^^^
	EOF
	test_cmp expect err
'

test_expect_success 'broken macro definitions and records: one located error each, no crash' '
	for p in "macro" "macro m" "macro m(" "macro m(\$x" "macro m(1) { }" "macro m(x) {" \
		 "macro m(x) { x + }" "macro m() { m } BEGIN { m }" "BEGIN { \$r = (a=); }" \
		 "BEGIN { \$r = (a=1, 2); }" "BEGIN { \$r = { 1; }; }" "BEGIN { print({ }); }" \
		 "macro m(@x) { len(@x) } BEGIN { print(m(1)); }" "BEGIN { \$r = (a=1); print(\$r.1); }"; do
		rc=0 && $SONDE probe --dry-run -e "$p" >out 2>err || rc=$?
		test $rc = 1 || { echo "rc $rc for: $p"; cat err; false; }
		grep -q "^stdin:[0-9]*:[0-9]*: error: " err || { echo "no located error for: $p"; cat err; false; }
	done
'

test_expect_success 'macros expanded exponentially stop at a limit' '
	p="macro a(x) { x + x }" && prev=a &&
	for i in $(seq 1 20); do p="$p macro m$i(x) { $prev($prev(x)) }"; prev=m$i; done &&
	! $SONDE probe --dry-run -e "$p BEGIN { print($prev(1)); }" 2>err &&
	grep -q "macro expansion is too large" err
'
test_done
