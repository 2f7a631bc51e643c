#!/bin/bash
# sonde probe runs the language tests in tests/lang/*.test (jq.test style):
#   === description          %%FAIL description
#   PROGRAM                  PROGRAM
#   ---                      ---
#   expected stdout          expected stderr (the error with its caret)
# Expected outputs of === blocks come from bpftrace 0.17 (tests/lang/gen.sh).
. "$(dirname "$0")/../lib.sh"

# split every block into $TMP/blocks/N.{kind,desc,prog,exp}
mkdir -p "$TMP/blocks"
for f in "$ROOT"/tests/lang/*.test; do
	awk -v dir="$TMP/blocks" -v file="$(basename "$f" .test)" -v start="$(ls "$TMP/blocks" | wc -l)" '
		function open_block(kind, desc) {
			n++; base = dir "/" sprintf("%05d", start + n)
			print kind > (base ".kind"); print file ": " desc > (base ".desc")
			printf "" > (base ".prog"); printf "" > (base ".exp"); state = "prog"
		}
		/^=== /    { open_block("OK", substr($0, 5)); next }
		/^%%FAIL / { open_block("FAIL", substr($0, 8)); next }
		state == "prog" && $0 == "---" { state = "exp"; next }
		state == "prog" { print > (base ".prog"); next }
		state == "exp"  { print > (base ".exp"); next }
	' "$f"
done

require_root 'language tests'
for k in "$TMP"/blocks/*.kind; do
	b=${k%.kind}
	export PROG="$b.prog" EXP="$b.exp"
	if [ "$(cat "$k")" = FAIL ]; then
		test_expect_success "error: $(cat "$b.desc")" '
			! $SONDE probe --dry-run -e "$(cat "$PROG")" >out 2>err &&
			test_cmp "$EXP" err
		'
	else
		test_expect_success "$(cat "$b.desc")" '
			$SONDE probe -e "$(cat "$PROG")" >out &&
			test_cmp "$EXP" out
		'
	fi
done
test_done
