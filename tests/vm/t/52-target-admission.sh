#!/bin/bash
# 52-target-admission: rblk-target under a connection flood, and revoking hosts.
# tests/func/cm_flood opens 300 NVMe/RDMA connections from 10.99.0.1 that never send a
# Fabrics Connect and holds them; meanwhile the Linux host (10.99.0.2) connects and
# passes fio verify. The target holds at most max_pending_per_addr (32) of them pending:
# each one beyond evicts the oldest (plus at most 32 evicted ones in teardown), and says
# so in its log; a host at the flood's own address (one NAT) still gets in. After
# connect_timeout_ms (10 s) it drops the idle ones: its QPs (rdma res show qp) are back
# to the host's queues.
# Then: a host taken out of allowed_hosts by a SIGHUP reload loses its controller at
# once, and --max-ctrls-per-host refuses a host's controller beyond the bound.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
FLOOD=$(rblk_bin tests/func/cm_flood) || exit 1
RBLK=$(rblk_bin cli/rblk) || exit 1
NQN=nqn.2024-01.io.rblk:admission
H1=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000b1
H2=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000b2
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd rdma iproute2
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
CFG=$T_WORK/config.json

fail() { bg_log target; [ -f "$T_WORK/flood.log" ] && cat "$T_WORK/flood.log"; dmesg | tail -30; die "$*"; }
# The target's QPs: rdma res names each by the thread that made it, the poll groups.
target_qps() { rdma res show qp 2>/dev/null | grep -c 'comm rblk-pg' || true; }

# ---- the flood, and a real host beside it
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:64M --allow-any-host \
	--log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"

bg_start flood "$FLOOD" -a $VM_ADDR0 -w $VM_ADDR0 -n 300 -H 30
FLPID=$BG_PID
wait_for_line 120 "$T_WORK/flood.log" 'connections attempted' "$FLPID" || fail "the flood did not get going"
held=$(target_qps)
log "during the flood the target holds $held QPs"
[ "$held" -ge 16 ] || fail "the target holds only $held QPs during the flood: is rdma res counting them?"
[ "$held" -le 66 ] ||
	fail "the target holds $held QPs: max_pending_per_addr (32 pending, 32 evicted) did not bound them"
grep -q 'max_pending_per_addr reached .*: evicting ' "$T_WORK/target.log" ||
	fail "no log line names the evicted connections"
# Issue 34: a host behind the flood's address gets in at once, in the place of the
# flood's oldest pending connection, instead of waiting for their timeout.
"$RBLK" id-ctrl -t rdma -a $VM_ADDR0 -n $NQN -w $VM_ADDR0 -l 0 >"$T_WORK/nat.txt" 2>&1 ||
	{ cat "$T_WORK/nat.txt"; fail "a host at the flood's address was refused during the flood"; }
log "a host at the flood's address connected during the flood"

dev=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1 | tail -1)
[ -b "$dev" ] || fail "the Linux host could not connect during the flood"
fio_verify flood "$dev" --bs=4k --iodepth=16 --size=32M --rw=randwrite

bg_wait flood 120 || fail "cm_flood failed"
cat "$T_WORK/flood.log"
est=$(sed -nE 's/.*established ([0-9]+),.*/\1/p' "$T_WORK/flood.log")
disc=$(sed -nE 's/.*disconnected by the target ([0-9]+) .*/\1/p' "$T_WORK/flood.log")
# Beyond the first 32, each one took an older one's place: all were accepted at first.
[ "${est:-0}" -gt 32 ] || fail "cm_flood: ${est:-no} connections established: none evicted an older one"
# The evicted ones at once, the last 32 at connect_timeout_ms.
[ "${disc:-0}" -gt 32 ] && [ "$disc" -le "$est" ] ||
	fail "the target dropped ${disc:-no} of the $est connections that never sent Connect"
grep -q 'no Fabrics Connect within 10000 ms' "$T_WORK/target.log" || fail "no log line for the timeout"
qps_at_most() { [ "$(target_qps)" -le "$1" ]; }
wait_for 30 qps_at_most 3 ||
	fail "the target still holds $(target_qps) QPs after the flood"
log "after the flood the target holds $(target_qps) QPs (the host's admin + I/O queues)"
fio_verify after-flood "$dev" --bs=64k --iodepth=8 --size=16M --rw=randwrite
nvme disconnect -n $NQN >/dev/null || fail "nvme disconnect"
bg_stop target

# ---- a host revoked by a reload loses its controller
write_cfg() {
	cat > "$CFG.new" <<JSON
{ "hosts": [ { "nqn": "$H1" }, { "nqn": "$H2" } ],
  "subsystems": [ { "nqn": "$NQN", "attr": { "allow_any_host": "0", "serial": "ADMIT01" },
    "allowed_hosts": [ $1 ],
    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "mem:64M" } } ] } ],
  "ports": [ { "portid": 1, "subsystems": [ "$NQN" ],
    "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "4420",
              "treq": "not specified" } } ] }
JSON
	mv "$CFG.new" "$CFG"
}
write_cfg "\"$H1\", \"$H2\""
bg_start target "$TGT" --config "$CFG" --log-level info --max-ctrls-per-host 1
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
nvme connect -t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -q $H1 -I "${H1##*uuid:}" \
	--ctrl-loss-tmo=5 --reconnect-delay=1 >/dev/null || fail "connect as $H1"
wait_for 20 _nvme_has_ns $NQN || fail "no namespace for $H1"
# A second controller for the same host NQN, from rblk's own initiator.
if "$RBLK" id-ctrl -t rdma -a $VM_ADDR0 -n $NQN -q $H1 -w $VM_ADDR1 -l 0 >deny.txt 2>&1; then
	fail "a second controller for $H1 was allowed beyond --max-ctrls-per-host 1"
fi
cat deny.txt
grep -q "refused: the host already has 1 controllers" "$T_WORK/target.log" ||
	fail "no log line for max_ctrls_per_host"
log "a second controller for $H1 was refused (max_ctrls_per_host 1)"

write_cfg "\"$H2\""
kill -HUP "$TPID"
wait_for_line 30 "$T_WORK/target.log" 'no longer allowed' "$TPID" ||
	fail "the reload that removed $H1 did not end its controller"
# The host's reconnects are refused now; after ctrl-loss-tmo its controller is gone.
wait_for 60 nvme_no_ns $NQN || fail "$H1 still has the namespace after it was revoked"
grep -q "connect from $H1 to $NQN: host not allowed" "$T_WORK/target.log" ||
	log "note: the host did not try to reconnect before it gave up"
log "$H1 lost its controller when a reload took it off allowed_hosts"
nvme disconnect-all >/dev/null 2>&1
bg_stop target
