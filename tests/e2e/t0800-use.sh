#!/bin/bash
# sonde use: the USE report from the real /proc, under known loads, against
# mpstat, iostat, vmstat and free (Debian's sysstat and procps), and from
# fixture copies of /proc (a cgroup v2 container, a corrupt one).
. "$(dirname "$0")/../lib.sh"

FIX=$ROOT/tests/fixtures/proc

# jget FILE TYPE KEY: the value of KEY in the first resource of TYPE of a --json report
jget() {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for res in r["resources"]:
    if res["type"] == sys.argv[2]:
        for k in ("utilization", "saturation", "errors"):
            if sys.argv[3] in res[k]:
                print(res[k][sys.argv[3]]); sys.exit(0)
sys.exit("no %s %s" % (sys.argv[2], sys.argv[3]))' "$@"
}
# near A B TOL: |A - B| <= TOL
# expect_rc N CMD...: CMD must exit N
expect_rc() { local want=$1 rc=0; shift; "$@" || rc=$?; [ $rc -eq $want ] || { echo "exit $rc, expected $want: $*"; return 1; }; }
near() { python3 -c 'import sys; a, b, t = map(float, sys.argv[1:]); print(a, b, t); sys.exit(abs(a - b) > t)' "$@"; }
ncpu=$(nproc)

test_expect_success 'sonde use reports every resource with U, S and E lines' '
	$SONDE use --duration 0.5 >out 2>err &&
	head -1 out | grep -E "^sonde use: 0\.[0-9] s sample, [0-9]+ CPUs?, load average" &&
	for r in cpu memory tasks fds tcp; do grep -q "^$r  *U " out || { echo "no $r"; exit 1; }; done &&
	[ $(grep -c "^              [SE] " out) -ge 10 ] &&
	grep -q "busy [0-9.]*%" out && grep -q "per CPU busy%" out &&
	grep -qE "^(flags:|no flags)" out
'

test_expect_success '--json is one valid object with resources, flags and not_read' '
	$SONDE use --duration 0.3 --json >j &&
	[ $(wc -l <j) -eq 1 ] &&
	python3 -c "
import json; r = json.load(open(\"j\"))
assert r[\"cpus\"] == $ncpu, r[\"cpus\"]
types = [x[\"type\"] for x in r[\"resources\"]]
for t in (\"cpu\", \"memory\", \"tasks\"): assert t in types, types
assert 0 <= r[\"resources\"][0][\"utilization\"][\"busy_pct\"] <= 100
assert isinstance(r[\"flags\"], list) and isinstance(r[\"not_read\"], list)
"
'

test_expect_success 'memory numbers equal free and vmstat -s (the same counters, read independently)' '
	$SONDE use --duration 0.1 --json >j && free -k >free.out && vmstat -s >vms.out &&
	total=$(jget j memory total_mib) &&
	near "$total" "$(awk "/^Mem:/ {print \$2 / 1024}" free.out)" 0.5 &&
	near "$total" "$(awk "/total memory/ {print \$1 / 1024}" vms.out)" 0.5 &&
	used=$(jget j memory in_use_mib) &&
	near "$used" "$(awk "/^Mem:/ {print (\$2 - \$7) / 1024}" free.out)" 200 &&
	near "$(jget j memory available_mib)" "$(awk "/^Mem:/ {print \$7 / 1024}" free.out)" 200
'

# the numbers under load are the same with the ASan build: those runs are for the plain one
if [ -n "${SONDE_SANITIZED:-}" ]; then
test_skip 'spinning threads and dd: utilization, saturation and disk writes against mpstat and iostat' 'run with the plain build only'
elif [ "$ncpu" -ge 2 ] && command -v mpstat >/dev/null; then
test_expect_success "$ncpu spinning threads on $ncpu CPUs: utilization near 100%, flagged, like mpstat" '
	$WORKLOADS/spin 4 $ncpu >spin.out & sp=$! &&
	while ! grep -q ready spin.out; do sleep 0.05; done
	mpstat 2 1 >mp.out & mp=$!
	$SONDE use --duration 2 --json >j &&
	wait $mp && kill $sp 2>/dev/null; wait $sp || :
	busy=$(jget j cpu busy_pct) &&
	mp_busy=$(awk "/^Average: +all/ {print 100 - \$NF - \$6}" mp.out) &&
	near "$busy" "$mp_busy" 10 &&
	python3 -c "import sys; sys.exit(float(sys.argv[1]) < 90)" "$busy" &&
	grep -q "\"resource\":\"cpu\",\"kind\":\"utilization\"" j &&
	grep -q "sonde record -F 99 -a -g" j
'

test_expect_success "one thread spinning on cpu0: the hot CPU is flagged, with sonde record -C 0" '
	{ taskset -c 0 $WORKLOADS/spin 3 1 >spin.out & } && sp=$! &&
	while ! grep -q ready spin.out; do sleep 0.05; done &&
	$SONDE use --duration 1.5 --json >j; kill $sp 2>/dev/null; wait $sp || :
	python3 -c "
import json; r = json.load(open(\"j\"))
res = {x[\"name\"]: x for x in r[\"resources\"] if x[\"type\"] == \"cpu\"}
avg, cpu0 = res[\"cpu\"][\"utilization\"][\"busy_pct\"], res[\"cpu0\"][\"utilization\"][\"busy_pct\"]
hot = [f for f in r[\"flags\"] if \"cpu0 is\" in f[\"what\"] and \"-C 0\" in f[\"next\"]]
print(\"cpu0\", cpu0, \"average\", avg, \"flagged\", bool(hot))
assert cpu0 >= 90, cpu0
# the rule: a CPU at 90% or more while the average is at most 70% (else the machine is just busy)
assert bool(hot) == (avg <= 70), (avg, hot)
"
'

test_expect_success "$((ncpu * 2)) spinning threads on $ncpu CPUs: a run queue longer than the CPUs, saturation flagged" '
	$WORKLOADS/spin 4 $((ncpu * 2)) >spin.out & sp=$! &&
	while ! grep -q ready spin.out; do sleep 0.05; done &&
	$SONDE use --duration 1.5 --json >j; kill $sp 2>/dev/null; wait $sp || :
	runq=$(jget j cpu runq) &&
	python3 -c "import sys; sys.exit(float(sys.argv[1]) < $ncpu)" "$runq" &&
	grep -q "\"resource\":\"cpu\",\"kind\":\"saturation\"" j &&
	grep -q "\"psi_some_pct\":" j
'
else
test_skip 'spinning threads: CPU utilization against mpstat' 'needs 2 CPUs and mpstat (sysstat)'
fi

disk=$(lsblk -no PKNAME "$(findmnt -no SOURCE --target "$TMP" 2>/dev/null)" 2>/dev/null | head -1)
[ -n "$disk" ] || disk=$(basename "$(findmnt -no SOURCE --target "$TMP" 2>/dev/null)" 2>/dev/null)
if [ -n "${SONDE_SANITIZED:-}" ]; then
	:
elif [ -n "$disk" ] && [ -e "/sys/block/$disk" ] && command -v iostat >/dev/null; then
test_expect_success "dd to a file: writes on $disk, as iostat -x counts them" '
	( end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do
		dd if=/dev/zero of=$TMP/ddfile bs=256k count=64 oflag=direct conv=fsync 2>/dev/null; done ) & dd=$! &&
	sleep 0.3
	iostat -dxk $disk 2 2 >io.out & io=$!
	$SONDE use --duration 2 --json >j &&
	wait $io; kill $dd 2>/dev/null; wait $dd || :
	w=$(jget j disk write_kb_s) && u=$(jget j disk util_pct) &&
	io_w=$(awk -v d=$disk "\$1 == d {w = \$9} END {print w}" io.out) &&
	echo "sonde wkB/s $w util $u, iostat wkB/s $io_w" &&
	python3 -c "import sys; w, i = map(float, sys.argv[1:]); sys.exit(not (w > 1000 and abs(w - i) <= 0.3 * max(w, i)))" "$w" "$io_w"
'
else
test_skip 'dd to a file: disk writes against iostat' "no whole disk found under $TMP or no iostat"
fi

test_expect_success '-I rows like vmstat: a header, then one row per interval' '
	$SONDE use -I 0.3 -c 3 >rows &&
	[ $(wc -l <rows) -eq 4 ] &&
	head -1 rows | grep -q "time  *cpu%  *us  *sy  *wa  *st  *runq" &&
	tail -3 rows | awk "NF != 22 { exit 1 }" &&
	$SONDE use -I 0.2 --duration 0.5 --json >jrows &&
	[ $(wc -l <jrows) -ge 2 ] &&
	python3 -c "
import json
rows = [json.loads(l) for l in open(\"jrows\")]
assert all(\"time\" in r for r in rows) and rows[-1][\"time\"] <= 0.7
"
'

test_expect_success 'SIGINT ends the sample early and still prints the report' '
	$SONDE use --duration 30 >out 2>err & pid=$! &&
	sleep 0.5 && kill_ready INT $pid && wait $pid &&
	grep -q "^sonde use: 0\.[0-9] s sample" out
'

test_expect_success 'a cgroup v2 container: limits, throttling and what /proc did not show' '
	$SONDE use --proc $FIX/container-v2 --sys $FIX/container-v2/sysfs --duration 0.05 >out &&
	grep -q "^cgroup /  *U mem_used 93.4%  mem_limit 512 MiB  cpu_limit 0.50" out &&
	grep -A20 "^not read:" out | grep -q "diskstats: No such file" &&
	grep -A20 "^not read:" out | grep -q "net/snmp: No such file" &&
	! grep -q "^disk " out
'

test_expect_success 'a corrupt /proc copy: one error line, exit 1' '
	expect_rc 1 $SONDE use --proc $FIX/corrupt --duration 0.05 >out 2>err &&
	[ $(wc -l <err) -le 2 ] &&
	grep -q "^sonde: cannot read .*corrupt/stat.: Invalid argument" err
'

test_expect_success 'bad options: exit 129 with one error line' '
	expect_rc 129 $SONDE use -I -1 2>err && grep -q "option .-I. takes seconds" err &&
	expect_rc 129 $SONDE use --count 3 2>err && grep -q "goes with -I" err &&
	expect_rc 129 $SONDE use extra 2>err
'

test_expect_success 'unprivileged: the same report (it only reads /proc and /sys)' '
	cp $SONDE ./sonde-copy && chmod 755 . ./sonde-copy &&
	setpriv --reuid 65534 --regid 65534 --clear-groups ./sonde-copy use --duration 0.2 >out &&
	for r in cpu memory tasks; do grep -q "^$r  *U " out || exit 1; done
'

test_done
