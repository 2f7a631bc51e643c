#!/bin/bash
# sonde probe's array casts on arrays the kernel fills (tests/lang/tuples.test has
# the rest): a socket tracepoint's u8[4] address as a uint32, compared with
# (uint32)pton() as upstream's docs do, and back to bytes; a kernel type's u8[4]
# (BTF) as a uint32, checked against the bytes buf() reads from the same place;
# arrays in -f json as bpftrace 0.17 prints pton()'s.
. "$(dirname "$0")/../lib.sh"

require_root 'array casts of kernel arrays'

# a TCP connection to a closed local port: SYN_SENT (2) then CLOSE
P='tracepoint:sock:inet_sock_set_state /args->newstate == 2 && args->family == 2/ { printf("%x %d %d %d %s\n", (uint32)args->daddr, (uint32)args->daddr == (uint32)pton("127.0.0.1"), (uint8[])(uint32)args->daddr == args->daddr, (uint8[4])(uint32)args->daddr == pton("127.0.0.2"), ntop((uint8[])(uint32)args->saddr)); exit(); }'
connect_soon() { sleep "$1"; (exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null || :; sleep 1; (exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null || :; }
if [ ! -d /sys/kernel/tracing/events/sock/inet_sock_set_state ] && [ ! -d /sys/kernel/debug/tracing/events/sock/inet_sock_set_state ]; then
	test_skip 'a socket tracepoint'"'"'s address array as a uint32 and back' 'no sock:inet_sock_set_state tracepoint'
else
	test_expect_success 'a socket tracepoint'"'"'s address array as a uint32 and back' '
		timeout 20 $SONDE probe -e "$P" >out & s=$!
		connect_soon 2; wait $s &&
		grep -qx "100007f 1 1 0 127.0.0.1" out
	'
fi

test_expect_success 'a kernel type'"'"'s u8[4] (BTF) as a uint32: the bytes buf() reads, little-endian' '
	$SONDE probe -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf(\"%d|%r\\n\", (uint32)curtask->perf_recursion, buf(curtask->perf_recursion)); exit(); }" -c "$WORKLOADS/syscalls 2" >out &&
	line=$(grep "|" out) && v=${line%|*} && b=${line#*|} &&
	test "$v" = "$(printf "%s" "$b" | sed "s/\\\\x/ 0x/g" | { read -r w x y z; echo $((w + (x << 8) + (y << 16) + (z << 24))); })"
'

test_expect_success 'a kernel array of another size is refused, with the sizes' '
	! $SONDE probe --dry-run -e "tracepoint:syscalls:sys_enter_getppid { print((uint64)curtask->perf_recursion); }" 2>err &&
	grep -q "cannot cast an array (4 bytes) to uint64 (8 bytes)" err
'
PJ='BEGIN { @v = pton("1.2.3.4"); $a = pton("10.0.0.1"); print($a); print((1, pton("::1"))); @k[pton("1.2.3.4")] = 1; exit(); }'
if have_bpftrace; then
	test_expect_success 'integer arrays in -f json are JSON arrays, as bpftrace prints them' '
		$SONDE probe -f json -e "$PJ" >sonde.out && bpftrace -f json -e "$PJ" >bpftrace.out 2>/dev/null &&
		test_cmp bpftrace.out sonde.out
	'
else
	test_skip 'integer arrays in -f json, as bpftrace prints them' 'no bpftrace here'
fi
test_expect_success 'a cast'"'"'s signed elements in -f json' '
	$SONDE probe -f json -e "BEGIN { @v = (int8[2])(int16)-2; print((uint16[2])(uint32)0x00020001); exit(); }" >out &&
	grep -qx "{\"type\": \"value\", \"data\": \[1,2\]}" out &&
	grep -qx "{\"type\": \"map\", \"data\": {\"@v\": \[-2,-1\]}}" out
'
test_done
