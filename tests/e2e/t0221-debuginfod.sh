#!/bin/bash
# libdwfl ends its search for a separate debug file with the debuginfod client,
# which it loads (libcurl, gnutls: a fifth of a short report) even when no
# server is named. sonde's search (debugfile__find_debuginfo) starts libdwfl's
# only where a debug file could be or a server is named: the same names, and
# the client is not loaded for nothing.
. "$(dirname "$0")/../lib.sh"

# how many times a run loads libdebuginfod
loaded() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -c "file=libdebuginfod" || :; }
# addresses in this shell's [vdso] and libc (no debug file for either here)
start_of() { awk -v m="$1" 'index($0, m) && $2 ~ /x/ { split($1, a, "-"); print a[1]; exit }' /proc/$$/maps; }
VDSO=$(start_of "[vdso]")
LIBC=$(start_of "libc.so.6")
ADDRS="$(printf "%x" $((0x$VDSO + 0x10))) $(printf "%x" $((0x$LIBC + 0x1000)))"

test_expect_success 'no server named: addr2sym does not load the debuginfod client' '
	[ -n "$VDSO" ] && [ -n "$LIBC" ] &&
	[ $(unset DEBUGINFOD_URLS; loaded $SONDE addr2sym -p $$ $ADDRS) = 0 ] &&
	[ $(export DEBUGINFOD_URLS=; loaded $SONDE addr2sym -p $$ $ADDRS) = 0 ]
'

test_expect_success 'a server named: libdwfl asks it, as before; the names are the same' '
	export DEBUGINFOD_TIMEOUT=1 DEBUGINFOD_CACHE_PATH=$TMP/dcache &&
	[ $(export DEBUGINFOD_URLS=http://127.0.0.1:9; loaded $SONDE addr2sym -p $$ $ADDRS) -ge 1 ] &&
	(unset DEBUGINFOD_URLS; $SONDE addr2sym -p $$ $ADDRS >without) &&
	(export DEBUGINFOD_URLS=http://127.0.0.1:9; $SONDE addr2sym -p $$ $ADDRS >with) &&
	test_cmp with without && grep -q "libc.so.6" with
'

test_done
