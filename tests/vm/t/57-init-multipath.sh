#!/bin/bash
# 57-init-multipath: rblk's own initiator with two paths to one subsystem. Two
# rblk-target processes, A (10.99.0.1:4420) and B (:4421), export one file as the same
# subsystem and namespace (tests/vm/lib_ana.sh, as test 56), ANA group 1 optimized on
# both, so the multipath head sends everything to its first path, A.
#   1. `rblk attach --nbd` with -a A -s 4420 -a A -s 4421: a crc32c-verified fio runs
#      on /dev/nbdX while A is SIGKILLed: no I/O error, B takes the writes (time to the
#      first write on B printed); A restarts and new writes go to A again (failback);
#   2. A's group made inaccessible (config + SIGHUP): writes move to B with no error;
#      optimized again: back to A;
#   3. the fio plugin with traddr=A,A trsvcid=4420,4421: verified writes while A is
#      SIGKILLed and restarted: no error;
#   4. `rblk write` with both paths (through A), A SIGKILLed, `rblk read --verify` with
#      both paths reads it back through B;
#   5. (kernels with ublk) `rblk attach --ublk` with both paths: verified fio while A is
#      SIGKILLed, no error.
# Writes served by each target come from their SIGUSR1 statistics; timings are
# printed, never asserted.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
. "$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")/lib_ana.sh" || exit 1

RBLK=$(rblk_bin cli/rblk) || exit 1
need_cmd fio fio
need_cmd jq jq
modprobe nbd nbds_max=4 || die "modprobe nbd failed"
IMG=$T_WORK/shared.img
truncate -s 64M "$IMG"
NQN=$ANA_NQN

fail() {
	bg_log A; bg_log B
	[ -n "${BG_PIDS[attach]:-}" ] && bg_log attach
	dmesg | tail -20
	die "$*"
}


ana_cfg A optimized
ana_cfg B optimized
ana_start A
ana_start B

# ---- 1. rblk attach (NBD) with two paths; A dies and comes back
bg_start attach "$RBLK" attach --nbd -t rdma -a $VM_ADDR0 -s 4420 -a $VM_ADDR0 -s 4421 \
	-n $NQN -N 1 -w $VM_ADDR1 -c 1 -l 60 -o json
wait_for_line 120 "$T_WORK/attach.log" '"device"' "$BG_PID" || fail "attach printed no device"
DEV=$(grep -o '"/dev/nbd[0-9]*"' "$T_WORK/attach.log" | tr -d '"')
[ -b "$DEV" ] || fail "$DEV is not a block device"
grep -E '^path [01]:' "$T_WORK/attach.log" | sed 's/^/  /'
grep -q '^path 0: .* ANA group 1 optimized' "$T_WORK/attach.log" || fail "path 0 is not shown optimized"
grep -q '^path 1: .* ANA group 1 optimized' "$T_WORK/attach.log" || fail "path 1 is not shown optimized"
log "attached $DEV over two paths"

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
sleep 3	# a duration: fio runs on B alone for a while before A returns
kill -0 "$FPID" 2>/dev/null || { cat "$T_WORK/fio-nbd.txt"; fail "fio stopped while A was dead"; }
ana_start A
t=$(first_write_on A 0 60) || fail "no write reached the restarted A within 60 s (no failback)"
log "failback: the restarted A served its first write $t s after it was ready"
wb=$(ana_writes B)
sleep 3	# a duration: what B still gets in 3 s after the failback (logged)
wb2=$(ana_writes B); wa=$(ana_writes A)
log "3 s after failback: B served $((wb2 - wb)) more writes, A $wa in total"
fio_bg_end nbd

# ---- 2. A's group inaccessible: the writes move to B; optimized again: back to A
wa=$(ana_writes A)
fio_bg_verify ana "$DEV"
# A's group changes under I/O: once this fio's writes reach A
wait_for 60 ana_wrote A "$wa" || fail "fio's writes do not reach A before its group changes"
wb=$(ana_writes B)
t0=$SECONDS
ana_cfg A inaccessible
kill -HUP "$PID_A"
wait_for_line 30 "$T_WORK/A.log" 'ANA group 1 is inaccessible' "$PID_A" || fail "A did not apply the reload"
t=$(first_write_on B "$wb" 60) || fail "no write reached B within 60 s of A turning inaccessible"
log "A inaccessible: first write on B $((SECONDS - t0)) s after SIGHUP"
# durations, not waits: 2 s for what was in flight on A when its group changed, then
# a 4 s window in which A must receive nothing
sleep 2
wa=$(ana_writes A)
sleep 4
wa2=$(ana_writes A)
log "in 4 s with A inaccessible: A served $((wa2 - wa)) writes"
[ "$wa2" = "$wa" ] || fail "A still receives writes while its group is inaccessible"
ana_cfg A optimized
kill -HUP "$PID_A"
wait_for_line 30 "$T_WORK/A.log" 'ANA group 1 is optimized' "$PID_A" || fail "A did not apply the second reload"
t=$(first_write_on A "$wa2" 60) || fail "A receives no writes after it became optimized again"
log "A optimized again: first write on A $t s after the second reload"
fio_bg_end ana

"$RBLK" detach "$DEV" || fail "rblk detach $DEV failed"
bg_wait attach 60 || fail "the attach process did not exit 0 after detach"
log "attach at detach:"
grep -E '^path [01]:|^connection|^detached' "$T_WORK/attach.log" | sed 's/^/  /'
grep -q '^path 1: .* [1-9][0-9]* I/Os' "$T_WORK/attach.log" || fail "path 1 shows no I/O at detach"

# ---- 3. the fio plugin with comma lists; A dies and comes back
. "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1
FIO_FAIL_HOOK='bg_log A; bg_log B'
FN="trtype=RDMA adrfam=IPv4 traddr=$VM_ADDR0,$VM_ADDR0 trsvcid=4420,4421 subnqn=${NQN//:/\\:} hostaddr=$VM_ADDR1 ns=1"
wa=$(ana_writes A)
rfio_verify plugin --filename="$FN" --rw=randwrite --bs=4k --iodepth=8 --size=32M --time_based \
	--runtime=35 --verify_backlog=64 --reconnect_delay=1 --ctrl_loss_tmo=60 &
RFPID=$!
# the kill comes under I/O: once the plugin's writes reach A
wait_for 60 ana_wrote A "$wa" || fail "fio plugin: no write reached A within 60 s"
wb=$(ana_writes B)
kill_a 3
log "fio plugin: SIGKILLed A"
t=$(first_write_on B "$wb" 60) || fail "fio plugin: no write reached B within 60 s of A's death"
log "fio plugin: first write on B $t s after A's death"
sleep 3	# a duration: the job runs on B alone for a while before A returns
ana_start A
t=$(first_write_on A 0 60) || fail "fio plugin: no write reached the restarted A within 60 s"
log "fio plugin: the restarted A served its first write $t s after it was ready"
wait "$RFPID" || fail "fio through the plugin failed across A's death"
log "fio plugin: A served $(ana_writes A) writes since its restart, B $(ana_writes B) in total"

# ---- 4. rblk write / read over both paths; A dies in between
head -c 4M /dev/urandom > "$T_WORK/pattern"
PATHS="-t rdma -a $VM_ADDR0 -s 4420 -a $VM_ADDR0 -s 4421 -n $NQN"
wa=$(ana_writes A)
"$RBLK" write $PATHS --offset 40M -d "$T_WORK/pattern" --no-progress ||
	fail "rblk write over two paths failed"
[ "$(ana_writes A)" -gt "$wa" ] || fail "rblk write sent nothing to A, the first optimized path"
kill_a 4
log "rblk write: 4 MiB through A; A SIGKILLed"
"$RBLK" read $PATHS --offset 40M --length 4M -d "$T_WORK/pattern" --verify --no-progress ||
	fail "rblk read --verify over two paths with A dead failed"
log "rblk read --verify: the 4 MiB read back through B with A dead"
ana_start A

# ---- 5. rblk attach --ublk with two paths (kernels with ublk: 6.12); A dies under fio
[ -e /dev/ublk-control ] || modprobe ublk_drv 2>/dev/null
if [ -e /dev/ublk-control ]; then
	bg_start attach-ublk "$RBLK" attach --ublk -t rdma -a $VM_ADDR0 -s 4420 -a $VM_ADDR0 \
		-s 4421 -n $NQN -N 1 -w $VM_ADDR1 -c 1 -l 60 -o json
	wait_for_line 120 "$T_WORK/attach-ublk.log" '"device"' "$BG_PID" ||
		{ bg_log attach-ublk; fail "attach --ublk printed no device"; }
	UDEV=$(grep -o '"/dev/ublkb[0-9]*"' "$T_WORK/attach-ublk.log" | tr -d '"')
	[ -b "$UDEV" ] || fail "$UDEV is not a block device"
	wa=$(ana_writes A)
	fio_bg_verify ublk "$UDEV"
	# the kill comes under I/O: once this fio's writes reach A
	wait_for 60 ana_wrote A "$wa" || fail "ublk: no write reached A within 60 s"
	wb=$(ana_writes B)
	kill_a 5
	t=$(first_write_on B "$wb" 60) || fail "ublk: no write reached B within 60 s of A's death"
	log "ublk ($UDEV): first write on B $t s after A's death"
	sleep 3	# a duration: fio runs on B alone for a while before it ends
	fio_bg_end ublk
	"$RBLK" detach "$UDEV" || fail "rblk detach $UDEV failed"
	bg_wait attach-ublk 60 || { bg_log attach-ublk; fail "attach --ublk did not exit 0 after detach"; }
	grep -E '^path [01]:' "$T_WORK/attach-ublk.log" | sed 's/^/  /'
	ana_start A
else
	log "no ublk in kernel $(uname -r): the two-path ublk case is skipped"
fi

bg_stop A; ra=$?
bg_stop B; rb=$?
cp "$T_WORK"/A*.log "$T_WORK/B.log" "$T_WORK/attach.log" "$T_OUT/" 2>/dev/null
[ $ra = 0 ] && [ $rb = 0 ] || fail "the targets exited with $ra and $rb on SIGTERM"
log "PASS"
