#!/bin/bash
# demo.sh - `make demo`: sonde's main job on the bundled workload (examples/demo.c,
# a small "service" with known hot functions, syscalls and blocked time), from
# "it is slow" to a flame graph and a root cause. Results go under demo/.
set -eu
cd "$(dirname "$0")/.."
SONDE=${SONDE:-build/sonde}
DEMO=build/examples/demo
mkdir -p demo
rm -f demo/*.data demo/*.svg demo/*.folded demo/*.json demo/*.pb.gz demo/*.txt

step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

step "1. count: is it on CPU, and what does it do?" \
	"sonde stat -e task-clock,context-switches,page-faults,syscalls:sys_enter_openat,syscalls:sys_enter_write -- $DEMO 2"
$SONDE stat -o demo/stat.txt -e task-clock,context-switches,page-faults,syscalls:sys_enter_openat,syscalls:sys_enter_write -- $DEMO 2
cat demo/stat.txt

step "2. sample its stacks at 999 Hz (frame pointers), into a perf.data file" \
	"sonde record -F 999 -g -o demo/sonde.data -- $DEMO 2"
$SONDE record -F 999 -g -o demo/sonde.data -- $DEMO 2

step "3. where does the CPU time go?" "sonde report -i demo/sonde.data --no-children -g none --top 8"
$SONDE report -i demo/sonde.data --no-children -g none --top 8 | tee demo/report.txt

step "4. the flame graph (open it in a browser: click to zoom, Ctrl-F to search)" \
	"sonde collapse -i demo/sonde.data > demo/cpu.folded; sonde flame --title 'demo: CPU' demo/cpu.folded -o demo/cpu.svg"
$SONDE collapse -i demo/sonde.data > demo/cpu.folded
$SONDE flame --title "demo: CPU" demo/cpu.folded -o demo/cpu.svg
echo "demo/cpu.svg: $(grep -c '<g' demo/cpu.svg) frames; hottest stacks:"
sort -k2 -n -r -t' ' demo/cpu.folded | head -3
$SONDE flame -i demo/sonde.data --format speedscope -o demo/cpu.speedscope.json
$SONDE flame -i demo/sonde.data --format pprof -o demo/cpu.pb.gz
echo "also: demo/cpu.speedscope.json (speedscope), demo/cpu.pb.gz (pprof, Pyroscope, Parca)"

step "5. and when it is not on CPU: blocked time by stack, in the kernel (BPF)" \
	"sonde offcpu -f -- $DEMO 2 > demo/offcpu.folded; sonde flame --colors io --countname us ..."
if $SONDE offcpu -f -o demo/offcpu.folded -- $DEMO 2 >/dev/null 2>demo/offcpu.err; then
	$SONDE flame --colors io --countname us --title "demo: off-CPU" demo/offcpu.folded -o demo/offcpu.svg
	echo "demo/offcpu.svg; the longest blocked stacks (microseconds):"
	sort -k2 -n -r -t' ' demo/offcpu.folded | head -3
else
	echo "(offcpu could not run here: $(head -1 demo/offcpu.err))"
fi
[ -s demo/offcpu.err ] || rm -f demo/offcpu.err

step "5b. on CPU and off CPU in one wall-clock (hot/cold) graph" \
	"sonde offcpu --wall -o demo/wall.folded -- $DEMO 2; sonde flame --colors chain --countname us ..."
if $SONDE offcpu --wall -o demo/wall.folded -- $DEMO 2 >/dev/null 2>demo/wall.err; then
	$SONDE flame --colors chain --countname us --title "demo: wall clock (on CPU purple, off CPU aqua)" \
		demo/wall.folded -o demo/wall.svg
	echo "demo/wall.svg: on-CPU frames in purple, off-CPU (_[w]) in aqua: hot_loop and warm_loop vs clock_nanosleep"
	echo "the sleep, under the main that called it (DWARF unwinding, where a library such as Debian's libc has no frame pointers):"
	grep -m1 "main_\[w\];[^;]*nanosleep_\[w\];clock_nanosleep" demo/wall.folded | sed "s/;entry_SYSCALL[^ ]*/;.../" || true
else
	echo "(the wall-clock profile could not run here: $(head -1 demo/wall.err))"
fi
[ -s demo/wall.err ] || rm -f demo/wall.err

step "6. its syscalls, strace-style, counted in the kernel" "sonde trace -c -- $DEMO 1"
$SONDE trace -c -- $DEMO 1 2>&1 | head -14 || true

printf '\n\033[1mroot cause:\033[0m %s\n' "$(awk 'NR==1 || /^ *[0-9]/ {print; exit}' <(grep '^ *[0-9]' demo/report.txt) | awk '{print $NF" uses "$1" of the CPU samples"}')"
echo "files: $(ls demo | tr '\n' ' ')"
