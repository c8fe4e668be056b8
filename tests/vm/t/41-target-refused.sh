#!/bin/bash
# 41-target-refused: rblk-target's access control as the Linux host sees it. A subsystem
# with --allow-host OTHER refuses a host NQN that is not on its list (nvme connect
# fails, the kernel logs the Connect Invalid Host status), an unknown subsystem NQN is
# refused (Invalid Parameter), and the allowed host NQN connects and does I/O.
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:guarded
GOOD=nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555
BAD=nqn.2014-08.org.nvmexpress:uuid:99999999-8888-7777-6666-555555555555
need_cmd nvme nvme-cli
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null

fail() { bg_log target; dmesg | tail -30; die "$*"; }
dmesg_mark() { dmesg | wc -l; }
dmesg_since() { dmesg | tail -n +$(($1 + 1)); }
# dmesg_has MARK REGEX: the kernel logged a line matching REGEX since MARK (for wait_for)
dmesg_has() { dmesg_since "$1" | grep -qiE -- "$2"; }
nr_ctrls() { local n=0 c; for c in /sys/class/nvme-fabrics/ctl/nvme*; do [ -e "$c" ] && n=$((n + 1)); done; echo $n; }

bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns mem:32M \
	--allow-host "$GOOD" --log-level info
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$BG_PID" || fail "the target did not start"

# 1. a host NQN not on the list
m=$(dmesg_mark)
timeout 60 nvme connect -t rdma -a $VM_ADDR0 -s 4420 -w $VM_ADDR1 -n $NQN \
	--hostnqn="$BAD" > connect-bad.txt 2>&1; rc=$?
cat connect-bad.txt
[ $rc != 0 ] || fail "nvme connect with a host NQN that is not allowed succeeded"
[ "$(nr_ctrls)" = 0 ] || fail "a controller exists after the refused connect"
# the kernel's word on the refusal may trail nvme connect's exit: wait for it (on a
# timeout the grep below fails with the message)
wait_for 30 dmesg_has "$m" 'Invalid Host|is not allowed'
dmesg_since "$m" | tee dmesg-bad.txt
grep -qiE 'Invalid Host|is not allowed' dmesg-bad.txt ||
	fail "dmesg has no 'Connect Invalid Host' / 'not allowed' message for the refused host"
grep -qE "connect from $BAD to $NQN: host not allowed" "$T_WORK/target.log" ||
	fail "the target did not log the refused host"

# 2. an unknown subsystem NQN (from the allowed host)
m=$(dmesg_mark)
timeout 60 nvme connect -t rdma -a $VM_ADDR0 -s 4420 -w $VM_ADDR1 \
	-n nqn.2024-01.io.rblk:nosuch --hostnqn="$GOOD" > connect-unknown.txt 2>&1; rc=$?
cat connect-unknown.txt
[ $rc != 0 ] || fail "nvme connect to an unknown subsystem succeeded"
[ "$(nr_ctrls)" = 0 ] || fail "a controller exists after the unknown-subsystem connect"
wait_for 30 dmesg_has "$m" 'Invalid (Data )?Param|subsysnqn'
dmesg_since "$m" | tee dmesg-unknown.txt
grep -qiE 'Invalid (Data )?Param|subsysnqn' dmesg-unknown.txt ||
	fail "dmesg has no 'Connect Invalid Parameter' message for the unknown subsystem"
grep -qE "unknown subsystem nqn.2024-01.io.rblk:nosuch" "$T_WORK/target.log" ||
	fail "the target did not log the unknown subsystem"

# 3. the allowed host
DEV=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" --hostnqn="$GOOD" | tail -1)
[ -b "$DEV" ] || fail "the allowed host could not connect"
hn=$(cat /sys/class/nvme-fabrics/ctl/nvme*/hostnqn | head -1)
[ "$hn" = "$GOOD" ] || fail "the connected controller's hostnqn is '$hn', not $GOOD"
head -c 1M /dev/urandom > pat
dd if=pat of="$DEV" bs=1M oflag=direct status=none || fail "write to $DEV failed"
dd if="$DEV" of=back bs=1M count=1 iflag=direct status=none || fail "read from $DEV failed"
cmp pat back || fail "data read back differs"
timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"

bg_stop target; rc=$?
cp "$T_WORK/target.log" "$T_OUT/" 2>/dev/null
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
grep -E ': err: ' "$T_WORK/target.log" && fail "errors in the target log"
log "PASS"
