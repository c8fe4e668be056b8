#!/bin/bash
# attach_bench.sh: fio on the block devices that `rblk attach` makes, /dev/ublkbN (ublk)
# and /dev/nbdN (NBD), against the kernel nvme-rdma host's /dev/nvmeXnY, all three on
# the same rblk-target namespace, in one Soft-RoCE VM boot on the 6.12 kernel (the one
# with ublk). A benchmark, not a test: it prints figures and writes JSON, and never
# judges them.
#
#   bench/attach_bench.sh [--reps N] [--runtime S] [--queues N] [--out DIR]
#                         [--parse-only] [BUILD_DIR]
#
# Workloads (fio --ioengine=io_uring --direct=1 on each device, one job):
#   randread-4k-qd32   IOPS
#   randread-4k-qd1    latency avg and p99 (fio's total latency, usec)
#   read-128k-qd16     MB/s
# The target is rblk-target with a RAM namespace (mem:1G), so the block-device paths'
# own costs show. rblk attach runs with --connections N (default 2: as many I/O queues
# as the kernel host makes on the VM's 2 vCPUs) and --queue-depth 64. Each rep runs
# every workload on the three sides, rotating which goes first; --reps (default 4) x
# --runtime (default 6 s, after 1 s ramp). The host prints medians and the ratios
# ublk/nbd and ublk/kernel, and writes DIR/summary.json (DIR default BUILD_DIR/bench-out/
# attach; raw fio JSON in DIR/raw/). --parse-only: no VM, summarise DIR/raw again.
# Absolute numbers from a TCG VM mean little; the ratios are the result.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
REPS=4 RUNTIME=6 QUEUES=2 OUT= PARSE_ONLY=0
die() { echo "attach_bench: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--runtime) bench_opt_value $1 $#; RUNTIME=$2; shift 2 ;;
	--queues) bench_opt_value $1 $#; QUEUES=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--parse-only) PARSE_ONLY=1; shift ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $REPS =~ ^[1-9][0-9]*$ && $RUNTIME =~ ^[1-9][0-9]*$ && $QUEUES =~ ^[1-9][0-9]*$ ]] ||
	die "--reps, --runtime and --queues are positive integers"
[ $PARSE_ONLY = 1 ] || { [ -x "$BUILD/daemon/rblk-target" ] && [ -x "$BUILD/cli/rblk" ]; } ||
	die "$BUILD/daemon/rblk-target and $BUILD/cli/rblk are not built"
bench_out attach
if [ $PARSE_ONLY = 0 ]; then
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
B=$RBLK_BUILD NQN=nqn.2024-01.io.rblk:attach-bench
log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
die() { log "FAIL: $*"; exit 1; }
. $RBLK_BENCH_SRC/bench/workloads.sh
cd /tmp
modprobe -a nvme_rdma nbd ublk_drv || die "modprobe nvme_rdma nbd ublk_drv"
$B/daemon/rblk-target --listen 10.99.0.1 --subsystem $NQN --ns mem:1G --allow-any-host \
	> /tmp/target.log 2>&1 &
for i in $(seq 300); do grep -q ready /tmp/target.log && break; sleep 0.2; done
grep -q ready /tmp/target.log || { cat /tmp/target.log; die "rblk-target did not start"; }
C="-t rdma -a 10.99.0.1 -s 4420 -n $NQN -w 10.99.0.2 -N 1 --connections $RBLK_BENCH_QUEUES --queue-depth 64"
ublk=$($B/cli/rblk attach --ublk $C --daemon) || die "rblk attach --ublk"
nbd=$($B/cli/rblk attach --nbd $C --daemon) || die "rblk attach --nbd"
nvme connect -t rdma -a 10.99.0.1 -s 4420 -n $NQN -w 10.99.0.2 >&2 || die "nvme connect"
kdev=$(kernel_dev $NQN) || die "no block device for $NQN"
dd if=/dev/zero of=$kdev bs=1M count=1024 oflag=direct status=none || die "filling the namespace"
nq=$(dmesg | grep -oE 'creating [0-9]+ I/O queues' | tail -1)
echo "{\"target\": \"rblk-target, mem:1G\", \"kernel\": \"$(uname -r)\", \"cpus\": $(nproc)," \
	"\"queues\": $RBLK_BENCH_QUEUES, \"kernel_host\": \"$nq\"," \
	"\"devices\": {\"ublk\": \"$ublk\", \"nbd\": \"$nbd\", \"kernel\": \"$kdev\"}}" > $VM_OUT/raw/env.json
log "ublk $ublk, nbd $nbd, kernel host $kdev ($nq)"

COMMON="--eta=never --lat_percentiles=1 --direct=1 --ioengine=io_uring --time_based=1 --ramp_time=1 --runtime=$RBLK_BENCH_RUNTIME --size=1g --output-format=json"
declare -A DEV=([ublk]=$ublk [nbd]=$nbd [kernel]=$kdev)
run_side() {
	local side=$1 wl=$2 rep=$3
	fio --name=$wl --filename=${DEV[$side]} $COMMON $(fio_args $wl) \
		--output=$VM_OUT/raw/$wl.$side.$rep.json || die "fio $side $wl rep $rep failed"
	log "$wl $side rep $rep done"
}
sides=(ublk nbd kernel)
for rep in $(seq $RBLK_BENCH_REPS); do
	for wl in randread-4k-qd32 randread-4k-qd1 read-128k-qd16; do
		for i in 0 1 2; do run_side ${sides[$(((i + rep) % 3))]} $wl $rep; done
	done
done
nvme disconnect -n $NQN >&2
$B/cli/rblk detach $ublk >&2 || die "rblk detach $ublk"
$B/cli/rblk detach $nbd >&2 || die "rblk detach $nbd"
log "done"
VMEOF

echo "attach_bench: $REPS reps x $RUNTIME s, $QUEUES queues, build $BUILD, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=$((400 + REPS * 9 * (RUNTIME + 12)))
export RBLK_VM_KERNEL=6.12 RBLK_BUILD=$BUILD RBLK_BENCH_REPS=$REPS RBLK_BENCH_RUNTIME=$RUNTIME
export RBLK_BENCH_QUEUES=$QUEUES RBLK_BENCH_SRC=$SRC
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
fi

# ---- the host side: medians, ratios, table, summary.json
python3 - "$OUT" "$REPS" "$RUNTIME" <<'PYEOF'
import glob, json, os, statistics, sys
out, reps, runtime = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = json.load(open(os.path.join(out, "raw", "env.json")))
SIDES = ("ublk", "nbd", "kernel")
metrics = {  # unit, extractor, higher is better
    "iops": ("IOPS", lambda r: r["iops"], True),
    "mbps": ("MB/s", lambda r: r["bw_bytes"] / 1e6, True),
    "lat_avg": ("usec", lambda r: r["lat_ns"]["mean"] / 1e3, False),
    "lat_p99": ("usec", lambda r: (r["lat_ns"].get("percentile") or r["clat_ns"]["percentile"])["99.000000"] / 1e3, False),
}
show = {"randread-4k-qd32": ["iops"], "randread-4k-qd1": ["lat_avg", "lat_p99"], "read-128k-qd16": ["mbps"]}
res = {"env": env, "reps": reps, "runtime_s": runtime, "workloads": {}}
rows = []
for wl, ms in show.items():
    w = res["workloads"][wl] = {}
    for side in SIDES:
        runs = []
        for f in sorted(glob.glob(os.path.join(out, "raw", f"{wl}.{side}.*.json"))):
            txt = open(f).read()
            job = json.loads(txt[txt.index("{"):])["jobs"][0]
            runs.append({m: fn(job["read"]) for m, (_, fn, _) in metrics.items()} |
                        {"cpu_usr": job["usr_cpu"], "cpu_sys": job["sys_cpu"], "errors": job["error"]})
        w[side] = {"runs": runs, "median": {k: statistics.median(x[k] for x in runs) for k in runs[0]} if runs else {}}
    for m in ms:
        med = {s: w[s]["median"].get(m) for s in SIDES}
        rat = lambda a, b: med[a] / med[b] if med[a] is not None and med[b] else None
        w.setdefault("ratios", {})[m] = {"ublk_over_nbd": rat("ublk", "nbd"), "ublk_over_kernel": rat("ublk", "kernel")}
        rows.append((wl, m, metrics[m][0], med, w["ratios"][m]))
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)
f = lambda v, n=10: "-".rjust(n) if v is None else f"{v:{n}.1f}"
r = lambda v: "-".rjust(11) if v is None else f"{v:11.2f}"
print()
print(f"fio io_uring on rblk attach (ublk, nbd) and the kernel nvme-rdma host; target: {env['target']}; "
      f"VM kernel {env['kernel']}, {env['cpus']} vCPUs, {env['queues']} attach queues; medians of {reps} reps x {runtime} s")
print(f"{'workload':18} {'metric':8} {'unit':5} {'ublk':>10} {'nbd':>10} {'kernel':>10} {'ublk/nbd':>11} {'ublk/kernel':>11}")
for wl, m, unit, med, rt in rows:
    print(f"{wl:18} {m:8} {unit:5} {f(med['ublk'])} {f(med['nbd'])} {f(med['kernel'])} {r(rt['ublk_over_nbd'])} {r(rt['ublk_over_kernel'])}")
print("(latency rows: lower is better, so a ratio below 1 favours ublk)")
print(f"summary: {os.path.join(out, 'summary.json')}")
PYEOF
