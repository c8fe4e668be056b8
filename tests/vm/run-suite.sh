#!/bin/bash
# run-suite.sh: the test runner inside the Soft-RoCE VM (one boot runs the whole suite).
#
#   run-suite.sh [--build DIR] [--src DIR] [--timeout SEC] [--verbose] [TEST...]
#
# TEST is a script path, a name from t/ ("00-rxe-up" or "00-rxe-up.sh") or a glob over
# those names ("0*"); default: every t/*.sh, in order. Each test runs with bash in its own
# fresh working dir (/tmp/rblk-t/<name>, tmpfs) under a timeout (--timeout, default
# $RBLK_VM_TEST_TIMEOUT or 300 s; a script can ask for its own with a line
# "# vm-timeout: SEC"). Its output goes to $VM_OUT/results/<name>.log, its status to
# <name>.rc, its duration to <name>.time, the kernel messages it caused to <name>.dmesg.
# After each test, vm_cleanup (lib.sh) kills what it left running, disconnects the
# kernel NVMe host, tears down the kernel target, unloads the modules it loaded.
# Prints one line per test: "PASS name (Ns)", "FAIL name (rc=N)", "SKIP name (why)".
# Exit status: 0 if nothing failed, 1 otherwise, 2 on bad usage.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${RBLK_BUILD:-}
SRC=${RBLK_SRC:-}
TIMEOUT=${RBLK_VM_TEST_TIMEOUT:-300}
VERBOSE=${RBLK_VM_VERBOSE:-0}

usage() { sed -n '3,4p' "$0" | sed 's/^# *//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2; shift 2 ;;
	--src) SRC=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	-v|--verbose) VERBOSE=1; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "run-suite: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || { echo "run-suite: bad timeout '$TIMEOUT'" >&2; exit 2; }

# resolve the test list
tests=()
if [ $# -eq 0 ]; then
	for f in "$HERE"/t/*.sh; do [ -f "$f" ] && tests+=("$f"); done
fi
for a in "$@"; do
	if [ -f "$a" ]; then tests+=("$(realpath "$a")"); continue; fi
	a=${a%.sh}
	found=0
	for f in "$HERE"/t/$a.sh; do
		[ -f "$f" ] && { tests+=("$f"); found=1; }
	done
	[ $found = 1 ] || { echo "run-suite: no test matches '$a' in $HERE/t" >&2; exit 2; }
done
[ ${#tests[@]} -gt 0 ] || { echo "run-suite: no tests in $HERE/t" >&2; exit 2; }

RES=${VM_OUT:-/tmp/vm-out}/results
mkdir -p "$RES" || exit 2
export RBLK_BUILD=$BUILD RBLK_SRC=$SRC RBLK_VM_LIB=$HERE/lib.sh
# shellcheck source=lib.sh
. "$HERE/lib.sh"

echo "run-suite: ${#tests[@]} test(s) on $(uname -r), build ${BUILD:-(none)}"

# A sanitizer build (its CMake wrote sanitizer-preload): every ASan/UBSan/LSan report
# fails the test during which it was written. Reports go to files per test, so none
# hides in a log nobody reads. fio is not sanitized: the sanitized rblk plugin loads
# into it only with the runtime preloaded, so fio runs through a wrapper.
SAN=0
if [ -n "$BUILD" ] && [ -f "$BUILD/sanitizer-preload" ]; then
	SAN=1
	mkdir -p /tmp/vm-san-bin
	printf '#!/bin/sh\nLD_PRELOAD=%s ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" exec /usr/bin/fio "$@"\n' \
		"$(cat "$BUILD/sanitizer-preload")" > /tmp/vm-san-bin/fio
	chmod +x /tmp/vm-san-bin/fio
	export PATH=/tmp/vm-san-bin:$PATH
	echo "run-suite: sanitizer build: a report fails the test that produced it"
fi
cut -d' ' -f1 /proc/uptime > "$RES/.suite-started"
failed=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	tmo=$(sed -nE 's/^#[[:space:]]*vm-timeout:[[:space:]]*([0-9]+).*/\1/p' "$t" | head -1)
	tmo=${tmo:-$TIMEOUT}
	work=/tmp/rblk-t/$name
	state=/tmp/rblk-state/$name
	rm -rf "$work" "$state" "$RES/$name".{rc,log,time,dmesg,files}
	mkdir -p "$work"
	vm_state_save "$state"
	dmesg_lines=$(dmesg 2>/dev/null | wc -l)
	: > "$RES/$name.started"

	if [ $SAN = 1 ]; then
		rm -rf "$RES/$name.san"; mkdir -p "$RES/$name.san"
		export ASAN_OPTIONS="log_path=$RES/$name.san/asan:detect_leaks=1:abort_on_error=1"
		export UBSAN_OPTIONS="log_path=$RES/$name.san/ubsan:print_stacktrace=1:halt_on_error=1"
	fi
	start=$SECONDS
	# timeout puts the test in its own process group and signals the whole group.
	run() (
		cd "$work" &&
		T_NAME=$name T_WORK=$work T_OUT=$RES/$name.files \
			exec timeout -k 10 "$tmo" bash "$t"
	)
	if [ "$VERBOSE" = 1 ]; then
		run 2>&1 < /dev/null | tee "$RES/$name.log" | sed "s/^/  $name| /"
		rc=${PIPESTATUS[0]}
	else
		run > "$RES/$name.log" 2>&1 < /dev/null
		rc=$?
	fi
	dur=$((SECONDS - start))
	cd /

	[ $rc = 124 ] && echo "*** run-suite: $name timed out after ${tmo}s (raise it with a '# vm-timeout: SEC' line)" >> "$RES/$name.log"
	out=$(RBLK_VM_STATE=$state vm_cleanup 2>&1)
	# A failed test may have broken the fabric itself: check, repair, so it fails alone.
	if [ $rc != 0 ] && [ $rc != 77 ]; then
		out=$(printf '%s\n%s' "$out" "$(vm_repair_rdma 2>&1)")
		echo "$out" | grep -q 'RDMA CM' && echo "$out" | grep 'RDMA CM\|recreating' | sed 's/^/  /'
	fi
	[ -n "$out" ] && printf '%s\n%s\n' "--- run-suite: cleanup after $name ---" "$out" >> "$RES/$name.log"
	dmesg 2>/dev/null | tail -n +$((dmesg_lines + 1)) > "$RES/$name.dmesg"
	[ -s "$RES/$name.dmesg" ] || rm -f "$RES/$name.dmesg"
	if [ $rc != 0 ] && [ $rc != 77 ] && [ -f "$RES/$name.dmesg" ]; then
		printf '%s\n' "--- run-suite: kernel messages during $name (last 40) ---" >> "$RES/$name.log"
		tail -n 40 "$RES/$name.dmesg" >> "$RES/$name.log"
	fi
	rm -rf "$work" "$state"
	if [ $SAN = 1 ]; then
		if compgen -G "$RES/$name.san/*" >/dev/null; then
			{
				echo "--- run-suite: sanitizer reports during $name ---"
				cat "$RES/$name.san"/*
			} >> "$RES/$name.log"
			if [ $rc = 0 ] || [ $rc = 77 ]; then rc=1; fi
		fi
		rm -rf "$RES/$name.san"
	fi

	echo "$dur" > "$RES/$name.time"
	echo "$rc" > "$RES/$name.rc"
	rm -f "$RES/$name.started"
	case $rc in
	0) echo "PASS $name (${dur}s)" ;;
	77) why=$(sed -n 's/^SKIP: //p' "$RES/$name.log" | tail -1)
	    echo "SKIP $name${why:+ ($why)}" ;;
	*) echo "FAIL $name (rc=$rc)"; failed=$((failed + 1)) ;;
	esac
done
: > "$RES/.suite-done"
[ $failed = 0 ]
