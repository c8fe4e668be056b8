#!/bin/bash
# 13-target-idle-cpu: an idle rblk-target costs (almost) no CPU in the default adaptive
# polling mode: utime + stime from /proc/PID/stat over 4 s, with no host and with the
# Linux host connected but idle (keep-alives only). Prints the figures; fails only when
# the target is plainly spinning (more than a quarter of one CPU), since TCG timing is
# noisy. For contrast, the busy mode is measured too (it spins by design). In adaptive
# mode it also connects 8 controllers (the goal: < 1% of a core and < 50 system calls
# a second with 8 idle controllers) and prints their CPU and, when perf works in the
# VM, the target's system calls per second (raw_syscalls:sys_enter, all threads).
# vm-timeout: 420
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target)
NQN=nqn.2024-01.io.rblk:idle
HZ=$(getconf CLK_TCK)
need_cmd nvme nvme-cli
modprobe nvme_rdma || die "modprobe nvme_rdma failed"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# pct PID SECONDS: CPU use in percent of one CPU over SECONDS
pct() {
	local a b
	a=$(ticks "$1"); sleep "$2"; b=$(ticks "$1")
	echo $(( (b - a) * 100 / (HZ * $2) ))
}

# Seven more subsystems for the 8-controller step: nvme-cli answers a second connect to
# one subsystem from the same address with "already connected", -D or not.
MORE=
for i in 2 3 4 5 6 7 8; do MORE="$MORE --subsystem $NQN$i --ns mem:1M --allow-any-host"; done

# Each figure over WIN seconds (a duration, not a wait): 400 of /proc's clock ticks.
WIN=4
for mode in adaptive busy; do
	bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:16M \
		--allow-any-host $MORE --poll-mode $mode
	wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || { bg_log target; die "no start"; }
	# a duration, not a wait: the start-up's own work (threads, rxe setup) dies down
	# before the idle figure is taken; no event marks when it has
	sleep 2
	idle=$(pct "$BG_PID" $WIN)
	dev=$(nvme_connect_rdma $NQN | tail -1)
	[ -b "$dev" ] || die "connect failed"
	# a duration: the host's burst after connect (identify, namespace scan, udev's
	# probe) is over before the idle-with-a-host figure is taken
	sleep 2
	conn=$(pct "$BG_PID" $WIN)
	log "RESULT $mode: idle without hosts ${idle}% of a CPU, with an idle host connected ${conn}%"
	if [ $mode = adaptive ]; then
		# Seven more controllers (one per extra subsystem), then the idle cost of all eight.
		for i in 2 3 4 5 6 7 8; do
			nvme connect -t rdma -a $VM_ADDR0 -s 4420 -n $NQN$i -w $VM_ADDR1 >&2 ||
				die "connect $i failed"
		done
		n=$(ls -d /sys/class/nvme-subsystem/*/nvme* 2>/dev/null | grep -c '/nvme[0-9]*$' || true)
		# a duration: the seven connects' bursts settle before the 8-controller figures
		sleep 3
		sc=unknown
		if grep -q ' /sys/kernel/tracing ' /proc/mounts ||
			mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
			if perf stat -e raw_syscalls:sys_enter -x, -o /tmp/idle8.perf -p "$BG_PID" \
				-- sleep $WIN 2>/dev/null; then
				sc=$(awk -F, -v w=$WIN '/raw_syscalls:sys_enter/ { printf "%d", $1 / w }' /tmp/idle8.perf)
			fi
		fi
		# utime+stime are sampled at the timer tick, when an idle poller wakes up (timer
		# expiries fall on ticks), so they overcount; the scheduler's run time is exact.
		runns() { cat /proc/$1/task/*/schedstat | awk '{ n += $1 } END { printf "%.0f", n }'; }
		a=$(ticks "$BG_PID") ra=$(runns "$BG_PID"); sleep $WIN; b=$(ticks "$BG_PID") rb=$(runns "$BG_PID")
		conn8=$(( (b - a) * 100 / (HZ * WIN) ))
		log "RESULT $mode: $n controllers connected and idle: $(awk "BEGIN { printf \"%.1f\", ($b - $a) * 100 / ($HZ * $WIN) }")% of a CPU by utime+stime, $(awk "BEGIN { printf \"%.2f\", ($rb - $ra) / 1e7 / $WIN }")% by run time; $sc system calls/s"
		for i in 2 3 4 5 6 7 8; do nvme disconnect -n $NQN$i >/dev/null; done
		[ "$conn8" -le 25 ] || die "adaptive polling spins with 8 idle controllers (${conn8}%)"
	fi
	nvme disconnect -n $NQN >/dev/null
	bg_stop target || { bg_log target; die "the target did not stop cleanly"; }
	if [ $mode = adaptive ]; then
		[ "$idle" -le 25 ] || die "adaptive polling spins with no host (${idle}%)"
		[ "$conn" -le 25 ] || die "adaptive polling spins with an idle host (${conn}%)"
	fi
done
log "PASS"
