#!/bin/bash
# skboutput(path, skb, length, offset) on this machine: it compiles (the error cases are
# in tests/lang/skboutput.test), and since this kernel refuses fentry the run ends with
# one clear line and no pcap file. The VM captures real packets: tests/vm/t0750.
. "$(dirname "$0")/../lib.sh"

require_root 'skboutput()'
test_expect_success 'compiles: args.skb, a variable, fexit'"'"'s retval, kfunc spelling; no file made' '
	$SONDE probe --dry-run -e "fentry:ip_rcv { \$r = skboutput(\"$TMP/a.pcap\", args.skb, args.skb->len, 14); @[\$r] = count(); }" &&
	$SONDE probe --dry-run -e "kfunc:ip_output { \$s = args.skb; skboutput(\"$TMP/a.pcap\", \$s, 64, 0); }" &&
	$SONDE probe --dry-run -e "fexit:skb_clone { if (retval != 0) { skboutput(\"$TMP/a.pcap\", retval, 100, 0); } }" &&
	[ ! -e "$TMP/a.pcap" ]
'
test_expect_success 'the code: skb->len read from BTF'"'"'s offset, bpf_skb_output (111) with a 24-byte record' '
	off=$($SONDE probe -e "BEGIN { printf(\"%d\\n\", offsetof(struct sk_buff, len)); exit(); }" | sed -n "2p") &&
	[ -n "$off" ] && [ "$off" -gt 0 ] &&
	$SONDE probe --dry-run -v -e "fentry:ip_rcv { skboutput(\"$TMP/a.pcap\", args.skb, 100, 14); }" >dump &&
	grep -q "call 111$" dump && grep -q "r5 = 24$" dump && grep -q "call 125$" dump &&
	grep -q "r0 += 14$" dump && grep -q "r3 <<= 32$" dump && grep -q "r4 = 0xffffffff ll$" dump &&
	grep -q "r3 += $off$" dump
'
test_expect_success 'run here: fentry refused in one line, no pcap file left behind' '
	rc=0 && $SONDE probe -e "fentry:ip_rcv { skboutput(\"$TMP/b.pcap\", args.skb, 100, 0); }" -c true >out 2>err || rc=$?
	if [ $rc = 0 ]; then
		[ -f "$TMP/b.pcap" ] && [ "$(stat -c %a "$TMP/b.pcap")" = 600 ]	# a kernel with trampolines
	else
		[ $(wc -l <err) = 1 ] && grep -q "refused the program of .fentry:ip_rcv." err && [ ! -e "$TMP/b.pcap" ]
	fi
'
test_expect_success 'perf_rb_pages is a config key now (bpftrace'"'"'s, for skboutput), from 1 to 4096' '
	$SONDE probe --dry-run -e "config = { perf_rb_pages = 3 } fentry:ip_rcv { skboutput(\"$TMP/a.pcap\", args.skb, 100, 0); }" &&
	! BPFTRACE_PERF_RB_PAGES=5000 $SONDE probe --dry-run -e "BEGIN { }" 2>err && grep -q "perf_rb_pages is a number of pages from 1 to 4096" err
'
test_done
