#!/bin/bash
# initiator_vs_kernel.sh: our initiator (`rblk bench`) vs the kernel's NVMe-oF host
# (nvme-rdma + fio io_uring --direct=1 on /dev/nvmeXnY), both against the SAME kernel
# nvmet-rdma target on a memory-backed null_blk, plus the transport's ceiling (perftest),
# in ONE Soft-RoCE VM boot. A benchmark, not a test: it prints figures and writes JSON,
# and never judges them.
#
#   bench/initiator_vs_kernel.sh [--reps N] [--runtime S] [--sweep-time S]
#                                [--out DIR] [--parse-only] [BUILD_DIR]
#
# Target: nvmet-rdma on 10.99.0.1:4420 (rxe0), one namespace = null_blk memory_backed=1
#   (1 GiB, the first 256 MiB written before anything runs; every run uses that region).
#   Hosts connect from 10.99.0.2 (rxe1).
# Transport ceiling, 128 KiB messages, each rep: ib_write_bw and ib_read_bw -R with the
#   client on rxe0 (10.99.0.1 -> 10.99.0.2), i.e. the same RDMA operation in the same
#   direction as the target issues it: for an NVMe read the target RDMA WRITEs the data
#   into the host, for an NVMe write it RDMA READs it from the host. Bandwidth = bytes
#   counted / sampled seconds (-D S+2 -f 1: S seconds sampled; perftest's own MB/s comes
#   from the TSC and the CPU MHz and is unreliable under TCG). Once: `rblk bench --sweep`
#   read and write (512 B..1 MiB, QD32, --sweep-time per size, default 2 s); the report
#   gives its bandwidth per size and its 128 KiB read/write bandwidth over ib_write_bw/
#   ib_read_bw.
# Initiators, one job each over the same number of I/O queues: the kernel host spreads
#   its fio job over its queues (one per vCPU), rblk bench gets --qpairs with that number
#   (the controller's queue_count in sysfs); same region: randread-4k-qd32 (IOPS),
#   randread-4k-qd1 (latency avg and p99), read-128k-qd16 and write-128k-qd16 (MB/s).
#   "kernel" = fio --ioengine=io_uring --direct=1 --lat_percentiles=1 on the kernel
#   host's block device; "rblk" = rblk bench -o json with the same --rw/--bs/--qd/--time.
#   Latency is the total on both sides: fio's lat (submission included) and rblk bench's
#   (stamped just before rblk_submit). --reps (default 3) x --runtime (default 5 s);
#   sides alternate each rep (k r, r k, ...); medians and rblk/kernel ratios.
# Fairness: the kernel host is connected once, before the first run, and stays connected
#   (idle between its runs: keep-alives only); `rblk bench` connects, measures and
#   disconnects every run, as a user of the CLI would. Neither side's connect is timed:
#   fio's clock starts after its device is open, rblk bench's after its queue pair is
#   up. rblk uses its own host NQN so that the target sees two distinct hosts.
# Output: a table on stdout, DIR/summary.json (DIR default BUILD_DIR/bench-out/
#   initiator-vs-kernel; raw fio, rblk bench and perftest outputs in DIR/raw/).
#   --parse-only: no VM; summarise what DIR/raw already holds.
# System calls (bench/syscalls.sh): one more run per workload and initiator, not timed:
#   perf stat raw_syscalls:sys_enter (or strace -c) on fio or rblk bench -> syscalls and
#   CPU us per I/O, strace -c's top calls. A warning when another VM or a heavy process
#   shares the machine (DIR/host-load.json).
# The VM is TCG (no KVM): absolute numbers mean little; compare the ratios.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
REPS=3 RUNTIME=5 SWEEP_TIME=2 OUT= PARSE_ONLY=0
die() { echo "initiator_vs_kernel: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--runtime) bench_opt_value $1 $#; RUNTIME=$2; shift 2 ;;
	--sweep-time) bench_opt_value $1 $#; SWEEP_TIME=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--parse-only) PARSE_ONLY=1; shift ;;
	-h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $REPS =~ ^[1-9][0-9]*$ && $RUNTIME =~ ^[1-9][0-9]*$ && $SWEEP_TIME =~ ^[1-9][0-9]*$ ]] ||
	die "--reps, --runtime and --sweep-time are positive integers"
[ $PARSE_ONLY = 1 ] || [ -x "$BUILD/cli/rblk" ] || die "$BUILD/cli/rblk is not built"
bench_out initiator-vs-kernel
if [ $PARSE_ONLY = 0 ]; then
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
mkdir -p /tmp/ivk && cd /tmp/ivk || exit 1
T_WORK=/tmp/ivk T_NAME=initiator-vs-kernel
. "$RBLK_VM_LIB"
RBLK=$(rblk_bin cli/rblk) || exit 1
need_cmd fio fio; need_cmd nvme nvme-cli; need_cmd ib_write_bw perftest
. $RBLK_BENCH_SRC/bench/syscalls.sh
. $RBLK_BENCH_SRC/bench/workloads.sh
sc_probe
NQN=nqn.2024-01.io.rblk:ibench
RUNTIME=$RBLK_BENCH_RUNTIME RAW=$VM_OUT/raw
REGION=268435456	# 256 MiB: written once below, then every run stays inside it
PT_SIZE=131072
# rblk as a distinct host (the kernel host uses /etc/nvme/hostnqn)
RC="-t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -N 1 --no-progress
    -q nqn.2024-01.io.rblk:host:initiator-bench -I 5f0c1b7e-6a8d-4b8e-9a55-726c6b62656e
    --offset 0 --size $REGION"

blk=$(null_blk_create 1 memory_backed=1) || exit 1
dd if=/dev/zero of=$blk bs=1M count=256 oflag=direct status=none || die "filling $blk"
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN $blk
nvmet_expose $NQN 1
KDEV=$(nvme_connect_rdma $NQN) || exit 1
# as many queue pairs for rblk bench's one job as the kernel host spreads its job over
KQ=$(kernel_io_queues $NQN) || die "no I/O queue count in sysfs for $NQN's controller"
RC="$RC --qpairs $KQ"
mtu=$(ibv_devinfo -d rxe0 | awk '/active_mtu/{print $2; exit}')
cat > $RAW/env.json <<EOF
{"kernel": "$(uname -r)", "cpus": $(nproc), "mtu": ${mtu:-0}, "kernel_dev": "$KDEV",
 "target": "kernel nvmet-rdma, null_blk memory_backed=1 (1 GiB, 256 MiB used)",
 "rblk_version": "$($RBLK --version 2>&1 | head -1)", "fio_version": "$(fio --version)",
 "kernel_io_queues": $KQ, "runtime_s": $RUNTIME, "reps": $RBLK_BENCH_REPS, "sweep_time_s": $RBLK_BENCH_SWEEP_TIME,
 "clk_tck": $(getconf CLK_TCK), "syscall_tool": "$SC_TOOL"}
EOF
log "kernel host: $KDEV ($KQ I/O queues; rblk bench --qpairs $KQ); rxe MTU $mtu"

# perftest KIND REP: ib_KIND_bw, client on rxe0 (the target's side), server on rxe1
perftest() {
	local kind=$1 rep=$2 tool=ib_$1_bw base=$RAW/perftest.$1.$2 d=$((RUNTIME + 2))
	local cnt p0 crc src bytes iters peak avg rate
	bg_start $tool-server stdbuf -oL $tool -R -d rxe1 -F -s $PT_SIZE -D $d -f 1
	if ! wait_for_line 30 "$T_WORK/$tool-server.log" 'Waiting for client' $BG_PID; then
		bg_log $tool-server >&2; bg_stop $tool-server; return
	fi
	sleep 1	# the banner comes just before rdma_cm starts listening
	# the data leaves rxe0 for a WRITE and arrives on rxe0 for a READ
	[ $kind = write ] && cnt=sent_pkts || cnt=rcvd_pkts
	p0=$(rxe_counter rxe0 $cnt)
	timeout $((d + 60)) $tool -R -d rxe0 -F -s $PT_SIZE -D $d -f 1 $VM_ADDR1 > $base.txt 2>&1
	crc=$?
	bg_wait $tool-server 60; src=$?
	cp "$T_WORK/$tool-server.log" $base.server.txt
	read -r bytes iters peak avg rate < <(awk '/#bytes/{getline; print; exit}' $base.txt)
	echo "{\"tool\": \"$tool\", \"size\": $PT_SIZE, \"seconds\": $RUNTIME, \"iterations\": ${iters:-0}," \
	     "\"perftest_avg\": \"${avg:-}\", \"rxe0_$cnt\": $(($(rxe_counter rxe0 $cnt) - p0))," \
	     "\"client_rc\": $crc, \"server_rc\": $src}" > $base.json
	log "$tool rep $rep: ${iters:-0} x $PT_SIZE B in ${RUNTIME}s (client rc $crc, server rc $src)"
}

sweep() {	# DIR: rblk bench --sweep
	local rw=$1 base=$RAW/sweep.$1 extra=
	[ $rw = write ] && extra=--force
	timeout $((30 * RBLK_BENCH_SWEEP_TIME + 120)) $RBLK bench $RC --sweep --rw $rw $extra \
		--sweep-time $RBLK_BENCH_SWEEP_TIME -o json > $base.json 2> $base.err
	echo $? > $base.rc
	log "rblk bench --sweep --rw $rw: exit $(cat $base.rc)"
}

WLS="randread-4k-qd32 randread-4k-qd1 read-128k-qd16 write-128k-qd16"
run_one() {	# SIDE WL REP
	local side=$1 wl=$2 rep=$3 base=$RAW/$2.$1.$3
	if [ $side = kernel ]; then
		timeout $((RUNTIME + 90)) fio --name=$wl --filename=$KDEV --ioengine=io_uring --direct=1 \
			--time_based=1 --runtime=$RUNTIME --size=$REGION --eta=never --lat_percentiles=1 \
			--output-format=json $(fio_args $wl) --output=$base.json > $base.err 2>&1
	else
		timeout $((RUNTIME + 90)) $RBLK bench $RC $(rblk_args $wl) --time $RUNTIME -o json \
			> $base.json 2> $base.err
	fi
	echo $? > $base.rc
	log "$wl $side rep $rep: exit $(cat $base.rc)"
}

for rep in $(seq $RBLK_BENCH_REPS); do
	perftest write $rep
	perftest read $rep
	if [ $rep = 1 ]; then sweep read; sweep write; fi
	for wl in $WLS; do
		if [ $((rep % 2)) = 1 ]; then
			run_one kernel $wl $rep; run_one rblk $wl $rep
		else
			run_one rblk $wl $rep; run_one kernel $wl $rep
		fi
	done
done
# The syscall runs, apart from the timed ones: the initiator runs RUNTIME+4 s; after 3 s
# (rblk bench connects first) the counter attaches to fio or rblk bench for RUNTIME s,
# then strace -c for the top calls. The target is nvmet, in the kernel: nothing to
# count there. I/Os = the run's IOPS x the counted seconds on both sides.
sc_one() {	# SIDE WL
	local side=$1 wl=$2 base=$RAW/sc.$2.$1 ipid pass t=$((RUNTIME + 4))
	for pass in count breakdown; do
		if [ $side = kernel ]; then
			# --thread: the job is a thread of the process counted (a forked
			# job process would escape perf stat -p and strace -p)
			fio --name=$wl --filename=$KDEV --ioengine=io_uring --direct=1 --time_based=1 \
				--runtime=$t --size=$REGION --eta=never --output-format=json $(fio_args $wl) \
				--thread=1 --output=$base.$pass.out.json > $base.$pass.err 2>&1 &
		else
			$RBLK bench $RC $(rblk_args $wl) --time $t -o json > $base.$pass.out.json \
				2> $base.$pass.err &
		fi
		ipid=$!
		sleep 3
		if [ $pass = count ]; then
			sc_start $ipid $base.init; sleep $RUNTIME; sc_stop $ipid $base.init
		else
			sc_breakdown $ipid $RUNTIME $base.init.strace
		fi
		wait $ipid || log "$wl $side ($pass run) failed: $(tail -1 $base.$pass.err)"
	done
	log "$wl $side syscall runs done"
}
sc_hold
for wl in $WLS; do sc_one kernel $wl; sc_one rblk $wl; done
sc_release
nvme disconnect -n $NQN >&2
dmesg > $RAW/dmesg.txt
log "done"
VMEOF

echo "initiator_vs_kernel: $REPS reps x $RUNTIME s, sweeps $SWEEP_TIME s per size, build $BUILD, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=$((240 + REPS * (2 * (RUNTIME + 25) + 8 * (RUNTIME + 15)) + 2 * (12 * SWEEP_TIME + 30) + 8 * (RUNTIME + 10)))
export RBLK_BUILD=$BUILD RBLK_VM_LIB=$SRC/tests/vm/lib.sh RBLK_BENCH_SRC=$SRC
export RBLK_BENCH_REPS=$REPS RBLK_BENCH_RUNTIME=$RUNTIME RBLK_BENCH_SWEEP_TIME=$SWEEP_TIME
bench_host_load "$OUT/host-load.json"
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
fi
python3 "$HERE/initiator_vs_kernel_report.py" "$OUT"
