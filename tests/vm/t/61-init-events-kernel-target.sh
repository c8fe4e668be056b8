#!/bin/bash
# 61-init-events-kernel-target: rblk's initiator acting on the Linux target's asynchronous
# events. nvmet exports one file as namespace 1 of one subsystem on two ports
# (10.99.0.1:4420 and :4421, each with its ANA group 1); `rblk attach --nbd` holds both
# paths (multipath head, NBD device). With no I/O running (so that no ANA status on an
# I/O can be what tells the host):
#   1. port 4420's group made inaccessible through configfs: the attach process logs the
#      controller's ANA change notice and path 0 inaccessible, and a verified fio then
#      runs with its writes on path 1; optimized again: path 0 optimized again;
#   2. the backing file grown and `revalidate_size` written: the namespace-changed notice
#      makes the attach process re-read the namespace, the multipath head takes the new
#      size, /dev/nbdN grows with it (NBD_CMD_RECONFIGURE), and a verified fio writes
#      the new 32 MiB past the old end.
# Without asynchronous events the head would see an ANA change only at its next poll
# (30 s for a controller that says it sends notices) and a resize never.
# vm-timeout: 420
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk) || exit 1
need_cmd fio fio
modprobe nbd nbds_max=4 || die "modprobe nbd failed"
NQN=nqn.2024-01.io.rblk:init-events
IMG=$T_WORK/events.img
truncate -s 64M "$IMG"
LOG=$T_WORK/attach.log

fail() {
	[ -n "${BG_PIDS[attach]:-}" ] && bg_log attach
	dmesg | tail -20
	die "$*"
}

ana_state() { echo "$2" > "$NVMET_CFS/ports/$1/ana_groups/1/ana_state" || fail "ana_state $2 on port $1"; }

# more_lines SECONDS REGEX N: wait until the attach log has more than N lines matching REGEX
more_lines() {
	local end=$((SECONDS + $1))
	while [ "$(grep -cE -- "$2" "$LOG")" -le "$3" ]; do
		kill -0 "$BG_PID" 2>/dev/null || return 1
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_setup_rdma_port 2 $VM_ADDR0 4421
nvmet_add_subsystem $NQN "$IMG"
nvmet_expose $NQN 1
nvmet_expose $NQN 2

bg_start attach env RBLK_LOG_LEVEL=info "$RBLK" attach --nbd -t rdma -a $VM_ADDR0 -s 4420 \
	-a $VM_ADDR0 -s 4421 -n $NQN -N 1 -w $VM_ADDR1 -c 1 -l 60 -o json
wait_for_line 120 "$LOG" '"device"' "$BG_PID" || fail "attach printed no device"
DEV=$(grep -o '"/dev/nbd[0-9]*"' "$LOG" | tr -d '"')
[ -b "$DEV" ] || fail "$DEV is not a block device"
log "attached $DEV over two paths to nvmet"

# ---- 1. ANA change notices, no I/O running
OPT='path 0 \(.*\): ANA group 1 optimized'
NOTICE='reports an ANA change'
opt=$(grep -cE -- "$OPT" "$LOG")	# the state read at connect
t0=$SECONDS
ana_state 1 inaccessible
more_lines 20 "$NOTICE" 0 || fail "no ANA change notice reached the initiator within 20 s"
wait_for_line 20 "$LOG" 'path 0 \(.*\): ANA group 1 inaccessible' "$BG_PID" ||
	fail "path 0 not seen inaccessible after the notice"
log "port 4420 inaccessible: seen by the idle initiator after $((SECONDS - t0)) s"
fio_verify inaccessible "$DEV" --bs=4k --iodepth=8 --size=8M
n=$(grep -c -- "$NOTICE" "$LOG")
t0=$SECONDS
ana_state 1 optimized
more_lines 20 "$OPT" "$opt" || fail "path 0 not seen optimized again within 20 s"
[ "$(grep -c -- "$NOTICE" "$LOG")" -gt "$n" ] || fail "path 0 came back without a notice"
log "port 4420 optimized again: seen after $((SECONDS - t0)) s"

# ---- 2. a resize: the namespace-changed notice
truncate -s 96M "$IMG"
echo 1 > "$NVMET_CFS/subsystems/$NQN/namespaces/1/revalidate_size" ||
	fail "revalidate_size is not writable"
wait_for_line 30 "$LOG" 'namespace 1 resized: [0-9]+ -> [0-9]+ blocks' "$BG_PID" ||
	fail "the initiator did not take the new size (namespace-changed notice)"
line=$(grep -m1 -oE 'namespace 1 resized: [0-9]+ -> [0-9]+' "$LOG")
read -r from to <<< "$(echo "$line" | grep -oE '[0-9]+ -> [0-9]+' | tr -d '>-')"
log "resize 64M -> 96M seen: $line"
[ $((from * 3)) = $((to * 2)) ] || fail "the new size is not 1.5x the old one ($line)"
wait_for_line 10 "$LOG" "multipath: namespace 1 resized: $from -> $to blocks" "$BG_PID" ||
	fail "the multipath head kept the old size"
# the attach process looks at the size once a second
wait_for_line 10 "$LOG" "${DEV#/dev/}: resized with the namespace: $((64 << 20)) -> $((96 << 20)) bytes" \
	"$BG_PID" || fail "the attach process did not resize $DEV"
wait_for 10 sh -c "[ \"\$(blockdev --getsize64 $DEV)\" = $((96 << 20)) ]" ||
	fail "$DEV is $(blockdev --getsize64 "$DEV") bytes, not $((96 << 20))"
log "$DEV grew to 96 MiB"
fio_verify grown "$DEV" --bs=64k --iodepth=8 --offset=64M --size=32M

"$RBLK" detach "$DEV" || fail "rblk detach $DEV failed"
bg_wait attach 60 || fail "the attach process did not exit 0 after detach"
grep -E '^path [01]:' "$LOG" | sed 's/^/  /'
grep -q '^path 1: .* [1-9][0-9]* I/Os' "$LOG" ||
	fail "path 1 carried no I/O while path 0 was inaccessible"
cp "$LOG" "$T_OUT/" 2>/dev/null
log "PASS"
