# bench/workloads.sh: the benchmarks' workloads in one table, as fio arguments (the
# kernel host, block devices, the fio plugin, fio's rbd engine) and as `rblk bench`
# arguments, so that every side of every benchmark runs the same I/O under the same
# name. Sourced (on the host to check names, in the VM to run them), never run.
#
#   fio_args WL    the fio options of workload WL; status 1 for an unknown name
#   rblk_args WL   the same for `rblk bench` (the initiator benchmarks' workloads)
#   bench_check_workloads LIST   die() unless every name in the comma list is known
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
