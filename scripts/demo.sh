#!/bin/bash
# demo.sh - `make demo`: sonde's main job on the bundled workload (examples/demo.c,
# a small "service" with known hot functions, syscalls and blocked time).
# Writes its results under demo/ and prints what a performance engineer would read.
set -eu
cd "$(dirname "$0")/.."
SONDE=${SONDE:-build/sonde}
DEMO=build/examples/demo
mkdir -p demo

step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

step "1. count: is it on CPU, and what does it do?" "sonde stat -e task-clock,context-switches,page-faults,syscalls:sys_enter_openat,syscalls:sys_enter_write -- $DEMO 2"
$SONDE stat -o demo/stat.txt -e task-clock,context-switches,page-faults,syscalls:sys_enter_openat,syscalls:sys_enter_write -- $DEMO 2
cat demo/stat.txt
echo "(saved in demo/stat.txt)"
