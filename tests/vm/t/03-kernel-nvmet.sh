#!/bin/bash
# 03-kernel-nvmet: the VM can do NVMe over Fabrics on RDMA at all, with the kernel on
# both ends: the kernel target (nvmet-rdma) exports a memory-backed null_blk on
# 10.99.0.1:4420, the kernel host connects from 10.99.0.2 (`nvme connect -t rdma`), fio
# writes and verifies data on /dev/nvmeXnY, and the host disconnects. Also the template
# that target tests follow: set up, check, and leave cleanup to vm_cleanup.
# vm-timeout: 300
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
need_cmd nvme nvme-cli
need_cmd fio fio
NQN=nqn.2014-08.org.rblk:vm-kernel-nvmet

blk=$(null_blk_create 1 memory_backed=1) || exit 1
nvmet_setup_rdma_port 1 10.99.0.1 4420
nvmet_add_subsystem $NQN "$blk"
nvmet_expose $NQN 1

tx0=$(rxe_counter rxe1 sent_pkts) rx0=$(rxe_counter rxe1 rcvd_pkts)
dev=$(nvme_connect_rdma $NQN 10.99.0.1 4420 10.99.0.2) || exit 1
[ -b "$dev" ] || die "no block device for $NQN ('$dev')"
nvme list-subsys 2>&1 | sed 's/^/  /'
[ "$(cat /sys/class/nvme-subsystem/*/nvme*/transport 2>/dev/null | sort -u)" = rdma ] ||
	die "the controller's transport is not rdma"

# Write 32 MiB of mixed-size random I/O with checksums, then read it all back and verify.
fio --name=verify --filename="$dev" --ioengine=io_uring --direct=1 --iodepth=16 \
	--rw=randwrite --bsrange=4k-128k --size=32m --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --output=fio.txt ||
	{ cat fio.txt; die "fio verify on $dev failed"; }
cat fio.txt
grep -qE 'err= *0' fio.txt || die "fio reported errors"
tx=$(($(rxe_counter rxe1 sent_pkts) - tx0)) rx=$(($(rxe_counter rxe1 rcvd_pkts) - rx0))
# 32 MiB each way over <= 4 KiB packets: at least 8192 packets in each direction
[ $tx -ge 8192 ] && [ $rx -ge 8192 ] ||
	die "rxe1 packets +$tx sent +$rx received: the I/O did not cross rxe1"
log "fio write+verify 32 MiB on $dev over nvme-rdma: OK; rxe1 packets +$tx sent +$rx received"

nvme disconnect -n $NQN >&2 || die "nvme disconnect -n $NQN failed"
wait_for 20 nvme_no_ns $NQN || die "$dev still present after disconnect"
log "disconnected"
