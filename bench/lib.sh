# bench/lib.sh: what the VM benchmark scripts share; sourced, never run.
#
# bench_opt_value OPTION ARGC: in option parsing under `set -u`, dies saying that
# OPTION needs a value unless one follows it (ARGC is $#, the option included), rather
# than bash's "unbound variable". Needs die() from the caller.
bench_opt_value() { [ "$2" -ge 2 ] || die "$1 needs a value (see --help)"; }

# bench_out NAME: check that $BUILD is somewhere the VM can see, set OUT to --out or
# $BUILD/bench-out/NAME (absolute), check that too, and that python3 is here to read
# the results. Needs die() from the caller.
bench_out() {
	case $BUILD in /tmp|/tmp/*) die "the build dir must not be under /tmp (the VM cannot see it)" ;; esac
	OUT=$(realpath -m "${OUT:-$BUILD/bench-out/$1}")
	case $OUT in /tmp|/tmp/*) die "--out must not be under /tmp (the VM writes there)" ;; esac
	command -v python3 >/dev/null || die "python3 is needed on the host to read the results"
}

# bench_host_load FILE: what else runs on this machine, before the VM starts: the host's
# busy CPU over 2 s (/proc/stat; the load average lags by minutes, so it is recorded
# but not judged), other QEMU processes (another VM shares the vCPUs), the busiest
# processes now. Writes FILE (JSON) and prints a warning when the machine is not
# quiet: the VM is TCG, so a second VM or a compile halves what it gets and the
# figures stop comparing.
bench_host_load() {
	local f=$1 load qemu top busy warn= u n s i w q sq st b0 t0 b1 t1
	read -r _ u n s i w q sq st _ < /proc/stat; b0=$((u + n + s + q + sq + st)) t0=$((u + n + s + i + w + q + sq + st))
	sleep 2
	read -r _ u n s i w q sq st _ < /proc/stat; b1=$((u + n + s + q + sq + st)) t1=$((u + n + s + i + w + q + sq + st))
	busy=$(( t1 > t0 ? 100 * (b1 - b0) / (t1 - t0) : 0 ))
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	qemu=$(pgrep -c '^qemu-system' || true)
	top=$(top -bn1 -w 200 | awk 'NR > 7 && $9 > 0 { printf "%s\"%s %s%%\"", (n++ ? ", " : ""), $12, $9 } n == 5 { exit }')
	if [ "${qemu:-0}" -gt 0 ]; then
		warn="$qemu other qemu-system process(es) running: another VM shares the CPUs"
	elif [ "$busy" -gt 25 ]; then
		warn="the host's CPUs were $busy% busy before the run (load $load): another process shares the machine"
	fi
	printf '{"busy_pct": %s, "loadavg": "%s", "cpus": %s, "other_qemu": %s, "top": [%s], "warning": %s}\n' \
		"$busy" "$load" "$(nproc)" "${qemu:-0}" "$top" "$( [ -n "$warn" ] && echo "\"$warn\"" || echo null)" > "$f"
	[ -z "$warn" ] || echo "WARNING: $warn; figures from this run are not comparable" >&2
}

# bench_vm_run SCRIPT: boot the VM with SCRIPT (tests/vm/softroce-vm). When the VM's
# kernel panicked, boot once more from scratch: under TCG the kernel now and then
# trips over its own code patching (a perf tracepoint switched on or off while the
# other vCPU runs the patched code: "Oops: int3"), which says nothing about what is
# measured. The first boot's console is kept as console.panic1.log and its partial
# results in $OUT/raw are dropped. Status: the VM run's. Needs OUT from bench_out.
bench_vm_run() {
	local rc=0
	"$SRC/tests/vm/softroce-vm" "$1" || rc=$?
	if [ $rc != 0 ] && grep -q 'Kernel panic' "$OUT/console.log" 2>/dev/null; then
		echo "bench: the VM's kernel panicked (console: $OUT/console.panic1.log); booting once more" >&2
		mv "$OUT/console.log" "$OUT/console.panic1.log"
		[ -d "$OUT/raw" ] && find "$OUT/raw" -mindepth 1 -delete
		rc=0
		"$SRC/tests/vm/softroce-vm" "$1" || rc=$?
	fi
	return $rc
}
