#!/bin/bash
# 32-fio-plugin-errors: fio through the rblk plugin ends with a non-zero status and a
# sentence that says why — never a crash or a hang — when the filename is no transport
# ID, the NQN's ':' is not escaped, nothing listens on the port, the address does not
# answer (bounded by connect_timeout), the subsystem or namespace does not exist, the
# job runs past the namespace's end, a job asks for more queue pairs (qpairs=) than the
# controller has, or writes go to a write-protected namespace (also
# from processes: thread=0). And an NVMe error on the I/O path reaches fio as
# EIO with the status name (errdetails): the kernel target's namespace shrinks under a
# running job, so its reads fail (nvmet: Capacity Exceeded).
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
[ -f "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" ] ||
	skip "the fio plugin is not built in $RBLK_BUILD (configure with -DRBLK_FIO_PLUGIN=ON)"
. "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:fio-errors
truncate -s 64M "$T_WORK/disk1.img" "$T_WORK/ro.img"
bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/disk1.img" \
	--ns "$T_WORK/ro.img,ro" --allow-any-host --log-level info
FIO_FAIL_HOOK="bg_log target"
wait_for_line 60 "$T_WORK/target.log" 'ready' "$BG_PID" || { bg_log target; die "rblk-target did not start"; }
R=(--rw=randread --bs=4k --size=1m)

rfio_fail bad-filename "'/dev/nvme0n1' is not KEY=VALUE" --filename=/dev/nvme0n1 "${R[@]}"
rfio_fail unescaped-nqn "'fio-errors' is not KEY=VALUE.*\\\\:" \
	--filename="traddr=$VM_ADDR0 subnqn=$NQN ns=1" "${R[@]}"
rfio_fail no-listener "cannot connect to .*trsvcid=4499.*(refused|reset)" \
	--filename="$(trid $VM_ADDR0 $NQN 1 | sed 's/trsvcid=4420/trsvcid=4499/')" "${R[@]}"
# 10.99.0.77 is on veth1's subnet but nobody has it: ARP never answers
t0=$SECONDS
rfio_fail unreachable "cannot connect to traddr=10.99.0.77" \
	--filename="$(trid 10.99.0.77 $NQN 1)" --connect_timeout=3000 "${R[@]}"
[ $((SECONDS - t0)) -le 60 ] || die "an unreachable target took $((SECONDS - t0)) s to fail"
rfio_fail unknown-subsystem "cannot connect to .*subnqn=nqn.2024-01.io.rblk:nope.*refused" \
	--filename="$(trid $VM_ADDR0 nqn.2024-01.io.rblk:nope 1)" "${R[@]}"
rfio_fail unknown-ns "namespace 9 of $NQN: no such active namespace" \
	--filename="$(trid $VM_ADDR0 $NQN 9)" "${R[@]}"
rfio_fail past-the-end "is beyond the namespace's 67108864 bytes" \
	--filename="$(trid $VM_ADDR0 $NQN 1)" --rw=read --bs=4k --size=128m
rfio_fail read-only-ns "the namespace is write-protected" \
	--filename="$(trid $VM_ADDR0 $NQN 2)" --rw=write --bs=4k --size=1m
# more queue pairs per job than the controller has I/O queues
rfio_fail too-many-qpairs "has 2 I/O queues; a job takes 3 of them \\(qpairs=\\)" \
	--filename="$(trid $VM_ADDR0 $NQN 1)" --nr_io_queues=2 --qpairs=3 "${R[@]}"
rfio_fail qpairs-range "qpairs: max value out of range: 17" --filename="$(trid $VM_ADDR0 $NQN 1)" --qpairs=17 "${R[@]}"
# processes: the namespace is sized by a helper child, whose failure fio reports too
rfio_fail processes "namespace 9 of $NQN: no such active namespace" --thread=0 \
	--filename="$(trid $VM_ADDR0 $NQN 9)" "${R[@]}"
kill -0 "${BG_PIDS[target]}" 2>/dev/null || { bg_log target; die "rblk-target died"; }
bg_stop target || { bg_log target; die "rblk-target did not exit cleanly"; }

# An NVMe status on the I/O path: the kernel target's file-backed namespace shrinks
# from 64 to 16 MiB while the job waits (startdelay), then it reads at 32 MiB.
KNQN=nqn.2024-01.io.rblk:fio-shrink
truncate -s 64M "$T_WORK/shrink.img"
nvmet_setup_rdma_port 1 $VM_ADDR0 4420
nvmet_add_subsystem $KNQN "$T_WORK/shrink.img"
nvmet_expose $KNQN 1
out=$T_WORK/fio-shrink.txt
# The plugin connects and sizes the namespace (Identify Namespace) in fio's setup; the
# job's reads start 5 s after fio started (startdelay). The shrink goes in between: once
# nvmet has created the plugin's controller (its log line), plus a moment for the
# Identify Namespace that follows at once.
nvmet_ctrls() { dmesg | grep -ciE "creat(ing|ed) (nvm )?controller [0-9]+ for subsystem $KNQN for" || true; }
c0=$(nvmet_ctrls)
_fio_connected() { [ "$(nvmet_ctrls)" -gt "$c0" ]; }
timeout 120 fio --name=shrink --ioengine=external:"$FIO_SO" --thread=1 \
	--filename="$(trid $VM_ADDR0 $KNQN 1)" --rw=read --bs=4k --offset=32m --size=1m \
	--startdelay=5 > "$out" 2>&1 &
fpid=$!
wait_for 30 _fio_connected || { cat "$out"; die "fio did not connect to $KNQN within 30 s"; }
sleep 1	# the Identify Namespace after the connect (not observable from here)
truncate -s 16M "$T_WORK/shrink.img"
echo 1 > $NVMET_CFS/subsystems/$KNQN/namespaces/1/revalidate_size ||
	die "revalidate_size failed (kernel without it?)"
wait $fpid
rc=$?
cat "$out"
[ $rc -ne 0 ] || die "fio read past the shrunk namespace and exited 0"
grep -qE 'io_u error.*Input/output error' "$out" || die "the error did not reach fio as EIO"
grep -qE 'rblk: NVMe status (LBA Out of Range|Capacity Exceeded)' "$out" || die "errdetails did not name the NVMe status"
log "PASS"
