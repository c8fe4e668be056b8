#!/bin/bash
# 51-cli-attach-ublk: `rblk attach --ublk` makes a namespace /dev/ublkbN (two queues, from
# 10.99.0.2), against rblk-target and then against the kernel's nvmet-rdma: mkfs.ext4,
# files written, unmount, fsck clean, mount again and every file verified; a fio verify
# on the device; `rblk detach` ends it (the attach exits 0, /dev/ublkbN and /dev/ublkcN
# go). Then the attach process is killed (-9) under a running fio: fio must end within
# a bound with errors (no hung task, nothing "blocked for more than" in dmesg) and
# /dev/ublkbN must go; the stale device (/dev/ublkcN stays) is deleted by the next
# attach (rblk-target round) or by `rblk detach` (nvmet round), and attaching works again.
# With rblk-target also: a write-protected namespace is a read-only device, and with the
# target gone beyond --ctrl-loss-tmo I/O fails instead of hanging.
# Skips on kernels without ublk (Debian 12's 6.1): RBLK_VM_KERNEL=6.12 runs it.
# vm-timeout: 1800
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
need_cmd jq jq
need_cmd mkfs.ext4 e2fsprogs
need_cmd fio fio
[ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null
[ -e /dev/ublk-control ] || skip "no ublk in kernel $(uname -r) (needs CONFIG_BLK_DEV_UBLK: RBLK_VM_KERNEL=6.12)"
NQN=nqn.2024-01.io.rblk:ublk
C="-t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1"

fail() {
	bg_log target
	for n in attach attach2 attach3; do [ -f "$T_WORK/$n.log" ] && bg_log $n; done
	dmesg | tail -40
	die "$*"
}

hung_tasks() { dmesg | grep -q 'blocked for more than'; }

# attach_bg NAME ARGS...: start an attach, wait for its device, set $dev and $idx
attach_bg() {
	local name=$1; shift
	bg_start $name "$RBLK" attach $C -N 1 --ublk "$@"
	wait_for_line 120 "$T_WORK/$name.log" '^/dev/ublkb|"device"' "$BG_PID" || fail "$name printed no device"
	dev=$(grep -oE '/dev/ublkb[0-9]+' "$T_WORK/$name.log" | head -1)
	idx=${dev#/dev/ublkb}
	wait_for 10 test -b "$dev" || fail "$dev is not a block device"
}

# round KIND: everything against the target now listening
round() {
	local kind=$1 pid fpid rc i w0 tk

	# ---- foreground attach, JSON, ext4, fio, detach
	attach_bg attach --connections 2 -o json
	sed -n '/^{/,/^}/p' attach.log | jq -e '.driver == "ublk" and .connections == 2' > /dev/null ||
		fail "$kind: the attach JSON does not say driver ublk with 2 queues"
	[ "$(blockdev --getsize64 "$dev")" = $((256 << 20)) ] || fail "$kind: $dev has the wrong size"
	log "$kind: attached as $dev: $(cat /sys/block/ublkb$idx/queue/logical_block_size)-byte blocks," \
		"max $(cat /sys/block/ublkb$idx/queue/max_sectors_kb) KiB, write cache" \
		"'$(cat /sys/block/ublkb$idx/queue/write_cache)', discard max" \
		"$(cat /sys/block/ublkb$idx/queue/discard_max_bytes), $(ls /sys/block/ublkb$idx/mq | wc -l) hw queues"

	mkfs.ext4 -q -F "$dev" || fail "$kind: mkfs.ext4 on $dev failed"
	mkdir -p mnt
	mount "$dev" mnt || fail "$kind: mount $dev failed"
	for i in 1 2 3; do
		head -c $((5 << 20)) /dev/urandom > mnt/big$i || fail "$kind: writing big$i failed"
	done
	mkdir mnt/dir
	for i in $(seq 1 50); do echo "file $i $RANDOM" > mnt/dir/f$i; done
	(cd mnt && find . -type f | sort | xargs sha256sum) > sums.txt
	fstrim mnt 2>/dev/null && log "$kind: fstrim worked"
	umount mnt || fail "$kind: umount failed"
	fsck.ext4 -fn "$dev" > fsck.txt 2>&1 || { cat fsck.txt; fail "$kind: fsck.ext4 found problems"; }
	mount "$dev" mnt || fail "$kind: second mount failed"
	(cd mnt && sha256sum -c --quiet ../sums.txt) || fail "$kind: files differ after remount"
	umount mnt || fail "$kind: second umount failed"
	log "$kind: ext4 on $dev: 15 MiB + 50 files written, fsck clean, contents verified"

	fio_verify ublk-$kind "$dev" --bssplit=4k/40:64k/30:512k/20:1m/10 --iodepth=16 --size=48M \
		--offset=128M

	# a pattern written through the device is what rblk reads from the target
	head -c $((1 << 20)) /dev/urandom > pat.bin
	dd if=pat.bin of="$dev" bs=1M seek=200 oflag=direct conv=fsync status=none || fail "$kind: dd to $dev failed"

	timeout 60 "$RBLK" detach "$dev" -o json > detach.json || fail "$kind: rblk detach $dev failed"
	jq -e '.detached and .driver == "ublk"' detach.json > /dev/null || fail "$kind: detach JSON"
	bg_wait attach 60 || fail "$kind: the attach process did not exit 0 after detach"
	[ -e "$dev" ] && fail "$kind: $dev still exists after detach"
	[ -e /dev/ublkc$idx ] && fail "$kind: /dev/ublkc$idx still exists after detach"
	timeout 120 "$RBLK" read $C -N 1 --offset 200M --length 1M -d got.bin || fail "$kind: rblk read failed"
	cmp pat.bin got.bin || fail "$kind: rblk reads something else than was written through $dev"
	log "$kind: detached; what went through $dev is on the target"

	# ---- kill -9 under fio: nothing hangs, the block device goes
	attach_bg attach2 --connections 2
	pid=${BG_PIDS[attach2]}
	w0=$(dev_writes "$dev")
	fio --name=killed --filename="$dev" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
		--iodepth=16 --size=64M --time_based --runtime=300 > fio-killed.txt 2>&1 &
	fpid=$!
	# the kill comes under load: once fio's writes reach the device
	wait_for 60 dev_written "$dev" "$w0" || { cat fio-killed.txt; fail "$kind: fio wrote nothing to $dev in 60 s"; }
	kill -0 $fpid 2>/dev/null || { cat fio-killed.txt; fail "$kind: fio ended before the kill"; }
	kill -KILL "$pid"
	tk=$SECONDS
	log "$kind: killed the attach process (pid $pid) under fio"
	if ! wait_for 60 pid_gone $fpid; then
		cat /proc/$fpid/stack 2>/dev/null
		fail "$kind: fio still runs 60 s after the attach process was killed"
	fi
	wait $fpid
	rc=$?
	[ $rc = 0 ] && fail "$kind: fio succeeded although its device lost its server"
	log "$kind: fio ended $((SECONDS - tk)) s after the kill (exit $rc): $(grep -m1 -oE 'err=[ 0-9]+[^:]*' fio-killed.txt)"
	wait_for 30 sh -c "[ ! -e $dev ]" || fail "$kind: $dev still exists 30 s after its server died"
	unset "BG_PIDS[attach2]"
	wait "$pid" 2>/dev/null
	hung_tasks && fail "$kind: the kernel saw hung tasks"
	if [ -e /dev/ublkc$idx ]; then
		log "$kind: $dev is gone; /dev/ublkc$idx stays (the device waits for DEL_DEV)"
	else
		log "$kind: $dev and /dev/ublkc$idx are both gone"
	fi
}

truncate -s 256M "$T_WORK/disk.img"
truncate -s 16M "$T_WORK/ro.img"

# ---- rblk-target
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" \
	--ns "$T_WORK/ro.img,ro" --allow-any-host
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "rblk-target did not start"
round rblk
stale=$idx
# the next attach deletes the stale device first: ask for its index to prove it
attach_bg attach3 --index "$stale"
[ "$dev" = /dev/ublkb$stale ] || fail "the new attach got $dev, not /dev/ublkb$stale"
grep -q "deleted device $stale" attach3.log || fail "attach3 did not say it deleted the stale device $stale"
dd if="$dev" of=/dev/null bs=1M count=16 iflag=direct status=none || fail "reading $dev after the stale cleanup failed"
bg_stop attach3 60 || fail "attach3 did not exit 0 on SIGTERM"
[ -e /dev/ublkc$stale ] && fail "/dev/ublkc$stale still exists after SIGTERM"
log "rblk: a new attach deleted the stale device $stale and served it again; SIGTERM detached it"

# a write-protected namespace is a read-only device
attach_bg attach -N 2
[ "$(blockdev --getro "$dev")" = 1 ] || fail "$dev (namespace 2, write-protected) is not read-only"
dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct status=none || fail "reading read-only $dev failed"
dd if=/dev/zero of="$dev" bs=4k count=1 oflag=direct status=none 2>/dev/null && fail "writing read-only $dev worked"
bg_stop attach 60 || fail "attach of namespace 2 did not stop cleanly on SIGTERM"
log "rblk: namespace 2 (write-protected) attached read-only"

# the target stays away beyond --ctrl-loss-tmo: I/O fails with EIO, nothing hangs
attach_bg attach -c 1 -l 5
bg_stop target || fail "rblk-target did not stop cleanly"
timeout 120 dd if="$dev" of=/dev/null bs=4k skip=12345 count=1 iflag=direct status=none
rc=$?
[ $rc = 124 ] && fail "I/O on $dev hung after ctrl-loss-tmo"
[ $rc = 0 ] && fail "I/O on $dev succeeded with the target gone"
timeout 60 "$RBLK" detach "$dev" || fail "detach after the controller was lost failed"
bg_wait attach 60 || log "note: attach exited $? after the controller was lost"
[ -e "$dev" ] && fail "$dev still exists after detach"
log "rblk: after ctrl-loss-tmo the read failed (dd exit $rc), no hang; detach worked"

# ---- the kernel target, same port
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN "$T_WORK/disk.img"
nvmet_expose $NQN 1
bg_start target sleep 100000
round nvmet
stale=$idx
if [ -e /dev/ublkc$stale ]; then
	timeout 60 "$RBLK" detach /dev/ublkb$stale || fail "rblk detach of the stale device $stale failed"
	[ -e /dev/ublkc$stale ] && fail "/dev/ublkc$stale still exists after rblk detach"
	log "nvmet: rblk detach deleted the stale device $stale"
fi
attach_bg attach3 --daemon
pid=$(pgrep -f "rblk attach .*--daemon" | head -1)
dd if="$dev" of=/dev/null bs=1M count=16 iflag=direct status=none || fail "reading $dev failed"
timeout 60 "$RBLK" detach ublkb$idx || fail "rblk detach ublkb$idx failed"
[ -n "$pid" ] && { wait_for 30 sh -c "! kill -0 $pid" || fail "the attach daemon did not exit after detach"; }
[ -e "$dev" ] && fail "$dev still exists after detach"
hung_tasks && fail "the kernel saw hung tasks"
log "nvmet: attach --daemon served $dev, rblk detach ublkb$idx ended it"
bg_stop target
exit 0
