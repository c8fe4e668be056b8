#!/bin/bash
# 10-target-discover: rblk-target listens on 10.99.0.1:4420 and says which RDMA device,
# port, link layer, GID and MTU serve it; the Linux host's `nvme discover -t rdma` lists
# our subsystem (normal and JSON output); listening where no RDMA device is refuses to
# start with a clear message (never a fallback); SIGTERM stops the target cleanly.
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target)
NQN=nqn.2024-01.io.rblk:test
need_cmd nvme nvme-cli
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
truncate -s 64M "$T_WORK/disk.img"

bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk.img" \
	--allow-any-host --log-level info
wait_for_line 60 target.log 'ready' "$BG_PID" || { bg_log target; die "the target did not start"; }
grep -E 'listening on 10\.99\.0\.1:4420 via rxe0 port 1 \(ACTIVE, Ethernet via veth0\), RoCE v2 GID ::ffff:10\.99\.0\.1 \[[0-9]+\], MTU [0-9]+' target.log ||
	{ bg_log target; die "no 'listening on ... via rxe0 ... GID ... MTU' line"; }

# Across the pair: the host side is rxe1 (10.99.0.2).
out=$(timeout 60 nvme discover -t rdma -a $VM_ADDR0 -s 4420 -w $VM_ADDR1) ||
	{ bg_log target; die "nvme discover failed"; }
echo "$out"
echo "$out" | grep -qE "subnqn: +$NQN\$" || die "discover does not list $NQN"
echo "$out" | grep -qE 'trtype: +rdma' || die "trtype is not rdma"
echo "$out" | grep -qE 'traddr: +10\.99\.0\.1' || die "traddr is not 10.99.0.1"
echo "$out" | grep -qE 'trsvcid: +4420' || die "trsvcid is not 4420"
echo "$out" | grep -qE 'subtype: +nvme subsystem' || die "no NVM subsystem entry"

json=$(timeout 60 nvme discover -t rdma -a $VM_ADDR0 -s 4420 -w $VM_ADDR1 -o json) ||
	die "nvme discover -o json failed"
echo "$json" | grep -q "\"subnqn\":\"$NQN\"" || echo "$json" | grep -q "\"subnqn\" : \"$NQN\"" ||
	die "JSON discover does not list $NQN"

# The discovery controller went away again (nvme discover disconnects).
wait_for 20 sh -c '! ls /sys/class/nvme-fabrics/ctl/ | grep -q nvme' ||
	die "the discovery controller is still connected"

bg_stop target; rc=$?
[ $rc = 0 ] || { bg_log target; die "the target exited with $rc on SIGTERM"; }
grep -q 'stopped' target.log || die "no 'stopped' line"
grep -E 'error|ERR' target.log && die "errors in the target log"

# Never fall back: an address with no RDMA device, and one not on this machine.
"$TGT" --listen 127.0.0.1:4421 --subsystem $NQN --ns mem:16M --allow-any-host \
	> lo.log 2>&1; rc=$?
cat lo.log
[ $rc = 1 ] || die "listening on 127.0.0.1 exited with $rc, not 1"
grep -q 'no RDMA device serves this address' lo.log || die "no clear message for 127.0.0.1"

"$TGT" --listen 10.99.0.77:4421 --subsystem $NQN --ns mem:16M --allow-any-host \
	> far.log 2>&1; rc=$?
cat far.log
[ $rc = 1 ] || die "listening on 10.99.0.77 exited with $rc, not 1"
grep -q 'not on this machine' far.log || die "no clear message for 10.99.0.77"
log "PASS"
