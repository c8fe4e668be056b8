#!/bin/bash
# 26-cli-read-write: `rblk write` then `rblk read` round trips (files, stdin/stdout,
# offsets, --verify, --fua, -o json) against rblk-target and against the kernel target,
# from 10.99.0.2 (rxe1 -> rxe0); and the data crosses over to the kernel host: what rblk
# wrote, `nvme connect` + dd reads back, and what dd wrote, rblk reads.
# vm-timeout: 900
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
need_cmd nvme nvme-cli
need_cmd jq jq
NQN_R=nqn.2024-01.io.rblk:rw-rblk
NQN_K=nqn.2024-01.io.rblk:rw-kernel

fail() { bg_log target; die "$*"; }
rblk() {
	log "rblk $*"
	timeout 300 "$RBLK" "$@"
}

truncate -s 64M "$T_WORK/r1.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN_R --ns "$T_WORK/r1.img" --allow-any-host
wait_for_line 60 target.log 'ready' "$BG_PID" || fail "rblk-target did not start"
blk=$(null_blk_create 1 memory_backed=1)
nvmet_setup_rdma_port 1 $VM_ADDR0 4421
nvmet_add_subsystem $NQN_K "$blk"
nvmet_expose $NQN_K 1

head -c $((8 << 20)) /dev/urandom > in.bin
head -c $((64 << 10)) /dev/urandom > small.bin

for port in 4421 4420; do
	[ $port = 4420 ] && nqn=$NQN_R || nqn=$NQN_K
	C="-t rdma -a $VM_ADDR0 -s $port -n $nqn -w $VM_ADDR1 -N 1"
	log "=== target on port $port ($nqn)"

	rblk write $C -d in.bin --verify --qd 8 || fail "write --verify of 8 MiB failed"
	rblk read $C --length 8M -d out.bin --bs 256k --qd 4 || fail "read of 8 MiB failed"
	cmp in.bin out.bin || fail "read back differs from what was written"
	rblk read $C -d in.bin --length 8M --verify || fail "read --verify says the data differs"
	# stdin, an offset, and stdout
	rblk write $C --offset 1M --fua < small.bin || fail "write from stdin at 1 MiB failed"
	rblk read $C --lba 2048 --length 64k --quiet | cmp - small.bin || fail "read to stdout differs"
	# the namespace now differs from in.bin at 1 MiB: --verify must say so, with the offset
	rblk read $C -d in.bin --length 8M --verify 2> verify.err
	rc=$?
	cat verify.err
	[ $rc = 6 ] || fail "read --verify of changed data: exit $rc, wanted 6"
	grep -q 'differs from the file at byte offset 10485' verify.err || fail "no mismatch offset near 1 MiB"
	# JSON summary
	rblk write $C --offset 4M --length 64k -d small.bin -o json > w.json || fail "write -o json failed"
	jq -e '.bytes == 65536 and .offset == 4194304 and .MBps > 0' w.json >/dev/null ||
		{ cat w.json; fail "write JSON"; }
	log "port $port: round trips, stdin/stdout, offsets, verify and JSON all good"
done

# rblk-target: rblk writes, the kernel host reads; the kernel host writes, rblk reads.
C="-t rdma -a $VM_ADDR0 -s 4420 -n $NQN_R -w $VM_ADDR1 -N 1"
head -c $((4 << 20)) /dev/urandom > a.bin
rblk write $C --offset 16M -d a.bin || fail "write for the kernel host failed"
dev=$(nvme_connect_rdma $NQN_R $VM_ADDR0 4420 $VM_ADDR1)
dd if="$dev" of=k.bin bs=1M skip=16 count=4 iflag=direct status=none || fail "dd read failed"
cmp a.bin k.bin || fail "the kernel host reads something else than rblk wrote"
head -c $((4 << 20)) /dev/urandom > b.bin
dd if=b.bin of="$dev" bs=1M seek=32 oflag=direct conv=fsync status=none || fail "dd write failed"
nvme disconnect -n $NQN_R > /dev/null || fail "nvme disconnect failed"
rblk read $C --offset 32M --length 4M -d r.bin || fail "read of what the kernel host wrote failed"
cmp b.bin r.bin || fail "rblk reads something else than the kernel host wrote"
log "rblk <-> kernel host: 4 MiB each way, identical"

bg_stop target || fail "rblk-target did not stop cleanly"
