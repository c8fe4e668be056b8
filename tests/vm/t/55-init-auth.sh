#!/bin/bash
# 55-init-auth: DH-HMAC-CHAP from the rblk initiator (the CLI and the fio plugin).
# Against the Linux kernel target (6.12 nvmet with nvmet-auth) configured through
# configfs: host A with a key (SHA-256, no DH), host B bidirectional (SHA-512,
# ffdhe3072); rblk write/read round trips and fio verify through the plugin for each;
# a wrong key, no key, and a wrong controller key are refused with a clear message.
# Against rblk-target (any kernel): the same, both modes. Connect times with and
# without authentication and per DH group are printed (figures, never asserted).
# vm-timeout: 900
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
NQN_K=nqn.2024-01.io.rblk:auth-kernel
NQN_R=nqn.2024-01.io.rblk:auth-rblk
HA=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000c1
HB=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000c2
fail() { bg_log target; dmesg | tail -20; die "$*"; }
rblk() { timeout 120 "$RBLK" "$@"; }
key() { "$RBLK" gen-dhchap-key "$@" || die "rblk gen-dhchap-key $*"; }

KA=$(key -n $HA -m 1)
KB=$(key -n $HB -m 3 -l 64)
KC=$(key -n $NQN_K -m 2 -l 48)
KCR=$(key -n $NQN_R -m 1)
KWRONG=$(key -n $HA -m 1)
head -c $((1 << 20)) /dev/urandom > in.bin

# roundtrip LABEL PORT NQN HOST [auth args...]: write 1 MiB with --verify, read it back
roundtrip() {
	local label=$1 port=$2 nqn=$3 h=$4
	shift 4
	local C="-t rdma -a $VM_ADDR0 -s $port -n $nqn -w $VM_ADDR1 -q $h -N 1"
	rblk write $C "$@" -d in.bin --verify --qd 8 || fail "$label: write"
	rblk read $C "$@" --length 1M -d out.bin || fail "$label: read"
	cmp -s in.bin out.bin || fail "$label: data differs"
	log "$label: 1 MiB written, verified and read back"
}
# refused LABEL REGEX PORT NQN HOST [auth args...]: must fail, saying REGEX
refused() {
	local label=$1 re=$2 port=$3 nqn=$4 h=$5 rc
	shift 5
	rblk read -t rdma -a $VM_ADDR0 -s $port -n $nqn -w $VM_ADDR1 -q $h -N 1 "$@" \
		--length 4k --quiet > /dev/null 2> err.txt
	rc=$?
	cat err.txt
	[ $rc -ne 0 ] || fail "$label: not refused"
	[ $rc -ne 124 ] || fail "$label: hung"
	grep -qiE -- "$re" err.txt || fail "$label: no '$re' in the message"
	log "$label: refused (exit $rc)"
}
# connect_ms PORT NQN HOST [auth args...]: ms for one connect + a 4 KiB read + disconnect
connect_ms() {
	local port=$1 nqn=$2 h=$3 t0
	shift 3
	t0=$(date +%s%N)
	rblk read -t rdma -a $VM_ADDR0 -s $port -n $nqn -w $VM_ADDR1 -q $h -N 1 "$@" \
		--length 4k --quiet > /dev/null || fail "connect timing ($*)"
	echo $((($(date +%s%N) - t0) / 1000000))
}

# ---- the kernel target (6.12 has nvmet-auth)
# nvmet authenticates when it was built with it: its host entries then have dhchap_key.
nvmet_has_auth() {
	local probe=$NVMET_CFS/hosts/nqn.2024-01.io.rblk:probe ok=1
	modprobe nvmet 2>/dev/null || return 1
	mkdir "$probe" 2>/dev/null || return 1
	[ -e "$probe/dhchap_key" ] && ok=0
	rmdir "$probe"
	return $ok
}
if nvmet_has_auth; then
	blk=$(null_blk_create 1 memory_backed=1)
	nvmet_setup_rdma_port 1 $VM_ADDR0 4421
	nvmet_add_subsystem $NQN_K "$blk"
	s=$NVMET_CFS/subsystems/$NQN_K
	echo 0 > "$s/attr_allow_any_host" || fail "allow_any_host 0"
	for h in $HA $HB; do
		mkdir "$NVMET_CFS/hosts/$h" || fail "mkdir host $h"
		ln -s "$NVMET_CFS/hosts/$h" "$s/allowed_hosts/$h" || fail "allowed host $h"
	done
	echo "$KA" > "$NVMET_CFS/hosts/$HA/dhchap_key" || fail "dhchap_key A"
	echo "hmac(sha256)" > "$NVMET_CFS/hosts/$HA/dhchap_hash"
	echo "$KB" > "$NVMET_CFS/hosts/$HB/dhchap_key" || fail "dhchap_key B"
	echo "$KC" > "$NVMET_CFS/hosts/$HB/dhchap_ctrl_key" || fail "dhchap_ctrl_key B"
	echo "hmac(sha512)" > "$NVMET_CFS/hosts/$HB/dhchap_hash" || fail "dhchap_hash B"
	echo ffdhe3072 > "$NVMET_CFS/hosts/$HB/dhchap_dhgroup" || fail "dhchap_dhgroup B"
	nvmet_expose $NQN_K 1

	roundtrip "kernel target, host A" 4421 $NQN_K $HA --dhchap-secret "$KA"
	roundtrip "kernel target, host B bidirectional" 4421 $NQN_K $HB \
		--dhchap-secret "$KB" --dhchap-ctrl-secret "$KC"
	refused "kernel target, wrong key" 'auth' 4421 $NQN_K $HA --dhchap-secret "$KWRONG"
	refused "kernel target, no key" 'dhchap-secret|authenticat' 4421 $NQN_K $HA
	refused "kernel target, wrong controller key" 'controller.*auth|auth.*controller' \
		4421 $NQN_K $HB --dhchap-secret "$KB" --dhchap-ctrl-secret "$KA"
	if [ -f "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" ]; then
		. "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1
		F="trtype=RDMA adrfam=IPv4 traddr=$VM_ADDR0 trsvcid=4421 subnqn=${NQN_K//:/\\:} hostaddr=$VM_ADDR1 ns=1"
		rfio_verify kernel-b --filename="$F" --hostnqn="$HB" --dhchap_secret="$KB" \
			--dhchap_ctrl_secret="$KC" --rw=randwrite --bs=4k --iodepth=16 --size=8m
		rfio_fail kernel-nokey 'auth' --filename="$F" --hostnqn="$HA" --rw=read --bs=4k --size=4k
	fi
else
	log "kernel $(uname -r): nvmet has no DH-HMAC-CHAP; the kernel target part is left out"
fi

# ---- rblk-target
truncate -s 64M "$T_WORK/r.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN_R --ns "$T_WORK/r.img" \
	--allow-host $HA --dhchap-key "$KA" \
	--allow-host $HB --dhchap-key "$KB" --dhchap-ctrl-key "$KCR" --dhchap-hash sha384 \
	--dhchap-dhgroup ffdhe2048 --log-level info
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "rblk-target did not start"
roundtrip "rblk-target, host A" 4420 $NQN_R $HA --dhchap-secret "$KA"
roundtrip "rblk-target, host B bidirectional ffdhe2048" 4420 $NQN_R $HB \
	--dhchap-secret "$KB" --dhchap-ctrl-secret "$KCR"
refused "rblk-target, wrong key" 'auth' 4420 $NQN_R $HA --dhchap-secret "$KWRONG"
refused "rblk-target, no key" 'dhchap-secret|authenticat' 4420 $NQN_R $HA
refused "rblk-target, wrong controller key" 'controller.*auth|auth.*controller' \
	4420 $NQN_R $HB --dhchap-secret "$KB" --dhchap-ctrl-secret "$KA"
bg_stop target || fail "rblk-target did not stop cleanly"

# ---- connect times (figures): no authentication, then each DH group
HN=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000c9
args=(--listen $VM_ADDR0 --subsystem $NQN_R --ns "$T_WORK/r.img" --allow-host $HN)
i=0
for g in null ffdhe2048 ffdhe3072 ffdhe4096 ffdhe6144 ffdhe8192; do
	i=$((i + 1))
	h=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000d$i
	eval "K_$i=\$(key -n $h -m 1)"
	eval "args+=(--allow-host $h --dhchap-key \"\$K_$i\" --dhchap-dhgroup $g)"
done
bg_start target "$TGT" "${args[@]}"
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "rblk-target (timing) did not start"
figures="no-auth"
t=(); for r in 1 2 3; do t+=($(connect_ms 4420 $NQN_R $HN)); done
figures="$figures $(printf '%s\n' "${t[@]}" | sort -n | sed -n 2p)"
i=0
for g in null ffdhe2048 ffdhe3072 ffdhe4096 ffdhe6144 ffdhe8192; do
	i=$((i + 1))
	h=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000d$i
	eval "k=\$K_$i"
	t=(); for r in 1 2 3; do t+=($(connect_ms 4420 $NQN_R $h --dhchap-secret "$k")); done
	figures="$figures | $g $(printf '%s\n' "${t[@]}" | sort -n | sed -n 2p)"
done
log "connect + 4 KiB read + disconnect, median of 3, ms (TCG: compare, do not quote): $figures"
bg_stop target || fail "rblk-target (timing) did not stop cleanly"
log "PASS"
