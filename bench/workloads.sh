# bench/workloads.sh: the benchmarks' workloads in one table, as fio arguments (the
# kernel host, block devices, the fio plugin, fio's rbd engine) and as `rblk bench`
# arguments, so that every side of every benchmark runs the same I/O under the same
# name. Sourced (on the host to check names, in the VM to run them), never run.
#
#   fio_args WL    the fio options of workload WL; status 1 for an unknown name
#   rblk_args WL   the same for `rblk bench` (the initiator benchmarks' workloads)
#   bench_check_workloads LIST   die() unless every name in the comma list is known
#   kernel_dev NQN the kernel host's block device for NQN's namespace, once it
#                  appears (up to 20 s after nvme connect); status 1 if it does not
#   kernel_io_queues NQN  the I/O queues of the kernel host's controller for NQN (its
#                  sysfs queue_count, less the admin queue): one fio job on the kernel
#                  host's block device is spread over them, so the benchmarks give our
#                  initiators' one job as many queue pairs
fio_args() {
	case $1 in
	randread-4k-qd1) echo "--rw=randread --bs=4k --iodepth=1 --norandommap=1" ;;
	randread-4k-qd32) echo "--rw=randread --bs=4k --iodepth=32 --norandommap=1" ;;
	randwrite-4k-qd32) echo "--rw=randwrite --bs=4k --iodepth=32 --norandommap=1" ;;
	read-128k-qd16|seqread-128k-qd16) echo "--rw=read --bs=128k --iodepth=16" ;;
	write-128k-qd16) echo "--rw=write --bs=128k --iodepth=16" ;;
	read-1m-qd4) echo "--rw=read --bs=1m --iodepth=4" ;;
	write-1m-qd4) echo "--rw=write --bs=1m --iodepth=4" ;;
	*) return 1 ;;
	esac
}
rblk_args() {
	case $1 in
	randread-4k-qd32) echo "--rw randread --bs 4k --qd 32" ;;
	randread-4k-qd1) echo "--rw randread --bs 4k --qd 1" ;;
	read-128k-qd16) echo "--rw read --bs 128k --qd 16" ;;
	write-128k-qd16) echo "--rw write --bs 128k --qd 16 --force" ;;
	*) return 1 ;;
	esac
}
bench_check_workloads() {
	local w
	for w in ${1//,/ }; do
		fio_args "$w" > /dev/null || die "unknown workload $w"
	done
}
kernel_dev() {
	local s d
	for _ in $(seq 100); do
		for s in /sys/class/nvme-subsystem/*; do
			[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$1" ] || continue
			for d in "$s"/nvme*n*; do
				[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
			done
		done
		sleep 0.2
	done
	return 1
}
kernel_io_queues() {
	local s c n
	for s in /sys/class/nvme-subsystem/*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		for c in "$s"/nvme*; do
			[[ ${c##*/} =~ ^nvme[0-9]+$ ]] && read -r n < "$c/queue_count" 2>/dev/null || continue
			[ "$n" -gt 1 ] && { echo $((n - 1)); return 0; }
		done
	done
	return 1
}
