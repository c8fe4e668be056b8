#!/bin/bash
# 42-target-kato: a host that vanishes without disconnecting is cleaned up after its
# keep-alive timeout while another host keeps working. Two hosts on one rblk-target:
# the Linux host runs fio verify on namespace 1; rblk's own initiator (rblk-init-io,
# KATO 2 s, its own host NQN) loops I/O on namespace 2 and is then frozen (SIGSTOP: no
# more keep-alives, no disconnect). The target must declare its controller failed
# ("keep-alive timeout"), destroy it, and drop it from the SIGUSR1 statistics, while
# fio on the kernel host finishes without an error.
# vm-timeout: 400
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
INIT=$(rblk_bin tests/func/rblk-init-io) || exit 1
NQN=nqn.2024-01.io.rblk:kato
GONE=nqn.2024-01.io.rblk:host-that-vanishes
need_cmd nvme nvme-cli
need_cmd fio fio
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null

fail() { bg_log target; bg_log init; dmesg | tail -30; die "$*"; }
DMARK=$(dmesg | wc -l)

# stats: SIGUSR1, then the JSON block the target printed to its log (stderr), once
# the whole block is there (its closing brace)
stats() {
	local before
	before=$(nr_json_dumps "$T_WORK/target.log")
	kill -USR1 "${BG_PIDS[target]}"
	wait_for 30 json_dumps_above "$T_WORK/target.log" "$before" || fail "no statistics after SIGUSR1"
	# the last dump: from its last "discovery_genctr" line on
	awk '/"discovery_genctr"/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' \
		"$T_WORK/target.log"
}

bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:64M --ns mem:64M \
	--allow-any-host --log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"

DEV=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$DEV" ] || fail "connect failed"
KHOST=$(cat /sys/class/nvme-fabrics/ctl/nvme*/hostnqn | head -1)
log "kernel host: $KHOST"

bg_start init "$INIT" -a $VM_ADDR0 -s 4420 -w $VM_ADDR1 -n $NQN -q $GONE -N 2 \
	-m loop -t 300 -k 2 -B 4096 -d 4 -b 2048
IPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" "ctrl [0-9]+ on $NQN created for $GONE" "$TPID" ||
	fail "rblk-init-io's controller was not created"
CNT=$(grep -oE "ctrl [0-9]+ on $NQN created for $GONE" "$T_WORK/target.log" | head -1 | awk '{print $2}')
log "rblk-init-io is controller $CNT (kato 2000 ms)"
grep -qE "ctrl $CNT on $NQN created for $GONE \(kato 2000 ms\)" "$T_WORK/target.log" ||
	fail "controller $CNT does not have kato 2000 ms"
wait_for_line 60 "$T_WORK/init.log" '^loop 0: ' "$IPID" || fail "rblk-init-io did no I/O"
kill -0 $IPID 2>/dev/null || fail "rblk-init-io exited early"
s=$(stats)
echo "$s" | grep -q "\"hostnqn\":\"$GONE\"\|\"hostnqn\": \"$GONE\"" || { echo "$s"; fail "stats do not list $GONE before it vanishes"; }

# the kernel host keeps working through all of it
bg_start fio fio --name=kato --filename="$DEV" --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=8 --size=32M --time_based --runtime=40 --verify=crc32c \
	--verify_fatal=1 --verify_backlog=64 --output="$T_WORK/fio.txt"
FPID=$BG_PID
# a duration, not a wait: fio gets going, and rblk-init-io lives through more than two
# of its 2 s KATO periods before the freeze (keep-alives work: the timeout below is the
# freeze's doing, and would otherwise come too soon)
sleep 5
kill -0 $FPID 2>/dev/null || { cat fio.txt; fail "fio stopped early"; }

log "freezing rblk-init-io (SIGSTOP): no keep-alive, no disconnect"
kill -STOP $IPID
t0=$SECONDS
wait_for_line 30 "$T_WORK/target.log" "ctrl $CNT on $NQN \($GONE\): keep-alive timeout" "$TPID" ||
	fail "no keep-alive timeout for controller $CNT within 30 s"
dt=$((SECONDS - t0))
log "keep-alive timeout after ~${dt}s"
[ $dt -ge 1 ] || fail "keep-alive timeout after ${dt}s: sooner than the 2 s KATO"
wait_for_line 30 "$T_WORK/target.log" "ctrl $CNT on $NQN destroyed" "$TPID" ||
	fail "controller $CNT was not destroyed"
s=$(stats)
echo "$s" > "$T_OUT/stats-after.json" 2>/dev/null
echo "$s" | grep -q "$GONE" && { echo "$s"; fail "stats still list $GONE after its KATO"; }
echo "$s" | grep -q "$KHOST" || { echo "$s"; fail "stats no longer list the kernel host"; }
log "controller $CNT is gone from the statistics; the kernel host's is still there"
us=$(echo "$s" | grep -A3 "\"nqn\": \?\"$NQN\"" | grep -oE '"unsafe_shutdowns": ?[0-9]+' | grep -oE '[0-9]+$')
log "unsafe_shutdowns of $NQN: ${us:-?}"
[ "${us:-0}" -ge 1 ] || { echo "$s"; fail "the vanished controller did not count as an unsafe shutdown"; }

kill -KILL $IPID; kill -CONT $IPID 2>/dev/null
bg_wait init 10
bg_wait fio 120; rc=$?
cat fio.txt
[ $rc = 0 ] || fail "fio on the kernel host failed (rc $rc) while the other host vanished"
grep -qE 'err= *0' fio.txt || fail "fio reported errors"
dmesg | tail -n +$((DMARK + 1)) | grep -E 'nvme[0-9]+: (resetting|Reconnecting|I/O .* timeout)' &&
	fail "the kernel host reset or timed out"

timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"
bg_stop target; rc=$?
cp "$T_WORK/target.log" "$T_OUT/" 2>/dev/null
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
log "PASS"
