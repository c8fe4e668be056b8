#!/bin/bash
# 24-init-link-outage: the network drops without any CM message (veth1 down for 15 s)
# under running I/O to the kernel target. Nothing tells the host: the keep-alive (5 s)
# or the QP's retries must notice, the library reconnects once the link is back, and
# the loop finishes with every acknowledged write intact.
# vm-timeout: 400
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
IO=$(rblk_bin initiator/rblk-init-io)
NQN=nqn.2024-01.io.rblk:init-outage
A="-a $VM_ADDR0 -w $VM_ADDR1 -n $NQN"

blk=$(null_blk_create 1 memory_backed=1)
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $NQN "$blk"
nvmet_expose $NQN 1
# Setting a link down flushes the routes through it, including the VM's policy route
# that makes 10.99.0.2 -> 10.99.0.1 cross the veth pair: put it back with the link.
link_up() {
	ip link set veth1 up
	ip route replace 10.99.0.1 dev veth1 src 10.99.0.2 table 101
}
trap 'link_up 2>/dev/null' EXIT
ip route show table 101 | grep -q '10.99.0.1 dev veth1' || skip "no policy route for 10.99.0.2 -> 10.99.0.1 (table 101)"

bg_start outage "$IO" $A -m loop -t 45 -b 16384 -B 65536 -d 8 -k 5 -c 2 -l 120 -S 3000 -T 150
wait_for_line 60 "$T_WORK/outage.log" '^loop 0: ' "$BG_PID" || { bg_log outage; die "no I/O"; }
log "veth1 down"
ip link set veth1 down
sleep 15
log "veth1 up"
link_up || die "bringing veth1 back failed"
bg_wait outage 240; rc=$?
bg_log outage
[ $rc = 0 ] || die "the loop failed (exit $rc)"
grep -qE 'connection lost|Keep Alive unanswered' "$T_WORK/outage.log" || die "the outage was not noticed"
grep -q 'reconnected' "$T_WORK/outage.log" || die "no reconnect"
last=$(sed -n 's/^loop done: .*last seed \(0x[0-9a-f]*\)$/\1/p' "$T_WORK/outage.log")
"$IO" $A -m verify -b 16384 -B 65536 -S "$last" || die "acknowledged data lost"
log "PASS"
