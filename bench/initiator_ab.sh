#!/bin/bash
# initiator_ab.sh: two builds of rblk's initiator side by side in one Soft-RoCE VM boot,
# against the kernel's nvmet-rdma, with the kernel host as the yardstick. For measuring
# one change to the initiator library, `rblk bench` or the fio plugin: build the old
# commit into its own directory, then
#
#   bench/initiator_ab.sh [--reps N] [--runtime S] [--out DIR] [--parse-only] OLD_BUILD NEW_BUILD
#
# A benchmark, not a test: it prints figures and writes JSON, never judges them.
# Sides (each rep runs every workload on every side, the order rotating per rep):
#   kernel    fio --ioengine=io_uring on the kernel nvme-rdma host's block device
#   bench.A   OLD_BUILD's `rblk bench`          bench.B   NEW_BUILD's
#   plugin.A  fio with OLD_BUILD's fio plugin    plugin.B  NEW_BUILD's
# Workloads: randread-4k-qd32 (IOPS), randread-4k-qd1 (latency avg, total), read-128k-qd16
# and write-128k-qd16 (MB/s); 256 MiB of a memory-backed null_blk. --reps (default 3) x
# --runtime (default 5 s). System calls (bench/syscalls.sh): one more run per side
# (kernel side excepted: nothing of ours to count) for randread-4k-qd32 and read-128k-qd16,
# not timed: system calls and CPU µs per I/O of the initiator process.
# The host prints per workload the medians, each side / kernel and B / A, and writes
# DIR/summary.json (DIR default NEW_BUILD/bench-out/initiator-ab; raw in DIR/raw/).
# Run it on an otherwise idle machine (it warns when not: host-load.json), and more
# than once: on a TCG VM one boot of a few reps does not show a 20% change (see
# docs/benchmarks.md). --parse-only: no VM, summarise DIR/raw.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
REPS=3 RUNTIME=5 OUT= PARSE_ONLY=0
die() { echo "initiator_ab: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--runtime) bench_opt_value $1 $#; RUNTIME=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--parse-only) PARSE_ONLY=1; shift ;;
	-h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# = 2 ] || die "give OLD_BUILD and NEW_BUILD (see --help)"
A=$(realpath "$1") BUILD=$(realpath "$2")
[[ $REPS =~ ^[1-9][0-9]*$ && $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--reps and --runtime are positive integers"
if [ $PARSE_ONLY = 0 ]; then
	for b in "$A" "$BUILD"; do
		case $b in /tmp|/tmp/*) die "$b is under /tmp, which the VM cannot see" ;; esac
		[ -x "$b/cli/rblk" ] && [ -f "$b/fio-plugin/librblk_fio.so" ] ||
			die "$b needs cli/rblk and fio-plugin/librblk_fio.so (cmake -DRBLK_FIO_PLUGIN=ON; make rblk rblk_fio)"
	done
fi
bench_out initiator-ab
WLS="randread-4k-qd32 randread-4k-qd1 read-128k-qd16 write-128k-qd16"
if [ $PARSE_ONLY = 0 ]; then
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
mkdir -p /tmp/iab && cd /tmp/iab || exit 1
T_WORK=/tmp/iab T_NAME=initiator-ab
. "$RBLK_VM_LIB"
need_cmd fio fio; need_cmd nvme nvme-cli
. $RBLK_BENCH_SRC/bench/syscalls.sh
sc_probe
NQN=nqn.2024-01.io.rblk:iab RAW=$VM_OUT/raw RUNTIME=$RBLK_BENCH_RUNTIME
REGION=268435456
HOSTQ="nqn.2024-01.io.rblk:host:initiator-ab" HOSTI=5f0c1b7e-6a8d-4b8e-9a55-726c6b62656f
RC="-t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -N 1 --no-progress -q $HOSTQ -I $HOSTI
    --offset 0 --size $REGION"
TRID="trtype=RDMA adrfam=IPv4 traddr=$VM_ADDR0 trsvcid=4420 subnqn=${NQN//:/\\:} hostaddr=$VM_ADDR1 hostnqn=${HOSTQ//:/\\:} ns=1"
blk=$(null_blk_create 1 memory_backed=1) || exit 1
dd if=/dev/zero of=$blk bs=1M count=256 oflag=direct status=none || die "filling $blk"
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN $blk
nvmet_expose $NQN 1
KDEV=$(nvme_connect_rdma $NQN) || exit 1
echo "{\"kernel\": \"$(uname -r)\", \"cpus\": $(nproc), \"kernel_dev\": \"$KDEV\", \"syscall_tool\": \"$SC_TOOL\"}" > $RAW/env.json
log "kernel host: $KDEV"

. $RBLK_BENCH_SRC/bench/workloads.sh
FIO_COMMON="--direct=1 --time_based=1 --size=$REGION --eta=never --lat_percentiles=1 --output-format=json"
# side WL SECONDS OUTFILE: starts one run in the background (BG_PID)
start_side() {
	local side=$1 wl=$2 t=$3 out=$4 b
	case $side in
	kernel) fio --name=$wl --filename=$KDEV --ioengine=io_uring --runtime=$t $FIO_COMMON \
			$(fio_args $wl) --output=$out > $out.err 2>&1 & ;;
	bench.*) b=$RBLK_AB_A; [ $side = bench.B ] && b=$RBLK_BUILD
		$b/cli/rblk bench $RC $(rblk_args $wl) --time $t -o json > $out 2> $out.err & ;;
	plugin.*) b=$RBLK_AB_A; [ $side = plugin.B ] && b=$RBLK_BUILD
		fio --name=$wl --ioengine=external:$b/fio-plugin/librblk_fio.so --thread=1 \
			--filename="$TRID" --runtime=$t $FIO_COMMON $(fio_args $wl) --output=$out \
			> $out.err 2>&1 & ;;
	esac
	BG_PID=$!
}
SIDES=(kernel bench.A bench.B plugin.A plugin.B)
for rep in $(seq $RBLK_BENCH_REPS); do
	for wl in $RBLK_AB_WLS; do
		for i in "${!SIDES[@]}"; do	# rotate: rep r starts at side r-1
			side=${SIDES[$(( (i + rep - 1) % ${#SIDES[@]} ))]}
			start_side $side $wl $RUNTIME $RAW/$wl.$side.$rep.json
			timeout $((RUNTIME + 90)) tail --pid=$BG_PID -f /dev/null
			wait $BG_PID; echo $? > $RAW/$wl.$side.$rep.rc
		done
		log "rep $rep $wl done"
	done
done
# System calls of the initiator process, apart from the timed runs: it runs RUNTIME+4 s,
# the counter attaches after 3 s (connect) for RUNTIME s.
sc_hold
for wl in randread-4k-qd32 read-128k-qd16; do
	for side in bench.A bench.B plugin.A plugin.B; do
		base=$RAW/sc.$wl.$side
		start_side $side $wl $((RUNTIME + 4)) $base.out.json
		pid=$BG_PID
		sleep 3
		sc_start $pid $base; sleep $RUNTIME; sc_stop $pid $base
		wait $pid || log "$wl $side (syscall run) failed"
	done
	log "syscalls $wl done"
done
sc_release
nvme disconnect -n $NQN >&2
log "done"
VMEOF

echo "initiator_ab: A=$A B=$BUILD, $REPS reps x $RUNTIME s, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=$((240 + REPS * 20 * (RUNTIME + 12) + 8 * (RUNTIME + 15)))
export RBLK_BUILD=$BUILD RBLK_AB_A=$A RBLK_VM_LIB=$SRC/tests/vm/lib.sh RBLK_BENCH_SRC=$SRC
export RBLK_BENCH_REPS=$REPS RBLK_BENCH_RUNTIME=$RUNTIME RBLK_AB_WLS=$WLS
bench_host_load "$OUT/host-load.json"
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
fi

# ---- the host side: medians, ratios, table, summary.json
python3 - "$OUT" "$WLS" <<'PYEOF'
import glob, json, os, statistics, sys
out, wls = sys.argv[1], sys.argv[2].split()
raw = os.path.join(out, "raw")
sides = ["kernel", "bench.A", "bench.B", "plugin.A", "plugin.B"]
metric = {"randread-4k-qd32": ("IOPS", True), "randread-4k-qd1": ("lat avg us", False),
          "read-128k-qd16": ("MB/s", True), "write-128k-qd16": ("MB/s", True)}

def value(wl, path):
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return None
    if "jobs" in d:  # fio
        j = d["jobs"][0]
        r = j["write"] if "write" in wl else j["read"]
        if not r.get("io_bytes"):
            return None
        return {"IOPS": r["iops"], "MB/s": r["bw_bytes"] / 1e6,
                "lat avg us": r["lat_ns"]["mean"] / 1e3}[metric[wl][0]]
    r = d.get("results", {})
    rw = r.get("write" if "write" in wl else "read", {})
    if not rw.get("ios"):
        return None
    return {"IOPS": rw["iops"], "MB/s": rw["bw_MBps"], "lat avg us": rw["lat_us"]["avg"]}[metric[wl][0]]

def ios_per_s(path, wl):
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return None
    if "jobs" in d:
        j = d["jobs"][0]
        return (j["write"] if "write" in wl else j["read"])["iops"]
    return d.get("results", {}).get("iops")

summary = {"host_load": json.load(open(os.path.join(out, "host-load.json"))) if os.path.exists(os.path.join(out, "host-load.json")) else None,
           "env": json.load(open(os.path.join(raw, "env.json"))), "workloads": {}}
print("%-18s %-11s %10s %10s %10s %10s %10s | %7s %7s %7s %7s | %6s %6s" %
      ("workload", "metric", *sides, "bA/k", "bB/k", "pA/k", "pB/k", "bB/bA", "pB/pA"))
for wl in wls:
    name, higher = metric[wl]
    med = {}
    for s in sides:
        vals = [v for v in (value(wl, f) for f in sorted(glob.glob(os.path.join(raw, "%s.%s.*.json" % (wl, s))))) if v is not None]
        med[s] = {"median": statistics.median(vals) if vals else None, "values": vals}
    m = {s: med[s]["median"] for s in sides}
    ratio = lambda a, b: (m[a] / m[b]) if m[a] and m[b] else None
    rs = [ratio("bench.A", "kernel"), ratio("bench.B", "kernel"), ratio("plugin.A", "kernel"),
          ratio("plugin.B", "kernel"), ratio("bench.B", "bench.A"), ratio("plugin.B", "plugin.A")]
    fmt = lambda x: "%10.1f" % x if x is not None else "%10s" % "-"
    rf = lambda x: "%.2f" % x if x is not None else "-"
    print("%-18s %-11s %s %s %s %s %s | %7s %7s %7s %7s | %6s %6s" %
          (wl, name, *[fmt(m[s]) for s in sides], *[rf(r) for r in rs]))
    summary["workloads"][wl] = {"metric": name, "higher_is_better": higher, "sides": med,
                                "ratios": dict(zip(["bench.A/kernel", "bench.B/kernel", "plugin.A/kernel",
                                                    "plugin.B/kernel", "bench.B/bench.A", "plugin.B/plugin.A"], rs))}
print("\nsystem calls and CPU µs per I/O of the initiator process (separate runs):")
sc = {}
for wl in ["randread-4k-qd32", "read-128k-qd16"]:
    for s in sides[1:]:
        base = os.path.join(raw, "sc.%s.%s" % (wl, s))
        try:
            c = json.load(open(base + ".json"))
        except (OSError, ValueError):
            continue
        iops = ios_per_s(base + ".out.json", wl)
        if not iops or c.get("syscalls") is None:
            continue
        n = iops * c["seconds"]
        sc["%s %s" % (wl, s)] = {"syscalls_per_io": c["syscalls"] / n, "cpu_us_per_io": c["run_ns"] / 1e3 / n}
        print("  %-18s %-9s %7.2f syscalls/IO %8.1f CPU us/IO" % (wl, s, c["syscalls"] / n, c["run_ns"] / 1e3 / n))
summary["syscalls"] = sc
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print("\n(latency: lower is better; summary in %s)" % os.path.join(out, "summary.json"))
PYEOF
