#!/bin/bash
# 48-example-embedder: examples/ram_target.c, a program of ~100 lines that embeds the
# target library (its own RAM provider callbacks, its own poll loop, no library
# threads), serves the Linux host: nvme connect, identity, fio verify (4 KiB QD1,
# mixed sizes up to 1 MiB at QD32 over several queues), write zeroes and deallocate
# through nvme-cli read back as zeroes, data written before a disconnect reads back
# after a reconnect, and SIGTERM stops it cleanly with a host connected.
# The binary is the one the packaging test compiled against the installed headers
# and pkg-config file when it exists ($RBLK_BUILD/examples-installed), run against
# this build's libraries; otherwise the build tree's.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

NQN=nqn.2026-01.io.rblk:example
need_cmd nvme nvme-cli
need_cmd fio fio
if [ -x "$RBLK_BUILD/examples-installed/ram_target" ]; then
	EX=$RBLK_BUILD/examples-installed/ram_target
	export LD_LIBRARY_PATH=$RBLK_BUILD/target:$RBLK_BUILD/common
else
	EX=$(rblk_bin examples/ram_target) || exit 1
fi
log "example: $EX"

fail() { bg_log example; dmesg | tail -30; die "$*"; }


bg_start example "$EX" $VM_ADDR0 $NQN 64
wait_for_line 60 "$T_WORK/example.log" "serving $NQN namespace 1" "$BG_PID" ||
	fail "the example did not start"
# No library threads: one thread, the example's own.
n=$(ls /proc/$BG_PID/task | wc -l)
[ "$n" = 1 ] || fail "the embedded target runs $n threads, not 1"

dev=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$dev" ] || fail "connect failed"
out=$(nvme id-ns "$dev") || fail "id-ns failed"
echo "$out" | grep -qE '^nsze +: 0x20000$' || fail "id-ns nsze is not 0x20000 (64 MiB / 512)"

fio_verify qd1 "$dev" --bs=4k --iodepth=1 --size=4M
fio_verify mixed "$dev" --bssplit=4k/30:16k/20:64k/20:128k/15:1m/15 --iodepth=16 \
	--numjobs=2 --size=8M --offset_increment=24M

# Write zeroes and deallocate reach the provider and read back as zeroes.
head -c 65536 /dev/urandom > "$T_WORK/pat"
dd if="$T_WORK/pat" of="$dev" bs=64k seek=100 oflag=direct status=none || fail "dd write"
nvme write-zeroes "$dev" -s 12800 -c 127 >/dev/null || fail "nvme write-zeroes failed"
dd if="$dev" of="$T_WORK/back" bs=64k skip=100 count=1 iflag=direct status=none
cmp -s "$T_WORK/back" <(head -c 65536 /dev/zero) || fail "write zeroes did not zero"
dd if="$T_WORK/pat" of="$dev" bs=64k seek=101 oflag=direct status=none || fail "dd write 2"
nvme dsm "$dev" -d -s 12928 -b 128 >/dev/null || fail "nvme dsm deallocate failed"
dd if="$dev" of="$T_WORK/back" bs=64k skip=101 count=1 iflag=direct status=none
cmp -s "$T_WORK/back" <(head -c 65536 /dev/zero) || fail "deallocate did not zero"

# Data survives a disconnect and reconnect (the RAM is the provider's).
dd if="$T_WORK/pat" of="$dev" bs=64k seek=200 oflag=direct status=none || fail "dd write 3"
nvme disconnect -n $NQN >/dev/null || fail "nvme disconnect failed"
dev=$(nvme_connect_rdma $NQN | tail -1)
dd if="$dev" of="$T_WORK/back" bs=64k skip=200 count=1 iflag=direct status=none
cmp -s "$T_WORK/back" "$T_WORK/pat" || fail "data written before the reconnect changed"

# SIGTERM with the host connected: rblk_target_stop() from the signal handler, the
# loop returns, rblk_target_destroy() disconnects the host.
bg_stop example; rc=$?
[ $rc = 0 ] || fail "the example exited with $rc on SIGTERM"
nvme disconnect -n $NQN >/dev/null 2>&1
grep -E ': (err|warn): ' "$T_WORK/example.log" | grep -v 'keep-alive\|disconnect' &&
	log "NOTE: warnings in the example's log (above)"
log "PASS"
