#!/bin/bash
# for ($kv : @map) on the VM's kernel (6.1: bpf_for_each_map_elem is 5.13's,
# bpf_map_lookup_percpu_elem 5.19's), in kprobe and fentry programs (the latter
# carry the kernel function's BTF id beside the callbacks' own BTF).
. "$(dirname "$0")/../lib.sh"

test_expect_success 'kprobe: a per-CPU count summed over the CPUs in the body, arg read there' '
	$SONDE probe -e "kprobe:vfs_write /pid == cpid/ { @w[comm] = count(); \$t = 0; \$args = 0;
		for (\$kv : @w) { \$t += \$kv.1; if (arg2 == 1) { \$args++; } } @max = max(\$t); @ones = sum(\$args); }" \
		-c "$WORKLOADS/syscalls 40" >out 2>err &&
	grep -qx "@max: 40" out && grep -qx "@ones: 40" out
'
test_expect_success 'kprobe: break on a counter, nested loops, return from the body' '
	$SONDE probe -e "kprobe:vfs_write /pid == cpid/ { @a[arg2] = count(); @b[comm] = 1; \$n = 0;
		for (\$x : @a) { for (\$y : @b) { \$n++; if (\$n == 1) { break; } } }
		@n = max(\$n); for (\$x : @a) { return; } @never = 1; }" -c "$WORKLOADS/syscalls 5" >out 2>err &&
	grep -qx "@n: 1" out && ! grep -q never out
'
if ! $SONDE probe -e 'fentry:vfs_write { exit(); }' -c true >/dev/null 2>err; then
	test_skip 'fentry with a for loop' "this kernel refuses fentry: $(head -1 err)"
	test_done
	exit
fi
test_expect_success 'fentry: a for loop reads the typed arguments in its body' '
	$SONDE probe -e "fentry:vfs_write /pid == cpid/ { @c[args.count] = count(); \$t = 0;
		for (\$kv : @c) { if (\$kv.0 == args.count) { \$t += \$kv.1; } } @max = max(\$t); }" \
		-c "$WORKLOADS/syscalls 17" >out 2>err &&
	grep -qx "@max: 17" out
'
test_done
