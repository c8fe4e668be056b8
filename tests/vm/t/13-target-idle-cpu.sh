#!/bin/bash
# 13-target-idle-cpu: an idle rblk-target costs (almost) no CPU in the default adaptive
# polling mode: utime + stime from /proc/PID/stat over 10 s, with no host and with the
# Linux host connected but idle (keep-alives only). Prints the figures; fails only when
# the target is plainly spinning (more than a quarter of one CPU), since TCG timing is
# noisy. For contrast, the busy mode is measured too (it spins by design).
# vm-timeout: 300
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

for mode in adaptive busy; do
	bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:16M \
		--allow-any-host --poll-mode $mode
	wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || { bg_log target; die "no start"; }
	sleep 2
	idle=$(pct "$BG_PID" 10)
	dev=$(nvme_connect_rdma $NQN | tail -1)
	[ -b "$dev" ] || die "connect failed"
	sleep 2
	conn=$(pct "$BG_PID" 10)
	log "RESULT $mode: idle without hosts ${idle}% of a CPU, with an idle host connected ${conn}%"
	nvme disconnect -n $NQN >/dev/null
	bg_stop target || { bg_log target; die "the target did not stop cleanly"; }
	if [ $mode = adaptive ]; then
		[ "$idle" -le 25 ] || die "adaptive polling spins with no host (${idle}%)"
		[ "$conn" -le 25 ] || die "adaptive polling spins with an idle host (${conn}%)"
	fi
done
log "PASS"
