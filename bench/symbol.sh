#!/bin/bash
# symbol.sh - the symbolizer vs binutils addr2line on the same 100,000 addresses of
# libc (uniformly random over .text, and a "profile" of 2,000 hot addresses repeated
# as samples repeat): symbols per second, with and without inline frames and source
# lines, as ratios; then how often both give the same inline chain and line numbers.
# perf report forks addr2line for --inline/srcline (see reference §6): this is that cost.
set -u
. "$(dirname "$0")/lib.sh"
LIBC=$(ldd /bin/true | awk '/libc.so/ {print $3}')
N=${N:-100000}
"$SONDE" addr2sym -k 0 >/dev/null 2>&1 || { echo "symbol.sh: '$SONDE addr2sym' does not run: build sonde first"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

read -r lo size < <(readelf -SW "$LIBC" | awk '$2 == ".text" {print $4, $6}')
python3 - "$lo" "$size" "$N" "$T" <<'PY'
import random, sys
lo, size, n, t = int(sys.argv[1], 16), int(sys.argv[2], 16), int(sys.argv[3]), sys.argv[4]
random.seed(1)
open(t + "/rand", "w").write("".join("%x\n" % (lo + random.randrange(size)) for _ in range(n)))
hot = [lo + random.randrange(size) for _ in range(2000)]
open(t + "/hot", "w").write("".join("%x\n" % random.choice(hot) for _ in range(n)))
PY

rate() { awk -v n="$N" -v t="$1" 'BEGIN { printf "%9.0f/s", n / t }'; }
timed() {	# timed INPUT CMD...: best of 3 wall times, stdin from INPUT
	local in=$1
	shift
	best_of 3 bash -c '"$@" <"$0" >/dev/null' "$in" "$@"
}
echo "$N addresses in $LIBC (debug info: $(ls /usr/lib/debug/.build-id/*/* 2>/dev/null | wc -l) build-id files)"
for set in rand hot; do
	s=$(timed "$T/$set" "$SONDE" addr2sym -e "$LIBC")
	a=$(timed "$T/$set" addr2line -f -e "$LIBC")
	printf '%-5s names          sonde %s  addr2line %s  sonde/addr2line time = %s\n' "$set" "$(rate "$s")" "$(rate "$a")" "$(ratio "$s" "$a")"
	s=$(timed "$T/$set" "$SONDE" addr2sym -i -s -e "$LIBC")
	a=$(timed "$T/$set" addr2line -f -i -e "$LIBC")
	printf '%-5s inline+lines   sonde %s  addr2line %s  sonde/addr2line time = %s\n' "$set" "$(rate "$s")" "$(rate "$a")" "$(ratio "$s" "$a")"
done

# agreement: the same chain of (inlined function names, line numbers) per unique address
awk '!s[$0]++' "$T/rand" >"$T/uniq"
"$SONDE" addr2sym -i -s -e "$LIBC" <"$T/uniq" >"$T/sonde"
addr2line -f -i -a -e "$LIBC" <"$T/uniq" >"$T/a2l"
python3 - "$T" <<'PY'
import re, sys
t = sys.argv[1]
a2l, cur, lines = {}, None, open(t + "/a2l").read().split("\n")
i = 0
while i < len(lines):
    if lines[i].startswith("0x"):
        cur = int(lines[i], 16); a2l[cur] = []; i += 1
    elif lines[i]:
        a2l[cur].append((lines[i], lines[i + 1])); i += 2
    else:
        i += 1
son = {}
for l in open(t + "/sonde"):
    p = l.split()
    son.setdefault(int(p[0], 16), []).append((p[1].rsplit("+", 1)[0], p[-1]))
line = lambda f: re.sub(r" \(discriminator \d+\)", "", f).rsplit(":", 1)[-1]
same = sum(1 for a, fr in a2l.items()
           if [line(x[1]) for x in fr] == [line(x[1]) for x in son.get(a, [])]
           and [x[0] for x in fr[:-1]] == [x[0] for x in son.get(a, [])[:-1]])
print("agreement     same inline chain and line numbers as addr2line: %d of %d addresses (%.1f%%)"
      % (same, len(a2l), 100.0 * same / max(len(a2l), 1)))
PY

# DWARF unwinding: a perf --call-graph dwarf recording of a program without frame
# pointers, reported by both (the unwinding dominates: every sample carries 8 KB of stack)
gcc -O2 -g -fomit-frame-pointer -o "$T/nofp" "$(dirname "$0")/../tests/workloads/symchain.c"
perf record -q --call-graph dwarf,8192 -F 999 -o "$T/dwarf.data" -- "$T/nofp" 3 >/dev/null 2>&1
samples=$(perf report -i "$T/dwarf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
s=$(best_of 3 "$SONDE" report -i "$T/dwarf.data" --stdio)
p=$(best_of 3 perf report -i "$T/dwarf.data" --stdio)
printf 'dwarf report  %s samples   sonde %.3fs (%s samples/s)  perf %.3fs  sonde/perf time = %s\n' "$samples" "$s" \
	"$(awk -v n="$samples" -v t="$s" 'BEGIN { printf "%.0f", n / t }')" "$p" "$(ratio "$s" "$p")"

# a big frame-pointer recording (~50,000 samples of the demo at 20 kHz), reported by both:
# every frame of every sample goes through the symbolizer (per-address cache)
perf record -q -g -e cpu-clock -c 50000 -o "$T/fp.data" -- "$BUILD/examples/demo" 6 >/dev/null 2>&1
samples=$(perf report -i "$T/fp.data" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
s=$(best_of 3 "$SONDE" report -i "$T/fp.data" --stdio)
p=$(best_of 3 perf report -i "$T/fp.data" --stdio)
printf 'fp report     %s samples sonde %.3fs (%s samples/s)  perf %.3fs  sonde/perf time = %s\n' "$samples" "$s" \
	"$(awk -v n="$samples" -v t="$s" 'BEGIN { printf "%.0f", n / t }')" "$p" "$(ratio "$s" "$p")"
