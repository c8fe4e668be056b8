#!/bin/bash
# 30-fio-plugin-rblk-target: fio through the rblk plugin (librblk_fio.so, no kernel
# host) against rblk-target on 10.99.0.1, from 10.99.0.2 (rxe1 -> rxe0). Every write
# job verifies its data (crc32c): 4 KiB random writes at QD32, QD1 and QD128; mixed
# sizes 512 B..1 MiB (bssplit); 4 jobs (threads sharing controllers, one qpair each);
# 2 jobs as processes (thread=0); jobs striping their I/O over 2 queue pairs
# (qpairs=2: as threads, the second job gets a controller of its own; as processes);
# two namespaces as two files of one job; private controllers per job; the key:value
# filename form; the target named by engine options; trims. Packet counters check the bytes
# crossed rxe1. The target keeps running throughout and stops cleanly.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
[ -f "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" ] ||
	skip "the fio plugin is not built in $RBLK_BUILD (configure with -DRBLK_FIO_PLUGIN=ON)"
. "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:fio-plugin
truncate -s 320M "$T_WORK/disk1.img"
truncate -s 64M "$T_WORK/disk2.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk1.img" \
	--ns "$T_WORK/disk2.img" --allow-any-host --log-level info
FIO_FAIL_HOOK="bg_log target"
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || { bg_log target; die "rblk-target did not start"; }
F1=$(trid $VM_ADDR0 $NQN 1)
F2=$(trid $VM_ADDR0 $NQN 2)

tx0=$(rxe_counter rxe1 sent_pkts) rx0=$(rxe_counter rxe1 rcvd_pkts)
rfio_verify rand4k-qd32 --filename="$F1" --rw=randwrite --bs=4k --iodepth=32 --size=32m
tx=$(($(rxe_counter rxe1 sent_pkts) - tx0)) rx=$(($(rxe_counter rxe1 rcvd_pkts) - rx0))
# 32 MiB written and read back over <= 4 KiB packets: >= 8192 each way
[ $tx -ge 8192 ] && [ $rx -ge 8192 ] || die "rxe1 +$tx sent +$rx received: the I/O did not cross rxe1"
log "rand4k-qd32: rxe1 +$tx packets sent, +$rx received"

rfio_verify rand4k-qd1 --filename="$F1" --rw=randwrite --bs=4k --iodepth=1 --size=4m --offset=32m
rfio_verify rand4k-qd128 --filename="$F1" --rw=randwrite --bs=4k --iodepth=128 --size=32m \
	--offset=40m --iodepth_batch_submit=16 --iodepth_batch_complete_max=8
rfio_verify bssplit --filename="$F1" --rw=randwrite --iodepth=16 --size=64m --offset=80m \
	--bssplit=512/10:4k/30:16k/20:64k/20:128k/10:1m/10
# 4 jobs (threads of one fio process), each its own 16 MiB region
rfio_verify numjobs4 --filename="$F1" --rw=randwrite --bsrange=4k-64k --iodepth=16 \
	--size=16m --offset=160m --offset_increment=16m --numjobs=4
grep -q 'rblk:.*error' "$T_WORK/fio-numjobs4.txt" && die "numjobs4 logged rblk errors"
# one controller per job instead of shared ones
rfio_verify private --filename="$F1" --rw=randwrite --bs=8k --iodepth=8 --size=8m \
	--offset=224m --offset_increment=8m --numjobs=2 --private_ctrl=1
# fio's default, processes: each job process connects its own controller
rfio_verify processes --thread=0 --filename="$F1" --rw=randwrite --bs=4k --iodepth=16 \
	--size=8m --offset=240m --offset_increment=8m --numjobs=2
# each job's I/Os take 2 queue pairs in turn; the controllers have 2 I/O queues (2 CPUs),
# so the second thread's pair comes from a controller of its own
rfio_verify qpairs --filename="$F1" --rw=randwrite --bsrange=4k-128k --iodepth=16 \
	--size=16m --offset=256m --offset_increment=16m --numjobs=2 --qpairs=2 --nr_io_queues=2
grep -q 'rblk:.*error' "$T_WORK/fio-qpairs.txt" && die "qpairs logged rblk errors"
rfio_verify qpairs-processes --thread=0 --filename="$F1" --rw=randwrite --bs=4k --iodepth=8 \
	--size=8m --offset=288m --offset_increment=8m --numjobs=2 --qpairs=2
# two namespaces, two files of one job
rfio_verify twofiles --filename="$F1:$F2" --rw=randwrite --bs=16k --iodepth=16 --size=32m
# SPDK's key:value form (every ':' escaped for fio), reading what twofiles wrote
rfio kv-read --filename="trtype\\:RDMA traddr\\:$VM_ADDR0 trsvcid\\:4420 subnqn\\:${NQN//:/\\:} hostaddr\\:$VM_ADDR1 ns\\:2" \
	--rw=randread --bs=4k --iodepth=8 --size=8m
# the target named by engine options: no escaping, the filename only picks the namespace
rfio_verify options --filename=ns=2 --traddr=$VM_ADDR0 --subnqn=$NQN --host_traddr=$VM_ADDR1 \
	--rw=randwrite --bs=4k --iodepth=4 --size=4m --offset=32m
# trims (Deallocate)
rfio trim --filename="$F2" --rw=randtrim --bs=64k --iodepth=4 --size=8m --offset=48m

kill -0 "${BG_PIDS[target]}" 2>/dev/null || { bg_log target; die "rblk-target died"; }
bg_stop target || { bg_log target; die "rblk-target did not exit cleanly"; }
log "PASS"
