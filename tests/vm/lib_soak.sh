# lib_soak.sh: the resource sampler of a long run, shared by bench/soak.sh (hours) and
# test 67 (minutes); sourced after lib.sh, or on its own (it needs only bash and python3).
#
#   soak_sample FILE RPC_SOCKET NAME=PID...   append one JSON line to FILE
#   soak_sampler_start FILE INTERVAL RPC_SOCKET NAME=PID...   soak_sample every INTERVAL s
#   soak_sampler_stop
#   soak_drift FILE SKIP RSS_PCT RSS_KB FDS THREADS   judge the first sample after SKIP
#                           warm-up samples against the last; prints the drift, 1 if over
#   soak_io_idle FILE MAX   per client of "io": its writes and the longest run of sample
#                           periods with none completed; 1 if one reached MAX (0: never)
#
# A sample: {"t": epoch seconds, "procs": {NAME: {"pid", "rss_kb", "fds", "threads"}},
# "target": {"controllers", "queues", "qpairs"}}: each process's resident memory (VmRSS),
# open file descriptors (/proc/PID/fd) and threads (/proc/PID/status), and what the
# target serves, from its RPC socket: controllers and their queues (nvmf_get_stats) and
# the queues of every subsystem (nvmf_subsystem_get_qpairs). A process that is gone is
# recorded as {"pid": PID, "gone": true}. With SOAK_IO="NAME=DEV ..." set, the sample
# also has "io": {NAME: writes DEV completed} (the block layer's count, dev_writes of
# lib.sh), so a reader sees whether the I/O kept going between samples. Read with
# builtins (no program per process): under TCG each program started costs up to 0.3 s.

# soak_proc PID: "RSS_KB FDS THREADS", or nothing when the process is gone.
soak_proc() {
	local pid=$1 k v rss= thr= fds
	[ -r "/proc/$pid/status" ] || return 1
	while read -r k v _; do
		case $k in
		VmRSS:) rss=$v ;;
		Threads:) thr=$v ;;
		esac
	done < "/proc/$pid/status" 2>/dev/null
	fds=(/proc/$pid/fd/*)
	[ -e "${fds[0]}" ] || fds=()
	[ -n "$rss" ] && [ -n "$thr" ] && echo "$rss ${#fds[@]} $thr"
}

soak_sample() {
	local file=$1 sock=$2 p name pid v procs= stats= qp io= d
	shift 2
	for p in "$@"; do
		name=${p%%=*} pid=${p#*=}
		if v=$(soak_proc "$pid"); then
			set -- $v
			procs+="${procs:+, }\"$name\": {\"pid\": $pid, \"rss_kb\": $1, \"fds\": $2, \"threads\": $3}"
		else
			procs+="${procs:+, }\"$name\": {\"pid\": $pid, \"gone\": true}"
		fi
	done
	if [ -n "$sock" ] && [ "$sock" != none ]; then
		stats=$(soak_rpc_counts "$sock") || stats=null
	fi
	for d in ${SOAK_IO:-}; do
		io+="${io:+, }\"${d%%=*}\": $(dev_writes "${d#*=}")"
	done
	echo "{\"t\": $EPOCHREALTIME, \"procs\": {$procs}, \"target\": ${stats:-null}${io:+, \"io\": {$io\}}}" >> "$file"
}

# soak_rpc_counts SOCKET: {"controllers", "queues", "qpairs"} of the target behind SOCKET.
# SOAK_TGT is its binary (rblk-target rpc is the client). One python3 for the lot: under
# TCG starting it costs a second or more, which the sampling period must not absorb.
soak_rpc_counts() {
	local sock=$1 st subs nqn qp= out
	st=$("$SOAK_TGT" rpc -s "$sock" -t 10 nvmf_get_stats 2>/dev/null) || return 1
	subs=$("$SOAK_TGT" rpc -s "$sock" -t 10 nvmf_get_subsystems 2>/dev/null) || return 1
	while read -r nqn; do
		[[ $nqn == *discovery* ]] && continue
		# (hosts' NQNs are listed too: they are no subsystem, and get no answer)
		out=$("$SOAK_TGT" rpc -s "$sock" -t 10 nvmf_subsystem_get_qpairs --nqn "$nqn" 2>/dev/null) &&
			qp+=${qp:+,}$out
	done < <(grep -oE '"nqn": *"[^"]*"' <<< "$subs" | sed 's/.*"\([^"]*\)"$/\1/')
	python3 -c 'import json, sys
c = json.loads(sys.argv[1]).get("controllers", [])
print(json.dumps({"controllers": len(c), "queues": sum(len(x.get("queues", [])) for x in c),
                  "qpairs": sum(len(q) for q in json.loads(sys.argv[2]))}))' "$st" "[$qp]"
}

soak_sampler_start() {
	local file=$1 interval=$2
	shift 2
	(
		while :; do
			soak_sample "$file" "$@"
			sleep "$interval"	# the sampling period, on purpose
		done
	) &
	SOAK_SAMPLER_PID=$!
}
soak_sampler_stop() { kill "$SOAK_SAMPLER_PID" 2>/dev/null; wait "$SOAK_SAMPLER_PID" 2>/dev/null; return 0; }

# soak_drift FILE SKIP RSS_PCT RSS_KB FDS THREADS: for every process in the samples,
# compare sample SKIP+1 (after the warm-up) with the last one in which it was alive:
# resident memory may grow by RSS_PCT percent plus RSS_KB KiB, descriptors by FDS and
# threads by THREADS. Prints one line per process; returns 1 when any grew past its
# margin, 2 when there are too few samples to judge.
soak_drift() {
	python3 - "$@" <<'PYEOF'
import json, sys
path, skip, pct, kb, fds, thr = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rows = [json.loads(l) for l in open(path) if l.strip()]
if len(rows) < skip + 2:
    print(f"soak: {len(rows)} samples, need {skip + 2}"); sys.exit(2)
rows = rows[skip:]
bad = 0
for name in rows[0]["procs"]:
    alive = [r["procs"][name] for r in rows if name in r["procs"] and not r["procs"][name].get("gone")]
    if len(alive) < 2:
        print(f"{name}: alive in {len(alive)} samples, not judged"); continue
    a, b = alive[0], alive[-1]
    over = []
    if b["rss_kb"] > a["rss_kb"] * (1 + pct / 100) + kb: over.append("rss")
    if b["fds"] > a["fds"] + fds: over.append("fds")
    if b["threads"] > a["threads"] + thr: over.append("threads")
    print(f"{name}: rss {a['rss_kb']} -> {b['rss_kb']} KiB, fds {a['fds']} -> {b['fds']}, "
          f"threads {a['threads']} -> {b['threads']} over {len(alive)} samples"
          + (f": GREW ({', '.join(over)})" if over else ""))
    bad |= bool(over)
sys.exit(1 if bad else 0)
PYEOF
}

# soak_io_idle FILE MAX: for every client in the samples' "io" (SOAK_IO), the writes it
# completed and the longest run of sample periods in which it completed none, with how
# long that run lasted. Returns 1 when a run reached MAX periods (MAX 0: never judged),
# 2 when a client has fewer than two samples.
soak_io_idle() {
	python3 - "$@" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
limit, rc = int(sys.argv[2]), 0
for d in sorted({k for r in rows for k in r.get("io", {})}):
    s = [(r["t"], r["io"][d]) for r in rows if d in r.get("io", {})]
    if len(s) < 2:
        print(f"{d}: {len(s)} samples with its writes, not judged"); rc = max(rc, 2); continue
    run = longest = 0
    start, gap = None, 0.0
    for (t0, w0), (t1, w1) in zip(s, s[1:]):
        if w1 == w0:
            run += 1
            start = t0 if start is None else start
            gap = max(gap, t1 - start)
        else:
            run, start = 0, None
        longest = max(longest, run)
    print(f"{d}: {s[-1][1] - s[0][1]} writes over {(s[-1][0] - s[0][0]) / 60:.1f} min ({len(s)} samples), "
          f"at most {longest} sample periods in a row with none ({gap:.0f} s)")
    if limit and longest >= limit:
        rc = max(rc, 1)
sys.exit(rc)
PYEOF
}
