#!/bin/bash
# t0774: the TCP tools (tcpconnect, tcpaccept, tcpretrans, tcpstates, tcplife,
# tcpconnlat, tcprtt, tcpsynbl) on loopback connections a small Python program
# makes: N connections to a known port, 3000 bytes one way and 5000 the other,
# a connect to a closed port, SYNs a full accept queue drops (so retransmitted),
# connections left in a listener's queue. Each tool must show exactly those.
# Where Debian's libbpf-tools runs here (tcpstates, tcplife), it watches the same
# workload at the same time and both outputs are compared.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'the tools take their options: tcprtt -i/-d, tcpconnlat [min_ms], tcpsynbl [interval] [count]' '
	echo "usage: tcprtt [-h] [-i INTERVAL] [-d DURATION] [-T] [-m] [-p LPORT] [-P RPORT]" \
		"[-a LADDR] [-A RADDR] [-b] [-B] [-e]" >want &&
	echo "usage: tcpconnlat [-h] [-t] [-p PID] [-L] [min_ms]" >>want &&
	echo "usage: tcpsynbl [-h] [-T] [-4] [-6] [interval] [count]" >>want &&
	for t in tcprtt tcpconnlat tcpsynbl; do $SONDE tool $t --help | head -1; done >got && test_cmp want got &&
	$SONDE tool tcpconnect --help | grep -q "^  -P PORTS, --port PORTS$" &&
	$SONDE tool tcpstates --help | grep -q "^  -L LPORT, --localport LPORT$" &&
	for t in tcpaccept tcpretrans tcplife; do $SONDE tool $t --help | grep -q "^  -4, --ipv4" || exit 1; done &&
	rc=0 && $SONDE tool tcpsynbl -6 -Z 2>err || rc=$?
	test $rc -eq 129 && grep -q "unknown option .-Z." err
'
require_root 'the TCP tools'
command -v python3 >/dev/null || _skip_script 'the TCP tools' 'no python3'

test_expect_success 'str($1) is a positional parameter as text, number or not (as bpftrace)' '
	$SONDE probe -e "BEGIN { printf(\"%s|%s|%s|%c\n\", str(\$1), str(\$2, 1), str(\$3), str(\$1)[1]); exit(); }" \
		12 345 >out &&
	printf "Attaching 1 probe...\n12|3||2\n\n\n" >want && test_cmp want out
'

# the workload: conn F PORT N | synbl PORT BACKLOG K | retrans F PORT (F: 4 or 6, for 127.0.0.1 or ::1)
cat >"$TMP/tcp.py" <<'EOF'
import os, socket, sys, threading

def addr(f):
    return (socket.AF_INET, '127.0.0.1') if f == '4' else (socket.AF_INET6, '::1')

def listener(f, port, backlog):
    fam, host = addr(f)
    s = socket.socket(fam)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(backlog)
    return s

def recvn(s, n):
    got = 0
    while got < n:
        b = s.recv(n - got)
        if not b:
            break
        got += len(b)

# N connections: the client sends 3000 bytes, the server 5000, the client closes
# first; then a connect to a port that is bound but not listening (refused).
# Prints: pid, the closed port, the clients' ports.
def conn(f, port, n):
    fam, host = addr(f)
    srv = listener(f, port, 16)
    def serve():
        for i in range(n):
            c, _ = srv.accept()
            recvn(c, 3000)
            c.sendall(b'y' * 5000)
            c.recv(1)
            c.close()
    t = threading.Thread(target=serve)
    t.start()
    ports = []
    for i in range(n):
        s = socket.socket(fam)
        s.connect((host, port))
        ports.append(s.getsockname()[1])
        s.sendall(b'x' * 3000)
        recvn(s, 5000)
        s.close()
    t.join()
    srv.close()
    closed = socket.socket(fam)
    closed.bind((host, 0))
    s = socket.socket(fam)
    try:
        s.connect((host, closed.getsockname()[1]))
    except ConnectionRefusedError:
        pass
    print(os.getpid(), closed.getsockname()[1], *ports)

# K connections the listener never accepts: each completes its handshake into the queue
def synbl(port, backlog, k):
    l = listener('4', port, backlog)
    cs = [socket.create_connection(('127.0.0.1', port)) for i in range(k)]
    print(os.getpid())

# listen(0) holds one connection; a second one's SYNs are dropped while the queue is
# full: retransmitted by the kernel until TCP_SYNCNT (1) gives up. Prints its port.
def retrans(f, port):
    fam, host = addr(f)
    l = listener(f, port, 0)
    a = socket.socket(fam)
    a.connect((host, port))
    b = socket.socket(fam)
    b.setsockopt(socket.IPPROTO_TCP, socket.TCP_SYNCNT, 1)
    b.bind((host, 0))
    try:
        b.connect((host, port))
    except TimeoutError:
        pass
    print(b.getsockname()[1])

m = sys.argv[1]
if m == 'conn':
    conn(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
elif m == 'synbl':
    synbl(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
else:
    retrans(sys.argv[2], int(sys.argv[3]))
EOF
N=3
export N

# Headers are found by their text where a tool sees every connection: a line of
# another process's event, from while the probes were being attached, may come first.

# a port nothing listens on now
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# run the workload: $1 is the file its line goes to, the rest its arguments
workload() {
	local out=$1
	shift
	python3 "$TMP/tcp.py" "$@" >"$out"
	sleep 0.2
}

test_expect_success 'tcpconnect: the N connects and the refused one, from the workload, with their ports' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpconnect && workload w conn 4 $P $N && tool_stop &&
	read pid closed c1 c2 c3 <w &&
	grep -m1 "^PID " out >hdr && printf "%-6s %-12s %-2s %-16s %-16s %-5s\n" PID COMM IP SADDR DADDR DPORT >want &&
	test_cmp want hdr &&
	grep "^$pid " out >got &&
	{ for i in $(seq $N); do printf "%-6d %-12s %-2d %-16s %-16s %-5d\n" $pid python3 4 127.0.0.1 127.0.0.1 $P; done
	  printf "%-6d %-12s %-2d %-16s %-16s %-5d\n" $pid python3 4 127.0.0.1 127.0.0.1 $closed; } >want &&
	test_cmp want got
'
test_expect_success 'tcpconnect -P PORT,PORT -p PID -u UID -U -t -s: filters; UID, time and source port columns' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpconnect -P 1,$P -U -t -s && workload w conn 4 $P $N && tool_stop &&
	read pid closed c1 c2 c3 <w &&
	printf "%-9s%-6s%-6s %-12s %-2s %-16s %-16s %-5s %-5s\n" "TIME(s)" UID PID COMM IP SADDR DADDR SPORT DPORT >want &&
	grep -m1 "^TIME(s) " out >hdr && test_cmp want hdr &&
	grep " $P *\$" out >got && test $(wc -l <got) -eq $N && ! grep -q " $closed *\$" out &&
	for c in $c1 $c2 $c3; do
		grep -q "^[0-9]\.[0-9][0-9][0-9]    0     $pid  *python3  *4  127.0.0.1  *127.0.0.1  *$c  *$P *\$" got || exit 1
	done &&
	tool_start out $SONDE tool tcpconnect -p $$ && workload w conn 4 $(free_port) 1 && tool_stop &&
	test $(wc -l <out) -eq 1 &&
	tool_start out $SONDE tool tcpconnect -u 4242 && workload w conn 4 $(free_port) 1 && tool_stop &&
	read pid rest <w && ! grep -q "^$pid " out &&
	tool_start out $SONDE tool tcpconnect -u 0 && workload w conn 4 $(free_port) 1 && tool_stop &&
	read pid rest <w && test $(grep -c "^$pid " out) -eq 2
'
test_expect_success 'tcpconnect -c: the connects counted per source, destination and port at Ctrl-C, most first' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpconnect -c && workload w conn 4 $P $N && tool_stop &&
	read pid closed rest <w &&
	head -1 out | grep -q "^Tracing connect ... Hit Ctrl-C to end$" &&
	printf "%-25s %-25s %-20s %-10s\n" LADDR RADDR RPORT CONNECTS >want && grep "^LADDR" out >hdr && test_cmp want hdr &&
	printf "%-25s %-25s %-20d %-10d\n" 127.0.0.1 127.0.0.1 $P $N 127.0.0.1 127.0.0.1 $closed 1 >want &&
	grep -E "^127.0.0.1 .* ($P|$closed)  " out >got && test_cmp want got
'
test_expect_success 'tcpaccept: the N accepts, in the accepting process, with both ends; -P filters local ports' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpaccept -P $P,2 && workload w conn 4 $P $N && tool_stop &&
	read pid closed c1 c2 c3 <w &&
	{ printf "%-7s %-12s %-2s %-16s %-5s %-16s %-5s\n" PID COMM IP RADDR RPORT LADDR LPORT
	  for c in $c1 $c2 $c3; do
		printf "%-7d %-12s %-2d %-16s %-5d %-16s %-5d\n" $pid python3 4 127.0.0.1 $c 127.0.0.1 $P
	  done; } >want &&
	test_cmp want out &&
	tool_start out $SONDE tool tcpaccept -6 -P $P && workload w conn 4 $P $N && tool_stop &&
	test $(wc -l <out) -eq 1
'
test_expect_success 'tcpaccept -T over IPv6 (::1): IP 6 and the addresses' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpaccept -T -P $P && workload w conn 6 $P 2 && tool_stop &&
	read pid closed c1 c2 <w &&
	head -1 out | grep -q "^TIME     PID     COMM " &&
	for c in $c1 $c2; do grep -q "^[0-9:]\{8\} $pid  *python3  *6  ::1  *$c  *::1  *$P *\$" out || exit 1; done &&
	test $(wc -l <out) -eq 3
'
test_expect_success 'tcpconnlat: the N connects and the refused one, timed; -L gives the local ports; min_ms' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpconnlat -L && workload w conn 4 $P $N && tool_stop &&
	read pid closed c1 c2 c3 <w &&
	printf "%-6s %-12s %-2s %-16s %-6s %-16s %-5s %s\n" PID COMM IP SADDR LPORT DADDR DPORT "LAT(ms)" >want &&
	grep -m1 "^PID " out >hdr && test_cmp want hdr &&
	for c in $c1 $c2 $c3; do
		grep -q "^$pid  *python3  *4  127.0.0.1  *$c  *127.0.0.1  *$P  *[0-9]*\.[0-9][0-9]\$" out || exit 1
	done &&
	test $(grep -c "^$pid .* $closed  *[0-9]*\.[0-9][0-9]\$" out) -eq 1 &&
	test $(grep -c "^$pid " out) -eq $((N + 1)) &&
	tool_start out $SONDE tool tcpconnlat 1000 && workload w conn 4 $(free_port) $N && tool_stop &&
	read pid rest <w && ! grep -q "^$pid " out &&
	tool_start out $SONDE tool tcpconnlat -t 0.001 && workload w conn 4 $(free_port) $N && tool_stop &&
	read pid rest <w && test $(grep -c "^[0-9]\.[0-9][0-9][0-9]     $pid " out) -eq $((N + 1))
'

# tcpstates and tcplife: sonde and libbpf-tools at the same time, on the same workload
both() {
	tool_start mine $SONDE tool "$@" && MINE=$TOOL_PID &&
	tool_start theirs stdbuf -oL /usr/sbin/"$@" && THEIRS=$TOOL_PID &&
	workload w conn 4 $P $N &&
	kill -INT $MINE $THEIRS && wait $MINE && wait $THEIRS
}
have_libbpf() {
	test -x /usr/sbin/tcpstates || { echo "libbpf-tools is not installed (make test installs it)"; exit 1; }
}
export -f both

test_expect_success "tcpstates: every state of the workload's sockets; the same lines as libbpf-tools' tcpstates" '
	have_libbpf && P=$(free_port) && both tcpstates &&
	read pid closed c1 c2 c3 <w &&
	grep -m1 " RPORT " mine >hdr && grep -m1 " RPORT " theirs >want && test_cmp want hdr &&
	grep " $P " mine | sort >a && grep " $P " theirs | sort >b &&
	test $(wc -l <a) -eq $((2 + 10 * N)) &&
	sed -E "s/ [0-9.]+\$//" a >a2 && sed -E "s/ [0-9.]+\$//" b >b2 && test_cmp b2 a2 &&
	for c in $c1 $c2 $c3; do
		grep " 127.0.0.1  *$c  *127.0.0.1  *$P " a | awk "{ print \$8 \" -> \" \$10 }" | sort | paste -sd, - >t
		echo "ESTABLISHED -> FIN_WAIT1,FIN_WAIT1 -> FIN_WAIT2,FIN_WAIT2 -> CLOSE,SYN_SENT -> ESTABLISHED" >want
		test_cmp want t || exit 1
	done &&
	L="127.0.0.1  *" &&
	grep -q "^[0-9a-f]\{16\} $pid  *python3  *${L}0  *$L$closed  *CLOSE  *-> SYN_SENT  *0.000\$" mine &&
	grep -q "^[0-9a-f]\{16\} .* $L[1-9][0-9]*  *$L$closed  *SYN_SENT  *-> CLOSE  *[0-9]*\.[0-9]\{3\}\$" mine
'
test_expect_success "tcpstates -T -w -L PORT: the listener's and the server sockets' lines only, as libbpf-tools'" '
	have_libbpf && P=$(free_port) && both tcpstates -T -w -L $P &&
	grep -m1 " RPORT " mine >hdr && grep -m1 " RPORT " theirs >want && test_cmp want hdr &&
	sed -E "1d; s/ [0-9.]+\$//" mine | sort >a && sed -E "1d; s/ [0-9.]+\$//" theirs | sort >b &&
	test $(wc -l <a) -eq $((2 + 5 * N)) && test_cmp b a &&
	grep -q "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] [0-9a-f]\{16\} [0-9 ]\{7\} [^ ]*  *4  127.0.0.1  *$P " mine
'
test_expect_success "tcpstates -t -D: seconds since the first event, remote ports" '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpstates -t -D $P && workload w conn 4 $P $N && tool_stop &&
	head -1 out | grep -q "^TIME(s)   SKADDR " &&
	test $(grep -c "^[0-9]\.[0-9]\{6\}  [0-9a-f]\{16\} .* $P  *[A-Z_0-9]* *-> " out) -eq $((5 * N))
'
test_expect_success "tcplife: each connection's two ends, bytes and owner; the same as libbpf-tools' tcplife" '
	have_libbpf && P=$(free_port) && both tcplife &&
	read pid closed c1 c2 c3 <w &&
	grep -m1 " RPORT " mine >hdr && grep -m1 " RPORT " theirs >want && test_cmp want hdr &&
	{ for c in $c1 $c2 $c3; do
		printf "%-7d %-16s %-15s %-5d %-15s %-5d %-6.2f %-6.2f \n" $pid python3 127.0.0.1 $c 127.0.0.1 $P 2.93 4.88
		printf "%-7d %-16s %-15s %-5d %-15s %-5d %-6.2f %-6.2f \n" $pid python3 127.0.0.1 $P 127.0.0.1 $c 4.88 2.93
	  done; } | sort >want &&
	grep "^$pid .* \($P\|$c1\|$c2\|$c3\) " mine | grep -v " $closed " | sed -E "s/[0-9.]+\$//" | sort >a &&
	test_cmp want a &&
	grep "^$pid .* \($P\|$c1\|$c2\|$c3\) " theirs | grep -v " $closed " | sed -E "s/[0-9.]+\$//" | sort >b &&
	test_cmp b a &&
	grep -q "^$pid  *python3  *127.0.0.1  *[0-9]*  *127.0.0.1  *$closed  *0.00   0.00   [0-9]*\.[0-9][0-9]\$" mine
'
test_expect_success "tcplife -T -w -D PORT -p PID: the clients' ends only; as libbpf-tools'" '
	have_libbpf && P=$(free_port) && both tcplife -T -w -D $P &&
	grep -m1 " RPORT " mine >hdr && grep -m1 " RPORT " theirs >want && test_cmp want hdr &&
	sed -E "1d; s/ [0-9.]+\$//" mine | sort >a && sed -E "1d; s/ [0-9.]+\$//" theirs | sort >b &&
	test $(wc -l <a) -eq $N && test_cmp b a &&
	tool_start out $SONDE tool tcplife -p $$ && workload w conn 4 $(free_port) 1 && tool_stop &&
	test $(wc -l <out) -eq 1
'

test_expect_success 'IPv6 (::1): tcpconnect, tcpconnlat, tcplife -6 and tcpstates -w show ::1; -4 filters it out' '
	P=$(free_port) &&
	tool_start c $SONDE tool tcpconnect -P $P && C=$TOOL_PID &&
	tool_start l $SONDE tool tcpconnlat && L=$TOOL_PID &&
	tool_start f $SONDE tool tcplife -6 -L $P && F=$TOOL_PID &&
	tool_start f4 $SONDE tool tcplife -4 -L $P && F4=$TOOL_PID &&
	tool_start s $SONDE tool tcpstates -w -6 -D $P && S=$TOOL_PID &&
	workload w conn 6 $P 2 && kill -INT $C $L $F $F4 $S && wait $C $L $F $F4 $S &&
	read pid closed c1 c2 <w &&
	printf "%-6d %-12s %-2d %-16s %-16s %-5d\n" $pid python3 6 ::1 ::1 $P $pid python3 6 ::1 ::1 $P >want &&
	sed 1d c >got && test_cmp want got &&
	test $(grep -c "^$pid  *python3  *6  ::1  *::1  *$P  *[0-9.]*\$" l) -eq 2 &&
	for c in $c1 $c2; do
		printf "%-7d %-16s %-15s %-5d %-15s %-5d %-6.2f %-6.2f \n" $pid python3 ::1 $P ::1 $c 4.88 2.93
	done >want &&
	sed -E "1d; s/[0-9.]+\$//" f >got && test_cmp want got && test $(wc -l <f4) -eq 1 &&
	test $(grep -c "^[0-9a-f]\{16\} .* 6  ::1  *[0-9]*  *::1  *$P  *[A-Z_0-9]* *-> " s) -eq 10
'

# SYN retransmits: 1 with TCP_SYNCNT 1, 2 where the first SYN retries are linear (6.5+)
RETRANS=1
[ "$(cat /proc/sys/net/ipv4/tcp_syn_linear_timeouts 2>/dev/null || echo 0)" -gt 0 ] && RETRANS=2
export RETRANS
test_expect_success 'tcpretrans: the SYN retransmits of a connect a full queue ignores, in BCC columns' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpretrans && workload w retrans 4 $P && tool_stop &&
	read c <w &&
	grep -m2 "^Tracing retransmits\|^TIME " out >hdr &&
	{ echo "Tracing retransmits ... Hit Ctrl-C to end"
	  printf "%-8s %-7s %-2s %-20s %1s> %-20s %-4s\n" TIME PID IP LADDR:LPORT T RADDR:RPORT STATE; } >want &&
	test_cmp want hdr &&
	grep "127.0.0.1:$P " out | cut -c 18- >got &&
	for i in $(seq $RETRANS); do printf "%-2d %-20s R> %-20s %s\n" 4 127.0.0.1:$c 127.0.0.1:$P SYN_SENT; done >want &&
	test_cmp want got
'
test_expect_success 'tcpretrans -s over IPv6, -c counts per flow' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpretrans -s -6 && workload w retrans 6 $P && tool_stop &&
	read c <w &&
	grep "::1:$P " out | cut -c 18- >got && test $(wc -l <got) -eq $RETRANS &&
	seq=$(head -1 got | awk "{ print \$6 }") &&
	for i in $(seq $RETRANS); do printf "%-2d %-20s R> %-20s %-12s %s\n" 6 ::1:$c ::1:$P SYN_SENT $seq; done >want &&
	test_cmp want got &&
	P=$(free_port) &&
	tool_start out $SONDE tool tcpretrans -c && workload w retrans 4 $P && tool_stop &&
	read c <w &&
	printf "\n%-25s %-25s %-10s\n" LADDR:LPORT RADDR:RPORT RETRANSMITS >want &&
	sed -n 2,3p out >hdr && test_cmp want hdr &&
	printf "%-20s <-> %-20s %10d\n" "[127.0.0.1]#$c" "[127.0.0.1]#$P" $RETRANS >want &&
	grep "#$P " out >got && test_cmp want got
'
test_expect_success 'tcpsynbl: the queue length as each of 3 connections completes, under backlog_max = 37' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcpsynbl && workload w synbl $P 37 3 && tool_stop &&
	head -1 out | grep -q "^Tracing SYN backlog size. Ctrl-C to end.$" &&
	{ echo "backlog_max = 37"
	  echo "     backlog             : count    distribution"
	  echo "         0 -> 1          : 2        |****************************************|"
	  echo "         2 -> 3          : 1        |********************                    |"; } >want &&
	grep -A3 "^backlog_max = 37$" out >got && test_cmp want got &&
	tool_start out $SONDE tool tcpsynbl -6 && workload w synbl $(free_port) 37 3 && tool_stop &&
	! grep -q "backlog_max = 37" out
'

test_expect_success 'tcpsynbl -T 1 2: two outputs, one a second, each after a blank line and a time; then it ends' '
	timeout 20 $SONDE tool tcpsynbl -T 1 2 >out &&
	test $(grep -c "^\$" out) -eq 2 && test $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\$" out) -eq 2 &&
	sed -n 2,3p out | head -1 | grep -q "^\$"
'

# tcprtt: the samples bpftrace counts at the same tracepoint, for the same port
test_expect_success 'tcprtt -P PORT -e: as many samples, and the same average, as bpftrace sees at tcp:tcp_probe' '
	have_bpftrace || { echo "no bpftrace here"; exit 1; }
	P=$(free_port) &&
	tool_start bt bpftrace -e "tracepoint:tcp:tcp_probe /args->dport == $P/ { @n = count(); @avg = avg(args->srtt); }" &&
	BT=$TOOL_PID && sleep 1 &&
	tool_start out $SONDE tool tcprtt -P $P -e && workload w conn 4 $P $N && tool_stop &&
	kill -INT $BT && wait $BT &&
	n=$(awk "/^@n:/ { print \$2 }" bt) && avg=$(awk "/^@avg:/ { print \$2 }" bt) &&
	test "$n" -gt 0 &&
	sed -n 2,3p out >got && printf "\nAll Addresses = ****** [AVG %d]\n" $avg >want && test_cmp want got &&
	test $(awk "/ -> / { n += \$5 } END { print n }" out) -eq $n
'
test_expect_success 'tcprtt -p -m -b: per local address, in milliseconds (loopback: all under 1)' '
	P=$(free_port) &&
	tool_start out $SONDE tool tcprtt -p $P -m -b -a 127.0.0.1 && workload w conn 4 $P $N && tool_stop &&
	sed -n 3,5p out >got &&
	{ echo "Local Address = 127.0.0.1 "; echo "     msecs               : count    distribution"; } >want &&
	head -2 got | test_cmp want - &&
	tail -1 got | grep -q "^         0 -> 1          : [1-9][0-9]* *|\*\{40\}|$" &&
	tool_start out $SONDE tool tcprtt -A 10.1.2.3 && workload w conn 4 $(free_port) 1 && tool_stop &&
	test $(wc -l <out) -eq 2
'
test_expect_success 'tcprtt -i 1 -d 2: two summaries, one a second, then it ends by itself' '
	$SONDE tool tcprtt -i 1 -d 2 -T >out &&
	head -1 out | grep -q "^Tracing TCP RTT for 2 secs.$" &&
	test $(grep -c "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$" out) -eq 2
'
test_done
