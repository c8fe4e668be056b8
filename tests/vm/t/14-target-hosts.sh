#!/bin/bash
# 14-target-hosts: several controllers at once on one rblk-target: two host NQNs connect
# to the same subsystem (two controllers, different CNTLIDs) and a third connection goes
# to a second subsystem over the same rxe device (host 10.99.0.1 -> 10.99.0.1); I/O on all
# three at the same time, verified; a host that is not allowed is refused with the right
# error; the kernel host's keep-alive keeps the controllers alive through an idle spell;
# nvme disconnect-all, and the target stops cleanly.
# vm-timeout: 900
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target)
NQN1=nqn.2024-01.io.rblk:one
NQN2=nqn.2024-01.io.rblk:two
H1=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000a1
H2=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000a2
H3=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000a3
need_cmd nvme nvme-cli
need_cmd fio fio
# Each host NQN with its own host ID (the UUID in it): since 6.x the kernel host refuses
# a connect whose host ID it already knows under another host NQN ("found same hostid
# but different hostnqn"), and nvme-cli otherwise sends /etc/nvme/hostid for all.
hostid() { echo "${1##*uuid:}"; }
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
truncate -s 64M "$T_WORK/one.img" "$T_WORK/two.img"

fail() { bg_log target; dmesg | grep -vE 'QID [0-9]+ timeout|requeuing' | tail -30; die "$*"; }

bg_start target "$TGT" --listen $VM_ADDR0 --listen $VM_ADDR0:4421 --listen $VM_ADDR0:4422 \
	--subsystem $NQN1 --ns "$T_WORK/one.img" --allow-host $H1 --allow-host $H2 \
	--subsystem $NQN2 --ns "$T_WORK/two.img" --allow-any-host --log-level info
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || fail "the target did not start"

devs=()
# nvme-cli 2.3 says "already connected" to a second host NQN on the same address and
# port even with -D (it matches controllers without the host NQN): the second host
# comes in through the target's second port, the refused one below through a third.
port=4420
for h in $H1 $H2; do
	nvme connect -D -t rdma -a $VM_ADDR0 -s $port -n $NQN1 -w $VM_ADDR1 -q $h -I $(hostid $h) >/dev/null ||
		fail "connect $h"
	port=4421
done
nvme connect -t rdma -a $VM_ADDR0 -s 4420 -n $NQN2 -q $H3 -I $(hostid $H3) >/dev/null || fail "connect $NQN2"
wait_for 20 sh -c "[ \$(ls /sys/class/nvme/ | wc -l) -ge 3 ]" || fail "three controllers expected"
cntlids=$(for c in /sys/class/nvme/nvme*; do cat "$c/cntlid"; done | sort -u | wc -l)
nvme list
[ "$cntlids" -ge 2 ] || fail "controllers share a cntlid"
grep -c 'accepted on poll group' "$T_WORK/target.log"

# Multipath is on in Debian's kernel: both controllers of $NQN1 are paths of one disk.
d1=$(nvme_dev_for_nqn $NQN1 | head -1)
d2=$(nvme_dev_for_nqn $NQN2 | head -1)
[ -b "$d1" ] && [ -b "$d2" ] || fail "namespaces missing ($d1, $d2)"
fio --name=a --filename="$d1" --ioengine=libaio --direct=1 --rw=randwrite --bs=16k \
	--iodepth=16 --size=16M --verify=crc32c --verify_fatal=1 --output="$T_WORK/a.txt" &
pa=$!
fio --name=b --filename="$d2" --ioengine=libaio --direct=1 --rw=randwrite --bs=64k \
	--iodepth=8 --size=16M --verify=crc32c --verify_fatal=1 --output="$T_WORK/b.txt" &
pb=$!
wait $pa || { cat "$T_WORK/a.txt"; fail "fio on $d1"; }
wait $pb || { cat "$T_WORK/b.txt"; fail "fio on $d2"; }
grep -hE '^ +(write|read):' "$T_WORK/a.txt" "$T_WORK/b.txt"

# A host that is not on the allow list of $NQN1.
if nvme connect -D -t rdma -a $VM_ADDR0 -s 4422 -n $NQN1 -q $H3 -I $(hostid $H3) > deny.txt 2>&1; then
	fail "a host not allowed could connect"
fi
cat deny.txt
grep -q 'host not allowed' "$T_WORK/target.log" || fail "no 'host not allowed' in the log"

# Keep-alive (5 s KATO) carries the controllers through an idle spell. A duration, not
# a wait: three KATO periods must really pass with no I/O for this to prove anything.
sleep 15
[ "$(ls /sys/class/nvme/ | wc -l)" -ge 3 ] || fail "a controller went away while idle"
grep -q 'keep-alive timeout' "$T_WORK/target.log" && fail "a keep-alive timeout fired"

nvme disconnect-all >/dev/null || fail "disconnect-all"
wait_for 30 sh -c '! ls /sys/class/nvme/ | grep -q nvme' || fail "controllers remain"
bg_stop target || fail "the target did not stop cleanly"
grep -E ': (err|warn): ' "$T_WORK/target.log" && fail "errors or warnings in the target log"
log "PASS"
