#!/bin/bash
# 69-target-device-reset: the target's RDMA device goes away and comes back under
# running, verified I/O from the Linux host: rxe0 deleted, 3 s, added again, as a
# NIC reset, a firmware update or a driver reload does to a real port. rblk-target keeps
# running: it listens again once the address is on a device, frees what it held on the
# dead one (the poll groups' CQs, shared receives and buffer pools), and the host's own
# reconnects bring the I/O back. Checked: no I/O error and no verify failure (fio's exit
# and JSON), the I/O moves again after each reset, the target says it listens again and
# freed the old device, and its resident memory did not grow by a buffer pool per reset.
# vm-timeout: 480
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_fault.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:devreset
# One reset: Debian 12's librdmacm (rdma-core 44.0) deadlocks on the process's second
# device change (its device list is sorted by pointer differences cut to int, so a
# device added later, allocated in another thread's arena, misplaces the list and a
# refresh empties it; fixed upstream by c4a5ac8bb, in 44.12 and 52): docs/faults.md.
ROUNDS=${ROUNDS:-1}
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd python3 python3
need_cmd rdma iproute2
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
trap vm_restore_rxe EXIT

fail() {
	tail -40 "$FAULT_TLOG"; dmesg | tail -30
	# where each of the target's threads is, if it is stuck
	command -v gdb >/dev/null && [ -n "${TPID:-}" ] &&
		gdb -p $TPID -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(Thread|#)' | head -80
	rdma res show cm_id 2>/dev/null | head
	die "$*"
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
lines() { grep -c "$1" "$FAULT_TLOG"; }

truncate -s 128M "$T_WORK/disk.img"
: > "$FAULT_TLOG"
"$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" --allow-any-host \
	--log-level info >> "$FAULT_TLOG" 2>&1 &
TPID=$!
wait_for 60 grep -q 'notice: ready' "$FAULT_TLOG" || fail "the target did not start"

# The host retries every second and gives up only after 2 minutes: a reset is shorter.
dev=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" --reconnect-delay=1 \
	--ctrl-loss-tmo=120) || fail "connect failed"
fault_fio_start w "$dev"
wait_for 60 dev_written "${dev#/dev/}" 2048 || fail "fio does not write"
rss0=$(rss_kib $TPID)
log "target RSS ${rss0} KiB before the resets"

for round in $(seq $ROUNDS); do
	log "round $round: rxe0 goes away"
	# Soft-RoCE cannot take a process's objects away (no context disassociation): its
	# removal waits until rblk-target has closed everything it held on rxe0.
	rdma link delete rxe0 &
	dpid=$!
	wait_for 60 pid_gone $dpid ||
		fail "rdma link delete rxe0 still waits after 60 s: the target holds on to it"
	log "round $round: rxe0 is gone"
	# the reset's duration: the scenario, not a wait for anything
	sleep 3
	rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0 failed"
	wait_for 30 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state ||
		fail "rxe0 did not come back ACTIVE"
	t0=$SECONDS
	wait_for 30 sh -c "[ \$(grep -c 'listening on .* again' '$FAULT_TLOG') -ge $round ]" ||
		fail "round $round: the target does not listen again"
	log "round $round: the target listens again after $((SECONDS - t0)) s"
	w=$(dev_writes "${dev#/dev/}")
	wait_for 150 dev_written "${dev#/dev/}" "$w" || fail "round $round: no I/O after the reset"
	wait_for 150 dev_written "${dev#/dev/}" $((w + 4096)) ||
		fail "round $round: the I/O does not keep going"
	log "round $round: writes again $((SECONDS - t0)) s after rxe0 came back"
	kill -0 $TPID 2>/dev/null || fail "the target is gone"
done

# Every reset left a device whose queues are gone: each poll group that had one frees it.
freed=$(lines 'went away: its CQs')
[ "$freed" -ge $ROUNDS ] || fail "the target freed $freed dead devices after $ROUNDS resets"
rss1=$(rss_kib $TPID)
log "target RSS ${rss1} KiB after $ROUNDS resets ($freed device contexts freed)"
# A group's buffer pool is 16 MiB (128 x 128 KiB): one kept per reset would show.
[ $((rss1 - rss0)) -lt 16384 ] || fail "the target grew by $((rss1 - rss0)) KiB over $ROUNDS resets"
fault_fio_end w || { cat "$T_WORK/fio-w.json"; fail "fio saw an I/O error or a verify failure"; }
nvme disconnect -n $NQN >/dev/null 2>&1
kill -TERM $TPID; wait $TPID 2>/dev/null
log "ok"
