// SPDX-License-Identifier: GPL-2.0
/*
 * sysdecode_names.c - constants and flag bits by name, as strace spells and
 * orders them, for the decoders in sysdecode_call.c. Tables end with { 0, NULL }.
 */
#include "lib/syscall/sysdecode_int.h"

const struct sd_name sdn_families[] = {
	{ 0, "AF_UNSPEC" }, { 1, "AF_UNIX" }, { 2, "AF_INET" }, { 10, "AF_INET6" },
	{ 16, "AF_NETLINK" }, { 17, "AF_PACKET" }, { 0, NULL }
};

const struct sd_name sdn_sa_flags[] = {
	{ 1, "SA_NOCLDSTOP" }, { 2, "SA_NOCLDWAIT" }, { 4, "SA_SIGINFO" },
	{ 0x04000000, "SA_RESTORER" }, { 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
	{ 0x40000000, "SA_NODEFER" }, { 0x80000000, "SA_RESETHAND" }, { 0, NULL }
};

const struct sd_name sdn_at_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_REMOVEDIR" }, { 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" }, { 0x1000, "AT_EMPTY_PATH" }, { 0x8000, "AT_RECURSIVE" }, { 0, NULL }
};

const struct sd_name sdn_access_modes[] = {
	{ 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" }, { 0, NULL }
};

const struct sd_name sdn_whence[] = {
	{ 0, "SEEK_SET" }, { 1, "SEEK_CUR" }, { 2, "SEEK_END" }, { 3, "SEEK_DATA" }, { 4, "SEEK_HOLE" }, { 0, NULL }
};

const struct sd_name sdn_sighow[] = {
	{ 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" }, { 0, NULL }
};

const struct sd_name sdn_socktypes[] = {
	{ 1, "SOCK_STREAM" }, { 2, "SOCK_DGRAM" }, { 3, "SOCK_RAW" }, { 4, "SOCK_RDM" },
	{ 5, "SOCK_SEQPACKET" }, { 6, "SOCK_DCCP" }, { 10, "SOCK_PACKET" }, { 0, NULL }
};

const struct sd_name sdn_sockflags[] = {
	{ 02000000, "SOCK_CLOEXEC" }, { 04000, "SOCK_NONBLOCK" }, { 0, NULL }
};

const struct sd_name sdn_msgflags[] = {
	{ 1, "MSG_OOB" }, { 2, "MSG_PEEK" }, { 4, "MSG_DONTROUTE" }, { 8, "MSG_CTRUNC" },
	{ 0x10, "MSG_PROXY" }, { 0x20, "MSG_TRUNC" }, { 0x40, "MSG_DONTWAIT" }, { 0x80, "MSG_EOR" },
	{ 0x100, "MSG_WAITALL" }, { 0x200, "MSG_FIN" }, { 0x400, "MSG_SYN" }, { 0x800, "MSG_CONFIRM" },
	{ 0x1000, "MSG_RST" }, { 0x2000, "MSG_ERRQUEUE" }, { 0x4000, "MSG_NOSIGNAL" },
	{ 0x8000, "MSG_MORE" }, { 0x10000, "MSG_WAITFORONE" }, { 0x40000000, "MSG_CMSG_CLOEXEC" }, { 0, NULL }
};

const struct sd_name sdn_shuthow[] = {
	{ 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" }, { 0, NULL }
};

const struct sd_name sdn_rlimits[] = {
	{ 0, "RLIMIT_CPU" }, { 1, "RLIMIT_FSIZE" }, { 2, "RLIMIT_DATA" }, { 3, "RLIMIT_STACK" },
	{ 4, "RLIMIT_CORE" }, { 5, "RLIMIT_RSS" }, { 6, "RLIMIT_NPROC" }, { 7, "RLIMIT_NOFILE" },
	{ 8, "RLIMIT_MEMLOCK" }, { 9, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" }, { 11, "RLIMIT_SIGPENDING" },
	{ 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" }, { 14, "RLIMIT_RTPRIO" }, { 15, "RLIMIT_RTTIME" },
	{ 0, NULL }
};

const struct sd_name sdn_archprctl[] = {
	{ 0x1001, "ARCH_SET_GS" }, { 0x1002, "ARCH_SET_FS" }, { 0x1003, "ARCH_GET_FS" },
	{ 0x1004, "ARCH_GET_GS" }, { 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" },
	{ 0x3001, "ARCH_CET_STATUS" }, { 0x5001, "ARCH_SHSTK_ENABLE" }, { 0, NULL }
};

const struct sd_name sdn_clocks[] = {
	{ 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" }, { 2, "CLOCK_PROCESS_CPUTIME_ID" },
	{ 3, "CLOCK_THREAD_CPUTIME_ID" }, { 4, "CLOCK_MONOTONIC_RAW" }, { 5, "CLOCK_REALTIME_COARSE" },
	{ 6, "CLOCK_MONOTONIC_COARSE" }, { 7, "CLOCK_BOOTTIME" }, { 0, NULL }
};

const struct sd_name sdn_grnd[] = {
	{ 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" }, { 0, NULL }
};

const struct sd_name sdn_madv[] = {
	{ 0, "MADV_NORMAL" }, { 1, "MADV_RANDOM" }, { 2, "MADV_SEQUENTIAL" }, { 3, "MADV_WILLNEED" },
	{ 4, "MADV_DONTNEED" }, { 8, "MADV_FREE" }, { 9, "MADV_REMOVE" }, { 10, "MADV_DONTFORK" },
	{ 11, "MADV_DOFORK" }, { 12, "MADV_MERGEABLE" }, { 13, "MADV_UNMERGEABLE" },
	{ 14, "MADV_HUGEPAGE" }, { 15, "MADV_NOHUGEPAGE" }, { 16, "MADV_DONTDUMP" },
	{ 17, "MADV_DODUMP" }, { 18, "MADV_WIPEONFORK" }, { 19, "MADV_KEEPONFORK" },
	{ 20, "MADV_COLD" }, { 21, "MADV_PAGEOUT" }, { 100, "MADV_HWPOISON" }, { 0, NULL }
};

const struct sd_name sdn_mremap_flags[] = {
	{ 1, "MREMAP_MAYMOVE" }, { 2, "MREMAP_FIXED" }, { 4, "MREMAP_DONTUNMAP" }, { 0, NULL }
};

const struct sd_name sdn_wopts[] = {
	{ 1, "WNOHANG" }, { 2, "WSTOPPED" }, { 4, "WEXITED" }, { 8, "WCONTINUED" },
	{ 0x01000000, "WNOWAIT" }, { 0x20000000, "__WNOTHREAD" }, { 0x40000000, "__WALL" },
	{ 0x80000000, "__WCLONE" }, { 0, NULL }
};

const struct sd_name sdn_fcntl_cmds[] = {
	{ 0, "F_DUPFD" }, { 1, "F_GETFD" }, { 2, "F_SETFD" }, { 3, "F_GETFL" }, { 4, "F_SETFL" },
	{ 5, "F_GETLK" }, { 6, "F_SETLK" }, { 7, "F_SETLKW" }, { 8, "F_SETOWN" }, { 9, "F_GETOWN" },
	{ 10, "F_SETSIG" }, { 11, "F_GETSIG" }, { 1024, "F_SETLEASE" }, { 1025, "F_GETLEASE" },
	{ 1026, "F_NOTIFY" }, { 1030, "F_DUPFD_CLOEXEC" }, { 1031, "F_SETPIPE_SZ" },
	{ 1032, "F_GETPIPE_SZ" }, { 1033, "F_ADD_SEALS" }, { 1034, "F_GET_SEALS" }, { 0, NULL }
};

const struct sd_name sdn_futex_ops[] = {
	{ 0, "FUTEX_WAIT" }, { 1, "FUTEX_WAKE" }, { 2, "FUTEX_FD" }, { 3, "FUTEX_REQUEUE" },
	{ 4, "FUTEX_CMP_REQUEUE" }, { 5, "FUTEX_WAKE_OP" }, { 6, "FUTEX_LOCK_PI" },
	{ 7, "FUTEX_UNLOCK_PI" }, { 8, "FUTEX_TRYLOCK_PI" }, { 9, "FUTEX_WAIT_BITSET" },
	{ 10, "FUTEX_WAKE_BITSET" }, { 0, NULL }
};

const struct sd_name sdn_ipprotos[] = {
	{ 0, "IPPROTO_IP" }, { 1, "IPPROTO_ICMP" }, { 6, "IPPROTO_TCP" }, { 17, "IPPROTO_UDP" },
	{ 41, "IPPROTO_IPV6" }, { 58, "IPPROTO_ICMPV6" }, { 132, "IPPROTO_SCTP" }, { 255, "IPPROTO_RAW" },
	{ 0, NULL }
};

/* the flags of pipe2, dup3, eventfd2, epoll_create1...: no access mode */
const struct sd_name sdn_fd_flags[] = {
	{ 04000, "O_NONBLOCK" }, { 040000, "O_DIRECT" }, { 02000000, "O_CLOEXEC" }, { 0, NULL }
};

const struct sd_name sdn_ioctl_cmds[] = {
	{ 0x5401, "TCGETS" }, { 0x5402, "TCSETS" }, { 0x5403, "TCSETSW" }, { 0x5404, "TCSETSF" },
	{ 0x540b, "TCFLSH" }, { 0x540e, "TIOCSCTTY" }, { 0x540f, "TIOCGPGRP" }, { 0x5410, "TIOCSPGRP" },
	{ 0x5413, "TIOCGWINSZ" }, { 0x5414, "TIOCSWINSZ" }, { 0x541b, "FIONREAD" }, { 0x5421, "FIONBIO" },
	{ 0x5450, "FIONCLEX" }, { 0x5451, "FIOCLEX" }, { 0x5452, "FIOASYNC" }, { 0x80045430, "TIOCGPTN" },
	{ 0x40045431, "TIOCSPTLCK" }, { 0, NULL }
};

const struct sd_name sdn_statx_masks[] = {
	{ 0x7ff, "STATX_BASIC_STATS" }, { 1, "STATX_TYPE" }, { 2, "STATX_MODE" }, { 4, "STATX_NLINK" },
	{ 8, "STATX_UID" }, { 0x10, "STATX_GID" }, { 0x20, "STATX_ATIME" }, { 0x40, "STATX_MTIME" },
	{ 0x80, "STATX_CTIME" }, { 0x100, "STATX_INO" }, { 0x200, "STATX_SIZE" }, { 0x400, "STATX_BLOCKS" },
	{ 0x800, "STATX_BTIME" }, { 0x1000, "STATX_MNT_ID" }, { 0x2000, "STATX_DIOALIGN" },
	{ 0x4000, "STATX_MNT_ID_UNIQUE" }, { 0x8000, "STATX_SUBVOL" }, { 0x10000, "STATX_WRITE_ATOMIC" },
	{ 0, NULL }
};

const struct sd_name sdn_statx_attrs[] = {
	{ 0x4, "STATX_ATTR_COMPRESSED" }, { 0x10, "STATX_ATTR_IMMUTABLE" }, { 0x20, "STATX_ATTR_APPEND" },
	{ 0x40, "STATX_ATTR_NODUMP" }, { 0x800, "STATX_ATTR_ENCRYPTED" }, { 0x1000, "STATX_ATTR_AUTOMOUNT" },
	{ 0x2000, "STATX_ATTR_MOUNT_ROOT" }, { 0x100000, "STATX_ATTR_VERITY" }, { 0x200000, "STATX_ATTR_DAX" },
	{ 0, NULL }
};
