/* SPDX-License-Identifier: GPL-2.0 */
/* ftrace_dat.h - `sonde ftrace report` (ftrace_dat.c), called by cmd_ftrace; it returns an exit status, nothing to own */
#ifndef SONDE_CMD_FTRACE_DAT_H
#define SONDE_CMD_FTRACE_DAT_H

int ftrace_dat__report(int argc, char **argv);

#endif
