#!/bin/bash
# 31-fio-plugin-kernel-target: fio through the rblk plugin against the Linux kernel
# target (nvmet-rdma, a memory-backed null_blk) on 10.99.0.1, from 10.99.0.2. Verified
# write jobs: 4 KiB random at QD32, mixed sizes 512 B..1 MiB, QD1 and QD128, 4 jobs.
# Then data crosses between the kernel host and the plugin: the kernel host
# (nvme connect + fio io_uring on /dev/nvmeXnY) writes a verify pattern, and fio through
# the plugin checks it (verify_only with the same job); a different seed must fail,
# which shows the check is real.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
[ -f "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" ] ||
	skip "the fio plugin is not built in $RBLK_BUILD (configure with -DRBLK_FIO_PLUGIN=ON)"
. "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1
need_cmd nvme nvme-cli

NQN=nqn.2024-01.io.rblk:fio-kernel
blk=$(null_blk_create 1 memory_backed=1) || exit 1
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN "$blk"
nvmet_expose $NQN 1
F=$(trid $VM_ADDR0 $NQN 1)

tx0=$(rxe_counter rxe1 sent_pkts)
rfio_verify rand4k-qd32 --filename="$F" --rw=randwrite --bs=4k --iodepth=32 --size=32m
tx=$(($(rxe_counter rxe1 sent_pkts) - tx0))
[ $tx -ge 8192 ] || die "rxe1 sent only $tx packets: the I/O did not cross rxe1"
rfio_verify bssplit --filename="$F" --rw=randwrite --iodepth=16 --size=64m --offset=64m \
	--bssplit=512/10:4k/30:16k/20:64k/20:128k/10:1m/10
rfio_verify qd1 --filename="$F" --rw=randwrite --bs=4k --iodepth=1 --size=2m --offset=128m
rfio_verify qd128 --filename="$F" --rw=randwrite --bs=4k --iodepth=128 --size=32m --offset=160m
rfio_verify numjobs4 --filename="$F" --rw=randwrite --bsrange=4k-64k --iodepth=16 \
	--size=16m --offset=256m --offset_increment=16m --numjobs=4

# The kernel host writes a verify pattern; the plugin reads and checks it.
JOB=(--rw=randwrite --bs=4k --size=16m --offset=512m --verify=crc32c --randseed=4242)
dev=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1) || exit 1
log "kernel host: fio io_uring writes ${JOB[*]} on $dev"
fio --name=xfer --filename="$dev" --ioengine=io_uring --direct=1 --iodepth=16 \
	"${JOB[@]}" --do_verify=0 --output="$T_WORK/fio-kwrite.txt" ||
	{ cat "$T_WORK/fio-kwrite.txt"; die "the kernel host's fio write failed"; }
nvme disconnect -n $NQN >&2 || die "nvme disconnect failed"
rfio kernel-data --filename="$F" --iodepth=16 "${JOB[@]}" --verify_only=1 --verify_fatal=1
grep -qE 'read: IOPS=' "$T_WORK/fio-kernel-data.txt" || die "verify_only read nothing"
log "the plugin verified 16 MiB the kernel host wrote"
# the same job 512 bytes further on must fail: the check is real
rfio_fail kernel-data-shifted 'verify: bad' --filename="$F" --iodepth=16 "${JOB[@]}" \
	--offset=$(((512 << 20) + 512)) --verify_only=1 --verify_fatal=1
log "PASS"
