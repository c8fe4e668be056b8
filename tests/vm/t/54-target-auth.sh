#!/bin/bash
# 54-target-auth: DH-HMAC-CHAP between the Linux host (6.12: nvme-auth) and rblk-target.
# Host A authenticates with its key (SHA-256, no DH), host B bidirectionally with
# SHA-384 and ffdhe2048 (keys from nvme-cli's gen-dhchap-key, so the two ends share
# only the format); both pass fio verify. Refused, and logged as refused: A with a
# wrong key, A with no key, and A's key presented under B's host NQN. Secrets never
# appear in the target's log. Then a reload that changes A's key drops A's
# controller, and A comes back with the new key.
# vm-timeout: 900
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target)
RBLK=$(rblk_bin cli/rblk)
NQN=nqn.2024-01.io.rblk:auth
HA=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000b1
HB=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000b2
need_cmd nvme nvme-cli
need_cmd fio fio
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
modinfo nvme-auth >/dev/null 2>&1 ||
	skip "kernel $(uname -r) has no NVMe in-band authentication (nvme-auth; 6.12 has it)"
hostid() { echo "${1##*uuid:}"; }
fail() { bg_log target; dmesg | tail -30; die "$*"; }

# Keys: A's from rblk, B's and the controller's from nvme-cli (each end's generator).
KA=$("$RBLK" gen-dhchap-key -n $HA -m 1) || die "rblk gen-dhchap-key"
KA2=$("$RBLK" gen-dhchap-key -n $HA -m 0 -l 48) || die "rblk gen-dhchap-key -l 48"
KB=$(nvme gen-dhchap-key -n $HB -m 2 -l 48) || die "nvme gen-dhchap-key"
KC=$(nvme gen-dhchap-key -n $NQN -m 3 -l 64) || die "nvme gen-dhchap-key (controller)"
KWRONG=$("$RBLK" gen-dhchap-key -n $HA -m 1)
for k in "$KA" "$KA2" "$KB" "$KC"; do
	case "$k" in DHHC-1:0[0-3]:*:) ;; *) die "not a DHHC-1 secret: ${k%%:*}:..." ;; esac
done
truncate -s 64M "$T_WORK/disk.img"

cfg=$T_WORK/config.json
write_config() { # KEY_A
	cat > "$cfg" <<JSON
{
  "hosts": [
    { "nqn": "$HA", "dhchap": { "key": "$1", "ctrl_key": "", "hash": "hmac(sha256)", "dhgroup": "null" } },
    { "nqn": "$HB", "dhchap": { "key": "$KB", "ctrl_key": "$KC", "hash": "hmac(sha384)", "dhgroup": "ffdhe2048" } }
  ],
  "ports": [ { "portid": 1, "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "4420" },
               "subsystems": [ "$NQN" ] },
             { "portid": 2, "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "4421" },
               "subsystems": [ "$NQN" ] } ],
  "subsystems": [ { "nqn": "$NQN", "attr": { "allow_any_host": "0" }, "allowed_hosts": [ "$HA", "$HB" ],
                    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "$T_WORK/disk.img" } } ] } ]
}
JSON
	chmod 600 "$cfg"
}
write_config "$KA"
"$TGT" --config "$cfg" --check >/dev/null || fail "--check refused the configuration"
bg_start target "$TGT" --config "$cfg" --log-level info
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"

# connect HOSTNQN PORT [nvme-cli args...]: 0 when connected
connect() {
	local h=$1 port=$2
	shift 2
	nvme connect -t rdma -a $VM_ADDR0 -s $port -w $VM_ADDR1 -n $NQN -q $h -I $(hostid $h) "$@"
}
refused() { # WHAT HOSTNQN PORT [args]: the connect must fail and leave no controller
	local what=$1
	shift
	local n0 t0
	n0=$(grep -c . "$T_WORK/target.log")
	t0=$SECONDS
	if connect "$@" > "$T_WORK/refused.txt" 2>&1; then
		cat "$T_WORK/refused.txt"
		fail "$what: connected"
	fi
	log "$what: refused after $((SECONDS - t0)) s: $(head -1 "$T_WORK/refused.txt")"
	nvme_no_ns $NQN || fail "$what: a namespace appeared"
	tail -n +$((n0 + 1)) "$T_WORK/target.log" | grep -i 'auth' | grep -q "${1}" ||
		fail "$what: no authentication refusal naming $1 in the target log"
}

# Host A: unidirectional, SHA-256, no DH (the host offers every hash and group).
t0=$(date +%s%N)
connect $HA 4420 --dhchap-secret="$KA" >/dev/null || fail "host A with its key"
log "host A connected in $((($(date +%s%N) - t0) / 1000000)) ms (authenticated)"
da=$(nvme_wait_ns $NQN 1) || fail "no namespace for host A"
fio_verify a "$da" --bs=16k --iodepth=16 --size=16M
nvme disconnect -n $NQN >/dev/null || fail "disconnect A"
wait_for 20 nvme_no_ns $NQN || fail "A's namespace stays"

# Host B: bidirectional, SHA-384, ffdhe2048, the controller's key from nvme-cli.
t0=$(date +%s%N)
connect $HB 4421 --dhchap-secret="$KB" --dhchap-ctrl-secret="$KC" >/dev/null ||
	fail "host B bidirectional"
log "host B connected in $((($(date +%s%N) - t0) / 1000000)) ms (bidirectional, ffdhe2048)"
db=$(nvme_wait_ns $NQN 1) || fail "no namespace for host B"
fio_verify b "$db" --bs=64k --iodepth=8 --size=16M
nvme disconnect -n $NQN >/dev/null || fail "disconnect B"
wait_for 20 nvme_no_ns $NQN || fail "B's namespace stays"

refused "wrong key" $HA 4420 --dhchap-secret="$KWRONG"
refused "no key" $HA 4420
refused "A's key under B's NQN" $HB 4421 --dhchap-secret="$KA"
refused "B with a wrong controller key" $HB 4421 --dhchap-secret="$KB" --dhchap-ctrl-secret="$KA"

# Reload: A's key changes. A's live controller goes; the new key works.
connect $HA 4420 --dhchap-secret="$KA" >/dev/null || fail "host A again"
nvme_wait_ns $NQN 1 >/dev/null || fail "no namespace for host A (again)"
write_config "$KA2"
kill -HUP "$BG_PID"
wait_for_line 30 "$T_WORK/target.log" 'reload: [0-9]+ changes? applied' "$BG_PID" || fail "no reload"
wait_for 40 nvme_no_ns $NQN || fail "A kept its controller after its key changed"
nvme disconnect-all >/dev/null 2>&1
refused "A's old key after the reload" $HA 4420 --dhchap-secret="$KA"
connect $HA 4420 --dhchap-secret="$KA2" >/dev/null || fail "host A with its new key"
nvme_wait_ns $NQN 1 >/dev/null || fail "no namespace for host A (new key)"
nvme disconnect-all >/dev/null

bg_stop target || fail "the target did not stop cleanly"
for k in "$KA" "$KA2" "$KB" "$KC" "$KWRONG"; do
	b=${k#DHHC-1:0?:}
	grep -qF "${b:0:16}" "$T_WORK/target.log" && fail "a secret appears in the target log"
done
log "PASS"
