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
