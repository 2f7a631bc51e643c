#!/bin/bash
# serve.sh - sonde serve's cost as an agent: idle CPU and RSS while
# scraped every second, next to Debian's prometheus-node-exporter scraped the
# same way (its row says so when it is not installed), the bytes of one
# scrape; then --continuous at 19 Hz on a busy machine: the agent's CPU time
# as a share of the CPU time of the window (the issue's bound: 1%).
#   SECONDS_IDLE (30), SECONDS_BUSY (20)
set -u
cd "$(dirname "$0")/.."
SONDE=${SONDE:-$PWD/build/sonde}
W=${BUILD:-$PWD/build}/workloads
IDLE=${SECONDS_IDLE:-30}
BUSY=${SECONDS_BUSY:-20}
TMP=$(mktemp -d /tmp/bench-serve.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -TERM $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
HZ=$(getconf CLK_TCK)
NCPU=$(nproc)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# cpu_ticks PID: utime + stime of the process (every thread)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# measure NAME PID URL: scrape URL every second for IDLE seconds
measure() {
	local name=$1 pid=$2 url=$3 t0 t1 bytes
	sleep 1
	t0=$(cpu_ticks "$pid")
	for _ in $(seq "$IDLE"); do curl -s -o "$TMP/scrape" "$url"; sleep 1; done
	t1=$(cpu_ticks "$pid")
	bytes=$(stat -c %s "$TMP/scrape")
	awk -v n="$name" -v d=$((t1 - t0)) -v hz="$HZ" -v s="$IDLE" -v r="$(rss_kb "$pid")" -v b="$bytes" \
		'BEGIN { c = d / hz; printf "%-26s %8.3f %8.2f%% %9d %9d\n", n, c, 100 * c / s, r, b }'
	echo "$((t1 - t0)) $(rss_kb "$pid")" >"$TMP/cost.$name"
}

printf "%-26s %8s %9s %9s %9s\n" "idle, scraped every 1 s" "cpu s" "of 1 CPU" "RSS KB" "bytes"
p=$(free_port)
"$SONDE" serve --listen 127.0.0.1:$p >/dev/null 2>&1 & pids+=($!)
measure sonde $! "http://127.0.0.1:$p/metrics"
NE=$(command -v prometheus-node-exporter || true)
if [ -n "$NE" ]; then
	p=$(free_port)
	"$NE" --web.listen-address=127.0.0.1:$p >/dev/null 2>&1 & pids+=($!)
	measure node_exporter $! "http://127.0.0.1:$p/metrics"
	read -r sc sr <"$TMP/cost.sonde"; read -r nc nr <"$TMP/cost.node_exporter"
	awk -v sc="$sc" -v nc="$nc" -v sr="$sr" -v nr="$nr" 'BEGIN {
		printf "ratio sonde/node_exporter: CPU %s, RSS %.2f\n", nc ? sprintf("%.2f", sc / nc) : "n/a (node_exporter 0 ticks)", sr / nr }'
else
	echo "prometheus-node-exporter: not installed (apt-get install prometheus-node-exporter)"
fi

echo
p=$(free_port)
"$SONDE" serve --listen 127.0.0.1:$p --continuous 10s >/dev/null 2>&1 & agent=$!; pids+=($agent)
"$W/spin" $((BUSY + 2)) "$NCPU" >/dev/null & spin=$!
sleep 1
t0=$(cpu_ticks $agent)
sleep "$BUSY"
t1=$(cpu_ticks $agent)
wait $spin
awk -v d=$((t1 - t0)) -v hz="$HZ" -v s="$BUSY" -v n="$NCPU" 'BEGIN {
	c = d / hz; printf "--continuous 10s at 19 Hz, %d CPUs busy for %d s: agent %.3f CPU s = %.3f%% of the CPU time (bound 1%%)\n", n, s, c, 100 * c / (s * n) }'
