#!/bin/bash
# 27-cli-bench: short `rblk bench` runs against rblk-target from 10.99.0.2: random reads
# (IOPS, latency percentiles, histogram), random writes with --verify, one job over two
# queue pairs (--qpairs 2, verified), a perftest-style
# size sweep, and the port-counter check: over rxe1 it must say OK, and the counters must
# really have grown by the bytes moved. Then a baseline is saved and compared (a wide
# threshold passes; a doctored baseline 1000x faster fails with exit 6). The figures are
# printed for the record; timings are never asserted (TCG).
# vm-timeout: 900
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
need_cmd jq jq
NQN=nqn.2024-01.io.rblk:bench
C="-t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -N 1 --no-progress"

fail() { bg_log target; die "$*"; }
rblk() {
	log "rblk $*"
	timeout 300 "$RBLK" "$@"
}

# RBLK_CLI_TARGET=kernel runs the same against nvmet-rdma (null_blk) instead
if [ "${RBLK_CLI_TARGET:-rblk}" = kernel ]; then
	blk=$(null_blk_create 1 memory_backed=1)
	nvmet_setup_rdma_port 1 $VM_ADDR0 4420
	nvmet_add_subsystem $NQN "$blk"
	nvmet_expose $NQN 1
	bg_start target sleep 100000
else
	bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:128M --allow-any-host
	wait_for_line 60 target.log 'ready' "$BG_PID" || fail "rblk-target did not start"
fi

rx0=$(rxe_counter rxe1 rcvd_pkts)
rblk bench $C --rw randread --bs 4k --qd 16 --time 5 -o json > rr.json || fail "randread bench failed"
rx=$(($(rxe_counter rxe1 rcvd_pkts) - rx0))
jq '{iops: .results.iops, bw_MBps: .results.bw_MBps, lat_us: .results.read.lat_us, rdma_check}' rr.json
jq -e '.results.iops > 0 and .results.read.lat_us.p99 >= .results.read.lat_us.p50 and
	(.results.read.histogram | length) > 0' rr.json >/dev/null || fail "randread JSON"
jq -e '.rdma_check.verdict == "ok" and .rdma_check.device == "rxe1"' rr.json >/dev/null ||
	fail "the counter check does not say OK on rxe1"
# our own look at the counters: 4 KiB reads arrive as at least one packet each
ios=$(jq '.results.ios' rr.json)
[ "$rx" -ge "$ios" ] || fail "rxe1 received $rx packets for $ios reads"
log "randread: $(jq -r '.results.iops' rr.json) IOPS; rxe1 received $rx packets for $ios reads"

rblk bench $C --rw randwrite --bs 16k --qd 8 --time 3 --force --verify -o json > rw.json ||
	{ cat rw.json; fail "randwrite --verify bench failed"; }
jq -e '.results.write.ios > 0 and .rdma_check.verdict == "ok" and .rdma_check.data_written_bytes > 0' \
	rw.json >/dev/null || fail "randwrite JSON"
jq -e '.params.verify == true' rw.json >/dev/null || fail "verify not recorded"
rblk bench $C --rw randread --bs 16k --qd 8 --time 2 --force --verify -o json > rv.json ||
	fail "randread --verify found a mismatch (or failed)"
jq -e '.results.verify.mismatches == 0 and .results.verify.reads_checked > 0' rv.json >/dev/null ||
	fail "verify counts"
log "randwrite/randread with --verify: $(jq -r '.results.verify.reads_checked' rv.json) reads checked, no mismatch"
# one job over two queue pairs (the controller has two I/O queues: 2 CPUs)
rblk bench $C --rw randrw --bs 16k --qd 8 --qpairs 2 --time 2 --force --verify -o json > rq.json ||
	{ cat rq.json; fail "randrw --qpairs 2 --verify failed (or found a mismatch)"; }
jq -e '.params.qpairs == 2 and .results.verify.mismatches == 0 and .results.verify.reads_checked > 0 and
	.results.write.ios > 0' rq.json >/dev/null || fail "--qpairs 2 JSON"

rblk bench $C --sweep --sweep-min 512 --sweep-max 128k --sweep-time 1 > sweep.txt || fail "sweep failed"
cat sweep.txt
grep -qE '^ 131072 ' sweep.txt || fail "no 128 KiB row in the sweep"
grep -q 'RDMA check (is it really RDMA?): OK' sweep.txt || fail "the sweep's counter check is not OK"

rblk bench $C --rw randread --bs 4k --qd 8 --time 2 --save-baseline base.json > /dev/null ||
	fail "save-baseline failed"
jq -e '.rblk_bench_baseline == 1 and (.figures | length) == 6' base.json >/dev/null || fail "baseline file"
rblk bench $C --rw randread --bs 4k --qd 8 --time 2 --compare base.json --threshold 1000 ||
	fail "a comparison within 1000% failed"
jq '.figures["randread.bs4096.qd8.read.iops"].value *= 1000' base.json > fast.json
rblk bench $C --rw randread --bs 4k --qd 8 --time 2 --compare fast.json > cmp.txt
rc=$?
cat cmp.txt
[ $rc = 6 ] || fail "comparing with a 1000x faster baseline: exit $rc, wanted 6"
grep -q 'WORSE' cmp.txt || fail "no WORSE flag"

bg_stop target || fail "rblk-target did not stop cleanly"
log "bench: figures, histogram, sweep, counter check and baselines work"
