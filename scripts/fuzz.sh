#!/bin/bash
# Longer fuzzing runs than CTest's (which gives each harness RBLK_FUZZ_SECONDS):
#
#   scripts/fuzz.sh [--time S] [--jobs N] [--minimize] [HARNESS...]
#
#   --time S      seconds per harness (default 300)
#   --jobs N      harnesses run at the same time (default 1); each is nice'd
#   --minimize    afterwards, merge the new inputs that add coverage into the
#                 repository's corpora (libFuzzer -merge=1: only what adds
#                 coverage, minimised); review and commit them
#   HARNESS       fuzz_tgt_io, ... (default: every harness with a corpus)
#
# Builds the clang fuzz build first if needed (./build-fuzz, or RBLK_BUILD_FUZZ).
# New inputs and crashes go to $RBLK_FUZZ_SCRATCH (default BUILD/fuzz-runs/HARNESS),
# never into the repository unless --minimize. Prints executions per harness at
# the end; exits 1 when a harness crashed (the reproducer's path is printed).
set -euo pipefail

secs=300 jobs=1 minimize=0
harnesses=()
while [ $# -gt 0 ]; do
	case "$1" in
	--time) secs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--minimize) minimize=1 ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*) harnesses+=("$1") ;;
	esac
	shift
done

top=$(cd "$(dirname "$0")/.." && pwd)
build=${RBLK_BUILD_FUZZ:-$top/build-fuzz}
corpora=$top/tests/fuzz/corpus
if [ ${#harnesses[@]} -eq 0 ]; then
	for d in "$corpora"/fuzz_*/; do harnesses+=("$(basename "$d")"); done
fi

if ! grep -qs 'CMAKE_C_COMPILER_ID:.*Clang\|CMAKE_C_COMPILER:.*clang' "$build/CMakeCache.txt"; then
	CC=clang nice -n 10 cmake -S "$top" -B "$build" -DRBLK_SANITIZE=ON -DRBLK_VM_TESTS=OFF >/dev/null
fi
nice -n 10 cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]}"

scratch_root=${RBLK_FUZZ_SCRATCH:-$build/fuzz-runs}
run_one() {
	local h=$1 out=$scratch_root/$1
	mkdir -p "$out/corpus" "$out/crashes"
	ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1} \
		nice -n 19 "$build/tests/fuzz/$h" -max_total_time="$secs" -print_final_stats=1 \
		-max_len=8192 -timeout=20 -artifact_prefix="$out/crashes/" \
		"$out/corpus" "$corpora/$h" >"$out/log" 2>&1
}
export -f run_one
export build corpora scratch_root secs

status=0
printf '%s\n' "${harnesses[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' || status=1

printf '\n%-22s %12s %10s  %s\n' harness executions exec/s result
for h in "${harnesses[@]}"; do
	log=$scratch_root/$h/log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/.*DONE .*exec\/s: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	crash=$(ls "$scratch_root/$h/crashes" 2>/dev/null | head -1)
	result=ok
	if [ -n "$crash" ]; then
		result="CRASH $scratch_root/$h/crashes/$crash"
		status=1
	fi
	printf '%-22s %12s %10s  %s\n' "$h" "${execs:-?}" "${rate:-?}" "$result"
done

if [ "$minimize" = 1 ]; then
	for h in "${harnesses[@]}"; do
		before=$(ls "$corpora/$h" | wc -l)
		nice -n 19 "$build/tests/fuzz/$h" -merge=1 -max_len=8192 \
			"$corpora/$h" "$scratch_root/$h/corpus" >"$scratch_root/$h/merge.log" 2>&1 ||
			{ echo "fuzz.sh: merging $h failed (see $scratch_root/$h/merge.log)" >&2; status=1; }
		echo "$h: $before -> $(ls "$corpora/$h" | wc -l) corpus files"
	done
	du -sh "$corpora"
fi
exit $status
