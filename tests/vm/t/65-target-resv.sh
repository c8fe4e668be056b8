#!/bin/bash
# 65-target-resv: NVMe reservations (docs/reservations.md) as the Linux host and nvme-cli
# use them. One rblk-target, one file-backed namespace, PTPL state in $T_WORK/state; the
# host connects twice, as two host NQNs with their own host IDs (two controllers, one
# through each port). Native multipath joins both into one head, whose block device
# sends I/O down either path: each host's commands go through its own controller's char
# device (/dev/nvmeX; with one namespace the kernel passes I/O commands on it to that
# namespace on that controller).
#   1. host 1 registers (PTPL on) and takes Write Exclusive; both hosts' reports show it
#   2. host 2, not registered: reads pass, writes end with Reservation Conflict
#   3. host 2 registers and preempts host 1 with abort: host 1's writes conflict, host
#      2's pass, host 1 gets a Registration Preempted notice (log page 80h)
#   4. the target is stopped cleanly and restarted, then SIGKILLed and restarted: the
#      registrants and the holder are still there after each reconnect
#   5. release, then clear: no reservation, no registrant; then every type in turn:
#      host 2's reads and writes as a non-registrant and as a registrant against the
#      specification's conflict table
#   6. rblk's initiator as a third host (the rblk CLI's resv-* verbs): it takes Exclusive
#      Access (host 1's reads conflict), host 1 preempts it with abort, its writes then
#      end with Reservation Conflict (exit 3) and its report shows host 1 holding
#   7. the rblk CLI's compare, compare-write, verify and copy, with their exit codes;
#      bench/cw_race: two controllers (one per port) race fused Compare and Write on
#      one block for 1000 rounds, never two winners in a round
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
RBLK=$(rblk_bin cli/rblk) || exit 1
CW=$(rblk_bin bench/cw_race) || exit 1
NQN=nqn.2024-01.io.rblk:resv
H1=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000e1
H2=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000e2
ID1=00000000-0000-4000-8000-0000000000e1
ID2=00000000-0000-4000-8000-0000000000e2
H3=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000e3
ID3=00000000-0000-4000-8000-0000000000e3
need_cmd nvme nvme-cli
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
IMG=$T_WORK/ns.img
STATE=$T_WORK/state
mkdir -p "$T_OUT" 2>/dev/null
truncate -s 16M "$IMG"

fail() {
	bg_log target
	nvme list -v 2>&1
	dmesg | grep -vE 'QID [0-9]+ timeout|requeuing' | tail -30
	die "$*"
}

start() {
	bg_start target "$TGT" --listen $VM_ADDR0 --listen $VM_ADDR0:4421 \
		--subsystem $NQN --ns "$IMG" --allow-host $H1 --allow-host $H2 --allow-host $H3 \
		--state-dir "$STATE" --log-level info
	wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"
}

# ctrl_of HOSTNQN: the host's controller (nvmeX) of $NQN
ctrl_of() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] &&
			[ "$(cat "$c/hostnqn" 2>/dev/null)" = "$1" ] && echo "${c##*/}"
	done
}

# report C: Reservation Report (extended) through controller C, as JSON
report() { nvme resv-report "/dev/$1" -n 1 --eds -o json; }
# field C JQ: one value of C's report
field() { report "$1" | jq -r "$2"; }
# expect C JQ VALUE WHAT: C's report has VALUE at JQ
expect() {
	local v
	v=$(field "$1" "$2") || fail "resv-report through $1 failed"
	[ "$v" = "$3" ] || { report "$1"; fail "$4: $2 is '$v', not '$3' (through $1)"; }
}
# io C OPCODE ...: one logical block at LBA 0 through controller C (0x01 write, 0x02
# read, data in $T_WORK/read.bin); nvme-cli's messages, status included, in $T_WORK/io.txt
io() {
	local c=$1 op=$2
	if [ "$op" = 0x01 ]; then
		nvme io-passthru "/dev/$c" --opcode=$op --namespace-id=1 --data-len=$LBA \
			--cdw10=0 --cdw11=0 --cdw12=0 -w -i "$T_WORK/block" > "$T_WORK/io.txt" 2>&1
	else
		nvme io-passthru "/dev/$c" --opcode=$op --namespace-id=1 --data-len=$LBA \
			--cdw10=0 --cdw11=0 --cdw12=0 -r -b > "$T_WORK/read.bin" 2> "$T_WORK/io.txt"
	fi
}
# io_ok C OPCODE WHAT / io_conflict C OPCODE WHAT
io_ok() { io "$1" "$2" || { cat "$T_WORK/io.txt"; fail "$3 failed"; }; }
io_conflict() {
	if io "$1" "$2"; then fail "$3 passed"; fi
	grep -qi 'reservation.conflict' "$T_WORK/io.txt" ||
		{ cat "$T_WORK/io.txt"; fail "$3 did not end with Reservation Conflict"; }
	log "$3: $(grep -m1 -i 'reservation.conflict' "$T_WORK/io.txt")"
}
_live() { [ "$(nvme_ctrl_state "$C1")" = live ] && [ "$(nvme_ctrl_state "$C2")" = live ]; }
# registrants C: "hostid:rkey:rcsts" of every registrant, sorted
registrants() { report "$1" | jq -r '.regctlext[] | "\(.hostid):\(.rkey):\(.rcsts)"' | sort; }
X1=${ID1//-/}
X2=${ID2//-/}
X3=${ID3//-/}

start
CONN=(--reconnect-delay=1 --ctrl-loss-tmo=120)
# nvme-cli 2.3 takes a second host NQN to the same address and port for one already
# connected: the second host comes through the second port.
nvme connect -t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -q $H1 -I $ID1 "${CONN[@]}" >/dev/null ||
	fail "connect as host 1"
nvme connect -t rdma -a $VM_ADDR0 -s 4421 -n $NQN -w $VM_ADDR1 -q $H2 -I $ID2 "${CONN[@]}" >/dev/null ||
	fail "connect as host 2"
wait_for 20 _nvme_has_ns $NQN 1 || fail "no namespace block device"
C1=$(ctrl_of $H1); C2=$(ctrl_of $H2)
[ -n "$C1" ] && [ -n "$C2" ] && [ "$C1" != "$C2" ] || fail "controllers: host 1 '$C1', host 2 '$C2'"
nvme list -v
log "host 1: $C1 (cntlid $(cat /sys/class/nvme/$C1/cntlid)), host 2: $C2 (cntlid $(cat /sys/class/nvme/$C2/cntlid))"
ds=$(nvme id-ns /dev/$C1 -n 1 -o json | jq '.lbafs[.flbas % 16].ds') || fail "id-ns"
LBA=$((1 << ds))
head -c $LBA /dev/urandom > "$T_WORK/block"
rescap=$(nvme id-ns /dev/$C1 -n 1 -o json | jq .rescap)
log "LBA size $LBA, RESCAP $rescap"
[ "$rescap" = 255 ] || fail "RESCAP is $rescap: every type, IEKEY and PTPL expected (255)"

# ---- 1. host 1 registers with PTPL on and takes Write Exclusive
expect $C1 .regctl 0 "before any registration"
nvme resv-register /dev/$C1 -n 1 --nrkey=0xA1 --rrega=0 --cptpl=3 || fail "host 1 register"
nvme resv-acquire /dev/$C1 -n 1 --crkey=0xA1 --rtype=1 --racqa=0 || fail "host 1 acquire"
for c in $C1 $C2; do
	report $c
	expect $c .rtype 1 "after host 1's acquire"
	expect $c .ptpls 1 "after host 1's acquire"
	expect $c .regctl 1 "after host 1's acquire"
	[ "$(registrants $c)" = "$X1:161:1" ] || fail "registrants through $c: $(registrants $c)"
done
io_ok $C1 0x01 "host 1's write (holder)"

# ---- 2. host 2 is not registered: it reads, it may not write
io_ok $C2 0x02 "host 2's read under Write Exclusive"
cmp -s "$T_WORK/read.bin" "$T_WORK/block" || fail "host 2 did not read what host 1 wrote"
io_conflict $C2 0x01 "host 2's write under host 1's Write Exclusive"

# ---- 3. host 2 registers and preempts host 1 (and aborts its commands)
nvme resv-register /dev/$C2 -n 1 --nrkey=0xB2 --rrega=0 || fail "host 2 register"
io_conflict $C2 0x01 "host 2's write as a registrant under Write Exclusive"
nvme resv-acquire /dev/$C2 -n 1 --crkey=0xB2 --prkey=0xA1 --rtype=1 --racqa=2 ||
	fail "host 2's preempt and abort"
report $C2
expect $C2 .rtype 1 "after the preempt"
[ "$(registrants $C2)" = "$X2:178:1" ] || fail "registrants after the preempt: $(registrants $C2)"
io_conflict $C1 0x01 "host 1's write after it was preempted"
io_ok $C2 0x01 "host 2's write as the holder"
io_ok $C1 0x02 "host 1's read after it was preempted"
nvme resv-notif-log /dev/$C1 -o json > "$T_WORK/notif.json" || fail "resv-notif-log through $C1"
cat "$T_WORK/notif.json"
[ "$(jq .rn_log_type "$T_WORK/notif.json")" = 1 ] || fail "host 1's notice is not Registration Preempted (1)"
[ "$(jq '.nsid // .NSID' "$T_WORK/notif.json")" = 1 ] || fail "host 1's notice is not for NSID 1"
[ "$(jq '.count // .Count' "$T_WORK/notif.json")" -ge 1 ] || fail "host 1's notice has no Log Page Count"

# ---- 4. PTPL: host 1 registers again, the target restarts twice
nvme resv-register /dev/$C1 -n 1 --nrkey=0xA3 --rrega=0 || fail "host 1 registers again"
WANT=$(printf '%s\n' "$X1:163:0" "$X2:178:1" | sort)
[ "$(registrants $C1)" = "$WANT" ] || fail "registrants before the restarts: $(registrants $C1)"
ls -l "$STATE"
for how in TERM KILL; do
	kill -$how "${BG_PIDS[target]}"
	if [ $how = TERM ]; then
		bg_wait target 30 || fail "the target did not stop cleanly"
	else
		bg_wait target 30
	fi
	mv "$T_WORK/target.log" "$T_WORK/target-$how.log"
	start
	wait_for 90 _live || fail "the host did not reconnect after SIG$how: $(nvme_ctrl_state $C1) $(nvme_ctrl_state $C2)"
	log "both controllers live again after SIG$how and a restart"
	for c in $C1 $C2; do
		expect $c .rtype 1 "after SIG$how and a restart"
		expect $c .ptpls 1 "after SIG$how and a restart"
		[ "$(registrants $c)" = "$WANT" ] ||
			fail "registrants through $c after SIG$how: $(registrants $c)"
	done
	io_conflict $C1 0x01 "host 1's write (a registrant only) after SIG$how"
	io_ok $C2 0x01 "host 2's write (holder) after SIG$how"
done

# ---- 5. release, then clear
nvme resv-release /dev/$C1 -n 1 --crkey=0xA3 --rtype=1 --rrela=0 || fail "host 1's release (no-op: not the holder)"
expect $C1 .rtype 1 "after a release by a registrant that does not hold it"
nvme resv-release /dev/$C2 -n 1 --crkey=0xB2 --rtype=1 --rrela=0 || fail "host 2's release"
expect $C1 .rtype 0 "after the release"
[ "$(registrants $C1)" = "$(printf '%s\n' "$X1:163:0" "$X2:178:0" | sort)" ] ||
	fail "registrants after the release: $(registrants $C1)"
io_ok $C1 0x01 "host 1's write with no reservation"
nvme resv-release /dev/$C1 -n 1 --crkey=0xA3 --rrela=1 || fail "host 1's clear"
for c in $C1 $C2; do
	expect $c .rtype 0 "after the clear"
	expect $c .regctl 0 "after the clear"
done
io_ok $C2 0x01 "host 2's write after the clear"

# ---- 5b. the conflict matrix of all six types: host 1 holds, host 2 reads and writes
# as a non-registrant, then as a registrant (spec: Reservations, the command table)
# want TYPE: "nonreg-read nonreg-write reg-read reg-write" (ok or conflict)
want() {
	case $1 in
	1) echo "ok conflict ok conflict" ;;
	2) echo "conflict conflict conflict conflict" ;;
	3 | 5) echo "ok conflict ok ok" ;;
	4 | 6) echo "conflict conflict ok ok" ;;
	esac
}
# judge C OPCODE: ok or conflict (anything else fails the test)
judge() {
	if io "$1" "$2"; then echo ok; return; fi
	grep -qi 'reservation.conflict' "$T_WORK/io.txt" && { echo conflict; return; }
	cat "$T_WORK/io.txt" >&2
	echo "error"
}
nvme resv-register /dev/$C1 -n 1 --nrkey=0xA5 --rrega=0 >/dev/null || fail "host 1 registers for the matrix"
for t in 1 2 3 4 5 6; do
	nvme resv-acquire /dev/$C1 -n 1 --crkey=0xA5 --rtype=$t --racqa=0 >/dev/null ||
		fail "host 1 acquires type $t"
	got="$(judge $C2 0x02) $(judge $C2 0x01)"
	nvme resv-register /dev/$C2 -n 1 --nrkey=0xB5 --rrega=0 >/dev/null || fail "host 2 registers (type $t)"
	got="$got $(judge $C2 0x02) $(judge $C2 0x01)"
	[ "$got" = "$(want $t)" ] || fail "type $t: host 2 got '$got', the specification says '$(want $t)'"
	log "type $t ($(field $C1 .rtype)): host 2 not registered / registered: $got"
	nvme resv-register /dev/$C2 -n 1 --crkey=0xB5 --rrega=1 >/dev/null || fail "host 2 unregisters (type $t)"
	nvme resv-release /dev/$C1 -n 1 --crkey=0xA5 --rtype=$t --rrela=0 >/dev/null ||
		fail "host 1 releases type $t"
	expect $C1 .rtype 0 "after releasing type $t"
done
nvme resv-register /dev/$C1 -n 1 --crkey=0xA5 --rrega=1 >/dev/null || fail "host 1 unregisters after the matrix"

# ---- 6. rblk's initiator as host 3, through the rblk CLI
R3=(-t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -q $H3 -I $ID3 -N 1)
# rcode WANT WHAT CMD...: run CMD, expect exit code WANT (its stderr in $T_WORK/r3.err)
rcode() {
	local want=$1 what=$2 rc=0
	shift 2
	"$@" > "$T_WORK/r3.out" 2> "$T_WORK/r3.err" || rc=$?
	[ $rc = "$want" ] || { cat "$T_WORK/r3.out" "$T_WORK/r3.err"; fail "$what: exit $rc, wanted $want"; }
}
rcode 0 "rblk resv-register" "$RBLK" resv-register "${R3[@]}" --nrkey=0xC3
rcode 0 "rblk resv-acquire (Exclusive Access)" "$RBLK" resv-acquire "${R3[@]}" --crkey=0xC3 --rtype=2
expect $C1 .rtype 2 "after rblk's acquire"
[ "$(registrants $C1)" = "$X3:195:1" ] || fail "registrants after rblk's acquire: $(registrants $C1)"
io_conflict $C1 0x02 "host 1's read under rblk's Exclusive Access"
rcode 0 "rblk's read as the holder" "$RBLK" read "${R3[@]}" --lba 0 --length $LBA --quiet
nvme resv-register /dev/$C1 -n 1 --nrkey=0xA4 --rrega=0 || fail "host 1 registers for the preempt"
nvme resv-acquire /dev/$C1 -n 1 --crkey=0xA4 --prkey=0xC3 --rtype=1 --racqa=2 ||
	fail "host 1's preempt and abort of rblk's host"
rcode 0 "rblk resv-report" "$RBLK" resv-report "${R3[@]}" --eds -o json
cat "$T_WORK/r3.out"
jq -e --arg h "$X1" '.rtype == 1 and .regctl == 1 and .registrants[0].rkey == "0xa4" and
	.registrants[0].holder and .registrants[0].hostid == $h' "$T_WORK/r3.out" >/dev/null ||
	fail "rblk's report after the preempt"
rcode 3 "rblk's write after it was preempted" "$RBLK" write "${R3[@]}" --lba 0 -d "$T_WORK/block" --quiet
grep -qi 'reservation conflict' "$T_WORK/r3.err" || { cat "$T_WORK/r3.err"; fail "no Reservation Conflict in rblk's message"; }
log "rblk write after the preempt: $(head -1 "$T_WORK/r3.err")"
rcode 3 "rblk resv-acquire with a preempted key" "$RBLK" resv-acquire "${R3[@]}" --crkey=0xC3 --rtype=1
nvme resv-release /dev/$C1 -n 1 --crkey=0xA4 --rrela=1 || fail "host 1's clear after rblk's part"
expect $C1 .regctl 0 "after the last clear"

# ---- 7. compare, compare-write, verify, copy; the Compare and Write race
head -c $LBA /dev/urandom > "$T_WORK/b1"
head -c $LBA /dev/urandom > "$T_WORK/b2"
rcode 0 "rblk write" "$RBLK" write "${R3[@]}" --lba 10 -d "$T_WORK/b1" --quiet
rcode 0 "compare, equal" "$RBLK" compare "${R3[@]}" --start-block 10 --block-count 0 -d "$T_WORK/b1"
rcode 6 "compare, different" "$RBLK" compare "${R3[@]}" --start-block 10 --block-count 0 -d "$T_WORK/b2"
rcode 0 "compare-write, expected data" "$RBLK" compare-write "${R3[@]}" --start-block 10 \
	--block-count 0 --expect "$T_WORK/b1" -d "$T_WORK/b2"
rcode 6 "compare-write, stale data" "$RBLK" compare-write "${R3[@]}" --start-block 10 \
	--block-count 0 --expect "$T_WORK/b1" -d "$T_WORK/b1"
rcode 0 "copy" "$RBLK" copy "${R3[@]}" --sdlba 20 --slbs 10 --blocks 0
rcode 0 "compare the copy" "$RBLK" compare "${R3[@]}" --start-block 20 --block-count 0 -d "$T_WORK/b2"
rcode 0 "verify" "$RBLK" verify "${R3[@]}" --start-block 0 --block-count 1023
t0=$SECONDS
"$CW" -n $NQN -q $H3 -I $ID3 -w $VM_ADDR1 -a $VM_ADDR0 -s 4420 -a $VM_ADDR0 -s 4421 \
	--rounds 1000 --lba 100 --json "$T_OUT/cw_race.json" || fail "the Compare and Write race"
log "cw_race: $(jq -c . "$T_OUT/cw_race.json") ($((SECONDS - t0)) s)"

nvme disconnect -n $NQN >/dev/null || fail "disconnect"
bg_stop target || fail "the target did not stop cleanly"
cp "$T_WORK"/target*.log "$T_OUT/" 2>/dev/null
grep -E ': (err|warn): ' "$T_WORK"/target*.log && fail "errors or warnings in the target log"
log "PASS"
