#!/bin/bash
# 46-target-nvme-cli: what an administrator does to rblk-target with nvme-cli from the
# Linux host, good and bad. The logs (error, firmware slot, effects, changed NS list),
# namespace lists and descriptors, features, properties, flush / write zeroes /
# deallocate through passthrough; then commands the target must refuse with the right
# NVMe status: unknown admin and I/O opcodes, an unknown log page, a log offset past
# its end, an unsupported feature, a bad namespace, a read past the last LBA, a
# property that does not exist. (A bad NSID on an I/O queue cannot be sent from here:
# the kernel checks passthrough NSIDs itself; the unit tests cover it.) Afterwards the controller still works (data verified),
# the error log holds the refusals, and the target stops cleanly.
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:cli-admin
need_cmd nvme nvme-cli
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
truncate -s 32M "$T_WORK/a.img"

fail() { bg_log target; dmesg | tail -20; die "$*"; }

# ok CMD...: must succeed
ok() {
	"$@" > out.txt 2>&1 || { cat out.txt; fail "'$*' failed"; }
	log "ok: $*"
}
# refused SC CMD...: must fail with NVMe status code SC (low 11 bits: SCT and SC;
# DNR and More may be set too). nvme-cli prints the status as "...(0xNNNN)".
refused() {
	local want=$1 got
	shift
	if "$@" > out.txt 2>&1; then
		cat out.txt
		fail "'$*' succeeded; expected NVMe status $want"
	fi
	got=$(grep -oE '\(0x[0-9a-fA-F]+\)' out.txt | tail -1 | tr -d '()')
	[ -n "$got" ] || { cat out.txt; fail "'$*': no NVMe status in the output"; }
	[ $((got & 0x7ff)) = $((want)) ] ||
		{ cat out.txt; fail "'$*': status $got, expected $want"; }
	log "refused as expected ($got): $*"
}

bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/a.img" \
	--allow-any-host --log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
DEV=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$DEV" ] || fail "connect failed"
CTRL=/dev/$(basename /sys/class/nvme-fabrics/ctl/nvme* | head -1)
NG=/dev/ng${DEV#/dev/nvme}
[ -c "$NG" ] || NG=$DEV
NBLK=$(( $(blockdev --getsz "$DEV") ))

# --- what must work
ok nvme error-log "$CTRL" -e 4
ok nvme fw-log "$CTRL"
ok nvme effects-log "$CTRL"
ok nvme changed-ns-list-log "$CTRL"
ok nvme list-ns "$CTRL"
grep -q '0x1' out.txt || { cat out.txt; fail "list-ns does not list namespace 1"; }
ok nvme ns-descs "$DEV"
grep -qi 'uuid' out.txt || { cat out.txt; fail "ns-descs has no UUID"; }
ok nvme get-feature "$CTRL" -f 0x7 -H	# number of queues
ok nvme get-feature "$CTRL" -f 0xb -H	# async event configuration
ok nvme get-feature "$CTRL" -f 0xf -H	# keep-alive timer
ok nvme get-feature "$CTRL" -f 0x6 -H	# volatile write cache
ok nvme get-property "$CTRL" --offset=0x0 -H	# CAP
ok nvme get-property "$CTRL" --offset=0x8	# VS
grep -qiE '0x10[0-9a-f]{4}|10300|10400' out.txt || { cat out.txt; fail "VS is not 1.x"; }
ok nvme smart-log "$CTRL"

# flush, write zeroes and deallocate on the namespace, and data around them intact
head -c 1M /dev/urandom > data.bin
dd if=data.bin of="$DEV" bs=1M count=1 oflag=direct status=none || fail "write failed"
ok nvme flush "$DEV" -n 1
ok nvme write-zeroes "$DEV" -n 1 -s 8 -c 7		# LBAs 8..15 (c is 0-based)
ok nvme dsm "$DEV" -n 1 -d -s 4096 -b 8		# LBAs 4096..4103: beyond the data
dd if="$DEV" of=back.bin bs=1M count=1 iflag=direct status=none || fail "read back failed"
cmp -n 4096 data.bin back.bin || fail "write zeroes touched LBAs 0..7"
[ "$(head -c 8192 back.bin | tail -c 4096 | tr -d '\0' | wc -c)" = 0 ] ||
	fail "write zeroes did not zero LBAs 8..15"
cmp -i 8192 data.bin back.bin || fail "write zeroes touched LBAs past 15"

# --- what must be refused, with the status the spec gives
refused 0x001 nvme admin-passthru "$CTRL" --opcode=0xc5				# Invalid Opcode
refused 0x001 nvme io-passthru "$NG" --opcode=0x99 --namespace-id=1		# Invalid Opcode
refused 0x109 nvme get-log "$CTRL" --log-id=0xc0 --log-len=512			# Invalid Log Page
refused 0x002 nvme get-log "$CTRL" --log-id=0x2 --log-len=512 --lpo=4096	# offset past the log
refused 0x002 nvme get-feature "$CTRL" -f 0x3					# LBA range type: not supported
refused 0x00b nvme ns-descs "$CTRL" -n 4294967294				# no such namespace
refused 0x080 nvme read "$DEV" -n 1 -s $((NBLK - 1)) -c 1 -z 1024		# LBA Out of Range
refused 0x080 nvme write-zeroes "$DEV" -n 1 -s $NBLK -c 0
refused 0x002 nvme set-property "$CTRL" --offset=0x1000 --value=1		# no such property

# --- afterwards: the controller is live, data intact, errors logged
dd if="$DEV" of=back2.bin bs=1M count=1 iflag=direct status=none || fail "read after the refusals failed"
cmp back.bin back2.bin || fail "data changed"
nvme error-log "$CTRL" -e 16 -o json > elog.json || fail "error-log failed"
n=$(jq '[.errors[] | select(.error_count > 0)] | length' elog.json)
[ "$n" -ge 5 ] || { cat elog.json; fail "error log holds $n entries, expected the refusals"; }
log "error log: $n entries"
kill -0 $TPID || fail "the target died"
timeout 60 nvme disconnect -n $NQN >/dev/null || fail "disconnect failed"
bg_stop target || fail "the target did not stop cleanly"
log "PASS"
