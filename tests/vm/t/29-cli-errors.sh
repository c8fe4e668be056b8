#!/bin/bash
# 29-cli-errors: `rblk doctor` passes on the VM's working rxe pair; and bad input gives the
# documented exit codes and messages, never a hang: an unreachable address and a port
# nobody listens on (4), an unknown subsystem NQN on rblk-target and on the kernel target
# (5), a host the subsystem does not allow (3), an inactive namespace (5), an LBA range
# outside the namespace (2), a write to a write-protected namespace (3).
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
need_cmd jq jq
OPEN=nqn.2024-01.io.rblk:errors-open
CLOSED=nqn.2024-01.io.rblk:errors-closed
GOOD_HOST=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000aa
W="-w $VM_ADDR1"

fail() { bg_log target; die "$*"; }
# expect CODE SECONDS ARGS...: rblk must exit CODE within SECONDS; stderr in err.txt
expect() {
	local want=$1 limit=$2 rc t0=$SECONDS
	shift 2
	log "rblk $* (want exit $want)"
	timeout "$limit" "$RBLK" "$@" > out.txt 2> err.txt
	rc=$?
	sed 's/^/  /' err.txt
	[ $rc = 124 ] && fail "rblk $* hung (still running after ${limit}s)"
	[ $rc = "$want" ] || fail "rblk $*: exit $rc, wanted $want"
	log "  exit $rc after $((SECONDS - t0))s"
}

# ---- doctor on a host that works
expect 0 120 doctor -a $VM_ADDR0 -o json
jq -e '[.devices[].name] | index("rxe0") != null and index("rxe1") != null' out.txt >/dev/null ||
	fail "doctor does not list rxe0 and rxe1"
jq -e '.summary.fail == 0' out.txt >/dev/null || fail "doctor has FAIL lines"
jq -r '.checks[] | "[\(.verdict)] \(.check): \(.detail)"' out.txt
expect 0 120 doctor
grep -q '^\[OK  \] rxe1 port 1 state: ACTIVE' out.txt || fail "doctor: rxe1 port 1 not ACTIVE"

truncate -s 1M "$T_WORK/a.img"
truncate -s 1M "$T_WORK/b.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $OPEN --ns "$T_WORK/a.img" \
	--ns "$T_WORK/b.img,ro" --allow-any-host --subsystem $CLOSED --ns mem:1M --allow-host $GOOD_HOST
wait_for_line 60 target.log 'ready' "$BG_PID" || fail "rblk-target did not start"

# ---- unreachable: no such host on the link, and nobody listening on a port
expect 4 90 id-ctrl -t rdma -a 10.99.0.77 -n $OPEN $W
grep -qiE 'timed out|unreachable|no route' err.txt || fail "unreachable: no reason given"
grep -q 'rblk doctor' err.txt || fail "unreachable: no hint"
expect 4 90 discover -t rdma -a $VM_ADDR0 -s 4999 $W
expect 4 90 id-ctrl -t rdma -a $VM_ADDR0 -s 4999 -n $OPEN $W

# ---- unknown subsystem, refused host
expect 5 90 id-ctrl -t rdma -a $VM_ADDR0 -n nqn.2024-01.io.rblk:no-such-thing $W
grep -q 'Connect Invalid Parameters' err.txt || fail "unknown NQN: status not named"
expect 3 90 id-ctrl -t rdma -a $VM_ADDR0 -n $CLOSED $W
grep -q 'Connect Invalid Host' err.txt || fail "refused host: status not named"
expect 0 90 id-ctrl -t rdma -a $VM_ADDR0 -n $CLOSED -q $GOOD_HOST $W

# ---- namespaces and ranges
expect 5 90 id-ns -t rdma -a $VM_ADDR0 -n $OPEN -N 9 $W
grep -q 'not an active namespace' err.txt || fail "inactive namespace: message"
expect 5 90 read -t rdma -a $VM_ADDR0 -n $OPEN -N 9 --length 4k -d x.bin $W
expect 2 90 read -t rdma -a $VM_ADDR0 -n $OPEN -N 1 --lba 2048 --length 512 -d x.bin $W
grep -q 'past the end of the namespace' err.txt || fail "LBA range: message"
expect 2 90 read -t rdma -a $VM_ADDR0 -n $OPEN -N 1 --offset 1000 -d x.bin $W
head -c 2M /dev/zero > two.bin
expect 2 90 write -t rdma -a $VM_ADDR0 -n $OPEN -N 1 -d two.bin $W
head -c 4k /dev/zero > four.bin
expect 3 90 write -t rdma -a $VM_ADDR0 -n $OPEN -N 2 -d four.bin $W
grep -q 'write-protected' err.txt || fail "read-only namespace: message"
expect 0 90 write -t rdma -a $VM_ADDR0 -n $OPEN -N 1 -d four.bin $W

# ---- the kernel target says the same about an unknown NQN
nvmet_setup_rdma_port 1 $VM_ADDR0 4421
blk=$(null_blk_create 1)
nvmet_add_subsystem nqn.2024-01.io.rblk:errors-kernel "$blk"
nvmet_expose nqn.2024-01.io.rblk:errors-kernel 1
expect 5 90 id-ctrl -t rdma -a $VM_ADDR0 -s 4421 -n nqn.2024-01.io.rblk:no-such-thing $W
expect 5 90 id-ns -t rdma -a $VM_ADDR0 -s 4421 -n nqn.2024-01.io.rblk:errors-kernel -N 7 $W

bg_stop target || fail "rblk-target did not stop cleanly"
log "every bad input gave its documented exit code"
