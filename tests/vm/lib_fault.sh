# lib_fault.sh: a misbehaving fabric under running, verified I/O, as test 66 and
# bench/fault_matrix.sh drive it; sourced after lib.sh.
#
#   fault_arm               a pass-through netem on both veths of FAULT_VETHS (default
#                           the pair rxe0/rxe1 ride on; "veth2 veth3": the second pair),
#                           while no RDMA traffic crosses them (below)
#   fault_netem ARGS...     the armed netem's impairments become ARGS (tc netem)
#   fault_clear             the fabric healed: the netem passes everything again
#   fault_disarm            no qdisc, steering and neighbour entries as before (idle only)
#   fault_pair2_up          a second veth pair with its own rxe devices (below)
#   fault_pair2_down        remove it; fault_pair2_ok: one rping exchange across it
#   fault_fio_start NAME DEV [fio args...]   4-64 KiB verified random writes on DEV
#   fault_fio_end NAME      stop it; 0 when fio ended without an error (JSON kept)
#   fault_rate_start DEV    sample DEV's written sectors once a second (FAULT_RATES),
#                           and each path's of a multipath head
#   fault_path_split NAME FROM TO END   per-path writes before, under, after a fault
#   fault_rate FROM TO      bytes/s written between two $EPOCHREALTIME times
#   fault_mark LABEL        note the time and the target log's length (FAULT_MARKS)
#   fault_recovered BASE F  the last 3 s wrote at least F x BASE bytes/s (for wait_for)
#   fault_stalls LOG FROM   the target's stall reports from line FROM on: "NEW OPEN"
#   fault_scenario NAME SECS FACTOR MAXREC KIND [ARGS]   one fault, measured (below)
#   fault_summaries FIO_NAME   after fio ended: one JSON line per scenario (python3)
#   fault_rxe_snap FILE     every rxe device's protocol counters, to FILE
#   fault_rxe_delta A B     what grew between two snapshots, as JSON (python3)
#
# Faults are netem qdiscs on the root of both veth ends, so each direction suffers
# once (a packet and its answer are each exposed), as on a bad link. "Link down" is
# netem loss 100% with the neighbour entries pinned, as test 24 explains: setting the
# veth down breaks rxe itself, and ARP lost with the rest turns the entries FAILED,
# which moves rxe's GSI QP to the error state for good. Nothing here sleeps to wait for
# a condition; the sleeps in callers are the faults' own durations.
#
# The qdisc is put on once, before any connection crosses the pair, and a fault only
# changes its parameters (tc qdisc change), because adding, replacing or deleting a
# root qdisc under traffic breaks Soft-RoCE itself: while the device's queues are
# swapped, a packet rxe sends is dropped and the drop is returned to it (rxe's
# send_err counter), and rxe moves the sending QP to the error state, the CM's own
# QP1 included when a MAD was on its way, which no connection recovers from (rping
# fails until rxe is recreated). A real NIC never tells a QP that the wire dropped a
# packet. With a qdisc in the path, whichever CPU runs it hands the packets to the
# peer's receive backlog of that CPU, so one QP's packets arrive out of order (the
# receiver NAKs, the sender goes back; the Linux host reset its queues about every
# 2 s in a 6.12 boot with no fault at all): fault_arm turns on receive packet
# steering, which keeps each flow on one CPU, as a NIC's receive-side scaling does.

FAULT_RATES=${FAULT_RATES:-$T_WORK/fault-rates.txt}
FAULT_MARKS=${FAULT_MARKS:-$T_WORK/fault-marks.txt}
FAULT_TLOG=${FAULT_TLOG:-$T_WORK/target.log}

# The second pair: veth2 10.99.1.1 (rxe2) <-> veth3 10.99.1.2 (rxe3).
VM_ADDR2=10.99.1.1
VM_ADDR3=10.99.1.2
# The two ends a fault hits: the pair the tests use, or (a multipath path degraded
# while the other stays clean) the second pair.
FAULT_VETHS=${FAULT_VETHS:-veth0 veth1}

# fault_veth_addr VETH: the address on VETH (one of the two pairs)
fault_veth_addr() {
	case $1 in
	veth0) echo $VM_ADDR0 ;; veth1) echo $VM_ADDR1 ;;
	veth2) echo $VM_ADDR2 ;; veth3) echo $VM_ADDR3 ;;
	*) return 1 ;;
	esac
}

# fault_pin_neigh A B: each end of the pair A-B keeps its entry for the other
fault_pin_neigh() {
	ip neigh replace "$(fault_veth_addr $1)" lladdr "$(cat /sys/class/net/$1/address)" dev $2 nud permanent &&
	ip neigh replace "$(fault_veth_addr $2)" lladdr "$(cat /sys/class/net/$2/address)" dev $1 nud permanent
}

# netem holds up to this many packets (a delayed fault queues them): past it, it
# would drop at the sender, which rxe takes as the QP's error (above)
FAULT_NETEM_LIMIT=100000

# fault_arm: the pass-through netem on both FAULT_VETHS, their neighbour entries
# pinned and their receive steering on; 0 when they are (again) armed. Only while no
# RDMA traffic crosses the pair: before the first connection over it.
fault_arm() {
	local v mask
	modprobe sch_netem 2>/dev/null
	fault_pin_neigh $FAULT_VETHS || { log "fault_arm: cannot pin the neighbour entries"; return 1; }
	mask=$(printf %x $(( (1 << $(nproc)) - 1 )))
	for v in $FAULT_VETHS; do
		if ! tc qdisc show dev $v | grep -q '^qdisc netem .* root '; then
			tc qdisc add dev $v root netem limit $FAULT_NETEM_LIMIT ||
				{ log "fault_arm: no netem on $v"; return 1; }
		fi
		[ -e "$T_WORK/fault-rps.$v" ] || cp /sys/class/net/$v/queues/rx-0/rps_cpus "$T_WORK/fault-rps.$v"
		echo $mask > /sys/class/net/$v/queues/rx-0/rps_cpus ||
			{ log "fault_arm: no receive steering on $v"; return 1; }
	done
}

# fault_armed: both FAULT_VETHS carry the netem of fault_arm
fault_armed() {
	local v
	for v in $FAULT_VETHS; do tc qdisc show dev $v | grep -q '^qdisc netem .* root ' || return 1; done
}

# fault_netem ARGS...: the armed netem of both FAULT_VETHS applies ARGS and nothing
# else (an impairment of an earlier fault given no value here is reset).
fault_netem() {
	local v
	fault_armed || { log "fault_netem: $FAULT_VETHS not armed (fault_arm before connecting)"; return 1; }
	for v in $FAULT_VETHS; do
		tc qdisc change dev $v root netem limit $FAULT_NETEM_LIMIT \
			loss 0% duplicate 0% corrupt 0% reorder 0% "$@" || return 1
	done
}

fault_clear() { fault_armed && fault_netem; }

# fault_disarm: what fault_arm changed, undone; only once nothing crosses the pair.
fault_disarm() {
	local a b v
	read -r a b <<< "$FAULT_VETHS"
	for v in $a $b; do
		tc qdisc del dev $v root 2>/dev/null
		[ -e "$T_WORK/fault-rps.$v" ] && cat "$T_WORK/fault-rps.$v" > /sys/class/net/$v/queues/rx-0/rps_cpus &&
			rm -f "$T_WORK/fault-rps.$v"
	done
	ip neigh del "$(fault_veth_addr $a)" dev $b 2>/dev/null
	ip neigh del "$(fault_veth_addr $b)" dev $a 2>/dev/null
	return 0
}

# fault_pair2_up: a second pair inside the running VM, set up as softroce-vm sets up
# the first: veth2 10.99.1.1 <-> veth3 10.99.1.2 with veth0's MTU, rxe2 on veth2 and
# rxe3 on veth3, and policy routing of its own (tables 103 and 104) so that whatever
# is sent to 10.99.1.1 leaves from 10.99.1.2 through veth3 (rxe3) and arrives on veth2
# (rxe2), and the other way round. Two paths of a multipath device, one per pair, then
# cross different netdevs: RoCE v2 puts every queue pair on UDP port 4791, so a qdisc
# on the one pair could not hit one path and spare the other. Receive packet steering
# and the reverse-path settings follow veth0/veth1's. 0 when both ports are ACTIVE.
fault_pair2_up() {
	local mtu rps i s2 s3
	[ -d /sys/class/net/veth2 ] && { log "fault_pair2_up: veth2 exists already"; return 1; }
	read -r mtu < /sys/class/net/veth0/mtu || return 1
	ip -batch - <<B || { log "fault_pair2_up: veth2/veth3 failed"; return 1; }
link add veth2 mtu $mtu type veth peer name veth3 mtu $mtu
addr add $VM_ADDR2/24 dev veth2
addr add $VM_ADDR3/24 dev veth3
link set veth2 up
link set veth3 up
rule add pref 7 iif lo from $VM_ADDR2 to $VM_ADDR2 lookup local
rule add pref 8 iif lo from $VM_ADDR3 to $VM_ADDR3 lookup local
rule add pref 12 iif lo to $VM_ADDR2 lookup 103
rule add pref 13 iif lo to $VM_ADDR3 lookup 104
route add $VM_ADDR2 dev veth3 src $VM_ADDR3 table 103
route add $VM_ADDR3 dev veth2 src $VM_ADDR2 table 104
B
	read -r rps < /sys/class/net/veth0/queues/rx-0/rps_cpus
	for i in veth2 veth3; do
		echo "$rps" > /sys/class/net/$i/queues/rx-0/rps_cpus &&
		echo 0 > /proc/sys/net/ipv4/conf/$i/rp_filter &&
		echo 1 > /proc/sys/net/ipv4/conf/$i/accept_local || { log "fault_pair2_up: $i settings failed"; return 1; }
	done
	# faults on this pair only change its netem: armed before anything crosses it
	FAULT_VETHS="veth2 veth3" fault_arm || return 1
	rdma link add rxe2 type rxe netdev veth2 && rdma link add rxe3 type rxe netdev veth3 ||
		{ log "fault_pair2_up: rdma link add rxe2/rxe3 failed"; return 1; }
	for i in $(seq 100); do
		read -r s2 < /sys/class/infiniband/rxe2/ports/1/state
		read -r s3 < /sys/class/infiniband/rxe3/ports/1/state
		[ "$s2" = "4: ACTIVE" ] && [ "$s3" = "4: ACTIVE" ] && return 0
		sleep 0.1	# the ports' own start-up
	done
	log "fault_pair2_up: rxe2/rxe3 not ACTIVE after 10 s ($s2, $s3)"
	return 1
}

# fault_pair2_down: rxe2, rxe3, the pair and its rules (its routes go with veth2/3).
fault_pair2_down() {
	local p
	tc qdisc del dev veth2 root 2>/dev/null
	tc qdisc del dev veth3 root 2>/dev/null
	rdma link delete rxe2 2>/dev/null
	rdma link delete rxe3 2>/dev/null
	ip link del veth2 2>/dev/null
	rm -f "$T_WORK/fault-rps.veth2" "$T_WORK/fault-rps.veth3"
	for p in 7 8 12 13; do ip rule del pref $p 2>/dev/null; done
	return 0
}

# fault_pair2_ok: one rping exchange from 10.99.1.2 to 10.99.1.1 that crossed the
# second pair: rxe2 received packets (not a loop inside one device, not the first
# pair). For wait_for and the checks after a fault.
fault_pair2_ok() {
	local spid rc r0 r1
	read -r r0 < /sys/class/infiniband/rxe2/ports/1/hw_counters/rcvd_pkts || return 1
	timeout 15 rping -s -a $VM_ADDR2 -p 7198 -C 1 >/dev/null 2>&1 &
	spid=$!
	wait_for 10 rdma_listening 7198
	timeout 10 rping -c -a $VM_ADDR2 -I $VM_ADDR3 -p 7198 -C 1 >/dev/null 2>&1; rc=$?
	kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
	read -r r1 < /sys/class/infiniband/rxe2/ports/1/hw_counters/rcvd_pkts || return 1
	[ $rc = 0 ] && [ "$r1" -gt "$r0" ]
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
# may stay 0. Each line goes on with every path's writes completed, sectors written,
# milliseconds spent writing (fields 5, 7, 8) and whether its controller is live (1,
# else 0), four numbers per path, in the order of "$FAULT_RATES.paths": one line per
# path, its device and its controller's address.
fault_rate_start() {
	local d=${1#/dev/} f c files=() states=()
	for f in /sys/block/"${d%n*}"c*n"${d##*n}"/stat; do [ -r "$f" ] && files+=("$f"); done
	[ ${#files[@]} -gt 0 ] || files=("/sys/block/$d/stat")
	: > "$FAULT_RATES"
	for f in "${files[@]}"; do
		f=${f%/stat}; f=${f##*/}; c=${f#nvme*c}; c=nvme${c%n*}
		states+=("/sys/class/nvme/$c/state")
		echo "$f $(cat /sys/class/nvme/$c/address 2>/dev/null | tr ',' ' ')"
	done > "$FAULT_RATES.paths"
	(
		while :; do
			sum=0 per= i=0
			for f in "${files[@]}"; do
				st=; read -r st < "${states[$i]}"; i=$((i + 1))
				read -r _ _ _ _ wi _ ws wt _ < "$f" && sum=$((sum + ws)) per="$per $wi $ws $wt $([ "$st" = live ] && echo 1 || echo 0)"
			done
			echo "$EPOCHREALTIME $sum$per"
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

# fault_path_split ON OFF END: after fault_rate_stop, one JSON object: for each path
# of the device sampled (one for a device without paths), its address and, in the
# FAULT_BASE_S seconds before ON ("before"), from ON to OFF ("under") and from OFF to
# END ("after"): the share of the bytes written, its write rate (bytes/s), the mean
# time of its writes (ms, the block layer's: queueing on the path included), and the
# share of the samples in which its controller was live.
fault_path_split() {
	python3 - "$FAULT_RATES" "$1" "$2" "$3" "$FAULT_BASE_S" <<'PYEOF'
import json, sys
rates, on, off, end, base_s = sys.argv[1], *map(float, sys.argv[2:6])
samples = []
for line in open(rates):
    f = line.split()
    if len(f) >= 2:
        samples.append((float(f[0]), [int(x) for x in f[2:]]))
paths = [l.split() for l in open(rates + ".paths")]
def at(t):	# the sample nearest t
    return min(samples, key=lambda s: abs(s[0] - t))
out = {"paths": []}
wins = {"before": (on - base_s, on), "under": (on, off), "after": (off, end)}
tot = {}
for w, (a, b) in wins.items():
    sa, sb = at(a), at(b)
    tot[w] = sum(sb[1][i * 4 + 1] - sa[1][i * 4 + 1] for i in range(len(paths)))
for i, p in enumerate(paths):
    r = {"device": p[0], "address": " ".join(p[1:])}
    for w, (a, b) in wins.items():
        sa, sb = at(a), at(b)
        dio, dsec, dms = (sb[1][i * 4 + k] - sa[1][i * 4 + k] for k in range(3))
        dt = sb[0] - sa[0]
        live = [s[1][i * 4 + 3] for s in samples if a <= s[0] <= b]
        r[w] = {"share": round(dsec / tot[w], 3) if tot[w] else None,
                "Bps": int(dsec * 512 / dt) if dt > 0 else 0,
                "mean_write_ms": round(dms / dio, 1) if dio else None,
                "live": round(sum(live) / len(live), 2) if live else None}
    out["paths"].append(r)
print(json.dumps(out))
PYEOF
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

# fault_rxe_snap FILE: each rxe device's hw_counters ("DEV NAME VALUE" lines). They
# tell which side's queue pairs retransmitted (duplicate_request, out_of_seq_request
# at the responder; completer_retry_err at the requester), which ran out of retries
# (retry_exceeded_err: the QP goes to the error state) and whether rxe itself dropped
# a send (send_err, the qdisc swap the arming avoids).
fault_rxe_snap() {
	local c d
	for c in /sys/class/infiniband/rxe*/ports/1/hw_counters/*; do
		[ -r "$c" ] || continue
		d=${c#/sys/class/infiniband/}; d=${d%%/*}
		echo "$d ${c##*/} $(cat "$c")"
	done > "$1" 2>/dev/null
	return 0
}

# fault_rxe_delta A B: {"rxe0": {"retry_exceeded_err": 2, ...}, ...}, the counters
# that grew from snapshot A to B (packet counts left out: they always grow).
fault_rxe_delta() {
	python3 - "$1" "$2" <<'PYEOF'
import json, sys
def load(p):
    r = {}
    try:
        for line in open(p):
            d, n, v = line.split()
            r[(d, n)] = int(v)
    except (OSError, ValueError):
        pass
    return r
a, b = load(sys.argv[1]), load(sys.argv[2])
out = {}
for (d, n), v in sorted(b.items()):
    if n in ("sent_pkts", "rcvd_pkts", "rdma_sends", "rdma_recvs") or v <= a.get((d, n), 0):
        continue
    out.setdefault(d, {})[n] = v - a.get((d, n), 0)
print(json.dumps(out))
PYEOF
}
