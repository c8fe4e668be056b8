# lib_fault.sh: a misbehaving fabric under running, verified I/O, as test 66 and
# bench/fault_matrix.sh drive it; sourced after lib.sh.
#
#   fault_netem ARGS...     tc netem ARGS on both veths (the ones rxe0/rxe1 ride on)
#   fault_clear             the fabric healed: no qdisc, neighbour entries unpinned
#   fault_fio_start NAME DEV [fio args...]   4-64 KiB verified random writes on DEV
#   fault_fio_end NAME      stop it; 0 when fio ended without an error (JSON kept)
#   fault_rate_start DEV    sample DEV's written sectors once a second (FAULT_RATES)
#   fault_rate FROM TO      bytes/s written between two $EPOCHREALTIME times
#   fault_mark LABEL        note the time and the target log's length (FAULT_MARKS)
#   fault_recovered BASE F  the last 3 s wrote at least F x BASE bytes/s (for wait_for)
#   fault_stalls LOG FROM   the target's stall reports from line FROM on: "NEW OPEN"
#   fault_scenario NAME SECS FACTOR MAXREC KIND [ARGS]   one fault, measured (below)
#   fault_summaries FIO_NAME   after fio ended: one JSON line per scenario (python3)
#
# Faults are netem qdiscs on the root of both veth ends, so each direction suffers
# once (a packet and its answer are each exposed), as on a bad link. "Link down" is
# netem loss 100% with the neighbour entries pinned, as test 24 explains: setting the
# veth down breaks rxe itself, and ARP lost with the rest turns the entries FAILED,
# which moves rxe's GSI QP to the error state for good. Nothing here sleeps to wait for
# a condition; the sleeps in callers are the faults' own durations.

FAULT_RATES=${FAULT_RATES:-$T_WORK/fault-rates.txt}
FAULT_MARKS=${FAULT_MARKS:-$T_WORK/fault-marks.txt}
FAULT_TLOG=${FAULT_TLOG:-$T_WORK/target.log}

fault_pin_neigh() {
	ip neigh replace $VM_ADDR0 lladdr "$(cat /sys/class/net/veth0/address)" dev veth1 nud permanent &&
	ip neigh replace $VM_ADDR1 lladdr "$(cat /sys/class/net/veth1/address)" dev veth0 nud permanent
}

# fault_netem ARGS...: replace (or set) both veths' root qdisc with netem ARGS.
fault_netem() {
	modprobe sch_netem 2>/dev/null
	fault_pin_neigh || { log "cannot pin the neighbour entries"; return 1; }
	tc qdisc replace dev veth0 root netem "$@" && tc qdisc replace dev veth1 root netem "$@"
}

fault_clear() {
	tc qdisc del dev veth0 root 2>/dev/null
	tc qdisc del dev veth1 root 2>/dev/null
	ip neigh del $VM_ADDR0 dev veth1 2>/dev/null
	ip neigh del $VM_ADDR1 dev veth0 2>/dev/null
	return 0
}

# fault_fio_start NAME DEV [fio args...]: 4-64 KiB random writes at QD8 over the first
# 64 MiB of DEV (a bounded size: every block is verified soon after it is written,
# crc32c, and any mismatch ends fio with error 84), for up to 30 minutes, until
# fault_fio_end. Latency log: the longest completion of each second, in Unix ms
# ($T_WORK/fio-NAME_lat.1.log), so each scenario finds its own longest wait. Extra
# args come last (--continue_on_error=io to count I/O errors instead of stopping).
fault_fio_start() {
	local name=$1 dev=$2
	shift 2
	bg_start "fio-$name" fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bsrange=4k-64k --iodepth=8 --size=64M --time_based --runtime=1800 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=32 \
		--write_lat_log="$T_WORK/fio-$name" --log_avg_msec=1000 --log_max_value=1 \
		--log_unix_epoch=1 --output-format=json --output="$T_WORK/fio-$name.json" "$@"
	FPID=$BG_PID
}

# fault_fio_end NAME: SIGINT (fio completes what is in flight, verifies the backlog,
# reports); 0 when it was still running and reported no error. A verify failure is
# error 84 in its JSON and a nonzero exit.
fault_fio_end() {
	local name=$1 rc=0 err
	kill -0 "$FPID" 2>/dev/null || { log "fio $name ended early"; rc=1; }
	kill -INT "$FPID" 2>/dev/null
	bg_wait "fio-$name" 180 || { [ $? = 128 ] || rc=1; }
	err=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read(); j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["error"], j.get("total_err", 0))' "$T_WORK/fio-$name.json" 2>/dev/null) || err="no-json"
	log "fio $name: exit $([ $rc = 0 ] && echo ok || echo failed), error/total_err $err"
	[ "$err" = "0 0" ] || rc=1
	return $rc
}

# fault_rate_start DEV: a background sampler of DEV's written sectors (field 7 of
# /sys/block/*/stat), "EPOCH SECTORS" once a second, in FAULT_RATES. The block layer's
# count, so it works the same for nvme, ublk and nbd devices; for a native NVMe
# multipath head (nvmeXnY) the sum of its paths (nvmeXcZnY), as the head's own counters
# may stay 0.
fault_rate_start() {
	local d=${1#/dev/} f files=()
	for f in /sys/block/"${d%n*}"c*n"${d##*n}"/stat; do [ -r "$f" ] && files+=("$f"); done
	[ ${#files[@]} -gt 0 ] || files=("/sys/block/$d/stat")
	: > "$FAULT_RATES"
	(
		while :; do
			sum=0
			for f in "${files[@]}"; do
				read -r _ _ _ _ _ _ ws _ < "$f" && sum=$((sum + ws))
			done
			echo "$EPOCHREALTIME $sum"
			sleep 1
		done
	) >> "$FAULT_RATES" 2>/dev/null &
	FAULT_RATE_PID=$!
}
fault_rate_stop() { kill "$FAULT_RATE_PID" 2>/dev/null; wait "$FAULT_RATE_PID" 2>/dev/null; return 0; }

# fault_rate FROM TO: bytes/s written between the samples nearest FROM and TO (epoch
# seconds, fractions allowed); TO "now" is the last sample. Integer.
fault_rate() {
	awk -v a="$1" -v b="$2" '
		b != "now" && $1 > b { exit }
		$1 >= a && !s { t0 = $1; s0 = $2; s = 1 }
		{ t1 = $1; s1 = $2 }
		END { printf "%d\n", (s && t1 > t0) ? (s1 - s0) * 512 / (t1 - t0) : 0 }' "$FAULT_RATES"
}

# fault_recovered BASE FACTOR: the last 3 s wrote at FACTOR x BASE bytes/s or more, and
# something: with no baseline (I/O stopped before the fault) nothing has recovered.
fault_recovered() {
	local now=$EPOCHREALTIME r
	r=$(fault_rate "$(awk -v n="$now" 'BEGIN { printf "%.3f", n - 3.5 }')" now)
	awk -v r="$r" -v b="$1" -v f="$2" 'BEGIN { exit !(r > 0 && r >= b * f) }'
}

# fault_mark LABEL: "EPOCH LABEL LINES" (LINES: the target log's length, so stall
# reports can be placed before or after a moment).
fault_mark() {
	local n=0
	[ -e "$FAULT_TLOG" ] && n=$(wc -l < "$FAULT_TLOG")
	echo "$EPOCHREALTIME $1 $n" >> "$FAULT_MARKS"
	FAULT_T=$EPOCHREALTIME FAULT_L=$n
}

# fault_stalls LOG FROM: the target's stall reports ("PEER qid N: no progress for")
# from line FROM on: prints "NEW OPEN": how many were made from there on, and how many
# queues reported stalled (at any time) neither moved again nor closed by the end.
fault_stalls() {
	awk -v from="$2" '
		/: no progress for / { k = $0; sub(/: no progress for .*/, "", k); sub(/^.*: /, "", k)
			open[k] = 1; if (NR >= from) nnew++ }
		/: requests move again/ { k = $0; sub(/: requests move again.*/, "", k); sub(/^.*: /, "", k); delete open[k] }
		/: closed \(|: disconnecting: / { k = $0; sub(/ *(\(sq qid [0-9]+\))?: (closed|disconnecting).*/, "", k)
			sub(/^.*: /, "", k); delete open[k] }
		END { n = 0; for (k in open) n++; printf "%d %d\n", nnew, n }' "$1"
}

# fault_scenario NAME SECS FACTOR MAXREC KIND [ARGS...]: one fault under the running fio
# (started with fault_fio_start, its device sampled by fault_rate_start). The I/O of
# the FAULT_BASE_S (6) seconds before it is the baseline; KIND "netem" applies
# ARGS (tc netem) for SECS seconds, "down" drops every packet for SECS seconds, "restart"
# kills the target and starts it again after SECS seconds (the caller's
# fault_target_kill and fault_target_start); "call" runs ARGS as a command that makes
# the fault itself (a sequence: a restart loop under loss, outages in a row). Then it waits up to MAXREC seconds for
# 3 s of I/O at FACTOR x the baseline (recovered), and FAULT_QUIET_S (7) seconds more
# in which the target must not report a stalled queue. Appends one record to
# FAULT_SCEN; 0 when the I/O recovered.
FAULT_SCEN=${FAULT_SCEN:-$T_WORK/fault-scenarios.txt}
FAULT_BASE_S=${FAULT_BASE_S:-6}
FAULT_QUIET_S=${FAULT_QUIET_S:-7}
fault_scenario() {
	local name=$1 secs=$2 factor=$3 maxrec=$4 kind=$5 on off base under rec=none rec_s=none st rc=0
	shift 5
	# a duration: the baseline is the I/O of these seconds, fault-free
	sleep "$FAULT_BASE_S"
	fault_mark "$name:on"; on=$FAULT_T
	base=$(fault_rate "$(awk -v t="$on" -v b="$FAULT_BASE_S" 'BEGIN { printf "%.3f", t - b }')" "$on")
	log "$name: baseline $((base / 1024)) KiB/s; fault for ${secs}s: $kind $*"
	case $kind in
	netem) fault_netem "$@" || { log "tc netem $* failed"; return 1; }
		sleep "$secs"; fault_clear ;;	# the fault's own duration
	down) fault_netem loss 100% || { log "tc netem failed"; return 1; }
		sleep "$secs"; fault_clear ;;
	restart) fault_target_kill; sleep "$secs"; fault_target_start || return 1 ;;
	call) "$@" || return 1 ;;
	*) log "fault_scenario: unknown kind $kind"; return 1 ;;
	esac
	fault_mark "$name:off"; off=$FAULT_T
	under=$(fault_rate "$on" "$off")
	if wait_for "$maxrec" fault_recovered "$base" "$factor"; then
		fault_mark "$name:recovered"; rec=$FAULT_T
		rec_s=$(awk -v a="$off" -v b="$rec" 'BEGIN { printf "%.1f", b - a }')
	else
		fault_mark "$name:not-recovered"
		# Say whether the fabric itself is left broken (Soft-RoCE's CM under TCG, as in
		# test 24), which no target or host can recover from.
		rdma_cm_ok || log "$name: rping from $VM_ADDR1 to $VM_ADDR0 fails too: Soft-RoCE itself is broken"
		rc=1
	fi
	log "$name: under the fault $((under / 1024)) KiB/s; recovered after ${rec_s}s"
	# a window in which nothing must happen: longer than the target's 5 s stall report
	sleep "$FAULT_QUIET_S"
	st=$(fault_stalls "$FAULT_TLOG" $((FAULT_L + 1)))
	log "$name: stall reports since the recovery, queues left stalled: $st"
	echo "$name $on $off $rec $base $under $rec_s $st" >> "$FAULT_SCEN"
	return $rc
}

# fault_summaries FIO_NAME: after fio ended, one JSON object per recorded scenario:
# throughput before and under the fault, time to recover, the longest I/O completion
# between the fault's start and 10 s after the recovery (fio's per-second maxima), the
# target's stall reports after the recovery and queues left stalled.
fault_summaries() {
	python3 - "$FAULT_SCEN" "$T_WORK/fio-$1_lat.1.log" <<'PYEOF'
import json, sys
lat = []
try:
    for line in open(sys.argv[2]):
        f = [x.strip() for x in line.split(",")]
        lat.append((int(f[0]) / 1000, int(f[1])))
except OSError:
    pass
for line in open(sys.argv[1]):
    name, on, off, rec, base, under, rec_s, snew, sopen = line.split()
    on, off = float(on), float(off)
    end = (float(rec) if rec != "none" else off + 60) + 10
    worst = max((v for t, v in lat if on <= t <= end), default=0)
    print(json.dumps({"scenario": name, "fault_s": round(off - on, 1),
        "base_Bps": int(base), "under_fault_Bps": int(under),
        "recover_s": None if rec_s == "none" else float(rec_s),
        "longest_io_ms": round(worst / 1e6, 1) if lat else None,
        "stall_reports_after_recovery": int(snew), "stalled_queues_open": int(sopen)}))
PYEOF
}
