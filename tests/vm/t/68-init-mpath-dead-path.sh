#!/bin/bash
# 68-init-mpath-dead-path: `rblk attach` with two paths, one per veth pair, while the
# path it uses goes silent, comes back, and then breaks under it the way Soft-RoCE
# broke in a fault run (docs/faults.md): its devices' CM QP in the error state, rping
# failing, connections neither answered nor refused. The multipath head must move
# the I/O to the other path each time, without an I/O error, and the attach must
# still exit when told. One rblk-target listens on 10.99.0.1 (veth0/rxe0) and on
# 10.99.1.1 (the second pair of tests/vm/lib_fault.sh: veth2/rxe2 <-> veth3/rxe3);
# the attach (ublk where the kernel has it, else NBD) gets -a 10.99.1.1 first, as
# the head sends every I/O to its first usable path. A crc32c-verified fio writes
# throughout.
#   1. the second pair silent (netem loss 100%, neighbour entries pinned, so rxe
#      itself survives): the I/O moves to 10.99.0.1 (rxe0 sees it; the keep-alive,
#      5 s, or the I/O timeout notices the silence); cleared: the path reconnects and
#      the I/O comes back to it (failback; unless rping across the pair fails too:
#      then Soft-RoCE itself broke, which happens under TCG, and that is logged);
#   2. the second pair's link flaps under the I/O: veth2 and veth3 down for 10 s, then
#      up (test 24 found that a veth set down under traffic can leave rxe's CM QP in
#      the error state for good); the I/O moves to 10.99.0.1 again and keeps going
#      there, whether or not the pair works again afterwards (printed);
#   3. fio stops with no I/O error and no verify failure; the attach exits within
#      30 s of SIGTERM and prints what each path carried.
# Failure: no write on the healthy path within 30 s of a fault (or no failback within
# 60 s of the first fault's end), an fio error, an attach that does not exit.
# Times are printed, never asserted.
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_fault.sh" || exit 1

RBLK=$(rblk_bin cli/rblk) || exit 1
TGT=$(rblk_bin daemon/rblk-target) || exit 1
need_cmd fio fio
modprobe sch_netem || skip "no sch_netem module"
if [ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null; then KIND=--ublk; else
	modprobe nbd nbds_max=4 || die "modprobe nbd failed"
	KIND=--nbd
fi
NQN=nqn.2024-01.io.rblk:dead-path

fail() {
	local a=${BG_PIDS[attach]:-} t
	bg_log target
	if [ -n "$a" ]; then
		bg_log attach
		# where the attach's threads wait, in the kernel and in the process
		for t in /proc/$a/task/*; do
			echo "== thread ${t##*/} $(cat $t/comm 2>/dev/null): $(tr '\n' ' ' < $t/stack 2>/dev/null)"
		done
		command -v gdb >/dev/null && gdb -p $a -batch -ex 'thread apply all bt' 2>/dev/null |
			grep -E '^#|^Thread'
	fi
	dmesg | grep -iE 'rxe|ublk|nbd' | tail -15
	die "$*"
}
# The pair goes whatever happens: later tests of the boot expect one pair only.
trap 'kill $(jobs -p) 2>/dev/null; fault_pair2_down' EXIT

fault_pair2_up || die "the second veth pair did not come up"
wait_for 30 fault_pair2_ok || die "rping across the second pair (10.99.1.2 -> 10.99.1.1) fails"
truncate -s 128M "$T_WORK/disk.img"
bg_start target "$TGT" --listen $VM_ADDR0:4420 --listen $VM_ADDR2:4420 --subsystem $NQN \
	--ns "$T_WORK/disk.img" --allow-any-host --log-level info
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$BG_PID" || fail "rblk-target did not start"

RBLK_LOG_LEVEL=info bg_start attach "$RBLK" attach $KIND -t rdma -a $VM_ADDR2 -a $VM_ADDR0 -n $NQN -N 1 -c 2 -l -1 \
	-o json
wait_for_line 120 "$T_WORK/attach.log" '"device"' "$BG_PID" || fail "attach printed no device"
DEV=$(grep -oE '/dev/(ublkb|nbd)[0-9]+' "$T_WORK/attach.log" | head -1)
wait_for 10 test -b "$DEV" || fail "$DEV is not a block device"
log "attached $DEV ($KIND) over 10.99.1.1 (first) and 10.99.0.1"

# moving RXE FROM: RXE has received packets since FROM and the device wrote meanwhile
# (the I/O runs through RXE's pair)
moving() { [ "$(rxe_counter $1 rcvd_pkts)" -gt "$2" ] && dev_written "$DEV" "$3"; }
# on_path RXE SECONDS: wait until writes run over RXE's pair; prints the seconds taken
on_path() {
	local p0 w0 t0=$SECONDS
	p0=$(rxe_counter $1 rcvd_pkts); w0=$(dev_writes "$DEV")
	# rxe0 carries nothing else in this test (the attach's own keep-alives on it are a
	# few packets a second): 200 packets and new writes say the I/O moved there
	wait_for "$2" moving $1 $((p0 + 200)) "$w0" || return 1
	echo $((SECONDS - t0))
}

fault_fio_start mp "$DEV"
t=$(on_path rxe2 60) || fail "no I/O over the first path (10.99.1.1) within 60 s"
log "I/O runs over 10.99.1.1 (first path)"

# ---- 1. silent, then healed: failover and failback
FAULT_VETHS="veth2 veth3" fault_netem loss 100% || fail "netem on veth2/veth3 failed"
log "second pair silent (loss 100%, neighbours pinned)"
t=$(on_path rxe0 30) || fail "the I/O did not move to 10.99.0.1 within 30 s of the silence"
log "failover: writes over 10.99.0.1 ${t} s after the silence began"
sleep 5	# a duration: the head runs on the healthy path for a while
kill -0 "$FPID" 2>/dev/null || fail "fio stopped while the first path was silent"
FAULT_VETHS="veth2 veth3" fault_clear
log "second pair healed"
if t=$(on_path rxe2 60); then
	log "failback: writes over 10.99.1.1 again ${t} s after the heal"
elif fault_pair2_ok; then
	fail "the I/O did not come back to 10.99.1.1 within 60 s of the heal, though rping crosses it"
else
	# Soft-RoCE itself broke under the silence (docs/faults.md): no path can come back
	# over that pair; the rest of the test still holds
	log "no failback in 60 s: rping across the second pair fails too (Soft-RoCE broke)"
fi

# ---- 2. the link flaps: down under the I/O, up 10 s later
ip link set veth2 down; ip link set veth3 down
log "second pair down (veth2, veth3)"
t=$(on_path rxe0 30) || fail "the I/O did not move to 10.99.0.1 within 30 s of the link going down"
log "failover: writes over 10.99.0.1 ${t} s after the link went down"
sleep 10	# a duration: the dead path's teardown and reconnect attempts run meanwhile
w=$(dev_writes "$DEV")
wait_for 15 dev_written "$DEV" "$w" || fail "no write completed in 15 s, 10 s after the link went down"
# up again, with the pair's own routes, which went with the link (fault_pair2_up)
ip link set veth2 up; ip link set veth3 up
ip route replace $VM_ADDR2 dev veth3 src $VM_ADDR3 table 103
ip route replace $VM_ADDR3 dev veth2 src $VM_ADDR2 table 104
log "second pair up again"
w=$(dev_writes "$DEV")
wait_for 15 dev_written "$DEV" "$w" || fail "no write completed in 15 s after the link came up"
# one look (printed, not judged): after a flap under traffic rxe2/rxe3 have stayed broken
if fault_pair2_ok; then log "rping crosses the second pair again"; else
	log "rping across the second pair fails: its rxe devices stay broken"; fi
w=$(dev_writes "$DEV")
wait_for 15 dev_written "$DEV" "$w" || fail "no write completed in 15 s after the rping check"

# ---- 3. nothing lost; the attach exits when told
fault_fio_end mp || fail "fio saw an I/O error or a verify failure (above)"
attach_stop 30 || fail "the attach did not exit when told"
log "what each path carried:"
grep -E '^path [01]:' "$T_WORK/attach.log" | tail -2 | sed 's/^/  /'
grep -E 'I/O timeout|Keep Alive unanswered|connection lost' "$T_WORK/attach.log" | head -6 |
	sed 's/^/  /'
bg_stop target
log "PASS"
