#!/bin/bash
# sonde probe's fentry/fexit (kfunc/kretfunc) probes, typed from BTF, on a kernel with
# BPF trampolines (the VM's; this machine's refuses them: tests/e2e/t0703).
. "$(dirname "$0")/../lib.sh"

if ! $SONDE probe -e 'fentry:vfs_write { exit(); }' -c true >/dev/null 2>err; then
	test_skip 'fentry probes' "this kernel refuses them: $(head -1 err)"
	test_done
	exit
fi
test_expect_success 'fentry: every call the workload makes, counted exactly' '
	$SONDE probe -e "fentry:vfs_write /pid == cpid/ { @calls = count(); }" -c "$WORKLOADS/syscalls 123" >out 2>err &&
	grep -qx "@calls: 123" out
'
test_expect_success 'fexit: retval typed from BTF (each write writes 1 byte)' '
	$SONDE probe -e "fexit:vfs_write /pid == cpid/ { @r[retval, comm] = count(); }" -c "$WORKLOADS/syscalls 7" >out 2>err &&
	grep -qx "@r\[1, syscalls\]: 7" out
'
test_expect_success 'fentry: a user string argument by name (args.filename)' '
	$SONDE probe -e "fentry:do_sys_openat2 /pid == cpid/ { @[str(args.filename)] = count(); }" -c "$WORKLOADS/syscalls 9" >out 2>err &&
	grep -qx "@\[/etc/hostname\]: 9" out
'
test_expect_success 'fentry: a struct argument followed through pointers (the file vfs_write writes)' '
	$SONDE probe -e "fentry:vfs_write /pid == cpid/ { @[str(args.file->f_path.dentry->d_name.name), args.count] = count(); }" \
		-c "$WORKLOADS/syscalls 11" >out 2>err &&
	grep -qx "@\[null, 1\]: 11" out
'
test_expect_success 'fentry: a wildcard, and func naming the function' '
	$SONDE probe -e "kfunc:vfs_writ* /pid == cpid/ { @[func] = count(); }" -c "$WORKLOADS/syscalls 5" >out 2>err &&
	grep -qx "@\[vfs_write\]: 5" out
'
test_expect_success 'path(): bpf_d_path of the file filp_close closes' '
	$SONDE probe -e "fentry:filp_close /pid == cpid/ { @[path(args.filp->f_path)] = count(); }" -c "$WORKLOADS/syscalls 6" >out 2>err &&
	grep -qx "@\[/etc/hostname\]: 6" out
'
test_expect_success 'path(): refused by the kernel outside its allowlist, with the verifier'"'"'s reason' '
	! $SONDE probe -e "fentry:vfs_write { @[path(args.file->f_path)] = count(); }" -c true >out 2>err &&
	grep -q "refused the program" err
'
test_done
