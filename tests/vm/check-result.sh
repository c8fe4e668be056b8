#!/bin/bash
# check-result.sh OUT NAME: CTest's view of one VM test. The suite already ran in one
# VM boot (the vm_suite_boot fixture, run-vm-tests.sh --fixture); this reports the result
# that test left in OUT/results: exit 0 if it passed, 77 if it skipped, 1 otherwise,
# printing its log (and the kernel messages it caused) when it did not pass.
set -u
OUT=$1 NAME=$2
R=$OUT/results/$NAME

show_log() {
	echo "--- $R.log ---"
	if [ "$(wc -l < "$R.log")" -gt 300 ]; then
		echo "(first 50 and last 250 lines)"
		head -n 50 "$R.log"; echo "[...]"; tail -n 250 "$R.log"
	else
		cat "$R.log"
	fi
}

if [ -f "$R.rc" ]; then
	rc=$(cat "$R.rc")
	case $rc in
	0) echo "PASS $NAME ($(cat "$R.time" 2>/dev/null)s in the VM)"
	   cat "$R.log"; exit 0 ;;
	77) echo "SKIP $NAME"; cat "$R.log"; exit 77 ;;
	esac
	echo "FAIL $NAME (rc=$rc after $(cat "$R.time" 2>/dev/null)s in the VM)"
	show_log
	[ -f "$R.dmesg" ] && { echo "--- kernel messages: $R.dmesg ---"; tail -n 60 "$R.dmesg"; }
	exit 1
fi
if [ -f "$R.started" ]; then
	echo "FAIL $NAME: the VM stopped while this test ran (VM timeout or kernel crash)"
	[ -f "$R.log" ] && show_log
	echo "--- last lines of the VM console ($OUT/console.log) ---"
	tail -n 40 "$OUT/console.log" 2>/dev/null
	exit 1
fi
if [ -f "$OUT/results/.selected" ] && ! grep -qxF "$NAME" "$OUT/results/.selected"; then
	echo "SKIP $NAME: not selected for this VM run (RBLK_VM_ONLY=${RBLK_VM_ONLY:-})"
	exit 77
fi
echo "FAIL $NAME: no result in $OUT/results (did the VM boot? see $OUT/console.log)"
exit 1
