# lib.sh - helpers for bench/*.sh: timing commands the same way for every tool.

# best_of N CMD...: the fastest wall time of N runs, in seconds (stdout/stderr discarded)
best_of() {
	local n=$1 best= t
	shift
	for _ in $(seq "$n"); do
		t=$(python3 -c "import time,subprocess,sys
s=time.perf_counter(); subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); print(time.perf_counter()-s)" "$@")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
	done
	echo "$best"
}

# median3 CMD...: three runs of CMD (output discarded): the median wall time in seconds
# and the median peak RSS in MB, on one line. The RSS is /usr/bin/time's: a child forked
# by python would count python's pages until its exec.
median3() {
	python3 -c 'import os, subprocess, sys, tempfile, time
w, m = [], []
with tempfile.NamedTemporaryFile() as f:
	for _ in range(3):
		s = time.perf_counter()
		subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name] + sys.argv[1:],
			       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
		w.append(time.perf_counter() - s)
		m.append(int(open(f.name).read().split()[-1]) / 1024)
print("%.3f %.0f" % (sorted(w)[1], sorted(m)[1]))' "$@"
}

# ratio A B: A/B with 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }

# added A BASE: A - BASE, never below zero
added() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = 0; printf "%.6f", d }'; }

# prog_stats: "ID RUN_TIME_NS" for every loaded BPF program (bpftool; the run time counts
# while kernel.bpf_stats_enabled is 1)
prog_stats() {
	bpftool prog show --json | python3 -c 'import json, sys
for p in json.load(sys.stdin): print(p["id"], p.get("run_time_ns", 0))'
}
# ns_of IDS BEFORE AFTER: run time the programs IDS (a file of ids) gained between two prog_stats
ns_of() {
	awk 'FILENAME == ARGV[1] { want[$1] = 1; next } FILENAME == ARGV[2] { b[$1] = $2; next }
	     ($1 in want) { s += $2 - b[$1] } END { printf "%d", s }' "$1" "$2" "$3"
}

# stop PID...: SIGINT until they are gone (a background job starts with SIGINT
# ignored, until the tool installs its handler: one sent before that is lost)
stop() {
	local i p
	for i in $(seq 20); do
		for p in "$@"; do kill -INT "$p" 2>/dev/null; done
		sleep 0.5
		kill -0 "$@" 2>/dev/null || break
	done
	wait "$@" 2>/dev/null
}
