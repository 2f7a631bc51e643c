/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysdecode_int.h - the name tables the decoders share inside sysdecode*.c
 * (defined in sysdecode_names.c, in the order strace prints them). Static data:
 * nobody frees them.
 */
#ifndef SONDE_SYSDECODE_INT_H
#define SONDE_SYSDECODE_INT_H

#include "lib/syscall/sysdecode.h"

extern const struct sd_name sdn_families[];
extern const struct sd_name sdn_sa_flags[];
extern const struct sd_name sdn_at_flags[];
extern const struct sd_name sdn_access_modes[];
extern const struct sd_name sdn_whence[];
extern const struct sd_name sdn_sighow[];
extern const struct sd_name sdn_socktypes[];
extern const struct sd_name sdn_sockflags[];
extern const struct sd_name sdn_msgflags[];
extern const struct sd_name sdn_shuthow[];
extern const struct sd_name sdn_rlimits[];
extern const struct sd_name sdn_archprctl[];
extern const struct sd_name sdn_clocks[];
extern const struct sd_name sdn_grnd[];
extern const struct sd_name sdn_madv[];
extern const struct sd_name sdn_mremap_flags[];
extern const struct sd_name sdn_wopts[];
extern const struct sd_name sdn_fcntl_cmds[];
extern const struct sd_name sdn_futex_ops[];
extern const struct sd_name sdn_ipprotos[];
extern const struct sd_name sdn_fd_flags[];
extern const struct sd_name sdn_ioctl_cmds[];
extern const struct sd_name sdn_statx_masks[];
extern const struct sd_name sdn_statx_attrs[];

#endif
