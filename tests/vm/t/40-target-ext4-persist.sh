#!/bin/bash
# 40-target-ext4-persist: data written through the Linux host to rblk-target survives
# a target restart. ext4 on /dev/nvmeXnY, a tree of files (hundreds of small ones and a
# few MiB-sized ones) with sha256sums, sync, unmount, disconnect, SIGTERM (exit 0);
# start the target again on the same backing file (itself on ext4 on a loop device,
# O_DIRECT), reconnect: fsck -fn is clean and every file is byte-identical.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:persist
need_cmd nvme nvme-cli
need_cmd mkfs.ext4 e2fsprogs
need_cmd sha256sum coreutils
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null

fail() { bg_log target; dmesg | tail -30; die "$*"; }
DMARK=$(dmesg | wc -l)

# The backing file lives on ext4 on a loop device (a real filesystem, O_DIRECT).
modprobe loop 2>/dev/null
truncate -s 200M "$T_WORK/back.img"
LOOP=$(losetup -f --show "$T_WORK/back.img") || die "losetup failed"
mkfs.ext4 -q "$LOOP" || die "mkfs.ext4 on $LOOP failed"
mkdir -p "$T_WORK/back" && mount "$LOOP" "$T_WORK/back" || die "mount $LOOP failed"
fallocate -l 128M "$T_WORK/back/disk.img" || die "fallocate failed"

start_target() {
	bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/back/disk.img" \
		--allow-any-host --log-level info
	wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$BG_PID" || fail "the target did not start"
}
stop_target() {
	local tag=$1 rc
	bg_stop target 30; rc=$?
	cp "$T_WORK/target.log" "$T_OUT/target-$tag.log" 2>/dev/null
	[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM ($tag)"
	grep -q 'notice: stopped' "$T_WORK/target.log" || fail "no 'stopped' line ($tag)"
	mv "$T_WORK/target.log" "$T_WORK/target-$tag.log"
}
disconnect() {
	local out
	out=$(timeout 60 nvme disconnect -n $NQN) || fail "nvme disconnect failed"
	echo "$out" | grep -q 'disconnected 1 controller' || fail "disconnect: $out"
}

# ---- first life: mkfs, write a tree
start_target
DEV=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$DEV" ] || fail "connect failed"
timeout 120 mkfs.ext4 -q -F "$DEV" || fail "mkfs.ext4 $DEV failed"
mkdir -p "$T_WORK/mnt" && mount "$DEV" "$T_WORK/mnt" || fail "mount $DEV failed"
log "writing the tree"
M=$T_WORK/mnt
for d in $(seq 0 9); do
	mkdir -p "$M/d$d/sub"
	for f in $(seq 0 29); do
		head -c $(( (d * 30 + f) * 97 + 1 )) /dev/urandom > "$M/d$d/f$f"
	done
	head -c 4096 /dev/urandom > "$M/d$d/sub/page"
done
for i in 1 2 3; do head -c $((i * 1024 * 1024 + 123)) /dev/urandom > "$M/big$i"; done
dd if=/dev/urandom of="$M/big8" bs=1M count=8 status=none || fail "dd big8"
ln -s d0/f1 "$M/link"
(cd "$M" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$T_WORK/sums" ||
	fail "sha256sum of the tree failed"
nfiles=$(wc -l < "$T_WORK/sums")
log "$nfiles files, $(du -sm "$M" | cut -f1) MiB"
[ "$nfiles" -ge 300 ] || fail "only $nfiles files written"
sync
umount "$M" || fail "umount failed"
disconnect
stop_target first
grep -E ': (err|warn): ' "$T_WORK/target-first.log" && fail "errors or warnings in the first target log"

# ---- second life: same backing file, fresh process
start_target
DEV=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$DEV" ] || fail "reconnect failed"
timeout 180 fsck.ext4 -fn "$DEV" > "$T_WORK/fsck.txt" 2>&1; rc=$?
cat "$T_WORK/fsck.txt"
[ $rc = 0 ] || fail "fsck -fn $DEV exited with $rc (not clean)"
mount "$DEV" "$M" || fail "mount after restart failed"
(cd "$M" && sha256sum --quiet -c "$T_WORK/sums") || fail "files differ after the restart"
[ "$(readlink "$M/link")" = d0/f1 ] || fail "the symlink did not survive"
n2=$(find "$M" -type f | wc -l)
[ "$n2" = "$nfiles" ] || fail "$n2 files after the restart, $nfiles before"
log "all $nfiles files byte-identical after the restart"
umount "$M" || fail "umount failed"
disconnect
stop_target second
umount "$T_WORK/back"
losetup -d "$LOOP"
# Not a failure (the data survived), but never expected on a healthy link: say so loudly.
n=$(dmesg | tail -n +$((DMARK + 1)) | grep -c 'starting error recovery')
[ "$n" = 0 ] || { dmesg | tail -n +$((DMARK + 1)) | grep -E 'rxe|error recovery|MEMREG|Reconnect' | head;
	log "NOTE: the kernel host went through error recovery $n time(s) during this test"; }
log "PASS"
