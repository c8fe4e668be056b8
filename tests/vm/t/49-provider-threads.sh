#!/bin/bash
# 49-provider-threads: the target library with its own threads (2 poll groups) and an
# embedder's provider that completes every io from worker threads of its own, late and
# out of order (tests/func/thread_provider.c): the Linux host connects over two I/O
# queues, fio verifies at QD1 and QD32 with mixed sizes from two jobs, write zeroes
# (emulated by the target with writes: the provider cannot zero) reads back as zeroes,
# ext4 on it survives unmount/mount, and SIGTERM with the host connected stops it with
# the provider closed once.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

NQN=nqn.2026-01.io.rblk:threads
need_cmd nvme nvme-cli
need_cmd fio fio
TP=$(rblk_bin tests/func/thread_provider) || exit 1

fail() { bg_log tp; dmesg | tail -30; die "$*"; }

bg_start tp "$TP" $VM_ADDR0 $NQN 96 2
wait_for_line 60 "$T_WORK/tp.log" "serving $NQN" "$BG_PID" || fail "thread_provider did not start"
dev=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1 -i 2 | tail -1)
[ -b "$dev" ] || fail "connect failed"
[ "$(cat /sys/block/${dev#/dev/}/queue/logical_block_size)" = 4096 ] ||
	fail "the host does not see 4 KiB blocks"

fio_verify qd1 "$dev" --bs=4k --iodepth=1 --size=2M
fio_verify qd32 "$dev" --bssplit=4k/40:16k/20:64k/20:128k/20 --iodepth=32 --numjobs=2 \
	--size=8M --offset_increment=16M

head -c 1048576 /dev/urandom > "$T_WORK/pat"
dd if="$T_WORK/pat" of="$dev" bs=1M seek=40 oflag=direct status=none || fail "dd write"
blkdiscard -z -o $((40 << 20)) -l $((1 << 20)) "$dev" || fail "blkdiscard -z failed"
dd if="$dev" of="$T_WORK/back" bs=1M skip=40 count=1 iflag=direct status=none
cmp -s "$T_WORK/back" <(head -c 1048576 /dev/zero) || fail "write zeroes did not zero"

mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 failed"
mkdir -p "$T_WORK/mnt" && mount "$dev" "$T_WORK/mnt" || fail "mount failed"
cp "$T_WORK/pat" "$T_WORK/mnt/pat" && sync || fail "copy to ext4 failed"
umount "$T_WORK/mnt" && mount "$dev" "$T_WORK/mnt" || fail "remount failed"
cmp -s "$T_WORK/pat" "$T_WORK/mnt/pat" || fail "the file changed across unmount/mount"
umount "$T_WORK/mnt"

bg_stop tp; rc=$?
nvme disconnect -n $NQN >/dev/null 2>&1
[ $rc = 0 ] || fail "thread_provider exited with $rc on SIGTERM"
grep -E 'stopped: [1-9][0-9]* ios from provider threads, provider closed 1 time' "$T_WORK/tp.log" ||
	fail "no clean stop line"
log "PASS"
