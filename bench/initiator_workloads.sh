# bench/initiator_workloads.sh: the initiator benchmarks' workloads, as fio arguments
# (the kernel host, the fio plugin) and as `rblk bench` arguments, so that every side
# runs the same I/O; sourced in the VM by initiator_vs_kernel.sh and initiator_ab.sh,
# never run.
#
#   fio_args WL    WL: randread-4k-qd32, randread-4k-qd1, read-128k-qd16, write-128k-qd16
#   rblk_args WL
fio_args() {
	case $1 in
	randread-4k-qd32) echo "--rw=randread --bs=4k --iodepth=32 --norandommap=1" ;;
	randread-4k-qd1) echo "--rw=randread --bs=4k --iodepth=1 --norandommap=1" ;;
	read-128k-qd16) echo "--rw=read --bs=128k --iodepth=16" ;;
	write-128k-qd16) echo "--rw=write --bs=128k --iodepth=16" ;;
	esac
}
rblk_args() {
	case $1 in
	randread-4k-qd32) echo "--rw randread --bs 4k --qd 32" ;;
	randread-4k-qd1) echo "--rw randread --bs 4k --qd 1" ;;
	read-128k-qd16) echo "--rw read --bs 128k --qd 16" ;;
	write-128k-qd16) echo "--rw write --bs 128k --qd 16 --force" ;;
	esac
}
