#!/bin/bash
# target_vs_kernel.sh: rblk-target vs the kernel's nvmet-rdma target, both served to
# the same Linux host (nvme-rdma over Soft-RoCE, 10.99.0.2 -> 10.99.0.1) in ONE VM boot.
# A benchmark, not a test: it prints figures and writes JSON, and never judges them.
#
#   bench/target_vs_kernel.sh [--reps N] [--runtime S] [--stores ram,file]
#                             [--baseline OLD_BUILD] [--profile] [--trace] [--out DIR]
#                             [BUILD_DIR]
#
# Targets: "kernel" = nvmet-rdma (port 4420, subsystem ...:kbench) and "rblk" =
# rblk-target with its defaults (port 4421, subsystem ...:rbench), both up and both
# connected at once; fio alternates between their block devices (k r, r k, ...).
# Stores: "ram" = null_blk memory_backed=1, 256 MiB, one device per target (nullb0,
#   nullb1: identical, so neither target contends for the other's device lock);
#   "file" = one 256 MiB preallocated file on ext4 on a loop device (both targets open
#   the same file, O_DIRECT).
# Workloads (fio io_uring, --direct=1, one job): randread-4k-qd1 (latency avg, p99),
#   randread-4k-qd32 and randwrite-4k-qd32 (IOPS), read-128k-qd16 and write-128k-qd16,
#   read-1m-qd4 and write-1m-qd4 (MB/s; 1 MiB is one command at MDTS 1 MiB).
#   --workloads picks some (comma-separated; default all). --reps (default 3) x
#   --runtime (default 5 s) per workload and target.
# CPU: rblk-target's own utime+stime (/proc/PID/stat) per I/O; for both targets the
#   whole VM's busy CPU (user+nice+system+irq+softirq from /proc/stat) per I/O. The
#   kernel target runs in kworkers and softirq that cannot be attributed to it alone,
#   so the VM-wide figure is the comparable one: fio, the host driver and Soft-RoCE
#   cost the same on both sides, and the difference is the target. Also rblk-target's
#   idle CPU over 10 s with the host connected (keep-alives only).
# System calls (bench/syscalls.sh): after the timed reps, one more run per workload and
#   target, not timed: perf stat raw_syscalls:sys_enter (strace -c when perf does not
#   work) on fio and on rblk-target for RUNTIME s -> syscalls and CPU us per I/O for
#   each; then strace -c for the top calls. nvmet is in the kernel: fio's side only.
#   Idle: rblk-target's syscalls/s and top calls with the host connected.
# --profile (bench/profile.sh): one more run per workload and side, after the system
#   call runs, with perf record sampling the whole VM for RUNTIME s; DIR/raw/prof.*.comm
#   (share of the VM's CPU per command) and prof.*.sym (top symbols), and the report
#   prints the commands side by side: where the VM's CPU went with each target.
# --trace (bench/trace_qd1.py): one more run per queue-depth-1 workload and side, with
#   ftrace recording the host driver, the wire and the scheduler for RUNTIME s; every
#   I/O is cut into pieces (host driver and Soft-RoCE out, delivery to the target, its
#   wakeup, its own work, Soft-RoCE's send, the way back) and the report prints their
#   medians and the "floor": the latency left for a target that posted its reply the
#   moment it was told. DIR/raw/trace.STORE.WL.SIDE.json (and .trace.gz, the record).
# Host load: the load average and other qemu-system processes before the VM starts;
#   a warning in the output and DIR/host-load.json when the machine is not quiet.
# --baseline OLD_BUILD: a third side, "base" = OLD_BUILD's rblk-target (port 4422,
#   subsystem ...:bbench, its own null_blk device or the same file), served to the same
#   host in the same boot and alternating with the other two (k r b, b r k, ...): the A/B
#   of one change to the target, with rblk/base ratios and both targets' system calls.
#   The base side takes RBLK_BENCH_BASE_ARGS when set, else RBLK_BENCH_TARGET_ARGS: with
#   --baseline BUILD_DIR itself, that is the A/B of one option.
# RBLK_BENCH_TARGET_ARGS: more rblk-target flags (an A/B of one option across boots,
#   e.g. "--srq-depth 0"; say so when quoting the figures).
# Output: a table of medians and rblk/kernel ratios on stdout, DIR/summary.json (DIR
#   default BUILD_DIR/bench-out/target-vs-kernel; raw fio JSON in DIR/raw/).
# The VM is TCG (no KVM): absolute numbers mean little; compare the ratios.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
. "$HERE/workloads.sh"
REPS=3 RUNTIME=5 STORES=ram,file OUT= BASE= PROFILE=0 TRACE=0
WORKLOADS=randread-4k-qd1,randread-4k-qd32,randwrite-4k-qd32,read-128k-qd16,write-128k-qd16,read-1m-qd4,write-1m-qd4
die() { echo "target_vs_kernel: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--runtime) bench_opt_value $1 $#; RUNTIME=$2; shift 2 ;;
	--stores) bench_opt_value $1 $#; STORES=$2; shift 2 ;;
	--workloads) bench_opt_value $1 $#; WORKLOADS=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--profile) PROFILE=1; shift ;;
	--trace) TRACE=1; shift ;;
	--baseline) [ $# -ge 2 ] || die "--baseline needs OLD_BUILD"; BASE=$(realpath "$2"); shift 2 ;;
	-h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $REPS =~ ^[1-9][0-9]*$ && $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--reps and --runtime are positive integers"
[[ $STORES =~ ^(ram|file)(,(ram|file))*$ ]] || die "--stores: a comma-separated list of ram and file"
[[ $WORKLOADS =~ ^[a-z0-9-]+(,[a-z0-9-]+)*$ ]] || die "--workloads: a comma-separated list"
bench_check_workloads "$WORKLOADS"
[ -x "$BUILD/daemon/rblk-target" ] || die "$BUILD/daemon/rblk-target is not built"
[ -z "$BASE" ] || [ -x "$BASE/daemon/rblk-target" ] || die "$BASE/daemon/rblk-target is not built"
case $BASE in /tmp|/tmp/*) die "--baseline must not be under /tmp (the VM cannot see it)" ;; esac
bench_out target-vs-kernel
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
KNQN=nqn.2024-01.io.rblk:kbench RNQN=nqn.2024-01.io.rblk:rbench BNQN=nqn.2024-01.io.rblk:bbench
SIDES="kernel rblk"
[ -n "$RBLK_BENCH_BASE" ] && SIDES="kernel rblk base"
C=/sys/kernel/config/nvmet
RAW=$VM_OUT/raw
log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
die() { log "FAIL: $*"; [ -f /tmp/target.log ] && tail -20 /tmp/target.log >&2; exit 1; }
. $RBLK_BENCH_SRC/bench/syscalls.sh
. $RBLK_BENCH_SRC/bench/workloads.sh
. $RBLK_BENCH_SRC/bench/profile.sh
sc_probe
[ "$RBLK_BENCH_PROFILE" = 1 ] && prof_probe
modprobe -a nvme_rdma nvmet_rdma loop || die "modprobe"
modprobe null_blk nr_devices=3 gb=1 memory_backed=1 || die "null_blk"
# kernel target port (subsystems come and go per store)
mkdir $C/ports/1
echo rdma > $C/ports/1/addr_trtype; echo ipv4 > $C/ports/1/addr_adrfam
echo 10.99.0.1 > $C/ports/1/addr_traddr; echo 4420 > $C/ports/1/addr_trsvcid
echo "{\"kernel\": \"$(uname -r)\", \"cpus\": $(nproc), \"clk_tck\": $(getconf CLK_TCK), \"workloads\": \"$RBLK_BENCH_WORKLOADS\", \"syscall_tool\": \"$SC_TOOL\", \"clocksource\": \"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)\", \"baseline\": \"$RBLK_BENCH_BASE\", \"build\": \"$RBLK_BUILD\", \"target_args\": \"$RBLK_BENCH_TARGET_ARGS\", \"base_args\": \"${RBLK_BENCH_BASE_ARGS-$RBLK_BENCH_TARGET_ARGS}\"}" > $RAW/env.json

# Which clocks are system calls here: 20000 reads of each under perf (the interpreter's
# own start-up calls are in both counts; only the difference means anything). With an
# hpet clocksource the vDSO cannot read CLOCK_MONOTONIC and falls back to the system
# call; CLOCK_MONOTONIC_COARSE is served from the vDSO page whatever the clocksource.
clock_probe() {	# CLOCK_NAME -> system calls made by 20000 reads
	[ $SC_TOOL = perf ] || { echo null; return; }
	perf stat -e raw_syscalls:sys_enter -x, -o /tmp/clk.$1 -- python3 -c \
		"import time
for _ in range(20000): time.clock_gettime(time.$1)" 2>/dev/null
	awk -F, '/raw_syscalls:sys_enter/ { print $1 }' /tmp/clk.$1
}
CLK_PRECISE=$(clock_probe CLOCK_MONOTONIC) CLK_COARSE=$(clock_probe CLOCK_MONOTONIC_COARSE)
log "system calls for 20000 clock reads: CLOCK_MONOTONIC $CLK_PRECISE, CLOCK_MONOTONIC_COARSE $CLK_COARSE"
echo "{\"reads\": 20000, \"monotonic\": ${CLK_PRECISE:-null}, \"monotonic_coarse\": ${CLK_COARSE:-null}}" > $RAW/clock-probe.json

connect() {
	nvme connect -t rdma -a 10.99.0.1 -s $2 -n $1 -w 10.99.0.2 >&2 || die "nvme connect $1"
	kernel_dev $1 || die "no block device for $1"
}
proc_cpu() { local s; read -r s < /proc/$1/stat; s=${s##*) }; set -- $s; echo $(( ${12} + ${13} )); }
vm_busy() { local c u n s i w q sq st; read -r c u n s i w q sq st _ < /proc/stat; echo $((u + n + s + q + sq)) $((u + n + s + i + w + q + sq + st)); }

start_target() {	# VAR BUILD PORT NQN PATH LOG ARGS: start an rblk-target, wait; its pid in VAR
	$2/daemon/rblk-target --listen 10.99.0.1:$3 --subsystem $4 --ns $5 --allow-any-host \
		$7 > $6 2>&1 &
	printf -v $1 %s $!
	for _ in $(seq 300); do grep -q 'notice: ready' $6 && break; sleep 0.2; done
	grep -q 'notice: ready' $6 || die "rblk-target ($2) did not start"
}
setup_store() {	# STORE: kernel subsystem + rblk-target(s) on it; sets KDEV RDEV TPID (BDEV BPID)
	local store=$1 kpath rpath bpath
	case $store in
	ram) kpath=/dev/nullb0 rpath=/dev/nullb1 bpath=/dev/nullb2
	     for d in 0 1 2; do
		dd if=/dev/zero of=/dev/nullb$d bs=1M count=256 oflag=direct status=none
	     done ;;
	file) truncate -s 300M /tmp/ext4.img
	      L=$(losetup -f --show /tmp/ext4.img) || die "losetup"
	      mkfs.ext4 -q $L && mkdir -p /tmp/mnt && mount $L /tmp/mnt || die "ext4"
	      fallocate -l 256M /tmp/mnt/bench.img || die "fallocate"
	      dd if=/dev/zero of=/tmp/mnt/bench.img bs=1M count=256 conv=notrunc oflag=direct status=none
	      kpath=/tmp/mnt/bench.img rpath=/tmp/mnt/bench.img bpath=/tmp/mnt/bench.img ;;
	esac
	mkdir $C/subsystems/$KNQN && echo 1 > $C/subsystems/$KNQN/attr_allow_any_host
	mkdir $C/subsystems/$KNQN/namespaces/1
	echo $kpath > $C/subsystems/$KNQN/namespaces/1/device_path
	echo 1 > $C/subsystems/$KNQN/namespaces/1/enable || die "nvmet namespace $kpath"
	ln -s $C/subsystems/$KNQN $C/ports/1/subsystems/$KNQN || die "nvmet port link"
	start_target TPID $RBLK_BUILD 4421 $RNQN $rpath /tmp/target.log "$RBLK_BENCH_TARGET_ARGS"
	KDEV=$(connect $KNQN 4420) RDEV=$(connect $RNQN 4421)
	if [ -n "$RBLK_BENCH_BASE" ]; then
		start_target BPID $RBLK_BENCH_BASE 4422 $BNQN $bpath /tmp/target-base.log \
			"${RBLK_BENCH_BASE_ARGS-$RBLK_BENCH_TARGET_ARGS}"
		BDEV=$(connect $BNQN 4422)
		log "$store: base $BDEV (rblk-target of $RBLK_BENCH_BASE on $bpath)"
	fi
	KDESC="nvmet-rdma on $kpath" RDESC="rblk-target (backend $(grep -oE 'engine (uring|aio)' /tmp/target.log | head -1 | cut -d' ' -f2)) on $rpath"
	log "$store: kernel $KDEV ($KDESC), rblk $RDEV ($RDESC)"
	cp /tmp/target.log $RAW/target-$store-start.log
}
teardown_store() {
	local store=$1
	nvme disconnect -n $KNQN >&2; nvme disconnect -n $RNQN >&2
	kill -TERM $TPID; wait $TPID; log "rblk-target exited with $?"
	cp /tmp/target.log $RAW/target-$store.log
	if [ -n "$RBLK_BENCH_BASE" ]; then
		nvme disconnect -n $BNQN >&2
		kill -TERM $BPID; wait $BPID; log "base rblk-target exited with $?"
		cp /tmp/target-base.log $RAW/target-base-$store.log
	fi
	rm -f $C/ports/1/subsystems/$KNQN
	echo 0 > $C/subsystems/$KNQN/namespaces/1/enable
	rmdir $C/subsystems/$KNQN/namespaces/1 $C/subsystems/$KNQN
	if [ $store = file ]; then umount /tmp/mnt; losetup -d $L; rm -f /tmp/ext4.img; fi
}

WLS=$(echo "$RBLK_BENCH_WORKLOADS" | tr , ' ')
# A side's block device, and the rblk-target whose CPU and calls are counted with it
# (for the kernel side: the idle rblk-target, what it burns while nvmet serves).
side_dev() { case $1 in kernel) echo $KDEV ;; rblk) echo $RDEV ;; base) echo $BDEV ;; esac; }
side_pid() { [ $1 = base ] && echo $BPID || echo $TPID; }
run_one() {	# STORE SIDE WL REP
	local store=$1 side=$2 wl=$3 rep=$4 dev pid p0 p1 b0 t0 b1 t1 base
	base=$RAW/$store.$wl.$side.$rep
	dev=$(side_dev $side) pid=$(side_pid $side)
	p0=$(proc_cpu $pid); read -r b0 t0 <<< "$(vm_busy)"
	fio --name=$wl --filename=$dev --ioengine=io_uring --direct=1 --time_based=1 \
		--runtime=$RBLK_BENCH_RUNTIME --size=256M --output-format=json $(fio_args $wl) \
		--output=$base.json || die "fio $store $side $wl rep $rep failed"
	p1=$(proc_cpu $pid); read -r b1 t1 <<< "$(vm_busy)"
	echo "{\"rblk_ticks\": $((p1 - p0)), \"vm_busy_ticks\": $((b1 - b0)), \"vm_total_ticks\": $((t1 - t0))}" > $base.cpu.json
	log "$store $wl $side rep $rep done"
}
# fio for a counted or sampled window in the background (pid in FIO_PID): it ramps 1 s
# and runs RUNTIME+2 s, so the caller sleeps 1 s and looks for RUNTIME s.
fio_window() {	# DEV WL OUTPUT
	fio --name=$2 --filename=$1 --ioengine=io_uring --direct=1 --time_based=1 --thread \
		--eta=never --disk_util=0 --ramp_time=1 --runtime=$((RBLK_BENCH_RUNTIME + 2)) --size=256M \
		--output-format=json $(fio_args $2) --output=$3 &
	FIO_PID=$!
}
# The syscall run, apart from the timed ones: fio (--thread, so one process holds the
# job) ramps 1 s and runs RUNTIME+2 s; after the ramp the counters attach to fio and,
# on the rblk side, to rblk-target for RUNTIME s. I/Os in the window = fio's IOPS x the
# counted seconds (the device's own counters are no use: the multipath head node keeps
# no statistics). Then the same again under strace -c for the breakdown. The kernel
# target runs in kworkers and softirq: only fio, the host side, is counted there.
sc_run() {	# STORE SIDE WL
	local store=$1 side=$2 wl=$3 dev fpid bpid base pass tpid
	dev=$(side_dev $side) tpid=$(side_pid $side)
	for pass in count breakdown; do
		base=$RAW/sc.$store.$wl.$side
		fio_window $dev $wl $base.$pass.fio.json
		fpid=$FIO_PID
		sleep 1
		if [ $pass = count ]; then
			sc_start $fpid $base.fio
			[ $side != kernel ] && sc_start $tpid $base.target
			sleep $RBLK_BENCH_RUNTIME
			sc_stop $fpid $base.fio
			[ $side != kernel ] && sc_stop $tpid $base.target
		else
			sc_breakdown $fpid $RBLK_BENCH_RUNTIME $base.fio.strace &
			bpid=$!
			[ $side != kernel ] && sc_breakdown $tpid $RBLK_BENCH_RUNTIME $base.target.strace
			wait $bpid
		fi
		wait $fpid || die "fio $store $side $wl ($pass run) failed"
	done
	log "$store $wl $side syscall runs done"
}
# The profile run: like the syscall run's count pass, the whole VM sampled instead.
prof_run() {	# STORE SIDE WL
	local store=$1 side=$2 wl=$3 fpid
	fio_window $(side_dev $side) $wl $RAW/prof.$store.$wl.$side.fio.json
	fpid=$FIO_PID
	sleep 1
	prof_record $RBLK_BENCH_RUNTIME $RAW/prof.$store.$wl.$side
	wait $fpid || die "fio $store $side $wl (profile run) failed"
	log "$store $wl $side profile run done"
}
# The trace run (--trace), for queue-depth-1 workloads: ftrace's record of the host
# driver's commands and completions, the veths' transmits and the scheduler's and
# workqueues' hand-offs, cut per I/O by bench/trace_qd1.py.
TRACE_EVENTS="nvme/nvme_setup_cmd nvme/nvme_complete_rq net/net_dev_xmit sched/sched_waking
	sched/sched_switch workqueue/workqueue_queue_work workqueue/workqueue_execute_start"
trace_run() {	# STORE SIDE WL
	local store=$1 side=$2 wl=$3 T=/sys/kernel/tracing fpid e base
	base=$RAW/trace.$store.$wl.$side
	[ -d $T/events ] || mount -t tracefs nodev $T || die "tracefs"
	echo 0 > $T/tracing_on; echo > $T/trace; echo 40000 > $T/buffer_size_kb
	for e in $TRACE_EVENTS; do echo 1 > $T/events/$e/enable || die "trace event $e"; done
	fio_window $(side_dev $side) $wl $base.fio.json
	fpid=$FIO_PID
	sleep 1
	echo 1 > $T/tracing_on; sleep $RBLK_BENCH_RUNTIME; echo 0 > $T/tracing_on
	wait $fpid || die "fio $store $side $wl (trace run) failed"
	echo 0 > $T/events/enable
	cat $T/trace > /tmp/qd1.trace; echo > $T/trace
	python3 $RBLK_BENCH_SRC/bench/trace_qd1.py --json $base.json /tmp/qd1.trace >&2 ||
		log "$store $wl $side: no I/O could be cut from the trace"
	gzip -c /tmp/qd1.trace > $base.trace.gz; rm -f /tmp/qd1.trace
	log "$store $wl $side trace run done"
}

for store in ${RBLK_BENCH_STORES//,/ }; do
	setup_store $store
	echo "{\"kernel\": \"$KDESC\", \"rblk\": \"$RDESC\"}" > $RAW/$store.desc.json
	for rep in $(seq $RBLK_BENCH_REPS); do
		for wl in $WLS; do
			order=$SIDES
			[ $((rep % 2)) = 1 ] || order=$(echo $SIDES | tr ' ' '\n' | tac)
			for side in $order; do run_one $store $side $wl $rep; done
		done
	done
	sc_hold
	# rblk-target idle, the host connected (keep-alives only)
	sleep 2
	p0=$(proc_cpu $TPID); s0=$(cut -d' ' -f1 /proc/uptime)
	sc_start $TPID $RAW/sc.$store.idle.target
	sleep 10
	sc_stop $TPID $RAW/sc.$store.idle.target
	p1=$(proc_cpu $TPID); s1=$(cut -d' ' -f1 /proc/uptime)
	sc_breakdown $TPID 5 $RAW/sc.$store.idle.target.strace
	echo "{\"rblk_ticks\": $((p1 - p0)), \"seconds\": $(awk "BEGIN { print $s1 - $s0 }")}" > $RAW/$store.idle.json
	log "$store: rblk-target idle: $((p1 - p0)) ticks in 10 s"
	for wl in $WLS; do for side in $SIDES; do sc_run $store $side $wl; done; done
	sc_release
	if [ "$RBLK_BENCH_PROFILE" = 1 ] && [ "$PROF_OK" = 1 ]; then
		for wl in $WLS; do for side in $SIDES; do prof_run $store $side $wl; done; done
	fi
	if [ "$RBLK_BENCH_TRACE" = 1 ]; then
		for wl in $WLS; do
			[[ " $(fio_args $wl) " == *" --iodepth=1 "* ]] || continue
			for side in $SIDES; do trace_run $store $side $wl; done
		done
	fi
	teardown_store $store
done
log "done"
VMEOF

echo "target_vs_kernel: stores $STORES, workloads $WORKLOADS, $REPS reps x $RUNTIME s, build $BUILD${BASE:+, baseline $BASE}, results in $OUT"
nst=$(echo "$STORES" | tr ',' '\n' | wc -l)
nwl=$(echo "$WORKLOADS" | tr ',' '\n' | wc -l)
nsides=$([ -n "$BASE" ] && echo 3 || echo 2)
export VM_OUT=$OUT VM_TIMEOUT=$((300 + nst * (60 + REPS * nsides * nwl * (RUNTIME + 8) + nsides * nwl * (2 + PROFILE + TRACE) * (RUNTIME + 6))))
export RBLK_BENCH_TARGET_ARGS=${RBLK_BENCH_TARGET_ARGS:-}
[ -z "${RBLK_BENCH_BASE_ARGS+set}" ] || export RBLK_BENCH_BASE_ARGS
export RBLK_BUILD=$BUILD RBLK_BENCH_REPS=$REPS RBLK_BENCH_RUNTIME=$RUNTIME RBLK_BENCH_STORES=$STORES
export RBLK_BENCH_WORKLOADS=$WORKLOADS RBLK_BENCH_SRC=$SRC RBLK_BENCH_BASE=$BASE RBLK_BENCH_PROFILE=$PROFILE
export RBLK_BENCH_TRACE=$TRACE
bench_host_load "$OUT/host-load.json"
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
python3 "$HERE/target_vs_kernel_report.py" "$OUT"
