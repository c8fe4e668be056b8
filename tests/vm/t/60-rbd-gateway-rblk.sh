#!/bin/bash
# 60-rbd-gateway-rblk: rblk's own initiator through the two RBD gateways of
# 59-rbd-gateway (tests/vm/lib_rbd.sh: A on 10.99.0.1:4420 and B on :4421 export one
# layering-only image of the shared Ceph cluster as one subsystem, client.rblk,
# Ceph's default configuration (librbd's cache on, unless rblk-target turns it off);
# ANA group 1 optimized on both, so the multipath head sends its I/O to its first
# path, A):
#   0. `rblk attach --nbd` with -a A -s 4420 -a A -s 4421: after one flushed write,
#      32 MiB written (direct, no flush) and acknowledged through A, A SIGKILLed at
#      once, the same 32 MiB read
#      back through B: identical (with librbd's cache on, A's acknowledged writes sat
#      in A and died with it);
#   1. on the same attach: crc32c-verified fio on
#      /dev/nbdX while A is SIGKILLed: no I/O error, B takes the writes; while A is
#      dead a pattern is written (acknowledged by B alone); A restarts and new writes
#      go to A again (failback);
#   2. the fio plugin with traddr=A,A trsvcid=4420,4421: verified writes while A is
#      SIGKILLed and restarted: no error;
#   3. after the gateways stop, "rbd export" shows the pattern is in the cluster.
# What 57-init-multipath does over a shared file, here over Ceph, where a restarted
# gateway must reconnect to the cluster and every write must reach the OSD before it
# is acknowledged. Writes served per gateway come from their SIGUSR1 statistics, the
# per-path I/O counts from the attach; timings are printed, never asserted.
# vm-timeout: 420
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_rbd.sh" || exit 1

RBLK=$(rblk_bin cli/rblk) || exit 1
need_cmd fio fio
modprobe nbd nbds_max=4 || die "modprobe nbd failed"
T00=$SECONDS
mkdir -p "$T_OUT" 2>/dev/null
# fio uses the first 32 MiB; the pattern written while A is dead goes at 40 MiB
SIZE_MB=48
PAT_MB=40
rbd_gw_image gw60 $SIZE_MB
NQN=$ANA_NQN

fail() {
	bg_log A; bg_log B
	[ -n "${BG_PIDS[attach]:-}" ] && bg_log attach
	dmesg | tail -20
	die "$*"
}


ana_cfg A optimized
ana_cfg B optimized
t0=$SECONDS
ana_start A
ana_start B
log "both gateways ready in $((SECONDS - t0)) s"

# ---- 1. rblk attach (NBD) with two paths; A dies and comes back
bg_start attach "$RBLK" attach --nbd -t rdma -a $VM_ADDR0 -s 4420 -a $VM_ADDR0 -s 4421 \
	-n $NQN -N 1 -w $VM_ADDR1 -c 1 -l 60 -o json -v
wait_for_line 120 "$T_WORK/attach.log" '"device"' "$BG_PID" || fail "attach printed no device"
DEV=$(grep -o '"/dev/nbd[0-9]*"' "$T_WORK/attach.log" | tr -d '"')
[ -b "$DEV" ] || fail "$DEV is not a block device"
grep -E '^path [01]:' "$T_WORK/attach.log" | sed 's/^/  /'
grep -q '^path 0: .* ANA group 1 optimized' "$T_WORK/attach.log" || fail "path 0 is not shown optimized"
grep -q '^path 1: .* ANA group 1 optimized' "$T_WORK/attach.log" || fail "path 1 is not shown optimized"
sz=$(blockdev --getsize64 "$DEV") || fail "blockdev $DEV failed"
[ "$sz" = $((SIZE_MB << 20)) ] || fail "$DEV has $sz bytes, not the image's $((SIZE_MB << 20))"
log "attached $DEV ($sz bytes, the image's size) over two gateways"

# ---- 0. Ceph's default configuration: nothing acknowledged stays in a gateway
grep -q 'librbd.s write-back cache is on' "$T_WORK/A.log" "$T_WORK/B.log" &&
	fail "a gateway runs with librbd's cache on though no namespace asked for it"
head -c 32M /dev/urandom > "$T_WORK/data32"
# a flush first, as any file system sends one: librbd's cache, when on, stays
# write-through until its first flush (rbd_cache_writethrough_until_flush), and a
# write-back cache is what loses acknowledged writes
dd if=/dev/zero of="$DEV" bs=4k count=1 seek=$((PAT_MB << 8)) oflag=direct conv=fsync \
	status=none || fail "the flushed write through A failed"
wb=$(ana_writes B)
t0=$SECONDS
# direct and without a flush: each write is acknowledged as it is, nothing asks a
# cache to empty itself; A dies at once, since librbd writes back what is dirty
# within rbd_cache_max_dirty_age (a second) on its own, and asking A for its
# statistics first would give it that second
dd if="$T_WORK/data32" of="$DEV" bs=1M oflag=direct status=none ||
	fail "writing 32 MiB through A failed"
kill_a 0
log "32 MiB written in $((SECONDS - t0)) s; SIGKILLed A right after its last acknowledgement"
wb2=$(ana_writes B)
[ "$wb2" = "$wb" ] || fail "B served $((wb2 - wb)) of the 32 MiB's writes: they did not all go through A"
t0=$SECONDS
dd if="$DEV" of="$T_WORK/back32" bs=1M count=32 iflag=direct status=none ||
	fail "reading the 32 MiB back through B failed"
cmp -s "$T_WORK/data32" "$T_WORK/back32" ||
	fail "the 32 MiB read back through B differ from what A acknowledged"
log "read back through B in $((SECONDS - t0)) s: identical to what A acknowledged"
rm -f "$T_WORK/data32" "$T_WORK/back32"
t0=$SECONDS
ana_start A
# the attach's path to A comes back before part 1 expects A to take the writes
wait_for 60 grep -q reconnected "$T_WORK/attach.log" ||
	fail "the attach did not reconnect to the restarted A within 60 s"
log "A restarted and the attach reconnected to it in $((SECONDS - t0)) s"

fio_bg_verify nbd "$DEV"
# the kill comes under I/O: once A, the head's first optimized path, has served writes
# (B must have none by then)
wait_for 60 ana_wrote A 0
wa=$(ana_writes A); wb=$(ana_writes B)
log "both paths optimized: A served $wa writes, B $wb (the head uses its first optimized path)"
[ "$wa" -gt 0 ] || fail "no writes reached A, the first optimized path"
[ "$wb" = 0 ] || fail "B got $wb writes while A was optimized and live"
kill_a 1
log "SIGKILLed A"
t=$(first_write_on B "$wb" 60) || fail "no write reached B within 60 s of A's death"
log "failover: first write on B $t s after A's death"
# acknowledged by B alone: must be in the cluster however A died
head -c 4M /dev/urandom > "$T_WORK/pattern"
t0=$SECONDS
dd if="$T_WORK/pattern" of="$DEV" bs=1M seek=$PAT_MB oflag=direct conv=fsync status=none ||
	fail "writing the pattern while A was dead failed"
log "4 MiB pattern written at $PAT_MB MiB through B in $((SECONDS - t0)) s"
wb=$(ana_writes B)
log "with A dead, B has served $wb writes"
kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-nbd.txt"; fail "fio stopped while A was dead"; }
t0=$SECONDS
ana_start A
log "A restarted in $((SECONDS - t0)) s (librbd connects to the cluster again)"
t=$(first_write_on A 0 60) || fail "no write reached the restarted A within 60 s (no failback)"
log "failback: the restarted A served its first write $t s after it was ready"
wb=$(ana_writes B)
sleep 3	# a duration: what B still gets in 3 s after the failback (logged)
wb2=$(ana_writes B); wa=$(ana_writes A)
log "3 s after failback: B served $((wb2 - wb)) more writes, A $wa since its restart"
fio_bg_end nbd

"$RBLK" detach "$DEV" || fail "rblk detach $DEV failed"
bg_wait attach 60 || fail "the attach process did not exit 0 after detach"
# the attach prints its paths once when attached and once more at detach: the last two
log "attach at detach (path 0 = A, path 1 = B; \"failed over\": I/O resent on another path):"
grep -E '^connection|^detached' "$T_WORK/attach.log" | sed 's/^/  /'
grep -E '^path [01]:' "$T_WORK/attach.log" | tail -2 | sed 's/^/  /'
# -v: the attach logs each connection loss, its cause and the reconnects (one loss
# expected: A's death; a path that reconnects twice is worth a look, not a failure)
log "attach's connection events (A = 10.99.0.1:4420):"
grep -E 'connection lost|reconnected|RDMA_CM_EVENT|Keep Alive|will be reset' "$T_WORK/attach.log" |
	sed 's/^/  /'
grep -E '^path 1:' "$T_WORK/attach.log" | tail -1 | grep -qE ' [1-9][0-9]* I/Os' ||
	fail "path 1 (B) shows no I/O at detach"

# ---- 2. the fio plugin with comma lists; A dies and comes back
. "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1
FIO_FAIL_HOOK='bg_log A; bg_log B'
FN="trtype=RDMA adrfam=IPv4 traddr=$VM_ADDR0,$VM_ADDR0 trsvcid=4420,4421 subnqn=${NQN//:/\\:} hostaddr=$VM_ADDR1 ns=1"
wa=$(ana_writes A)
rfio_verify plugin --filename="$FN" --rw=randwrite --bs=4k --iodepth=8 --size=32M --time_based \
	--runtime=40 --verify_backlog=64 --reconnect_delay=1 --ctrl_loss_tmo=60 &
RFPID=$!
# the kill comes under I/O: once the plugin's writes reach A
wait_for 60 ana_wrote A "$wa" || fail "fio plugin: no write reached A within 60 s"
wa=$(ana_writes A); wb=$(ana_writes B)
log "fio plugin: before the kill, writes since each gateway started: A $wa, B $wb"
kill_a 2
log "fio plugin: SIGKILLed A"
t=$(first_write_on B "$wb" 60) || fail "fio plugin: no write reached B within 60 s of A's death"
log "fio plugin: first write on B $t s after A's death"
sleep 2	# a duration: the job runs on B alone for a while before A returns
ana_start A
t=$(first_write_on A 0 60) || fail "fio plugin: no write reached the restarted A within 60 s"
log "fio plugin: the restarted A served its first write $t s after it was ready"
wait "$RFPID" || fail "fio through the plugin failed across A's death"
log "fio plugin: A served $(ana_writes A) writes since its restart, B $(ana_writes B) in total"

# ---- 3. what B alone acknowledged is in the cluster
bg_stop A; ra=$?
bg_stop B; rb=$?
cp "$T_WORK"/A*.log "$T_WORK/B.log" "$T_WORK/attach.log" "$T_OUT/" 2>/dev/null
[ $ra = 0 ] && [ $rb = 0 ] || fail "the gateways exited with $ra and $rb on SIGTERM"
t0=$SECONDS
rbd_admin export --no-progress "$RBD_IMG" "$T_WORK/export" || fail "rbd export failed"
want=$(sha256sum < "$T_WORK/pattern")
got=$(dd if="$T_WORK/export" bs=1M skip=$PAT_MB count=4 status=none | sha256sum)
log "rbd export of $(stat -c %s "$T_WORK/export") bytes in $((SECONDS - t0)) s;" \
	"sha256 written through B ${want%% *}, in Ceph ${got%% *}"
[ "$got" = "$want" ] || fail "Ceph does not hold the pattern B acknowledged"
rm -f "$T_WORK/export"
rbd_admin rm --no-progress "$RBD_IMG" >/dev/null 2>&1
log "PASS in $((SECONDS - T00)) s"
