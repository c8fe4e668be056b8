#!/bin/bash
# target_memory.sh: rblk-target's resident memory with the rblk initiator connected
# over 1 and over 64 I/O queues, for each --max-io-size given (default: 128k and 1m,
# the old and the new default), in ONE VM boot. A benchmark, not a test: it prints
# figures and writes JSON, and never judges them.
#
#   bench/target_memory.sh [--sizes 128k,1m] [--out DIR] [BUILD_DIR]
#
# The namespace is null:1G (no memory behind it), so what is measured is the target:
# its buffer pool (per poll group and RDMA device: max_queue_depth units of
# io_unit_size, registered once) and its per-queue state (receive capsules and
# in-capsule buffers, requests, responses). VmRSS is read from /proc while
# `rblk bench -i N` holds N I/O queues (plus the admin queue) and does 4 KiB reads on
# one of them. Output: a table on stdout and DIR/summary.json (DIR default
# BUILD_DIR/bench-out/target-memory).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
SIZES=128k,1m OUT=
die() { echo "target_memory: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) SIZES=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
BUILD=$(realpath "${1:-${RBLK_BUILD:-$SRC/build}}")
[[ $SIZES =~ ^[0-9]+[kKmM]?(,[0-9]+[kKmM]?)*$ ]] || die "--sizes: a comma-separated list of sizes"
for b in daemon/rblk-target cli/rblk; do [ -x "$BUILD/$b" ] || die "$BUILD/$b is not built"; done
bench_out target-memory
mkdir -p "$OUT"

cat > "$OUT/vm-bench.sh" <<'VMEOF'
set -u
NQN=nqn.2026-01.io.rblk:mem
log() { echo "[vm $(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
die() { log "FAIL: $*"; [ -f /tmp/t.log ] && tail -20 /tmp/t.log >&2; exit 1; }
rss() { awk '/^VmRSS:/ {print $2}' /proc/$1/status; }
echo "[" > $VM_OUT/raw.json
first=1
for size in ${RBLK_BENCH_SIZES//,/ }; do
	$RBLK_BUILD/daemon/rblk-target --listen 10.99.0.1 --subsystem $NQN --ns null:1G \
		--allow-any-host --max-io-size $size --poll-groups 1 > /tmp/t.log 2>&1 &
	T=$!
	for _ in $(seq 100); do grep -q ready /tmp/t.log && break; sleep 0.2; done
	grep -q ready /tmp/t.log || die "rblk-target did not start"
	idle=$(rss $T)
	for q in 1 64; do
		$RBLK_BUILD/cli/rblk bench -a 10.99.0.1 -n $NQN -i $q --time 8 --qd 8 \
			--no-counters --no-progress > /tmp/b.log 2>&1 &
		B=$!
		sleep 6
		r=$(rss $T)
		wait $B || { cat /tmp/b.log >&2; die "rblk bench -i $q failed"; }
		n=$(grep -cE "qid [0-9]+ .*(connected|established|live)" /tmp/t.log || true)
		log "max-io-size $size: idle $idle KiB, $q I/O queues $r KiB"
		[ $first = 1 ] || echo "," >> $VM_OUT/raw.json
		first=0
		echo "{\"max_io_size\": \"$size\", \"io_queues\": $q, \"rss_idle_kib\": $idle, \"rss_kib\": $r}" >> $VM_OUT/raw.json
		sleep 2
	done
	kill -TERM $T; wait $T
done
echo "]" >> $VM_OUT/raw.json
VMEOF

echo "target_memory: sizes $SIZES, build $BUILD, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=600 RBLK_BUILD=$BUILD RBLK_BENCH_SIZES=$SIZES
"$SRC/tests/vm/softroce-vm" "$OUT/vm-bench.sh" || die "the VM run failed (console: $OUT/console.log)"
python3 - "$OUT" <<'PYEOF'
import json, sys
out = sys.argv[1]
rows = json.load(open(f"{out}/raw.json"))
print(f"{'max-io-size':>12} {'I/O queues':>10} {'idle RSS':>10} {'RSS':>10} {'per I/O queue':>14}")
by = {}
for r in rows:
    by.setdefault(r["max_io_size"], {})[r["io_queues"]] = r
summary = []
for size, qs in by.items():
    per = (qs[64]["rss_kib"] - qs[1]["rss_kib"]) / 63 if 1 in qs and 64 in qs else None
    for q, r in sorted(qs.items()):
        print(f"{size:>12} {q:>10} {r['rss_idle_kib']:>8} K {r['rss_kib']:>8} K"
              f" {('%.0f K' % per) if per is not None else '-':>14}")
    summary.append({"max_io_size": size, "rss_idle_kib": qs[min(qs)]["rss_idle_kib"],
                    "rss_1q_kib": qs.get(1, {}).get("rss_kib"),
                    "rss_64q_kib": qs.get(64, {}).get("rss_kib"), "per_io_queue_kib": per})
json.dump({"results": summary, "raw": rows}, open(f"{out}/summary.json", "w"), indent=2)
print(f"(TCG VM; RSS from /proc/PID/status; JSON in {out}/summary.json)")
PYEOF
