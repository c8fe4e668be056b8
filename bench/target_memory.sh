#!/bin/bash
# target_memory.sh: rblk-target's resident memory with the rblk initiator holding 1,
# 64 and 256 I/O queues (256 = four controllers of 64), for each --srq-depth given
# (default: 1024, the default shared receive queue, and 0, a receive queue per
# connection), in ONE VM boot. A benchmark, not a test: it prints figures and writes
# JSON, and never judges them.
#
#   bench/target_memory.sh [--srq 1024,0] [--max-io-size 1m] [--out DIR] [BUILD_DIR]
#
# The namespace is null:1G (no memory behind it), so what is measured is the target:
# its fixed pools (per poll group and RDMA device: the buffer pool of max_queue_depth
# units of io_unit_size and, with an SRQ, its receives) and its per-queue state
# (requests, responses, the send queue Soft-RoCE maps into the process and, without
# an SRQ, each queue's receive capsules and in-capsule buffers). VmRSS is read from
# /proc once the target has logged every queue's accept, while `rblk bench -i 64`
# processes hold the queues (depth 128) and read 4 KiB on one each. "Per I/O queue"
# is the slope between 64 and 256 queues: what one more connection costs beyond the
# fixed pools. Output: a table on stdout and DIR/summary.json (DIR default
# BUILD_DIR/bench-out/target-memory).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
SRQS=1024,0 SIZE=1m OUT=
die() { echo "target_memory: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--srq) bench_opt_value $1 $#; SRQS=$2; shift 2 ;;
	--max-io-size) bench_opt_value $1 $#; SIZE=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $SRQS =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--srq: a comma-separated list of depths (0: none)"
[[ $SIZE =~ ^[0-9]+[kKmM]?$ ]] || die "--max-io-size: a size"
for b in daemon/rblk-target cli/rblk; do [ -x "$BUILD/$b" ] || die "$BUILD/$b is not built"; done
bench_out target-memory
mkdir -p "$OUT"

cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
NQN=nqn.2026-01.io.rblk:mem
log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
die() { log "FAIL: $*"; [ -f /tmp/t.log ] && tail -20 /tmp/t.log >&2; exit 1; }
rss() { awk '/^VmRSS:/ {print $2}' /proc/$1/status; }
count() { grep -c "$1" /tmp/t.log || true; }
echo "[" > $VM_OUT/raw.json
first=1
for srq in ${RBLK_BENCH_SRQS//,/ }; do
	$RBLK_BUILD/daemon/rblk-target --listen 10.99.0.1 --subsystem $NQN --ns null:1G \
		--allow-any-host --max-io-size $RBLK_BENCH_SIZE --srq-depth $srq \
		--max-pending-per-addr 1024 --log-level info > /tmp/t.log 2>&1 &
	T=$!
	for _ in $(seq 100); do grep -q ready /tmp/t.log && break; sleep 0.2; done
	grep -q ready /tmp/t.log || die "rblk-target did not start"
	idle=$(rss $T)
	for q in 1 64 256; do
		base=$(count "accepted on poll group")
		per=$((q < 64 ? q : 64)) nctrl=$(((q + 63) / 64)) pids=
		for c in $(seq $nctrl); do
			$RBLK_BUILD/cli/rblk bench -a 10.99.0.1 -n $NQN -i $per --time 120 --qd 8 \
				--no-counters --no-progress > /tmp/b$c.log 2>&1 &
			pids="$pids $!"
		done
		# Every I/O and admin queue accepted, then a moment for the first I/O.
		want=$((base + q + nctrl))
		for _ in $(seq 600); do [ "$(count "accepted on poll group")" -ge $want ] && break; sleep 0.5; done
		got=$(($(count "accepted on poll group") - base))
		[ $got -ge $((q + nctrl)) ] || die "$q I/O queues: only $got of $((q + nctrl)) accepted"
		sleep 3
		r=$(rss $T)
		kill -INT $pids 2>/dev/null
		for p in $pids; do wait $p || true; done
		log "srq-depth $srq: idle $idle KiB, $q I/O queues $r KiB"
		[ $first = 1 ] || echo "," >> $VM_OUT/raw.json
		first=0
		echo "{\"srq_depth\": $srq, \"io_queues\": $q, \"rss_idle_kib\": $idle, \"rss_kib\": $r}" >> $VM_OUT/raw.json
		# Every queue closed before the next count.
		for _ in $(seq 120); do
			[ "$(count ": closed (")" -ge "$(count "accepted on poll group")" ] && break
			sleep 0.5
		done
		sleep 2
	done
	kill -TERM $T; wait $T
done
echo "]" >> $VM_OUT/raw.json
VMEOF

echo "target_memory: srq depths $SRQS, max-io-size $SIZE, build $BUILD, results in $OUT"
bench_host_load "$OUT/host-load.json"
export VM_OUT=$OUT VM_TIMEOUT=1800 VM_MEM=${VM_MEM:-4096} RBLK_BUILD=$BUILD
export RBLK_BENCH_SRQS=$SRQS RBLK_BENCH_SIZE=$SIZE
bench_vm_run "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
python3 - "$OUT" <<'PYEOF'
import json, sys
out = sys.argv[1]
rows = json.load(open(f"{out}/raw.json"))
print(f"{'srq-depth':>9} {'I/O queues':>10} {'idle RSS':>10} {'RSS':>10}")
by = {}
for r in rows:
    by.setdefault(r["srq_depth"], {})[r["io_queues"]] = r
summary = []
for srq, qs in by.items():
    for q, r in sorted(qs.items()):
        print(f"{srq:>9} {q:>10} {r['rss_idle_kib']:>8} K {r['rss_kib']:>8} K")
    def slope(a, b):
        return (qs[b]["rss_kib"] - qs[a]["rss_kib"]) / (b - a) if a in qs and b in qs else None
    s1, s2 = slope(1, 64), slope(64, 256)
    fmt = lambda v: "-" if v is None else f"{v:.0f} KiB"
    print(f"{srq:>9} per I/O queue: {fmt(s1)} (1 -> 64), {fmt(s2)} (64 -> 256)")
    summary.append({"srq_depth": srq, "rss_idle_kib": qs[min(qs)]["rss_idle_kib"],
                    "rss_kib": {str(q): r["rss_kib"] for q, r in sorted(qs.items())},
                    "per_io_queue_kib_1_64": s1, "per_io_queue_kib_64_256": s2})
json.dump({"results": summary, "raw": rows,
           "host_load": json.load(open(f"{out}/host-load.json"))},
          open(f"{out}/summary.json", "w"), indent=2)
print(f"(TCG VM; RSS from /proc/PID/status; JSON in {out}/summary.json)")
PYEOF
