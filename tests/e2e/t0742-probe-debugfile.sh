#!/bin/bash
# sonde probe -l 'uprobe:BIN:*' and uprobes by name on a stripped binary whose
# symbols are in a separate debug file (lib/symbol/debugfile.h): one found through
# .gnu_debuglink next to the binary (compared with bpftrace 0.17's listing), one
# through the build-id layout under $SONDE_DEBUG_DIR (as Debian's -dbgsym
# packages install under /usr/lib/debug/.build-id), a debug file whose CRC does
# not match (ignored), and corrupted debug links and notes.
. "$(dirname "$0")/../lib.sh"

W=$WORKLOADS/watch
require_root 'debug files'

mkdir -p "$TMP/link" "$TMP/bid" "$TMP/dbg"
cp "$W" "$TMP/link/w" && objcopy --only-keep-debug "$TMP/link/w" "$TMP/link/w.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$TMP/link/w.debug" "$TMP/link/w"
cp "$W" "$TMP/bid/w"
id=$(readelf -n "$TMP/bid/w" | sed -n 's/.*Build ID: //p')
mkdir -p "$TMP/dbg/.build-id/${id:0:2}" &&
	objcopy --only-keep-debug "$TMP/bid/w" "$TMP/dbg/.build-id/${id:0:2}/${id:2}.debug" && strip -s "$TMP/bid/w"

test_expect_success 'the stripped copies have no symbols of their own' '
	test -n "$id" &&
	! nm "$TMP/link/w" 2>/dev/null | grep -q bump && ! nm "$TMP/bid/w" 2>/dev/null | grep -q bump
'

test_expect_success '-l through .gnu_debuglink: the static functions, as the unstripped binary lists them' '
	SONDE_DEBUG_DIR=$TMP/nowhere $SONDE probe -l "uprobe:$TMP/link/w:*" | sed "s|$TMP/link/w|BIN|" >got &&
	cp "$W" "$TMP/plain" && $SONDE probe -l "uprobe:$TMP/plain:*" | sed "s|$TMP/plain|BIN|" >expect &&
	test_cmp expect got && grep -q "^uprobe:BIN:bump$" got && grep -q "^uprobe:BIN:frame_dummy$" got
'

if have_bpftrace; then
	test_expect_success '-l through .gnu_debuglink is what bpftrace 0.17 lists' '
		bpftrace -l "uprobe:$TMP/link/w:*" >expect 2>/dev/null &&
		$SONDE probe -l "uprobe:$TMP/link/w:*" >got &&
		test_cmp expect got
	'
else
	test_skip '-l through .gnu_debuglink is what bpftrace 0.17 lists' 'bpftrace is not installed'
fi

test_expect_success 'a uprobe by name through .gnu_debuglink fires' '
	SONDE_DEBUG_DIR=$TMP/nowhere $SONDE probe -e "uprobe:$TMP/link/w:bump { @ = count(); }" -c "$TMP/link/w func 5" >out &&
	grep -q "^@: 5$" out
'

test_expect_success 'the build-id layout under SONDE_DEBUG_DIR: -l and a uprobe by name' '
	SONDE_DEBUG_DIR=$TMP/dbg $SONDE probe -l "uprobe:$TMP/bid/w:bump" >got &&
	echo "uprobe:$TMP/bid/w:bump" >expect && test_cmp expect got &&
	SONDE_DEBUG_DIR=$TMP/dbg $SONDE probe -e "uprobe:$TMP/bid/w:bump { @ = count(); }" -c "$TMP/bid/w func 3" >out &&
	grep -q "^@: 3$" out &&
	SONDE_DEBUG_DIR=$TMP/nowhere $SONDE probe -l "uprobe:$TMP/bid/w:*" >got &&
	! test -s got
'

test_expect_success 'a debug file whose CRC does not match the link is not used' '
	mkdir -p "$TMP/bad" && cp "$TMP/link/w" "$TMP/bad/w" && cp "$TMP/link/w.debug" "$TMP/bad/w.debug" &&
	printf x >>"$TMP/bad/w.debug" &&
	$SONDE probe -l "uprobe:$TMP/bad/w:*" >got && ! test -s got &&
	! $SONDE probe -e "uprobe:$TMP/bad/w:bump { }" 2>err && grep -q "cannot find function .bump." err
'

test_expect_success 'corrupted debug links and build-id notes: no crash, no symbols' '
	python3 - "$TMP/link/w" "$TMP/bid/w" "$TMP" <<-\PY &&
	import sys, subprocess
	link, bid, tmp = sys.argv[1:4]
	def sect_off(path, name):
	    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
	    for l in out.splitlines():
	        if " " + name + " " in l:
	            f = l.split("]")[1].split()
	            return int(f[3], 16), int(f[4], 16)
	    raise SystemExit("no " + name)
	for src, name, out, patch in [
	    (link, ".gnu_debuglink", "l1", lambda b, o, n: b[:o] + b"\xff" * n + b[o + n:]),
	    (link, ".gnu_debuglink", "l2", lambda b, o, n: b[:o] + b"../../etc/passwd\0"[:n] + b[o + min(n, 17):]),
	    (bid, ".note.gnu.build-id", "n1", lambda b, o, n: b[:o] + b"\xff\xff\xff\x7f" + b[o + 4:]),
	    (bid, ".note.gnu.build-id", "n2", lambda b, o, n: b[:o + 4] + b"\x00\x10\x00\x00" + b[o + 8:]),
	]:
	    b = open(src, "rb").read()
	    o, n = sect_off(src, name)
	    open(tmp + "/" + out, "wb").write(patch(b, o, n))
	PY
	# the two copies have the same build id: the links are tried with no build-id directory
	for f in l1 l2 n1 n2; do
		case $f in l*) d=$TMP/nowhere ;; *) d=$TMP/dbg ;; esac
		chmod +x "$TMP/$f" &&
		SONDE_DEBUG_DIR=$d $SONDE probe -l "uprobe:$TMP/$f:*" >got 2>err &&
		! test -s got || exit 1
	done
'

test_done
