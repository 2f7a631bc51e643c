/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - sonde's version: `sonde --version` prints it and the perf.data
 * writer stores it in the VERSION feature (perf report --header shows it).
 * It lives in the engine so the engine never includes upward (sonde.h).
 */
#ifndef SONDE_LIB_VERSION_H
#define SONDE_LIB_VERSION_H

#define SONDE_VERSION "0.1.0"

#endif
