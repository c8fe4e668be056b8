#!/bin/bash
# 20-init-kernel-target: the rblk initiator library against the Linux kernel target
# (nvmet-rdma) exporting a memory-backed null_blk on 10.99.0.1:4420, reached from
# 10.99.0.2 (rxe1 -> rxe0). rblk-init-io (tests/func/init_io.c) discovers,
# connects, identifies, writes and verifies a pattern with registered buffers, with
# unregistered (bounced) buffers, with the synchronous calls and with FUA; runs Flush,
# Write Zeroes, Deallocate and an out-of-range read; then data crosses between rblk and
# the kernel host (nvme connect + dd) both ways.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
need_cmd nvme nvme-cli
IO=$(rblk_bin tests/func/rblk-init-io)
NQN=nqn.2024-01.io.rblk:init-kernel
A="-a $VM_ADDR0 -w $VM_ADDR1 -n $NQN"

blk=$(null_blk_create 1 memory_backed=1 discard=1)
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN "$blk"
nvmet_expose $NQN 1

run() { log "rblk-init-io $*"; "$IO" "$@"; }

out=$(run -a $VM_ADDR0 -w $VM_ADDR1 -m discover) || die "discover failed"
echo "$out"
echo "$out" | grep -q "subtype 2 .*subnqn $NQN\$" || die "discovery does not list $NQN"
echo "$out" | grep -q "subtype 3" && die "discovery shows its own entry (subtype 3) by default"

out=$(run $A -m identify) || die "identify failed"
echo "$out"
echo "$out" | grep -q "^subnqn $NQN\$" || die "identify: wrong subnqn"
echo "$out" | grep -qE '^mn Linux' || die "identify: not the Linux target"
echo "$out" | grep -qE '^blocks [1-9]' || die "identify: no namespace size"

tx0=$(rxe_counter rxe1 sent_pkts)
run $A -m writeverify -o 0 -b 65536 -B 131072 -d 16 -S 1 || die "writeverify (registered, 128 KiB, QD16) failed"
tx=$(($(rxe_counter rxe1 sent_pkts) - tx0))
[ $tx -ge 8192 ] || die "rxe1 sent only $tx packets: the I/O did not cross rxe1"
log "32 MiB written and verified over rxe1 ($tx packets sent)"
run $A -m writeverify -o 70000 -b 16384 -B 4096 -d 64 -u -S 2 || die "writeverify (unregistered 4 KiB, QD64) failed"
run $A -m writeverify -o 90000 -b 8192 -B 1048576 -d 4 -u -S 3 || die "writeverify (unregistered 1 MiB: bounced and split) failed"
run $A -m writeverify -o 100000 -b 8192 -B 2097152 -d 2 -S 4 || die "writeverify (registered 2 MiB: split at MDTS) failed"
run $A -m writeverify -o 110000 -b 2048 -B 8192 -y -f -S 5 || die "writeverify (sync calls, FUA) failed"
run $A -m writeverify -o 120000 -b 4096 -B 512 -d 32 -S 6 -i 1 -Q 16 || die "writeverify (512-byte I/O, 1 queue of 16) failed"
run $A -m misc -o 130000 -S 7 || die "flush / write zeroes / deallocate / out-of-range failed"

# rblk writes, the kernel host reads.
run $A -m write -o 200000 -b 8192 -B 65536 -S 77 || die "write for the kernel host failed"
"$IO" -m gen -S 77 -g $((200000 * 512)) -G $((8192 * 512)) -O want.bin || die "gen failed"
dev=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1)
dd if="$dev" of=got.bin bs=512 skip=200000 count=8192 iflag=direct status=none || die "dd read failed"
cmp want.bin got.bin || die "the kernel host reads something else than rblk wrote"
log "kernel host read back 4 MiB written by rblk: identical"
# The kernel host writes, rblk reads.
head -c $((4 << 20)) /dev/urandom > kwrite.bin
dd if=kwrite.bin of="$dev" bs=1M seek=$((300000 * 512)) oflag=direct,seek_bytes conv=fsync status=none ||
	die "dd write failed"
nvme disconnect -n $NQN >/dev/null || die "nvme disconnect failed"
run $A -m dump -o 300000 -b 8192 -B 65536 -O rblk.bin || die "dump failed"
cmp kwrite.bin rblk.bin || die "rblk reads something else than the kernel host wrote"
log "rblk read back 4 MiB written by the kernel host: identical"
log "PASS"
