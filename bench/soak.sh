#!/bin/bash
# soak.sh: a long run in ONE VM boot (docs/soak.md): verified random writes through the
# Linux host (nvme-rdma) and through rblk's initiator (`rblk attach`, ublk on 6.12, NBD
# on 6.1) to one rblk-target, while rounds of churn repeat: a namespace added and
# removed through the RPC socket, the configuration reloaded (SIGHUP), the host's
# controller reset (a reconnect), and in turn a 2 s outage, 20 s of 1% loss, 20 s of
# 5 ms delay (tc netem on both veths; --faults picks). Every --interval seconds the
# target and the initiator are sampled (tests/vm/lib_soak.sh, the sampler test 67
# uses): resident memory, open descriptors, threads, the target's controllers and
# queues (RPC nvmf_get_stats, nvmf_subsystem_get_qpairs), and the writes each client's
# block device completed. A benchmark, not a test: it records, prints the drift and
# plots; it does not judge (test 67 is the short, judged run).
#
#   bench/soak.sh [--duration SEC] [--interval SEC] [--round SEC] [--kernel 6.12|6.1]
#                 [--faults all|outage|none] [--out DIR] [--parse-only] BUILD_DIR
#
# Defaults: --duration 14400 (4 h), --interval 60, --round 60 (one round of churn per
# minute), --faults all, kernel 6.12, DIR = BUILD_DIR/bench-out/soak. --faults outage
# keeps only the 2 s outages (every third round), none keeps no netem fault. A fault
# only changes a netem put on before the first connection: one added and removed
# under traffic broke Soft-RoCE itself (docs/faults.md), after which the rest of a run
# measured a fabric that carried nothing.
# Output: DIR/samples.jsonl (one sample a line), DIR/soak.png (each series over time;
# needs gnuplot: apt-get install gnuplot-nox), DIR/drift.txt (first sample after the
# 2-sample warm-up against the last, as test 67 reads them), DIR/fio-*.json, DIR/target.log.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
DURATION=14400 INTERVAL=60 ROUND=60 KERNEL=6.12 OUT= PARSE_ONLY=0 FAULTS=all
die() { echo "soak: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--duration) bench_opt_value $1 $#; DURATION=$2; shift 2 ;;
	--interval) bench_opt_value $1 $#; INTERVAL=$2; shift 2 ;;
	--round) bench_opt_value $1 $#; ROUND=$2; shift 2 ;;
	--kernel) bench_opt_value $1 $#; KERNEL=$2; shift 2 ;;
	--faults) bench_opt_value $1 $#; FAULTS=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--parse-only) PARSE_ONLY=1; shift ;;
	-h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# = 1 ] || die "usage: soak.sh [options] BUILD_DIR (--help)"
BUILD=$(realpath "$1")
[[ $DURATION =~ ^[1-9][0-9]*$ && $INTERVAL =~ ^[1-9][0-9]*$ && $ROUND =~ ^[1-9][0-9]*$ ]] ||
	die "--duration, --interval and --round are positive integers (seconds)"
case $KERNEL in 6.1 | 6.12) ;; *) die "--kernel takes 6.1 or 6.12" ;; esac
case $FAULTS in all | outage | none) ;; *) die "--faults takes all, outage or none" ;; esac
[ $PARSE_ONLY = 1 ] || { [ -x "$BUILD/daemon/rblk-target" ] && [ -x "$BUILD/cli/rblk" ]; } ||
	die "$BUILD/daemon/rblk-target and $BUILD/cli/rblk are not built"
bench_out soak
command -v gnuplot >/dev/null || echo "soak: no gnuplot here: the samples are kept, the plot is not made (apt-get install gnuplot-nox, then --parse-only)" >&2

if [ $PARSE_ONLY = 0 ]; then
mkdir -p "$OUT"
rm -f "$OUT/samples.jsonl" "$OUT"/fio-*.json
bench_host_load "$OUT/host-load.json"

cat > "$OUT/vm-soak.sh" <<'VMEOF'
set -u
mkdir -p /tmp/soak && cd /tmp/soak
T_WORK=/tmp/soak T_NAME=soak RBLK_BUILD=$RBLK_BENCH_BUILD
. $RBLK_BENCH_SRC/tests/vm/lib.sh
. $RBLK_BENCH_SRC/tests/vm/lib_fault.sh
. $RBLK_BENCH_SRC/tests/vm/lib_soak.sh
TGT=$RBLK_BUILD/daemon/rblk-target RBLK=$RBLK_BUILD/cli/rblk SOAK_TGT=$RBLK_BUILD/daemon/rblk-target
NQN=nqn.2024-01.io.rblk:soak SOCK=/tmp/soak/rpc.sock CFG=/tmp/soak/config.json
SAMPLES=$VM_OUT/samples.jsonl
modprobe -a nvme_rdma sch_netem || die "modprobe"
if modprobe ublk_drv 2>/dev/null; then kind=--ublk; else modprobe nbd nbds_max=4; kind=--nbd; fi
truncate -s 256M disk1.img; truncate -s 32M disk2.img
cat > $CFG <<JSON
{ "subsystems": [ { "nqn": "$NQN", "attr": { "allow_any_host": "1", "serial": "SOAK0001" },
    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "/tmp/soak/disk1.img" } } ] } ],
  "ports": [ { "portid": 1, "subsystems": [ "$NQN" ],
    "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "4420",
              "treq": "not specified" } } ] }
JSON
# the faults change a netem put on before anything connects (tests/vm/lib_fault.sh)
[ "$RBLK_SOAK_FAULTS" = none ] || fault_arm || die "cannot arm the fault qdisc"
bg_start target $TGT --config $CFG --save $CFG --rpc-socket $SOCK --log-level notice
TPID=$BG_PID
wait_for_line 60 target.log ready $TPID || die "the target did not start"
dev=$(nvme_connect_rdma $NQN $VM_ADDR0 4420 $VM_ADDR1 --reconnect-delay=1) || die "connect"
ctrl=${dev#/dev/}; ctrl=${ctrl%n*}
bg_start attach $RBLK attach -t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -N 1 $kind -c 2 -o json
APID=$BG_PID
wait_for_line 120 attach.log '"device"' $APID || die "attach"
adev=$(grep -oE '/dev/(ublkb|nbd)[0-9]+' attach.log | head -1)
wait_for 10 test -b $adev || die "no $adev"
fault_fio_start host $dev --runtime=$((RBLK_SOAK_DURATION + 600)) --log_avg_msec=60000
HPID=$FPID
fault_fio_start init $adev --offset=128M --runtime=$((RBLK_SOAK_DURATION + 600)) --log_avg_msec=60000
IPID=$FPID
export SOAK_IO="host=$dev init=$adev"
soak_sampler_start $SAMPLES $RBLK_SOAK_INTERVAL $SOCK target=$TPID initiator=$APID
end=$((SECONDS + RBLK_SOAK_DURATION)) round=0
while [ $SECONDS -lt $end ]; do
	round=$((round + 1)) r0=$SECONDS
	$TGT rpc -s $SOCK nvmf_subsystem_add_ns --nqn $NQN --namespace.path /tmp/soak/disk2.img \
		--namespace.nsid 2 >/dev/null || log "round $round: add_ns failed"
	kill -HUP $TPID
	sleep 2	# the reload runs on the target's main thread; nothing waits for it here
	$TGT rpc -s $SOCK nvmf_subsystem_remove_ns --nqn $NQN --nsid 2 >/dev/null || log "round $round: remove_ns failed"
	nvme reset /dev/$ctrl 2>/dev/null || log "round $round: nvme reset refused"
	nvme_wait_live $ctrl 120 || log "round $round: the host's controller is not live"
	case $RBLK_SOAK_FAULTS.$((round % 3)) in
	all.0 | outage.0) fault_netem loss 100% && sleep 2 ;;	# the faults' own durations
	all.1) fault_netem loss 1% && sleep 20 ;;
	all.2) fault_netem delay 5ms 2ms && sleep 20 ;;
	esac
	fault_clear
	kill -0 $HPID 2>/dev/null || log "round $round: fio through the host has ended"
	kill -0 $IPID 2>/dev/null || log "round $round: fio through rblk attach has ended"
	[ $((SECONDS - r0)) -ge $RBLK_SOAK_ROUND ] || sleep $((RBLK_SOAK_ROUND - (SECONDS - r0)))	# the round's length
done
soak_sample $SAMPLES $SOCK target=$TPID initiator=$APID
soak_sampler_stop
log "$round rounds"
FPID=$HPID; fault_fio_end host; FPID=$IPID; fault_fio_end init
cp fio-host.json fio-init.json target.log attach.log $VM_OUT/ 2>/dev/null
VMEOF

echo "soak: ${DURATION}s, a sample every ${INTERVAL}s, a round every ${ROUND}s, faults $FAULTS, kernel $KERNEL, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=$((DURATION + 900))
export RBLK_VM_KERNEL=$KERNEL RBLK_BENCH_BUILD=$BUILD RBLK_BENCH_SRC=$SRC
export RBLK_SOAK_DURATION=$DURATION RBLK_SOAK_INTERVAL=$INTERVAL RBLK_SOAK_ROUND=$ROUND RBLK_SOAK_FAULTS=$FAULTS
bench_vm_run "$OUT/vm-soak.sh" || echo "soak: the VM run failed (console: $OUT/console.log)" >&2
fi

# ---- the host side: drift, fio's verdicts, the plot
. "$SRC/tests/vm/lib_soak.sh"
[ -s "$OUT/samples.jsonl" ] || die "no samples in $OUT/samples.jsonl"
soak_drift "$OUT/samples.jsonl" 2 25 4096 4 2 | tee "$OUT/drift.txt" || true
for f in "$OUT"/fio-*.json; do
	[ -e "$f" ] || continue
	python3 -c 'import json, sys
t = open(sys.argv[1]).read(); j = json.loads(t[t.index("{"):])["jobs"][0]
print("%s: fio error %s, I/O errors %s, %d MiB written, longest I/O %.0f ms" % (sys.argv[1].split("/")[-1],
      j["error"], j.get("total_err", 0), j["write"]["io_bytes"] >> 20, j["write"]["lat_ns"]["max"] / 1e6))' "$f"
done
python3 - "$OUT/samples.jsonl" "$OUT/samples.dat" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t0 = rows[0]["t"]
with open(sys.argv[2], "w") as f:
    f.write("# min target_rss_mib target_fds target_threads init_rss_mib init_fds init_threads controllers queues qpairs host_writes_per_min init_writes_per_min\n")
    prev = None
    for r in rows:
        v = ["%.2f" % ((r["t"] - t0) / 60)]
        for p in ("target", "initiator"):
            q = r["procs"].get(p, {})
            v += ["NaN"] * 3 if q.get("gone") or not q else ["%.1f" % (q["rss_kb"] / 1024), str(q["fds"]), str(q["threads"])]
        s = r.get("target") or {}
        v += [str(s.get(k, "NaN")) for k in ("controllers", "queues", "qpairs")]
        for d in ("host", "init"):
            io, pio = r.get("io", {}), (prev or {}).get("io", {})
            ok = d in io and d in pio and r["t"] > prev["t"]
            v.append("%.0f" % ((io[d] - pio[d]) * 60 / (r["t"] - prev["t"])) if ok else "NaN")
        prev = r
        f.write(" ".join(v) + "\n")
PYEOF
soak_io_idle "$OUT/samples.jsonl" 0 || true	# whether the I/O kept going (printed)
if command -v gnuplot >/dev/null; then
	gnuplot <<GP
set terminal png size 1200,900
set output "$OUT/soak.png"
set multiplot layout 3,2 title "rblk soak: $(basename "$OUT")"
set xlabel "minutes"; set key left top
# room above and below: a series that never moves would sit on the frame, unseen
set offsets 0, 0, graph 0.15, graph 0.15
set title "resident memory (MiB)"; plot "$OUT/samples.dat" u 1:2 w l t "target", "" u 1:5 w l t "initiator"
set title "open descriptors"; plot "$OUT/samples.dat" u 1:3 w l t "target", "" u 1:6 w l t "initiator"
set title "threads"; plot "$OUT/samples.dat" u 1:4 w l t "target", "" u 1:7 w l t "initiator"
set title "target: controllers, queues"; plot "$OUT/samples.dat" u 1:8 w l t "controllers", "" u 1:9 w l t "queues (stats)", "" u 1:10 w l t "qpairs (RPC)"
set title "writes completed per minute"; plot "$OUT/samples.dat" u 1:11 w l t "Linux host", "" u 1:12 w l t "rblk attach"
unset multiplot
GP
	echo "soak: plot $OUT/soak.png"
else
	echo "soak: no gnuplot: apt-get install gnuplot-nox, then: bench/soak.sh --parse-only --out $OUT $BUILD"
fi
