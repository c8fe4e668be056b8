#!/bin/bash
# 25-cli-discover-id: `rblk discover`, `id-ctrl`, `id-ns` and `list`, normal and -o json,
# against rblk-target (10.99.0.1:4420, two namespaces) and against the kernel target
# (nvmet-rdma, 10.99.0.1:4421, null_blk), from 10.99.0.2 (rxe1 -> rxe0). Discovery must
# list what `nvme discover` lists; Identify must agree with what the kernel host reads from
# the same controller; the SPDK transport-ID form (-r) must work like the flags.
# vm-timeout: 600
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

RBLK=$(rblk_bin cli/rblk)
TGT=$(rblk_bin daemon/rblk-target)
need_cmd nvme nvme-cli
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"	# nvme discover needs nvme-fabrics
NQN_R=nqn.2024-01.io.rblk:cli-rblk
NQN_K=nqn.2024-01.io.rblk:cli-kernel
W="-w $VM_ADDR1"

fail() { bg_log target; die "$*"; }
# rblk VERB ARGS...: runs rblk under a timeout (a hang is a failure); output in out.txt
rblk() {
	log "rblk $*"
	timeout 120 "$RBLK" "$@" > out.txt 2> err.txt
	local rc=$?
	[ -s err.txt ] && sed 's/^/  stderr: /' err.txt
	return $rc
}

truncate -s 64M "$T_WORK/r1.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN_R --ns "$T_WORK/r1.img" --ns mem:32M \
	--allow-any-host
wait_for_line 60 target.log 'ready' "$BG_PID" || fail "rblk-target did not start"
blk=$(null_blk_create 1 memory_backed=1)
nvmet_setup_rdma_port 1 $VM_ADDR0 4421
nvmet_add_subsystem $NQN_K "$blk"
nvmet_expose $NQN_K 1

for port in 4421 4420; do
	[ $port = 4420 ] && nqn=$NQN_R || nqn=$NQN_K
	log "=== target on port $port ($nqn)"

	rblk discover -t rdma -a $VM_ADDR0 -s $port $W || fail "rblk discover on $port failed"
	cat out.txt
	grep -q '^=====Discovery Log Entry 0======$' out.txt || fail "no nvme-cli style entry header"
	grep -qE "^subnqn: +$nqn\$" out.txt || fail "rblk discover does not list $nqn"
	grep -qE '^trtype: +rdma$' out.txt || fail "trtype is not rdma"
	grep -qE '^rdma_cms: +rdma-cm$' out.txt || fail "no rdma_cms line"
	rblk discover -t rdma -a $VM_ADDR0 -s $port $W -o json || fail "rblk discover -o json on $port failed"
	jq -e --arg n "$nqn" '.genctr >= 0 and ([.records[].subnqn] | index($n)) != null' out.txt >/dev/null ||
		{ cat out.txt; fail "discover JSON lacks $nqn"; }
	# NVM subsystem entries: nvme-cli also asks for the discovery controller's own entry
	# (subtype "current discovery subsystem"), the library does not
	sel='[.records[] | select(.subtype == "nvme subsystem") | .subnqn + " " + .trsvcid + " " + .traddr] | sort | .[]'
	jq -r "$sel" out.txt > ours.txt
	timeout 60 nvme discover -t rdma -a $VM_ADDR0 -s $port $W -o json > nvme.json ||
		fail "nvme discover on $port failed"
	jq -r "$sel" nvme.json > theirs.txt
	diff ours.txt theirs.txt || fail "rblk discover and nvme discover disagree on port $port"
	[ -s ours.txt ] || fail "no NVM subsystem entry"
	log "discover: the same $(wc -l < ours.txt) NVM subsystem records as nvme discover"

	rblk id-ctrl -t rdma -a $VM_ADDR0 -s $port -n $nqn $W -o json || fail "rblk id-ctrl on $port failed"
	cp out.txt idctrl.json
	jq -e --arg n "$nqn" '.subnqn == $n and .nn >= 1 and .ioccsz >= 4 and .iorcsz == 1' idctrl.json >/dev/null ||
		{ cat idctrl.json; fail "id-ctrl JSON wrong"; }
	rblk id-ctrl -t rdma -a $VM_ADDR0 -s $port -n $nqn $W || fail "rblk id-ctrl (normal) failed"
	grep -qE "^subnqn +: $nqn\$" out.txt || fail "id-ctrl normal output lacks subnqn"

	# the kernel host reads the same Identify data from the same subsystem
	dev=$(nvme_connect_rdma $nqn $VM_ADDR0 $port $VM_ADDR1)
	nvme id-ctrl "$dev" -o json > kid.json || fail "nvme id-ctrl $dev failed"
	for k in sn mn fr; do
		a=$(jq -r ".$k" idctrl.json)
		b=$(jq -r ".$k" kid.json | sed 's/ *$//')
		[ "$a" = "$b" ] || fail "id-ctrl .$k: rblk says '$a', the kernel host '$b'"
	done
	for k in vid nn oncs mdts sgls; do
		a=$(jq -r ".$k" idctrl.json)
		b=$(jq -r ".$k" kid.json)
		[ "$a" = "$b" ] || fail "id-ctrl .$k: rblk says $a, the kernel host $b"
	done
	nsze_k=$(jq -r '.nsze' < <(nvme id-ns "$dev" -o json))
	nvme disconnect -n $nqn > /dev/null || fail "nvme disconnect failed"
	log "id-ctrl: sn, mn, fr, vid, nn, oncs, mdts, sgls agree with nvme id-ctrl"

	rblk id-ns -r "trtype=RDMA adrfam=IPv4 traddr=$VM_ADDR0 trsvcid=$port subnqn=$nqn hostaddr=$VM_ADDR1 ns=1" \
		-o json || fail "rblk id-ns with a transport ID failed"
	jq -e --argjson z "$nsze_k" '.nsze == $z and (.lbafs | length) >= 1' out.txt >/dev/null ||
		{ cat out.txt; fail "id-ns nsze differs from nvme id-ns ($nsze_k)"; }
	rblk id-ns -t rdma -a $VM_ADDR0 -s $port -n $nqn $W -N 1 || fail "rblk id-ns (normal) failed"
	grep -q '^NVME Identify Namespace 1:$' out.txt || fail "id-ns header"
	grep -q '(in use)' out.txt || fail "id-ns shows no LBA format in use"

	rblk list -t rdma -a $VM_ADDR0 -s $port -n $nqn $W -o json || fail "rblk list failed"
	cat out.txt
	want=1
	[ $port = 4420 ] && want=2
	jq -e --argjson w $want '(.Devices | length) == $w and .Devices[0].NameSpace == 1 and .Devices[0].PhysicalSize > 0' \
		out.txt >/dev/null || fail "list JSON: wanted $want namespaces"
	[ $port = 4420 ] && { jq -e '.Devices[0].PhysicalSize == 67108864 and .Devices[1].PhysicalSize == 33554432' \
		out.txt >/dev/null || fail "list: wrong namespace sizes"; }
	rblk list -t rdma -a $VM_ADDR0 -s $port -n $nqn $W || fail "rblk list (normal) failed"
	cat out.txt
	grep -qE '^1 +' out.txt || fail "list: no row for namespace 1"
done

bg_stop target || fail "rblk-target did not stop cleanly"
log "discover, id-ctrl, id-ns and list agree with nvme-cli on both targets"
