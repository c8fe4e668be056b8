#!/bin/bash
# 67-soak-short: bench/soak.sh in miniature (docs/soak.md): 75 s of verified
# random writes through the Linux host and through rblk's initiator (`rblk attach`,
# ublk on 6.12, NBD on 6.1) to one rblk-target, while in a loop a namespace is added
# and removed through the RPC socket, the configuration reloaded (SIGHUP) and the host's
# controller reset (a reconnect); faults are test 66's (the long run adds them). The
# target and the initiator are sampled every 10 s (tests/vm/lib_soak.sh): resident
# memory, open descriptors, threads, and the target's controllers and queues. Fails
# when, from the first sample after the 20 s warm-up to the last, resident memory grew
# by more than 25% + 4 MiB, descriptors by more than 4 or threads by more than 2 (for
# either process), when fio saw an error or a verify failure, or when either client
# completed no write in three sample periods in a row (a host reset under TCG can take
# one period; 30 s without a write is the I/O stopped).
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
LIBDIR=$(dirname "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}")
. "$LIBDIR/lib_fault.sh" || exit 1	# its fio runner
. "$LIBDIR/lib_soak.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
RBLK=$(rblk_bin cli/rblk) || exit 1
SOAK_TGT=$TGT
NQN=nqn.2024-01.io.rblk:soak
SOCK=$T_WORK/rpc.sock
CFG=$T_WORK/config.json
SOAK_S=${RBLK_SOAK_SHORT_S:-75}
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd python3 python3
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null
fail() { bg_log target; [ -f "$T_WORK/attach.log" ] && bg_log attach; dmesg | tail -30; die "$*"; }
rpc() { "$TGT" rpc -s "$SOCK" "$@"; }

truncate -s 128M "$T_WORK/disk1.img"
truncate -s 32M "$T_WORK/disk2.img"
cat > "$CFG" <<JSON
{ "subsystems": [ { "nqn": "$NQN", "attr": { "allow_any_host": "1", "serial": "SOAK0001" },
    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "$T_WORK/disk1.img" } } ] } ],
  "ports": [ { "portid": 1, "subsystems": [ "$NQN" ],
    "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "4420",
              "treq": "not specified" } } ] }
JSON
bg_start target "$TGT" --config "$CFG" --save "$CFG" --rpc-socket "$SOCK" --log-level notice
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'ready' "$TPID" || fail "the target did not start"

dev=$(nvme_connect_rdma $NQN "$VM_ADDR0" 4420 "$VM_ADDR1" --reconnect-delay=1) || fail "connect failed"
ctrl=${dev#/dev/}; ctrl=${ctrl%n*}
if modprobe ublk_drv 2>/dev/null; then kind=--ublk; else modprobe nbd nbds_max=4 || fail "no ublk, no nbd"; kind=--nbd; fi
bg_start attach "$RBLK" attach -t rdma -a $VM_ADDR0 -s 4420 -n $NQN -w $VM_ADDR1 -N 1 "$kind" -c 2 -o json
APID=$BG_PID
wait_for_line 120 "$T_WORK/attach.log" '"device"' "$APID" || fail "attach printed no device"
adev=$(grep -oE '/dev/(ublkb|nbd)[0-9]+' "$T_WORK/attach.log" | head -1)
wait_for 10 test -b "$adev" || fail "$adev is not a block device"
log "host $dev, rblk attach $kind $adev"

# The two writers share the namespace: the host the first 64 MiB, the initiator the next.
fault_fio_start host "$dev"
HPID=$FPID
fault_fio_start init "$adev" --offset=64M
IPID=$FPID
wait_for 60 dev_written "${dev#/dev/}" 512 || fail "fio does not write through the host"

SAMPLES=$T_OUT/samples.jsonl
: > "$SAMPLES"
export SOAK_IO="host=$dev init=$adev"
soak_sampler_start "$SAMPLES" 10 "$SOCK" target=$TPID initiator=$APID

end=$((SECONDS + SOAK_S)) round=0
while [ $SECONDS -lt $end ]; do
	round=$((round + 1))
	rpc nvmf_subsystem_add_ns --nqn $NQN --namespace.path "$T_WORK/disk2.img" --namespace.nsid 2 \
		>/dev/null || fail "round $round: add_ns failed"
	n=$(grep -c 'reload: ' "$T_WORK/target.log")
	kill -HUP "$TPID"
	wait_for 30 sh -c "[ \$(grep -c 'reload: ' '$T_WORK/target.log') -gt $n ]" ||
		fail "round $round: no reload after SIGHUP"
	rpc nvmf_subsystem_remove_ns --nqn $NQN --nsid 2 >/dev/null || fail "round $round: remove_ns failed"
	nvme reset "/dev/$ctrl" 2>/dev/null || log "round $round: nvme reset refused (the controller was not live)"
	nvme_wait_live "$ctrl" 60 || fail "round $round: the host's controller did not come back"
	# a pause between rounds, so that the samples see the I/O as well as the churn
	sleep 3
done
log "$round rounds"
soak_sample "$SAMPLES" "$SOCK" target=$TPID initiator=$APID
soak_sampler_stop
FPID=$HPID; fault_fio_end host || { cat "$T_WORK/fio-host.json"; fail "fio through the host failed"; }
FPID=$IPID; fault_fio_end init || { cat "$T_WORK/fio-init.json"; fail "fio through rblk attach failed"; }
kill -0 "$TPID" 2>/dev/null || fail "the target died"
kill -0 "$APID" 2>/dev/null || fail "the initiator died"
# samples: the first two are the warm-up (pools filled, queues connected)
soak_drift "$SAMPLES" 2 25 4096 4 2; rc=$?
[ $rc = 2 ] && fail "too few samples"
[ $rc = 0 ] || fail "a resource grew over the run"
soak_io_idle "$SAMPLES" 3 || fail "the I/O stopped during the run"
log "PASS"
