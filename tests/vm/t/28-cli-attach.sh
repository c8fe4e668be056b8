#!/bin/bash
# 28-cli-attach: `rblk attach --nbd` makes an rblk-target namespace /dev/nbdN (NBD over netlink,
# two connections, from 10.99.0.2): mkfs.ext4, mount, write files, unmount, fsck clean,
# mount again and verify every file; data written through the device is what `rblk read`
# reads from the target; `rblk detach` ends it and the attach process exits 0. Then an
# attach --daemon ended by SIGTERM; the target stopped and restarted under a waiting read
# (it completes), and stopped for longer than --ctrl-loss-tmo (I/O fails, no hang); and a
# read-only namespace.
# vm-timeout: 1200
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
need_cmd jq jq
need_cmd mkfs.ext4 e2fsprogs
NQN=nqn.2024-01.io.rblk:attach
C="-t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1"
modprobe nbd nbds_max=4 || die "modprobe nbd failed"

start_target() {
	bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" \
		--ns "$T_WORK/ro.img,ro" --allow-any-host
	wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "rblk-target did not start"
}
fail() { bg_log target; [ -n "${BG_PIDS[attach]:-}" ] && bg_log attach; dmesg | tail -30; die "$*"; }

truncate -s 256M "$T_WORK/disk.img"
truncate -s 16M "$T_WORK/ro.img"
# RBLK_CLI_TARGET=kernel runs the same against nvmet-rdma instead (ns 2 made read-only by
# nvmet's own means is not possible: the read-only part is skipped then)
if [ "${RBLK_CLI_TARGET:-rblk}" = kernel ]; then
	nvmet_setup_rdma_port 1 $VM_ADDR0 4420
	nvmet_add_subsystem $NQN "$T_WORK/disk.img"
	nvmet_expose $NQN 1
	bg_start target sleep 100000
else
	start_target
fi

# ---- foreground attach, ext4, detach
bg_start attach "$RBLK" attach $C --nbd -N 1 --connections 2 -o json
wait_for_line 120 "$T_WORK/attach.log" '"device"' "$BG_PID" || fail "attach printed no device"
dev=$(grep -o '"/dev/nbd[0-9]*"' attach.log | tr -d '"')
grep -q '"driver": "nbd"' attach.log || fail "the attach JSON does not say driver nbd"
[ -b "$dev" ] || fail "$dev is not a block device"
idx=${dev#/dev/nbd}
[ "$(blockdev --getsize64 "$dev")" = $((256 << 20)) ] || fail "$dev has the wrong size"
grep -q "rblk:rdma:$VM_ADDR0:4420:$NQN:ns1" /sys/block/nbd$idx/backend 2>/dev/null ||
	log "note: no backend identifier in sysfs (older kernel?)"
log "attached as $dev ($(cat /sys/block/nbd$idx/size) sectors)"

mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 on $dev failed"
mkdir -p mnt
mount "$dev" mnt || fail "mount $dev failed"
for i in 1 2 3; do
	head -c $((5 << 20)) /dev/urandom > mnt/big$i || fail "writing big$i failed"
done
mkdir mnt/dir
for i in $(seq 1 50); do echo "file $i $RANDOM" > mnt/dir/f$i; done
(cd mnt && find . -type f | sort | xargs sha256sum) > sums.txt
sync
umount mnt || fail "umount failed"
fsck.ext4 -fn "$dev" > fsck.txt 2>&1 || { cat fsck.txt; fail "fsck.ext4 found problems"; }
mount "$dev" mnt || fail "second mount failed"
(cd mnt && sha256sum -c --quiet ../sums.txt) || fail "files differ after remount"
umount mnt || fail "second umount failed"
log "ext4 on $dev: 15 MiB + 50 files written, fsck clean, contents verified"

# a pattern through the block device is what rblk reads from the target
head -c $((1 << 20)) /dev/urandom > pat.bin
dd if=pat.bin of="$dev" bs=1M seek=200 oflag=direct conv=fsync status=none || fail "dd to $dev failed"

timeout 60 "$RBLK" detach "$dev" || fail "rblk detach $dev failed"
bg_wait attach 60 || fail "the attach process did not exit 0 after detach"
[ -e /sys/block/nbd$idx/pid ] && fail "$dev is still connected"
bg_log attach
timeout 120 "$RBLK" read $C -N 1 --offset 200M --length 1M -d got.bin || fail "rblk read failed"
cmp pat.bin got.bin || fail "rblk reads something else than was written through $dev"
log "detached; what went through $dev is on the target"

# ---- --daemon, ended by SIGTERM
timeout 120 "$RBLK" attach $C --nbd -N 1 --daemon > daemon.txt || fail "attach --daemon failed"
dev=$(head -1 daemon.txt)
idx=${dev#/dev/nbd}
[ -b "$dev" ] || fail "attach --daemon printed '$dev'"
pid=$(cat /sys/block/nbd$idx/pid) || fail "no pid for $dev"
dd if="$dev" of=/dev/null bs=1M count=8 iflag=direct status=none || fail "reading $dev failed"
kill -TERM "$pid"
wait_for 60 sh -c "! kill -0 $pid" || fail "the attach daemon did not exit on SIGTERM"
[ -e /sys/block/nbd$idx/pid ] && fail "$dev still connected after SIGTERM"
log "attach --daemon as $dev: SIGTERM detached it"

if [ "${RBLK_CLI_TARGET:-rblk}" = kernel ]; then
	bg_stop target
	log "kernel target: target restart and read-only parts skipped"
	exit 0
fi

# ---- the target goes away and comes back: I/O waits, then completes
bg_start attach "$RBLK" attach $C --nbd -N 1 -c 1 -l 120
wait_for_line 120 "$T_WORK/attach.log" '^/dev/nbd' "$BG_PID" || fail "attach printed no device"
dev=$(grep -m1 '^/dev/nbd' attach.log)
head -c $((1 << 20)) /dev/urandom > pat2.bin
dd if=pat2.bin of="$dev" bs=1M seek=100 oflag=direct conv=fsync status=none || fail "dd to $dev failed"
bg_stop target || fail "rblk-target did not stop"
log "target stopped; reading $dev while it is away"
dd if="$dev" of=r2.bin bs=1M skip=100 count=1 iflag=direct status=none &
ddpid=$!
# a duration, not a wait: the read must still be waiting after these 5 s (a read that
# fails at once would have ended)
sleep 5
kill -0 $ddpid 2>/dev/null || fail "the read did not wait for the target"
start_target
log "target back"
wait_for 120 pid_gone $ddpid || fail "the read still waits 120 s after the target came back"
wait $ddpid || fail "the read failed after the target came back"
cmp pat2.bin r2.bin || fail "read after reconnect differs"
timeout 60 "$RBLK" detach "$dev" || fail "detach after reconnect failed"
bg_wait attach 60 || fail "attach did not exit 0"
log "reconnect: a read issued while the target was away completed after it returned"

# ---- the target stays away beyond --ctrl-loss-tmo: I/O fails with EIO, no hang
bg_start attach "$RBLK" attach $C --nbd -N 1 -c 1 -l 5
wait_for_line 120 "$T_WORK/attach.log" '^/dev/nbd' "$BG_PID" || fail "attach printed no device"
dev=$(grep -m1 '^/dev/nbd' attach.log)
bg_stop target || fail "rblk-target did not stop"
timeout 120 dd if="$dev" of=/dev/null bs=4k skip=12345 count=1 iflag=direct status=none
rc=$?
[ $rc = 124 ] && fail "I/O hung after ctrl-loss-tmo"
[ $rc = 0 ] && fail "I/O succeeded with the target gone"
log "after ctrl-loss-tmo the read failed (dd exit $rc), no hang"
timeout 60 "$RBLK" detach "$dev" || log "note: detach after loss: exit $?"
bg_stop attach 60
start_target

# ---- a write-protected namespace is a read-only device
bg_start attach "$RBLK" attach $C --nbd -N 2
wait_for_line 120 "$T_WORK/attach.log" '^/dev/nbd' "$BG_PID" || fail "attach of ns 2 printed no device"
dev=$(grep -m1 '^/dev/nbd' attach.log)
[ "$(blockdev --getro "$dev")" = 1 ] || fail "$dev is not read-only"
dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct status=none || fail "reading read-only $dev failed"
dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct status=none 2>/dev/null && fail "writing read-only $dev worked"
bg_stop attach 60 || fail "attach did not stop cleanly on SIGTERM"
log "namespace 2 (ro) attached read-only"

bg_stop target || fail "rblk-target did not stop cleanly"
