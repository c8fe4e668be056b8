#!/bin/bash
# 59-rbd-gateway: rblk-target as a highly available NVMe-oF/RDMA gateway to Ceph RBD.
# One RBD image in the shared test cluster (lib.sh's ceph_fixture); two rblk-target
# gateways, A (10.99.0.1:4420) and B (:4421), export rbd:POOL/IMAGE as the same
# subsystem and namespace (same NQN, serial, UUID/NGUID; disjoint cntlid ranges; ANA
# group 1). The Linux host joins them into one multipath device (round-robin) and runs
# a crc32c-verified fio while:
#   1. A is SIGKILLed: I/O goes on through B with no error; A restarts, its path
#      comes back live and optimized;
#   2. A's group becomes inaccessible (SIGHUP reload): the host's I/O moves to B;
#   3. the image is resized with "rbd resize": both gateways raise a namespace-changed
#      event and the host sees the new size;
#   4. after the targets stop, what the host wrote is read back from Ceph with
#      "rbd export" and compared.
# The gateways run as client.rblk (caps: profile rbd) with librbd's cache off
# (rbd_cache = false): a write one gateway acknowledged must be in the cluster
# before the other can be asked to read it, and must survive the first's death. The
# image has only the layering feature: no exclusive lock to bounce between two
# writers. Timings are logged, never asserted.
# vm-timeout: 480
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:rbd-gateway
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mp=$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null) ||
	skip "this kernel's nvme_core has no multipath parameter (built without CONFIG_NVME_MULTIPATH)"
[ "$mp" = Y ] || skip "nvme_core.multipath is $mp: the host would not join the two paths"
T00=$SECONDS
ceph_fixture
log "ceph cluster: ${CEPH_FIXTURE_START_S:+started in ${CEPH_FIXTURE_START_S}s}${CEPH_FIXTURE_START_S:-already up}"
mkdir -p "$T_OUT" 2>/dev/null
IMG=$RBLK_CEPH_POOL/gw58
SIZE_MB=64
timeout 120 rbd create --size ${SIZE_MB}M --image-feature layering "$IMG" || die "rbd create $IMG failed"
# the gateways' Ceph identity: client.rblk with its own key, cache off
export RBLK_RBD_ID=rblk CEPH_ARGS="--keyring $RBLK_CEPH_CLIENT_KEYRING --rbd_cache=false"

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
    "attr": { "allow_any_host": "1", "serial": "RBDGW0001", "model": "rblk rbd gateway",
              "cntlid_min": "$3", "cntlid_max": "$4" },
    "namespaces": [ { "nsid": 1, "enable": 1, "ana_grpid": 1,
      "device": { "path": "rbd:$IMG", "uuid": "7c3e9a10-4b2d-4f8e-9a61-2d5c8b0e4f21",
                  "nguid": "b2c3d4e5-f6a7-4890-9bcd-ef0123456789" } } ] } ] }
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

# paths: the hidden per-controller path devices of $HEAD (nvmeXnZ has nvmeXcYnZ, one
# per controller Y; 6.1 and 6.12 have no /sys/block/$HEAD/multipath/ listing them)
paths() {
	local p
	for p in /sys/block/${HEAD%n*}c*n${HEAD##*n}; do [ -e "$p" ] && echo "${p##*/}"; done
}
# path SVC: the path device whose controller went to port SVC
path() {
	local p c a
	for p in $(paths); do
		c=${p#nvme*c}; c=nvme${c%n*}
		read -r a < "/sys/class/nvme/$c/address" || continue
		[[ $a == *"trsvcid=$1"* ]] && { echo "$p"; return 0; }
	done
	return 1
}
ana_of() { local s; read -r s < "/sys/block/$1/ana_state" && echo "$s"; }
ctrl_of() { local c=${1#nvme*c}; echo "nvme${c%n*}"; }
state_of() { local s; read -r s < "/sys/class/nvme/$1/state" && echo "$s"; }
_is_ana() { [ "$(ana_of "$1")" = "$2" ]; }
_is_live_opt() { [ "$(state_of "$(ctrl_of "$1")")" = live ] && _is_ana "$1" optimized; }
show_paths() {
	local p
	for p in $(paths); do
		log "  path $p: controller $(ctrl_of "$p") $(state_of "$(ctrl_of "$p")")," \
			"cntlid $(cat /sys/class/nvme/$(ctrl_of "$p")/cntlid), ana_state $(ana_of "$p")," \
			"$(cat /sys/class/nvme/$(ctrl_of "$p")/address)"
	done
}

# fio_start NAME SECONDS: verified random writes on the multipath device
fio_start() {
	bg_start "fio-$1" fio --name="$1" --filename="$DEV" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=8 --size=32M --time_based --runtime="$2" \
		--verify=crc32c --verify_fatal=1 --verify_backlog=64 --output="$T_WORK/fio-$1.txt"
	FPID=$BG_PID
}
fio_end() {
	local rc
	kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-$1.txt"; fail "fio $1 ended early"; }
	bg_wait "fio-$1" 300; rc=$?
	grep -E '^ +(write|read):|err=' "$T_WORK/fio-$1.txt"
	[ $rc = 0 ] || { cat "$T_WORK/fio-$1.txt"; fail "fio $1 failed (rc $rc)"; }
	grep -qE 'err= *0' "$T_WORK/fio-$1.txt" || fail "fio $1 reported errors"
}

# ---- two gateways, one image, one multipath device
cfg_a optimized
cfg_b optimized
t0=$SECONDS
start A
start B
log "both gateways ready in $((SECONDS - t0)) s"
grep -h 'namespace 1' "$T_WORK/A.log" | head -2
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
log "one device $DEV, paths: A = $PA, B = $PB"
show_paths
wait_for 20 _is_ana "$PA" optimized || fail "A's path is $(ana_of "$PA"), not optimized"
wait_for 20 _is_ana "$PB" optimized || fail "B's path is $(ana_of "$PB"), not optimized"
sz=$(cat /sys/block/$HEAD/size)
[ "$sz" = $((SIZE_MB * 2048)) ] || fail "$DEV has $sz sectors, not the image's $((SIZE_MB * 2048))"
vwc=$(nvme id-ctrl "$DEV" -o json | jq .vwc)
log "size $sz sectors (the image's), VWC $vwc (librbd's cache is off)"
[ "$vwc" = 0 ] || fail "VWC is $vwc with rbd_cache = false"
SUBSYS=
for s in /sys/class/nvme-subsystem/*; do
	[ "$(cat "$s/subsysnqn")" = $NQN ] && SUBSYS=$s
done
[ -n "$SUBSYS" ] || fail "no nvme-subsystem with NQN $NQN"
echo round-robin > "$SUBSYS/iopolicy" || fail "cannot set $SUBSYS/iopolicy to round-robin"

# ---- 1. A dies; I/O continues through B; A comes back
fio_start kill 50
sleep 8
wa=$(writes A); wb=$(writes B)
log "before the kill: A has served $wa writes, B $wb"
[ "$wa" -gt 0 ] && [ "$wb" -gt 0 ] || fail "round-robin should send writes to both (A $wa, B $wb)"
t0=$SECONDS
kill -KILL "$PID_A"
wait "$PID_A" 2>/dev/null
log "SIGKILLed A (pid $PID_A)"
wait_for 30 sh -c "[ \"\$(cat /sys/class/nvme/$CA/state)\" != live ]" ||
	log "A's controller $CA still says live 30 s after the kill"
wb=$(writes B)
sleep 6
wb2=$(writes B)
log "with A dead, B served $((wb2 - wb)) writes in 6 s"
[ "$wb2" -gt "$wb" ] || fail "no writes reached B while A was dead"
kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-kill.txt"; fail "fio stopped while A was dead"; }
mv "$T_WORK/A.log" "$T_WORK/A-killed.log"
t1=$SECONDS
start A
log "A restarted (pid $PID_A) in $((SECONDS - t1)) s"
wait_for 90 _is_live_opt "$PA" || fail "A's path did not come back: $(state_of "$CA"), $(ana_of "$PA")"
log "A's path $PA is live and $(ana_of "$PA") again, $((SECONDS - t1)) s after the restart" \
	"($((SECONDS - t0)) s after the kill)"
sleep 3
wa=$(writes A)
log "the restarted A has served $wa writes"
[ "$wa" -gt 0 ] || fail "no writes reached A after it came back"
fio_end kill

# ---- 2. A's group 1 inaccessible: the host moves its I/O to B
fio_start ana 30
sleep 4
t0=$SECONDS
cfg_a inaccessible
kill -HUP "$PID_A"
wait_for_line 30 "$T_WORK/A.log" 'ANA group 1 is inaccessible' "$PID_A" || fail "A did not apply the reload"
wait_for 60 _is_ana "$PA" inaccessible || fail "A's path is $(ana_of "$PA"), not inaccessible"
log "A's path $PA is inaccessible $((SECONDS - t0)) s after SIGHUP"
sleep 1
wa=$(writes A); wb=$(writes B)
sleep 6
wa2=$(writes A); wb2=$(writes B)
log "in 6 s with A inaccessible: A served $((wa2 - wa)) writes, B $((wb2 - wb))"
[ "$wa2" = "$wa" ] || fail "A still receives writes while its group is inaccessible"
[ "$wb2" -gt "$wb" ] || fail "B received no writes while A was inaccessible"
fio_end ana
cfg_a optimized
kill -HUP "$PID_A"
wait_for 60 _is_ana "$PA" optimized || fail "A's path is $(ana_of "$PA"), not optimized again"

# ---- 3. the image grows: both gateways tell the host
NEW_MB=96
t0=$SECONDS
(unset CEPH_ARGS RBLK_RBD_ID; timeout 120 rbd resize --no-progress --size ${NEW_MB}M "$IMG") ||
	fail "rbd resize failed"
log "rbd resize to ${NEW_MB} MiB took $((SECONDS - t0)) s"
_host_size() { [ "$(cat /sys/block/$HEAD/size)" = $((NEW_MB * 2048)) ]; }
wait_for 60 _host_size || fail "the host still sees $(cat /sys/block/$HEAD/size) sectors after rbd resize"
log "the host sees $(cat /sys/block/$HEAD/size) sectors $((SECONDS - t0)) s after the resize"
grep -h 'resized' "$T_WORK/A.log" "$T_WORK/B.log"
[ "$(grep -c 'resized from' "$T_WORK/A.log")" -ge 1 ] && [ "$(grep -c 'resized from' "$T_WORK/B.log")" -ge 1 ] ||
	fail "not both gateways noticed the resize"
nsze=$(nvme id-ns "$DEV" -n 1 -o json | jq .nsze)
[ "$nsze" = $((NEW_MB * 2048)) ] || fail "Identify Namespace NSZE is $nsze"
dmesg | grep -E 'capacity change' | tail -2

# ---- 4. the data is in Ceph: written through the gateways, read back by rbd export
head -c 8M /dev/urandom > "$T_WORK/pattern"
# at the new end of the image too: the grown blocks are served
dd if="$T_WORK/pattern" of="$DEV" bs=1M oflag=direct conv=fsync status=none ||
	fail "writing the pattern at the start failed"
dd if="$T_WORK/pattern" of="$DEV" bs=1M seek=$((NEW_MB - 8)) oflag=direct conv=fsync status=none ||
	fail "writing the pattern at the end failed"
want=$(sha256sum < "$T_WORK/pattern")
timeout 60 nvme disconnect -n $NQN || fail "disconnect failed"
bg_stop A; ra=$?
bg_stop B; rb=$?
[ $ra = 0 ] && [ $rb = 0 ] || fail "the gateways exited with $ra and $rb on SIGTERM"
t0=$SECONDS
(unset CEPH_ARGS RBLK_RBD_ID; timeout 120 rbd export --no-progress "$IMG" "$T_WORK/export") ||
	fail "rbd export failed"
got0=$(head -c 8M "$T_WORK/export" | sha256sum)
got1=$(tail -c 8M "$T_WORK/export" | sha256sum)
log "rbd export of $(stat -c %s "$T_WORK/export") bytes in $((SECONDS - t0)) s;" \
	"sha256 written ${want%% *}, in Ceph at 0: ${got0%% *}, at the end: ${got1%% *}"
[ "$got0" = "$want" ] && [ "$got1" = "$want" ] || fail "Ceph does not hold what the host wrote"
cp "$T_WORK"/A*.log "$T_WORK/B.log" "$T_OUT/" 2>/dev/null
(unset CEPH_ARGS RBLK_RBD_ID; timeout 60 rbd rm --no-progress "$IMG" >/dev/null 2>&1)
log "PASS in $((SECONDS - T00)) s"
