#!/bin/bash
# sonde serve's libraries (libmicrohttpd and the gnutls it pulls in, libyaml,
# libcrypt) are opened by serve when it needs them, not linked: no other
# command pays for mapping them. Where one is broken or lacks a function
# (a stub found first through LD_LIBRARY_PATH), serve fails in one line that
# names the library and its Debian package, and every other command runs.
. "$(dirname "$0")/../lib.sh"
require_root 'sonde serve' 'perf events and BPF need root'

# stubs: a file that is no library, and a library without the functions serve calls
mkdir -p "$TMP/junk" "$TMP/empty"
for l in libmicrohttpd.so.12 libyaml-0.so.2 libcrypt.so.1; do echo "not a library" >"$TMP/junk/$l"; done
echo "int sonde_stub;" >"$TMP/stub.c"
cc -shared -fPIC -o "$TMP/empty/libmicrohttpd.so.12" "$TMP/stub.c" || exit 1
printf 'events:\n  - context-switches\n' >"$TMP/c.yaml"
printf 'basic_auth_users:\n  alice: $2y$05$abcdefghijklmnopqrstuuKAYrLXUpx2UX3P6zYfgtfnH0nwz6K.u\n' >"$TMP/web.yaml"

test_expect_success 'ldd: the binary needs none of libmicrohttpd, gnutls, libyaml, libcrypt' '
	ldd "$SONDE" >libs && grep -q "libc.so" libs &&
	! grep -E "microhttpd|gnutls|nettle|libyaml|libcrypt" libs &&
	readelf -d "$SONDE" >dyn && ! grep -E "NEEDED.*(microhttpd|yaml|crypt)" dyn
'

test_expect_success 'with a broken libmicrohttpd first in the path, other commands run' '
	LD_LIBRARY_PATH=$TMP/junk $SONDE --version | grep -q "^sonde version " &&
	LD_LIBRARY_PATH=$TMP/junk $SONDE stat -e task-clock -- true 2>out && grep -q task-clock out
'

test_expect_success 'serve: a broken libmicrohttpd is one line naming it and its package' '
	rc=0; LD_LIBRARY_PATH=$TMP/junk $SONDE serve --listen 127.0.0.1:0 >out 2>err || rc=$?; [ $rc = 1 ] &&
	test_cmp /dev/null out &&
	echo "sonde: cannot load '\''libmicrohttpd.so.12'\'' (serve'\''s HTTP): $TMP/junk/libmicrohttpd.so.12: file too short: install Debian'\''s package libmicrohttpd12" >expect &&
	test_cmp expect err
'

test_expect_success 'serve: a libmicrohttpd without its functions: the first missing one named' '
	rc=0; LD_LIBRARY_PATH=$TMP/empty $SONDE serve --listen 127.0.0.1:0 >out 2>err || rc=$?; [ $rc = 1 ] &&
	echo "sonde: cannot load '\''libmicrohttpd.so.12'\'' (serve'\''s HTTP): $TMP/empty/libmicrohttpd.so.12: undefined symbol: MHD_start_daemon: install Debian'\''s package libmicrohttpd12" >expect &&
	test_cmp expect err
'

test_expect_success 'serve -c: a broken libyaml is one line naming it, not the config' '
	mkdir y && cp "$TMP/junk/libyaml-0.so.2" y/ &&
	rc=0; LD_LIBRARY_PATH=$TMP/y $SONDE serve --listen 127.0.0.1:0 -c "$TMP/c.yaml" >out 2>err || rc=$?; [ $rc = 1 ] &&
	echo "sonde: cannot load '\''libyaml-0.so.2'\'' (serve'\''s YAML configs): $TMP/y/libyaml-0.so.2: file too short: install Debian'\''s package libyaml-0-2" >expect &&
	test_cmp expect err
'

test_expect_success 'serve --web-config with users: a broken libcrypt is one line; without users it is not needed' '
	mkdir c && cp "$TMP/junk/libcrypt.so.1" c/ &&
	rc=0; LD_LIBRARY_PATH=$TMP/c $SONDE serve --listen 127.0.0.1:0 --web-config "$TMP/web.yaml" >out 2>err || rc=$?
	[ $rc = 1 ] &&
	echo "sonde: cannot load '\''libcrypt.so.1'\'' (serve'\''s basic auth): $TMP/c/libcrypt.so.1: file too short: install Debian'\''s package libcrypt1" >expect &&
	test_cmp expect err
	LD_LIBRARY_PATH=$TMP/c $SONDE serve --listen 127.0.0.1:0 >out 2>err & pid=$!
	i=0; while ! grep -q "^sonde serve: listening on http://127.0.0.1:" out; do
		i=$((i + 1)); [ $i -lt 200 ] && kill -0 $pid || { cat err; kill $pid; exit 1; }; sleep 0.05
	done
	kill -TERM $pid && wait $pid && test_cmp /dev/null err
'

test_expect_success 'version --features: serve and tls yes where the libraries open, no (with the package) where not' '
	$SONDE version --features >f &&
	grep -Eq "^  serve +yes  .*libmicrohttpd [0-9.]+, its config by libyaml [0-9.]+" f && grep -Eq "^  tls +yes " f &&
	LD_LIBRARY_PATH=$TMP/junk $SONDE version --features >f &&
	grep -Eq "^  serve +no   .*cannot load .libmicrohttpd.so.12.*libmicrohttpd12$" f && grep -Eq "^  tls +no " f &&
	LD_LIBRARY_PATH=$TMP/c $SONDE version --features >f &&
	grep -Eq "^  serve +yes " f && grep -Eq "^  tls +no   .*libcrypt1$" f
'

test_done
