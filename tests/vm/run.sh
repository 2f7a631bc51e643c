#!/bin/bash
# run.sh - `make test-vm`: boot Debian's cloud kernel (kprobes, kprobe_events, fentry,
# function tracer, function_graph, hist triggers: what this machine's kernel lacks) in
# qemu with sonde inside, run the tests listed by tests/vm/README.md there, and report
# their results here the way tests/lib.sh does ("ok - vm/NAME: ..." lines, and
# pass/fail/skip lines in $RESULTS when tests/run.sh collects them).
# Exits 0 when nothing failed (skipped counts as not failed), 1 otherwise.
#
#   VM_TESTS=t01      run only the scripts whose names contain this
#   VM_TIMEOUT=N      hard limit in seconds for the whole VM (qemu is killed after it);
#                     default: the boot's limit and every script's, the most the VM can take
#   VM_STALL=N        qemu is killed when the VM writes no result for this long (a hung
#                     guest); default VM_TEST_TIMEOUT + 60: a script is killed before that
#   VM_TEST_TIMEOUT=120  limit for each script inside the VM (its processes are killed)
#   VM_BOOT_TIMEOUT=60   limit for the kernel to reach /init
#   VM_KEEP=1         keep the work dir (initramfs, console and result logs) and say where
#   VM_SHELL=1        the VM's console on this terminal, and a shell there after the tests
#   VM_KERNEL=rt      boot Debian's PREEMPT_RT kernel instead (wakeup tracers) and run the
#                     tests/vm/t*-vmrt-*.sh scripts only; the default boot runs all others
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
collected=${RESULTS:+yes}	# by tests/run.sh, with every other test
RESULTS=${RESULTS:-/dev/null}
VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-120}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-60}
VM_STALL=${VM_STALL:-$((VM_TEST_TIMEOUT + 60))}
VM_KERNEL=${VM_KERNEL:-}
case $VM_KERNEL in
'') KDIR=$ROOT/build/vm/kernel ;;
rt) KDIR=$ROOT/build/vm/kernel-rt ;;
*) echo "run.sh: VM_KERNEL is '' (the cloud kernel) or rt" >&2; exit 2 ;;
esac
label=vm${VM_KERNEL:+-$VM_KERNEL}	# names this boot's own results
npass=0 nfail=0 nskip=0

# report ok|FAIL|skip 'NAME: what' ['(why)']: one result, printed and recorded like tests/lib.sh
report() {
	echo "$1 - $2${3:+ $3}"
	case $1 in
	ok) echo "pass $2" >>"$RESULTS"; npass=$((npass + 1)) ;;
	FAIL) echo "fail $2" >>"$RESULTS"; nfail=$((nfail + 1)) ;;
	skip) echo "skip $2${3:+ $3}" >>"$RESULTS"; nskip=$((nskip + 1)) ;;
	esac
}
finish() {
	# under tests/run.sh a summary like tests/lib.sh's; alone, the closing line of `make test`
	if [ -n "$collected" ]; then echo "# $label: $npass passed, $nfail failed, $nskip skipped"
	else echo; echo "$npass passed, $nfail failed, $nskip skipped"; fi
	[ "$nfail" -eq 0 ]
	exit
}
skip_all() {
	report skip "$label: sonde's tests in a VM with ${VM_KERNEL:+the RT kernel with wakeup tracers, }kprobes, fentry and the function tracer" "($1)"
	finish
}

# 1. what the VM needs: packages and the kernel (scripts/deps.sh fetches it into build/vm/kernel)
if ! err=$(scripts/deps.sh vm $VM_KERNEL 2>&1 >/dev/null); then
	skip_all "cannot get the VM's packages or kernel: $(echo "$err" | grep -v '^ *$' | tail -1)"
fi
if ! out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s all workloads build/vm/sonde 2>&1); then
	echo "$out" | tail -n 20
	report FAIL "$label: build sonde for the VM" "(make all workloads build/vm/sonde failed)"
	finish
fi
[ -n "$out" ] && echo "$out"

work=$(mktemp -d /tmp/sonde-vm.XXXXXX)
qemu_pid=
cleanup() {
	# timeout(1) passes TERM on to qemu; the pid file catches a qemu that outlived it
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	if [ -s "$work/qemu.pid" ]; then
		local q
		q=$(cat "$work/qemu.pid")
		if [ -d "/proc/$q" ] && grep -q qemu "/proc/$q/comm" 2>/dev/null; then
			kill "$q" 2>/dev/null; sleep 1; kill -KILL "$q" 2>/dev/null
		fi
	fi
	if [ "${VM_KEEP:-0}" = 1 ]; then echo "# vm: work dir kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 2. the initramfs: busybox, bash, sonde, the workloads, the tests and the libraries they load
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,root,run} "$root/sonde/build" "$root/sonde/tests/vm" "$root/sonde/tests/e2e"
# add FILE [DEST]: copy a program into the initramfs with every library ldd lists and the loader
add() {
	local src=$1 dst=${2:-$1} lib
	mkdir -p "$root$(dirname "$dst")" && cp -L "$src" "$root$dst" || return 1
	for lib in $(ldd "$src" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		[ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"; } || return 1
	done
}
stage() {
	local f name
	add /bin/busybox && add /bin/bash || return 1
	command -v bpftool >/dev/null && { add "$(command -v bpftool)" /usr/sbin/bpftool || return 1; }
	# tcpdump reads the pcap files skboutput() writes (tests/vm/t0750)
	command -v tcpdump >/dev/null && { add "$(command -v tcpdump)" /usr/bin/tcpdump || return 1; }
	# trace-cmd records a trace.dat of its own for sonde ftrace report (tests/vm/t0814), with its plugins
	if command -v trace-cmd >/dev/null; then
		add "$(command -v trace-cmd)" /usr/bin/trace-cmd || return 1
		for f in /usr/lib/*/traceevent/plugins/*.so; do [ -f "$f" ] && { add "$f" || return 1; }; done
	fi
	add build/vm/sonde /sonde/build/sonde || return 1
	for f in build/workloads/* build/examples/*; do
		[ -f "$f" ] && [ -x "$f" ] && { add "$f" "/sonde/$f" || return 1; }
	done
	# the bpftrace tools Debian ships (when installed here): the kprobe ones run there
	for f in /usr/sbin/*.bt; do
		[ -f "$f" ] && { add "$f" "/sonde/bt/$(basename "$f")" || return 1; }
	done
	cp tests/lib.sh "$root/sonde/tests/" || return 1
	cp tests/vm/init "$root/init" && chmod +x "$root/init" || return 1
	# the helpers of tests/vm/progs: BPF objects (clang) and programs (static when possible)
	mkdir -p "$root/sonde/build/vm"
	for f in tests/vm/progs/*.bpf.c; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .c)
		clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"/usr/include/$(gcc -dumpmachine)" \
			-c "$f" -o "$root/sonde/build/vm/$name.o" || return 1
	done
	for f in tests/vm/progs/*.c; do
		case $f in *.bpf.c) continue ;; esac
		[ -e "$f" ] || continue
		name=$(basename "$f" .c)
		gcc -O2 -g -Wall -Werror -static -o "$work/$name" "$f" -Wl,--start-group -lbpf -lelf -lz -Wl,--end-group 2>/dev/null ||
			gcc -O2 -g -Wall -Werror -o "$work/$name" "$f" -lbpf -lelf -lz || return 1
		add "$work/$name" "/sonde/build/vm/$name" || return 1
	done
	# the scripts to run: every tests/vm/t*.sh, then the e2e scripts named in tests/vm/e2e.list
	: >"$root/sonde/tests/run.list"
	for f in tests/vm/t[0-9]*.sh $(sed 's/#.*//' tests/vm/e2e.list 2>/dev/null); do
		case $f in tests/vm/*) ;; *) f=tests/e2e/$f ;; esac
		[ -e "$f" ] || { echo "vm: no such test script: $f (tests/vm/e2e.list?)"; return 1; }
		case $(basename "$f") in *"${VM_TESTS:-}"*) ;; *) continue ;; esac
		# the RT kernel's scripts run in its own boot (VM_KERNEL=rt), only there
		case $VM_KERNEL:$(basename "$f") in :*-vmrt-*) continue ;; rt:*-vmrt-*) ;; rt:*) continue ;; esac
		cp "$f" "$root/sonde/$f" && echo "${f#tests/}" >>"$root/sonde/tests/run.list" || return 1
	done
	echo "root:x:0:0:root:/root:/bin/bash" >"$root/etc/passwd"
	echo "root:x:0:" >"$root/etc/group"
	echo sonde-vm >"$root/etc/hostname"
	(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$work/initramfs.gz"
}
if ! err=$(stage 2>&1); then
	echo "$err" | tail -n 20
	report FAIL "$label: make the VM's initramfs" "(see the errors above)"
	finish
fi
ntests=$(wc -l <"$root/sonde/tests/run.list")
# a fixed limit for the whole VM failed a loaded run whose scripts were all on time
# (tcg is slow at load 7): the real guard is VM_STALL, this one only bounds the worst
VM_TIMEOUT=${VM_TIMEOUT:-$((VM_BOOT_TIMEOUT + ntests * (VM_TEST_TIMEOUT + 10)))}
if ldd build/vm/sonde >/dev/null 2>&1; then linkage="build/sonde with its libraries"; else linkage="a static sonde"; fi

# 3. boot: the kernel console goes to console.log, the tests' output to results.log
#    (second serial port); /init powers off at the end, -no-reboot turns a panic into an exit.
#    Two CPUs on one host thread (thread=single): with multi-threaded tcg, turning
#    function_graph on or off hung the guest in about one boot of two (soft lockups).
#    VM_SHELL=1: the console is this terminal, with a shell after the tests ('exit' ends).
console=file:$work/console.log shell=
[ "${VM_SHELL:-0}" = 1 ] && console=stdio shell=" sonde.shell=1"
qemu=(qemu-system-x86_64 -accel tcg,thread=single -m 1G -smp 2 -nographic -no-reboot
	-monitor none -nic none -pidfile "$work/qemu.pid"
	-serial "$console" -serial "file:$work/results.log"
	-kernel "$KDIR/vmlinuz" -initrd "$work/initramfs.gz"
	-append "console=ttyS0 quiet panic=-1 sonde.timeout=$VM_TEST_TIMEOUT$shell")
start=$(date +%s%N) stuck=
if [ -n "$shell" ]; then
	"${qemu[@]}"
	rc=$?
	: >"$work/console.log"; : >"$work/qemu.log"
else
	timeout -k 5 "$VM_TIMEOUT" "${qemu[@]}" </dev/null >"$work/qemu.log" 2>&1 &
	qemu_pid=$!
	# a kernel that does not get to /init within VM_BOOT_TIMEOUT is stopped there
	# and one that writes no result for VM_STALL seconds after it is hung
	boot_by=$((SECONDS + VM_BOOT_TIMEOUT)) size=0 grew=$SECONDS stalled=
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ -n "$boot_by" ] && grep -q '^vm: booted' "$work/results.log" 2>/dev/null; then boot_by=
		elif [ -n "$boot_by" ] && [ $SECONDS -ge "$boot_by" ]; then stuck=1; kill "$qemu_pid"; break; fi
		now_size=$(stat -c %s "$work/results.log" 2>/dev/null || echo 0)
		if [ "$now_size" != "$size" ]; then size=$now_size grew=$SECONDS
		elif [ -z "$boot_by" ] && [ $((SECONDS - grew)) -ge "$VM_STALL" ]; then stalled=1; kill "$qemu_pid"; break; fi
		sleep 0.5
	done
	wait "$qemu_pid"
	rc=$?
fi
qemu_pid=
ms=$((($(date +%s%N) - start) / 1000000)) elapsed=$((ms / 1000)).$((ms % 1000 / 100))
tr -d '\r' <"$work/results.log" >"$work/results.txt" 2>/dev/null

# 4. the results: "vm: booted RELEASE UPTIME", per script "vm: run NAME" ... "vm: end NAME rc=N",
#    then "vm: done"; everything between is tests/lib.sh's output
console() { tr -d '\r' <"$work/console.log" 2>/dev/null | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | grep -av '^\s*$'; }
console_tail() { console | tail -n 25 | sed 's/^/    | /'; }
booted=$(sed -n 's/^vm: booted //p' "$work/results.txt")
if [ -z "$booted" ]; then
	if [ -n "$stuck" ]; then why="nothing from /init after ${VM_BOOT_TIMEOUT}s: qemu stopped"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then why="nothing from /init after ${VM_TIMEOUT}s"
	elif [ "$rc" -ne 0 ]; then why="qemu exited with $rc: $(grep -v '^\s*$' "$work/qemu.log" | tail -1)"
	elif console | grep -q 'Kernel panic'; then why=$(console | grep -m1 -o 'Kernel panic.*')
	else why="the VM stopped before /init said anything: the kernel's console ends with the lines below"; fi
	report FAIL "$label: boot $(cat "$KDIR/package") in qemu" "($why)"
	console_tail
	finish
fi
current= seen_fail=0 seen_any=0
while IFS= read -r line; do
	case $line in
	"vm: run "*) current=${line#vm: run }; seen_fail=0; seen_any=0 ;;
	"vm: end "*)
		code=${line##*rc=}; code=${code%% *}
		name=$(basename "$current" .sh)
		echo "   (vm/$name: ${line##*secs=}s)"
		if [ "$code" = timeout ]; then
			report FAIL "vm/$name: the script finished" \
				"(killed after ${VM_TEST_TIMEOUT}s inside the VM: the test after its last result hung)"
		elif [ "$code" != 0 ] && [ $seen_fail = 0 ]; then
			report FAIL "vm/$name: the script finished" "(exit $code without a failed test)"
		elif [ $seen_any = 0 ]; then
			report FAIL "vm/$name: the script ran tests" "(it reported none)"
		fi
		current= ;;
	"ok - "*) seen_any=1; report ok "vm/${line#ok - }" ;;
	"FAIL - "*) seen_any=1 seen_fail=1; report FAIL "vm/${line#FAIL - }" ;;
	"skip - "*) seen_any=1; report skip "vm/${line#skip - }" "" ;;
	"vm: "*) ;;
	*) echo "$line" ;;
	esac
done <"$work/results.txt"
if [ -n "$current" ]; then
	if [ -n "${stalled:-}" ]; then why="no result from the VM for ${VM_STALL}s: qemu stopped after ${elapsed}s"
	else why="the VM stopped during it: qemu exit $rc after ${elapsed}s; the VM's limit is VM_TIMEOUT=${VM_TIMEOUT}s"; fi
	report FAIL "vm/$(basename "$current" .sh): the script finished" "($why)"
	console_tail
elif ! grep -q '^vm: done' "$work/results.txt"; then
	report FAIL "$label: /init ran every script and powered off" "(qemu exit $rc after ${elapsed}s)"
	console_tail
else
	report ok "$label: the VM booted, ran every script and powered off"
	echo "# vm: ${booted%% *} booted in ${booted#* }s (tcg, 2 CPUs), $linkage, $ntests scripts, ${elapsed}s in all"
fi
# the kernel's own complaints are failures whoever caused them
oops=$(console | grep -aE 'Oops|BUG:|WARNING:|Kernel panic|Call Trace' | head -5)
if [ -n "$oops" ]; then
	report FAIL "$label: the kernel logged no oops, BUG or WARNING"
	echo "$oops" | sed 's/^/    | /'
else
	report ok "$label: the kernel logged no oops, BUG or WARNING"
fi
finish
