#!/bin/bash
# The tests that need kprobes, fentry or the function tracer, which this machine's
# kernel lacks: tests/vm/run.sh boots Debian's cloud kernel in qemu with sonde inside
# and runs them there (tests/vm/README.md). Their results are counted with the rest
# (vm/NAME: ...); without the VM's packages or kernel they report one skip, with why.
# -nosan: once per `make test` (the VM gets the plain static build).
# Then a second boot of Debian's PREEMPT_RT kernel for the tests/vm/t*-vmrt-*.sh scripts.
# Both took 656 s at load 7 (tcg emulates the guest); a hung guest is stopped by run.sh.
# e2e-timeout: 1800
"$(dirname "$0")/../vm/run.sh"; rc=$?
VM_KERNEL=rt "$(dirname "$0")/../vm/run.sh" || rc=1
exit $rc
