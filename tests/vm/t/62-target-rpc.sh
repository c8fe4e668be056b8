#!/bin/bash
# 62-target-rpc: rblk-target configured only through its JSON-RPC socket (docs/rpc.md),
# as the connected Linux host sees it. Started with no configuration at all; through
# `rblk-target rpc`: a subsystem, a listener, a mem namespace, an allowed host; the host
# connects and fio verifies. A second namespace added through the socket appears on the
# host without a reconnect. Bad clients (not JSON, 2 MiB, a stalled one, 100 at once)
# while fio runs: errors for them, nothing for the I/O. An ANA state set through the
# socket reaches the host. Removing the host fails its controllers (the target lists
# none, the host gives up). The configuration saved with --save brings it all back
# after a restart, and the host, allowed again, reads what it wrote to namespace 2.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:rpc
H=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000c1
HID=00000000-0000-4000-8000-0000000000c1
SOCK=$T_WORK/run/rpc.sock
SAVED=$T_WORK/saved.json
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd python3 python3
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null
truncate -s 32M "$T_WORK/ns2.img"

fail() { bg_log target; dmesg | tail -30; die "$*"; }
rpc() { "$TGT" rpc -s "$SOCK" "$@"; }
# rpc_ok METHOD ARGS...: the call must succeed; its result on stdout.
rpc_ok() { rpc "$@" || fail "rpc $1 failed"; }
LA=(--listen_address.trtype RDMA --listen_address.adrfam IPv4
	--listen_address.traddr "$VM_ADDR0" --listen_address.trsvcid '"4420"')
start_target() {
	bg_start target "$TGT" --rpc-socket "$SOCK" --save "$SAVED" --log-level info "$@"
	TPID=$BG_PID
	wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" ||
		fail "the target did not start"
}
# The host's controller for $NQN (nvme0 ...), empty when it has none.
host_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && { echo "${c##*/}"; return; }
	done
}

# --- an empty start, configured through the socket
start_target
grep -q '0 subsystems, 0 namespaces, 0 listeners' "$T_WORK/target.log" ||
	fail "the target did not start empty"
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "the socket is not mode 0600"
rpc_ok nvmf_create_subsystem --nqn $NQN --serial_number RPC0001 >/dev/null
rpc_ok nvmf_subsystem_add_listener --nqn $NQN "${LA[@]}" >/dev/null
[ "$(rpc_ok nvmf_subsystem_add_ns --nqn $NQN --namespace.path mem:64M)" = 1 ] ||
	fail "add_ns did not answer NSID 1"
rpc_ok nvmf_subsystem_add_host --nqn $NQN --host $H >/dev/null
rpc_ok nvmf_get_subsystems > "$T_WORK/subsystems.json"
grep -q '"serial_number": "RPC0001"' "$T_WORK/subsystems.json" || fail "get_subsystems"
grep -q "\"traddr\": \"$VM_ADDR0\"" "$T_WORK/subsystems.json" || fail "no listener listed"

# A refused change says why and changes nothing.
rpc nvmf_subsystem_add_ns --nqn $NQN --namespace.path mem:64M --namespace.nsid 1 \
	2> "$T_WORK/err" && fail "a duplicate NSID was accepted"
grep -q 'namespace.nsid: 1 is in use' "$T_WORK/err" || { cat "$T_WORK/err"; fail "message"; }
rpc nvmf_subsystem_add_ns --nqn $NQN --namespace.bdev_name Malloc0 2> "$T_WORK/err" &&
	fail "bdev_name was accepted"
grep -q 'rblk has no bdevs' "$T_WORK/err" || { cat "$T_WORK/err"; fail "message"; }

# --- the host connects (giving up 5 s after losing the controller) and verifies
DEV=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" -q $H -I $HID -l 5 -c 1 | tail -1)
[ -b "$DEV" ] || fail "connect failed"
CTRL=$(host_ctrl)
[ -n "$CTRL" ] || fail "no host controller for $NQN"
fio_verify first "$DEV" --bs=4k --iodepth=8 --size=32M
rpc_ok nvmf_subsystem_get_controllers --nqn $NQN > "$T_WORK/ctrls.json"
grep -q "\"hostnqn\": \"$H\"" "$T_WORK/ctrls.json" || { cat "$T_WORK/ctrls.json"; fail "get_controllers"; }
rpc_ok nvmf_subsystem_get_qpairs --nqn $NQN | grep -q '"qid": 1' || fail "get_qpairs lists no I/O queue"

# --- fio in the background through everything below, once it writes
w0=$(dev_writes "$DEV")
fio_bg_verify bg "$DEV"
wait_for 60 dev_written "$DEV" "$w0" || fail "fio wrote nothing to $DEV in 60 s"

# A second namespace: seen by the host without reconnecting.
[ "$(rpc_ok nvmf_subsystem_add_ns --nqn $NQN --namespace.path "$T_WORK/ns2.img")" = 2 ] ||
	fail "add_ns did not answer NSID 2"
DEV2=$(nvme_wait_ns $NQN 2 30) || fail "namespace 2 did not appear on the host"
[ "$(host_ctrl)" = "$CTRL" ] || fail "the host reconnected ($(host_ctrl), was $CTRL)"
log "$DEV2 appeared on $CTRL"
head -c 1M /dev/urandom > "$T_WORK/pat"
dd if="$T_WORK/pat" of="$DEV2" bs=1M oflag=direct status=none || fail "write to $DEV2 failed"
cmp -n 1048576 "$T_WORK/pat" "$T_WORK/ns2.img" || fail "namespace 2's data is not in its file"

# Bad clients while the I/O runs: each gets its error or is dropped, the I/O goes on.
cat > "$T_WORK/hostile.py" <<'PY'
import json, socket, sys, threading
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    return s
def answer(s):
    buf = b""
    while True:
        d = s.recv(65536)
        if not d:
            return json.loads(buf) if buf.strip() else None
        buf += d
        try:
            return json.loads(buf)
        except ValueError:
            pass
stalled = conn()
stalled.sendall(b'{"jsonrpc": "2.0", "method": "nvmf_get_subsystems", "id": 1, "par')
s = conn(); s.sendall(b'{"jsonrpc": "2.0", "method" nope}')
assert answer(s)["error"]["code"] == -32700
s = conn(); s.sendall(b'{"jsonrpc": "2.0", "method": "nvmf_nope", "id": 2}')
assert answer(s)["error"]["code"] == -32601
s = conn(); s.sendall(b'{"jsonrpc": "2.0", "method": "nvmf_subsystem_add_ns", "params": {"nqn": 5}, "id": 3}')
r = answer(s); assert r["error"]["code"] == -32602 and "nqn" in r["error"]["message"], r
s = conn()
try:
    s.sendall(b'{"jsonrpc": "2.0", "method": "x", "params": {"a": "' + b"x" * (2 << 20) + b'"}}')
except (BrokenPipeError, ConnectionResetError):
    pass
ok = [0]
def one(i):
    c = conn()
    c.sendall(b'{"jsonrpc": "2.0", "method": "nvmf_get_subsystems", "id": %d}' % i)
    if answer(c)["id"] == i:
        ok[0] += 1
threads = [threading.Thread(target=one, args=(i,)) for i in range(100)]
for t in threads: t.start()
for t in threads: t.join()
assert ok[0] == 100, ok
print("hostile clients: all answered or dropped; 100 parallel clients answered")
PY
python3 "$T_WORK/hostile.py" "$SOCK" || fail "the socket misbehaved under bad clients"
kill -0 "$TPID" || fail "the target died under bad clients"

# ANA through the socket: the host's path follows.
ana=$(ls /sys/class/nvme/$CTRL/nvme*c*n*/ana_state 2>/dev/null | head -1)
if [ -n "$ana" ]; then
	rpc_ok nvmf_subsystem_listener_set_ana_state --nqn $NQN "${LA[@]}" \
		--ana_state non_optimized >/dev/null
	wait_for 30 grep -qx non-optimized "$ana" ||
		fail "the host's path is $(cat "$ana"), not non-optimized"
	rpc_ok nvmf_subsystem_listener_set_ana_state --nqn $NQN "${LA[@]}" \
		--ana_state optimized >/dev/null
	wait_for 30 grep -qx optimized "$ana" || fail "the host's path did not come back optimized"
	log "ANA: $ana followed the socket"
else
	log "no ANA state in sysfs (host without native multipath): ANA check skipped"
fi
fio_bg_end bg

# --- the host removed: the target fails its controllers, the host gives up
rpc_ok nvmf_subsystem_remove_host --nqn $NQN --host $H >/dev/null
no_ctrls() { [ "$(rpc nvmf_subsystem_get_controllers --nqn $NQN | tr -d ' \n')" = '[]' ]; }
not_live() { ! grep -qx live "/sys/class/nvme/$CTRL/state" 2>/dev/null; }
wait_for 60 no_ctrls || fail "the removed host's controllers are still on the target"
wait_for 60 not_live || fail "the host's controller stayed live after its host was removed"
wait_for 60 test ! -e "/sys/class/nvme/$CTRL" ||
	fail "the host did not give up its controller (ctrl-loss-tmo 5)"
log "host removed: $CTRL gone"

# --- saved, restarted, back
rpc_ok rblk_save_config --path "$T_WORK/copy.json" >/dev/null
cmp -s "$SAVED" "$T_WORK/copy.json" || fail "--save and rblk_save_config differ"
bg_stop target; rc=$?
cp "$T_WORK/target.log" "$T_OUT/target-1.log" 2>/dev/null
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
[ ! -e "$SOCK" ] || fail "the socket was left behind"
start_target --config "$SAVED"
rpc_ok nvmf_get_subsystems > "$T_WORK/subsystems2.json"
python3 - "$T_WORK/subsystems2.json" <<'PY' || fail "the restarted configuration differs"
import json, sys
subs = [s for s in json.load(open(sys.argv[1])) if s["subtype"] == "NVMe"]
assert len(subs) == 1 and subs[0]["serial_number"] == "RPC0001", subs
assert [n["nsid"] for n in subs[0]["namespaces"]] == [1, 2], subs
assert subs[0]["hosts"] == [] and len(subs[0]["listen_addresses"]) == 1, subs
PY
rpc_ok nvmf_subsystem_add_host --nqn $NQN --host $H >/dev/null
nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" -q $H -I $HID >/dev/null
DEV2=$(nvme_wait_ns $NQN 2 30) || fail "namespace 2 is missing after the restart"
dd if="$DEV2" of="$T_WORK/back" bs=1M count=1 iflag=direct status=none || fail "read $DEV2"
cmp "$T_WORK/pat" "$T_WORK/back" || fail "namespace 2 lost its data across the restart"

timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"
bg_stop target; rc=$?
cp "$T_WORK/target.log" "$T_OUT/target-2.log" 2>/dev/null
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
log "PASS"
