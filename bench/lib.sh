# bench/lib.sh: what the VM benchmark scripts share; sourced, never run.
#
# bench_out NAME: check that $BUILD is somewhere the VM can see, set OUT to --out or
# $BUILD/bench-out/NAME (absolute), check that too, and that python3 is here to read
# the results. Needs die() from the caller.
bench_out() {
	case $BUILD in /tmp|/tmp/*) die "the build dir must not be under /tmp (the VM cannot see it)" ;; esac
	OUT=$(realpath -m "${OUT:-$BUILD/bench-out/$1}")
	case $OUT in /tmp|/tmp/*) die "--out must not be under /tmp (the VM writes there)" ;; esac
	command -v python3 >/dev/null || die "python3 is needed on the host to read the results"
}

# bench_host_load FILE: what else runs on this machine, before the VM starts: the load
# average, other QEMU processes (another VM shares the vCPUs), the busiest processes.
# Writes FILE (JSON) and prints a warning when the machine is not quiet; the VM is TCG,
# so a second VM or a compile halves what it gets and the figures stop comparing.
bench_host_load() {
	local f=$1 load qemu top warn=
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	qemu=$(pgrep -fc qemu-system || true)
	top=$(ps -eo pcpu=,comm= --sort=-pcpu | head -5 | awk '{ printf "%s\"%s %s%%\"", (NR > 1 ? ", " : ""), $2, $1 }')
	if [ "${qemu:-0}" -gt 0 ]; then
		warn="$qemu other qemu-system process(es) running: another VM shares the CPUs"
	elif awk -v l="${load%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
		warn="host load ${load%% *} on $(nproc) CPUs: a heavy process shares the machine"
	fi
	printf '{"loadavg": "%s", "cpus": %s, "other_qemu": %s, "top": [%s], "warning": %s}\n' \
		"$load" "$(nproc)" "${qemu:-0}" "$top" "$( [ -n "$warn" ] && echo "\"$warn\"" || echo null)" > "$f"
	[ -z "$warn" ] || echo "WARNING: $warn; figures from this run are not comparable" >&2
}
