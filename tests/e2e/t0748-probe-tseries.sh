#!/bin/bash
# sonde probe's tseries() (upstream bpftrace's time series, which 0.17 lacks),
# len() of stacks and interval:DURATION. The workload (tests/workloads/tseries)
# makes k * 10 getppid() calls in the k-th interval of the wall clock, so the
# values each interval holds follow from k alone; the expected graphs are drawn
# here from upstream's rules (53 columns, '*' at 52 * (v - min) / (max - min),
# min and max around the graph), not taken from sonde.
. "$(dirname "$0")/../lib.sh"

require_root 'sonde probe tseries'
W=$WORKLOADS/tseries
export TZ=UTC
CFG='config = { unstable_tseries = enable }'

# graph NAME MS V1 V2 ... < times: upstream's drawing of one series (times: hh:mm:ss.mmm)
graph() {
	name=$1 ms=$2
	shift 2
	awk -v name="$name" -v vals="$*" '
		function pad(n) { return sprintf("%" n "s", "") }
		BEGIN {
			n = split(vals, v, " "); mn = v[1]; mx = v[1]
			for (i = 1; i <= n; i++) { if (v[i] < mn) mn = v[i]; if (v[i] > mx) mx = v[i] }
			if (mn == mx) { mn--; mx++ }
			bar = ""; for (i = 0; i < 51; i++) bar = bar "_"
			printf "%s:\n%s%-21s%32s\n%-13s|%s|\n", name, pad(13), mn, mx, "hh:mm:ss.ms", bar
		}
		{
			line = "|" pad(51) "|"
			z = (mn < 0 && mx > 0) ? int(53 * (0 - mn) / (mx - mn)) : 0
			if (z > 0) line = substr(line, 1, z) "." substr(line, z + 2)
			p = int(52 * (v[NR] - mn) / (mx - mn))
			line = substr(line, 1, p) "*" substr(line, p + 2)
			printf "%s %s %s\n", $1, line, v[NR]
		}
		END { printf "%s v%sv\n%s %-21s%32s\n\n", pad(12), bar, pad(12), mn, mx }'
}

# the times of a graph's lines must be consecutive intervals of MS ms, within the run
check_times() {
	ms=$1 file=$2 t0=$3 t1=$4
	awk -v ms="$ms" -v t0="$t0" -v t1="$t1" '
		/^hh:mm:ss/ { n = 0 }
		/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9] / {
			split($1, a, "[:.]"); t = ((a[1] * 60 + a[2]) * 60 + a[3]) * 1000 + a[4]
			if (t % ms) { print "not on a " ms " ms boundary: " $1; bad = 1 }
			if (n && t != last + ms) { print "not consecutive: " $1; bad = 1 }
			if (t < t0 - ms || t > t1) { print "outside the run: " $1; bad = 1 }
			last = t; n++; lines++
		}
		END { exit bad || !lines }' "$file"
}

ms_of_day() { echo $(( ($(date -u +%s%N) / 1000000) % 86400000 )); }

test_expect_success 'tseries sum: 10, 20, 30, 40, 50 getppid() in five 200 ms intervals' '
	t0=$(ms_of_day) &&
	$SONDE probe -c "$W bursts 200 5" -e "$CFG tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = tseries(1, 200ms, 10, \"sum\"); }" >out 2>err &&
	t1=$(ms_of_day) &&
	! grep -q warning err &&
	check_times 200 out $t0 $t1 &&
	sed -n "s/^\([0-9][0-9]:[0-9:.]*\) .*/\1/p" out | graph @ 200 10 20 30 40 50 >want &&
	sed 1,3d out >got && test_cmp want got
'

test_expect_success 'tseries last (default), avg, min, max of a counter; a ring of 3 keeps the last 3 intervals' '
	P="$CFG tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n++; @a = tseries(@n, 200ms, 10); @b = tseries(@n, 200ms, 10, \"avg\"); @c = tseries(@n, 200ms, 10, \"min\"); @d = tseries(@n, 200ms, 10, \"max\"); @e = tseries(@n, 200ms, 3, \"sum\"); }" &&
	t0=$(ms_of_day) && $SONDE probe -c "$W bursts 200 5" -e "$P" >out && t1=$(ms_of_day) &&
	check_times 200 out $t0 $t1 &&
	times=$(sed -n "s/^\([0-9][0-9]:[0-9:.]*\) .*/\1/p" out | head -5) &&
	# call i (1-based) sees @n = i; interval k holds calls 10*k*(k-1)/2 + 1 .. 10*k*(k+1)/2
	vals() { awk -v f=$1 "BEGIN { for (k = 1; k <= 5; k++) { lo = 5*k*(k-1) + 1; hi = 5*k*(k+1); s = 0; for (i = lo; i <= hi; i++) s += i;
		v = f == \"last\" || f == \"max\" ? hi : f == \"min\" ? lo : f == \"avg\" ? int(s / (hi - lo + 1)) : s; printf \"%s \", v } }"; } &&
	{ echo "$times" | graph @a 200 $(vals last) && echo "$times" | graph @b 200 $(vals avg) &&
	  echo "$times" | graph @c 200 $(vals min) && echo "$times" | graph @d 200 $(vals max) &&
	  echo "$times" | tail -3 | graph @e 200 $(vals sum | cut -d" " -f3-5); } >want &&
	sed 1,3d out | grep -v "^@n: 150\$" >got && test_cmp want got
'

test_expect_success 'tseries with keys, and -f json: one series per key, interval starts 100 ms apart' '
	$SONDE probe -f json -c "$W bursts 100 3" -e "$CFG tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[pid % 1, \"a\"] = tseries(1, 100ms, 10, \"sum\"); @s = tseries(1, 100ms, 10, \"sum\"); }" >out &&
	python3 - out <<-\PY
	import json, sys, datetime
	lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
	ts = [l for l in lines if l["type"] == "tseries"]
	assert len(ts) == 2, ts
	keyed = ts[0]["data"]["@"]
	assert list(keyed) == ["0,a"], keyed
	for series in (keyed["0,a"], ts[1]["data"]["@s"]):
	    assert [p["value"] for p in series] == [10, 20, 30], series
	    t = [datetime.datetime.strptime(p["interval_start"][:26], "%Y-%m-%d %H:%M:%S.%f") for p in series]
	    assert all((b - a).total_seconds() == 0.1 for a, b in zip(t, t[1:])), t
	PY
'

if have_bpftrace; then
	test_expect_success 'the sum over the intervals is the count bpftrace 0.17 makes of the same workload' '
		bpftrace -c "$W bursts 100 4" -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @c = count(); }" 2>/dev/null >bt &&
		$SONDE probe -c "$W bursts 100 4" -e "$CFG tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @ = tseries(1, 100ms, 10, \"sum\"); }" >out &&
		test "$(sed -n "s/^@c: //p" bt)" = "$(awk "/\\|/ && \$NF ~ /^[0-9]+\$/ && \$1 ~ /:/ { s += \$NF } END { print s }" out)"
	'
fi

test_expect_success 'unstable_tseries: warn by default, enable silences it, error refuses it with a caret' '
	$SONDE probe --dry-run -e "BEGIN { @t = tseries(1, 1s, 5); }" 2>err &&
	grep -q "^stdin:1:14: warning: tseries() is unstable" err &&
	BPFTRACE_UNSTABLE_TSERIES=enable $SONDE probe --dry-run -e "BEGIN { @t = tseries(1, 1s, 5); }" 2>err &&
	! test -s err &&
	! $SONDE probe --dry-run -e "config = { unstable_tseries = error } BEGIN { @t = tseries(1, 1s, 5); }" 2>err &&
	cat >want <<-\EOF &&
	stdin:1:52: error: tseries() is an unstable feature and config unstable_tseries = error forbids it (warn or enable allow it)
	config = { unstable_tseries = error } BEGIN { @t = tseries(1, 1s, 5); }
	                                                   ^^^^^^^
	EOF
	test_cmp want err
'

test_expect_success 'len(ustack): the frames printed; 4 more nested calls give 4 more frames; stored stacks too' '
	$SONDE probe -c "$W depth 5 9" -e "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[len(ustack), ustack(raw)] = count(); \$s = ustack; @v[len(\$s)] = count(); @m[1] = ustack; @l[len(@m[1])] = count(); @k[len(kstack), kstack(raw)] = count(); }" >out &&
	awk "/^@\\[/ { split(\$0, a, \"[[,]\"); want = a[2]; n = 0; next } /^@k\\[/ { split(\$0, a, \"[[,]\"); want = a[2]; n = 0; next }
	     /^[0-9a-f]+\$/ { n++ } /^\\]/ { if (n != want) { print \"len \" want \" but \" n \" frames\"; bad = 1 } got++ }
	     END { exit bad || got < 3 }" out &&
	d=$(sed -n "s/^@\\[\\([0-9]*\\), \$/\\1/p" out | sort -n) &&
	test $(echo $d | wc -w) = 2 && test $(( $(echo $d | cut -d" " -f2) - $(echo $d | cut -d" " -f1) )) = 4 &&
	test "$(sed -n "s/^@v\\[\\([0-9]*\\)\\]: 1\$/\\1/p" out | sort -n | xargs)" = "$(echo $d)" &&
	test "$(sed -n "s/^@l\\[\\([0-9]*\\)\\]: 1\$/\\1/p" out | sort -n | xargs)" = "$(echo $d)"
'

test_expect_success 'interval:100ms and interval:N (nanoseconds) fire at that period' '
	$SONDE probe -e "interval:100ms { @a++; } interval:50000000 { @b++; } interval:1s { exit(); }" >out &&
	a=$(sed -n "s/^@a: //p" out) && b=$(sed -n "s/^@b: //p" out) &&
	test $a -ge 8 && test $a -le 11 && test $b -ge 17 && test $b -le 21
'
test_done
