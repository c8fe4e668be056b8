#!/bin/bash
# The demo proper (see scripts/demo.sh): runs where RDMA is, as root.
#
#   demo-inside.sh TARGET_ADDR [INITIATOR_ADDR]
#
# Needs $RBLK_BUILD (the build tree). Leaves nothing behind: the backing file lives in
# a temporary directory and the target is stopped at the end.
set -euo pipefail
taddr=${1:?usage: demo-inside.sh TARGET_ADDR [INITIATOR_ADDR]}
iaddr=${2:-}
build=${RBLK_BUILD:?set RBLK_BUILD to the build tree}
tgt=$build/daemon/rblk-target
rblk=$build/cli/rblk
nqn=nqn.2024-01.io.rblk:demo
work=$(mktemp -d)
# conn: where the target is; src: its subsystem ("discover" asks the discovery controller)
conn=(-t rdma -a "$taddr" -s 4420)
[ -n "$iaddr" ] && conn+=(-w "$iaddr")
src=("${conn[@]}" -n "$nqn")
tpid=

say() { printf '\n--- %s\n' "$*"; }
cleanup() {
	[ -n "$(ls /dev/nvme*n* 2>/dev/null)" ] && nvme disconnect -n "$nqn" >/dev/null 2>&1
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

say "rblk doctor (the RDMA devices this demo uses)"
"$rblk" doctor || true

say "rblk-target: exporting a 256 MiB file as $nqn on $taddr:4420"
truncate -s 256M "$work/disk.img"
"$tgt" --listen "$taddr:4420" --subsystem "$nqn" --ns "$work/disk.img" --allow-any-host \
	>"$work/target.log" 2>&1 &
tpid=$!
for _ in $(seq 100); do
	grep -q "listening" "$work/target.log" 2>/dev/null && break
	kill -0 "$tpid" 2>/dev/null || { cat "$work/target.log"; exit 1; }
	sleep 0.2
done
cat "$work/target.log"

say "rblk discover"
"$rblk" discover "${conn[@]}"

say "rblk list"
"$rblk" list "${src[@]}"

say "rblk write: 16 MiB of random data at offset 1 MiB, read back and compared"
head -c 16M /dev/urandom >"$work/data"
"$rblk" write "${src[@]}" --offset=1M -d "$work/data" --no-progress
"$rblk" read "${src[@]}" --offset=1M --length=16M -d "$work/back" --no-progress
cmp "$work/data" "$work/back" && echo "rblk read: the 16 MiB came back byte-identical"

say "the Linux kernel host reads the same bytes (nvme connect -t rdma)"
modprobe nvme_rdma
before=$(ls /dev/nvme*n* 2>/dev/null || true)
nvme connect -t rdma -a "$taddr" -s 4420 -n "$nqn" ${iaddr:+-w "$iaddr"}
dev=
for _ in $(seq 50); do
	dev=$(comm -13 <(printf '%s\n' $before | sort) <(ls /dev/nvme*n* 2>/dev/null | sort) | head -1)
	[ -n "$dev" ] && break
	sleep 0.2
done
[ -n "$dev" ] || { echo "no namespace appeared"; exit 1; }
nvme list
dd if="$dev" of="$work/kernel" bs=1M skip=1 count=16 iflag=direct status=none
cmp "$work/data" "$work/kernel" && echo "kernel host ($dev): the same 16 MiB, byte-identical"
nvme disconnect -n "$nqn"

say "rblk bench: 4 KiB random reads, QD 32, with the RDMA port counter check"
"$rblk" bench "${src[@]}" --rw=randread --bs=4k --qd=32 --time=5

say "stopping the target (SIGTERM)"
kill "$tpid"; wait "$tpid"; tpid=
tail -n 3 "$work/target.log"
echo
echo "demo: OK"
