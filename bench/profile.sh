# bench/profile.sh: where the VM's CPU goes during one run, for the VM benchmarks;
# sourced inside the VM, never run. System calls per I/O (bench/syscalls.sh) say how
# often a side enters the kernel; a profile says what the CPU did, for the whole VM,
# because the kernel target's work runs in kworkers and softirq that no process owns.
# Two sides profiled the same way can be read against each other symbol by symbol.
#
#   prof_probe                   can perf sample here (cpu-clock: TCG has no PMU)?
#                                Sets PROF_OK (1|0); call once.
#   prof_record SECONDS FILE     sample every CPU of the VM (cpu-clock, 499 Hz, call
#                                graphs) for SECONDS into FILE.data, then write
#                                FILE.comm (share of samples per command: which threads,
#                                kworkers and softirq time took the CPU) and FILE.sym
#                                (the top symbols, self time, with command and object);
#                                FILE.data stays for other views.
#
# Needs log() from the caller.

prof_probe() {
	PROF_OK=0
	perf record -a -e cpu-clock -F 499 -o /tmp/prof-probe.data -- sleep 0.2 >/dev/null 2>&1 &&
		PROF_OK=1
	rm -f /tmp/prof-probe.data
	log "profiler: $([ $PROF_OK = 1 ] && echo 'perf record (cpu-clock)' || echo 'none')"
}

prof_record() {	# SECONDS FILE
	local s=$1 f=$2
	[ "$PROF_OK" = 1 ] || return 0
	perf record -a -g -e cpu-clock -F 499 -o $f.data -- sleep $s >/dev/null 2>&1 || return 0
	# --percent-limit keeps the tail out; comm and dso first, so that the same symbol
	# in the target's thread and in a kworker stay apart.
	perf report -i $f.data --stdio --no-children --sort comm --percent-limit 1 \
		2>/dev/null | grep -v '^#' | grep -v '^$' > $f.comm
	perf report -i $f.data --stdio --no-children -g none --sort comm,dso,sym \
		--percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' > $f.sym
	# The data stays (perf report -i FILE.data --sort dso,sym --comm rblk-pg0 ...).
}
