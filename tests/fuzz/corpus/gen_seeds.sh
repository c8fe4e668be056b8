#!/bin/bash
# Regenerates the seed files of every harness's corpus (tests/fuzz/corpus/<harness>/seed-NN)
# from the seeds each harness defines in C (rblk_fuzz_seed), so they stay
# reproducible and readable; fuzz_daemon_config also gets the JSON examples of
# docs/examples. Inputs merged in by scripts/fuzz.sh --minimize (hash names) are kept.
#
#   tests/fuzz/corpus/gen_seeds.sh [BUILD_DIR]     default: ./build (a gcc build: the
#                                                  standalone driver writes the seeds)
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$top/build}
corpus=$top/tests/fuzz/corpus
shopt -s nullglob
bins=("$build"/tests/fuzz/fuzz_*)
[ ${#bins[@]} -gt 0 ] || { echo "gen_seeds: no harnesses in $build/tests/fuzz (build it first)" >&2; exit 1; }
for bin in "${bins[@]}"; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	mkdir -p "$corpus/$name"
	rm -f "$corpus/$name"/seed-*
	"$bin" --write-seeds "$corpus/$name" || {
		echo "gen_seeds: $name has no --write-seeds (a clang build? give a gcc build dir)" >&2
		exit 1
	}
done
i=0
for f in "$top"/docs/examples/*.json; do
	for mode in 0 1; do
		{ printf "\\x0$mode"; cat "$f"; } >"$corpus/fuzz_daemon_config/seed-example-$i"
		i=$((i + 1))
	done
done
du -sh "$corpus"
