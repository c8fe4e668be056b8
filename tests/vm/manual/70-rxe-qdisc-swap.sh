#!/bin/bash
# 70-rxe-qdisc-swap: why the fault tests put their netem on once and only change it
# (tests/vm/lib_fault.sh, docs/faults.md). Under verified writes from the Linux host
# to rblk-target: first a netem armed before the host connected, its loss changed to 1%
# and back three times; then the root qdisc deleted and added again under the same
# traffic, up to six times. Prints rxe's send_err counters (a packet the kernel dropped
# on the way out and said so to rxe, which moves the sending QP to the error state),
# the host's error recoveries and whether rping still crosses the pair after each
# phase. Fails when changing the armed netem cost a send error or broke the fabric; the
# swaps are expected to (the first did in every 6.12 boot tried), and the figures say
# whether they did this time.
# vm-timeout: 480
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_fault.sh" || exit 1
TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:qdisc-swap
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd tc iproute2
modprobe sch_netem || skip "no sch_netem module"
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
trap fault_disarm EXIT

send_err() { echo $(( $(rxe_counter rxe0 send_err) + $(rxe_counter rxe1 send_err) )); }
recoveries() { dmesg | grep -c 'nvme nvme[0-9]*: starting error recovery'; }
report() { log "$1: rxe send errors $2 -> $(send_err), host error recoveries $3 -> $(recoveries), rping $(rdma_cm_ok && echo works || echo FAILS)"; }

truncate -s 128M "$T_WORK/disk.img"
fault_arm || die "cannot arm the fault qdisc"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" --allow-any-host
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || { bg_log target; die "no start"; }
dev=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" --reconnect-delay=1) || die "connect failed"
fault_fio_start w "$dev"
wait_for 60 dev_written "${dev#/dev/}" 2048 || die "fio does not write"

e0=$(send_err) r0=$(recoveries)
for i in 1 2 3; do
	fault_netem loss 1% || die "tc qdisc change failed"
	sleep 2	# a duration: the fault
	fault_clear
	sleep 2
done
e1=$(send_err) r1=$(recoveries)
report "armed netem changed 6 times" $e0 $r0
[ "$e1" = "$e0" ] || die "changing an armed netem cost rxe $((e1 - e0)) send errors"
rdma_cm_ok || die "changing an armed netem broke the fabric"

for i in 1 2 3 4 5 6; do
	for v in veth0 veth1; do tc qdisc del dev $v root; done
	sleep 1	# a duration: traffic without the qdisc
	for v in veth0 veth1; do tc qdisc add dev $v root netem limit $FAULT_NETEM_LIMIT; done
	sleep 1
	[ "$(send_err)" = "$e1" ] || break
done
report "root qdisc deleted and added $i times" $e1 $r1
kill -KILL $FPID 2>/dev/null
log "PASS"
