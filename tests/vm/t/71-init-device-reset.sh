#!/bin/bash
# 71-init-device-reset: the initiator's RDMA device goes away and comes back under
# running, verified I/O: `rblk attach` (ublk where the kernel has it, else NBD) to
# rblk-target, rxe1 (the host side) deleted, 3 s, added again, as a NIC reset or a
# driver reload does to a real port. The library lets go of everything it held on the
# device once its queues are down (CQs, registrations, PD), so the removal completes
# at once (Soft-RoCE waits for the process otherwise), and its next reconnect
# registers the same memory on the new rxe1 and sends the requests it kept with the
# new keys. Checked: `rdma link delete` returns within 30 s, the I/O moves again after
# rxe1 is back, fio saw no I/O error and no verify failure, the attach says it
# released the device and reconnected, and exits cleanly. One reset: a second one in
# the same process hits Debian 12's librdmacm deadlock (test 69, docs/faults.md).
# vm-timeout: 360
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_fault.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
RBLK=$(rblk_bin cli/rblk) || exit 1
NQN=nqn.2024-01.io.rblk:init-devreset
need_cmd fio fio
need_cmd python3 python3
need_cmd rdma iproute2
if [ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null; then KIND=--ublk; else
	modprobe nbd nbds_max=4 || die "modprobe nbd failed"
	KIND=--nbd
fi
trap 'kill $(jobs -p) 2>/dev/null; vm_restore_rxe' EXIT

fail() {
	bg_log attach | tail -40
	dmesg | tail -20
	local a=${BG_PIDS[attach]:-}
	command -v gdb >/dev/null && [ -n "$a" ] &&
		gdb -p "$a" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(Thread|#)' | head -60
	die "$*"
}

truncate -s 128M "$T_WORK/disk.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" \
	--allow-any-host --log-level info
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$BG_PID" || fail "rblk-target did not start"
# Reconnect every second, never give up: the reset is shorter than anything else here.
RBLK_LOG_LEVEL=info bg_start attach "$RBLK" attach $KIND -t rdma -a $VM_ADDR0 -w $VM_ADDR1 \
	-n $NQN -c 1 -l -1 -o json
wait_for_line 120 "$T_WORK/attach.log" '"device"' "$BG_PID" || fail "attach printed no device"
DEV=$(grep -oE '/dev/(ublkb|nbd)[0-9]+' "$T_WORK/attach.log" | head -1)
wait_for 10 test -b "$DEV" || fail "$DEV is not a block device"
fault_fio_start w "$DEV"
wait_for 60 dev_written "$DEV" 2048 || fail "fio does not write"
log "attached $DEV ($KIND); fio writes"

# Soft-RoCE cannot take a process's objects away (no context disassociation): the
# removal waits until the attach has let go of everything it held on rxe1.
t0=$SECONDS
rdma link delete rxe1 &
dpid=$!
wait_for 30 pid_gone $dpid || fail "rdma link delete rxe1 still waits after 30 s: the initiator holds on to it"
log "rxe1 is gone after $((SECONDS - t0)) s"
sleep 3	# the reset's duration: the scenario, not a wait for anything
rdma link add rxe1 type rxe netdev veth1 || fail "rdma link add rxe1 failed"
wait_for 30 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state || fail "rxe1 did not come back ACTIVE"
t0=$SECONDS
w=$(dev_writes "$DEV")
wait_for 120 dev_written "$DEV" "$w" || fail "no I/O after rxe1 came back"
wait_for 120 dev_written "$DEV" $((w + 4096)) || fail "the I/O does not keep going"
log "writes again $((SECONDS - t0)) s after rxe1 came back"
grep -q 'releasing rxe1' "$T_WORK/attach.log" || fail "the attach did not say it released rxe1"
grep -q 'reconnected' "$T_WORK/attach.log" || fail "the attach did not say it reconnected"

fault_fio_end w || { cat "$T_WORK/fio-w.json"; fail "fio saw an I/O error or a verify failure"; }
attach_stop 30 || fail "the attach did not exit when told"
grep -E 'releasing|reconnected|connection lost' "$T_WORK/attach.log" | head -6 | sed 's/^/  /'
bg_stop target 30
log "PASS"
