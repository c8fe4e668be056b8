#!/bin/bash
# run-vm-tests.sh: boot one Soft-RoCE VM that runs the VM test suite, then summarise.
#
#   run-vm-tests.sh [--kernel 6.1|6.12] [--out DIR] [--verbose] [--fixture] [BUILD_DIR] [TEST...]
#
# --kernel: the VM's kernel (default $RBLK_VM_KERNEL, else 6.1): Debian 12's 6.1 or the
#   6.12 of bookworm-backports (see softroce-vm).
# BUILD_DIR: the build tree the tests use (default $RBLK_BUILD, else <source>/build). It
# must not be under /tmp: the VM's /tmp is a fresh tmpfs. TEST: names or globs from
# tests/vm/t ("00-rxe-up", "0*"); default: $RBLK_VM_ONLY if set, else all of them.
# --out: where results land (default $VM_OUT, else BUILD_DIR/vm-out):
#   results/<name>.log|.rc|.time|.dmesg, console.log (the VM console).
# --verbose (or RBLK_VM_VERBOSE=1): stream each test's output as it runs.
# --fixture: for CTest's setup test: exit 0 whenever the suite ran (the per-test CTest
#   entries report failures), non-zero only if the VM did not boot or the runner did
#   not start.
#
# The last line is "N passed, N failed" (", N skipped" when some were). Exit status:
# 0 if nothing failed, 1 if a test failed or did not run, 2 on bad usage.
# Environment: RBLK_VM_TEST_TIMEOUT (per test, 300 s), VM_TIMEOUT (whole VM; default the
# sum of the tests' timeouts + 180 s, at most RBLK_VM_SUITE_MAX = 2700 s), plus those of
# softroce-vm (VM_MEM, VM_SMP, RBLK_VM_CACHE, ...).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
ME=run-vm-tests
OUT=${VM_OUT:-}
FIXTURE=0
VERBOSE=${RBLK_VM_VERBOSE:-0}
PER_TEST=${RBLK_VM_TEST_TIMEOUT:-300}
SUITE_MAX=${RBLK_VM_SUITE_MAX:-2700}

die() { echo "$ME: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift 2 ;;
	--kernel) export RBLK_VM_KERNEL=$2; shift 2 ;;
	--fixture) FIXTURE=1; shift ;;
	-v|--verbose) VERBOSE=1; shift ;;
	-h|--help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done

BUILD=${RBLK_BUILD:-$SRC/build}
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
[ -d "$BUILD" ] || die "no build dir $BUILD (give one: run-vm-tests.sh BUILD_DIR)"
BUILD=$(realpath "$BUILD")
case $BUILD in
/tmp|/tmp/*) die "the build dir $BUILD is under /tmp, which the VM cannot see (its /tmp is a fresh tmpfs): configure a build dir elsewhere, e.g. cmake -B $SRC/build" ;;
esac
case $SRC in
/tmp|/tmp/*) echo "$ME: note: the source tree is under /tmp: tests cannot use \$RBLK_SRC in the VM" >&2; VMSRC= ;;
*) VMSRC=$SRC ;;
esac
OUT=$(realpath -m "${OUT:-$BUILD/vm-out}")

# the test list, resolved here so that tests that never ran are reported
if [ $# -eq 0 ] && [ -n "${RBLK_VM_ONLY:-}" ]; then
	# shellcheck disable=SC2086
	set -- ${RBLK_VM_ONLY//,/ }
fi
names=()
if [ $# -eq 0 ]; then
	for f in "$HERE"/t/*.sh; do [ -f "$f" ] && names+=("$(basename "$f" .sh)"); done
fi
for a in "$@"; do
	a=$(basename "${a%.sh}")
	found=0
	# manual/: tests run only when named (not part of the suite CI runs)
	for f in "$HERE"/t/$a.sh "$HERE"/manual/$a.sh; do
		[ -f "$f" ] && { names+=("$(basename "$f" .sh)"); found=1; }
	done
	[ $found = 1 ] || die "no test matches '$a' in $HERE/t or $HERE/manual"
done
[ ${#names[@]} -gt 0 ] || die "no tests in $HERE/t"
# de-duplicate, keep order
mapfile -t names < <(printf '%s\n' "${names[@]}" | awk '!s[$0]++')

# The suite's own files are copied next to the results: the VM then runs exactly
# these (even from a source tree under /tmp).
mkdir -p "$OUT" || die "cannot create $OUT"
rm -rf "$OUT/results" "$OUT/.suite"
mkdir -p "$OUT/results" "$OUT/.suite/t"
cp "$HERE/run-suite.sh" "$HERE"/lib*.sh "$OUT/.suite/"	# lib.sh and the helpers some tests add (lib_ana.sh)
cp "$HERE"/t/*.sh "$OUT/.suite/t/"
cp "$HERE"/manual/*.sh "$OUT/.suite/t/" 2>/dev/null || true
printf '%s\n' "${names[@]}" > "$OUT/results/.selected"
cat > "$OUT/.suite/launch.sh" <<'EOF'
exec bash "$VM_OUT/.suite/run-suite.sh" "$@"
EOF

# the VM's time budget for tests NAME...: every test's timeout plus boot, capped
vm_budget() {
	local total=180 n t
	for n in "$@"; do
		# a manual/ test names its own timeout as a suite test does
		t=$(sed -nE 's/^#[[:space:]]*vm-timeout:[[:space:]]*([0-9]+).*/\1/p' \
			"$HERE/t/$n.sh" "$HERE/manual/$n.sh" 2>/dev/null | head -1)
		total=$((total + ${t:-$PER_TEST} + 15))
	done
	[ $total -gt "$SUITE_MAX" ] && total=$SUITE_MAX
	echo $total
}
USER_VM_TIMEOUT=${VM_TIMEOUT:-}
export VM_TIMEOUT=${USER_VM_TIMEOUT:-$(vm_budget "${names[@]}")}
export VM_OUT=$OUT RBLK_VM_TEST_TIMEOUT=$PER_TEST RBLK_VM_VERBOSE=$VERBOSE

echo "$ME: ${#names[@]} test(s), kernel ${RBLK_VM_KERNEL:-6.1}, build $BUILD, results in $OUT/results (VM timeout ${VM_TIMEOUT}s)"
start=$(date +%s)
# Under TCG the guest kernel now and then dies during boot (seen: an int3 oops in
# sched_clock_cpu a second or two in, then a panic), before any of our code runs. A
# VM that never started the suite is booted once more; the first console is kept.
for attempt in 1 2; do
	set +e
	"$HERE/softroce-vm" "$OUT/.suite/launch.sh" --build "$BUILD" --src "$VMSRC" "${names[@]}"
	vmrc=$?
	set -e
	[ -f "$OUT/results/.suite-started" ] && break
	[ $attempt = 2 ] && break
	cp "$OUT/console.log" "$OUT/console.boot1.log" 2>/dev/null || true
	echo "$ME: the VM stopped before the suite started (softroce-vm exit $vmrc, said above): booting it once more (first console kept as $OUT/console.boot1.log)"
done

# The same TCG race can strike later, whenever the kernel patches its own code while
# the other vCPU runs it (seen: "Oops: int3" in __schedule while perf_event_open
# enabled a tracepoint, then a panic, in the middle of the suite). One kernel crash
# costs the boot, not the rest of the suite: the tests that have no result (the one
# that was running included: it is run again from the start) get one more VM. A VM
# that timed out or crashed twice is not given another; a hang is ours to find.
if [ -f "$OUT/results/.suite-started" ] && [ "$vmrc" != 0 ] &&
	grep -q 'Kernel panic' "$OUT/console.log" 2>/dev/null; then
	left=() running=
	for n in "${names[@]}"; do
		[ -f "$OUT/results/$n.rc" ] && continue
		left+=("$n")
		[ -f "$OUT/results/$n.started" ] && running=$n
	done
	if [ ${#left[@]} -gt 0 ]; then
		cp "$OUT/console.log" "$OUT/console.crash1.log"
		if [ -n "$running" ]; then
			mv "$OUT/results/$running.log" "$OUT/results/$running.crash1.log" 2>/dev/null || true
			rm -f "$OUT/results/$running.started"
		fi
		echo "$ME: the VM's kernel crashed${running:+ while $running ran} ($(grep -m1 -oE 'Oops: [^[]*|int3: [^[]*|Kernel panic[^[]*' "$OUT/console.crash1.log")); booting once more for the ${#left[@]} test(s) without a result (console kept as $OUT/console.crash1.log${running:+; the log of $running so far as $OUT/results/$running.crash1.log})"
		export VM_TIMEOUT=${USER_VM_TIMEOUT:-$(vm_budget "${left[@]}")}
		set +e
		"$HERE/softroce-vm" "$OUT/.suite/launch.sh" --build "$BUILD" --src "$VMSRC" "${left[@]}"
		vmrc=$?
		set -e
	fi
fi
elapsed=$(($(date +%s) - start))

# summary
pass=0 fail=0 skipped=0
echo
if [ -f "$OUT/results/.suite-started" ]; then
	echo "$ME: the VM ran for ${elapsed}s (boot and setup: $(cat "$OUT/results/.suite-started")s of VM uptime)"
else
	echo "$ME: the VM ran for ${elapsed}s and the suite did not start (softroce-vm exit $vmrc; VM console: $OUT/console.log)"
fi
for n in "${names[@]}"; do
	r=$OUT/results/$n
	if [ -f "$r.rc" ]; then
		rc=$(cat "$r.rc")
		case $rc in
		0) pass=$((pass + 1)); continue ;;
		77) skipped=$((skipped + 1)); continue ;;
		esac
		fail=$((fail + 1))
		echo "--- FAIL $n (rc=$rc, $(cat "$r.time" 2>/dev/null || echo ?)s); last lines of $r.log:"
		tail -n 25 "$r.log" | sed 's/^/  | /'
	elif [ -f "$r.started" ]; then
		fail=$((fail + 1))
		echo "--- FAIL $n: the VM stopped while it ran (timeout or crash; see $OUT/console.log); its log so far:"
		tail -n 25 "$r.log" 2>/dev/null | sed 's/^/  | /'
	else
		fail=$((fail + 1))
		echo "--- FAIL $n: did not run"
	fi
done
line="$pass passed, $fail failed"
[ $skipped -gt 0 ] && line="$line, $skipped skipped"
echo "$line"

if [ $FIXTURE = 1 ]; then
	[ -f "$OUT/results/.suite-started" ] && exit 0
	exit 1
fi
[ $fail = 0 ] && [ "$vmrc" = 0 ] && exit 0
exit 1
