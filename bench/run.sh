#!/bin/bash
# run.sh - every benchmark in bench/*.sh, each comparing sonde with its anchor tool
# in the same run and printing ratios. Not part of `make test`: timing belongs here.
#   bench/run.sh [NAME...]    (e.g. bench/run.sh stat)
set -u
cd "$(dirname "$0")/.."
export SONDE=${SONDE:-$PWD/build/sonde} BUILD=${BUILD:-$PWD/build}
rc=0
for b in bench/*.sh; do
	name=$(basename "$b" .sh)
	[ "$name" = run ] && continue
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "== bench/$name"
	bash "$b" || { echo "bench/$name failed"; rc=1; }
	echo
done
exit $rc
