#!/bin/bash
# The hub: help, version, every command answers --help, mistyped commands.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'sonde --help lists every command' '
	$SONDE --help >out &&
	for c in $(sed -n "s/^   \([a-z]*\) .*/\1/p" out); do n=$((${n:-0}+1)); done &&
	[ "$n" -ge 2 ] && grep -q "^   stat " out && grep -q "^   list " out
'

test_expect_success 'every command answers --help and help CMD, exit 0' '
	$SONDE --help | sed -n "s/^   \([a-z]*\) .*/\1/p" >cmds &&
	[ -s cmds ] &&
	while read c; do
		$SONDE $c --help >h1 && grep -q "^usage: sonde $c" h1 &&
		$SONDE help $c >h2 && test_cmp h1 h2 || exit 1
	done <cmds
'

test_expect_success 'sonde --version' '
	$SONDE --version | grep -E "^sonde version [0-9]+\.[0-9]+"
'

test_expect_success 'a mistyped command gets a suggestion and exit 1' '
	! $SONDE stta 2>err &&
	grep -q "'\''stta'\'' is not a sonde command" err &&
	grep -q "^	stat$" err
'

test_expect_success 'an unknown option is one error line and where to read more, exit 129' '
	rc=0; $SONDE stat --bogus true 2>err || rc=$? &&
	[ $rc -eq 129 ] && head -1 err | grep -q "^sonde: unknown option .--bogus." &&
	printf "%s\n" "see '\''sonde stat --help'\''" >expect && tail -n +2 err >rest && test_cmp expect rest
'

test_expect_success 'no command prints the usage and fails' '
	! $SONDE 2>err && grep -q "^usage: sonde" err
'

test_expect_success 'long options take unique prefixes' '
	$SONDE stat --field-sep=, -e task-clock true 2>out &&
	grep -q "^[0-9.]*,msec,task-clock," out
'

test_done
