#!/bin/bash
# 21-init-rblk-target: the rblk initiator library against rblk-target (a file on tmpfs,
# 10.99.0.1:4420, reached from 10.99.0.2). rblk-init-io discovers, identifies, writes
# and verifies with registered, unregistered (bounced, split at the bounce size), sync
# and FUA I/O, small in-capsule writes, Flush / Write Zeroes / Deallocate / an
# out-of-range read; an idle controller stays up on the library's own keep-alives;
# then data crosses between rblk and the kernel host both ways. The target log must
# stay free of errors and warnings.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
need_cmd nvme nvme-cli
IO=$(rblk_bin tests/func/rblk-init-io)
TGT=$(rblk_bin daemon/rblk-target)
NQN=nqn.2024-01.io.rblk:init-rblk
A="-a $VM_ADDR0 -w $VM_ADDR1 -n $NQN"

fail() { bg_log target; die "$*"; }
run() { log "rblk-init-io $*"; "$IO" "$@"; }

truncate -s 256M "$T_WORK/disk.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" \
	--allow-any-host --log-level info
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"

out=$(run -a $VM_ADDR0 -w $VM_ADDR1 -m discover) || fail "discover failed"
echo "$out"
echo "$out" | grep -q "subtype 2 .*subnqn $NQN\$" || fail "discovery does not list $NQN"

out=$(run $A -m identify) || fail "identify failed"
echo "$out"
echo "$out" | grep -q "^subnqn $NQN\$" || fail "identify: wrong subnqn"
echo "$out" | grep -qE '^mn rblk' || fail "identify: not rblk"
echo "$out" | grep -qE '^blocks 524288$' || fail "identify: not 256 MiB of 512-byte blocks"

tx0=$(rxe_counter rxe1 sent_pkts)
run $A -m writeverify -o 0 -b 65536 -B 131072 -d 32 -S 11 || fail "writeverify (registered 128 KiB, QD32) failed"
tx=$(($(rxe_counter rxe1 sent_pkts) - tx0))
[ $tx -ge 8192 ] || fail "rxe1 sent only $tx packets: the I/O did not cross rxe1"
run $A -m writeverify -o 70000 -b 16384 -B 4096 -d 64 -u -S 12 || fail "writeverify (unregistered 4 KiB) failed"
run $A -m writeverify -o 90000 -b 8192 -B 8192 -d 16 -S 13 || fail "writeverify (8 KiB: in-capsule) failed"
run $A -m writeverify -o 100000 -b 8192 -B 1048576 -d 4 -u -S 14 || fail "writeverify (unregistered 1 MiB) failed"
run $A -m writeverify -o 110000 -b 8192 -B 1048576 -d 4 -S 15 || fail "writeverify (registered 1 MiB: split at MDTS) failed"
run $A -m writeverify -o 120000 -b 2048 -B 4096 -y -f -S 16 || fail "writeverify (sync, FUA) failed"
run $A -m writeverify -o 130000 -b 4096 -B 65536 -d 8 -i 4 -Q 32 -S 17 || fail "writeverify (4 queues of 32) failed"
out=$(run $A -m misc -o 140000 -S 18) || fail "flush / write zeroes / deallocate / out-of-range failed"
echo "$out"
echo "$out" | grep -qE 'LBA Out of Range \(0x[46]080\)' || fail "a read past the end is not LBA Out of Range + DNR (M: more in the error log)"
out=$(run $A -m idle -t 15 -k 5 -o 150000 -b 256 -S 19 2>&1) || { echo "$out"; fail "idle then I/O failed"; }
echo "$out"
echo "$out" | grep -qi 'connection lost' && fail "an idle controller lost its connection (keep-alive)"

# rblk writes, the kernel host reads; then the reverse.
run $A -m write -o 200000 -b 8192 -B 65536 -S 77 || fail "write for the kernel host failed"
"$IO" -m gen -S 77 -g $((200000 * 512)) -G $((8192 * 512)) -O want.bin || fail "gen failed"
dev=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1) || fail "nvme connect failed"
dd if="$dev" of=got.bin bs=512 skip=200000 count=8192 iflag=direct status=none || fail "dd read failed"
cmp want.bin got.bin || fail "the kernel host reads something else than rblk wrote"
log "kernel host read back 4 MiB written by rblk: identical"
head -c $((4 << 20)) /dev/urandom > kwrite.bin
dd if=kwrite.bin of="$dev" bs=1M seek=$((300000 * 512)) oflag=direct,seek_bytes conv=fsync status=none ||
	fail "dd write failed"
nvme disconnect -n $NQN >/dev/null || fail "nvme disconnect failed"
run $A -m dump -o 300000 -b 8192 -B 65536 -O rblk.bin || fail "dump failed"
cmp kwrite.bin rblk.bin || fail "rblk reads something else than the kernel host wrote"
log "rblk read back 4 MiB written by the kernel host: identical"

bg_stop target; rc=$?
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
grep -E ': (err|warn): ' "$T_WORK/target.log" && fail "errors or warnings in the target log"
log "PASS"
