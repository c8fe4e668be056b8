#!/bin/bash
# 53-target-crash-consistency: what the Linux host flushed survives a power cut.
# The namespace is a dm-log-writes device over a loop device; the kernel's log-writes
# target records each write only once a flush made it durable. The Linux host writes
# 8 generations of 64 random 4 KiB blocks with O_DIRECT, each followed by fdatasync
# (an NVMe Flush) and a mark in the log. Then every mark is replayed onto a zeroed
# image ("the power went there"): every block acknowledged before that flush must hold
# its latest content. The same run with Flush made a no-op in the target
# (RBLK_FAULT_FLUSH_NOOP=1) must lose blocks: that shows the test catches the fault.
# Needs dm-log-writes (kernel 6.12 in this VM) and dmsetup.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
REPLAY=$(rblk_bin tests/func/log_replay) || exit 1
NQN=nqn.2024-01.io.rblk:crash
GENS=8 PER_GEN=64 SIZE_MB=64
need_cmd nvme nvme-cli
need_cmd dmsetup dmsetup
need_cmd python3 python3
need_cmd losetup util-linux
modprobe dm_log_writes 2>/dev/null || skip "no dm-log-writes in kernel $(uname -r) (RBLK_VM_KERNEL=6.12 has it)"
modprobe -a nvme_rdma loop || die "modprobe nvme_rdma loop failed"
LW=rblk-crash-lw

fail() { bg_log target; dmsetup ls 2>/dev/null; dmesg | tail -20; die "$*"; }
cleanup_dm() {
	dmsetup remove $LW 2>/dev/null
	[ -n "${DATA:-}" ] && losetup -d "$DATA" 2>/dev/null
	[ -n "${LOGD:-}" ] && losetup -d "$LOGD" 2>/dev/null
	DATA= LOGD=
}
trap cleanup_dm EXIT

# The writer: GENS generations, each PER_GEN blocks at random LBAs, fdatasync, mark.
# Prints the expected content per LBA per generation as JSON.
cat > "$T_WORK/writer.py" <<'PY'
import json, mmap, os, random, subprocess, sys
dev, lw, name, gens, per_gen, nblocks = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:7])
fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
rnd = random.Random(53)
history = []          # [gen] -> {lba: pattern seed}
for g in range(1, gens + 1):
    wrote = {}
    for _ in range(per_gen):
        lba = rnd.randrange(nblocks)
        tag = f"{name} gen {g} lba {lba} ".encode()
        buf.seek(0); buf.write((tag * (4096 // len(tag) + 1))[:4096])
        if os.pwritev(fd, [buf], lba * 4096) != 4096:
            sys.exit("short write")
        wrote[lba] = g
    os.fdatasync(fd)                     # an NVMe Flush to the target
    subprocess.run(["dmsetup", "message", lw, "0", "mark", f"{name}-g{g}"], check=True)
    history.append(wrote)
os.close(fd)
json.dump(history, sys.stdout)
PY
# The checker: after replaying to generation G, each LBA written in generations <= G
# must hold its last such content. Prints "checked N lost M".
cat > "$T_WORK/check.py" <<'PY'
import json, sys
img, name, upto = sys.argv[1], sys.argv[2], int(sys.argv[3])
history = json.load(open(sys.argv[4]))
want = {}
for g, wrote in enumerate(history[:upto], start=1):
    for lba in wrote:
        want[int(lba)] = g
lost = 0
with open(img, "rb") as f:
    for lba, g in sorted(want.items()):
        f.seek(lba * 4096)
        data = f.read(4096)
        tag = f"{name} gen {g} lba {lba} ".encode()
        if data != (tag * (4096 // len(tag) + 1))[:4096]:
            lost += 1
print(f"checked {len(want)} lost {lost}")
PY

# round NAME [ENV=VALUE...]: a fresh log-writes device, the host writes and flushes,
# then every mark is replayed and checked. Sets LOST (blocks lost over all marks).
round() {
	local name=$1 dev g out lost checked
	shift
	truncate -s 0 "$T_WORK/data.img" "$T_WORK/log.img"
	truncate -s ${SIZE_MB}M "$T_WORK/data.img"
	truncate -s 512M "$T_WORK/log.img"
	DATA=$(losetup -f --show "$T_WORK/data.img") || fail "losetup data"
	LOGD=$(losetup -f --show "$T_WORK/log.img") || fail "losetup log"
	dmsetup create $LW --table "0 $(blockdev --getsz "$DATA") log-writes $DATA $LOGD" ||
		fail "dmsetup create log-writes"
	# No udev in the VM: make the /dev/mapper node ourselves.
	dmsetup mknodes $LW || fail "dmsetup mknodes"
	[ -b /dev/mapper/$LW ] || fail "/dev/mapper/$LW did not appear"
	bg_start target env "$@" "$TGT" --listen $VM_ADDR0 --subsystem $NQN \
		--ns /dev/mapper/$LW --allow-any-host --log-level info
	wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$BG_PID" || fail "the target did not start"
	dev=$(nvme_connect_rdma $NQN | tail -1)
	[ -b "$dev" ] || fail "connect failed"
	# Without a volatile write cache the host never sends Flush: nothing to test.
	[ "$(cat /sys/block/${dev#/dev/}/queue/write_cache)" = "write back" ] ||
		fail "$dev has no volatile write cache: the target does not advertise VWC for $LW"
	python3 "$T_WORK/writer.py" "$dev" $LW "$name" $GENS $PER_GEN $((SIZE_MB * 256)) \
		> "$T_WORK/$name.json" || fail "the writer failed"
	nvme disconnect -n $NQN >/dev/null || fail "nvme disconnect"
	bg_stop target || fail "the target did not stop cleanly"
	dmsetup remove $LW || fail "dmsetup remove"
	LOST=0
	for g in $(seq $GENS); do
		truncate -s 0 "$T_WORK/replay.img"
		truncate -s ${SIZE_MB}M "$T_WORK/replay.img"
		"$REPLAY" "$LOGD" "$T_WORK/replay.img" "$name-g$g" >/dev/null || fail "no mark $name-g$g in the log"
		out=$(python3 "$T_WORK/check.py" "$T_WORK/replay.img" "$name" $g "$T_WORK/$name.json")
		read -r _ checked _ lost <<<"$out"
		LOST=$((LOST + lost))
		log "$name: power cut at flush $g: $checked blocks acknowledged and flushed, $lost lost"
	done
	cleanup_dm
}

round durable
[ "$LOST" = 0 ] || fail "$LOST flushed blocks were lost over $GENS power cuts"
log "durable: all $GENS power cuts kept every flushed block"

round noflush RBLK_FAULT_FLUSH_NOOP=1
grep -q 'RBLK_FAULT_FLUSH_NOOP=1: Flush completes WITHOUT syncing' "$T_WORK/target.log" ||
	fail "the fault injection did not take"
[ "$LOST" -gt 0 ] || fail "with Flush a no-op no block was lost: this test cannot tell"
log "with Flush made a no-op, $LOST flushed blocks were lost: the test catches it"
