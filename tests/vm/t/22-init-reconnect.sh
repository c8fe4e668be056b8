#!/bin/bash
# 22-init-reconnect: the kernel target goes away under running I/O and comes back.
# rblk-init-io loops write+verify over 16 MiB (reconnect_delay 1 s, ctrl_loss_tmo 60 s)
# while the nvmet port is removed (until the library has noticed and at least one of
# its reconnect attempts was refused) and re-added: the library notices (CM
# DISCONNECTED), tears the queues down, reconnects, resubmits what was in flight, and
# the loop finishes cleanly; afterwards the data of the last acknowledged pass is read
# back by a fresh connection: nothing acknowledged was lost. Done twice: with
# registered and with unregistered buffers.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
IO=$(rblk_bin tests/func/rblk-init-io)
NQN=nqn.2024-01.io.rblk:init-reconnect
A="-a $VM_ADDR0 -w $VM_ADDR1 -n $NQN"

blk=$(null_blk_create 1 memory_backed=1)
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN "$blk"
nvmet_expose $NQN 1

port_down() { rm -f "$NVMET_CFS/ports/1/subsystems/$NQN" && rmdir "$NVMET_CFS/ports/1"; }
port_up() { nvmet_setup_rdma_port 1 $VM_ADDR0 4420 >/dev/null && nvmet_expose $NQN 1; }

round() {
	local name=$1 seed=$2; shift 2
	log "=== $name ==="
	bg_start $name "$IO" $A -m loop -t 18 -o 0 -b 32768 -B 65536 -d 16 -c 1 -l 60 -S $seed -T 90 "$@"
	wait_for_line 60 "$T_WORK/$name.log" '^loop 0: ' "$BG_PID" || { bg_log $name; die "no I/O before the outage"; }
	log "removing the nvmet port"
	port_down || die "removing the port failed"
	# the port stays away until the library saw it go and failed to get back once
	# (nothing listens: refused), not for a guessed time
	wait_for_line 60 "$T_WORK/$name.log" 'connection lost' "$BG_PID" ||
		{ bg_log "$name"; die "$name: the outage was not noticed"; }
	wait_for_line 60 "$T_WORK/$name.log" 'reconnect to .* failed' "$BG_PID" ||
		{ bg_log "$name"; die "$name: no reconnect attempt failed while the port was away"; }
	log "re-adding the nvmet port"
	port_up || die "re-adding the port failed"
	bg_wait $name 180; rc=$?
	bg_log $name
	[ $rc = 0 ] || die "$name: the loop failed (exit $rc)"
	grep -q 'connection lost' "$T_WORK/$name.log" || die "$name: the outage was not noticed"
	grep -q 'reconnected' "$T_WORK/$name.log" || die "$name: no reconnect"
	last=$(sed -n 's/^loop done: .*last seed \(0x[0-9a-f]*\)$/\1/p' "$T_WORK/$name.log")
	[ -n "$last" ] || die "$name: no final seed"
	"$IO" $A -m verify -o 0 -b 32768 -B 65536 -S "$last" || die "$name: acknowledged data lost"
	log "$name: reconnected, loop clean, last pass ($last) intact"
}

round registered 1000
round unregistered 2000 -u
log "PASS"
