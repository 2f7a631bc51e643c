#!/bin/bash
# sonde probe: fixes of known bugs, each checked against what bpftrace prints (0.17 where it has
# the feature, upstream's docs where only newer bpftrace has it):
# errorf()/warnf() on stderr with the call's place ("stdin:1:9-62: ERROR: ...", upstream's stdlib.md).
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	test_skip 'sonde probe fixes' 'BPF needs root'
	test_done
	exit
fi

test_expect_success 'errorf()/warnf(): stderr, with the place of the call; stdout keeps the rest' '
	$SONDE probe -e "BEGIN { errorf(\"Something bad with args: %d, %s\", 10, \"arg2\"); printf(\"out\\n\");
  warnf(\"w %d%%\", 5); exit(); }" >out 2>err &&
	printf "Attaching 1 probe...\nout\n\n\n" >want && test_cmp want out &&
	printf "stdin:1:9-62: ERROR: Something bad with args: 10, arg2\nstdin:2:3-21: WARNING: w 5%%\n" >want &&
	test_cmp want err
'

test_done
