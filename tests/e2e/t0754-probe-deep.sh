#!/bin/bash
# Deeply nested or very long programs (issue 17 item 5): the parser bounds its
# nesting (parentheses, prefix operators, statements) and the depth of the
# tree (a chain 1+1+... counts each operator) with a file:line:col error and a
# caret, instead of overflowing the stack; a chain of binary operators is
# parsed, checked and generated in a loop, so long ones compile and run.
. "$(dirname "$0")/../lib.sh"

require_root 'deep programs'

# deep KIND N: a program nesting KIND N times into deep.bt
deep() {
	python3 - "$1" "$2" >deep.bt <<'PY'
import sys
kind, n = sys.argv[1], int(sys.argv[2])
if kind == 'parens':
    print('BEGIN { $x = ' + '(' * n + '1' + ')' * n + '; printf("%d\\n", $x); exit(); }')
elif kind == 'if':
    print('BEGIN { ' + 'if (1) { ' * n + 'printf("in\\n");' + ' }' * n + ' exit(); }')
elif kind == 'not':
    print('BEGIN { $x = ' + '!' * n + '1; printf("%d\\n", $x); exit(); }')
elif kind == 'chain':
    print('BEGIN { $x = ' + '+'.join(['1'] * n) + '; printf("%d\\n", $x); exit(); }')
elif kind == 'sum':
    print('BEGIN { $x = ' + '+'.join(str(i) for i in range(1, n + 1)) + '; printf("%d\\n", $x); exit(); }')
PY
}

# a clear error: "deep.bt:1:COL: error: WHAT", the source line, a caret, and nothing else
deep_error() {
	rc=0
	$SONDE probe --dry-run deep.bt >out 2>err || rc=$?
	[ $rc = 1 ] && [ "$(wc -l <err)" = 3 ] &&
	head -1 err | grep -E "^deep.bt:1:[0-9]+: error: $1" &&
	tail -1 err | grep -qE '^ *\^$'
}

test_expect_success '20000 nested parentheses: an error with a caret' '
	deep parens 20000 &&
	deep_error "nested more than 200 levels deep"
'

test_expect_success '20000 nested ifs: an error with a caret' '
	deep if 20000 &&
	deep_error "nested more than 200 levels deep"
'

test_expect_success '20000 prefix operators (!!!...1): an error with a caret' '
	deep not 20000 &&
	deep_error "nested more than 200 levels deep"
'

test_expect_success 'a 50000-term chain 1+1+...: an error with a caret' '
	deep chain 50000 &&
	deep_error "the program nests 50002 levels deep here, more than the 2000 sonde allows"
'

test_expect_success 'a chain of 100 terms compiles (it overflowed the 512-byte BPF stack) and runs' '
	deep sum 100 &&
	$SONDE probe deep.bt >out 2>err &&
	grep -qx 5050 out
'

if [ -n "${SONDE_SANITIZED:-}" ]; then
	test_skip 'programs at the limits under a 256 KB stack' 'ASan frames are larger'
	test_done
	exit
fi

test_expect_success '3000 nested parentheses under ulimit -s 256: the error, not a crash' '
	deep parens 3000 &&
	(ulimit -s 256; rc=0; $SONDE probe --dry-run deep.bt >out 2>err || rc=$?; [ $rc = 1 ]) &&
	grep -q "nested more than 200 levels deep" err
'

test_expect_success 'just under the limits, under ulimit -s 256: 190 parentheses, 190 ifs, 1990 terms run' '
	deep parens 190 && (ulimit -s 256 && $SONDE probe deep.bt >out 2>err) && grep -qx 1 out &&
	deep if 190 && (ulimit -s 256 && $SONDE probe deep.bt >out 2>err) && grep -qx in out &&
	deep chain 1990 && (ulimit -s 256 && $SONDE probe deep.bt >out 2>err) && grep -qx 1990 out
'

test_done
