#!/bin/bash
# sonde serve's probes: programs of the probe language named in the config,
# their maps in /metrics as ebpf_exporter exports BPF maps. Known workloads
# (a copy of the syscalls workload and of dd, under names of their own) give
# exact counts and bucket counts; Prometheus reads one back; the label limit
# drops and counts; a broken program refuses the start in one line; SIGTERM
# leaves no program behind; --listen takes IPv6.
. "$(dirname "$0")/../lib.sh"
require_root 'sonde serve probes' 'BPF needs root'

# serve_start NAME HOST ARGS...: sonde serve on a free port of HOST; $NAME_PID, $NAME_URL
serve_start() {
	local name=$1 host=$2 i=0 port pat
	shift 2
	pat=$(printf %s "$host" | sed 's/[][]/\\&/g')
	$SONDE serve --listen "$host:0" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	eval "${name}_PID=$!"
	echo $! >>"$TMP/.servers"
	while ! port=$(sed -n "s|^sonde serve: listening on http://$pat:\([0-9]*\)/\$|\1|p" "$TMP/$name.out") ||
	      [ -z "$port" ]; do
		i=$((i + 1))
		[ $i -lt 400 ] || { echo "sonde serve did not start:"; cat "$TMP/$name.err"; return 1; }
		sleep 0.05
	done
	eval "${name}_URL=http://$host:$port"
}
trap '[ -s "$TMP/.servers" ] && kill -TERM $(cat "$TMP/.servers") 2>/dev/null; _end_tools; rm -rf "$TMP"' EXIT

cp "$WORKLOADS/syscalls" "$TMP/t0881sc"
cp "$(command -v dd)" "$TMP/t0881dd"
cat >"$TMP/probes.yaml" <<'EOF'
label_limit: 2
probes:
  - name: t0881
    program: |
      tracepoint:syscalls:sys_enter_getppid /comm == "t0881sc"/ { @calls[comm] = count(); }
      tracepoint:syscalls:sys_enter_write /comm == "t0881dd"/ {
        @bytes = hist(args->count);
        @writes[comm, args->count] = count();
        @most = max(args->count);
        printf("%d\n", args->count);
      }
    labels:
      calls: [comm]
      "@writes": [comm, size]
  - name: sizes
    file: sizes.bt
EOF
cat >"$TMP/sizes.bt" <<'EOF'
tracepoint:syscalls:sys_enter_write /comm == "t0881dd"/ { @ = lhist(args->count, 0, 4000, 1000); @mean = avg(args->count); }
EOF

test_expect_success 'a program that does not compile: the start refused in one line that names it' '
	printf "probes:\n  - name: bad\n    program: \"tracepoint:syscalls:sys_enter_write { @x = nosuch(); }\"\n" >bad.yaml &&
	rc=0; $SONDE serve --listen 127.0.0.1:0 -c bad.yaml >out 2>err || rc=$?; [ $rc = 1 ] &&
	cat err && [ $(wc -l <err) = 1 ] && grep -q "probe .bad.: bad:1:.*nosuch" err && ! [ -s out ]
'

test_expect_success 'config errors of probes say where' '
	printf "probes:\n  - name: x y\n    program: \"BEGIN {}\"\n" >bad2.yaml &&
	rc=0; $SONDE serve -c bad2.yaml >out 2>err || rc=$?; [ $rc = 1 ] && grep -q "line 2, column 11: name:" err &&
	printf "probes:\n  - name: x\n" >bad3.yaml &&
	rc=0; $SONDE serve -c bad3.yaml >out 2>err || rc=$?; [ $rc = 1 ] && grep -q "either program or file" err
'

cd "$TMP" && serve_start A 127.0.0.1 -c "$TMP/probes.yaml" || exit 1	# file: sizes.bt, here

# the BPF programs and links the agent holds (their ids, from its descriptors' fdinfo)
held() { cat /proc/$1/fdinfo/* 2>/dev/null | sed -n "s/^\(prog_id\|link_id\):[[:space:]]*/\1 /p" | sort -u; }
held $A_PID >"$TMP/held"
test_expect_success 'the programs are loaded and attached while the agent serves' '
	cat held && grep -q "^prog_id " held && grep -q "^link_id " held
'

test_expect_success '/metrics: a count by comm, a hist with its buckets, a 2-part key, a max, the output counted' '
	"$TMP/t0881sc" 1234 &&
	"$TMP/t0881dd" if=/dev/zero of=/dev/null bs=100 count=5 status=none &&
	"$TMP/t0881dd" if=/dev/zero of=/dev/null bs=3000 count=2 status=none &&
	curl -sf $A_URL/metrics >m &&
	grep -qx "# TYPE sonde_probe_t0881_calls_total counter" m &&
	grep -qx "sonde_probe_t0881_calls_total{comm=\"t0881sc\"} 1234" m &&
	grep -qx "# TYPE sonde_probe_t0881_bytes histogram" m &&
	grep "^sonde_probe_t0881_bytes" m >h && cat h &&
	grep -qx "sonde_probe_t0881_bytes_bucket{le=\"63\"} 0" h &&
	grep -qx "sonde_probe_t0881_bytes_bucket{le=\"127\"} 5" h &&
	grep -qx "sonde_probe_t0881_bytes_bucket{le=\"2047\"} 5" h &&
	grep -qx "sonde_probe_t0881_bytes_bucket{le=\"4095\"} 7" h &&
	grep -qx "sonde_probe_t0881_bytes_bucket{le=\"+Inf\"} 7" h &&
	grep -qx "sonde_probe_t0881_bytes_count 7" h &&
	grep -qx "sonde_probe_t0881_bytes_sum 0" h &&
	! grep -q "le=\"8191\"" h &&
	grep -qx "sonde_probe_t0881_writes_total{comm=\"t0881dd\",size=\"100\"} 5" m &&
	grep -qx "sonde_probe_t0881_writes_total{comm=\"t0881dd\",size=\"3000\"} 2" m &&
	grep -qx "# TYPE sonde_probe_t0881_most gauge" m &&
	grep -qx "sonde_probe_t0881_most 3000" m &&
	grep -qx "sonde_probe_output_lines_total{probe=\"t0881\"} 7" m &&
	grep -qx "sonde_probe_output_lines_total{probe=\"sizes\"} 0" m
'

test_expect_success "a program from a file: an lhist of @ alone (its buckets' bounds), an avg" '
	grep "^sonde_probe_sizes" m >l && cat l &&
	grep -qx "sonde_probe_sizes_bucket{le=\"-1\"} 0" l &&
	grep -qx "sonde_probe_sizes_bucket{le=\"999\"} 5" l &&
	grep -qx "sonde_probe_sizes_bucket{le=\"2999\"} 5" l &&
	grep -qx "sonde_probe_sizes_bucket{le=\"3999\"} 7" l &&
	grep -qx "sonde_probe_sizes_bucket{le=\"+Inf\"} 7" l &&
	! grep -q "le=\"4000\"" l && grep -qx "sonde_probe_sizes_count 7" l &&
	grep -qx "sonde_probe_sizes_mean 928" l
'

test_expect_success 'past the label limit (2) the last key in order is dropped and counted' '
	"$TMP/t0881dd" if=/dev/zero of=/dev/null bs=7 count=1 status=none &&
	curl -sf $A_URL/metrics >m &&
	[ $(grep -c "^sonde_probe_t0881_writes_total{" m) = 2 ] &&
	grep -qx "sonde_probe_t0881_writes_total{comm=\"t0881dd\",size=\"7\"} 1" m &&
	grep -qx "sonde_probe_t0881_writes_total{comm=\"t0881dd\",size=\"100\"} 5" m &&
	grep -qx "sonde_series_dropped_total{family=\"sonde_probe_t0881_writes_total\"} 1" m &&
	grep -qx "sonde_probe_t0881_bytes_bucket{le=\"7\"} 1" m &&
	grep -qx "sonde_probe_t0881_bytes_count 8" m
'

test_expect_success 'OpenMetrics: the histogram and the counter as it names them' '
	curl -sf -H "Accept: application/openmetrics-text; version=1.0.0" $A_URL/metrics >om &&
	grep -qx "# TYPE sonde_probe_t0881_calls counter" om &&
	grep -qx "# TYPE sonde_probe_t0881_bytes histogram" om && tail -1 om | grep -qx "# EOF"
'

# Debian's prometheus, scraping every second: the probe's count comes back through its API
prom_port=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
if ! command -v prometheus >/dev/null; then
	test_skip 'Prometheus reads the probe maps' "Debian's prometheus is not installed (scripts/deps.sh test)"
else
	cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: sonde
    static_configs:
      - targets: ['${A_URL#http://}']
EOF
	test_expect_success 'Prometheus scrapes it and its API gives the known count and bucket back' '
		prometheus --config.file=prom.yml --storage.tsdb.path=prom-data \
			--web.listen-address=127.0.0.1:'$prom_port' >prom.log 2>&1 & p=$!
		echo $p >>.tools
		api=http://127.0.0.1:'$prom_port'/api/v1/query
		for i in $(seq 300); do
			n=$(curl -s -m 5 --data-urlencode "query=count_over_time(sonde_http_requests_total[1m])" $api |
			    sed -n "s/.*\"value\":\[[0-9.]*,\"\([0-9]*\)\"\].*/\1/p")
			[ "${n:-0}" -ge 2 ] && break; sleep 0.2
		done
		ok=0
		[ "${n:-0}" -ge 2 ] &&
		curl -s -m 5 --data-urlencode "query=sonde_probe_t0881_calls_total{comm=\"t0881sc\"}" $api >q &&
		cat q && grep -q "\"value\":\[[0-9.]*,\"1234\"\]" q &&
		curl -s -m 5 --data-urlencode "query=sonde_probe_t0881_bytes_bucket{le=\"4095\"}" $api >q2 &&
		cat q2 && grep -q "\"value\":\[[0-9.]*,\"8\"\]" q2 && ok=1
		kill $p; wait $p || true
		[ $ok = 1 ]
	'
fi

kill -TERM $A_PID
rc=0; wait $A_PID || rc=$?
sed -i "/^$A_PID\$/d" "$TMP/.servers"
test_expect_success 'SIGTERM: exit 0, nothing on stderr, no program of the agent left' '
	{ [ '$rc' = 0 ] && ! [ -s A.err ]; } || { cat A.err; false; }
	# the kernel frees a program its last holder closed a moment later (after an RCU grace period)
	for i in $(seq 30); do
		left=0
		while read -r kind id; do
			if [ $kind = prog_id ]; then bpftool prog show id $id; else bpftool link show id $id; fi \
				>/dev/null 2>&1 && left=1
		done <held
		[ $left = 0 ] && break; sleep 0.1
	done
	[ $left = 0 ]
'

if ! ip -6 addr show lo 2>/dev/null | grep -q "::1"; then
	test_skip '--listen [::1]:PORT' 'no IPv6 loopback here'
else
	test_expect_success '--listen [::1]:PORT serves IPv6, [::]:PORT every address (with probes, ended by SIGINT), a bad one is refused' '
		serve_start B "[::1]" &&
		curl -sfg "$B_URL/metrics" | grep -q "^sonde_http_requests_total 1$" &&
		kill -TERM $B_PID && wait $B_PID &&
		serve_start C "[::]" -c probes.yaml &&
		curl -sfg "http://[::1]:${C_URL##*:}/metrics" | grep -q "^sonde_http_requests_total 1$" &&
		held $C_PID >heldC && grep -q "^link_id " heldC &&
		kill -INT $C_PID && wait $C_PID && ! [ -s C.err ] &&
		rc=0; $SONDE serve --listen "[::g]:1" 2>err || rc=$?; [ $rc = 129 ] && grep -q "not HOST:PORT" err
	'
fi

test_done
