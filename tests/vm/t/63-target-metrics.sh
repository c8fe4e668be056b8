#!/bin/bash
# 63-target-metrics: rblk-target's Prometheus endpoint (--metrics, docs/metrics.md) under
# the Linux host's I/O. fio runs a fixed number of 4 KiB random reads and writes (O_DIRECT,
# so one NVMe command each); the scrape taken after it, minus the one before it, counts
# the reads, writes and bytes fio completed within 1%, and the latency histograms' counts
# match the commands. `promtool check metrics` (Debian's prometheus package) accepts the
# scrape; another path answers 404 and another method 405; rblk_ns_get_stats through the
# management socket tells the same reads. Then a second target with 64 namespaces: every
# one of them is in its scrape, and the time of 20 scrapes is printed (never asserted).
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:metrics
URL=http://127.0.0.1:9163/metrics
SOCK=$T_WORK/rpc.sock
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd python3 python3
need_cmd promtool prometheus
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null

fail() { bg_log target; dmesg | tail -20; die "$*"; }
# http METHOD URL: prints the status code (the body to $T_WORK/body).
http() {
	python3 - "$1" "$2" "$T_WORK/body" <<'EOF'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[2], method=sys.argv[1])
try:
    r = urllib.request.urlopen(req, timeout=10)
    code, body = r.status, r.read()
except urllib.error.HTTPError as e:
    code, body = e.code, e.read()
open(sys.argv[3], "wb").write(body)
print(code)
EOF
}
scrape() {
	[ "$(http GET $URL)" = 200 ] || fail "GET /metrics did not answer 200"
	cp "$T_WORK/body" "$1"
}
# value FILE METRIC: the sample of METRIC for namespace 1 of $NQN.
value() {
	local v
	v=$(grep -F "$2{subsystem=\"$NQN\",nsid=\"1\"} " "$1" | awk '{print $2}')
	[ -n "$v" ] || fail "no $2 for namespace 1 in $1"
	echo "$v"
}

bg_start target "$TGT" --listen "$VM_ADDR0" --subsystem $NQN --ns mem:64M --allow-any-host \
	--metrics 127.0.0.1:9163 --rpc-socket "$SOCK" --log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
grep -q 'metrics: http://127.0.0.1:9163/metrics' "$T_WORK/target.log" || fail "no metrics line"
[ "$(http GET http://127.0.0.1:9163/)" = 404 ] || fail "another path is not 404"
[ "$(http POST $URL)" = 405 ] || fail "POST is not 405"

DEV=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" | tail -1)
[ -b "$DEV" ] || fail "connect failed"
# The host's own reads after the connect (partition scan, udev) are over before the
# first scrape.
udevadm settle 2>/dev/null
sleep 1
scrape "$T_WORK/m0.txt"
grep -q "rblk_subsystem_controllers{subsystem=\"$NQN\",host=\"" "$T_WORK/m0.txt" ||
	fail "no controller of the host listed"

# 16384 I/Os of 4 KiB, half reads: 1% is about 80 commands, more than any stray I/O of
# the host's.
log "fio randrw 4k, 64 MiB of I/O"
fio --name=m --filename="$DEV" --ioengine=libaio --direct=1 --rw=randrw --rwmixread=50 \
	--bs=4k --iodepth=16 --size=64M --io_size=64M --randrepeat=0 --norandommap \
	--output-format=json --output="$T_WORK/fio.json" || { cat "$T_WORK/fio.json"; fail "fio failed"; }
scrape "$T_WORK/m1.txt"
cp "$T_WORK/m1.txt" "$T_OUT/metrics.txt" 2>/dev/null

python3 - "$T_WORK/fio.json" "$(value "$T_WORK/m0.txt" rblk_namespace_reads_total)" \
	"$(value "$T_WORK/m1.txt" rblk_namespace_reads_total)" \
	"$(value "$T_WORK/m0.txt" rblk_namespace_writes_total)" \
	"$(value "$T_WORK/m1.txt" rblk_namespace_writes_total)" \
	"$(value "$T_WORK/m0.txt" rblk_namespace_read_bytes_total)" \
	"$(value "$T_WORK/m1.txt" rblk_namespace_read_bytes_total)" \
	"$(value "$T_WORK/m0.txt" rblk_namespace_written_bytes_total)" \
	"$(value "$T_WORK/m1.txt" rblk_namespace_written_bytes_total)" <<'EOF' || fail "the counts disagree with fio"
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
r0, r1, w0, w1, rb0, rb1, wb0, wb1 = (int(x) for x in sys.argv[2:])
pairs = [("reads", job["read"]["total_ios"], r1 - r0),
         ("writes", job["write"]["total_ios"], w1 - w0),
         ("read bytes", job["read"]["io_bytes"], rb1 - rb0),
         ("written bytes", job["write"]["io_bytes"], wb1 - wb0)]
ok = True
for what, fio, rblk in pairs:
    good = fio > 0 and abs(rblk - fio) <= 0.01 * fio
    print(f"{what}: fio {fio}, metrics {rblk}: {'ok' if good else 'OFF BY MORE THAN 1%'}")
    ok &= good
sys.exit(0 if ok else 1)
EOF

# The histograms count every successful read and write.
for d in read write; do
	n=$(grep -F "rblk_namespace_${d}_latency_seconds_count{subsystem=\"$NQN\",nsid=\"1\"} " \
		"$T_WORK/m1.txt" | awk '{print $2}')
	t=$(value "$T_WORK/m1.txt" rblk_namespace_${d}s_total)
	[ "$n" = "$t" ] || fail "${d} latency count $n, ${d}s $t"
	inf=$(grep -F "rblk_namespace_${d}_latency_seconds_bucket{subsystem=\"$NQN\",nsid=\"1\",le=\"+Inf\"} " \
		"$T_WORK/m1.txt" | awk '{print $2}')
	[ "$inf" = "$n" ] || fail "${d} +Inf bucket $inf, count $n"
done
grep -E '^rblk_poll_group_busy_seconds_total\{pg="0"\} [0-9.]+$' "$T_WORK/m1.txt" >/dev/null ||
	fail "no busy time of poll group 0"
grep -q '^rblk_build_info{version="' "$T_WORK/m1.txt" || fail "no build info"

promtool check metrics < "$T_WORK/m1.txt" > "$T_WORK/promtool.txt" 2>&1 ||
	{ cat "$T_WORK/promtool.txt"; fail "promtool check metrics refused the scrape"; }
log "promtool check metrics: ok"

# The same figure through the management API.
reads=$("$TGT" rpc -s "$SOCK" rblk_ns_get_stats --nqn $NQN --nsid 1 |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["read_cmds"])') ||
	fail "rblk_ns_get_stats failed"
[ "$reads" = "$(value "$T_WORK/m1.txt" rblk_namespace_reads_total)" ] ||
	fail "rblk_ns_get_stats says $reads reads"

nvme disconnect -n $NQN >/dev/null 2>&1 || fail "disconnect failed"
kill -TERM "$TPID"
bg_wait target 30 || fail "the target did not stop cleanly"

# ---- a scrape of 64 namespaces: all there, and how long it takes
NS64=()
for i in $(seq 64); do NS64+=(--ns mem:1M); done
bg_start target64 "$TGT" --listen "$VM_ADDR0:4425" --subsystem $NQN-64 "${NS64[@]}" \
	--allow-any-host --metrics 127.0.0.1:9164 --log-level notice
wait_for_line 60 "$T_WORK/target64.log" 'notice: ready' "$BG_PID" || fail "the 64-namespace target did not start"
python3 - http://127.0.0.1:9164/metrics "$NQN-64" > "$T_WORK/scrape64.txt" <<'EOF' || fail "scraping 64 namespaces"
import sys, time, urllib.request
times, body = [], b""
for _ in range(20):
    t0 = time.monotonic()
    body = urllib.request.urlopen(sys.argv[1], timeout=10).read()
    times.append(time.monotonic() - t0)
times.sort()
want = 'rblk_namespace_reads_total{subsystem="%s",nsid="' % sys.argv[2]
nsids = {l.split('nsid="')[1].split('"')[0] for l in body.decode().splitlines() if l.startswith(want)}
print("namespaces %d bytes %d median_ms %.2f max_ms %.2f" %
      (len(nsids), len(body), times[10] * 1e3, times[-1] * 1e3))
EOF
log "scrape of 64 namespaces: $(cat "$T_WORK/scrape64.txt")"
grep -q '^namespaces 64 ' "$T_WORK/scrape64.txt" || fail "the scrape does not list 64 namespaces"
bg_stop target64 || fail "the 64-namespace target did not stop cleanly"
log "ok"
