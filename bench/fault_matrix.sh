#!/bin/bash
# fault_matrix.sh: the fault matrix of docs/faults.md in ONE VM boot: for each client
# ("side") and each fault scenario, verified 4-64 KiB random writes (fio, QD8, the first
# 64 MiB of the namespace, crc32c) run before, during and after the fault, and the
# result is recorded. A benchmark, not a test: it records and prints, never judges (one
# case per fault class is tests/vm/t/66-fabric-faults.sh, in CI).
#
#   bench/fault_matrix.sh [--kernel 6.12|6.1] [--out DIR] [--sides LIST]
#                         [--scenarios LIST] [--reps N] [--kdebug 'module M +p']
#                         [--parse-only] BUILD_DIR
#
# Sides (--sides, comma-separated; default all):
#   host-rblk    the Linux host (nvme-rdma) against rblk-target
#   host-kernel  the Linux host against the kernel target (nvmet-rdma): the reference
#   init-rblk    rblk's initiator (`rblk attach`, ublk on 6.12, NBD on 6.1) against rblk-target
#   init-kernel  rblk's initiator against the kernel target
# Both targets export a 256 MiB file on tmpfs (the kernel target buffered, as tmpfs has
# no O_DIRECT); every client connects with a 2 s reconnect delay and a 120 s
# controller-loss timeout, so the 200 s outage outlives it.
# Scenarios (--scenarios; default all), tc netem on both veths (tests/vm/lib_fault.sh):
#   loss-0.1 loss-1 loss-5        random loss, 20 s
#   delay-5ms                     5 ms delay, 2 ms jitter (reorders too), 20 s
#   reorder-10 dup-1 corrupt-0.1  10% reordered (1 ms delay for the rest), 1% duplicated,
#                                 0.1% corrupted (RoCE's ICRC drops them), 20 s each
#   down-2s-x3                    every packet lost for 2 s, three times 10 s apart
#   down-20s down-200s            every packet lost for 20 s; for 200 s (past the
#                                 controller-loss timeout: I/O errors are the expected
#                                 end, then the client connects again)
#   connect-down-20s              the client connects while every packet is lost (20 s)
#   restart-loop                  the target killed (SIGKILL; the kernel target: its
#                                 port unlinked) and back 2 s later, 3 times 10 s apart,
#                                 under 1% loss
#   mpath-degraded-5              two paths, one per veth pair: 10.99.0.1 (veth0/veth1,
#                                 rxe0/rxe1) and 10.99.1.1 (a second pair, veth2/veth3,
#                                 rxe2/rxe3, brought up in the VM for it), 5% loss on the
#                                 second pair only, 20 s. The Linux host: one native
#                                 multipath device, iopolicy round-robin (both paths
#                                 carry I/O); rblk attach: -a 10.99.1.1 first, then
#                                 -a 10.99.0.1, --iopolicy round-robin
#   mpath-degraded-5-qd           the same with the queue-depth iopolicy (each I/O to
#                                 the path with the fewest in flight; the Linux host
#                                 has it from 6.11, rblk attach --iopolicy queue-depth)
# Per run: fio's I/O errors (--continue_on_error=io) and verify failures, the longest
# I/O completion (fio's per-second maxima) from the fault to 10 s after recovery,
# throughput before and under the fault, time to recover (3 s back at 90% of the
# throughput before, from the fault's end; give up after 180 s), and for rblk-target
# whether its stall report fired after the recovery or left a queue stalled. After
# each run rping checks the fabric: should a run leave Soft-RoCE itself broken (every
# fault swapped a qdisc under traffic before they only changed an armed netem, and
# that broke it in most runs), the run is marked RXE-BROKEN, rxe recreated and both
# targets set up again. The reordering scenarios come last by default.
# The multipath scenarios add, per path: its share of the bytes written, its write
# rate and the mean time of its writes, before, under and after the fault (the block
# layer's per-path counters, /sys/block/nvmeXcYnZ/stat); rblk attach: the I/Os each of
# its paths carried, as it prints them at detach (its whole log:
# DIR/raw/SIDE.SCENARIO.attach-log.txt; the host's kernel log: .kernel-log.txt).
# Output: DIR/raw/SIDE.SCENARIO.json (one object per run) with the written-sector counts
# behind it (.rates.txt, once a second), the Linux host's nvme kernel log of the run
# (.kernel-log.txt) and rblk-target's (.target-log.txt); DIR/summary.json, and a table
# printed side by side; with --reps N each (side, scenario) runs N times in a row (the
# second run's files are SIDE.SCENARIO.r2.*, its row SCENARIO#2): one run of a fault
# under TCG is an anecdote. --kdebug turns on the kernel's dynamic debug messages given
# (dynamic_debug/control syntax, e.g. 'module nvme_rdma +p': the Linux host's CM and
# QP events), which then appear in the kernel logs. DIR defaults to BUILD_DIR/bench-out/fault-matrix. The whole
# matrix takes about an hour under TCG; --scenarios and --sides pick a part.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
ALL_SIDES=host-rblk,host-kernel,init-rblk,init-kernel
ALL_SCEN=loss-0.1,loss-1,loss-5,dup-1,corrupt-0.1,down-2s-x3,down-20s,restart-loop,connect-down-20s,down-200s,mpath-degraded-5,mpath-degraded-5-qd,delay-5ms,reorder-10
SIDES=$ALL_SIDES SCEN=$ALL_SCEN OUT= KERNEL=6.12 PARSE_ONLY=0 REPS=1 KDEBUG=
die() { echo "fault_matrix: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) bench_opt_value $1 $#; KERNEL=$2; shift 2 ;;
	--out) bench_opt_value $1 $#; OUT=$2; shift 2 ;;
	--sides) bench_opt_value $1 $#; SIDES=$2; shift 2 ;;
	--scenarios) bench_opt_value $1 $#; SCEN=$2; shift 2 ;;
	--reps) bench_opt_value $1 $#; REPS=$2; shift 2 ;;
	--kdebug) bench_opt_value $1 $#; KDEBUG=$2; shift 2 ;;
	--parse-only) PARSE_ONLY=1; shift ;;
	-h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# = 1 ] || die "usage: fault_matrix.sh [options] BUILD_DIR (--help)"
BUILD=$(realpath "$1")
case $KERNEL in 6.1 | 6.12) ;; *) die "--kernel takes 6.1 or 6.12" ;; esac
[[ $REPS =~ ^[1-9][0-9]?$ ]] || die "--reps takes 1-99"
for s in ${SIDES//,/ }; do [[ ,$ALL_SIDES, == *",$s,"* ]] || die "unknown side $s (sides: $ALL_SIDES)"; done
for s in ${SCEN//,/ }; do [[ ,$ALL_SCEN, == *",$s,"* ]] || die "unknown scenario $s (scenarios: $ALL_SCEN)"; done
[ $PARSE_ONLY = 1 ] || { [ -x "$BUILD/daemon/rblk-target" ] && [ -x "$BUILD/cli/rblk" ]; } ||
	die "$BUILD/daemon/rblk-target and $BUILD/cli/rblk are not built"
bench_out fault-matrix

if [ $PARSE_ONLY = 0 ]; then
rm -rf "$OUT/raw"
mkdir -p "$OUT/raw"
bench_host_load "$OUT/host-load.json"

# ---- the VM side (runs as root in the VM; $VM_OUT is $OUT)
cat > "$OUT/vm-matrix.sh" <<'VMEOF'
set -u
mkdir -p /tmp/fm && cd /tmp/fm
T_WORK=/tmp/fm T_NAME=fault-matrix RBLK_BUILD=$RBLK_BENCH_BUILD
. $RBLK_BENCH_SRC/tests/vm/lib.sh
. $RBLK_BENCH_SRC/tests/vm/lib_fault.sh
TGT=$RBLK_BUILD/daemon/rblk-target RBLK=$RBLK_BUILD/cli/rblk
RNQN=nqn.2024-01.io.rblk:fm-rblk KNQN=nqn.2024-01.io.rblk:fm-kernel
RAW=$VM_OUT/raw
modprobe -a nvme_rdma sch_netem || die "modprobe nvme_rdma sch_netem"
# --kdebug: the kernel's dynamic debug messages asked for (what a module's CM and QP
# event handlers saw), into the runs' kernel logs
if [ -n "$RBLK_FM_KDEBUG" ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	echo "$RBLK_FM_KDEBUG" > /sys/kernel/debug/dynamic_debug/control || die "dynamic debug: $RBLK_FM_KDEBUG"
	log "kernel dynamic debug on: $RBLK_FM_KDEBUG"
fi
if modprobe ublk_drv 2>/dev/null; then AKIND=--ublk; else modprobe nbd nbds_max=4; AKIND=--nbd; fi
truncate -s 256M /tmp/fm/rblk.img /tmp/fm/kernel.img
RTLOG=/tmp/fm/target.log
: > $RTLOG; : > /tmp/fm/none.log
# Every fault changes a netem put on before anything crosses the pair (lib_fault.sh
# says why: a qdisc added or removed under traffic breaks Soft-RoCE itself).
fault_arm || die "cannot arm the fault qdisc on veth0/veth1"
# The multipath scenarios' second path: its own veth pair and rxe devices, up before
# the targets so that both listen on it too (rblk-target on 10.99.1.1:4420, the kernel
# target's port 3 on 10.99.1.1:4421).
PAIR2=0
if [[ ,$RBLK_FM_SCEN, == *,mpath-* ]]; then
	fault_pair2_up || die "the second veth pair did not come up"
	wait_for 30 fault_pair2_ok || die "rping across the second pair (10.99.1.2 -> 10.99.1.1) fails"
	log "second pair up: veth2 $VM_ADDR2 (rxe2) <-> veth3 $VM_ADDR3 (rxe3), rping crosses it"
	PAIR2=1
fi

rblk_start() {
	local n t0=$EPOCHREALTIME
	n=$(grep -c 'notice: ready' $RTLOG)
	$TGT --listen $VM_ADDR0:4420 $([ $PAIR2 = 1 ] && echo --listen $VM_ADDR2:4420) \
		--subsystem $RNQN --ns /tmp/fm/rblk.img --allow-any-host \
		--log-level info --log-time >> $RTLOG 2>&1 &
	TPID=$!
	# how long a start takes after a kill is part of the restart loop's story
	if wait_for 60 sh -c "[ \$(grep -c 'notice: ready' $RTLOG) -gt $n ]"; then
		log "rblk-target (pid $TPID) ready after $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN { printf "%.1f", b - a }') s"
	else
		log "rblk-target (pid $TPID) not ready after 60 s; its log's last lines:"; tail -5 $RTLOG >&2
		return 1
	fi
}
rblk_kill() { kill -KILL $TPID; wait $TPID 2>/dev/null; }
# The kernel target "killed": its port unlinked from the subsystem (every controller
# of it torn down, the host sees its queues go as with a dead target); back: linked.
kern_kill() { rm -f $NVMET_CFS/ports/2/subsystems/$KNQN; }
kern_start() { ln -s $NVMET_CFS/subsystems/$KNQN $NVMET_CFS/ports/2/subsystems/$KNQN; }
# kern_setup: the kernel target's ports (2; 3 on the second pair) and subsystem
kern_setup() {
	nvmet_setup_rdma_port 2 $VM_ADDR0 4421
	nvmet_add_subsystem $KNQN /tmp/fm/kernel.img
	kern_start
	if [ $PAIR2 = 1 ]; then
		nvmet_setup_rdma_port 3 $VM_ADDR2 4421
		nvmet_expose $KNQN 3
	fi
}
rblk_start || die "rblk-target did not start"
kern_setup

# side_up SIDE [2]: connect the side's client, with "2" over both pairs (one path
# each); DEV is its block device, SIDE_PATHS how many paths. side_down: undo.
_two_paths() { local d=${DEV#/dev/} p n=0; for p in /sys/block/${d%n*}c*n${d##*n}; do [ -e "$p" ] && n=$((n + 1)); done; [ $n = 2 ]; }
side_up() {
	local nqn svc np=${2:-1}
	case $1 in *-rblk) nqn=$RNQN svc=4420 ;; *) nqn=$KNQN svc=4421 ;; esac
	case $1 in
	host-*)
		nvme connect -t rdma -a $VM_ADDR0 -s $svc -n $nqn -w $VM_ADDR1 --reconnect-delay=2 \
			--ctrl-loss-tmo=120 >&2 || return 1
		wait_for 30 _nvme_has_ns $nqn || return 1
		DEV=$(nvme_dev_for_nqn $nqn | head -1)
		if [ $np = 2 ]; then
			nvme connect -t rdma -a $VM_ADDR2 -s $svc -n $nqn -w $VM_ADDR3 --reconnect-delay=2 \
				--ctrl-loss-tmo=120 >&2 || return 1
			wait_for 30 _two_paths || { log "$DEV has no second path"; return 1; }
		fi ;;
	init-*)
		: > /tmp/fm/attach.log
		# two paths: no -w, the routes pick each path's source address and rxe device;
		# the degraded path first (with --iopolicy first it would take every I/O)
		$RBLK attach -t rdma $([ $np = 2 ] && echo -a $VM_ADDR2 -s $svc --iopolicy $MP_POLICY) \
			-a $VM_ADDR0 -s $svc \
			-n $nqn $([ $np = 2 ] || echo -w $VM_ADDR1) -N 1 $AKIND -c 2 -l 120 \
			-o json >> /tmp/fm/attach.log 2>&1 &
		APID=$!
		wait_for_line 120 /tmp/fm/attach.log '"device"' $APID || return 1
		DEV=$(grep -oE '/dev/(ublkb|nbd)[0-9]+' /tmp/fm/attach.log | head -1)
		wait_for 10 test -b "$DEV" || return 1 ;;
	esac
	SIDE_NQN=$nqn SIDE_PATHS=$np
	log "$1: $DEV ($np path(s))"
}
# set_iopolicy POLICY: the Linux host's I/O policy for the connected subsystem
set_iopolicy() {
	local s
	for s in /sys/class/nvme-subsystem/*; do
		[ "$(cat $s/subsysnqn)" = $SIDE_NQN ] || continue
		echo $1 > $s/iopolicy 2>/dev/null && [ "$(cat $s/iopolicy)" = $1 ] && return 0
		log "the host has no iopolicy $1 (it offers: $(cat $s/iopolicy) and others)"; return 1
	done
	return 1
}
side_down() {
	case $1 in
	host-*) nvme disconnect -n $SIDE_NQN >&2 ;;
	init-*) kill $APID 2>/dev/null; wait_for 60 pid_gone $APID || kill -KILL $APID; wait $APID 2>/dev/null ;;
	esac
	DEV= SIDE_PATHS=1
}
side_alive() { [ -n "${DEV:-}" ] && [ -b "$DEV" ] && { [[ $1 == host-* ]] || kill -0 $APID 2>/dev/null; }; }

outages() { local i; for i in 1 2 3; do fault_netem loss 100% || return 1; sleep 2; fault_clear; [ $i = 3 ] || sleep 8; done; }
restart_loop() {
	local i
	fault_netem loss 1% || return 1
	for i in 1 2 3; do
		# a target that did not come back: the fabric still heals, the run records it
		fault_target_kill; sleep 2; fault_target_start || { fault_clear; return 1; }
		[ $i = 3 ] || sleep 8	# the target serves 8 s between its deaths
	done
	fault_clear
}

# scenario NAME -> the fault_scenario arguments after FACTOR and MAXREC
scen_args() {
	case $1 in
	loss-0.1) echo "20 netem loss 0.1%" ;;
	loss-1) echo "20 netem loss 1%" ;;
	loss-5) echo "20 netem loss 5%" ;;
	delay-5ms) echo "20 netem delay 5ms 2ms" ;;
	reorder-10) echo "20 netem delay 1ms reorder 10%" ;;
	dup-1) echo "20 netem duplicate 1%" ;;
	corrupt-0.1) echo "20 netem corrupt 0.1%" ;;
	down-2s-x3) echo "26 call outages" ;;
	down-20s) echo "20 down" ;;
	down-200s) echo "200 down" ;;
	restart-loop) echo "26 call restart_loop" ;;
	mpath-degraded-5*) echo "20 netem loss 5%" ;;
	esac
}

# connect_down SIDE: the client connects while every packet is lost for 20 s.
connect_down() {
	local side=$1 t0 rc=0 t1 out=$RAW/$side.connect-down-20s$REP.json
	side_alive $side && side_down $side
	fault_netem loss 100%
	t0=$EPOCHREALTIME
	( side_up $side > /tmp/fm/cd.out 2>&1; echo $? > /tmp/fm/cd.rc ) &
	sleep 20	# the outage
	fault_clear
	wait $! 2>/dev/null; rc=$(cat /tmp/fm/cd.rc)
	t1=$EPOCHREALTIME
	# side_up ran in a subshell: connect again here for the next scenarios
	if [ "$rc" = 0 ]; then
		case $side in host-*) DEV=$(nvme_dev_for_nqn $( [[ $side == *-rblk ]] && echo $RNQN || echo $KNQN) | head -1)
			SIDE_NQN=$( [[ $side == *-rblk ]] && echo $RNQN || echo $KNQN) ;;
		init-*) APID=$(pgrep -n -f "rblk attach") DEV=$(grep -oE '/dev/(ublkb|nbd)[0-9]+' /tmp/fm/attach.log | head -1)
			SIDE_NQN=x ;;
		esac
	fi
	local again=null t2
	if ! side_alive $side; then
		t2=$EPOCHREALTIME
		if side_up $side; then again=$(awk -v a=$t2 -v b=$EPOCHREALTIME 'BEGIN { printf "%.1f", b - a }'); fi
	fi
	echo "{\"side\": \"$side\", \"scenario\": \"connect-down-20s\", \"connected_through_outage\": $([ "$rc" = 0 ] && echo true || echo false)," \
		"\"connect_s\": $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }'), \"connect_after_heal_s\": $again}" > $out
	log "$side connect-down-20s: $(cat $out)"
}

# mpath_one SIDE SCENARIO: set up a multipath scenario's client (two paths, the host's
# iopolicy) and the fault's place (the second pair only); 1 with the reason in $RAW
# when the scenario does not apply or cannot run.
mpath_one() {
	local side=$1 sc=$2 pol=round-robin why=
	[ $sc = mpath-degraded-5-qd ] && pol=queue-depth
	MP_POLICY=$pol
	if [ $PAIR2 = 0 ]; then
		why="the second veth pair is down"
	else
		side_alive $side && side_down $side
		if ! side_up $side 2; then
			why="cannot connect two paths"
		elif [[ $side == host-* ]] && ! set_iopolicy $pol; then
			why="the host has no iopolicy $pol"; side_down $side
		fi
	fi
	if [ -n "$why" ]; then
		log "$side $sc: $why"
		echo "{\"side\": \"$side\", \"scenario\": \"$sc\", \"error\": \"$why\"}" > $RAW/$side.$sc$REP.json
		return 1
	fi
	FAULT_VETHS="veth2 veth3"
}

run_one() {
	local side=$1 sc=$2 a b rc=0 fio_rc=0 alive err mp=0 fend split up0 tl0 al0
	if [ $sc = connect-down-20s ]; then connect_down $side; return; fi
	FAULT_VETHS="veth0 veth1"
	if [[ $sc == mpath-* ]]; then
		mpath_one $side $sc || return
		mp=1
	elif [ "${SIDE_PATHS:-1}" = 2 ]; then
		side_alive $side && side_down $side	# the single-path scenarios use one path
	fi
	side_alive $side || side_up $side || { log "$side: cannot connect"; echo "{\"side\": \"$side\", \"scenario\": \"$sc\", \"error\": \"cannot connect\"}" > $RAW/$side.$sc$REP.json; return; }
	FAULT_RATES=/tmp/fm/rates.$side.$sc
	FAULT_SCEN=/tmp/fm/scen.$side.$sc; : > $FAULT_SCEN
	case $side in *-rblk) FAULT_TLOG=$RTLOG; fault_target_kill() { rblk_kill; }; fault_target_start() { rblk_start; } ;;
	*) FAULT_TLOG=/tmp/fm/none.log; fault_target_kill() { kern_kill; }; fault_target_start() { kern_start; } ;;
	esac
	read -r up0 _ < /proc/uptime
	tl0=$(wc -l < $RTLOG)
	al0=$(wc -l < /tmp/fm/attach.log 2>/dev/null || echo 0)
	fault_rxe_snap /tmp/fm/rxe.0
	fault_rate_start $DEV
	[ $mp = 0 ] || log "$side $sc: iopolicy $MP_POLICY, paths: $(tr '\n' ';' < $FAULT_RATES.paths)"
	fault_fio_start $sc.$side $DEV --continue_on_error=io
	wait_for 60 dev_written ${DEV#/dev/} 256 || log "$side $sc: fio does not write"
	set -- $(scen_args $sc)
	a=$1; shift
	fault_scenario $sc $a 0.9 180 "$@" || rc=$?
	fend=$EPOCHREALTIME
	alive=true; side_alive $side || alive=false
	fault_fio_end $sc.$side || fio_rc=1
	fault_rate_stop
	fault_rxe_snap /tmp/fm/rxe.1
	split='{}'
	# what the Linux host's controllers (and the kernel target's) went through: the
	# kernel's nvme log of the run, each line with its local time too, as rblk-target's
	[[ $side == host-* ]] && dmesg | awk -v t=$up0 '{ s = $0; sub(/^\[ */, "", s) } s + 0 >= t && /nvme[0-9]+:|nvmet|nvme_rdma|rdma_cm|infiniband|rxe/' |
		python3 -c 'import sys, time
off = time.time() - float(open("/proc/uptime").read().split()[0])
for l in sys.stdin:
    t = off + float(l[1:l.index("]")])
    print(time.strftime("%H:%M:%S", time.localtime(t)) + ".%03d " % (t % 1 * 1000) + l, end="")' \
		> $RAW/$side.$sc$REP.kernel-log.txt
	# and rblk-target's own log of it
	[[ $side == *-rblk ]] && tail -n +"$((tl0 + 1))" $RTLOG > $RAW/$side.$sc$REP.target-log.txt
	# and rblk attach's (its reconnect attempts; a multipath run keeps the whole log below)
	[[ $side == init-* ]] && [ $mp = 0 ] && tail -n +"$((al0 + 1))" /tmp/fm/attach.log > $RAW/$side.$sc$REP.attach-log.txt
	if [ $mp = 1 ]; then
		read -r _ a b _ < $FAULT_SCEN
		# the Linux host's paths are block devices with their own counters; rblk
		# attach's are not: it prints what each path carried when it detaches
		if [[ $side == host-* ]]; then
			split=$(fault_path_split $a $b $fend) || split='{}'
			split=$(python3 -c 'import json, sys
r = json.loads(sys.argv[1]); t = open(sys.argv[2]).read()
r["host_error_recoveries"] = t.count("starting error recovery")
r["host_reconnects"] = t.count("Successfully reconnected")
print(json.dumps(r))' "$split" $RAW/$side.$sc$REP.kernel-log.txt)
		else
			side_down $side
			cp /tmp/fm/attach.log $RAW/$side.$sc$REP.attach-log.txt
			# the last list, printed at detach (the first one: at attach)
			split=$(grep -E '^path [0-9]+:' /tmp/fm/attach.log | python3 -c 'import json, sys
r = json.loads(sys.argv[1]); l = [x.strip() for x in sys.stdin]
r["attach_paths"] = l[max((i for i, x in enumerate(l) if x.startswith("path 0:")), default=0):]
print(json.dumps(r))' "$split")
		fi
		split=$(python3 -c 'import json, sys
r = json.loads(sys.argv[1]); r["iopolicy"] = sys.argv[2]; print(json.dumps(r))' "$split" "$MP_POLICY")
	fi
	err=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read(); j = json.loads(t[t.index("{"):])["jobs"][0]
print(json.dumps({"fio_error": j["error"], "io_errors": j.get("total_err", 0),
    "verify_failure": j["error"] == 84, "lat_max_ms": round(j["write"]["lat_ns"]["max"] / 1e6, 1)}))' /tmp/fm/fio-$sc.$side.json 2>/dev/null) || err='{"fio_error": "no report"}'
	# Should Soft-RoCE be left broken (rping fails too): recorded, then repaired, with
	# both targets and the client set up afresh, since their listeners went with the
	# old rxe devices.
	fabric=true fabric2=true
	rdma_cm_ok || fabric=false
	[ $PAIR2 = 0 ] || fault_pair2_ok || fabric2=false
	[ $fabric2 = true ] || log "$side $sc: rping across the second pair fails: Soft-RoCE itself is broken there"
	fault_summaries $sc.$side | python3 -c 'import json, sys
r = json.loads(sys.stdin.readline()); r.update(json.loads(sys.argv[1])); r.update(json.loads(sys.argv[5]))
r["rxe"] = json.loads(sys.argv[6])
r.update({"side": sys.argv[2], "device_alive_after": sys.argv[3] == "true",
          "fabric_ok_after": sys.argv[4] == "true", "stall_checked": sys.argv[2].endswith("-rblk")})
print(json.dumps(r))' "$err" $side $alive $([ $fabric$fabric2 = truetrue ] && echo true || echo false) "$split" \
		"$(fault_rxe_delta /tmp/fm/rxe.0 /tmp/fm/rxe.1 2>/dev/null || echo '{}')" \
		> $RAW/$side.$sc$REP.json || echo "{\"side\": \"$side\", \"scenario\": \"$sc\", \"error\": \"no summary\"}" > $RAW/$side.$sc$REP.json
	log "$side $sc: $(cat $RAW/$side.$sc$REP.json)"
	# the per-second write counts behind the figures ("EPOCH SECTORS ..." lines)
	cp "$FAULT_RATES" $RAW/$side.$sc$REP.rates.txt 2>/dev/null
	# the namespaces live in the VM's /tmp (tmpfs, in its memory): room left in both
	log "$side $sc: /tmp $(df -k /tmp | awk 'NR == 2 { printf "%d of %d MiB used", $3 / 1024, $2 / 1024 }'), $(awk '/^MemAvailable:/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo) available"
	# a client that lost its controller (down-200s) is connected afresh for the next
	# one; so is one with two paths
	[ $alive = true ] && [ $fabric = true ] && [ $fabric2 = true ] && [ $mp = 0 ] || side_down $side
	if [ $fabric = false ] || [ $fabric2 = false ]; then
		log "the fabric is broken after $side $sc: repairing it, setting both targets up again"
		[ $fabric = true ] || vm_repair_rdma
		if [ $fabric2 = false ]; then
			fault_pair2_down
			fault_pair2_up && wait_for 30 fault_pair2_ok ||
				{ log "the second pair does not work again: no more multipath scenarios"; fault_pair2_down; PAIR2=0; }
		fi
		rblk_kill; rblk_start || log "rblk-target did not start again"
		nvmet_cleanup; kern_setup
	fi
}

echo "{\"kernel\": \"$(uname -r)\", \"cpus\": $(nproc), \"attach\": \"$AKIND\"}" > $RAW/env.json
for side in ${RBLK_FM_SIDES//,/ }; do
	for sc in ${RBLK_FM_SCEN//,/ }; do
		for rep in $(seq 1 $RBLK_FM_REPS); do
			REP=; [ $rep = 1 ] || REP=.r$rep
			run_one $side $sc
		done
	done
	side_alive $side && side_down $side
done
log "done"
VMEOF

echo "fault_matrix: sides $SIDES, scenarios $SCEN, kernel $KERNEL, build $BUILD, results in $OUT"
export VM_OUT=$OUT VM_TIMEOUT=$((600 + $(echo ${SIDES//,/ } | wc -w) * $(echo ${SCEN//,/ } | wc -w) * REPS * 400))
export RBLK_VM_KERNEL=$KERNEL RBLK_BENCH_BUILD=$BUILD RBLK_BENCH_SRC=$SRC RBLK_FM_SIDES=$SIDES RBLK_FM_SCEN=$SCEN RBLK_FM_REPS=$REPS RBLK_FM_KDEBUG=$KDEBUG
bench_vm_run "$OUT/vm-matrix.sh" || echo "fault_matrix: the VM run failed (console: $OUT/console.log); the table shows what finished" >&2
fi

# ---- the host side: summary.json and the table
python3 - "$OUT" "$SIDES" "$SCEN" <<'PYEOF'
import glob, json, os, sys
out, sides, scen = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
res = {"env": None, "runs": {}}
try:
    res["env"] = json.load(open(os.path.join(out, "raw", "env.json")))
except OSError:
    pass
for f in sorted(glob.glob(os.path.join(out, "raw", "*.*.json"))):
    if os.path.basename(f) == "env.json":
        continue
    r = json.load(open(f))
    rep = os.path.basename(f).split(".")[-2]
    key = r["scenario"] + ("#" + rep[1:] if rep.startswith("r") and rep[1:].isdigit() else "")
    res["runs"].setdefault(key, {})[r["side"]] = r
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=1)
# rows: each scenario, then its repetitions (SCENARIO#2, ...) in order
rows = []
for sc in scen:
    rows.append(sc)
    rows += sorted((k for k in res["runs"] if k.startswith(sc + "#")), key=lambda k: int(k.split("#")[1]))
scen = rows
def cell(r):
    if r is None:
        return "not run"
    if "error" in r:
        return r["error"]
    if r["scenario"] == "connect-down-20s":
        return ("connected in %.0fs" % r["connect_s"]) if r["connected_through_outage"] else \
            "failed; again in %ss" % r["connect_after_heal_s"]
    rec = "no" if r.get("recover_s") is None else "%.0fs" % r["recover_s"]
    s = "err %s%s lat %s rec %s" % (r.get("io_errors"), " VERIFY" if r.get("verify_failure") else "",
                                   "-" if r.get("longest_io_ms") is None else "%.0fms" % r["longest_io_ms"], rec)
    if r.get("fabric_ok_after") is False:
        s += " RXE-BROKEN"
    if r.get("stall_checked") and (r.get("stall_reports_after_recovery") or r.get("stalled_queues_open")):
        s += " STALL"
    return s
print("per run: fio I/O errors, longest I/O (ms), time to recover after the fault (90% of before)")
w = 34
print("%-21s" % "scenario" + "".join("%-*s" % (w, s) for s in sides))
for sc in scen:
    print("%-21s" % sc + "".join("%-*s" % (w, cell(res["runs"].get(sc, {}).get(s))) for s in sides))
print("throughput under the fault, KiB/s (before):")
for sc in scen:
    row = []
    for s in sides:
        r = res["runs"].get(sc, {}).get(s)
        row.append("-" if not r or "under_fault_Bps" not in r else "%d (%d)" % (r["under_fault_Bps"] / 1024, r["base_Bps"] / 1024))
    print("%-21s" % sc + "".join("%-*s" % (w, x) for x in row))
print("Soft-RoCE counters that grew during the run (rxe0: the target's side, rxe1: the host's):")
for sc in scen:
    for s in sides:
        r = res["runs"].get(sc, {}).get(s)
        if r and r.get("rxe"):
            print("%-21s%-13s%s" % (sc, s, "  ".join("%s %s" % (d, " ".join("%s=%d" % kv for kv in c.items()))
                                                      for d, c in r["rxe"].items())))
mp = [sc for sc in scen if sc.startswith("mpath-")]
if mp:
    print("multipath: each path's share of the bytes written, mean write time and share of the time its")
    print("controller was live, before / under / after the fault:")
    for sc in mp:
        for s in sides:
            r = res["runs"].get(sc, {}).get(s)
            if not r or "paths" not in r:
                continue
            print("%-17s %s (%s)%s" % (sc, s, r.get("iopolicy"), "" if "host_error_recoveries" not in r else
                  ", host error recoveries %d, reconnects %d" % (r["host_error_recoveries"], r["host_reconnects"])))
            for p in r["paths"]:
                cells = []
                for w in ("before", "under", "after"):
                    x = p[w]
                    cells.append("%s %s ms live %s" % ("-" if x["share"] is None else "%.0f%%" % (100 * x["share"]),
                                               "-" if x["mean_write_ms"] is None else x["mean_write_ms"],
                                               "-" if x.get("live") is None else "%.0f%%" % (100 * x["live"])))
                print("  %-30s %s" % (p["address"][:30] or p["device"], " / ".join(cells)))
            for l in r.get("attach_paths", []):
                print("  " + l)
print("(summary: %s)" % os.path.join(out, "summary.json"))
PYEOF
