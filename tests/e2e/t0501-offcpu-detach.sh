#!/bin/bash
# sonde offcpu leaves no BPF program behind: after a normal end, Ctrl-C (SIGINT)
# and SIGTERM, every program it loaded (found through its fdinfo while it ran)
# is gone from the kernel, and it still prints what it collected.
. "$(dirname "$0")/../lib.sh"

if ! is_root || ! command -v bpftool >/dev/null; then
	test_skip 'BPF programs are detached on exit' 'needs root and bpftool'
	test_done
	exit
fi

W=$WORKLOADS/offcpu

# the ids of the BPF programs process $1 holds
prog_ids() { cat /proc/$1/fdinfo/* 2>/dev/null | sed -n "s/^prog_id:[[:space:]]*//p" | sort -u; }

# start sonde offcpu with "$@" in the background, wait until its programs are loaded
# (the feature probe's short-lived test program may show up first: wait for ids that stay)
start() {
	"$SONDE" offcpu "$@" >out 2>err &
	spid=$!
	for i in $(seq 250); do
		ids=$(prog_ids $spid)
		if [ -n "$ids" ]; then
			all=1
			for id in $ids; do bpftool prog show id $id >/dev/null 2>&1 || all=; done
			[ -n "$all" ] && break
		fi
		sleep 0.02
	done
	echo "programs: $ids"
	[ -n "$ids" ] && [ -n "$all" ]
}

gone() {
	for id in $ids; do
		if bpftool prog show id $id >/dev/null 2>&1; then
			echo "program $id still loaded"; bpftool prog show id $id; return 1
		fi
	done
}

test_expect_success 'normal end (-- CMD exits): programs unloaded, profile printed' '
	start -f -- $W 10 60 10 && wait $spid && gone &&
	grep -q "main;block_here;" out
'

test_expect_success 'Ctrl-C (SIGINT) ends it cleanly: exit 0, profile printed, programs unloaded' '
	$W 100 50 10 & wpid=$! &&
	start -f -p $wpid && sleep 0.5 && kill_ready INT $spid && wait $spid && gone &&
	grep -q "main;block_here;" out && ok=1
	kill $wpid 2>/dev/null || :; wait $wpid || :
	[ "${ok:-}" = 1 ]
'

test_expect_success 'SIGTERM ends it cleanly too, also in --wall mode (perf events closed)' '
	$W 100 50 10 20 & wpid=$! &&
	start --wall -p $wpid && sleep 0.5 && kill_ready TERM $spid && wait $spid && gone &&
	grep -q "burn_here [0-9]*$" out && grep -q "block_here_\[w\];" out && ok=1
	kill $wpid 2>/dev/null || :; wait $wpid || :
	[ "${ok:-}" = 1 ]
'

test_expect_success 'SIGINT while tracing a -- CMD: the command ends too (its 130 is the exit), nothing left loaded' '
	start -f -- $W 100 50 10 && sleep 0.4 && kill_ready INT $spid && { rc=0; wait $spid || rc=$?; } && [ $rc = 130 ] && gone &&
	! pgrep -f "$W 100 50 10" &&
	grep -q "main;block_here;" out
'

test_done
