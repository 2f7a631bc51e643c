#!/bin/bash
# sonde serve: the agent Prometheus and pprof read. The real Prometheus scrapes
# it and its HTTP API gives back a count known from a workload; go tool pprof
# reads its CPU profile of a known hot workload; bad, huge, slow and many
# requests are answered or refused while it stays up; SIGTERM ends it cleanly.
. "$(dirname "$0")/../lib.sh"
require_root 'sonde serve' 'perf events and BPF need root'

# serve_start NAME ARGS...: sonde serve on a free port; $NAME_PID, $NAME_URL
serve_start() {
	local name=$1 i=0 port
	shift
	: >"$TMP/$name.out"
	$SONDE serve --listen 127.0.0.1:0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	eval "${name}_PID=$!"
	echo $! >>"$TMP/.servers"
	while ! port=$(sed -n 's|^sonde serve: listening on http://127.0.0.1:\([0-9]*\)/$|\1|p' "$TMP/$name.out") || [ -z "$port" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "sonde serve did not start:"; cat "$TMP/$name.err"; return 1; }
		sleep 0.05
	done
	eval "${name}_URL=http://127.0.0.1:$port"
}
# the servers still running at the end: SIGTERM (the harness' own cleanup follows)
trap '[ -s "$TMP/.servers" ] && kill -TERM $(cat "$TMP/.servers") 2>/dev/null; _end_tools; rm -rf "$TMP"' EXIT
# code URL [curl args]: the HTTP status only
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
# the flat leader of a pprof profile, as go tool pprof -top prints it
pprof_leader() { go tool pprof -top "$1" 2>/dev/null | awk '/flat%/ { getline; print $NF; exit }'; }

# the syscalls workload under a name of this run's own: the filter counts its calls only, not
# those of another test's syscalls running beside this one
SC=sc_$$
cp "$WORKLOADS/syscalls" "$TMP/$SC"
cat >"$TMP/sonde.yaml" <<EOF
# counted system-wide as sonde stat -e counts them; the filter keeps one command's
events:
  - context-switches
  - name: syscalls:sys_enter_getppid
    filter: comm == "$SC"
label_limit: 2
EOF

test_expect_success 'a bad --listen is a usage error, a bad config says where' '
	rc=0; $SONDE serve --listen nowhere >out 2>err || rc=$?; [ $rc = 129 ] &&
	grep -q "not HOST:PORT" err &&
	printf "events:\n  - name: x\n    colour: red\n" >bad.yaml &&
	rc=0; $SONDE serve -c bad.yaml >out 2>err || rc=$?; [ $rc = 1 ] &&
	grep -q "bad.yaml: line 3, column 5: unknown key .colour." err
'

serve_start A -c "$TMP/sonde.yaml" || exit 1

test_expect_success '/metrics counts the config events: a known workload, exactly' '
	"$TMP/$SC" 1234 &&
	curl -sf $A_URL/metrics >m &&
	grep -qx "sonde_event_total{event=\"syscalls:sys_enter_getppid\"} 1234" m &&
	grep -q "^sonde_event_total{event=\"context-switches\"} [1-9]" m &&
	grep -q "^# TYPE sonde_event_total counter" m
'

test_expect_success '/metrics: the USE figures, series past the label limit dropped and counted, OpenMetrics, gzip' '
	sleep 1.1 && curl -sf $A_URL/metrics >m &&
	grep -q "^sonde_use_memory_used_pct{resource=\"memory\"} " m &&
	ncpu=$(grep -c "^cpu[0-9]" /proc/stat) &&
	[ $(grep -c "^sonde_use_cpu_busy_pct{" m) = 2 ] &&
	grep -qx "sonde_series_dropped_total{family=\"sonde_use_cpu_busy_pct\"} $((ncpu + 1 - 2))" m &&
	curl -sf -H "Accept: application/openmetrics-text; version=1.0.0" $A_URL/metrics >om &&
	tail -1 om | grep -qx "# EOF" && grep -qx "# TYPE sonde_event counter" om &&
	curl -sf -D hdr -H "Accept-Encoding: gzip" -o m.gz $A_URL/metrics && grep -qi "^Content-Encoding: gzip" hdr &&
	zcat m.gz | grep -q "^sonde_use_memory_used_pct{resource=\"memory\"} " &&
	[ $(stat -c %s m.gz) -lt $(( $(stat -c %s m) / 2 )) ]
'

test_expect_success '/debug/pprof/profile?pid=: go tool pprof -top puts the hot function first' '
	$EXAMPLES/demo 4 >/dev/null & demo=$!
	sleep 0.2 &&
	curl -sf -o prof.pb.gz "$A_URL/debug/pprof/profile?seconds=2&pid=$demo" &&
	wait $demo &&
	gzip -t prof.pb.gz &&
	go tool pprof -top prof.pb.gz >top 2>&1 && cat top &&
	[ "$(pprof_leader prof.pb.gz)" = hot_loop ]
'

test_expect_success 'a syscall-bound process: kernel and user frames in one stack' '
	$WORKLOADS/syscalls 30000000 & w=$!
	curl -sf -o sys.pb.gz "$A_URL/debug/pprof/profile?seconds=2&pid=$w" &&
	kill $w; wait $w || true
	go tool pprof -traces sys.pb.gz >traces 2>/dev/null &&
	# leaf first: a named user frame right below the kernel entry
	awk "/entry_SYSCALL_64/ { e = 1; next } e && !/\[unknown\]/ && !/^-/ { ok = 1 } { e = 0 } END { exit !ok }" traces
'

test_expect_success '/debug/pprof/offcpu: the time a sleeper blocks, by stack' '
	(sleep 0.5; $WORKLOADS/naps >/dev/null 2>&1 || sleep 1) & s=$!
	curl -sf -o off.pb.gz "$A_URL/debug/pprof/offcpu?seconds=2" && wait $s &&
	go tool pprof -top off.pb.gz 2>/dev/null >otop && head -3 otop | grep -q "Type: offcpu" &&
	grep -q "schedule" otop
'

test_expect_success 'bad queries and paths get 400, 404 and 405; the index lists the profiles' '
	[ $(code "$A_URL/debug/pprof/profile?seconds=abc") = 400 ] &&
	[ $(code "$A_URL/debug/pprof/profile?seconds=0") = 400 ] &&
	[ $(code "$A_URL/debug/pprof/profile?seconds=1&pid=-3") = 400 ] &&
	[ $(code "$A_URL/debug/pprof/profile?seconds=1&pid=999999999") = 400 ] &&
	[ $(code "$A_URL/nothing") = 404 ] &&
	[ $(code -X POST -d x=1 "$A_URL/metrics") = 405 ] &&
	curl -sf "$A_URL/debug/pprof/" | grep -q "href=\"profile?seconds=30\""
'

test_expect_success 'malformed requests, huge headers, a slow client: refused, and it stays up' '
	raw() { exec 3<>/dev/tcp/127.0.0.1/${A_URL##*:} && printf "$1" >&3 && timeout 5 head -1 <&3; exec 3<&-; } &&
	[ -z "$(raw "GARBAGE\r\n\r\n")" ] &&
	raw "GET / HTTP/9.9\r\n\r\n" | grep -q "^HTTP/1.1 505" &&
	raw "GET /metrics HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n" | grep -q "^HTTP/1.1 400" &&
	big=$(head -c 100000 /dev/zero | tr "\0" a) &&
	c=$(code -H "X-Big: $big" $A_URL/metrics) && [ "$c" = 431 -o "$c" = 000 ] &&
	exec 4<>/dev/tcp/127.0.0.1/${A_URL##*:} && printf "GET /metrics HTTP/1.1\r\nHost: x\r\n" >&4 &&
	[ $(code --max-time 5 $A_URL/metrics) = 200 ] && exec 4<&- &&
	kill -0 $A_PID
'

test_expect_success '100 concurrent scrapes all answered' '
	for i in $(seq 100); do curl -s -o /dev/null -w "%{http_code}\n" $A_URL/metrics >c.$i & done; wait &&
	[ "$(cat c.* | sort | uniq -c | sed "s/^ *//")" = "100 200" ]
'

test_expect_success 'concurrent profile scrapes share one session; another kind is refused' '
	before=$(curl -s $A_URL/metrics | sed -n "s/^sonde_profiles_total //p") &&
	for i in 1 2 3 4; do curl -s -o p.$i -w "%{http_code}\n" "$A_URL/debug/pprof/profile?seconds=2" >pc.$i & done &&
	sleep 0.5 && [ $(code "$A_URL/debug/pprof/profile?seconds=1") = 503 ] && wait &&
	[ "$(cat pc.* | sort | uniq -c | sed "s/^ *//")" = "4 200" ] &&
	cmp p.1 p.2 && cmp p.1 p.4 &&
	after=$(curl -s $A_URL/metrics | sed -n "s/^sonde_profiles_total //p") &&
	[ $((after - before)) = 1 ] &&
	curl -s $A_URL/metrics | grep -qx "sonde_profiles_shared_total 3"
'

test_expect_success 'SIGTERM during an off-CPU profile: it ends at once, exit 0, probes detached' '
	serve_start D
	curl -s -o /dev/null "$D_URL/debug/pprof/offcpu?seconds=30" & c=$!
	# once the profile has loaded its programs (1.5 s on a loaded machine); ends well
	# before the 30 s it was asked for
	for _ in $(seq 300); do ls -l /proc/$D_PID/fd | grep -q "anon_inode:bpf-prog" && break; sleep 0.1; done &&
	ls -l /proc/$D_PID/fd | grep -q "anon_inode:bpf-prog" &&
	t0=$(date +%s%N) && kill -TERM $D_PID && rc=0 && { wait $D_PID || rc=$?; } && t1=$(date +%s%N) &&
	echo "serve: exit $rc, $(( (t1 - t0) / 1000000 )) ms after SIGTERM" &&
	[ $rc = 0 ] && [ $(( (t1 - t0) / 1000000 )) -lt 10000 ] && { wait $c || true; } &&
	! kill -0 $D_PID 2>/dev/null
'

test_expect_success '--continuous: a scrape returns the last window at once; / shows its flame graph' '
	serve_start B --continuous 1s
	$EXAMPLES/demo 3 >/dev/null & demo=$!
	sleep 2.5 &&
	t=$(curl -s -o cont.pb.gz -w "%{time_total}" "$B_URL/debug/pprof/profile?seconds=30") &&
	awk "BEGIN { exit !($t < 0.5) }" && gzip -t cont.pb.gz &&
	curl -sf $B_URL/ | grep -q "data=\"/flame.svg\"" &&
	curl -sf -o flame.svg $B_URL/flame.svg && xmllint --noout flame.svg &&
	wait $demo && kill -TERM $B_PID && wait $B_PID
'

if ! command -v chromium >/dev/null; then
	test_skip 'the page in Chromium' "Debian's chromium is not installed (scripts/deps.sh test)"
else
	test_expect_success 'the page in Chromium: its flame graph loads and its search runs' '
		serve_start E --continuous 1s -F 99
		# spinning until the pages are read: Chromium takes seconds to start here
		$WORKLOADS/spin 60 >/dev/null & s=$!
		echo $s >>.servers
		sleep 2.5
		chrome() { timeout 60 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=2000 "$@" 2>/dev/null; }
		chrome --dump-dom "$E_URL/flame.svg?s=spin_here" >dom &&
		m=$(sed -n "s/.*Matched: \([0-9.]*\)%.*/\1/p" dom) && echo "matched $m%" &&
		awk "BEGIN { exit !($m > 0) }" &&
		chrome --dump-dom "$E_URL/" | grep -q "<object id=\"flame\" data=\"/flame.svg\"" &&
		kill $s && { wait $s || :; } && kill -TERM $E_PID && wait $E_PID
	'
fi

test_expect_success '--web-config: TLS, and basic auth checked against a bcrypt hash' '
	openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 2>/dev/null
	h=$(python3 -W ignore -c "import crypt; print(crypt.crypt(\"s3cret\", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))")
	printf "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  alice: %s\n" "$h" >web.yml
	$SONDE serve --listen 127.0.0.1:0 --web-config web.yml >w.out 2>w.err & w=$!
	echo $w >>.servers
	for i in $(seq 100); do grep -q listening w.out && break; sleep 0.05; done
	url=$(sed -n "s|^sonde serve: listening on \(https://.*\)/$|\1|p" w.out) && [ -n "$url" ] &&
	[ $(code --cacert cert.pem $url/metrics) = 401 ] &&
	[ $(code --cacert cert.pem -u alice:wrong $url/metrics) = 401 ] &&
	[ $(code --cacert cert.pem -u bob:s3cret $url/metrics) = 401 ] &&
	[ $(code --cacert cert.pem -u alice:s3cret $url/metrics) = 200 ] &&
	[ $(code ${url/https/http}/metrics) = 000 ] &&
	kill -TERM $w && wait $w
'

# the agent every test above used: SIGTERM ends it with 0 and nothing said (nor leaked, under ASan)
kill -TERM $A_PID; rc=0; wait $A_PID || rc=$?
sed -i "/^$A_PID\$/d" "$TMP/.servers"
test_expect_success 'the agent of the tests above ends on SIGTERM: exit 0, nothing on stderr' '
	[ '$rc' = 0 ] && ! [ -s A.err ] || { cat A.err; false; }
'

# Debian's prometheus, scraping every second; its API answers with what it scraped
prom_port=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
if ! command -v prometheus >/dev/null; then
	test_skip 'Prometheus scrapes sonde serve' "Debian's prometheus is not installed (scripts/deps.sh test)"
else
	serve_start C -c "$TMP/sonde.yaml" || exit 1
	cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: sonde
    static_configs:
      - targets: ['${C_URL#http://}']
EOF
	test_expect_success 'Prometheus scrapes it twice and its API gives the known count back' '
		"$TMP/$SC" 777
		prometheus --config.file=prom.yml --storage.tsdb.path=prom-data \
			--web.listen-address=127.0.0.1:'$prom_port' >prom.log 2>&1 & p=$!
		echo $p >>.tools
		api=http://127.0.0.1:'$prom_port'/api/v1/query
		for i in $(seq 300); do
			n=$(curl -s --data-urlencode "query=count_over_time(sonde_http_requests_total[1m])" $api |
			    sed -n "s/.*\"value\":\[[0-9.]*,\"\([0-9]*\)\"\].*/\1/p")
			[ "${n:-0}" -ge 2 ] && break; sleep 0.2
		done
		# the checks, then prometheus ended whatever they found: a failed one must not skip the kill
		ok=0
		{ [ "${n:-0}" -ge 2 ] &&
		  curl -s --data-urlencode "query=sonde_event_total{event=\"syscalls:sys_enter_getppid\"}" $api >q &&
		  cat q && grep -q "\"value\":\[[0-9.]*,\"777\"\]" q &&
		  curl -s --data-urlencode "query=up{job=\"sonde\"}" $api | grep -q "\"value\":\[[0-9.]*,\"1\"\]"; } || ok=1
		kill $p; wait $p || true
		test $ok = 0
	'
fi

test_done
