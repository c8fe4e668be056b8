#!/bin/bash
# 47-target-hostile: rblk-target against a hostile NVMe/RDMA host on the real RDMA path.
# tests/func/evil_host connects with raw rdma_cm/verbs and misbehaves, one scenario at a
# time: bad CM private data (REJECT with the NVMe/RDMA status), commands before Connect
# and malformed Connects, malformed I/O commands (SGL length/type/offset, MDTS,
# in-capsule), RDMA operations of the target that fail (bad rkey, too-small MR, capsules
# too long or too short), more commands than the queue holds, and hosts that vanish with
# 64 commands in flight. evil_host checks every status it gets; after each scenario the
# target must still run, its log must be free of sanitizer reports and assertion
# failures, rblk-init-io must still write and verify, and every queue the target
# accepted must have been closed again once its host is gone (no leaked queue or
# request). The target stops cleanly at the end, with a silent host still connected.
# vm-timeout: 420
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
EVIL=$(rblk_bin tests/func/evil_host) || exit 1
IO=$(rblk_bin tests/func/rblk-init-io) || exit 1
NQN=nqn.2024-01.io.rblk:hostile
LOG=$T_WORK/target.log
# The target's limits, passed to both so evil_host knows where the edges are.
MAXIO=131072 ICD=8192 QD=128

fail() { bg_log target | tail -150; die "$*"; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:64M --allow-any-host \
	--max-io-size $MAXIO --in-capsule $ICD --queue-depth $QD --log-level info
TPID=$BG_PID
wait_for_line 60 "$LOG" 'notice: ready' $TPID || fail "the target did not start"

n_accepted() { grep -c ': accepted on poll group' "$LOG"; }
n_closed() { grep -cE 'qid [0-9]+: closed \(' "$LOG"; }
all_closed() { [ "$(n_accepted)" = "$(n_closed)" ]; }

check_alive() {
	kill -0 $TPID 2>/dev/null || fail "rblk-target died during '$1'"
	if grep -nE 'AddressSanitizer|LeakSanitizer|runtime error:|Assertion .* failed|Segmentation fault' "$LOG"; then
		fail "sanitizer report or assertion failure in the target log during '$1'"
	fi
}

seed=100
good_client() {
	seed=$((seed + 1))
	timeout 90 "$IO" -a $VM_ADDR0 -w $VM_ADDR1 -n $NQN -m writeverify -o $((seed * 1000)) \
		-b 512 -B 65536 -d 8 -S $seed > "io-$1.txt" 2>&1 ||
		{ cat "io-$1.txt"; fail "a well-behaved host (rblk-init-io) failed after '$1'"; }
}

for s in cm admin io rdma-rkey rdma-tiny rdma-long rdma-short rdma-connect flood \
	abort-exit abort-qp abort-norecv; do
	log "scenario $s"
	timeout 150 "$EVIL" -a $VM_ADDR0 -w $VM_ADDR1 -n $NQN -M $MAXIO -C $ICD -D $QD "$s" \
		> "evil-$s.txt" 2>&1
	rc=$?
	cat "evil-$s.txt"
	check_alive "$s"
	[ $rc = 0 ] || fail "evil_host $s failed (exit $rc; 124 = it hung)"
	# Every queue of the hostile host is gone: the target must have closed them all.
	wait_for 60 all_closed ||
		fail "after '$s': $(n_accepted) queues accepted but $(n_closed) closed (a queue leaked)"
	good_client "$s"
	check_alive "$s"
done

# Statuses the target logs for what it refused: proof the scenarios reached it.
grep -q 'rejecting the connection: invalid record format' "$LOG" || fail "no CM reject in the log"
grep -q 'rejecting the connection: invalid queue ID' "$LOG" || fail "no CM reject for a QID out of range"
grep -qE 'RDMA READ failed' "$LOG" || fail "the bad rkey did not fail an RDMA READ at the target"
grep -qE 'short command capsule' "$LOG" || fail "the short capsule was not noticed"
grep -qE ' qid 1: receive failed: ' "$LOG" || fail "the oversized capsule's receive error is not logged against qid 1"

wait_for 60 all_closed || fail "$(n_accepted) queues accepted but $(n_closed) closed"

# Stop while a host sits on 64 commands with its QP destroyed and its CM id kept (it
# answers nothing): the target must still drain that queue and stop cleanly.
"$EVIL" -a $VM_ADDR0 -w $VM_ADDR1 -n $NQN -M $MAXIO -C $ICD -D $QD abort-qp > evil-stop.txt 2>&1 &
EPID=$!
wait_for_line 60 evil-stop.txt 'QP destroyed' $EPID || { cat evil-stop.txt; fail "evil_host abort-qp did not start"; }
bg_stop target 60; rc=$?
wait $EPID
cat evil-stop.txt
all_closed || fail "stopped with $(n_accepted) queues accepted but $(n_closed) closed"
cp "$LOG" "$T_OUT/" 2>/dev/null || { mkdir -p "$T_OUT" && cp "$LOG" "$T_OUT/"; }
grep -nE 'AddressSanitizer|LeakSanitizer|runtime error:' "$LOG" && fail "sanitizer report at exit"
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
grep -q 'did not drain' "$LOG" && fail "queues did not drain at stop"
log "accepted $(n_accepted) queues, closed $(n_closed)"
log "PASS"
