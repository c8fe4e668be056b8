#!/bin/bash
# fio_plugin_bench.sh: fio through the rblk plugin vs fio with io_uring on the kernel
# host's /dev/nvmeXnY, in one Soft-RoCE VM boot, against the same target. A benchmark,
# not a test: it prints figures and writes JSON, and never judges them.
#
#   bench/fio_plugin_bench.sh [--reps N] [--runtime S] [--target kernel|rblk]
#                             [--out DIR] [--parse-only] [BUILD_DIR]
#
# Workloads (one job each, 10.99.0.2 -> 10.99.0.1 across rxe1 -> rxe0):
#   randread-4k-qd32   IOPS
#   randread-4k-qd1    latency avg and p99 (total: fio's lat, submission included, usec)
#   seqread-128k-qd16  MB/s
# Sides: "plugin" (fio --ioengine=external:librblk_fio.so --thread=1) and "kernel" (fio
# --ioengine=io_uring --direct=1 on the kernel nvme-rdma host's block device, connected
# from the same address to the same subsystem). One job each over the same number of I/O
# queues: the kernel host spreads its job over its queues (one per vCPU), the plugin gets
# qpairs= with that number (the controller's queue_count in sysfs). Each rep runs every
# workload on both sides, alternating which goes first (A B, B A, ...); --reps (default 4)
# x --runtime (default 6 s, after 1 s ramp). The host parses fio's JSON (python3), prints
# medians and plugin/kernel ratios, and writes DIR/summary.json (DIR default
# BUILD_DIR/bench-out/fio-plugin; raw fio JSON in DIR/raw/).
# Target: "kernel" (default: nvmet-rdma on a null_blk without memory, the cheapest
# target, so the initiators' costs show) or "rblk" (rblk-target on a 1 GiB tmpfs file).
# System calls (bench/syscalls.sh): one more run per workload and side, not timed: perf
#   stat raw_syscalls:sys_enter (or strace -c) on fio (the plugin lives in it) and on
#   rblk-target -> syscalls and CPU us per I/O, strace -c's top calls; rblk-target idle.
#   A warning when another VM or a heavy process shares the machine (host-load.json).
# --parse-only: no VM; summarise the raw JSON already in DIR/raw.
# Absolute numbers from a TCG VM mean little; the ratios are the result.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
REPS=4 RUNTIME=6 TARGET=kernel OUT= PARSE_ONLY=0
die() { echo "fio_plugin_bench: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--runtime) bench_opt_value $1 $#; RUNTIME=$2; shift 2 ;;
	--target) bench_opt_value $1 $#; TARGET=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--parse-only) PARSE_ONLY=1; shift ;;
	-h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $REPS =~ ^[1-9][0-9]*$ && $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--reps and --runtime are positive integers"
case $TARGET in kernel|rblk) ;; *) die "--target kernel or rblk" ;; esac
[ $PARSE_ONLY = 1 ] || [ -f "$BUILD/fio-plugin/librblk_fio.so" ] ||
	die "$BUILD/fio-plugin/librblk_fio.so is not built (cmake -DRBLK_FIO_PLUGIN=ON, build target rblk_fio)"
[ $PARSE_ONLY = 1 ] || [ "$TARGET" = kernel ] || [ -x "$BUILD/daemon/rblk-target" ] || die "$BUILD/daemon/rblk-target is not built"
bench_out fio-plugin
if [ $PARSE_ONLY = 0 ]; then
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
B=$RBLK_BUILD SO=$RBLK_BUILD/fio-plugin/librblk_fio.so
NQN=nqn.2024-01.io.rblk:fio-bench
log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
die() { log "FAIL: $*"; exit 1; }
. $RBLK_BENCH_SRC/bench/syscalls.sh
. $RBLK_BENCH_SRC/bench/workloads.sh
sc_probe
TPID=
modprobe nvme_rdma || die "modprobe nvme_rdma"
if [ "$RBLK_BENCH_TARGET" = kernel ]; then
	modprobe null_blk nr_devices=1 gb=4 || die "null_blk"
	modprobe nvmet_rdma || die "nvmet_rdma"
	C=/sys/kernel/config/nvmet
	mkdir $C/subsystems/$NQN && echo 1 > $C/subsystems/$NQN/attr_allow_any_host
	mkdir $C/subsystems/$NQN/namespaces/1
	echo /dev/nullb0 > $C/subsystems/$NQN/namespaces/1/device_path
	echo 1 > $C/subsystems/$NQN/namespaces/1/enable || die "nvmet namespace"
	mkdir $C/ports/1
	echo rdma > $C/ports/1/addr_trtype; echo ipv4 > $C/ports/1/addr_adrfam
	echo 10.99.0.1 > $C/ports/1/addr_traddr; echo 4420 > $C/ports/1/addr_trsvcid
	ln -s $C/subsystems/$NQN $C/ports/1/subsystems/$NQN || die "nvmet port"
	TDESC="kernel nvmet-rdma, null_blk (no memory)"
else
	truncate -s 1G /tmp/bench.img
	dd if=/dev/zero of=/tmp/bench.img bs=1M count=1024 conv=notrunc status=none
	$B/daemon/rblk-target --listen 10.99.0.1 --subsystem $NQN --ns /tmp/bench.img \
		--allow-any-host > /tmp/target.log 2>&1 &
	TPID=$!
	for i in $(seq 300); do grep -q ready /tmp/target.log && break; sleep 0.2; done
	grep -q ready /tmp/target.log || { cat /tmp/target.log; die "rblk-target did not start"; }
	TDESC="rblk-target, 1 GiB file on tmpfs"
fi
nvme connect -t rdma -a 10.99.0.1 -s 4420 -n $NQN -w 10.99.0.2 >&2 || die "nvme connect"
dev=$(kernel_dev $NQN) || die "no block device for $NQN"
# as many queue pairs for the plugin's one job as the kernel host spreads its job over
KQ=$(kernel_io_queues $NQN) || die "no I/O queue count in sysfs for $NQN's controller"
TRID="trtype=RDMA adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=${NQN//:/\\:} hostaddr=10.99.0.2 ns=1"
echo "{\"target\": \"$TDESC\", \"kernel_dev\": \"$dev\", \"kernel\": \"$(uname -r)\", \"cpus\": $(nproc), \"kernel_io_queues\": $KQ, \"clk_tck\": $(getconf CLK_TCK), \"syscall_tool\": \"$SC_TOOL\"}" > $VM_OUT/raw/env.json
log "target: $TDESC; kernel host device $dev ($KQ I/O queues; plugin qpairs=$KQ)"

COMMON="--eta=never --disk_util=0 --lat_percentiles=1 --direct=1 --time_based=1 --ramp_time=1 --runtime=$RBLK_BENCH_RUNTIME --size=1g --output-format=json"
run_side() {
	local side=$1 wl=$2 rep=$3 out=$VM_OUT/raw/$2.$1.$3.json
	if [ $side = plugin ]; then
		fio --name=$wl --ioengine=external:$SO --thread=1 --qpairs=$KQ --filename="$TRID" $COMMON \
			$(fio_args $wl) --output=$out
	else
		fio --name=$wl --ioengine=io_uring --filename=$dev $COMMON $(fio_args $wl) --output=$out
	fi || die "fio $side $wl rep $rep failed"
	log "$wl $side rep $rep done"
}
for rep in $(seq $RBLK_BENCH_REPS); do
	for wl in randread-4k-qd32 randread-4k-qd1 seqread-128k-qd16; do
		if [ $((rep % 2)) = 1 ]; then
			run_side plugin $wl $rep; run_side kernel $wl $rep
		else
			run_side kernel $wl $rep; run_side plugin $wl $rep
		fi
	done
done
# The syscall runs, apart from the timed ones: fio runs RUNTIME+4 s; after 3 s (the
# plugin connects first) the counters attach to fio and, with --target rblk, to
# rblk-target for RUNTIME s; then the same under strace -c for the top calls. The plugin
# has no block device to count commands on, so on both sides I/Os = the run's IOPS x
# the counted seconds (the window lies inside fio's steady state).
sc_side() {	# SIDE WL
	local side=$1 wl=$2 base=$VM_OUT/raw/sc.$2.$1 fpid bpid pass
	for pass in count breakdown; do
		if [ $side = plugin ]; then
			fio --name=$wl --ioengine=external:$SO --thread=1 --qpairs=$KQ --filename="$TRID" $COMMON \
				$(fio_args $wl) --runtime=$((RBLK_BENCH_RUNTIME + 4)) --output=$base.$pass.fio.json &
		else
			# --thread as the plugin side: a forked job process would escape
			# perf stat -p and strace -p, which count the threads of one process
			fio --name=$wl --ioengine=io_uring --filename=$dev $COMMON $(fio_args $wl) \
				--thread=1 --runtime=$((RBLK_BENCH_RUNTIME + 4)) --output=$base.$pass.fio.json &
		fi
		fpid=$!
		sleep 3
		if [ $pass = count ]; then
			sc_start $fpid $base.fio
			[ -n "$TPID" ] && sc_start $TPID $base.target
			sleep $RBLK_BENCH_RUNTIME
			sc_stop $fpid $base.fio
			[ -n "$TPID" ] && sc_stop $TPID $base.target
		else
			sc_breakdown $fpid $RBLK_BENCH_RUNTIME $base.fio.strace &
			bpid=$!
			[ -n "$TPID" ] && sc_breakdown $TPID $RBLK_BENCH_RUNTIME $base.target.strace
			wait $bpid
		fi
		wait $fpid || die "fio $side $wl ($pass run) failed"
	done
	log "$wl $side syscall runs done"
}
sc_hold
for wl in randread-4k-qd32 randread-4k-qd1 seqread-128k-qd16; do sc_side plugin $wl; sc_side kernel $wl; done
if [ -n "$TPID" ]; then	# rblk-target idle, the kernel host connected
	sc_start $TPID $VM_OUT/raw/sc.idle.target; sleep 10; sc_stop $TPID $VM_OUT/raw/sc.idle.target
	sc_breakdown $TPID 5 $VM_OUT/raw/sc.idle.target.strace
fi
sc_release
nvme disconnect -n $NQN >&2
log "done"
VMEOF

echo "fio_plugin_bench: target $TARGET, $REPS reps x $RUNTIME s, build $BUILD, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=$((300 + REPS * 6 * (RUNTIME + 12) + 12 * (RUNTIME + 8) + 20))
export RBLK_BENCH_SRC=$SRC RBLK_BUILD=$BUILD RBLK_BENCH_REPS=$REPS RBLK_BENCH_RUNTIME=$RUNTIME RBLK_BENCH_TARGET=$TARGET
bench_host_load "$OUT/host-load.json"
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
fi

# ---- the host side: medians, ratios, table, summary.json
python3 - "$OUT" "$REPS" "$RUNTIME" <<'PYEOF'
import glob, json, os, statistics, sys
out, reps, runtime = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = json.load(open(os.path.join(out, "raw", "env.json")))
wls = ["randread-4k-qd32", "randread-4k-qd1", "seqread-128k-qd16"]
metrics = {  # name, unit, extractor, "higher is better"
    "iops": ("IOPS", lambda r: r["iops"], True),
    "mbps": ("MB/s", lambda r: r["bw_bytes"] / 1e6, True),
    # Total latency (fio's lat: io_u start to completion). The engines split it
    # differently between slat and clat (io_uring submits inside io_uring_enter,
    # the plugin stamps issue time at its doorbell), so only the total compares.
    "lat_avg": ("usec", lambda r: r["lat_ns"]["mean"] / 1e3, False),
    "lat_p99": ("usec", lambda r: (r["lat_ns"].get("percentile") or r["clat_ns"]["percentile"])["99.000000"] / 1e3, False),
    "clat_avg": ("usec", lambda r: r["clat_ns"]["mean"] / 1e3, False),
}
show = {"randread-4k-qd32": ["iops", "lat_avg"], "randread-4k-qd1": ["lat_avg", "lat_p99", "iops"],
        "seqread-128k-qd16": ["mbps", "iops"]}
res = {"env": env, "reps": reps, "runtime_s": runtime, "workloads": {}}
rows = []
for wl in wls:
    w = res["workloads"][wl] = {}
    for side in ("plugin", "kernel"):
        runs = []
        for f in sorted(glob.glob(os.path.join(out, "raw", f"{wl}.{side}.*.json"))):
            txt = open(f).read()
            j = json.loads(txt[txt.index("{"):])  # fio may print notes before the JSON
            job = j["jobs"][0]
            # what the runs had, not the command line (it has defaults under --parse-only)
            runtime = int(job.get("job options", {}).get("runtime", runtime))
            r = job["read"]
            runs.append({m: fn(r) for m, (_, fn, _) in metrics.items()} |
                        {"cpu_usr": job["usr_cpu"], "cpu_sys": job["sys_cpu"], "errors": job["error"]})
        w[side] = {"runs": runs, "median": {k: statistics.median(x[k] for x in runs) for k in runs[0]} if runs else {}}
    for m in show[wl]:
        p, k = w["plugin"]["median"].get(m), w["kernel"]["median"].get(m)
        ratio = p / k if p is not None and k else None
        w.setdefault("ratio_plugin_over_kernel", {})[m] = ratio
        rows.append((wl, m, metrics[m][0], p, k, ratio, metrics[m][2]))
reps = max(len(w[side]["runs"]) for w in res["workloads"].values() for side in w if side in ("plugin", "kernel")) or reps
res["reps"], res["runtime_s"] = reps, runtime
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)
print()
print(f"fio: rblk plugin vs kernel nvme-rdma host + io_uring; target: {env['target']}; "
      f"VM kernel {env['kernel']}, {env['cpus']} vCPUs; medians of {reps} reps x {runtime} s")
print(f"{'workload':20} {'metric':8} {'unit':5} {'plugin':>12} {'kernel':>12} {'plugin/kernel':>14}")
for wl, m, unit, p, k, ratio, hib in rows:
    f = lambda v: "-" if v is None else f"{v:12.1f}"
    better = "" if ratio is None else ("  (plugin better)" if (ratio > 1) == hib and abs(ratio - 1) > 0.02 else "")
    print(f"{wl:20} {m:8} {unit:5} {f(p)} {f(k)} {('-' if ratio is None else f'{ratio:14.2f}')}{better}")
cpu = [(wl, s, res["workloads"][wl][s]["median"].get("cpu_usr"), res["workloads"][wl][s]["median"].get("cpu_sys"))
       for wl in wls for s in ("plugin", "kernel")]
print("fio job CPU (median usr/sys %): " + "; ".join(f"{wl} {s} {u:.0f}/{y:.0f}" for wl, s, u, y in cpu if u is not None))

def strace_top(path, n=4):
    """The n most frequent calls of an strace -c summary: [[name, calls, pct_of_calls]]."""
    rows, total = [], 0
    for line in open(path) if os.path.exists(path) else []:
        f = line.split()
        if len(f) in (5, 6) and f[3].isdigit() and f[0].replace(".", "").isdigit():
            if f[-1] == "total":
                total = int(f[3])
            else:
                rows.append((f[-1], int(f[3])))
    rows.sort(key=lambda r: -r[1])
    return [[c, k, round(100.0 * k / total, 1) if total else None] for c, k in rows[:n]]


tick_us = 1e6 / env.get("clk_tck", 100)
sc_lines = []
for wl in wls:
    for side in ("plugin", "kernel"):
        base = os.path.join(out, "raw", f"sc.{wl}.{side}")
        if not os.path.exists(base + ".count.fio.json"):
            continue
        txt = open(base + ".count.fio.json").read()
        iops = json.loads(txt[txt.index("{"):])["jobs"][0]["read"]["iops"]
        sc = {"iops": iops}
        for who in ("fio", "target"):
            if os.path.exists(f"{base}.{who}.json"):
                c = json.load(open(f"{base}.{who}.json"))
                ios = iops * c["seconds"]
                sc[f"{who}_syscalls_per_io"] = c["syscalls"] / ios if ios and c["syscalls"] is not None else None
                sc[f"{who}_cpu_us_per_io"] = c["cpu_ticks"] * tick_us / ios if ios else None
                sc[f"{who}_top_calls"] = strace_top(f"{base}.{who}.strace")
        res["workloads"][wl][side]["syscall_run"] = sc
        sc_lines.append((wl, side, sc))
idle_p = os.path.join(out, "raw", "sc.idle.target.json")
if os.path.exists(idle_p):
    c = json.load(open(idle_p))
    res["rblk_target_idle"] = {"syscalls_per_s": c["syscalls"] / c["seconds"] if c["syscalls"] is not None else None,
                               "cpu_pct": 100.0 * c["cpu_ticks"] * tick_us / 1e6 / c["seconds"],
                               "top_calls": strace_top(os.path.join(out, "raw", "sc.idle.target.strace"))}
load_p = os.path.join(out, "host-load.json")
if os.path.exists(load_p):
    res["host_load"] = json.load(open(load_p))
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)
if sc_lines:
    f = lambda v: "-" if v is None else f"{v:8.2f}"
    top = lambda calls: " ".join(f"{c[0]}:{c[2] or 0:.0f}%" for c in calls) if calls else "-"
    print(f"system calls and CPU per I/O (separate run, {env.get('syscall_tool', '?')}; I/Os = IOPS x counted "
          "seconds; fio = the fio process, the plugin inside it on the plugin side; tgt = rblk-target)")
    print(f"{'workload':20} {'side':6} {'fio sc/IO':>9} {'fio us/IO':>9} {'tgt sc/IO':>9} {'tgt us/IO':>9}"
          "  top calls: fio | target (strace -c, % of calls)")
    for wl, side, sc in sc_lines:
        print(f"{wl:20} {side:6} {f(sc.get('fio_syscalls_per_io')):>9} {f(sc.get('fio_cpu_us_per_io')):>9} "
              f"{f(sc.get('target_syscalls_per_io')):>9} {f(sc.get('target_cpu_us_per_io')):>9}  "
              f"{top(sc.get('fio_top_calls'))} | {top(sc.get('target_top_calls'))}")
if "rblk_target_idle" in res:
    i = res["rblk_target_idle"]
    print(f"rblk-target idle (host connected): {'-' if i['syscalls_per_s'] is None else round(i['syscalls_per_s'])} "
          f"syscalls/s, {i['cpu_pct']:.1f} % CPU; top: {top(i['top_calls']) if sc_lines else '-'}")
if res.get("host_load", {}).get("warning"):
    print(f"WARNING: {res['host_load']['warning']}: these figures are not comparable with a quiet machine's")
print(f"summary: {os.path.join(out, 'summary.json')}")
PYEOF
