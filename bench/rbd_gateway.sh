#!/bin/bash
# rbd_gateway.sh: the gateway's overhead. fio through the Linux host -> nvme-rdma
# (Soft-RoCE, 10.99.0.2 -> 10.99.0.1) -> rblk-target -> librbd, against fio's own
# "rbd" ioengine (librbd directly) on the same image, in ONE VM boot with one
# throw-away Ceph cluster (tests/ceph/ceph-mini.sh: one monitor, one memory-store OSD).
# A benchmark, not a test: it prints figures and writes JSON, and never judges them.
#
#   bench/rbd_gateway.sh [--reps N] [--runtime S] [--workloads LIST] [--target-args ARGS]
#                        [--ceph-args ARGS] [--baseline OLD_BUILD] [--out DIR] [BUILD_DIR]
#
# --target-args: extra rblk-target flags, e.g. "--poll-mode event --poll-groups 1"
#   (the VM has 2 vCPUs shared with the OSD, the monitor, fio and Soft-RoCE: a
#   target that spins takes CPU the cluster needs).
# --ceph-args: CEPH_ARGS for the gateway's rblk-target alone (not fio's rbd engine, not
#   the base side's target), e.g. "--rbd_non_blocking_aio=false": with --baseline BUILD
#   itself, the A/B of one librbd setting in the gateway.
# Image: rbd/bench, 256 MiB, feature layering only, filled once with 1 MiB writes so
#   reads hit real objects. librbd's settings are Ceph's defaults on both sides
#   (but --ceph-args).
# Workloads (one fio job each): randread-4k-qd32, randwrite-4k-qd32 (IOPS),
#   read-128k-qd16, write-128k-qd16 (MB/s). Gateway side: fio io_uring --direct=1 on
#   the namespace's block device; direct side: fio --ioengine=rbd. Runs alternate
#   (g d, d g, ...), --reps (default 3) x --runtime (default 5 s) each.
# Also: rblk-target's CPU (utime+stime) per I/O on the gateway side, and for every
#   side the whole VM's busy CPU per I/O (/proc/stat). A third side, "transport", runs
#   the gateway side's fio against a second namespace of the same rblk-target backed by
#   null: (no Ceph): the NVMe-oF hop alone (host driver, Soft-RoCE both ways, target).
#   On the VM's 2 emulated CPUs every side is CPU-bound, so the gateway can reach at
#   most direct's CPU per I/O over (direct's + the hop's): printed as "bound".
# --baseline OLD_BUILD: a fourth side, "base": OLD_BUILD's rblk-target exporting the
#   same image (port 4422, its own subsystem) to the same host, alternating with the
#   others: the A/B of one change to the gateway, printed as gateway/base.
# Host load before the VM starts: DIR/host-load.json, with a warning when not quiet.
# Output: medians and gateway/direct ratios on stdout, DIR/summary.json (DIR default
#   BUILD_DIR/bench-out/rbd-gateway; raw fio JSON in DIR/raw/). The VM is TCG (no KVM):
#   absolute numbers mean little; compare the ratios.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
. "$HERE/workloads.sh"
REPS=3 RUNTIME=5 OUT= TARGET_ARGS= BASE= CEPH_ARGS_GW=
WORKLOADS=randread-4k-qd32,randwrite-4k-qd32,read-128k-qd16,write-128k-qd16
die() { echo "rbd_gateway: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--runtime) bench_opt_value $1 $#; RUNTIME=$2; shift 2 ;;
	--workloads) bench_opt_value $1 $#; WORKLOADS=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--target-args) bench_opt_value $1 $#; TARGET_ARGS=$2; shift 2 ;;
	--ceph-args) bench_opt_value $1 $#; CEPH_ARGS_GW=$2; shift 2 ;;
	--baseline) [ $# -ge 2 ] || die "--baseline needs OLD_BUILD"; BASE=$(realpath "$2"); shift 2 ;;
	-h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $REPS =~ ^[1-9][0-9]*$ && $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--reps and --runtime are positive integers"
[[ $WORKLOADS =~ ^[a-z0-9-]+(,[a-z0-9-]+)*$ ]] || die "--workloads: a comma-separated list"
bench_check_workloads "$WORKLOADS"
[ -x "$BUILD/daemon/rblk-target" ] || die "$BUILD/daemon/rblk-target is not built"
[ -z "$BASE" ] || [ -x "$BASE/daemon/rblk-target" ] || die "$BASE/daemon/rblk-target is not built"
case $BASE in /tmp|/tmp/*) die "--baseline must not be under /tmp (the VM cannot see it)" ;; esac
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install time"
for b in ceph-mon ceph-osd rbd; do
	command -v $b >/dev/null || die "$b missing: scripts/install-deps.sh --ceph"
done
fio --enghelp 2>/dev/null | grep -qx '[[:space:]]*rbd' || die "this fio has no rbd ioengine"
bench_out rbd-gateway
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
TGT=$RBLK_BUILD/daemon/rblk-target
NQN=nqn.2024-01.io.rblk:rbdbench
NQN0=nqn.2024-01.io.rblk:rbdbench-null
NQNB=nqn.2024-01.io.rblk:rbdbench-base
SIDES="gateway direct transport"
[ -n "$RBLK_BENCH_BASE" ] && SIDES="gateway direct transport base"
RAW=$VM_OUT/raw
log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
. $RBLK_BENCH_SRC/bench/workloads.sh
die() { log "FAIL: $*"; [ -f /tmp/target.log ] && tail -20 /tmp/target.log >&2; exit 1; }
modprobe -a nvme_rdma || die "modprobe"
t0=$(cut -d' ' -f1 /proc/uptime)
env_out=$(RBLK_CEPH_TIMEOUT=300 RBLK_CEPH_STORE_GB=1 \
	$RBLK_BENCH_SRC/tests/ceph/ceph-mini.sh start /tmp/rblk-ceph) || die "ceph-mini"
eval "$env_out"
t1=$(cut -d' ' -f1 /proc/uptime)
log "ceph up in $(awk "BEGIN { print $t1 - $t0 }") s"
rbd create --size 256M --image-feature layering rbd/bench || die "rbd create"
fio --name=fill --ioengine=rbd --clientname=admin --pool=rbd --rbdname=bench --rw=write \
	--bs=1M --iodepth=8 --size=256M --output=$RAW/fill.txt || die "filling the image"
echo "{\"kernel\": \"$(uname -r)\", \"cpus\": $(nproc), \"clk_tck\": $(getconf CLK_TCK), \"ceph_start_s\": $(awk "BEGIN { print $t1 - $t0 }"), \"fio\": \"$(fio --version)\", \"workloads\": \"$RBLK_BENCH_WORKLOADS\", \"target_args\": \"$RBLK_BENCH_TARGET_ARGS\", \"ceph_args\": \"$RBLK_BENCH_CEPH_ARGS\", \"baseline\": \"$RBLK_BENCH_BASE\"}" > $RAW/env.json

CEPH_ARGS="${CEPH_ARGS:+$CEPH_ARGS }$RBLK_BENCH_CEPH_ARGS" $TGT --listen 10.99.0.1:4420 --subsystem $NQN --ns rbd:rbd/bench --allow-any-host \
	--subsystem $NQN0 --ns null:256M --allow-any-host \
	$RBLK_BENCH_TARGET_ARGS > /tmp/target.log 2>&1 &
TPID=$!
for _ in $(seq 300); do grep -q 'notice: ready' /tmp/target.log && break; sleep 0.2; done
grep -q 'notice: ready' /tmp/target.log || die "rblk-target did not start"
dev_of() {	# NQN [PORT]: connect, print the namespace's block device
	nvme connect -t rdma -a 10.99.0.1 -s ${2:-4420} -n $1 -w 10.99.0.2 >&2 || die "nvme connect $1"
	kernel_dev $1 || die "no block device for $1"
}
DEV=$(dev_of $NQN)
DEV0=$(dev_of $NQN0)
log "gateway: $DEV, transport only (null:): $DEV0"
if [ -n "$RBLK_BENCH_BASE" ]; then
	$RBLK_BENCH_BASE/daemon/rblk-target --listen 10.99.0.1:4422 --subsystem $NQNB \
		--ns rbd:rbd/bench --allow-any-host $RBLK_BENCH_TARGET_ARGS > /tmp/target-base.log 2>&1 &
	BPID=$!
	for _ in $(seq 300); do grep -q 'notice: ready' /tmp/target-base.log && break; sleep 0.2; done
	grep -q 'notice: ready' /tmp/target-base.log || die "the baseline rblk-target did not start"
	DEVB=$(dev_of $NQNB 4422)
	log "base: $DEVB (rblk-target of $RBLK_BENCH_BASE)"
fi

proc_cpu() { local s; read -r s < /proc/$1/stat; s=${s##*) }; set -- $s; echo $(( ${12} + ${13} )); }
# The VM's busy ticks, all CPUs: user nice system irq softirq steal (not idle, iowait).
vm_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# The cluster's CPU (every ceph-mon and ceph-osd of the fixture), to see which side of
# the gateway an extra cost per I/O lands on.
cluster_cpu() {
	local f t=0
	for f in /tmp/rblk-ceph/run/*.pid; do
		[ -r /proc/$(cat $f)/stat ] && t=$((t + $(proc_cpu $(cat $f))))
	done
	echo $t
}
# The OSD's operation counters (admin socket): how many OSD ops, writes and bytes in
# one I/O of each side. Read outside the CPU window (the ceph CLI is heavy).
osd_ops() {
	ceph --admin-daemon /tmp/rblk-ceph/run/ceph-osd.0.asok perf dump 2>/dev/null |
		python3 -c 'import json, sys
o = json.load(sys.stdin)["osd"]
print(o["op"], o["op_w"], o["op_r"], o["op_in_bytes"])' 2>/dev/null || echo "0 0 0 0"
}
run_one() {	# SIDE WL REP
	local side=$1 wl=$2 rep=$3 base=$RAW/$2.$1.$3 p0 p1 v0 v1 c0 c1 o0 o1 w0 w1 r0 r1 b0 b1 eng pid=$TPID
	case $side in
	gateway) eng="--filename=$DEV --ioengine=io_uring --direct=1" ;;
	transport) eng="--filename=$DEV0 --ioengine=io_uring --direct=1" ;;
	base) eng="--filename=$DEVB --ioengine=io_uring --direct=1" pid=$BPID ;;
	*) eng="--ioengine=rbd --clientname=admin --pool=rbd --rbdname=bench" ;;
	esac
	read -r o0 w0 r0 b0 <<< "$(osd_ops)"
	p0=$(proc_cpu $pid) v0=$(vm_busy) c0=$(cluster_cpu)
	# /usr/bin/time: fio's whole process tree (librbd's threads too, on the direct side)
	/usr/bin/time -f '%U %S' -o $base.time \
		fio --name=$wl $eng --time_based=1 --runtime=$RBLK_BENCH_RUNTIME --size=256M \
		--output-format=json $(fio_args $wl) --output=$base.json || die "fio $side $wl rep $rep"
	p1=$(proc_cpu $pid) v1=$(vm_busy) c1=$(cluster_cpu)
	read -r o1 w1 r1 b1 <<< "$(osd_ops)"
	echo "{\"rblk_ticks\": $((p1 - p0)), \"vm_busy_ticks\": $((v1 - v0)), \"cluster_ticks\": $((c1 - c0)), \"fio_s\": $(awk '{ print $1 + $2 }' $base.time), \"osd_op\": $((o1 - o0)), \"osd_op_w\": $((w1 - w0)), \"osd_op_r\": $((r1 - r0)), \"osd_in_bytes\": $((b1 - b0))}" > $base.cpu.json
	log "$wl $side rep $rep done"
}
for rep in $(seq $RBLK_BENCH_REPS); do
	for wl in ${RBLK_BENCH_WORKLOADS//,/ }; do
		order=$SIDES
		[ $((rep % 2)) = 1 ] || order=$(echo $SIDES | tr ' ' '\n' | tac)
		for side in $order; do run_one $side $wl $rep; done
	done
done
nvme disconnect -n $NQN >&2
nvme disconnect -n $NQN0 >&2
kill -TERM $TPID; wait $TPID; log "rblk-target exited with $?"
cp /tmp/target.log $RAW/target.log
if [ -n "$RBLK_BENCH_BASE" ]; then
	nvme disconnect -n $NQNB >&2
	kill -TERM $BPID; wait $BPID; log "baseline rblk-target exited with $?"
	cp /tmp/target-base.log $RAW/target-base.log
fi
$RBLK_BENCH_SRC/tests/ceph/ceph-mini.sh stop /tmp/rblk-ceph
log "done"
VMEOF

echo "rbd_gateway: workloads $WORKLOADS, $REPS reps x $RUNTIME s, build $BUILD${BASE:+, baseline $BASE}, results in $OUT"
nwl=$(echo "$WORKLOADS" | tr ',' '\n' | wc -l)
nsides=$([ -n "$BASE" ] && echo 4 || echo 3)
export VM_OUT=$OUT VM_TIMEOUT=$((600 + REPS * nsides * nwl * (RUNTIME + 10)))
export RBLK_BUILD=$BUILD RBLK_BENCH_REPS=$REPS RBLK_BENCH_RUNTIME=$RUNTIME
export RBLK_BENCH_WORKLOADS=$WORKLOADS RBLK_BENCH_SRC=$SRC RBLK_BENCH_TARGET_ARGS=$TARGET_ARGS
export RBLK_BENCH_CEPH_ARGS=$CEPH_ARGS_GW
export RBLK_BENCH_BASE=$BASE
bench_host_load "$OUT/host-load.json"
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"

python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
raw = os.path.join(out, "raw")
env = json.load(open(os.path.join(raw, "env.json")))
load = json.load(open(os.path.join(out, "host-load.json")))
rows, summary = [], {"env": env, "host_load": load, "workloads": {}}
for wl in env["workloads"].split(","):
    kind = "read" if "read" in wl else "write"
    iops = "4k" in wl
    res = {}
    for side in ("gateway", "direct", "transport", "base"):
        vals, ios, ticks, busy, cluster, client, ops = [], [], [], [], [], [], []
        for f in sorted(glob.glob(os.path.join(raw, f"{wl}.{side}.*.json"))):
            if f.endswith(".cpu.json"):
                continue
            job = json.load(open(f))["jobs"][0]
            j = job[kind]
            vals.append(j["iops"] if iops else j["bw_bytes"] / 1e6)
            ios.append(j["total_ios"])
            c = json.load(open(f[:-5] + ".cpu.json"))
            ticks.append(c["rblk_ticks"])
            busy.append(c.get("vm_busy_ticks", 0))
            cluster.append(c.get("cluster_ticks", 0))
            client.append(c.get("fio_s", 0) * 1e6)
            ops.append((c.get("osd_op", 0), c.get("osd_op_w", 0), c.get("osd_in_bytes", 0)))
        if not vals:
            continue
        res[side] = {"median": statistics.median(vals), "runs": vals}
        if sum(ios):
            res[side]["vm_cpu_us_per_io"] = 1e6 * sum(busy) / env["clk_tck"] / sum(ios)
            res[side]["cluster_cpu_us_per_io"] = 1e6 * sum(cluster) / env["clk_tck"] / sum(ios)
            res[side]["fio_cpu_us_per_io"] = sum(client) / sum(ios)
            # the OSD's counters cover the whole fio run (its start-up too): ~per I/O
            res[side]["osd_ops_per_io"] = sum(o[0] for o in ops) / sum(ios)
            res[side]["osd_writes_per_io"] = sum(o[1] for o in ops) / sum(ios)
            res[side]["osd_in_bytes_per_io"] = sum(o[2] for o in ops) / sum(ios)
        if side != "direct" and sum(ios):
            res[side]["target_cpu_us_per_io"] = 1e6 * sum(ticks) / env["clk_tck"] / sum(ios)
    res["ratio"] = res["gateway"]["median"] / res["direct"]["median"]
    if "base" in res:
        res["ratio_over_base"] = res["gateway"]["median"] / res["base"]["median"]
    res["unit"] = "IOPS" if iops else "MB/s"
    # CPU-bound sides: the gateway costs direct's CPU per I/O plus the hop's at least.
    cd = res["direct"].get("vm_cpu_us_per_io")
    ct = res.get("transport", {}).get("vm_cpu_us_per_io")
    res["bound"] = cd / (cd + ct) if cd and ct else None
    # ... and with a target that cost nothing: the host driver and Soft-RoCE alone.
    tt = res.get("transport", {}).get("target_cpu_us_per_io")
    res["bound_free_target"] = cd / (cd + max(ct - tt, 0)) if cd and ct and tt is not None else None
    summary["workloads"][wl] = res
    rows.append((wl, res["unit"], res["gateway"]["median"], res["direct"]["median"],
                 res.get("transport", {}).get("median", 0), res["ratio"], res["bound"],
                 res["gateway"].get("vm_cpu_us_per_io", 0), cd or 0, ct or 0,
                 res["gateway"].get("target_cpu_us_per_io", 0), res["bound_free_target"]))
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(f"kernel {env['kernel']}, {env['fio']}, ceph start {env['ceph_start_s']} s, "
      f"target args '{env.get('target_args', '')}', its CEPH_ARGS '{env.get('ceph_args', '')}'; host busy "
      f"{load['busy_pct']}% (load {load['loadavg']}){', WARNING: ' + load['warning'] if load['warning'] else ''}")
print(f"{'':32}{'throughput':^30} {'':14} {'VM CPU us per I/O':^26}")
print(f"{'workload':18} {'unit':5} {'gateway':>9} {'fio rbd':>9} {'null hop':>9} {'ratio':>6} "
      f"{'bound':>6}   {'gateway':>8} {'fio rbd':>8} {'hop':>8}   {'target us/IO':>12} {'bound, free target':>18}")
for wl, unit, g, d, t, r, b, cg, cd, ct, cpu, bf in rows:
    bs = f"{b:6.2f}" if b else f"{'-':>6}"
    bfs = f"{bf:18.2f}" if bf else f"{'-':>18}"
    print(f"{wl:18} {unit:5} {g:9.1f} {d:9.1f} {t:9.1f} {r:6.2f} {bs}   {cg:8.0f} {cd:8.0f} "
          f"{ct:8.0f}   {cpu:12.1f} {bfs}")
if any("base" in summary["workloads"][wl] for wl in summary["workloads"]):
    print(f"\nthe same gateway from the baseline build ({env.get('baseline')}):")
    print(f"{'workload':18} {'unit':5} {'gateway':>9} {'base':>9} {'gw/base':>8}   "
          f"{'VM CPU us/IO gw':>15} {'base':>8}   {'target us/IO gw':>15} {'base':>8}")
    for wl, r in summary["workloads"].items():
        if "base" not in r:
            continue
        g, b = r["gateway"], r["base"]
        print(f"{wl:18} {r['unit']:5} {g['median']:9.1f} {b['median']:9.1f} {r['ratio_over_base']:8.2f}   "
              f"{g.get('vm_cpu_us_per_io', 0):15.0f} {b.get('vm_cpu_us_per_io', 0):8.0f}   "
              f"{g.get('target_cpu_us_per_io', 0):15.1f} {b.get('target_cpu_us_per_io', 0):8.1f}")
print("\nwhere the VM's CPU per I/O goes (us): fio's process (with librbd's threads on the "
      "direct side), rblk-target's, the cluster's (ceph-mon + ceph-osd), the rest (kernel: host "
      "driver, Soft-RoCE, softirq)")
print(f"{'workload':18} {'side':9} {'VM':>7} {'fio':>7} {'target':>7} {'cluster':>7} {'rest':>7}"
      f"   {'OSD ops/IO':>10} {'writes/IO':>9} {'bytes in/IO':>11}")
for wl, r in summary["workloads"].items():
    for side in ("gateway", "base", "direct", "transport"):
        if side not in r:
            continue
        x = r[side]
        vm, fc, cc = x.get("vm_cpu_us_per_io", 0), x.get("fio_cpu_us_per_io", 0), x.get("cluster_cpu_us_per_io", 0)
        tc = x.get("target_cpu_us_per_io", 0) if side != "direct" else 0
        print(f"{wl:18} {side:9} {vm:7.0f} {fc:7.0f} {tc:7.0f} {cc:7.0f} {vm - fc - tc - cc:7.0f}"
              f"   {x.get('osd_ops_per_io', 0):10.2f} {x.get('osd_writes_per_io', 0):9.2f} "
              f"{x.get('osd_in_bytes_per_io', 0):11.0f}")
print("bound: direct's VM CPU per I/O / (direct's + the null hop's): what the gateway can reach "
      "when every side is CPU-bound on the VM's CPUs; 'free target': the same with the hop's "
      "rblk-target CPU taken out (the host driver and Soft-RoCE alone)")
PY
