#!/bin/bash
# sonde flame --format pprof, checked by protoc: the gunzip'd file decodes as
# perftools.profiles.Profile (tests/e2e/data/profile.proto, written from the
# public format), and the stacks rebuilt from protoc's text are the input's.
. "$(dirname "$0")/../lib.sh"

PROTO=$ROOT/tests/e2e/data
if ! command -v protoc >/dev/null; then
	test_skip 'pprof export decodes with protoc' "protoc is missing (Debian protobuf-compiler, scripts/deps.sh test)"
	test_done
	exit
fi

# protoc's text form -> "root;...;leaf count" lines, sorted
rebuild() {
	python3 -c '
import sys, re
text = sys.stdin.read()
strings = [eval(s) if s.startswith("\"") else s for s in re.findall(r"^string_table: (\".*\")$", text, re.M)]
strings = [s.encode("latin-1").decode("utf-8") if isinstance(s, str) else s for s in strings]
funcs = {int(i): int(n) for i, n in re.findall(r"^function \{\n  id: (\d+)\n  name: (\d+)", text, re.M)}
locs = {int(i): int(f) for i, f in re.findall(r"^location \{\n  id: (\d+)\n  line \{\n    function_id: (\d+)", text, re.M)}
assert strings[0] == "", "string_table[0] must be empty"
out = []
for body in re.findall(r"^sample \{\n(.*?)^\}", text, re.M | re.S):
    ids = [int(x) for x in re.findall(r"location_id: (\d+)", body)]
    vals = re.findall(r"value: (\d+)", body)
    assert len(vals) == 1
    out.append(";".join(strings[funcs[locs[i]]] for i in reversed(ids)) + " " + vals[0])
print("\n".join(sorted(out)))
print("types", strings[1], strings[2])
'
}
# the input merged by stack, as the same lines
merged() { awk '{ c = $NF; s = substr($0, 1, length($0) - length($NF) - 1); sum[s] += c } END { for (s in sum) print s, sum[s] }' "$@" | LC_ALL=C sort; }

cat >"$TMP/in.folded" <<'EOF2'
main;do_work;hot_loop 600
main;do_work;warm_loop 300
main;cold_path 60
main;do_work;hot_loop 25
main;do_io;sys_write_[k] 40
other;hot_loop 3
EOF2

test_expect_success 'the export is gzip, decodes with protoc, and holds the input stacks' '
	$SONDE flame --format pprof in.folded -o p.pb.gz 2>/dev/null &&
	gzip -t p.pb.gz &&
	gzip -dc p.pb.gz | protoc --proto_path="$PROTO" --decode=perftools.profiles.Profile "$PROTO/profile.proto" >p.txt &&
	rebuild <p.txt >actual &&
	{ merged in.folded; echo "types samples count"; } >expect &&
	test_cmp expect actual &&
	grep -q "^period_type {" p.txt && grep -qx "period: 1" p.txt
'

test_expect_success '--countname bytes gives the sample type bytes/bytes' '
	$SONDE flame --format pprof --countname bytes in.folded >b.pb.gz &&
	gzip -dc b.pb.gz | protoc --proto_path="$PROTO" --decode=perftools.profiles.Profile "$PROTO/profile.proto" | rebuild | grep -qx "types bytes bytes"
'

test_expect_success 'the check can fail: protoc rejects a truncated profile' '
	gzip -dc p.pb.gz | head -c 100 >cut.pb &&
	! protoc --proto_path="$PROTO" --decode=perftools.profiles.Profile "$PROTO/profile.proto" <cut.pb >/dev/null 2>&1
'

test_expect_success 'invalid UTF-8 in names becomes U+FFFD (proto3 strings are UTF-8)' '
	printf "main;bad\\xffname 5\n" >odd.folded &&
	$SONDE flame --format pprof odd.folded 2>/dev/null | gzip -dc |
		protoc --proto_path="$PROTO" --decode=perftools.profiles.Profile "$PROTO/profile.proto" | rebuild >odd &&
	grep -qx "main;bad�name 5" odd
'

test_expect_success 'nothing to export is an error, exit 2' '
	printf "junk\n" >junk.folded &&
	rc=0 && $SONDE flame --format pprof junk.folded >/dev/null 2>err || rc=$? && [ $rc = 2 ] &&
	grep -q "nothing to export" err
'

test_done
