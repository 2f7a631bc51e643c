#!/bin/bash
# long.sh - `make fuzz-long`: every fuzz target (or those named in FUZZ_TARGETS)
# for FUZZ_SECONDS (default 600) each, from its seeds in tests/fuzz/corpus/NAME/,
# then the seeds plus what it found minimised (libFuzzer -merge=1) into
# build-fuzz/corpus/NAME/, to copy over the committed corpus after a look.
# A crash, leak or timeout is kept in build-fuzz/ and fails the run; the
# summary gives each target's runs and the time spent. Not part of `make test`.
set -u
cd "$(dirname "$0")/../.."
# leaks inside libraries sonde does not own, as tests/run.sh says
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
secs=${FUZZ_SECONDS:-600}
targets=${FUZZ_TARGETS:-$(ls build-fuzz/fuzz_* 2>/dev/null | sed 's|.*/fuzz_||')}
failed=0 start=$(date +%s)
for name in $targets; do
	f=build-fuzz/fuzz_$name
	[ -x "$f" ] || { echo "FAIL - fuzz $name: no $f (make fuzz)"; failed=$((failed + 1)); continue; }
	seeds=tests/fuzz/corpus/$name
	work=$(mktemp -d /tmp/sonde-fuzz-long.XXXXXX)
	mkdir -p "$work/in"
	[ -d "$seeds" ] && cp -r "$seeds/." "$work/in/"
	t0=$(date +%s)
	if "$f" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=30 \
		-artifact_prefix="$work/crash-" "$work/in" >"$work/log" 2>&1; then
		out=build-fuzz/corpus/$name
		rm -rf "$out" && mkdir -p "$out"
		"$f" -merge=1 -max_len=65536 -rss_limit_mb=2048 "$out" "$work/in" >"$work/merge.log" 2>&1
		echo "ok - fuzz $name: $(grep -o 'Done [0-9]* runs' "$work/log" | tail -1) in $(( $(date +%s) - t0 )) s;" \
		     "corpus $(ls "$seeds" 2>/dev/null | wc -l) seeds -> $(ls "$out" | wc -l) minimised in $out"
	else
		failed=$((failed + 1))
		echo "FAIL - fuzz $name after $(( $(date +%s) - t0 )) s"; tail -n 30 "$work/log"
		for a in "$work"/crash-*; do [ -e "$a" ] && cp "$a" build-fuzz/ && echo "   input kept in build-fuzz/$(basename "$a")"; done
	fi
	rm -rf "$work"
done
echo "fuzz-long: $(echo $targets | wc -w) targets, ${secs} s each, $(( $(date +%s) - start )) s in all, $failed failed"
[ $failed -eq 0 ]
