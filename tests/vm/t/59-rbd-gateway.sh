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
#   4. what the host wrote is read back from Ceph with "rbd export" (after the
#      targets stop) and compared;
#   5. (before they stop) one NVMe reservation through both: two host identities, one
#      through A, one through B; a registration made through A is reported through B,
#      a preempt and abort through B makes the old holder's writes through A end with
#      Reservation Conflict (the delay is printed), and A restarted reads it back;
#      then bench/cw_race: two clients, one through each gateway, race fused Compare
#      and Write on one block for 1000 rounds: never two winners in a round.
# The gateways (tests/vm/lib_rbd.sh, shared with 60-rbd-gateway-rblk) run as
# client.rblk with librbd's cache off, on a layering-only image. Timings are logged,
# never asserted.
# vm-timeout: 540
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_mpath.sh" || exit 1
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_rbd.sh" || exit 1

NQN=$ANA_NQN
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mp=$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null) ||
	skip "this kernel's nvme_core has no multipath parameter (built without CONFIG_NVME_MULTIPATH)"
[ "$mp" = Y ] || skip "nvme_core.multipath is $mp: the host would not join the two paths"
T00=$SECONDS
mkdir -p "$T_OUT" 2>/dev/null
SIZE_MB=64
rbd_gw_image gw59 $SIZE_MB

fail() {
	bg_log A; bg_log B
	nvme list-subsys 2>&1
	dmesg | grep -vE 'QID [0-9]+ timeout|requeuing' | tail -40
	die "$*"
}


# ---- two gateways, one image, one multipath device
ana_cfg A optimized
ana_cfg B optimized
t0=$SECONDS
ana_start A
ana_start B
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
_both_wrote() { ana_wrote A 0 && ana_wrote B 0; }
fio_bg_verify kill "$DEV"
# the kill comes under I/O on both paths: once both gateways have served writes
wait_for 60 _both_wrote
wa=$(ana_writes A); wb=$(ana_writes B)
log "before the kill: A has served $wa writes, B $wb"
[ "$wa" -gt 0 ] && [ "$wb" -gt 0 ] || fail "round-robin should send writes to both (A $wa, B $wb)"
t0=$SECONDS
kill -KILL "$PID_A"
wait "$PID_A" 2>/dev/null
log "SIGKILLed A (pid $PID_A)"
wait_for 30 sh -c "[ \"\$(cat /sys/class/nvme/$CA/state)\" != live ]" ||
	log "A's controller $CA still says live 30 s after the kill"
wb=$(ana_writes B)
t2=$SECONDS
wait_for 60 ana_wrote B "$wb"
wb2=$(ana_writes B)
log "with A dead, B served $((wb2 - wb)) writes in $((SECONDS - t2)) s"
[ "$wb2" -gt "$wb" ] || fail "no writes reached B while A was dead"
kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-kill.txt"; fail "fio stopped while A was dead"; }
mv "$T_WORK/A.log" "$T_WORK/A-killed.log"
t1=$SECONDS
ana_start A
log "A restarted (pid $PID_A) in $((SECONDS - t1)) s"
wait_for 90 _is_live_opt "$PA" || fail "A's path did not come back: $(nvme_ctrl_state "$CA"), $(ana_of "$PA")"
log "A's path $PA is live and $(ana_of "$PA") again, $((SECONDS - t1)) s after the restart" \
	"($((SECONDS - t0)) s after the kill)"
wait_for 60 ana_wrote A 0
wa=$(ana_writes A)
log "the restarted A has served $wa writes"
[ "$wa" -gt 0 ] || fail "no writes reached A after it came back"
fio_bg_end kill

# ---- 2. A's group 1 inaccessible: the host moves its I/O to B
wa=$(ana_writes A)
fio_bg_verify ana "$DEV"
# A's group changes under I/O: once this fio's writes reach A
wait_for 60 ana_wrote A "$wa" || fail "fio's writes do not reach A before its group changes"
t0=$SECONDS
ana_cfg A inaccessible
kill -HUP "$PID_A"
wait_for_line 30 "$T_WORK/A.log" 'ANA group 1 is inaccessible' "$PID_A" || fail "A did not apply the reload"
wait_for 60 _is_ana "$PA" inaccessible || fail "A's path is $(ana_of "$PA"), not inaccessible"
log "A's path $PA is inaccessible $((SECONDS - t0)) s after SIGHUP"
# durations, not waits: 1 s for the commands in flight on A when its group changed
# (refused, retried through B), then a 6 s window in which A must receive nothing
sleep 1
wa=$(ana_writes A); wb=$(ana_writes B)
sleep 6
wa2=$(ana_writes A); wb2=$(ana_writes B)
log "in 6 s with A inaccessible: A served $((wa2 - wa)) writes, B $((wb2 - wb))"
[ "$wa2" = "$wa" ] || fail "A still receives writes while its group is inaccessible"
[ "$wb2" -gt "$wb" ] || fail "B received no writes while A was inaccessible"
fio_bg_end ana
ana_cfg A optimized
kill -HUP "$PID_A"
wait_for 60 _is_ana "$PA" optimized || fail "A's path is $(ana_of "$PA"), not optimized again"

# ---- 3. the image grows: both gateways tell the host
NEW_MB=96
t0=$SECONDS
rbd_admin resize --no-progress --size ${NEW_MB}M "$RBD_IMG" ||
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

# ---- 5. one reservation across both gateways (its state in a RADOS object)
# Two hosts, each through one gateway: host 1 through A, host 2 through B; each
# host's commands go through its own controller's char device, as in 65-target-resv.
H1=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000f1
H2=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000f2
ID1=00000000-0000-4000-8000-0000000000f1
ID2=00000000-0000-4000-8000-0000000000f2
X1=${ID1//-/}; X2=${ID2//-/}
# hctrl HOSTNQN: that host's controller (nvmeX) of $NQN
hctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] &&
			[ "$(cat "$c/hostnqn" 2>/dev/null)" = "$1" ] && echo "${c##*/}"
	done
}
report() { nvme resv-report "/dev/$1" -n 1 --eds -o json; }
# resv_is C RTYPE REGS: C's report has type RTYPE and registrants REGS (hostid:rkey:rcsts)
resv_is() {
	local j
	j=$(report "$1") || return 1
	[ "$(jq -r .rtype <<< "$j")" = "$2" ] &&
		[ "$(jq -r '[(.regctlext // [])[] | "\(.hostid):\(.rkey):\(.rcsts)"] | sort | join(" ")' <<< "$j")" = "$3" ]
}
# wr C: one 512-byte write at 32 MiB (clear of the pattern) through controller C
wr() {
	nvme io-passthru "/dev/$1" --opcode=0x01 --namespace-id=1 --data-len=512 \
		--cdw10=65536 --cdw11=0 --cdw12=0 -w -i "$T_WORK/block" > "$T_WORK/io.txt" 2>&1
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
head -c 512 /dev/urandom > "$T_WORK/block"
CONN=(--reconnect-delay=1 --ctrl-loss-tmo=60)
nvme connect -t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -q $H1 -I $ID1 "${CONN[@]}" >/dev/null ||
	fail "connect as host 1 to A"
nvme connect -t rdma -a $VM_ADDR0 -s 4421 -n $NQN -w $VM_ADDR1 -q $H2 -I $ID2 "${CONN[@]}" >/dev/null ||
	fail "connect as host 2 to B"
C1=$(hctrl $H1); C2=$(hctrl $H2)
[ -n "$C1" ] && [ -n "$C2" ] && [ "$C1" != "$C2" ] || fail "controllers: host 1 '$C1', host 2 '$C2'"
log "host 1 through A: $C1, host 2 through B: $C2"
resv_is $C1 0 "" || { report $C1; fail "a reservation before any registration"; }
t0=$(now_ms)
for i in $(seq 20); do
	nvme resv-register /dev/$C1 -n 1 --nrkey=0xC1 --rrega=0 >/dev/null &&
		nvme resv-register /dev/$C1 -n 1 --crkey=0xC1 --rrega=1 >/dev/null ||
		fail "register/unregister pair $i through A"
done
log "20 register/unregister pairs through A: $(( $(now_ms) - t0 )) ms (each one a RADOS write and notify)"
nvme resv-register /dev/$C1 -n 1 --nrkey=0xA1 --rrega=0 || fail "host 1 registers through A"
nvme resv-acquire /dev/$C1 -n 1 --crkey=0xA1 --rtype=1 --racqa=0 || fail "host 1 acquires through A"
t0=$(now_ms)
wait_for 10 resv_is $C2 1 "$X1:161:1" || { report $C2; fail "B does not report host 1's registration and reservation"; }
log "B reports host 1's reservation made through A (seen $(( $(now_ms) - t0 )) ms after the acquire completed)"
wr $C1 || { cat "$T_WORK/io.txt"; fail "host 1's write through A (holder)"; }
nvme resv-register /dev/$C2 -n 1 --nrkey=0xB2 --rrega=0 || fail "host 2 registers through B"
nvme resv-acquire /dev/$C2 -n 1 --crkey=0xB2 --prkey=0xA1 --rtype=1 --racqa=2 ||
	fail "host 2's preempt and abort through B"
t0=$(now_ms); n=0
until ! wr $C1 && grep -qi 'reservation.conflict' "$T_WORK/io.txt"; do
	n=$((n + 1))
	[ $(( $(now_ms) - t0 )) -lt 10000 ] || { cat "$T_WORK/io.txt"; fail "host 1's writes through A still pass 10 s after the preempt through B"; }
done
log "host 1's write through A: Reservation Conflict $(( $(now_ms) - t0 )) ms after the preempt through B completed ($n writes passed before)"
wr $C2 || { cat "$T_WORK/io.txt"; fail "host 2's write through B (holder)"; }
resv_is $C1 1 "$X2:178:1" || { report $C1; fail "A does not report host 2's reservation"; }
# A restarts (cleanly): it reads the state back from the cluster
bg_stop A || fail "A did not stop cleanly"
mv "$T_WORK/A.log" "$T_WORK/A-resv.log"
t0=$SECONDS
ana_start A
_c1_live() { [ "$(nvme_ctrl_state "$C1")" = live ]; }
wait_for 60 _c1_live || fail "host 1 did not reconnect to the restarted A"
log "host 1 reconnected to the restarted A in $((SECONDS - t0)) s"
grep -h 'reservation restored' "$T_WORK/A.log"
resv_is $C1 1 "$X2:178:1" || { report $C1; fail "the restarted A does not report host 2's reservation"; }
wr $C1 && fail "host 1's write through the restarted A passed"
grep -qi 'reservation.conflict' "$T_WORK/io.txt" || { cat "$T_WORK/io.txt"; fail "host 1's write through the restarted A: not Reservation Conflict"; }
nvme resv-release /dev/$C2 -n 1 --crkey=0xB2 --rrela=1 || fail "host 2 clears through B"
wait_for 10 resv_is $C1 0 "" || { report $C1; fail "A still reports a reservation after the clear through B"; }
log "reservations across the gateways: done"
# Compare and Write raced through both gateways: librbd's compare-and-write, which the
# cluster makes atomic across them, never lets two clients win one round.
CW=$(rblk_bin bench/cw_race) || exit 1
t0=$SECONDS
"$CW" -n $NQN -q $H1 -I $ID1 -w $VM_ADDR1 -a $VM_ADDR0 -s 4420 -a $VM_ADDR0 -s 4421 \
	--rounds 1000 --lba 65600 --json "$T_OUT/cw_race.json" ||
	fail "Compare and Write raced through the two gateways"
log "cw_race through A and B: $(jq -c . "$T_OUT/cw_race.json") ($((SECONDS - t0)) s)"
timeout 60 nvme disconnect -n $NQN >/dev/null || fail "disconnecting the two hosts failed"
bg_stop A; ra=$?
bg_stop B; rb=$?
[ $ra = 0 ] && [ $rb = 0 ] || fail "the gateways exited with $ra and $rb on SIGTERM"
t0=$SECONDS
rbd_admin export --no-progress "$RBD_IMG" "$T_WORK/export" ||
	fail "rbd export failed"
got0=$(head -c 8M "$T_WORK/export" | sha256sum)
got1=$(tail -c 8M "$T_WORK/export" | sha256sum)
log "rbd export of $(stat -c %s "$T_WORK/export") bytes in $((SECONDS - t0)) s;" \
	"sha256 written ${want%% *}, in Ceph at 0: ${got0%% *}, at the end: ${got1%% *}"
[ "$got0" = "$want" ] && [ "$got1" = "$want" ] || fail "Ceph does not hold what the host wrote"
cp "$T_WORK"/A*.log "$T_WORK/B.log" "$T_OUT/" 2>/dev/null
rbd_admin rm --no-progress "$RBD_IMG" >/dev/null 2>&1
log "PASS in $((SECONDS - T00)) s"
