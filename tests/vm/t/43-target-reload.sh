#!/bin/bash
# 43-target-reload: rblk-target's live reload as the connected Linux host sees it.
# Started from an nvmetcli-format --config; SIGHUP after adding namespace 2 makes
# /dev/nvmeXn2 appear on the host (namespace-changed AEN, rescan) and it carries data;
# SIGHUP after removing it makes it disappear; a broken config on SIGHUP is refused
# ("reload refused") and namespace 1 keeps serving I/O (fio verify runs across the
# three reloads without an error).
# vm-timeout: 400
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:reload
need_cmd nvme nvme-cli
need_cmd fio fio
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null
truncate -s 32M "$T_WORK/ns2.img"
CFG=$T_WORK/config.json

fail() { bg_log target; dmesg | tail -30; die "$*"; }

# write_cfg [EXTRA_NAMESPACE_JSON]
write_cfg() {
	cat > "$CFG.new" <<JSON
{ "subsystems": [ { "nqn": "$NQN", "attr": { "allow_any_host": "1", "serial": "RELOAD01" },
    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "mem:64M" } } $1 ] } ],
  "ports": [ { "portid": 1, "subsystems": [ "$NQN" ],
    "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "4420",
              "treq": "not specified" } } ] }
JSON
	mv "$CFG.new" "$CFG"
}
nr_lines() { grep -cE "$1" "$T_WORK/target.log"; }
# hup REGEX: SIGHUP and wait for one more log line matching REGEX
hup() {
	local n
	n=$(nr_lines "$1")
	kill -HUP "$TPID"
	for _ in $(seq 100); do
		[ "$(nr_lines "$1")" -gt "$n" ] && return 0
		sleep 0.2
	done
	fail "no new '$1' line after SIGHUP"
}

write_cfg ""
bg_start target "$TGT" --config "$CFG" --log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
DEV=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$DEV" ] || fail "connect failed"
[ -z "$(nvme_dev_for_nqn $NQN 2)" ] || fail "namespace 2 exists before the reload"

w0=$(dev_writes "$DEV")
bg_start fio fio --name=reload --filename="$DEV" --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=8 --size=32M --time_based --runtime=45 --verify=crc32c \
	--verify_fatal=1 --verify_backlog=64 --output="$T_WORK/fio.txt"
FPID=$BG_PID
# the reloads come under I/O: once fio's writes reach the device
wait_for 60 dev_written "$DEV" "$w0" || { cat fio.txt; fail "fio wrote nothing to $DEV in 60 s"; }

# add namespace 2
write_cfg ', { "nsid": 2, "enable": 1, "device": { "path": "'"$T_WORK/ns2.img"'" } }'
hup 'reload: '
DEV2=$(nvme_wait_ns $NQN 2 30) || fail "namespace 2 did not appear after the reload added it"
log "$DEV2 appeared"
out=$(nvme id-ns "$DEV2") || fail "id-ns $DEV2 failed"
echo "$out" | grep -qE '^nsze +: 0x10000$' || { echo "$out" | head; fail "$DEV2 nsze is not 0x10000 (32 MiB / 512)"; }
head -c 1M /dev/urandom > pat
dd if=pat of="$DEV2" bs=1M oflag=direct status=none || fail "write to $DEV2 failed"
dd if="$DEV2" of=back bs=1M count=1 iflag=direct status=none || fail "read from $DEV2 failed"
cmp pat back || fail "$DEV2 data read back differs"
cmp -n 1048576 pat "$T_WORK/ns2.img" || fail "the data is not in the backing file of namespace 2"

# remove it again
write_cfg ""
hup 'reload: '
wait_for 30 test ! -e "$DEV2" || fail "$DEV2 is still there after the reload removed namespace 2"
log "$DEV2 disappeared"

# a broken config is refused; the running one stays
echo '{ "subsystems": [ { "nqn": ' > "$CFG"
hup 'reload refused'
kill -0 "$TPID" || fail "the target died on a broken config"
# namespace 1 keeps serving I/O: fio's writes go on after the refused reload
w=$(dev_writes "$DEV")
wait_for 60 dev_written "$DEV" "$w" || { cat fio.txt; fail "no write reached $DEV after the refused reload"; }
kill -0 $FPID 2>/dev/null || { cat fio.txt; fail "fio stopped during the reloads"; }
bg_wait fio 120; rc=$?
cat fio.txt
[ $rc = 0 ] || fail "fio failed (rc $rc) across the reloads"
grep -qE 'err= *0' fio.txt || fail "fio reported errors"
head -c 1M /dev/urandom > pat
dd if=pat of="$DEV" bs=1M seek=40 oflag=direct status=none || fail "write after the refused reload failed"
dd if="$DEV" of=back bs=1M skip=40 count=1 iflag=direct status=none || fail "read after the refused reload failed"
cmp pat back || fail "data differs after the refused reload"

timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"
bg_stop target; rc=$?
cp "$T_WORK/target.log" "$T_OUT/" 2>/dev/null
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
log "PASS"
