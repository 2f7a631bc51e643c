// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - the x86-64 syscall table and strace's -e trace= sets; see
 * syscalls.h for why the table is compiled in. Rows are indexed by number.
 */
#include "lib/syscall/syscalls.h"
#include "lib/util.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct syscall_desc table[SYSCALL_NR_MAX] = {
	[0] = { 0, "read", 3, R_INT, C_DESC, { A_FD, A_BUFOUT, A_ULONG } },
	[1] = { 1, "write", 3, R_INT, C_DESC, { A_FD, A_BUFIN, A_ULONG } },
	[2] = { 2, "open", 3, R_INT, C_FILE|C_DESC, { A_PATH, A_OPENFLAGS, A_OPENMODE } },
	[3] = { 3, "close", 1, R_INT, C_DESC, { A_FD } },
	[4] = { 4, "stat", 2, R_INT, C_FILE, { A_PATH, A_STATOUT } },
	[5] = { 5, "fstat", 2, R_INT, C_DESC, { A_FD, A_STATOUT } },
	[6] = { 6, "lstat", 2, R_INT, C_FILE, { A_PATH, A_STATOUT } },
	[7] = { 7, "poll", 3, R_INT, C_DESC, { A_PTR, A_UINT, A_INT } },
	[8] = { 8, "lseek", 3, R_INT, C_DESC, { A_FD, A_LONG, A_WHENCE } },
	[9] = { 9, "mmap", 6, R_HEX, C_DESC|C_MEMORY, { A_PTR, A_ULONG, A_PROT, A_MMAPFLAGS, A_FD, A_HEX } },
	[10] = { 10, "mprotect", 3, R_INT, C_MEMORY, { A_PTR, A_ULONG, A_PROT } },
	[11] = { 11, "munmap", 2, R_INT, C_MEMORY, { A_PTR, A_ULONG } },
	[12] = { 12, "brk", 1, R_HEX, C_MEMORY, { A_PTR } },
	[13] = { 13, "rt_sigaction", 4, R_INT, C_SIGNAL, { A_SIGNUM, A_SIGACTIN, A_SIGACTOUT, A_ULONG } },
	[14] = { 14, "rt_sigprocmask", 4, R_INT, C_SIGNAL, { A_SIGHOW, A_SIGSETIN, A_SIGSETOUT, A_ULONG } },
	[15] = { 15, "rt_sigreturn", 0, R_INT, C_SIGNAL, { 0 } },
	[16] = { 16, "ioctl", 3, R_INT, C_DESC, { A_FD, A_IOCTLCMD, A_PTR } },
	[17] = { 17, "pread64", 4, R_INT, C_DESC, { A_FD, A_BUFOUT, A_ULONG, A_LONG } },
	[18] = { 18, "pwrite64", 4, R_INT, C_DESC, { A_FD, A_BUFIN, A_ULONG, A_LONG } },
	[19] = { 19, "readv", 3, R_INT, C_DESC, { A_FD, A_IOVOUT, A_INT } },
	[20] = { 20, "writev", 3, R_INT, C_DESC, { A_FD, A_IOVIN, A_INT } },
	[21] = { 21, "access", 2, R_INT, C_FILE, { A_PATH, A_ACCESSMODE } },
	[22] = { 22, "pipe", 1, R_INT, C_DESC, { A_PIPEFDS } },
	[23] = { 23, "select", 5, R_INT, C_DESC, { A_INT, A_PTR, A_PTR, A_PTR, A_PTR } },
	[24] = { 24, "sched_yield", 0, R_INT, 0, { 0 } },
	[25] = { 25, "mremap", 5, R_HEX, C_MEMORY, { A_PTR, A_ULONG, A_ULONG, A_MREMAPFLAGS, A_PTR } },
	[26] = { 26, "msync", 3, R_INT, C_MEMORY, { A_PTR, A_ULONG, A_INT } },
	[27] = { 27, "mincore", 3, R_INT, C_MEMORY, { A_PTR, A_ULONG, A_PTR } },
	[28] = { 28, "madvise", 3, R_INT, C_MEMORY, { A_PTR, A_ULONG, A_MADV } },
	[29] = { 29, "shmget", 3, R_INT, C_IPC, { A_UINT, A_ULONG, A_INT } },
	[30] = { 30, "shmat", 3, R_HEX, C_MEMORY|C_IPC, { A_INT, A_STR, A_INT } },
	[31] = { 31, "shmctl", 3, R_INT, C_IPC, { A_INT, A_INT, A_PTR } },
	[32] = { 32, "dup", 1, R_INT, C_DESC, { A_FD } },
	[33] = { 33, "dup2", 2, R_INT, C_DESC, { A_FD, A_FD } },
	[34] = { 34, "pause", 0, R_INT, C_SIGNAL, { 0 } },
	[35] = { 35, "nanosleep", 2, R_INT, 0, { A_TSIN, A_PTR } },
	[36] = { 36, "getitimer", 2, R_INT, 0, { A_INT, A_PTR } },
	[37] = { 37, "alarm", 1, R_INT, 0, { A_UINT } },
	[38] = { 38, "setitimer", 3, R_INT, 0, { A_INT, A_PTR, A_PTR } },
	[39] = { 39, "getpid", 0, R_INT, 0, { 0 } },
	[40] = { 40, "sendfile", 4, R_INT, C_DESC, { A_FD, A_FD, A_PTR, A_ULONG } },
	[41] = { 41, "socket", 3, R_INT, C_NETWORK, { A_AF, A_SOCKTYPE, A_SOCKPROTO } },
	[42] = { 42, "connect", 3, R_INT, C_NETWORK, { A_FD, A_SOCKADDRIN, A_INT } },
	[43] = { 43, "accept", 3, R_INT, C_NETWORK, { A_FD, A_PTR, A_PTR } },
	[44] = { 44, "sendto", 6, R_INT, C_NETWORK, { A_FD, A_BUFIN, A_ULONG, A_MSGFLAGS, A_SOCKADDRIN, A_INT } },
	[45] = { 45, "recvfrom", 6, R_INT, C_NETWORK, { A_FD, A_BUFOUT, A_ULONG, A_MSGFLAGS, A_PTR, A_PTR } },
	[46] = { 46, "sendmsg", 3, R_INT, C_NETWORK, { A_FD, A_PTR, A_MSGFLAGS } },
	[47] = { 47, "recvmsg", 3, R_INT, C_NETWORK, { A_FD, A_PTR, A_MSGFLAGS } },
	[48] = { 48, "shutdown", 2, R_INT, C_NETWORK, { A_FD, A_SHUTHOW } },
	[49] = { 49, "bind", 3, R_INT, C_NETWORK, { A_FD, A_SOCKADDRIN, A_INT } },
	[50] = { 50, "listen", 2, R_INT, C_NETWORK, { A_FD, A_INT } },
	[51] = { 51, "getsockname", 3, R_INT, C_NETWORK, { A_FD, A_SOCKADDROUT, A_PTR } },
	[52] = { 52, "getpeername", 3, R_INT, C_NETWORK, { A_FD, A_SOCKADDROUT, A_PTR } },
	[53] = { 53, "socketpair", 4, R_INT, C_NETWORK, { A_AF, A_SOCKTYPE, A_SOCKPROTO, A_PIPEFDS } },
	[54] = { 54, "setsockopt", 5, R_INT, C_NETWORK, { A_FD, A_INT, A_INT, A_PTR, A_INT } },
	[55] = { 55, "getsockopt", 5, R_INT, C_NETWORK, { A_FD, A_INT, A_INT, A_PTR, A_PTR } },
	[56] = { 56, "clone", 5, R_INT, C_PROCESS, { A_CLONEFLAGS, A_PTR, A_PTR, A_PTR, A_HEX } },
	[57] = { 57, "fork", 0, R_INT, C_PROCESS, { 0 } },
	[58] = { 58, "vfork", 0, R_INT, C_PROCESS, { 0 } },
	[59] = { 59, "execve", 3, R_INT, C_FILE|C_PROCESS, { A_PATH, A_ARGV, A_ENVP } },
	[60] = { 60, "exit", 1, R_NONE, C_PROCESS, { A_INT } },
	[61] = { 61, "wait4", 4, R_INT, C_PROCESS, { A_INT, A_WSTATUS, A_WOPTS, A_PTR } },
	[62] = { 62, "kill", 2, R_INT, C_PROCESS|C_SIGNAL, { A_INT, A_SIGNUM } },
	[63] = { 63, "uname", 1, R_INT, 0, { A_UTSNAME } },
	[64] = { 64, "semget", 3, R_INT, C_IPC, { A_UINT, A_INT, A_INT } },
	[65] = { 65, "semop", 3, R_INT, C_IPC, { A_INT, A_PTR, A_UINT } },
	[66] = { 66, "semctl", 4, R_INT, C_IPC, { A_INT, A_INT, A_INT, A_ULONG } },
	[67] = { 67, "shmdt", 1, R_INT, C_MEMORY|C_IPC, { A_STR } },
	[68] = { 68, "msgget", 2, R_INT, C_IPC, { A_UINT, A_INT } },
	[69] = { 69, "msgsnd", 4, R_INT, C_IPC, { A_INT, A_PTR, A_ULONG, A_INT } },
	[70] = { 70, "msgrcv", 5, R_INT, C_IPC, { A_INT, A_PTR, A_ULONG, A_LONG, A_INT } },
	[71] = { 71, "msgctl", 3, R_INT, C_IPC, { A_INT, A_INT, A_PTR } },
	[72] = { 72, "fcntl", 3, R_INT, C_DESC, { A_FD, A_FCNTLCMD, A_FCNTLARG } },
	[73] = { 73, "flock", 2, R_INT, C_DESC, { A_FD, A_INT } },
	[74] = { 74, "fsync", 1, R_INT, C_DESC, { A_FD } },
	[75] = { 75, "fdatasync", 1, R_INT, C_DESC, { A_FD } },
	[76] = { 76, "truncate", 2, R_INT, C_FILE, { A_PATH, A_LONG } },
	[77] = { 77, "ftruncate", 2, R_INT, C_DESC, { A_FD, A_LONG } },
	[78] = { 78, "getdents", 3, R_INT, C_DESC, { A_FD, A_PTR, A_UINT } },
	[79] = { 79, "getcwd", 2, R_INT, C_FILE, { A_BUFOUTSTR, A_ULONG } },
	[80] = { 80, "chdir", 1, R_INT, C_FILE, { A_PATH } },
	[81] = { 81, "fchdir", 1, R_INT, C_DESC, { A_FD } },
	[82] = { 82, "rename", 2, R_INT, C_FILE, { A_PATH, A_PATH } },
	[83] = { 83, "mkdir", 2, R_INT, C_FILE, { A_PATH, A_OCT } },
	[84] = { 84, "rmdir", 1, R_INT, C_FILE, { A_PATH } },
	[85] = { 85, "creat", 2, R_INT, C_FILE|C_DESC, { A_PATH, A_OCT } },
	[86] = { 86, "link", 2, R_INT, C_FILE, { A_PATH, A_PATH } },
	[87] = { 87, "unlink", 1, R_INT, C_FILE, { A_PATH } },
	[88] = { 88, "symlink", 2, R_INT, C_FILE, { A_PATH, A_PATH } },
	[89] = { 89, "readlink", 3, R_INT, C_FILE, { A_PATH, A_BUFOUT, A_ULONG } },
	[90] = { 90, "chmod", 2, R_INT, C_FILE, { A_PATH, A_OCT } },
	[91] = { 91, "fchmod", 2, R_INT, C_DESC, { A_FD, A_OCT } },
	[92] = { 92, "chown", 3, R_INT, C_FILE, { A_PATH, A_INT, A_INT } },
	[93] = { 93, "fchown", 3, R_INT, C_DESC, { A_FD, A_INT, A_INT } },
	[94] = { 94, "lchown", 3, R_INT, C_FILE, { A_PATH, A_INT, A_INT } },
	[95] = { 95, "umask", 1, R_OCT, 0, { A_OCT } },
	[96] = { 96, "gettimeofday", 2, R_INT, C_CLOCK, { A_PTR, A_PTR } },
	[97] = { 97, "getrlimit", 2, R_INT, 0, { A_RLIMRES, A_RLIMOUT } },
	[98] = { 98, "getrusage", 2, R_INT, 0, { A_INT, A_PTR } },
	[99] = { 99, "sysinfo", 1, R_INT, 0, { A_PTR } },
	[100] = { 100, "times", 1, R_INT, 0, { A_PTR } },
	[101] = { 101, "ptrace", 4, R_INT, 0, { A_LONG, A_LONG, A_ULONG, A_ULONG } },
	[102] = { 102, "getuid", 0, R_INT, C_CREDS, { 0 } },
	[103] = { 103, "syslog", 3, R_INT, 0, { A_INT, A_STR, A_INT } },
	[104] = { 104, "getgid", 0, R_INT, C_CREDS, { 0 } },
	[105] = { 105, "setuid", 1, R_INT, C_CREDS, { A_UINT } },
	[106] = { 106, "setgid", 1, R_INT, C_CREDS, { A_UINT } },
	[107] = { 107, "geteuid", 0, R_INT, C_CREDS, { 0 } },
	[108] = { 108, "getegid", 0, R_INT, C_CREDS, { 0 } },
	[109] = { 109, "setpgid", 2, R_INT, 0, { A_INT, A_INT } },
	[110] = { 110, "getppid", 0, R_INT, 0, { 0 } },
	[111] = { 111, "getpgrp", 0, R_INT, 0, { 0 } },
	[112] = { 112, "setsid", 0, R_INT, 0, { 0 } },
	[113] = { 113, "setreuid", 2, R_INT, C_CREDS, { A_UINT, A_UINT } },
	[114] = { 114, "setregid", 2, R_INT, C_CREDS, { A_UINT, A_UINT } },
	[115] = { 115, "getgroups", 2, R_INT, C_CREDS, { A_INT, A_GIDLIST } },
	[116] = { 116, "setgroups", 2, R_INT, C_CREDS, { A_INT, A_PTR } },
	[117] = { 117, "setresuid", 3, R_INT, C_CREDS, { A_UINT, A_UINT, A_UINT } },
	[118] = { 118, "getresuid", 3, R_INT, C_CREDS, { A_PTR, A_PTR, A_PTR } },
	[119] = { 119, "setresgid", 3, R_INT, C_CREDS, { A_UINT, A_UINT, A_UINT } },
	[120] = { 120, "getresgid", 3, R_INT, C_CREDS, { A_PTR, A_PTR, A_PTR } },
	[121] = { 121, "getpgid", 1, R_INT, 0, { A_INT } },
	[122] = { 122, "setfsuid", 1, R_INT, C_CREDS, { A_UINT } },
	[123] = { 123, "setfsgid", 1, R_INT, C_CREDS, { A_UINT } },
	[124] = { 124, "getsid", 1, R_INT, 0, { A_INT } },
	[125] = { 125, "capget", 2, R_INT, C_CREDS, { A_INT, A_INT } },
	[126] = { 126, "capset", 2, R_INT, C_CREDS, { A_INT, A_INT } },
	[127] = { 127, "rt_sigpending", 2, R_INT, C_SIGNAL, { A_PTR, A_ULONG } },
	[128] = { 128, "rt_sigtimedwait", 4, R_INT, C_SIGNAL, { A_PTR, A_PTR, A_PTR, A_ULONG } },
	[129] = { 129, "rt_sigqueueinfo", 3, R_INT, C_PROCESS|C_SIGNAL, { A_INT, A_INT, A_PTR } },
	[130] = { 130, "rt_sigsuspend", 2, R_INT, C_SIGNAL, { A_PTR, A_ULONG } },
	[131] = { 131, "sigaltstack", 2, R_INT, C_SIGNAL, { A_PTR, A_PTR } },
	[132] = { 132, "utime", 2, R_INT, C_FILE, { A_PATH, A_PTR } },
	[133] = { 133, "mknod", 3, R_INT, C_FILE, { A_PATH, A_OCT, A_UINT } },
	[134] = { 134, "uselib", 1, R_INT, C_FILE, { A_PATH } },
	[135] = { 135, "personality", 1, R_INT, 0, { A_UINT } },
	[136] = { 136, "ustat", 2, R_INT, 0, { A_UINT, A_PTR } },
	[137] = { 137, "statfs", 2, R_INT, C_FILE, { A_PATH, A_PTR } },
	[138] = { 138, "fstatfs", 2, R_INT, C_DESC, { A_FD, A_PTR } },
	[139] = { 139, "sysfs", 3, R_INT, 0, { A_INT, A_ULONG, A_ULONG } },
	[140] = { 140, "getpriority", 2, R_INT, 0, { A_INT, A_INT } },
	[141] = { 141, "setpriority", 3, R_INT, 0, { A_INT, A_INT, A_INT } },
	[142] = { 142, "sched_setparam", 2, R_INT, 0, { A_INT, A_PTR } },
	[143] = { 143, "sched_getparam", 2, R_INT, 0, { A_INT, A_PTR } },
	[144] = { 144, "sched_setscheduler", 3, R_INT, 0, { A_INT, A_INT, A_PTR } },
	[145] = { 145, "sched_getscheduler", 1, R_INT, 0, { A_INT } },
	[146] = { 146, "sched_get_priority_max", 1, R_INT, 0, { A_INT } },
	[147] = { 147, "sched_get_priority_min", 1, R_INT, 0, { A_INT } },
	[148] = { 148, "sched_rr_get_interval", 2, R_INT, 0, { A_INT, A_PTR } },
	[149] = { 149, "mlock", 2, R_INT, C_MEMORY, { A_ULONG, A_ULONG } },
	[150] = { 150, "munlock", 2, R_INT, C_MEMORY, { A_ULONG, A_ULONG } },
	[151] = { 151, "mlockall", 1, R_INT, C_MEMORY, { A_INT } },
	[152] = { 152, "munlockall", 0, R_INT, C_MEMORY, { 0 } },
	[153] = { 153, "vhangup", 0, R_INT, 0, { 0 } },
	[154] = { 154, "modify_ldt", 3, R_INT, 0, { A_INT, A_PTR, A_ULONG } },
	[155] = { 155, "pivot_root", 2, R_INT, C_FILE, { A_PATH, A_PATH } },
	[156] = { 156, "_sysctl", 1, R_INT, 0, { A_PTR } },
	[157] = { 157, "prctl", 5, R_INT, C_CREDS, { A_INT, A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[158] = { 158, "arch_prctl", 2, R_INT, C_PROCESS, { A_ARCHPRCTL, A_HEX } },
	[159] = { 159, "adjtimex", 1, R_INT, C_CLOCK, { A_PTR } },
	[160] = { 160, "setrlimit", 2, R_INT, 0, { A_RLIMRES, A_RLIMIN } },
	[161] = { 161, "chroot", 1, R_INT, C_FILE, { A_PATH } },
	[162] = { 162, "sync", 0, R_INT, 0, { 0 } },
	[163] = { 163, "acct", 1, R_INT, C_FILE, { A_PATH } },
	[164] = { 164, "settimeofday", 2, R_INT, C_CLOCK, { A_PTR, A_PTR } },
	[165] = { 165, "mount", 5, R_INT, C_FILE, { A_PATH, A_PATH, A_STR, A_ULONG, A_PTR } },
	[166] = { 166, "umount2", 2, R_INT, C_FILE, { A_STR, A_INT } },
	[167] = { 167, "swapon", 2, R_INT, C_FILE, { A_PATH, A_INT } },
	[168] = { 168, "swapoff", 1, R_INT, C_FILE, { A_PATH } },
	[169] = { 169, "reboot", 4, R_INT, 0, { A_INT, A_INT, A_UINT, A_PTR } },
	[170] = { 170, "sethostname", 2, R_INT, 0, { A_STR, A_INT } },
	[171] = { 171, "setdomainname", 2, R_INT, 0, { A_STR, A_INT } },
	[172] = { 172, "iopl", 1, R_INT, 0, { A_UINT } },
	[173] = { 173, "ioperm", 3, R_INT, 0, { A_ULONG, A_ULONG, A_INT } },
	[174] = { 174, "create_module", 2, R_INT, 0, { A_ULONG, A_ULONG } },
	[175] = { 175, "init_module", 3, R_INT, 0, { A_PTR, A_ULONG, A_STR } },
	[176] = { 176, "delete_module", 2, R_INT, 0, { A_STR, A_OCT } },
	[177] = { 177, "get_kernel_syms", 1, R_INT, 0, { A_PTR } },
	[178] = { 178, "query_module", 5, R_INT, 0, { A_ULONG, A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[179] = { 179, "quotactl", 4, R_INT, C_FILE, { A_UINT, A_STR, A_UINT, A_PTR } },
	[180] = { 180, "nfsservctl", 3, R_INT, 0, { A_ULONG, A_ULONG, A_ULONG } },
	[181] = { 181, "getpmsg", 5, R_INT, 0, { A_ULONG, A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[182] = { 182, "putpmsg", 5, R_INT, 0, { A_ULONG, A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[183] = { 183, "afs_syscall", 0, R_INT, 0, { 0 } },
	[184] = { 184, "tuxcall", 0, R_INT, 0, { 0 } },
	[185] = { 185, "security", 0, R_INT, 0, { 0 } },
	[186] = { 186, "gettid", 0, R_INT, 0, { 0 } },
	[187] = { 187, "readahead", 3, R_INT, C_DESC, { A_FD, A_ULONG, A_ULONG } },
	[188] = { 188, "setxattr", 5, R_INT, C_FILE, { A_PATH, A_STR, A_PTR, A_ULONG, A_INT } },
	[189] = { 189, "lsetxattr", 5, R_INT, C_FILE, { A_PATH, A_STR, A_PTR, A_ULONG, A_INT } },
	[190] = { 190, "fsetxattr", 5, R_INT, C_DESC, { A_FD, A_STR, A_PTR, A_ULONG, A_INT } },
	[191] = { 191, "getxattr", 4, R_INT, C_FILE, { A_PATH, A_STR, A_PTR, A_ULONG } },
	[192] = { 192, "lgetxattr", 4, R_INT, C_FILE, { A_PATH, A_STR, A_PTR, A_ULONG } },
	[193] = { 193, "fgetxattr", 4, R_INT, C_DESC, { A_FD, A_STR, A_PTR, A_ULONG } },
	[194] = { 194, "listxattr", 3, R_INT, C_FILE, { A_PATH, A_STR, A_ULONG } },
	[195] = { 195, "llistxattr", 3, R_INT, C_FILE, { A_PATH, A_STR, A_ULONG } },
	[196] = { 196, "flistxattr", 3, R_INT, C_DESC, { A_FD, A_STR, A_ULONG } },
	[197] = { 197, "removexattr", 2, R_INT, C_FILE, { A_PATH, A_STR } },
	[198] = { 198, "lremovexattr", 2, R_INT, C_FILE, { A_PATH, A_STR } },
	[199] = { 199, "fremovexattr", 2, R_INT, C_DESC, { A_FD, A_STR } },
	[200] = { 200, "tkill", 2, R_INT, C_PROCESS|C_SIGNAL, { A_INT, A_SIGNUM } },
	[201] = { 201, "time", 1, R_INT, C_CLOCK, { A_PTR } },
	[202] = { 202, "futex", 6, R_INT, 0, { A_PTR, A_FUTEXOP, A_INT, A_PTR, A_PTR, A_INT } },
	[203] = { 203, "sched_setaffinity", 3, R_INT, 0, { A_INT, A_UINT, A_PTR } },
	[204] = { 204, "sched_getaffinity", 3, R_INT, 0, { A_INT, A_UINT, A_PTR } },
	[205] = { 205, "set_thread_area", 1, R_INT, 0, { A_PTR } },
	[206] = { 206, "io_setup", 2, R_INT, C_MEMORY, { A_UINT, A_PTR } },
	[207] = { 207, "io_destroy", 1, R_INT, 0, { A_ULONG } },
	[208] = { 208, "io_getevents", 5, R_INT, 0, { A_ULONG, A_LONG, A_LONG, A_PTR, A_PTR } },
	[209] = { 209, "io_submit", 3, R_INT, 0, { A_ULONG, A_LONG, A_PTR } },
	[210] = { 210, "io_cancel", 3, R_INT, 0, { A_ULONG, A_PTR, A_PTR } },
	[211] = { 211, "get_thread_area", 1, R_INT, 0, { A_PTR } },
	[212] = { 212, "lookup_dcookie", 3, R_INT, 0, { A_ULONG, A_PTR, A_ULONG } },
	[213] = { 213, "epoll_create", 1, R_INT, C_DESC, { A_INT } },
	[214] = { 214, "epoll_ctl_old", 0, R_INT, 0, { 0 } },
	[215] = { 215, "epoll_wait_old", 0, R_INT, 0, { 0 } },
	[216] = { 216, "remap_file_pages", 5, R_INT, C_MEMORY, { A_ULONG, A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[217] = { 217, "getdents64", 3, R_INT, C_DESC, { A_FD, A_DIRENTS, A_ULONG } },
	[218] = { 218, "set_tid_address", 1, R_INT, 0, { A_PTR } },
	[219] = { 219, "restart_syscall", 0, R_INT, 0, { 0 } },
	[220] = { 220, "semtimedop", 4, R_INT, C_IPC, { A_INT, A_PTR, A_UINT, A_PTR } },
	[221] = { 221, "fadvise64", 4, R_INT, C_DESC, { A_FD, A_ULONG, A_ULONG, A_INT } },
	[222] = { 222, "timer_create", 3, R_INT, 0, { A_INT, A_PTR, A_PTR } },
	[223] = { 223, "timer_settime", 4, R_INT, 0, { A_INT, A_INT, A_PTR, A_PTR } },
	[224] = { 224, "timer_gettime", 2, R_INT, 0, { A_INT, A_PTR } },
	[225] = { 225, "timer_getoverrun", 1, R_INT, 0, { A_INT } },
	[226] = { 226, "timer_delete", 1, R_INT, 0, { A_INT } },
	[227] = { 227, "clock_settime", 2, R_INT, C_CLOCK, { A_INT, A_PTR } },
	[228] = { 228, "clock_gettime", 2, R_INT, C_CLOCK, { A_CLOCKID, A_TSOUT } },
	[229] = { 229, "clock_getres", 2, R_INT, C_CLOCK, { A_INT, A_PTR } },
	[230] = { 230, "clock_nanosleep", 4, R_INT, 0, { A_CLOCKID, A_INT, A_TSIN, A_PTR } },
	[231] = { 231, "exit_group", 1, R_NONE, C_PROCESS, { A_INT } },
	[232] = { 232, "epoll_wait", 4, R_INT, C_DESC, { A_FD, A_PTR, A_INT, A_INT } },
	[233] = { 233, "epoll_ctl", 4, R_INT, C_DESC, { A_FD, A_INT, A_FD, A_PTR } },
	[234] = { 234, "tgkill", 3, R_INT, C_PROCESS|C_SIGNAL, { A_INT, A_INT, A_SIGNUM } },
	[235] = { 235, "utimes", 2, R_INT, C_FILE, { A_PATH, A_PTR } },
	[236] = { 236, "vserver", 0, R_INT, 0, { 0 } },
	[237] = { 237, "mbind", 6, R_INT, C_MEMORY, { A_ULONG, A_ULONG, A_ULONG, A_PTR, A_ULONG, A_UINT } },
	[238] = { 238, "set_mempolicy", 3, R_INT, C_MEMORY, { A_INT, A_PTR, A_ULONG } },
	[239] = { 239, "get_mempolicy", 5, R_INT, C_MEMORY, { A_PTR, A_PTR, A_ULONG, A_ULONG, A_ULONG } },
	[240] = { 240, "mq_open", 4, R_INT, C_DESC, { A_STR, A_INT, A_OCT, A_PTR } },
	[241] = { 241, "mq_unlink", 1, R_INT, 0, { A_STR } },
	[242] = { 242, "mq_timedsend", 5, R_INT, C_DESC, { A_INT, A_STR, A_ULONG, A_UINT, A_PTR } },
	[243] = { 243, "mq_timedreceive", 5, R_INT, C_DESC, { A_INT, A_STR, A_ULONG, A_PTR, A_PTR } },
	[244] = { 244, "mq_notify", 2, R_INT, C_DESC, { A_INT, A_PTR } },
	[245] = { 245, "mq_getsetattr", 3, R_INT, C_DESC, { A_INT, A_PTR, A_PTR } },
	[246] = { 246, "kexec_load", 4, R_INT, 0, { A_HEX, A_ULONG, A_PTR, A_HEX } },
	[247] = { 247, "waitid", 5, R_INT, C_PROCESS, { A_INT, A_INT, A_PTR, A_INT, A_PTR } },
	[248] = { 248, "add_key", 5, R_INT, 0, { A_STR, A_STR, A_PTR, A_ULONG, A_INT } },
	[249] = { 249, "request_key", 4, R_INT, 0, { A_STR, A_STR, A_STR, A_INT } },
	[250] = { 250, "keyctl", 5, R_INT, 0, { A_INT, A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[251] = { 251, "ioprio_set", 3, R_INT, 0, { A_INT, A_INT, A_INT } },
	[252] = { 252, "ioprio_get", 2, R_INT, 0, { A_INT, A_INT } },
	[253] = { 253, "inotify_init", 0, R_INT, C_DESC, { 0 } },
	[254] = { 254, "inotify_add_watch", 3, R_INT, C_FILE|C_DESC, { A_FD, A_PATH, A_UINT } },
	[255] = { 255, "inotify_rm_watch", 2, R_INT, C_DESC, { A_FD, A_INT } },
	[256] = { 256, "migrate_pages", 4, R_INT, C_MEMORY, { A_INT, A_ULONG, A_PTR, A_PTR } },
	[257] = { 257, "openat", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_OPENFLAGS, A_OPENMODE } },
	[258] = { 258, "mkdirat", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_OCT } },
	[259] = { 259, "mknodat", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_OCT, A_UINT } },
	[260] = { 260, "fchownat", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_INT, A_INT, A_ATFLAGS } },
	[261] = { 261, "futimesat", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_PTR } },
	[262] = { 262, "newfstatat", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_STATOUT, A_ATFLAGS } },
	[263] = { 263, "unlinkat", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_ATFLAGS } },
	[264] = { 264, "renameat", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_DIRFD, A_PATH } },
	[265] = { 265, "linkat", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_ATFLAGS } },
	[266] = { 266, "symlinkat", 3, R_INT, C_FILE|C_DESC, { A_PATH, A_DIRFD, A_PATH } },
	[267] = { 267, "readlinkat", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_BUFOUT, A_ULONG } },
	[268] = { 268, "fchmodat", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_OCT } },
	[269] = { 269, "faccessat", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_ACCESSMODE } },
	[270] = { 270, "pselect6", 6, R_INT, C_DESC, { A_INT, A_PTR, A_PTR, A_PTR, A_PTR, A_PTR } },
	[271] = { 271, "ppoll", 5, R_INT, C_DESC, { A_PTR, A_UINT, A_PTR, A_PTR, A_ULONG } },
	[272] = { 272, "unshare", 1, R_INT, C_PROCESS, { A_ULONG } },
	[273] = { 273, "set_robust_list", 2, R_INT, 0, { A_PTR, A_ULONG } },
	[274] = { 274, "get_robust_list", 3, R_INT, 0, { A_INT, A_PTR, A_PTR } },
	[275] = { 275, "splice", 6, R_INT, C_DESC, { A_FD, A_PTR, A_FD, A_PTR, A_ULONG, A_UINT } },
	[276] = { 276, "tee", 4, R_INT, C_DESC, { A_INT, A_INT, A_ULONG, A_UINT } },
	[277] = { 277, "sync_file_range", 4, R_INT, C_DESC, { A_FD, A_ULONG, A_ULONG, A_UINT } },
	[278] = { 278, "vmsplice", 4, R_INT, C_DESC, { A_FD, A_PTR, A_ULONG, A_UINT } },
	[279] = { 279, "move_pages", 6, R_INT, C_MEMORY, { A_INT, A_ULONG, A_PTR, A_PTR, A_PTR, A_INT } },
	[280] = { 280, "utimensat", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_PTR, A_ATFLAGS } },
	[281] = { 281, "epoll_pwait", 6, R_INT, C_DESC, { A_FD, A_PTR, A_INT, A_INT, A_PTR, A_ULONG } },
	[282] = { 282, "signalfd", 3, R_INT, C_DESC|C_SIGNAL, { A_FD, A_PTR, A_ULONG } },
	[283] = { 283, "timerfd_create", 2, R_INT, C_DESC, { A_INT, A_INT } },
	[284] = { 284, "eventfd", 1, R_INT, C_DESC, { A_UINT } },
	[285] = { 285, "fallocate", 4, R_INT, C_DESC, { A_FD, A_INT, A_ULONG, A_ULONG } },
	[286] = { 286, "timerfd_settime", 4, R_INT, C_DESC, { A_FD, A_INT, A_PTR, A_PTR } },
	[287] = { 287, "timerfd_gettime", 2, R_INT, C_DESC, { A_FD, A_PTR } },
	[288] = { 288, "accept4", 4, R_INT, C_NETWORK, { A_FD, A_PTR, A_PTR, A_SOCKFLAGS } },
	[289] = { 289, "signalfd4", 4, R_INT, C_DESC|C_SIGNAL, { A_FD, A_PTR, A_ULONG, A_INT } },
	[290] = { 290, "eventfd2", 2, R_INT, C_DESC, { A_UINT, A_FDFLAGS } },
	[291] = { 291, "epoll_create1", 1, R_INT, C_DESC, { A_FDFLAGS } },
	[292] = { 292, "dup3", 3, R_INT, C_DESC, { A_FD, A_FD, A_FDFLAGS } },
	[293] = { 293, "pipe2", 2, R_INT, C_DESC, { A_PIPEFDS, A_FDFLAGS } },
	[294] = { 294, "inotify_init1", 1, R_INT, C_DESC, { A_INT } },
	[295] = { 295, "preadv", 5, R_INT, C_DESC, { A_FD, A_PTR, A_ULONG, A_ULONG, A_ULONG } },
	[296] = { 296, "pwritev", 5, R_INT, C_DESC, { A_FD, A_PTR, A_ULONG, A_ULONG, A_ULONG } },
	[297] = { 297, "rt_tgsigqueueinfo", 4, R_INT, C_PROCESS|C_SIGNAL, { A_INT, A_INT, A_INT, A_PTR } },
	[298] = { 298, "perf_event_open", 5, R_INT, 0, { A_PTR, A_INT, A_INT, A_INT, A_ULONG } },
	[299] = { 299, "recvmmsg", 5, R_INT, C_NETWORK, { A_FD, A_PTR, A_UINT, A_UINT, A_PTR } },
	[300] = { 300, "fanotify_init", 2, R_INT, C_DESC, { A_UINT, A_UINT } },
	[301] = { 301, "fanotify_mark", 5, R_INT, C_FILE|C_DESC, { A_INT, A_UINT, A_ULONG, A_DIRFD, A_PATH } },
	[302] = { 302, "prlimit64", 4, R_INT, 0, { A_INT, A_RLIMRES, A_RLIMIN, A_RLIMOUT } },
	[303] = { 303, "name_to_handle_at", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_STR, A_PTR, A_PTR, A_INT } },
	[304] = { 304, "open_by_handle_at", 3, R_INT, C_DESC, { A_INT, A_PTR, A_INT } },
	[305] = { 305, "clock_adjtime", 2, R_INT, C_CLOCK, { A_INT, A_PTR } },
	[306] = { 306, "syncfs", 1, R_INT, C_DESC, { A_FD } },
	[307] = { 307, "sendmmsg", 4, R_INT, C_NETWORK, { A_FD, A_PTR, A_UINT, A_UINT } },
	[308] = { 308, "setns", 2, R_INT, C_DESC, { A_FD, A_INT } },
	[309] = { 309, "getcpu", 3, R_INT, 0, { A_PTR, A_PTR, A_PTR } },
	[310] = { 310, "process_vm_readv", 6, R_INT, 0, { A_INT, A_PTR, A_ULONG, A_PTR, A_ULONG, A_ULONG } },
	[311] = { 311, "process_vm_writev", 6, R_INT, 0, { A_INT, A_PTR, A_ULONG, A_PTR, A_ULONG, A_ULONG } },
	[312] = { 312, "kcmp", 5, R_INT, 0, { A_INT, A_INT, A_INT, A_ULONG, A_ULONG } },
	[313] = { 313, "finit_module", 3, R_INT, C_DESC, { A_FD, A_STR, A_HEX } },
	[314] = { 314, "sched_setattr", 3, R_INT, 0, { A_INT, A_PTR, A_UINT } },
	[315] = { 315, "sched_getattr", 4, R_INT, 0, { A_INT, A_PTR, A_UINT, A_UINT } },
	[316] = { 316, "renameat2", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_UINT } },
	[317] = { 317, "seccomp", 3, R_INT, 0, { A_UINT, A_UINT, A_PTR } },
	[318] = { 318, "getrandom", 3, R_INT, 0, { A_BUFOUT, A_ULONG, A_GRND } },
	[319] = { 319, "memfd_create", 2, R_INT, C_DESC, { A_STR, A_UINT } },
	[320] = { 320, "kexec_file_load", 5, R_INT, C_DESC, { A_FD, A_FD, A_ULONG, A_STR, A_HEX } },
	[321] = { 321, "bpf", 3, R_INT, C_DESC, { A_INT, A_PTR, A_UINT } },
	[322] = { 322, "execveat", 5, R_INT, C_FILE|C_DESC|C_PROCESS, { A_FD, A_PATH, A_STR, A_STR, A_INT } },
	[323] = { 323, "userfaultfd", 1, R_INT, 0, { A_INT } },
	[324] = { 324, "membarrier", 3, R_INT, 0, { A_INT, A_UINT, A_INT } },
	[325] = { 325, "mlock2", 3, R_INT, C_MEMORY, { A_ULONG, A_ULONG, A_INT } },
	[326] = { 326, "copy_file_range", 6, R_INT, C_DESC, { A_FD, A_PTR, A_FD, A_PTR, A_ULONG, A_UINT } },
	[327] = { 327, "preadv2", 6, R_INT, C_DESC, { A_FD, A_PTR, A_ULONG, A_ULONG, A_ULONG, A_UINT } },
	[328] = { 328, "pwritev2", 6, R_INT, C_DESC, { A_FD, A_PTR, A_ULONG, A_ULONG, A_ULONG, A_UINT } },
	[329] = { 329, "pkey_mprotect", 4, R_INT, C_MEMORY, { A_ULONG, A_ULONG, A_ULONG, A_INT } },
	[330] = { 330, "pkey_alloc", 2, R_INT, 0, { A_ULONG, A_ULONG } },
	[331] = { 331, "pkey_free", 1, R_INT, 0, { A_INT } },
	[332] = { 332, "statx", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_STATXFLAGS, A_STATXMASK, A_STATXOUT } },
	[333] = { 333, "io_pgetevents", 6, R_INT, 0, { A_ULONG, A_LONG, A_LONG, A_PTR, A_PTR, A_PTR } },
	[334] = { 334, "rseq", 4, R_INT, 0, { A_PTR, A_HEX, A_HEX, A_HEX } },
	[335] = { 335, "uretprobe", 0, R_INT, 0, { 0 } },
	[336] = { 336, "uprobe", 0, R_INT, 0, { 0 } },
	[424] = { 424, "pidfd_send_signal", 4, R_INT, C_DESC|C_PROCESS|C_SIGNAL, { A_FD, A_INT, A_PTR, A_UINT } },
	[425] = { 425, "io_uring_setup", 2, R_INT, C_DESC, { A_UINT, A_PTR } },
	[426] = { 426, "io_uring_enter", 6, R_INT, C_DESC, { A_FD, A_UINT, A_UINT, A_UINT, A_PTR, A_ULONG } },
	[427] = { 427, "io_uring_register", 4, R_INT, C_DESC, { A_FD, A_UINT, A_PTR, A_UINT } },
	[428] = { 428, "open_tree", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_UINT } },
	[429] = { 429, "move_mount", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_DIRFD, A_PATH, A_UINT } },
	[430] = { 430, "fsopen", 2, R_INT, C_DESC, { A_STR, A_UINT } },
	[431] = { 431, "fsconfig", 5, R_INT, C_DESC, { A_FD, A_UINT, A_STR, A_PTR, A_INT } },
	[432] = { 432, "fsmount", 3, R_INT, C_DESC, { A_INT, A_UINT, A_UINT } },
	[433] = { 433, "fspick", 3, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_UINT } },
	[434] = { 434, "pidfd_open", 2, R_INT, C_DESC, { A_INT, A_UINT } },
	[435] = { 435, "clone3", 2, R_INT, C_PROCESS, { A_CLONEARGS, A_ULONG } },
	[436] = { 436, "close_range", 3, R_INT, C_DESC, { A_FD, A_FD, A_UINT } },
	[437] = { 437, "openat2", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_PTR, A_ULONG } },
	[438] = { 438, "pidfd_getfd", 3, R_INT, C_DESC, { A_FD, A_FD, A_UINT } },
	[439] = { 439, "faccessat2", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_ACCESSMODE, A_ATFLAGS } },
	[440] = { 440, "process_madvise", 5, R_INT, C_DESC|C_MEMORY, { A_FD, A_PTR, A_ULONG, A_INT, A_UINT } },
	[441] = { 441, "epoll_pwait2", 6, R_INT, C_DESC, { A_FD, A_PTR, A_INT, A_PTR, A_PTR, A_ULONG } },
	[442] = { 442, "mount_setattr", 5, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_UINT, A_PTR, A_ULONG } },
	[443] = { 443, "quotactl_fd", 4, R_INT, C_FILE, { A_FD, A_UINT, A_UINT, A_PTR } },
	[444] = { 444, "landlock_create_ruleset", 3, R_INT, C_DESC, { A_PTR, A_INT, A_INT } },
	[445] = { 445, "landlock_add_rule", 4, R_INT, C_FILE|C_DESC, { A_INT, A_INT, A_PTR, A_INT } },
	[446] = { 446, "landlock_restrict_self", 2, R_INT, C_DESC, { A_INT, A_INT } },
	[447] = { 447, "memfd_secret", 1, R_INT, C_DESC, { A_UINT } },
	[448] = { 448, "process_mrelease", 2, R_INT, C_DESC, { A_FD, A_UINT } },
	[449] = { 449, "futex_waitv", 5, R_INT, 0, { A_PTR, A_UINT, A_UINT, A_PTR, A_INT } },
	[450] = { 450, "set_mempolicy_home_node", 4, R_INT, C_MEMORY, { A_ULONG, A_ULONG, A_ULONG, A_ULONG } },
	[451] = { 451, "cachestat", 4, R_INT, C_DESC, { A_FD, A_PTR, A_PTR, A_UINT } },
	[452] = { 452, "fchmodat2", 4, R_INT, C_FILE|C_DESC, { A_DIRFD, A_PATH, A_OCT, A_UINT } },
	[453] = { 453, "map_shadow_stack", 0, R_INT, C_MEMORY, { 0 } },
	[454] = { 454, "futex_wake", 4, R_INT, 0, { A_PTR, A_ULONG, A_INT, A_UINT } },
	[455] = { 455, "futex_wait", 6, R_INT, 0, { A_PTR, A_ULONG, A_ULONG, A_UINT, A_PTR, A_INT } },
	[456] = { 456, "futex_requeue", 4, R_INT, 0, { A_PTR, A_UINT, A_INT, A_INT } },
	[457] = { 457, "statmount", 4, R_INT, 0, { A_PTR, A_PTR, A_ULONG, A_UINT } },
	[458] = { 458, "listmount", 4, R_INT, 0, { A_PTR, A_PTR, A_ULONG, A_UINT } },
	[459] = { 459, "lsm_get_self_attr", 4, R_INT, 0, { A_UINT, A_PTR, A_PTR, A_UINT } },
	[460] = { 460, "lsm_set_self_attr", 4, R_INT, 0, { A_UINT, A_PTR, A_UINT, A_UINT } },
	[461] = { 461, "lsm_list_modules", 3, R_INT, 0, { A_PTR, A_PTR, A_UINT } },
	[462] = { 462, "mseal", 3, R_INT, C_MEMORY, { A_ULONG, A_ULONG, A_ULONG } },
	[463] = { 463, "setxattrat", 6, R_INT, C_FILE, { A_DIRFD, A_PATH, A_UINT, A_STR, A_PTR, A_ULONG } },
	[464] = { 464, "getxattrat", 6, R_INT, C_FILE, { A_DIRFD, A_PATH, A_UINT, A_STR, A_PTR, A_ULONG } },
	[465] = { 465, "listxattrat", 5, R_INT, C_FILE, { A_DIRFD, A_PATH, A_UINT, A_STR, A_ULONG } },
	[466] = { 466, "removexattrat", 4, R_INT, C_FILE, { A_DIRFD, A_PATH, A_UINT, A_STR } },
	[467] = { 467, "open_tree_attr", 5, R_INT, C_FILE, { A_DIRFD, A_PATH, A_UINT, A_PTR, A_ULONG } },
	[468] = { 468, "file_getattr", 5, R_INT, C_FILE, { A_DIRFD, A_PATH, A_PTR, A_ULONG, A_UINT } },
	[469] = { 469, "file_setattr", 5, R_INT, C_FILE, { A_DIRFD, A_PATH, A_PTR, A_ULONG, A_UINT } },
};

const struct syscall_desc *syscall__by_nr(int nr)
{
	if (nr < 0 || nr >= SYSCALL_NR_MAX || !table[nr].name)
		return NULL;
	return &table[nr];
}

const struct syscall_desc *syscall__by_name(const char *name)
{
	for (int i = 0; i < SYSCALL_NR_MAX; i++)
		if (table[i].name && !strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

/* the known syscalls in number order, counted once: callers walk them with syscall__at(i) */
static const struct syscall_desc *known[SYSCALL_NR_MAX];
static int nknown = -1;

static void index_known(void)
{
	if (nknown >= 0)
		return;
	nknown = 0;
	for (int nr = 0; nr < SYSCALL_NR_MAX; nr++)
		if (table[nr].name)
			known[nknown++] = &table[nr];
}

int syscall__count(void)
{
	index_known();
	return nknown;
}

const struct syscall_desc *syscall__at(int i)
{
	index_known();
	return i >= 0 && i < nknown ? known[i] : NULL;
}

static const struct {
	const char *name;
	unsigned cls;
} classes[] = {
	{ "file", C_FILE }, { "desc", C_DESC }, { "network", C_NETWORK }, { "net", C_NETWORK },
	{ "process", C_PROCESS }, { "memory", C_MEMORY }, { "signal", C_SIGNAL },
	{ "ipc", C_IPC }, { "creds", C_CREDS }, { "clock", C_CLOCK },
};

unsigned syscall__class(const char *name)
{
	if (*name == '%')
		name++;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(classes[i].name, name))
			return classes[i].cls;
	return 0;
}



/* a class named without its %, as strace still takes it ("file", "network") */
static unsigned syscall__class_bare(const char *name)
{
	char pct[64];

	if (strlen(name) + 2 > sizeof(pct))
		return 0;
	snprintf(pct, sizeof(pct), "%%%s", name);
	return syscall__class(pct);
}

int syscall__parse_set(const char *expr, bool *set, char *err, int errlen)
{
	bool neg = false;
	char *copy, *tok, *save = NULL;
	int bad = 0, used = 0;

	if (*expr == '!') {
		neg = true;
		expr++;
	}
	memset(set, 0, SYSCALL_NR_MAX * sizeof(*set));
	copy = strdup(expr);
	if (!copy)
		return -ENOMEM;
	if (err && errlen)
		err[0] = '\0';
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool quiet = false;
		const struct syscall_desc *d;

		if (*tok == '?') {	/* strace: no error if unknown */
			quiet = true;
			tok++;
		}
		if (!strcmp(tok, "all")) {
			for (int i = 0; i < SYSCALL_NR_MAX; i++)
				set[i] = table[i].name != NULL;
		} else if (!strcmp(tok, "none")) {
			continue;
		} else if (*tok == '/') {	/* strace 5.2's /REGEX over the names */
			regex_t re;

			int rc = util__regcomp(&re, tok + 1, REG_EXTENDED | REG_NOSUB);

			if (rc) {
				char why[128];

				regerror(rc, NULL, why, sizeof(why));
				if (err && errlen)
					snprintf(err, errlen, "cannot compile the regular expression '%s': %s", tok + 1, why);
				free(copy);
				return -EBADMSG;
			}
			for (int i = 0; i < SYSCALL_NR_MAX; i++)
				if (table[i].name && !regexec(&re, table[i].name, 0, NULL, 0))
					set[i] = true;
			regfree(&re);
		} else if (*tok == '%') {
			unsigned c = syscall__class(tok);

			if (!c)
				goto unknown;
			for (int i = 0; i < SYSCALL_NR_MAX; i++)
				if (table[i].classes & c)
					set[i] = true;
		} else if ((d = syscall__by_name(tok))) {
			set[d->nr] = true;
		} else if (syscall__class_bare(tok)) {	/* strace takes "file" for "%file" */
			unsigned c = syscall__class_bare(tok);

			for (int i = 0; i < SYSCALL_NR_MAX; i++)
				if (table[i].classes & c)
					set[i] = true;
		} else {
unknown:
			if (quiet)
				continue;
			if (err && errlen)
				used += snprintf(err + used, used < errlen ? errlen - used : 0, "%s'%s'",
						 bad ? ", " : "", tok);
			bad++;
		}
	}
	free(copy);
	if (bad)
		return -EINVAL;
	if (neg)
		for (int i = 0; i < SYSCALL_NR_MAX; i++)
			set[i] = !set[i] && table[i].name;
	return 0;
}
