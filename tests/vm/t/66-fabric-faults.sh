#!/bin/bash
# 66-fabric-faults: one case of each fault class of bench/fault_matrix.sh (docs/faults.md)
# under one running fio (4-64 KiB random writes, every block crc32c-verified) from the
# Linux host to rblk-target: 1% loss, 5 ms delay with 2 ms jitter (which reorders too),
# 10% reordering with 1% duplication, 0.1% corruption (5 s each, tc netem on both
# veths), the link down 2 s, and the target killed (SIGKILL) and started again 2 s
# later. Each fault is shorter than the host's timeouts, so: no I/O error and no verify
# failure (fio's exit and JSON), the I/O recovers after each (3 s at a third of the
# throughput before it, within 90 s: TCG timings are too noisy for more) and the
# target reports no stalled queue once it has. The netem is put on before the host
# connects and the faults only change it (lib_fault.sh says why). A fabric a fault
# itself broke (rping fails too) is repaired once and the scenario run again (scen
# below); the normal path takes about 3 minutes of VM time.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_fault.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:faults
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd tc iproute2
need_cmd python3 python3
modprobe sch_netem || skip "no sch_netem module"
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null
trap fault_disarm EXIT
# 4 s of I/O before each fault are its baseline
FAULT_BASE_S=4

fail() { tail -60 "$FAULT_TLOG"; dmesg | tail -40; die "$*"; }

# The namespace is a file on tmpfs: it outlives a killed target, so what the host was
# told is written must still read back after the restart.
truncate -s 128M "$T_WORK/disk.img"
fault_target_start() {
	local n
	n=$(grep -c 'notice: ready' "$FAULT_TLOG" 2>/dev/null)
	"$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" --allow-any-host \
		--log-level info >> "$FAULT_TLOG" 2>&1 &
	TPID=$!
	wait_for 60 sh -c "[ \$(grep -c 'notice: ready' '$FAULT_TLOG') -gt ${n:-0} ]" ||
		{ log "the target did not start"; return 1; }
	log "target up (pid $TPID)"
}
fault_target_kill() { kill -KILL "$TPID"; wait "$TPID" 2>/dev/null; log "target killed"; }
: > "$FAULT_TLOG"
fault_arm || fail "cannot arm the fault qdisc"
fault_target_start || fail "the target did not start"

# A short reconnect delay: after the restart the host tries again every second.
dev=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" --reconnect-delay=1) || fail "connect failed"
fault_rate_start "$dev"
fault_fio_start w "$dev"
wait_for 60 dev_written "${dev#/dev/}" 2048 || fail "fio does not write"

bad=
# scen NAME SECS KIND [ARGS]: recovered = 3 s at a third of the throughput before, within
# 90 s. Should a fault leave Soft-RoCE itself broken (rping between the rxe devices
# fails too; before the faults only changed an armed netem, a qdisc swapped under
# traffic did that in most boots), rxe is recreated as test 24 does, the target
# restarted (its listener went with the old device), the host's own reconnects bring
# the I/O back, and the scenario runs once more; only a second broken fabric, or I/O
# that does not come back on a repaired one, fails the test.
repaired=0
scen() {
	local n=$1 s=$2
	shift 2
	fault_scenario "$n" "$s" 0.33 90 "$@" && return 0
	if [ $repaired = 0 ] && ! rdma_cm_ok; then
		repaired=1
		log "$n: the fabric itself is broken: repairing it, restarting the target"
		vm_repair_rdma
		rdma_cm_ok || fail "the fabric could not be repaired"
		fault_target_kill
		fault_target_start || fail "the target did not start again"
		wait_for 240 dev_written "${dev#/dev/}" "$(dev_writes "$dev")" ||
			fail "no I/O after the fabric was repaired"
		fault_scenario "$n" "$s" 0.33 90 "$@" && return 0
	fi
	bad="$bad $n"
}
scen loss-1pct 5 netem loss 1%
scen delay-jitter 5 netem delay 5ms 2ms
scen reorder-dup 5 netem delay 1ms reorder 10% duplicate 1%
scen corrupt 5 netem corrupt 0.1%
scen down-2s 2 down
scen restart 2 restart
kill -0 "$TPID" 2>/dev/null || fail "the target is gone"

fault_fio_end w || { cat "$T_WORK/fio-w.json"; fail "fio saw an I/O error or a verify failure"; }
fault_rate_stop
fault_summaries w | tee "$T_OUT/scenarios.jsonl"
# nothing crosses the pair any more: its qdisc can go
nvme disconnect -n $NQN >/dev/null
fault_target_kill
fault_disarm
[ -z "$bad" ] || fail "the I/O did not recover after:$bad"
# A stall report after a recovery, or a queue reported stalled that neither moved nor
# closed since: a thread or queue the fault left stuck.
awk '$8 != 0 || $9 != 0 { print $1; b = 1 } END { exit b }' "$FAULT_SCEN" ||
	fail "the target reported stalled queues after the fabric healed"
log "PASS"
