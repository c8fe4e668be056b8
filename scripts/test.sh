#!/bin/bash
# rblk's test command (the README's, and CI's through .ci/run):
#   1. installs every Debian package it needs (scripts/install-deps.sh --ceph),
#   2. builds with gcc and -Werror, runs the unit tests (CTest label "unit"),
#   2a. runs the RBD engine's tests against a throw-away Ceph cluster on this host
#      (CTest label "ceph", tests/ceph; the VM suite's 58-ceph-up, 59-rbd-gateway and
#      60-rbd-gateway-rblk run the same cluster and the gateways inside the VM),
#   2b. builds the Debian packages, installs, uses and purges them
#      (scripts/package-test.sh; skip with --no-pkg),
#   3. builds again with clang + ASan/UBSan + libFuzzer, runs unit and fuzz tests there,
#   4. runs the VM tests (label "vm"): real RDMA through Soft-RoCE in a QEMU VM that
#      boots Debian's kernel (fetched into a cache outside the repo on first use):
#      the whole suite on one kernel (default 6.12, bookworm-backports), then the
#      interop core (tests/vm/interop-core.list) on the other (6.1, Debian 12's own),
#      against the ASan/UBSan build where any sanitizer report fails its test
#      (--no-san-vm: against the gcc build); one boot each.
#
#   scripts/test.sh [--unit-only] [--no-san] [--no-pkg] [--strict] [--vm-kernel 6.1|6.12]
#                   [--no-core] [--no-san-vm]
#
# In CI (CI set) or with --strict, a unit test that reports SKIP (exit 77) fails
# the run unless tests/skip-allowed.list names it with a reason.
#
# Build directories default to ./build and ./build-san; the VM sees the host's
# filesystem except /tmp, so when the checkout lives under /tmp the build goes to
# /var/tmp instead (override with RBLK_BUILD / RBLK_BUILD_SAN).
set -euo pipefail

unit_only=0
san=1
pkg=1
strict=0
[ -n "${CI:-}" ] && strict=1
core=1
san_vm=1
full_kernel=6.12
while [ $# -gt 0 ]; do
	case "$1" in
	--unit-only) unit_only=1 ;;
	--no-san) san=0 ;;
	--no-pkg) pkg=0 ;;
	--strict) strict=1 ;;
	--no-core) core=0 ;;
	--san-vm) san_vm=1 ;;	# the default; kept so older command lines work
	--no-san-vm) san_vm=0 ;;
	--vm-kernel)
		full_kernel=${2:-}
		shift
		case "$full_kernel" in 6.1 | 6.12) ;; *) echo "test.sh: --vm-kernel takes 6.1 or 6.12" >&2; exit 2 ;; esac
		;;
	-h | --help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "test.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
if [ "$full_kernel" = 6.12 ]; then core_kernel=6.1; else core_kernel=6.12; fi

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case "$top" in
/tmp | /tmp/*) base=/var/tmp/rblk-build-$(printf %s "$top" | md5sum | cut -c1-8) ;;
*) base=$top/build ;;
esac
build=${RBLK_BUILD:-$base}
build_san=${RBLK_BUILD_SAN:-$base-san}
jobs=$(nproc)

# Each part says how long it took (CI must stay under an hour on 2 cores).
step_name="" step_t0=$SECONDS
step_done() {
	[ -n "$step_name" ] && printf '==== %s: %d s\n' "$step_name" $((SECONDS - step_t0))
	step_name=""
}
step() {
	step_done
	step_name=$*
	step_t0=$SECONDS
	printf '\n==== %s\n' "$*"
}
trap 'step_done; printf "==== total: %d s\n" $SECONDS' EXIT

# Runs a unit-test ctest command; when strict, fails on a skipped test that
# tests/skip-allowed.list does not name (ctest lists skips as "N - name (Skipped)").
unit_ctest() {
	local log rc=0 t bad=""
	log=$(mktemp)
	"$@" 2>&1 | tee "$log" || rc=$?
	if [ "$rc" = 0 ] && [ "$strict" = 1 ]; then
		for t in $(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped)$/\1/p' "$log"); do
			awk -v t="$t" '$1 == t && NF > 1 { ok = 1 } END { exit !ok }' \
				"$top/tests/skip-allowed.list" || bad="$bad $t"
		done
		if [ -n "$bad" ]; then
			echo "test.sh: skipped in strict mode (not in tests/skip-allowed.list):$bad" >&2
			rc=1
		fi
	fi
	# CI keeps only the head and tail of a long log: repeat what a failure said, and
	# any crashing fuzz input (base64, for tests/fuzz/corpus/), at the end.
	if [ "$rc" != 0 ]; then
		echo "==== what failed said:"
		grep -E 'fuzz check failed|ERROR: (Address|Leak|Memory)Sanitizer|runtime error:|^SUMMARY:|deadly signal|CU_ASSERT|FAILED:|^FAIL: |^  stderr: |^ *[0-9]+ - .*\((Failed|SEGFAULT|Timeout|Subprocess)' \
			"$log" | head -60
		for t in "$build"/fuzz-artifacts/* "$build_san"/fuzz-artifacts/*; do
			[ -f "$t" ] || continue
			echo "---- $t ($(stat -c %s "$t") bytes):"
			base64 -w 0 "$t" | head -c 24000; echo
		done
	fi
	rm -f "$log"
	return "$rc"
}

step "dependencies"
"$top/scripts/install-deps.sh" --ceph

step "build (gcc, -Werror) in $build"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBLK_FIO_PLUGIN=ON >/dev/null
cmake --build "$build" -j "$jobs"

step "unit tests"
unit_ctest ctest --test-dir "$build" -L unit --output-on-failure -j "$jobs"

step "Ceph tests on the host (ctest -L ceph: a one-node cluster in /tmp)"
unit_ctest ctest --test-dir "$build" -L ceph --output-on-failure

if [ "$pkg" = 1 ]; then
	step "Debian packages: build, install, use, purge (scripts/package-test.sh)"
	"$top/scripts/package-test.sh" --build "$base-pkg" --keep-examples "$build/examples-installed"
fi

if [ "$san" = 1 ]; then
	step "sanitizer + fuzz build (clang, ASan/UBSan) in $build_san"
	# RelWithDebInfo: the VM's interop core runs on this build too, and -O0 with ASan
	# under TCG would be slow enough to time connections out.
	# Each fuzz harness runs RBLK_FUZZ_SECONDS (default here 4) over its corpus: a
	# regression check that keeps the run short; scripts/fuzz.sh runs them for long.
	CC=clang cmake -S "$top" -B "$build_san" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DRBLK_SANITIZE=ON -DRBLK_VM_TESTS=OFF -DRBLK_FIO_PLUGIN=ON \
		-DRBLK_FUZZ_SECONDS="${RBLK_FUZZ_SECONDS:-4}" >/dev/null
	cmake --build "$build_san" -j "$jobs"
	step "unit + fuzz tests under ASan/UBSan"
	rm -f "$build_san"/fuzz-artifacts/*
	unit_ctest env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir "$build_san" -L unit --output-on-failure -j "$jobs"
fi

if [ "$unit_only" = 1 ]; then
	exit 0
fi

step "VM kernels: Debian 6.1 and bookworm-backports 6.12 (cached in /var/tmp/rblk-vm-cache)"
for k in 6.1 6.12; do
	RBLK_VM_KERNEL=$k "$top/tests/vm/softroce-vm" --prepare
done

step "VM tests on $full_kernel, the whole suite (Soft-RoCE in QEMU)"
RBLK_VM_KERNEL=$full_kernel ctest --test-dir "$build" -L vm --output-on-failure

if [ "$core" = 1 ]; then
	# The core runs against the ASan/UBSan build (rblk-target, rblk, the fio plugin,
	# the hostile host): any sanitizer report fails its test. Without the sanitizer
	# build (--no-san) or with --no-san-vm it runs against the gcc build.
	core_build=$build
	[ "$san" = 1 ] && [ "$san_vm" = 1 ] && core_build=$build_san
	step "VM tests on $core_kernel, the interop core (tests/vm/interop-core.list), build $core_build"
	mapfile -t core_tests < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/tests/vm/interop-core.list")
	"$top/tests/vm/run-vm-tests.sh" --kernel "$core_kernel" --out "$core_build/vm-out-$core_kernel" \
		"$core_build" "${core_tests[@]}"
fi
