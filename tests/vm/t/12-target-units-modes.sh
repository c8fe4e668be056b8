#!/bin/bash
# 12-target-units-modes: rblk-target with small buffer units (16 KiB units, 256 KiB
# transfers: every large I/O spans several units, SGEs and RDMA operations) and a small
# pool (requests wait for units), one poll group; fio verifies mixed sizes up to 1 MiB.
# Then the busy and event polling modes each pass a verified QD1 + QD32 run.
# vm-timeout: 1200
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target)
NQN=nqn.2024-01.io.rblk:units
need_cmd nvme nvme-cli
need_cmd fio fio
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
truncate -s 96M "$T_WORK/disk.img"

fail() { bg_log target; dmesg | grep -vE 'QID [0-9]+ timeout|requeuing' | tail -30; die "$*"; }


cat > "$T_WORK/units.json" <<JSON
{
  "ports": [ { "addr": { "adrfam": "ipv4", "traddr": "$VM_ADDR0", "treq": "not specified",
                         "trsvcid": "4420", "trtype": "rdma" },
               "portid": 1, "referrals": [], "subsystems": [ "$NQN" ] } ],
  "hosts": [],
  "subsystems": [ { "allowed_hosts": [], "attr": { "allow_any_host": "1" },
                    "namespaces": [ { "device": { "path": "$T_WORK/disk.img" }, "enable": 1, "nsid": 1 } ],
                    "nqn": "$NQN" } ],
  "x-rblk": { "io_unit_size": 16384, "max_io_size": 262144, "num_shared_buffers": 48,
              "in_capsule_data_size": 4096, "poll_groups": 1 }
}
JSON

# run MODE: start, connect, check the transfer size, fio, disconnect, stop
run() {
	local mode=$1 dev out; shift
	bg_start target "$TGT" --config "$T_WORK/units.json" --poll-mode "$mode" --log-level info
	wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"
	grep -E 'poll group|buffers of 16384' "$T_WORK/target.log" | head -3
	dev=$(nvme_connect_rdma $NQN | tail -1)
	[ -b "$dev" ] || fail "connect failed"
	out=$(nvme id-ctrl "${dev%n*}") || fail "id-ctrl failed"
	echo "$out" | grep -qE '^mdts +: 6$' || fail "mdts is not 6 (256 KiB)"
	echo "$out" | grep -qE '^ioccsz +: 260$' || fail "ioccsz is not (64 + 4096) / 16"
	"$@" "$dev"
	nvme disconnect -n $NQN >/dev/null || fail "disconnect failed"
	bg_stop target || fail "the target did not exit cleanly"
	grep -E ': (err|warn): ' "$T_WORK/target.log" && fail "errors or warnings in the target log"
	mv "$T_WORK/target.log" "$T_WORK/target-$mode.log"
}

big() {
	fio_verify units-mixed "$1" --bssplit=4k/20:20k/20:100k/20:256k/20:1m/20 --iodepth=16 \
		--numjobs=2 --size=32M --offset_increment=32M
	fio_verify units-1m "$1" --bs=1m --iodepth=8 --size=32M
}
small() {
	fio_verify qd1 "$1" --bs=4k --iodepth=1 --size=2M
	fio_verify qd32 "$1" --bs=4k --iodepth=32 --size=8M
}

run adaptive big
run busy small
run event small
log "PASS"
