#!/bin/bash
# sonde probe: print_log2_hist(@m[, label[, section]]) and print_linear_hist() print a hist()/lhist()
# map as Debian's libbpf-tools print theirs (runqlat, biolatency, bitesize; runqlen for the linear
# one): the header "     usecs               : count    distribution", rows "%10d -> %-10d : %-8d |"
# with 40 stars, one "<section> = <key>" section per key after a blank line (or the section as a
# format whose %s are the key: "\ndisk = %s\t", biolatency -D's). The layout is checked
# against /usr/sbin/runqlat where it runs here. Also: a predicate with a multi-key map lookup
# (/@s[pid, tid]/), which the lexer took for the start of another attach point.
. "$(dirname "$0")/../lib.sh"

require_root 'print_log2_hist, print_linear_hist'

# known values: 0 and 1 share BCC's "0 -> 1" row, -3 is not shown, 100 sets the last row
LOG2='BEGIN { @x = hist(0); @x = hist(1); @x = hist(5); @x = hist(5); @x = hist(100); @x = hist(-3);
  print_log2_hist(@x, "usecs"); clear(@x); exit(); }'
stars() { printf "%-40s" "$(printf "%${1}s" "" | tr " " "*")"; }
log2_want() {
	printf "     usecs               : count    distribution\n"
	printf "%10d -> %-10d : %-8d |%s|\n" 0 1 2 "$(stars 40)" 2 3 0 "$(stars 0)" 4 7 2 "$(stars 40)" \
		8 15 0 "$(stars 0)" 16 31 0 "$(stars 0)" 32 63 0 "$(stars 0)" 64 127 1 "$(stars 20)"
}

test_expect_success 'print_log2_hist(@x, "usecs"): libbpf-tools rows from 0 -> 1 to the last non-empty one' '
	$SONDE probe -e "$LOG2" >out &&
	{ echo "Attaching 1 probe..."; log2_want; printf "\n\n\n"; } >want &&
	test_cmp want out
'

test_expect_success 'print_log2_hist(): the label defaults to "value"; an empty map prints nothing' '
	$SONDE probe -e "BEGIN { @x = hist(3); @e = hist(-1); print_log2_hist(@x); print_log2_hist(@e); clear(@x);
	  clear(@e); exit(); }" >out &&
	printf "Attaching 1 probe...\n     value               : count    distribution\n" >want &&
	printf "%10d -> %-10d : %-8d |%s|\n" 0 1 0 "$(stars 0)" 2 3 1 "$(stars 40)" >>want &&
	printf "\n\n\n\n" >>want &&
	test_cmp want out
'

test_expect_success 'print_log2_hist(): past 2^32 the wide layout (columns of 20, 20 stars)' '
	$SONDE probe -e "BEGIN { @x = hist(1 << 40); @x = hist(1 << 40); @x = hist(2); print_log2_hist(@x, \"nsecs\");
	  clear(@x); exit(); }" >out &&
	{ echo "Attaching 1 probe..."; printf "%15s%-29s : count    distribution\n" "" nsecs
	  for i in $(seq 0 40); do
		lo=$((i ? 1 << i : 0)) n=0 bar="                    "
		[ $i = 1 ] && n=1 bar="**********          "
		[ $i = 40 ] && n=2 bar="********************"
		printf "%20d -> %-20d : %-8d |%s|\n" $lo $(((2 << i) - 1)) $n "$bar"
	  done; printf "\n\n\n"; } >want &&
	test_cmp want out
'

test_expect_success 'print_log2_hist(@k, "usecs", "pid"): a section per (pid, comm) key, in key order' '
	$SONDE probe -e "BEGIN { @k[22, \"ab\"] = hist(2); @k[1, \"bash\"] = hist(3); @k[1, \"bash\"] = hist(9);
	  @k[3, \"zz\"] = hist(40); print_log2_hist(@k, \"usecs\", \"pid\"); clear(@k); exit(); }" >out &&
	{ echo "Attaching 1 probe..."
	  printf "\npid = 1 bash\n     usecs               : count    distribution\n"
	  printf "%10d -> %-10d : %-8d |%s|\n" 0 1 0 "$(stars 0)" 2 3 1 "$(stars 40)" 4 7 0 "$(stars 0)" 8 15 1 "$(stars 40)"
	  printf "\npid = 3 zz\n     usecs               : count    distribution\n"
	  printf "%10d -> %-10d : %-8d |%s|\n" 0 1 0 "$(stars 0)" 2 3 0 "$(stars 0)" 4 7 0 "$(stars 0)" \
		8 15 0 "$(stars 0)" 16 31 0 "$(stars 0)" 32 63 1 "$(stars 40)"
	  printf "\npid = 22 ab\n     usecs               : count    distribution\n"
	  printf "%10d -> %-10d : %-8d |%s|\n" 0 1 0 "$(stars 0)" 2 3 1 "$(stars 40)"
	  printf "\n\n\n"; } >want &&
	test_cmp want out
'

test_expect_success 'print_log2_hist(@disk): the section is the map name without @' '
	$SONDE probe -e "BEGIN { @disk[\"vdb\"] = hist(1); @disk[\"vda\"] = hist(1); print_log2_hist(@disk, \"usecs\");
	  clear(@disk); exit(); }" >out &&
	{ echo "Attaching 1 probe..."
	  for d in vda vdb; do
		printf "\ndisk = %s\n     usecs               : count    distribution\n" $d
		printf "%10d -> %-10d : %-8d |%s|\n" 0 1 1 "$(stars 40)"
	  done; printf "\n\n\n"; } >want &&
	test_cmp want out
'

test_expect_success 'a section with %s: the key goes there, a field per %s (biolatency -D -F), the whole key in one' '
	$SONDE probe -e "BEGIN { @d[\"vda\", \"Write\"] = hist(3); @d[\"vda\", \"Sync-Write\"] = hist(3); @e[1, \"x\"] = hist(1);
	  print_log2_hist(@d, \"usecs\", \"\ndisk = %s\tflags = %s\"); print_log2_hist(@e, \"usecs\", \"Local Address = %s \");
	  clear(@d); clear(@e); exit(); }" >out &&
	{ echo "Attaching 1 probe..."
	  for fl in Sync-Write Write; do
		printf "\ndisk = vda\tflags = %s\n     usecs               : count    distribution\n" $fl
		printf "%10d -> %-10d : %-8d |%s|\n" 0 1 0 "$(stars 0)" 2 3 1 "$(stars 40)"
	  done
	  printf "Local Address = 1 x \n     usecs               : count    distribution\n"
	  printf "%10d -> %-10d : %-8d |%s|\n" 0 1 1 "$(stars 40)"
	  printf "\n\n\n\n"; } >want &&
	test_cmp want out
'

test_expect_success 'print_linear_hist(@q, "runqlen"): runqlen rows, the non-empty steps only, the top one too' '
	$SONDE probe -e "BEGIN { @q = lhist(3, 0, 10, 1); @q = lhist(5, 0, 10, 1); @q = lhist(5, 0, 10, 1); @q = lhist(-4, 0, 10, 1);
	  @q = lhist(50, 0, 10, 1); print_linear_hist(@q, \"runqlen\"); clear(@q); exit(); }" >out &&
	{ echo "Attaching 1 probe..."; printf "     %-13s : count     distribution\n" runqlen
	  for v in 3 5 10; do
		case $v in 3|10) n=1 s=20 ;; 5) n=2 s=40 ;; esac
		printf "        %-10d : %-8d |%s|\n" $v $n "$(stars $s)"
	  done; printf "\n\n\n"; } >want &&
	test_cmp want out
'

test_expect_success 'print_log2_hist() in -f json: the line print(@x) gives' '
	$SONDE probe -f json -e "BEGIN { @x = hist(5); print_log2_hist(@x, \"usecs\"); print(@x); clear(@x); exit(); }" >out &&
	printf "%s\n" "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}" \
		"{\"type\": \"hist\", \"data\": {\"@x\": [{\"min\": 4, \"max\": 7, \"count\": 1}]}}" \
		"{\"type\": \"hist\", \"data\": {\"@x\": [{\"min\": 4, \"max\": 7, \"count\": 1}]}}" "" "" >want &&
	test_cmp want out
'

test_expect_success '-f json: an empty map writes no line (it wrote "@x": } before), as bpftrace 0.17' '
	$SONDE probe -f json -e "BEGIN { @w[1] = count(); @s = stats(1); @a[1] = avg(3); @x = hist(5); @y = count();
	  @z[1] = hist(3); clear(@x); clear(@y); clear(@z); clear(@w); clear(@s); clear(@a); exit(); }" >out &&
	printf "%s\n" "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}" "" "" \
		"{\"type\": \"map\", \"data\": {\"@y\": 0}}" >want &&
	test_cmp want out
'

test_expect_success 'print_log2_hist() of a map that is not a hist(), of a key, with a number: errors' '
	! $SONDE probe --dry-run -e "BEGIN { @x = count(); print_log2_hist(@x); }" 2>err &&
	grep -q "print_log2_hist() prints a map of hist(): .@x. is not one" err &&
	! $SONDE probe --dry-run -e "BEGIN { @x = hist(1); print_linear_hist(@x); }" 2>err &&
	grep -q "print_linear_hist() prints a map of lhist(): .@x. is not one" err &&
	! $SONDE probe --dry-run -e "BEGIN { @x[1] = hist(1); print_log2_hist(@x[1]); }" 2>err &&
	grep -q "print_log2_hist() takes a whole map" err &&
	! $SONDE probe --dry-run -e "BEGIN { @x = hist(1); print_log2_hist(@x, 1); }" 2>err &&
	grep -q "takes string literals after the map" err
'

# the layout of the real thing: every line of runqlat's histogram (header and rows) has the length
# and the ':' and '|' columns of one of ours
layout() { awk '/distribution$|^ +[0-9]+ -> [0-9]+ +: / { print length($0), index($0, ":"), index($0, "|") }' | sort -u; }
if [ -x /usr/sbin/runqlat ] && timeout 10 /usr/sbin/runqlat 1 1 >"$TMP/rql" 2>/dev/null && grep -q distribution "$TMP/rql"; then
	export RQL=$TMP/rql
	test_expect_success 'the layout is runqlat'\''s (libbpf-tools)' '
		layout <"$RQL" >real && log2_want | layout >ours &&
		test $(wc -l <real) -ge 2 && test_cmp ours real
	'
	test_expect_success 'sections are runqlat -P'\''s: "pid = N comm" after a blank line' '
		timeout 10 /usr/sbin/runqlat -P 1 1 >rqp 2>/dev/null &&
		grep -B1 "^pid = " rqp | head -2 | sed -E "s/[0-9]+/N/; s/= N .*/= N comm/" >real &&
		printf "\npid = N comm\n" >want && test_cmp want real
	'
else
	test_skip 'the layout is runqlat'\''s (libbpf-tools)' 'no libbpf-tools runqlat that runs here'
fi

test_expect_success 'a predicate with a two-key map lookup parses (/@s[pid, tid]/), as in bpftrace' '
	$SONDE probe --dry-run -e "t:sched:sched_switch { @s[pid, tid] = 1; } t:sched:sched_switch /@s[pid, tid]/ { @n = count(); }" &&
	$SONDE probe -e "BEGIN { @s[1, 2] = 1; } interval:ms:10 /@s[1, 2] && !@s[2, 1]/ { printf(\"yes %d\\n\", @s[1, 2]);
	  clear(@s); exit(); }" >out &&
	printf "Attaching 2 probes...\nyes 1\n\n\n\n" >want && test_cmp want out
'

test_done
