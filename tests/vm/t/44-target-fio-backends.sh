#!/bin/bash
# 44-target-fio-backends: what 11-target-connect-io does not cover, with both block
# backends (io_uring and libaio): a full-device sequential write then a separate
# read-verify pass over a whole 64 MiB namespace (every LBA, last block included,
# 128 KiB = MDTS-sized I/O and 1 MiB I/O the host splits), and 4 jobs pinned to both
# CPUs so that the host's several I/O queues all carry verified I/O (the target's
# per-queue statistics must show completions on at least two I/O queues).
# vm-timeout: 900
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:fio
need_cmd nvme nvme-cli
need_cmd fio fio
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null

fail() { bg_log target; dmesg | tail -30; die "$*"; }

# fio_ok NAME ARGS...: one fio run on $DEV; fails the test on any error
fio_ok() {
	local name=$1; shift
	log "fio $name: $*"
	fio --name="$name" --filename="$DEV" --ioengine=libaio --direct=1 --group_reporting \
		--output="$T_WORK/fio-$name.txt" "$@" ||
		{ cat "$T_WORK/fio-$name.txt"; fail "fio $name failed"; }
	grep -qE 'err= *0' "$T_WORK/fio-$name.txt" ||
		{ cat "$T_WORK/fio-$name.txt"; fail "fio $name reported errors"; }
	grep -E '^ +(write|read):' "$T_WORK/fio-$name.txt"
}

# the last SIGUSR1 statistics dump of the target, as JSON
stats() {
	local before
	before=$(nr_json_dumps "$T_WORK/target.log")
	kill -USR1 "$TPID"
	# the new dump is complete when its closing brace is there (else awk takes the last)
	wait_for 30 json_dumps_above "$T_WORK/target.log" "$before"
	awk '/^\{$/ { buf = ""; on = 1 } on { buf = buf $0 "\n" } /^\}$/ { on = 0; last = buf }
		END { printf "%s", last }' "$T_WORK/target.log"
}

run_backend() {
	local b=$1 size nq busy
	log "=== backend $b ==="
	truncate -s 64M "$T_WORK/disk-$b.img"
	bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk-$b.img" \
		--allow-any-host --backend "$b" --log-level info
	TPID=$BG_PID
	wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
	grep -qE "backend: $b" "$T_WORK/target.log" || fail "the target does not say it uses backend $b"
	DEV=$(nvme_connect_rdma $NQN | tail -1)
	[ -b "$DEV" ] || fail "connect failed"
	size=$(blockdev --getsize64 "$DEV")
	[ "$size" = 67108864 ] || fail "$DEV is $size bytes, not 64 MiB"

	# every LBA: sequential write of the whole device, then a read-only verify pass
	fio_ok seqw-$b --rw=write --bs=128k --iodepth=16 --size=64M \
		--verify=crc32c --do_verify=0 --verify_state_save=0
	fio_ok seqv-$b --rw=write --bs=128k --iodepth=16 --size=64M \
		--verify=crc32c --verify_only=1 --verify_state_save=0
	grep -qE 'READ: bw=.*io=(64\.0MiB|65536KiB)' "$T_WORK/fio-seqv-$b.txt" ||
		{ cat "$T_WORK/fio-seqv-$b.txt"; fail "the verify pass did not read all 64 MiB"; }
	# the same with 1 MiB I/O (the host splits them at MDTS)
	fio_ok seq1m-$b --rw=write --bs=1m --iodepth=4 --size=64M \
		--verify=crc32c --do_verify=1 --verify_pattern=0x5aa5 --verify_state_save=0
	cmp -s <(head -c 4096 "$T_WORK/disk-$b.img") <(dd if="$DEV" bs=4096 count=1 iflag=direct status=none) ||
		fail "the first block read through $DEV differs from the backing file"
	cmp -s <(tail -c 4096 "$T_WORK/disk-$b.img") <(dd if="$DEV" bs=4096 skip=16383 count=1 iflag=direct status=none) ||
		fail "the last block read through $DEV differs from the backing file"

	# four jobs on both CPUs: the host's I/O queues all carry verified I/O
	fio_ok spread-$b --rw=randwrite --bssplit=4k/40:32k/30:128k/20:1m/10 --iodepth=8 \
		--numjobs=4 --size=16M --offset_increment=16M --cpus_allowed=0-1 \
		--cpus_allowed_policy=split --verify=crc32c --do_verify=1 --verify_fatal=1
	stats > "$T_WORK/stats-$b.json"
	cp "$T_WORK/stats-$b.json" "$T_OUT/" 2>/dev/null
	nq=$(jq "[.controllers[] | select(.subsystem == \"$NQN\") | .queues[] | select(.qid > 0)] | length" \
		"$T_WORK/stats-$b.json") || { cat "$T_WORK/stats-$b.json"; fail "no statistics JSON"; }
	busy=$(jq "[.controllers[] | select(.subsystem == \"$NQN\") | .queues[] | select(.qid > 0 and .completed > 0)] | length" \
		"$T_WORK/stats-$b.json")
	log "I/O queues: $nq, with completions: $busy"
	[ "$nq" -ge 2 ] || fail "the host created only $nq I/O queue(s)"
	[ "$busy" -ge 2 ] || fail "only $busy I/O queue(s) carried I/O"
	[ "$(jq "[.controllers[] | .queues[] | .errors] | add" "$T_WORK/stats-$b.json")" = 0 ] ||
		fail "the target counted queue errors"

	timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"
	bg_stop target; rc=$?
	cp "$T_WORK/target.log" "$T_OUT/target-$b.log" 2>/dev/null
	[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
	grep -E ': (err|warn): ' "$T_WORK/target.log" && fail "errors or warnings in the target log"
	mv "$T_WORK/target.log" "$T_WORK/target-$b.log"
	rm -f "$T_WORK/disk-$b.img"
}

run_backend uring
run_backend aio
log "PASS"
