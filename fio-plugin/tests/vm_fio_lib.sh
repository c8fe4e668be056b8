# vm_fio_lib.sh: helpers for the fio plugin's VM tests (tests/vm/t/3*-fio-*.sh), sourced
# after tests/vm/lib.sh. The build copies it to $RBLK_BUILD/fio-plugin/, next to the plugin,
# so the tests need only the build tree:
#
#   . "$RBLK_BUILD/fio-plugin/vm_fio_lib.sh" || exit 1
#
# FIO_SO is the plugin; rfio runs fio through it; trid builds a filename. A test may set
# FIO_FAIL_HOOK to a command run before a failure ends it (e.g. 'bg_log target').

need_cmd fio fio
[ -n "$RBLK_BUILD" ] || die "RBLK_BUILD is not set"
FIO_SO=$RBLK_BUILD/fio-plugin/librblk_fio.so
[ -f "$FIO_SO" ] || die "$FIO_SO is not built: cmake --build $RBLK_BUILD --target rblk_fio"

# trid ADDR NQN NS [MORE...]: a filename= value; every ':' escaped as '\:' because fio
# splits filename= at ':' (NQNs have them). Traffic goes from 10.99.0.2 (rxe1) to ADDR.
trid() {
	local addr=$1 nqn=$2 ns=$3
	shift 3
	printf 'trtype=RDMA adrfam=IPv4 traddr=%s trsvcid=4420 subnqn=%s hostaddr=%s ns=%s%s' \
		"$addr" "${nqn//:/\\:}" "$VM_ADDR1" "$ns" "${*:+ $*}"
}

# rfio NAME FIO_ARGS...: fio through the plugin (thread=1, group reporting); output in
# $T_WORK/fio-NAME.txt; dies on a non-zero exit or any job error.
rfio() {
	local name=$1 out=$T_WORK/fio-$1.txt
	shift
	log "fio $name: $*"
	timeout 600 fio --name="$name" --ioengine=external:"$FIO_SO" --thread=1 --group_reporting \
		--output="$out" "$@"
	local rc=$?
	if [ $rc -ne 0 ] || grep -qE 'err= *[1-9]' "$out"; then
		cat "$out"
		${FIO_FAIL_HOOK:-:}
		die "fio $name failed (exit $rc)"
	fi
	grep -E '^ +(read|write|trim): ' "$out" | sed 's/^ */  /'
}

# rfio_verify NAME FIO_ARGS...: a write job whose data fio checks after writing (crc32c
# in every block, verify_fatal).
rfio_verify() {
	local name=$1
	shift
	rfio "$name" --verify=crc32c --do_verify=1 --verify_fatal=1 "$@"
}

# rfio_fail NAME REGEX FIO_ARGS...: fio through the plugin must exit non-zero within
# 120 s, say REGEX, and not crash.
rfio_fail() {
	local name=$1 re=$2 out=$T_WORK/fio-$1.txt rc t0=$SECONDS
	shift 2
	log "fio $name (must fail): $*"
	timeout 120 fio --name="$name" --ioengine=external:"$FIO_SO" --thread=1 "$@" > "$out" 2>&1
	rc=$?
	[ $rc -eq 124 ] && { cat "$out"; ${FIO_FAIL_HOOK:-:}; die "fio $name did not end within 120 s"; }
	[ $rc -eq 0 ] && { cat "$out"; ${FIO_FAIL_HOOK:-:}; die "fio $name exited 0"; }
	grep -qiE 'segmentation|core dumped|assertion' "$out" && { cat "$out"; die "fio $name crashed"; }
	grep -qE -- "$re" "$out" || { cat "$out"; ${FIO_FAIL_HOOK:-:}; die "fio $name: no '$re' in its output"; }
	log "  exit $rc after $((SECONDS - t0))s: $(grep -m1 -E -- "$re" "$out")"
}
