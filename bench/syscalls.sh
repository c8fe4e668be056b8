# bench/syscalls.sh: system calls and CPU of one process over a window, for the VM
# benchmarks; sourced inside the VM, never run. On Soft-RoCE every doorbell
# (ibv_post_send/recv, CQ re-arm) is a system call, so syscalls per I/O decide what the
# VM can do; these figures come from a run separate from the timed one, because
# counting costs time (perf a little, strace a lot).
#
#   sc_probe                pick the counter: perf stat on raw_syscalls:sys_enter when it
#                           works (tracefs mounted, a perf that matches the kernel), else
#                           strace -c -f. Sets SC_TOOL (perf|strace|none); call once.
#   sc_start PID FILE       start counting PID's system calls (every thread it has now)
#                           into FILE; remembers PID's CPU ticks. Several may run at once.
#                           The counter attaches asynchronously (perf: milliseconds), so
#                           count windows of seconds, not less.
#   sc_stop PID FILE        stop that counter and write FILE.json: {"tool", "syscalls",
#                           "cpu_ticks", "run_ns", "seconds"} (cpu_ticks: utime+stime,
#                           /proc/PID/stat; run_ns: the scheduler's run time, all threads)
#   sc_breakdown PID S FILE strace -c -f -p PID for S seconds into FILE (the top calls;
#                           strace slows the process, so only the shares mean anything)
#   sc_hold / sc_release    around a phase of counting runs (after the timed runs: the
#                           hold makes every system call of the VM take the traced path).
#                           Under TCG, switching the syscall tracepoint or perf's
#                           context-switch hooks on or off patches kernel code the
#                           other vCPU may be running, and now and then that oopses
#                           ("int3" in __schedule or syscall_trace_enter: two 6.12
#                           boots of four). The hold keeps one per-task counter open
#                           on a sleeping process, so that the counters of the phase
#                           only move reference counts: the code is patched twice per
#                           phase instead of twice per counter.
#
# Needs log() from the caller. Files: FILE.raw (the tool's output), FILE.json.

declare -A SC_PIDS SC_T0 SC_C0 SC_R0

sc_probe() {
	grep -q ' /sys/kernel/tracing ' /proc/mounts ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	if perf stat -e raw_syscalls:sys_enter -x, -o /dev/null -- true 2>/dev/null; then
		SC_TOOL=perf
	elif command -v strace >/dev/null; then
		SC_TOOL=strace
	else
		SC_TOOL=none
	fi
	log "syscall counter: $SC_TOOL"
}

sc_cpu_ticks() { local s; read -r s < /proc/$1/stat; s=${s##*) }; set -- $s; echo $(( ${12} + ${13} )); }
# The scheduler's own run time of every thread (ns, /proc/PID/task/*/schedstat): exact,
# where utime+stime are sampled at the timer tick and overcount a process that wakes
# on timer expiries (which happen on ticks), i.e. an idle poller.
sc_run_ns() { cat /proc/$1/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.0f", n }'; }
sc_now() { cut -d' ' -f1 /proc/uptime; }

sc_start() {	# PID FILE
	local pid=$1 f=$2
	SC_C0[$f]=$(sc_cpu_ticks $pid) SC_T0[$f]=$(sc_now) SC_R0[$f]=$(sc_run_ns $pid)
	case $SC_TOOL in
	perf) perf stat -e raw_syscalls:sys_enter -x, -o $f.raw -p $pid & ;;
	strace) strace -c -f -o $f.raw -p $pid 2>/dev/null & ;;
	*) : > $f.raw; return 0 ;;
	esac
	SC_PIDS[$f]=$!
}

sc_stop() {	# PID FILE
	local pid=$1 f=$2 c1 t1 r1 n=null
	c1=$(sc_cpu_ticks $pid) t1=$(sc_now) r1=$(sc_run_ns $pid)
	if [ -n "${SC_PIDS[$f]:-}" ]; then
		kill -INT ${SC_PIDS[$f]}; wait ${SC_PIDS[$f]} 2>/dev/null
		unset "SC_PIDS[$f]"
	fi
	case $SC_TOOL in
	perf) n=$(awk -F, '/raw_syscalls:sys_enter/ { print $1 }' $f.raw) ;;
	strace) n=$(awk '$NF == "total" { print $4 }' $f.raw) ;;
	esac
	[[ $n =~ ^[0-9]+$ ]] || n=null
	echo "{\"tool\": \"$SC_TOOL\", \"syscalls\": $n, \"cpu_ticks\": $((c1 - ${SC_C0[$f]})), \"run_ns\": $((r1 - ${SC_R0[$f]})), \"seconds\": $(awk "BEGIN { print $t1 - ${SC_T0[$f]} }")}" > $f.json
}

sc_hold() {
	[ "$SC_TOOL" = perf ] || return 0
	sleep 1000000 &
	SC_HOLD_SLEEP=$!
	perf stat -e raw_syscalls:sys_enter -x, -o /dev/null -p $SC_HOLD_SLEEP &
	SC_HOLD_PERF=$!
	sleep 1	# perf attaches asynchronously
}

sc_release() {
	[ -n "${SC_HOLD_PERF:-}" ] || return 0
	kill -INT $SC_HOLD_PERF; wait $SC_HOLD_PERF 2>/dev/null || true
	kill $SC_HOLD_SLEEP; wait $SC_HOLD_SLEEP 2>/dev/null || true
	SC_HOLD_PERF= SC_HOLD_SLEEP=
}

sc_breakdown() {	# PID SECONDS FILE
	command -v strace >/dev/null || { : > $3; return 0; }
	timeout -s INT $2 strace -c -f -o $3 -p $1 2>/dev/null || true
}
