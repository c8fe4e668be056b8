#!/bin/bash
# 23-init-target-lost: targets that do not come back give a clear error, not a hang.
# 1. rblk-target is killed (SIGKILL) under running I/O: with reconnect_delay 1 s and
#    ctrl_loss_tmo 3 s the library retries, declares the controller lost and the
#    request fails with -ENOTCONN (rblk-init-io exit 4) within a bounded time.
# 2. The same with the kernel target's port removed for good, using the synchronous
#    calls.
# 3. Connecting to a port nobody listens on fails at once.
# vm-timeout: 400
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
IO=$(rblk_bin tests/func/rblk-init-io)
TGT=$(rblk_bin daemon/rblk-target)
NQN=nqn.2024-01.io.rblk:init-lost

expect_lost() {
	local name=$1 start=$2 rc
	bg_wait $name 90; rc=$?
	bg_log $name
	[ $rc = 4 ] || die "$name: exit $rc, want 4 (controller lost)"
	grep -q 'controller lost' "$T_WORK/$name.log" || die "$name: no 'controller lost' message"
	log "$name: lost after $((SECONDS - start)) s, exit 4"
	[ $((SECONDS - start)) -le 60 ] || die "$name: took more than 60 s"
}

truncate -s 128M "$T_WORK/disk.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" --allow-any-host
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || { bg_log target; die "the target did not start"; }
tpid=$BG_PID
bg_start killed "$IO" -a $VM_ADDR0 -w $VM_ADDR1 -n $NQN -m loop -t 120 -b 16384 -c 1 -l 3 -T 100
wait_for_line 60 "$T_WORK/killed.log" '^loop 0: ' "$BG_PID" || { bg_log killed; die "no I/O"; }
log "killing rblk-target (pid $tpid)"
kill -KILL $tpid
start=$SECONDS
expect_lost killed $start

blk=$(null_blk_create 1 memory_backed=1)
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN "$blk"
nvmet_expose $NQN 1
bg_start removed "$IO" -a $VM_ADDR0 -w $VM_ADDR1 -n $NQN -m loop -t 120 -b 4096 -B 4096 -y -c 1 -l 3 -T 100
wait_for_line 60 "$T_WORK/removed.log" '^loop 0: ' "$BG_PID" || { bg_log removed; die "no I/O"; }
log "removing the nvmet port for good"
rm -f "$NVMET_CFS/ports/1/subsystems/$NQN" && rmdir "$NVMET_CFS/ports/1" || die "port removal failed"
expect_lost removed $SECONDS

start=$SECONDS
"$IO" -a $VM_ADDR0 -w $VM_ADDR1 -n $NQN -s 4421 -m identify > refused.log 2>&1; rc=$?
cat refused.log
[ $rc = 3 ] || die "connecting to a closed port: exit $rc, want 3"
[ $((SECONDS - start)) -le 15 ] || die "connecting to a closed port took $((SECONDS - start)) s"
log "PASS"
