/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfile.h - a binary's separate debug file (the one `objcopy --only-keep-debug`
 * makes and Debian's -dbgsym packages install): found through the binary's
 * build-id note (DIR/.build-id/xx/rest.debug) or its .gnu_debuglink section
 * (next to the binary, in its .debug/ directory, or under DIR plus the
 * binary's directory), DIR being $SONDE_DEBUG_DIR or /usr/lib/debug. Nothing
 * is kept; the caller owns the buffers it passes.
 */
#ifndef SONDE_DEBUGFILE_H
#define SONDE_DEBUGFILE_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* the GNU build-id in a note section's bytes: its length (at most max), or 0 */
size_t debugfile__note_build_id(const void *buf, size_t n, uint8_t *id, size_t max);
/* a .gnu_debuglink section's bytes: the file name (NUL-terminated in name) and its CRC-32; 0 or -EINVAL */
int debugfile__parse_debuglink(const void *buf, size_t n, char *name, size_t len, uint32_t *crc);
/* the debug file of e (opened from path) into out; 0 or -ENOENT */
int debugfile__find(Elf *e, const char *path, char *out, size_t len);

/*
 * libdwfl's find_debuginfo callback: dwfl_standard_find_debuginfo, except that
 * with no debuginfod server to ask (DEBUGINFOD_URLS unset or empty) and nothing
 * where its local search looks, that search is not started: its last step loads
 * the debuginfod client (libcurl, gnutls: 8,000 relocations, a fifth of a short
 * report) to find no server. *userdata is the symbolizer's debug path (char **,
 * as Dwfl_Callbacks.debuginfo_path); NULL: the standard search.
 */
int debugfile__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			      char **debuginfo_file_name);

#endif
