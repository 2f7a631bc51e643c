/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framepointer.h - does an ELF file's code keep frame pointers? A stack walked
 * by frame pointers (what the kernel's bpf_get_stackid and perf -g do) skips
 * the caller of every function in an object built without them: Debian's libc
 * is one, so a thread blocked in nanosleep loses the function that called it.
 * Nothing is kept or returned to free.
 */
#ifndef SONDE_FRAMEPOINTER_H
#define SONDE_FRAMEPOINTER_H

/*
 * 1 when most functions of the x86-64 ELF file at path begin by setting up a
 * frame pointer (push %rbp; mov %rsp,%rbp, after an endbr64), 0 when they do
 * not, -errno when it cannot be read or has no function to look at (-ENOENT).
 */
int elf__frame_pointers(const char *path);

#endif
