#!/bin/bash
# 50-target-mdts-hints: rblk-target takes the kernel target's place without surprises.
#  - 1 MiB transfers by default (MDTS 8, as nvmet-rdma): nvme-cli read/write through
#    the passthrough ioctl (which cannot split) of 1, 511, 512, 513 and 2048 blocks at
#    offsets 1 and 511, data compared; fio 1 MiB sequential writes with verify.
#  - The host's queue limits for a block device behind rblk-target equal those for the
#    same device behind nvmet: a scsi_debug disk with 512-byte logical and 4 KiB
#    physical blocks, an optimal transfer size and a discard granularity; compared are
#    /sys/block/<ns>/queue/{physical_block_size,minimum_io_size,optimal_io_size,
#    discard_granularity} and Identify Namespace's NSFEAT, NAWUN, NAWUPF, NACWU, NPWG,
#    NPWA, NPDG, NPDA, NOWS.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2026-01.io.rblk:mdts
need_cmd nvme nvme-cli
need_cmd fio fio
modprobe nvme_rdma || die "modprobe nvme_rdma failed"

fail() { bg_log target | tail -60; dmesg | tail -20; die "$*"; }

# ---- 1 MiB by default, passthrough I/O of every awkward size
truncate -s 64M "$T_WORK/disk.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" \
	--allow-any-host --log-level info
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"
dev=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$dev" ] || fail "connect failed"
ctrl=${dev%n*}
out=$(nvme id-ctrl "$ctrl") || fail "id-ctrl failed"
echo "$out" | grep -qE '^mdts +: 8$' || fail "mdts is not 8 (1 MiB)"
mhs=$(cat /sys/block/${dev#/dev/}/queue/max_hw_sectors_kb)
[ "$mhs" = 1024 ] || fail "the host's max_hw_sectors_kb is $mhs, not 1024"

head -c $((2048 * 512)) /dev/urandom > "$T_WORK/src"
for off in 1 511; do
	for nb in 1 511 512 513 2048; do
		len=$((nb * 512))
		head -c $len "$T_WORK/src" > "$T_WORK/w"
		nvme write "$dev" --start-block=$off --block-count=$((nb - 1)) --data-size=$len \
			--data="$T_WORK/w" >/dev/null 2>"$T_WORK/err" ||
			{ cat "$T_WORK/err"; fail "nvme write of $nb blocks at $off failed"; }
		rm -f "$T_WORK/r" # nvme-cli writes into the file without truncating it
		nvme read "$dev" --start-block=$off --block-count=$((nb - 1)) --data-size=$len \
			--data="$T_WORK/r" >/dev/null 2>"$T_WORK/err" ||
			{ cat "$T_WORK/err"; fail "nvme read of $nb blocks at $off failed"; }
		cmp -s "$T_WORK/w" "$T_WORK/r" || fail "$nb blocks at $off read back differently"
		# And what the block layer reads there is the same.
		dd if="$dev" bs=512 skip=$off count=$nb iflag=direct status=none | cmp -s - "$T_WORK/w" ||
			fail "$nb blocks at $off differ through the block device"
	done
done
log "nvme-cli passthrough: 1, 511, 512, 513, 2048 blocks at offsets 1 and 511 compared"
fio_verify seq1m "$dev" --rw=write --bs=1m --iodepth=4 --size=32M
nvme disconnect -n $NQN >/dev/null || fail "nvme disconnect failed"
bg_stop target || fail "the target did not stop cleanly"

# ---- the same block device behind nvmet and behind rblk-target
modprobe scsi_debug dev_size_mb=64 sector_size=512 physblk_exp=3 opt_blks=256 lbpu=1 \
	unmap_granularity=16 unmap_max_blocks=65536 ||
	skip "no scsi_debug module (needed for a disk with distinct physical blocks)"
modprobe sd_mod 2>/dev/null # no udev here to load the disk driver
# sd_dev: the scsi_debug disk's device node, once the disk driver has it.
sd_dev() {
	local b
	for b in /sys/block/sd*; do
		[ -e "$b/device/model" ] && grep -q scsi_debug "$b/device/model" &&
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}
wait_for 20 sd_dev || fail "no scsi_debug disk"
sd=$(sd_dev)
log "backing device $sd: logical $(cat /sys/block/${sd#/dev/}/queue/logical_block_size)," \
	"physical $(cat /sys/block/${sd#/dev/}/queue/physical_block_size)," \
	"optimal $(cat /sys/block/${sd#/dev/}/queue/optimal_io_size)," \
	"discard $(cat /sys/block/${sd#/dev/}/queue/discard_granularity)"

# limits DEV: the host's view, one line.
limits() {
	local q=/sys/block/${1#/dev/}/queue f out=""
	for f in logical_block_size physical_block_size minimum_io_size optimal_io_size \
		discard_granularity; do
		out="$out $f=$(cat $q/$f)"
	done
	echo "$out"
}
# idns DEV: the hint fields of Identify Namespace, and NSFEAT's bits 1 and 4.
idns() {
	local out f
	out=$(nvme id-ns "$1") || return 1
	f=$(echo "$out" | sed -nE 's/^nsfeat +: (0x[0-9a-f]+).*/\1/p')
	printf 'nsfeat&0x12=0x%x ' $((f & 0x12))
	echo "$out" | grep -E '^(nawun|nawupf|nacwu|npwg|npwa|npdg|npda|nows) ' | tr -s ' ' | tr '\n' ' '
}

nvmet_setup_rdma_port 1 $VM_ADDR0 4421
nvmet_add_subsystem $NQN-k "$sd"
nvmet_expose $NQN-k 1
dev=$(nvme_connect_rdma $NQN-k $VM_ADDR0 4421 | tail -1)
[ -b "$dev" ] || fail "connect to nvmet failed"
k_lim=$(limits "$dev"); k_id=$(idns "$dev")
nvme disconnect -n $NQN-k >/dev/null
nvmet_cleanup

bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$sd" --allow-any-host \
	--log-level info
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"
dev=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$dev" ] || fail "connect to rblk-target failed"
r_lim=$(limits "$dev"); r_id=$(idns "$dev")
log "nvmet:       $k_lim"
log "rblk-target: $r_lim"
log "nvmet:       $k_id"
log "rblk-target: $r_id"
[ "$k_lim" = "$r_lim" ] || fail "the host's queue limits differ"
[ "$k_id" = "$r_id" ] || fail "Identify Namespace hints differ"
case "$r_lim" in *physical_block_size=4096*) ;; *) fail "the 4 KiB physical block is lost" ;; esac
nvme disconnect -n $NQN >/dev/null
bg_stop target || fail "the target did not stop cleanly"
rmmod scsi_debug 2>/dev/null
log "PASS"
