#!/bin/bash
# skboutput(): packets of a known UDP workload on loopback captured by fentry probes
# (bpf_skb_output needs BPF trampolines: this machine's kernel refuses them, the VM's has
# them) and read back by tcpdump, libpcap's reader, as the pcap files' real consumer.
. "$(dirname "$0")/../lib.sh"

if ! $SONDE probe -e 'fentry:vfs_write { exit(); }' -c true >/dev/null 2>err; then
	test_skip 'skboutput() in fentry probes' "this kernel refuses fentry: $(head -1 err)"
	test_done
	exit
fi
if ! command -v tcpdump >/dev/null; then
	test_skip 'skboutput() read back by tcpdump' 'no tcpdump in the VM (scripts/deps.sh vm installs it on the host)'
	test_done
	exit
fi
# the record headers of a pcap file: "seconds usec caplen len" per packet (od: this machine's byte order)
records() {
	local f=$1 off=24 size
	size=$(stat -c %s "$f")
	while [ "$off" -lt "$size" ]; do
		set -- $(od -A n -t u4 -j "$off" -N 16 "$f")
		echo "$1 $2 $3 $4"
		off=$((off + 16 + $3))
	done
}

test_expect_success 'fentry:ip_output: every datagram of the workload, as raw IP tcpdump reads' '
	$SONDE probe -e "fentry:ip_output /pid == cpid/ { @r[skboutput(\"$TMP/out.pcap\", args.skb, args.skb->len, 0)] = count(); }" \
		-c "$WORKLOADS/udpsend 5 40" >out 2>err &&
	port=$(sed -n "s/^port //p" out) && [ -n "$port" ] &&
	grep -qx "@r\[0\]: 5" out &&
	tcpdump -r "$TMP/out.pcap" -n -Z root >dump 2>dump.err &&
	grep -q "link-type RAW (Raw IP)" dump.err &&
	[ $(wc -l <dump) = 5 ] &&
	[ $(grep -c "IP 127.0.0.1.[0-9]* > 127.0.0.1.$port: UDP, length 40$" dump) = 5 ] &&
	tcpdump -r "$TMP/out.pcap" -n -A -Z root 2>/dev/null >ascii &&
	for i in 0 1 2 3 4; do grep -q "sonde-udp-000${i}abcdefghijklmnopqrstuvwxyz" ascii || exit 1; done
'
test_expect_success 'the pcap records: caplen and len the packet'"'"'s 68 bytes, wall-clock time, mode 0600' '
	records "$TMP/out.pcap" >rec &&
	[ $(wc -l <rec) = 5 ] &&
	now=$(date +%s) &&
	while read -r sec usec cap len; do
		[ "$cap" = 68 ] && [ "$len" = 68 ] && [ "$usec" -lt 1000000 ] &&
		[ $((now - sec)) -ge 0 ] && [ $((now - sec)) -lt 120 ] || exit 1
	done <rec &&
	[ "$(stat -c %a "$TMP/out.pcap")" = 600 ]
'
test_expect_success 'fentry:__dev_queue_xmit with offset 14: the Ethernet header left out' '
	$SONDE probe -e "fentry:__dev_queue_xmit /pid == cpid/ { \$r = skboutput(\"$TMP/dev.pcap\", args.skb, 1500, 14); @r[\$r] = count(); }" \
		-c "$WORKLOADS/udpsend 3 100" >out 2>err &&
	grep -qx "@r\[0\]: 3" out && port=$(sed -n "s/^port //p" out) &&
	tcpdump -r "$TMP/dev.pcap" -n -Z root >dump 2>/dev/null &&
	[ $(grep -c "IP 127.0.0.1.[0-9]* > 127.0.0.1.$port: UDP, length 100$" dump) = 3 ] &&
	[ "$(records "$TMP/dev.pcap" | cut -d" " -f3,4 | sort -u)" = "128 128" ]
'
test_expect_success 'a length shorter than the packet: caplen cut, len the whole packet, tcpdump marks it' '
	$SONDE probe -e "fentry:ip_output /pid == cpid/ { skboutput(\"$TMP/cut.pcap\", args.skb, 24, 0); }" \
		-c "$WORKLOADS/udpsend 2 40" >out 2>err &&
	records "$TMP/cut.pcap" >rec && cat rec &&
	[ "$(sort -u -k3 rec | cut -d" " -f3,4)" = "24 68" ] && [ $(wc -l <rec) = 2 ] &&
	tcpdump -r "$TMP/cut.pcap" -n -Z root >dump 2>/dev/null; cat dump &&
	[ $(grep -c "IP 127.0.0.1.* > 127.0.0.1.*\[|udp\]" dump) = 2 ]
'
test_expect_success 'two probes writing one file: sent and received, each path opened once' '
	$SONDE probe -e "fentry:ip_output /pid == cpid/ { skboutput(\"$TMP/both.pcap\", args.skb, 2000, 0); }
		fentry:ip_rcv { skboutput(\"$TMP/both.pcap\", args.skb, 2000, 0); }" \
		-c "$WORKLOADS/udpsend 4 32" >out 2>err &&
	port=$(sed -n "s/^port //p" out) &&
	tcpdump -r "$TMP/both.pcap" -n -Z root >dump 2>/dev/null &&
	[ $(grep -c "> 127.0.0.1.$port: UDP, length 32$" dump) = 8 ]
'
# the big packets are sent from CPU 0, the small ones from CPU 1: CPU 0's ring never
# gets the record that would say what it lost, so the program counts the losses itself
test_expect_success 'a perf buffer too small for some packets: those are counted as lost, the helper says -ENOSPC' '
	printf "#!/bin/sh\nbusybox taskset -c 0 %s 3 8000 && busybox taskset -c 1 %s 2 40\n" "$WORKLOADS/udpsend" "$WORKLOADS/udpsend" >both.sh && chmod +x both.sh &&
	$SONDE probe -e "config = { perf_rb_pages = 1 } fentry:ip_output /comm == \"udpsend\"/ { @r[skboutput(\"$TMP/big.pcap\", args.skb, 9000, 0)] = count(); }" \
		-c "$TMP/both.sh" >out 2>err; cat out err; records "$TMP/big.pcap" &&
	grep -qx "@r\[-28\]: 3" out && grep -qx "@r\[0\]: 2" out &&
	grep -q "^sonde: warning: 3 packets lost: skboutput()'"'"'s perf buffer was full" err &&
	[ "$(records "$TMP/big.pcap" | cut -d" " -f3 | tr "\n" " ")" = "68 68 " ]
'
test_expect_success 'the pcap file cannot be created: one clear line, nothing attached' '
	! $SONDE probe -e "fentry:ip_output { skboutput(\"$TMP/no/such/dir.pcap\", args.skb, 100, 0); }" -c true >out 2>err &&
	[ $(wc -l <err) = 1 ] &&
	grep -q "^sonde: cannot create the pcap file '"'"'$TMP/no/such/dir.pcap'"'"' of skboutput(): No such file or directory" err
'
test_done
