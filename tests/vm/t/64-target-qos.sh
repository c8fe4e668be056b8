#!/bin/bash
# 64-target-qos: per-namespace QoS limits (docs/qos.md) as the Linux host sees them.
# Configured through the RPC socket: namespace 1 limited to 500 IOPS, namespace 2 not.
# fio with 2 jobs pinned to the 2 CPUs (so on 2 I/O queues, which the target serves on
# its 2 poll groups) reads namespace 1 at random; after 16 s the limit goes to 1000
# through rblk_ns_set_qos_limit while fio runs. Each phase's rate, from fio's per-second
# IOPS log past the first 2 s of the phase, must be within 5% of its limit. Meanwhile
# fio on namespace 2 must not be held: none of its commands waited for QoS. The saved configuration keeps the last limit.
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:qos
H=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000c4
HID=00000000-0000-4000-8000-0000000000c4
SOCK=$T_WORK/run/rpc.sock
SAVED=$T_WORK/saved.json
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd python3 python3
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null

fail() { bg_log target; dmesg | tail -30; die "$*"; }
rpc() { "$TGT" rpc -s "$SOCK" "$@"; }
rpc_ok() { rpc "$@" || fail "rpc $1 failed"; }

bg_start target "$TGT" --rpc-socket "$SOCK" --save "$SAVED" --log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
rpc_ok nvmf_create_subsystem --nqn $NQN >/dev/null
rpc_ok nvmf_subsystem_add_listener --nqn $NQN --listen_address.trtype RDMA \
	--listen_address.adrfam IPv4 --listen_address.traddr "$VM_ADDR0" \
	--listen_address.trsvcid '"4420"' >/dev/null
rpc_ok nvmf_subsystem_add_ns --nqn $NQN --namespace.path mem:64M >/dev/null
rpc_ok nvmf_subsystem_add_ns --nqn $NQN --namespace.path mem:64M >/dev/null
rpc_ok nvmf_subsystem_add_host --nqn $NQN --host $H >/dev/null

# Bad limits are refused with a reason, and change nothing.
rpc rblk_ns_set_qos_limit --nqn $NQN --nsid 1 --rw_ios_per_sec 200000000 2> "$T_WORK/err" &&
	fail "a limit out of range was accepted"
grep -q 'rw_ios_per_sec' "$T_WORK/err" || { cat "$T_WORK/err"; fail "message"; }
rpc rblk_ns_set_qos_limit --nqn $NQN --nsid 3 --rw_ios_per_sec 5 2> "$T_WORK/err" &&
	fail "a limit on a missing namespace was accepted"
rpc_ok rblk_ns_set_qos_limit --nqn $NQN --nsid 1 --rw_ios_per_sec 500 >/dev/null
rpc_ok nvmf_get_subsystems --nqn $NQN > "$T_WORK/subsystems.json"
python3 - "$T_WORK/subsystems.json" <<'PY' || fail "nvmf_get_subsystems does not show the limits"
import json, sys
ns = {n["nsid"]: n for n in json.load(open(sys.argv[1]))[0]["namespaces"]}
assert ns[1]["assigned_rate_limits"]["rw_ios_per_sec"] == 500, ns
assert ns[2]["assigned_rate_limits"]["rw_ios_per_sec"] == 0, ns
PY

nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" -q $H -I $HID -i 2 >/dev/null
DEV1=$(nvme_wait_ns $NQN 1 30) || fail "namespace 1 is missing"
DEV2=$(nvme_wait_ns $NQN 2 30) || fail "namespace 2 is missing"
log "limited: $DEV1, unlimited: $DEV2"

# 2 jobs, one per CPU: the block layer gives each CPU its own hardware queue.
FIO=(--ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=16 --numjobs=2
	--cpus_allowed=0-1 --cpus_allowed_policy=split --time_based --runtime=32
	--group_reporting --output-format=json)
( cd "$T_WORK" && fio --name=lim --filename="$DEV1" "${FIO[@]}" --write_iops_log=lim \
	--log_avg_msec=1000 > "$T_WORK/lim.json" 2> "$T_WORK/lim.err" ) &
FIO1=$!
# One job at QD 8 on the other namespace: under TCG the VM's two CPUs are what limits
# the I/O of both, and the limited namespace must still have the CPU for its limit.
( fio --name=free --filename="$DEV2" "${FIO[@]}" --numjobs=1 --iodepth=8 \
	> "$T_WORK/free.json" 2> "$T_WORK/free.err" ) &
FIO2=$!
sleep 16
rpc_ok rblk_ns_set_qos_limit --nqn $NQN --nsid 1 --rw_ios_per_sec 1000 >/dev/null
log "namespace 1: limit raised to 1000 IOPS"
wait $FIO1 || { cat "$T_WORK/lim.err"; fail "fio on the limited namespace failed"; }
wait $FIO2 || { cat "$T_WORK/free.err"; fail "fio on the unlimited namespace failed"; }
cp "$T_WORK"/lim*.log "$T_WORK"/*.json "$T_OUT/" 2>/dev/null
rpc_ok nvmf_get_stats > "$T_WORK/stats.json"

# Per-second IOPS summed over the 2 jobs' logs (time ms, IOPS, ...), by second.
python3 - "$T_WORK" <<'PY' || fail "QoS rates out of bounds"
import collections, glob, json, sys
d = sys.argv[1]
sec = collections.Counter()
logs = glob.glob(d + "/lim_iops.*.log")
assert len(logs) == 2, logs
for f in logs:
    for line in open(f):
        t, v = [int(x) for x in line.split(",")[:2]]
        sec[(t + 500) // 1000] += v
def rate(a, b):
    xs = [sec[s] for s in range(a, b + 1)]
    return sum(xs) / len(xs)
p1, p2 = rate(3, 15), rate(19, 31)
free = json.load(open(d + "/free.json"))["jobs"][0]["read"]["iops"]
st = json.load(open(d + "/stats.json"))
ns = {n["nsid"]: n for n in st["namespaces"] if n["subsystem"].endswith(":qos")}
print("500 IOPS phase: %.1f; 1000 IOPS phase: %.1f; unlimited namespace: %.1f IOPS; "
      "qos_waits %d / %d" % (p1, p2, free, ns[1]["qos_waits"], ns[2]["qos_waits"]))
print("per second:", [sec[s] for s in range(1, 33)])
assert 475 <= p1 <= 525, p1
assert 950 <= p2 <= 1050, p2
assert ns[1]["qos_waits"] > 0 and ns[2]["qos_waits"] == 0, ns
# Not held by namespace 1's limits: none of its commands waited, and it ran. (How fast
# is the VM's business: under TCG its CPUs, not the limits, bound it.)
assert free > 100, free
PY
python3 - "$SAVED" <<'PY' || fail "the saved configuration lost the limit"
import json, sys
ns = json.load(open(sys.argv[1]))["subsystems"][0]["namespaces"]
assert ns[0]["x-rblk"]["qos"]["rw_ios_per_sec"] == 1000, ns
assert "qos" not in ns[1].get("x-rblk", {}), ns
PY

timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"
bg_stop target; rc=$?
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
log "PASS"
