#!/bin/bash
# 56-target-ana-multipath: two rblk-target processes, A (10.99.0.1:4420) and B
# (10.99.0.1:4421), export one backing file as the same subsystem (same NQN, serial,
# model, namespace UUID/NGUID; disjoint cntlid ranges), ANA group 1 optimized on both.
# The Linux host (native NVMe multipath) joins them into ONE block device with two
# paths and shows their ANA states. A crc32c-verified fio runs on that device while:
#   1. A is SIGKILLed: I/O goes on through B without an error; A restarts with the
#      same config and the host reconnects by itself (path live, optimized again);
#   2. A's group 1 is made inaccessible (config edit + SIGHUP): the host sees
#      ana_state "inaccessible" on A's path, A stops receiving writes, B carries them;
#      back to optimized, A receives writes again.
# The I/O policy is set to round-robin so that both paths carry I/O (the default,
# numa, may use only one, and killing an idle path proves nothing). Timings are
# logged, never asserted.
# The shared medium is a file on the VM's tmpfs: both targets run in the same kernel,
# whose page cache is per inode, and rblk keeps no cache of its own, so what A wrote
# is what B reads.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_mpath.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:ana-mpath
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mp=$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null) ||
	skip "this kernel's nvme_core has no multipath parameter (built without CONFIG_NVME_MULTIPATH)"
[ "$mp" = Y ] || skip "nvme_core.multipath is $mp: the host would not join the two paths"
mkdir -p "$T_OUT" 2>/dev/null
IMG=$T_WORK/shared.img
truncate -s 64M "$IMG"

fail() {
	bg_log A; bg_log B
	nvme list-subsys 2>&1
	dmesg | grep -vE 'QID [0-9]+ timeout|requeuing' | tail -40
	die "$*"
}

# write_cfg NAME SVC CNTLID_MIN CNTLID_MAX ANA_STATE: target NAME's nvmetcli JSON
write_cfg() {
	cat > "$T_WORK/$1.json.new" <<JSON
{ "ports": [ { "portid": 1, "subsystems": [ "$NQN" ],
    "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "$2",
              "treq": "not specified" },
    "ana_groups": [ { "grpid": 1, "ana": { "state": "$5" } } ] } ],
  "subsystems": [ { "nqn": "$NQN",
    "attr": { "allow_any_host": "1", "serial": "ANAMPATH0001", "model": "rblk ana multipath",
              "cntlid_min": "$3", "cntlid_max": "$4" },
    "namespaces": [ { "nsid": 1, "enable": 1, "ana_grpid": 1,
      "device": { "path": "$IMG", "uuid": "5e1f0c2a-9b7d-4e36-8a41-0d2c6b9e7f13",
                  "nguid": "a1b2c3d4-e5f6-4789-8abc-def012345678" } } ] } ] }
JSON
	mv "$T_WORK/$1.json.new" "$T_WORK/$1.json"
}
cfg_a() { write_cfg A 4420 1 999 "$1"; }
cfg_b() { write_cfg B 4421 1000 1999 "$1"; }

# start NAME: start target NAME from its config, wait for "ready"; pid in PID_<NAME>
start() {
	bg_start "$1" "$TGT" --config "$T_WORK/$1.json" --log-level info
	printf -v "PID_$1" %s "$BG_PID"
	wait_for_line 60 "$T_WORK/$1.log" 'notice: ready' "$BG_PID" || fail "target $1 did not start"
}

# writes NAME: the namespace's write command count in target NAME (SIGUSR1 makes it
# print its statistics as JSON on stderr, which is its log)
writes() {
	local pid=PID_$1 f=$T_WORK/$1.log n i
	n=$(grep -c '"write_cmds"' "$f")
	kill -USR1 "${!pid}" || return 1
	for i in $(seq 50); do
		[ "$(grep -c '"write_cmds"' "$f")" -gt "$n" ] && break
		sleep 0.2
	done
	grep -oE '"write_cmds": *[0-9]+' "$f" | tail -1 | grep -oE '[0-9]+$'
}
# wrote NAME N: target NAME has served more than N writes (for wait_for)
wrote() { [ "$(writes "$1")" -gt "$2" ]; }
_both_wrote() { wrote A 0 && wrote B 0; }

# refused NAME: commands target NAME completed with an error on its I/O queues, from
# the last statistics it printed (with ANA, the commands it refused with 0x302)
refused() {
	awk '/^\{/ { buf = ""; on = 1 } on { buf = buf $0 "\n" } /^\}/ { on = 0; last = buf }
		END { printf "%s", last }' "$T_WORK/$1.log" |
		jq '[.controllers[].queues[] | select(.qid > 0) | .errors] | add // 0'
}


# ---- two targets, one subsystem, one multipath device
cfg_a optimized
cfg_b optimized
start A
start B
CONN=(--reconnect-delay=1 --ctrl-loss-tmo=60)
DEV=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1 "${CONN[@]}" | tail -1)
[ -b "$DEV" ] || fail "connecting to A failed"
nvme_connect_rdma $NQN $VM_ADDR0 4421 $VM_ADDR1 "${CONN[@]}" >/dev/null || fail "connecting to B failed"
HEAD=${DEV#/dev/}
_two_paths() { [ "$(paths | wc -l)" = 2 ]; }
wait_for 20 _two_paths || fail "$DEV does not have two paths: $(paths)"
[ "$(nvme_dev_for_nqn $NQN | wc -l)" = 1 ] || fail "more than one block device: $(nvme_dev_for_nqn $NQN)"
PA=$(path 4420) || fail "no path of $DEV goes to A (4420)"
PB=$(path 4421) || fail "no path of $DEV goes to B (4421)"
CA=$(ctrl_of "$PA")
nvme list-subsys "$DEV" || nvme list-subsys
log "one device $DEV, paths: A = $PA, B = $PB"
show_paths
wait_for 20 _is_ana "$PA" optimized || fail "A's path is $(ana_of "$PA"), not optimized"
wait_for 20 _is_ana "$PB" optimized || fail "B's path is $(ana_of "$PB"), not optimized"
SUBSYS=
for s in /sys/class/nvme-subsystem/*; do
	[ "$(cat "$s/subsysnqn")" = $NQN ] && SUBSYS=$s
done
[ -n "$SUBSYS" ] || fail "no nvme-subsystem with NQN $NQN"
echo round-robin > "$SUBSYS/iopolicy" || fail "cannot set $SUBSYS/iopolicy to round-robin"
log "iopolicy: $(cat "$SUBSYS/iopolicy")"

# ---- 1. A dies; I/O continues through B; A comes back
fio_bg_verify kill "$DEV"
# the kill comes under I/O on both paths: once both targets have served writes
wait_for 60 _both_wrote
wa=$(writes A); wb=$(writes B)
log "before the kill: A has served $wa writes, B $wb"
[ "$wa" -gt 0 ] && [ "$wb" -gt 0 ] || fail "round-robin should send writes to both (A $wa, B $wb)"
t0=$SECONDS
kill -KILL "$PID_A"
wait "$PID_A" 2>/dev/null
log "SIGKILLed A (pid $PID_A)"
wait_for 30 sh -c "[ \"\$(cat /sys/class/nvme/$CA/state)\" != live ]" ||
	log "A's controller $CA still says live 30 s after the kill"
log "A's controller $CA: $(nvme_ctrl_state "$CA") after $((SECONDS - t0)) s"
wb=$(writes B)
t2=$SECONDS
wait_for 60 wrote B "$wb"
wb2=$(writes B)
log "with A dead, B served $((wb2 - wb)) writes in $((SECONDS - t2)) s"
[ "$wb2" -gt "$wb" ] || fail "no writes reached B while A was dead"
kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-kill.txt"; fail "fio stopped while A was dead"; }
mv "$T_WORK/A.log" "$T_WORK/A-killed.log"
t1=$SECONDS
start A
log "A restarted (pid $PID_A) in $((SECONDS - t1)) s"
wait_for 90 _is_live_opt "$PA" || fail "A's path did not come back: $(nvme_ctrl_state "$CA"), $(ana_of "$PA")"
log "A's path $PA is live and $(ana_of "$PA") again, $((SECONDS - t1)) s after the restart" \
	"($((SECONDS - t0)) s after the kill)"
show_paths
wait_for 60 wrote A 0
wa=$(writes A)
log "the restarted A has served $wa writes"
[ "$wa" -gt 0 ] || fail "no writes reached A after it came back"
fio_bg_end kill

# ---- 2. A's group 1 inaccessible: the host moves its I/O to B
wa=$(writes A)
fio_bg_verify ana "$DEV"
# A's group changes under I/O: once this fio's writes reach A
wait_for 60 wrote A "$wa" || fail "fio's writes do not reach A before its group changes"
t0=$SECONDS
cfg_a inaccessible
kill -HUP "$PID_A"
wait_for_line 30 "$T_WORK/A.log" 'ANA group 1 is inaccessible' "$PID_A" || fail "A did not apply the reload"
wait_for 60 _is_ana "$PA" inaccessible || fail "A's path is $(ana_of "$PA"), not inaccessible"
log "A's path $PA is inaccessible $((SECONDS - t0)) s after SIGHUP"
show_paths
# durations, not waits: 1 s for the commands in flight on A when its group changed
# (refused, retried through B), then an 8 s window in which A must receive nothing
sleep 1
wa=$(writes A); wb=$(writes B)
sleep 8
wa2=$(writes A); wb2=$(writes B)
log "in 8 s with A inaccessible: A served $((wa2 - wa)) writes, B $((wb2 - wb))"
log "A refused $(refused A) commands with an error status so far (those in flight when" \
	"its group became inaccessible; the host retried them through B)"
[ "$wa2" = "$wa" ] || fail "A still receives writes while its group is inaccessible"
[ "$wb2" -gt "$wb" ] || fail "B received no writes while A was inaccessible"
kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-ana.txt"; fail "fio stopped after A became inaccessible"; }
t0=$SECONDS
cfg_a optimized
kill -HUP "$PID_A"
wait_for_line 30 "$T_WORK/A.log" 'ANA group 1 is optimized' "$PID_A" || fail "A did not apply the second reload"
wait_for 60 _is_ana "$PA" optimized || fail "A's path is $(ana_of "$PA"), not optimized again"
log "A's path $PA is optimized again $((SECONDS - t0)) s after SIGHUP"
wa=$(writes A)
t2=$SECONDS
wait_for 60 wrote A "$wa"
wa2=$(writes A)
log "in $((SECONDS - t2)) s with A optimized again: A served $((wa2 - wa)) writes"
[ "$wa2" -gt "$wa" ] || fail "A receives no writes after it became optimized again"
fio_bg_end ana

nvme list-subsys "$DEV" || true
timeout 60 nvme disconnect -n $NQN || fail "disconnect failed"
bg_stop A; ra=$?
bg_stop B; rb=$?
cp "$T_WORK"/A*.log "$T_WORK/B.log" "$T_OUT/" 2>/dev/null
[ $ra = 0 ] && [ $rb = 0 ] || fail "the targets exited with $ra and $rb on SIGTERM"
log "PASS"
