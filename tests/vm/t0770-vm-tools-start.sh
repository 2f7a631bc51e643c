#!/bin/bash
# `sonde tools` on Debian 12's own kernel (6.1, with kprobes: the VM's) compiles and loads
# every tool's programs, as it does on this machine: each must be "yes" there. A tool can
# load on a newer kernel and not on 6.1 (len()'s kfunc came in 6.6, and syscount and
# biolatency did not start on 6.1 until len() learnt to walk the map).
. "$(dirname "$0")/../lib.sh"

test_expect_success 'sonde tools: every tool loads on this kernel (yes), none refused' '
	$SONDE tools >list &&
	cat list &&
	test $(grep -c "^[a-z]" list) -ge 35 &&
	! grep -E "^[a-z0-9]+ +(no|part) " list
'
test_done
