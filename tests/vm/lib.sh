# lib.sh: helpers that VM test scripts (tests/vm/t/*.sh) source, and that run-suite.sh
# uses to clean up after each test. Runs inside the Soft-RoCE VM (bash, root).
#
#   . "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
#
# Variables (set by run-suite.sh; sensible defaults when a script runs alone):
#   RBLK_BUILD  the build tree (binaries: $RBLK_BUILD/tests/func/rdma_smoke, ...)
#   RBLK_SRC    the source tree (empty if not visible in the VM)
#   T_NAME      the test's name; T_WORK its fresh working dir (the cwd, on tmpfs)
#   T_OUT       a folder for artifacts kept on the host ($VM_OUT/results/<name>.files)
#   VM_ADDR0/VM_ADDR1  10.99.0.1 (veth0, rxe0) and 10.99.0.2 (veth1, rxe1)
#
# Exit statuses: 0 pass, 77 skip (`skip`), anything else fails (`die` exits 1).
# Helpers that print a value (rblk_bin, null_blk_create, nvme_connect_rdma) are used as
# x=$(helper ...) || exit 1: a `die` inside $(...) only ends the subshell. Their
# messages go to stderr. Each program started costs ~0.05-0.3 s under TCG: prefer bash
# builtins (read, [[ ]]) in loops.

RBLK_BUILD=${RBLK_BUILD:-}
RBLK_SRC=${RBLK_SRC:-}
T_NAME=${T_NAME:-$(basename "$0" .sh)}
T_WORK=${T_WORK:-$PWD}
T_OUT=${T_OUT:-${VM_OUT:-/tmp}/results/$T_NAME.files}
VM_ADDR0=10.99.0.1
VM_ADDR1=10.99.0.2
NVMET_CFS=/sys/kernel/config/nvmet
_T_START=${_T_START:-$SECONDS}

# log goes to stderr, so helpers can log from inside $(...)
log() { printf '[%3ss] %s\n' $((SECONDS - _T_START)) "$*" >&2; }
die() { printf '[%3ss] FAIL: %s\n' $((SECONDS - _T_START)) "$*" >&2; exit 1; }
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }

# need_cmd CMD PACKAGE: a missing tool is a broken setup, not a skip.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found: install the Debian package $2 on the host (scripts/install-deps.sh)"
}

# rblk_bin REL: the path of a built program in $RBLK_BUILD, or die saying what to build.
rblk_bin() {
	[ -n "$RBLK_BUILD" ] || die "RBLK_BUILD is not set (run through tests/vm/run-vm-tests.sh BUILD_DIR)"
	local p=$RBLK_BUILD/$1
	[ -x "$p" ] || die "$p is not built: run 'cmake --build $RBLK_BUILD --target $(basename "$1")' on the host first"
	printf '%s\n' "$p"
}

# wait_for SECONDS CMD [ARGS...]: poll CMD every 0.2 s until it succeeds; 1 on timeout.
wait_for() {
	local limit=$1 end; shift
	end=$((SECONDS + limit))
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ $SECONDS -ge $end ] && break
		sleep 0.2
	done
	log "wait_for: '$*' still failing after ${limit}s"
	return 1
}

# wait_for_line SECONDS FILE REGEX [PID]: wait until FILE has a line matching REGEX;
# fails early if PID (the process writing FILE) exits first.
wait_for_line() {
	local limit=$1 file=$2 re=$3 pid=${4:-} end=$((SECONDS + $1))
	while :; do
		grep -qE -- "$re" "$file" 2>/dev/null && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			# it may have written the line just before exiting (a --daemon parent does)
			grep -qE -- "$re" "$file" 2>/dev/null && return 0
			log "wait_for_line: process $pid exited before '$re' appeared in $file"
			return 1
		fi
		[ $SECONDS -ge $end ] && break
		sleep 0.2
	done
	log "wait_for_line: no '$re' in $file after ${limit}s"
	return 1
}

# pid_gone PID: true when process PID no longer exists (for wait_for: a $(...) or a
# `! kill -0` in wait_for's arguments would not do).
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# nr_json_dumps FILE: how many complete statistics dumps (SIGUSR1: rblk-target prints
# its statistics as pretty JSON on stderr, its log) FILE holds. A dump is complete when
# its closing brace is there: the only "}" alone in column 0 of a target's log.
nr_json_dumps() { grep -c '^}$' "$1" 2>/dev/null; }
# json_dumps_above FILE N: true when FILE holds more than N complete dumps (for wait_for)
json_dumps_above() { [ "$(nr_json_dumps "$1")" -gt "$2" ]; }

# test_fail MSG: the test's own fail() (which adds its logs) when it has one, else die.
test_fail() { if declare -F fail >/dev/null; then fail "$@"; else die "$@"; fi; }

# bg_start NAME CMD [ARGS...]: run CMD in the background, output to $T_WORK/NAME.log;
# its pid goes in BG_PID (and BG_PIDS[NAME]).
declare -A BG_PIDS=()
bg_start() {
	local name=$1; shift
	"$@" > "$T_WORK/$name.log" 2>&1 &
	BG_PID=$!
	BG_PIDS[$name]=$BG_PID
	log "started $name (pid $BG_PID): $*"
}

# bg_wait NAME [SECONDS]: wait for a background process to exit by itself (default
# 60 s; then it is killed); returns its exit status (124 if it had to be killed).
bg_wait() {
	local name=$1 limit=${2:-60} pid end rc
	pid=${BG_PIDS[$name]:-}
	[ -n "$pid" ] || die "bg_wait: no background process named $name"
	end=$((SECONDS + limit))
	while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.2; done
	if kill -0 "$pid" 2>/dev/null; then
		log "$name (pid $pid) still running after ${limit}s: killing it"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		rc=124
	else
		wait "$pid"; rc=$?
	fi
	unset "BG_PIDS[$name]"
	return $rc
}

# bg_stop NAME [SECONDS]: SIGTERM, then SIGKILL after SECONDS (default 20: clean
# shutdowns are slow under TCG); returns the exit status (124 if it had to be killed).
bg_stop() {
	local name=$1 pid
	pid=${BG_PIDS[$name]:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	bg_wait "$name" "${2:-20}"
}

# attach_stop [SECONDS]: SIGTERM to the background "attach" (an rblk attach, which
# detaches cleanly on it); 0 when it exited within SECONDS (30). Logs its exit status
# and how long it took.
attach_stop() {
	local t0=$SECONDS rc
	bg_stop attach "${1:-30}"
	rc=$?
	[ $rc = 124 ] && { log "the attach did not exit within ${1:-30} s of SIGTERM"; return 1; }
	log "attach exited $rc, $((SECONDS - t0)) s after SIGTERM"
}

# bg_log NAME: print a background process's output (for failure reports).
bg_log() { echo "--- $1.log ---"; cat "$T_WORK/$1.log" 2>/dev/null; echo "---"; }

# ---------------------------------------------------------------- block devices
# null_blk_create [SIZE_GB] [MODULE_PARAMS...]: load null_blk with one device and print
# its path. By default it has no memory behind it (reads return zeroes, writes are
# dropped: fast); pass memory_backed=1 for data that reads back (e.g. fio verify).
null_blk_create() {
	local gb=${1:-1}
	shift $(($# > 0 ? 1 : 0))
	if [ ! -b /dev/nullb0 ]; then
		modprobe null_blk nr_devices=1 gb="$gb" "$@" >&2 || die "modprobe null_blk $* failed"
	fi
	wait_for 10 test -b /dev/nullb0 || die "/dev/nullb0 did not appear"
	echo /dev/nullb0
}

# ---------------------------------------------------------------- kernel nvmet (target)
# nvmet_setup_rdma_port [PORTID] [ADDR] [SVCID]: a kernel target RDMA port (no subsystem
# yet). Defaults: port 1 on 10.99.0.1:4420.
nvmet_setup_rdma_port() {
	local id=${1:-1} addr=${2:-$VM_ADDR0} svc=${3:-4420} p
	modprobe nvmet_rdma || die "modprobe nvmet_rdma failed"
	[ -d $NVMET_CFS ] || die "$NVMET_CFS missing (configfs not mounted?)"
	p=$NVMET_CFS/ports/$id
	mkdir "$p" || die "mkdir $p"
	echo rdma > "$p/addr_trtype" && echo ipv4 > "$p/addr_adrfam" &&
		echo "$addr" > "$p/addr_traddr" && echo "$svc" > "$p/addr_trsvcid" ||
		die "configuring nvmet port $id ($addr:$svc)"
	log "nvmet: rdma port $id on $addr:$svc"
}

# nvmet_add_subsystem NQN PATH [NSID]: a subsystem open to any host with one namespace
# backed by a block device or a file (files get buffered_io: tmpfs has no O_DIRECT).
nvmet_add_subsystem() {
	local nqn=$1 path=$2 nsid=${3:-1} s n
	modprobe nvmet || die "modprobe nvmet failed"
	s=$NVMET_CFS/subsystems/$nqn
	[ -d "$s" ] || { mkdir "$s" && echo 1 > "$s/attr_allow_any_host"; } || die "creating subsystem $nqn"
	n=$s/namespaces/$nsid
	mkdir "$n" || die "mkdir $n"
	echo "$path" > "$n/device_path" || die "device_path $path"
	[ -f "$path" ] && { echo 1 > "$n/buffered_io" || die "buffered_io"; }
	echo 1 > "$n/enable" || die "enabling namespace $nsid ($path) of $nqn"
	log "nvmet: subsystem $nqn namespace $nsid = $path"
}

# nvmet_expose NQN [PORTID]: make a subsystem reachable through a port.
nvmet_expose() {
	local nqn=$1 id=${2:-1}
	ln -s "$NVMET_CFS/subsystems/$nqn" "$NVMET_CFS/ports/$id/subsystems/$nqn" ||
		die "linking $nqn to port $id"
}

# nvmet_cleanup: remove every port, subsystem and host from the kernel target.
nvmet_cleanup() {
	local x y
	[ -d $NVMET_CFS ] || return 0
	for x in $NVMET_CFS/ports/*; do
		[ -d "$x" ] || continue
		for y in "$x"/subsystems/*; do [ -L "$y" ] && rm -f "$y"; done
		for y in "$x"/referrals/*; do [ -d "$y" ] && rmdir "$y"; done
		for y in "$x"/ana_groups/*; do [ -d "$y" ] && [ "${y##*/}" != 1 ] && rmdir "$y"; done
		rmdir "$x"
	done 2>/dev/null
	for x in $NVMET_CFS/subsystems/*; do
		[ -d "$x" ] || continue
		for y in "$x"/allowed_hosts/*; do [ -L "$y" ] && rm -f "$y"; done
		for y in "$x"/namespaces/*; do
			[ -d "$y" ] || continue
			echo 0 > "$y/enable"; rmdir "$y"
		done
		rmdir "$x"
	done 2>/dev/null
	for x in $NVMET_CFS/hosts/*; do [ -d "$x" ] && rmdir "$x"; done 2>/dev/null
	return 0
}

# ---------------------------------------------------------------- data
# fio_verify NAME DEV [FIO ARGS...]: a crc32c-verified random-write job on DEV
# (libaio, O_DIRECT), every block read back and checked. Prints fio's bandwidth lines;
# on any error prints fio's report and calls the test's fail() (or die without one).
fio_verify() {
	local name=$1 dev=$2 out
	shift 2
	out=$T_WORK/fio-$name.txt
	log "fio $name on $dev: $*"
	if ! fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_backlog=0 \
		--group_reporting --output="$out" "$@" || ! grep -qE 'err= *0' "$out"; then
		cat "$out"
		test_fail "fio $name failed"
	fi
	grep -E '^ +(write|read):' "$out"
}

# fio_bg_verify NAME DEV [fio args...]: crc32c-verified 4 KiB random writes on DEV in the
# background until fio_bg_end (at most 300 s), output in $T_WORK/fio-NAME.txt, pid in FPID.
# For tests that do things to the paths under a running fio and stop it when done.
fio_bg_verify() {
	local name=$1 dev=$2
	shift 2
	bg_start "fio-$name" fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=8 --size=32M --time_based --runtime=300 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=64 \
		--output="$T_WORK/fio-$name.txt" "$@"
	FPID=$BG_PID
}

# fio_bg_end NAME: stop that fio now (SIGINT: it completes what is in flight, reports
# and exits 128) and fail the test unless it ran without an error until then (a failed
# verify is err=84; a fio that ended by itself before this did so on an error).
fio_bg_end() {
	local name=$1 out=$T_WORK/fio-$1.txt rc
	kill -0 "$FPID" 2>/dev/null || { cat "$out"; test_fail "fio $name ended early"; }
	kill -INT "$FPID"
	bg_wait "fio-$name" 120; rc=$?
	grep -E '^ +(write|read):|err=' "$out" | sed 's/^ */  /'
	[ $rc = 0 ] || [ $rc = 128 ] || { cat "$out"; test_fail "fio $name failed (rc $rc)"; }
	grep -qE 'err= *0' "$out" || { cat "$out"; test_fail "fio $name reported errors"; }
}

# ---------------------------------------------------------------- kernel host
# nvme_dev_for_nqn NQN [NSID]: the namespace block device(s) of a connected subsystem,
# in NSID order, or the one whose NSID is NSID. The name's instance number is not the
# NSID: 6.12 scans namespaces in parallel and numbers them as they come (NSID 1 may be
# nvme0n2), so this reads each disk's nsid attribute.
nvme_dev_for_nqn() {
	local s d id
	for s in /sys/class/nvme-subsystem/*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		for d in "$s"/nvme*n*; do
			[ -e "$d" ] && [ -b "/dev/${d##*/}" ] || continue
			id=$(cat "$d/nsid" 2>/dev/null) || continue
			[ -z "${2:-}" ] || [ "$id" = "$2" ] || continue
			echo "$id /dev/${d##*/}"
		done
	done | sort -n | awk '{print $2}'
}

# (wait_for runs a command again and again: a $(...) in its arguments would be
# expanded once, before the first try.)
_nvme_has_ns() { [ -n "$(nvme_dev_for_nqn "$@")" ]; }
# nvme_no_ns NQN: true when the subsystem has no namespace block device (left).
nvme_no_ns() { ! _nvme_has_ns "$@"; }

# nvme_wait_ns NQN NSID [SECONDS]: wait until the namespace's block device exists, print it.
nvme_wait_ns() {
	local dev
	wait_for "${3:-20}" _nvme_has_ns "$1" "$2" || return 1
	dev=$(nvme_dev_for_nqn "$1" "$2")
	echo "$dev"
}

# dev_writes DEV: writes the block device DEV has completed (/sys/block/*/stat), with
# those of its paths when DEV is a native NVMe multipath head (nvmeXnY, paths nvmeXcZnY:
# a head's own counters may stay 0). Nothing but a test's own I/O writes to a device
# (udev and the partition scan only read), so a count that grows means that I/O runs.
dev_writes() {
	local n=${1#/dev/} f x w sum=0
	for f in "/sys/block/$n/stat" "/sys/block/${n%n*}"c*n"${n##*n}"/stat; do
		[ -r "$f" ] || continue
		read -r x x x x w x < "$f" || continue
		sum=$((sum + w))
	done
	echo "$sum"
}
# dev_written DEV N: true when DEV has completed more than N writes (for wait_for)
dev_written() { [ "$(dev_writes "$1")" -gt "$2" ]; }

# nvme_ctrl_state CTRL: the kernel host's state of controller CTRL (nvme0): live,
# connecting, resetting, deleting...
nvme_ctrl_state() { local s; read -r s < "/sys/class/nvme/$1/state" && echo "$s"; }

# nvme_wait_live CTRL [SECONDS]: wait until the host's controller is live again (after
# an error recovery, admin commands issued while it reconnects fail).
nvme_wait_live() {
	wait_for "${2:-60}" sh -c "[ \"\$(cat /sys/class/nvme/$1/state)\" = live ]"
}

# nvme_connect_rdma NQN [ADDR] [SVCID] [HOST_ADDR] [extra nvme-cli args...]: connect
# the kernel host and print the block device of the lowest NSID (NSID 1 when there is
# one; wait for others with nvme_wait_ns). HOST_ADDR (default
# 10.99.0.2) makes the traffic cross rxe1 -> rxe0; pass "" to stay on one device.
nvme_connect_rdma() {
	local nqn=$1 addr=${2:-$VM_ADDR0} svc=${3:-4420} host=${4-$VM_ADDR1} dev
	shift $(($# < 4 ? $# : 4))
	need_cmd nvme nvme-cli
	modprobe nvme_rdma || die "modprobe nvme_rdma failed"
	nvme connect -t rdma -a "$addr" -s "$svc" -n "$nqn" ${host:+-w "$host"} "$@" >&2 ||
		die "nvme connect -t rdma -a $addr -s $svc -n $nqn failed"
	wait_for 20 _nvme_has_ns "$nqn" ||
		die "no namespace block device appeared for $nqn"
	# Namespaces come in any order on 6.12: give NSID 1, if the subsystem has one, a
	# moment to appear, so that "the first namespace" means the same on every kernel.
	wait_for 5 _nvme_has_ns "$nqn" 1 || true
	dev=$(nvme_dev_for_nqn "$nqn" | head -1)
	log "nvme: $nqn connected as $dev"
	echo "$dev"
}

# ---------------------------------------------------------------- Ceph fixture
# One throw-away Ceph cluster per VM boot (tests/ceph/ceph-mini.sh: a monitor and a
# memory-store OSD on 127.0.0.1, all files under $CEPH_FIXTURE_DIR on tmpfs), started
# by the first test that asks for it and shared by the later ones: starting it costs
# tens of seconds under TCG. Its daemons are listed in $VM_KEEP_PIDS so that the
# cleanup after each test leaves them running.
CEPH_FIXTURE_DIR=/tmp/rblk-ceph
CEPH_FIXTURE_ENV=/tmp/rblk-ceph.env
VM_KEEP_PIDS=/run/rblk-vm-keep.pids

_ceph_fixture_alive() {
	local f pid
	[ -f "$CEPH_FIXTURE_ENV" ] || return 1
	for f in mon.a osd.0; do
		read -r pid 2>/dev/null < "$CEPH_FIXTURE_DIR/run/$f.pid" || return 1
		_vm_alive "$pid" || return 1
	done
}

# ceph_fixture: export the shared cluster's CEPH_CONF, RBLK_CEPH_* (see ceph-mini.sh),
# starting the cluster first if no test has; skips (77) where none can run (no source
# tree in the VM, Ceph not installed on the host), dies if it does not start.
# Prints the start time (CEPH_FIXTURE_START_S) when it started it.
ceph_fixture() {
	local mini=${RBLK_SRC:+$RBLK_SRC/tests/ceph/ceph-mini.sh} b t0 out f pid
	CEPH_FIXTURE_START_S=
	if ! _ceph_fixture_alive; then
		[ -n "$mini" ] && [ -x "$mini" ] ||
			skip "no tests/ceph/ceph-mini.sh in the VM (the source tree must not be under /tmp)"
		for b in ceph-mon ceph-osd ceph rbd; do
			command -v $b >/dev/null ||
				skip "$b missing: install Ceph on the host (scripts/install-deps.sh --ceph)"
		done
		# a cluster that died or never came up: its directory goes first
		[ -e "$CEPH_FIXTURE_DIR" ] && "$mini" stop "$CEPH_FIXTURE_DIR" >&2
		rm -f "$CEPH_FIXTURE_ENV"
		log "ceph: starting the shared cluster in $CEPH_FIXTURE_DIR"
		t0=$SECONDS
		# each step is slow under TCG; a monitor too slow to answer is no failure
		out=$(RBLK_CEPH_TIMEOUT=${RBLK_CEPH_TIMEOUT:-300} RBLK_CEPH_STORE_GB=1 \
			"$mini" start "$CEPH_FIXTURE_DIR") || {
			cat "$CEPH_FIXTURE_DIR"/log/*.log 2>/dev/null | tail -40 >&2
			die "the Ceph cluster did not start"
		}
		CEPH_FIXTURE_START_S=$((SECONDS - t0))
		for f in mon.a osd.0; do
			read -r pid < "$CEPH_FIXTURE_DIR/run/$f.pid" && echo "$pid" >> "$VM_KEEP_PIDS"
		done
		printf '%s\n' "$out" > "$CEPH_FIXTURE_ENV"
		log "ceph: up in ${CEPH_FIXTURE_START_S}s"
	fi
	# shellcheck disable=SC1090
	. "$CEPH_FIXTURE_ENV"
}

# ---------------------------------------------------------------- RDMA
# rxe_counter DEV NAME: an rxe hw counter (sent_pkts, rcvd_pkts, ...).
rxe_counter() { local v; read -r v < "/sys/class/infiniband/$1/ports/1/hw_counters/$2" && echo "$v"; }

# rxe_trouble: one line per device with its non-zero retry, sequence and error
# counters (cumulative since rxe0/rxe1 were created): lost packets and retransmissions
# leave their mark here even when the I/O above them recovers.
rxe_trouble() {
	local dev f v line
	for dev in rxe0 rxe1; do
		line=
		for f in /sys/class/infiniband/$dev/ports/1/hw_counters/*; do
			case ${f##*/} in
			*err*|*retry*|duplicate_request|out_of_seq_request|ack_deferred) ;;
			*) continue ;;
			esac
			read -r v < "$f" 2>/dev/null || continue
			[ "$v" != 0 ] && line="$line ${f##*/}=$v"
		done
		echo "$dev:${line:- no retries or errors}"
	done
}

# vm_restore_rxe: put the rxe0/rxe1 pair back if a test removed it.
vm_restore_rxe() {
	local i
	for i in 0 1; do
		[ -d /sys/class/infiniband/rxe$i ] && continue
		echo "vm_cleanup: rxe$i was gone; recreating it on veth$i"
		rdma link add rxe$i type rxe netdev veth$i
	done
}

# rdma_listening PORT: true when an RDMA CM ID listens on PORT (rdma res show cm_id
# says "state LISTEN ... src-addr ADDR:PORT"; older iproute2 "src-port PORT").
rdma_listening() {
	rdma res show cm_id 2>/dev/null | grep -qE "state LISTEN .*(:| src-port )$1( |\$)"
}

# rdma_cm_ok: one rping exchange from rxe1's address to rxe0's (address and route
# resolution, the CM's MADs, a SEND and an RDMA READ/WRITE): true when it worked.
rdma_cm_ok() {
	local spid rc=1 try
	command -v rping >/dev/null || return 0
	for try in 1 2; do
		timeout 15 rping -s -a "$VM_ADDR0" -p 7199 -C 1 >/dev/null 2>&1 &
		spid=$!
		# no listener after 10 s: try anyway (the client's failure says the rest)
		wait_for 10 rdma_listening 7199
		timeout 10 rping -c -a "$VM_ADDR0" -I "$VM_ADDR1" -p 7199 -C 1 >/dev/null 2>&1; rc=$?
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
		[ $rc = 0 ] && return 0
	done
	return 1
}

# vm_repair_rdma: after a failed test, make sure it did not leave the fabric broken for
# every later test of the boot (once, a 15 s netem outage left rxe unable to set up any
# connection until the VM rebooted): when rping fails, flush the pair's neighbour
# entries, then recreate rxe0 and rxe1. Prints what it did.
vm_repair_rdma() {
	local i
	rdma_cm_ok && return 0
	echo "vm_cleanup: RDMA CM from $VM_ADDR1 to $VM_ADDR0 fails: flushing the neighbour entries"
	ip neigh flush dev veth0; ip neigh flush dev veth1
	rdma_cm_ok && { echo "vm_cleanup: RDMA CM works again"; return 0; }
	echo "vm_cleanup: still failing: recreating rxe0 and rxe1"
	for i in 0 1; do rdma link delete rxe$i 2>/dev/null; done
	for i in 0 1; do rdma link add rxe$i type rxe netdev veth$i || echo "vm_cleanup: rdma link add rxe$i failed"; done
	wait_for 30 sh -c 'grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state &&
		grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state'
	if rdma_cm_ok; then
		echo "vm_cleanup: RDMA CM works again"
	else
		echo "vm_cleanup: RDMA CM still fails: later tests of this boot may fail for it"
	fi
}

# ---------------------------------------------------------------- cleanup
# vm_state_save DIR: record what exists now (processes, modules, mounts), so that
# vm_cleanup can undo whatever a test leaves behind. run-suite.sh calls it before each
# test and exports RBLK_VM_STATE.
vm_state_save() {
	local dir=$1 d
	mkdir -p "$dir"
	for d in /proc/[0-9]*; do echo "${d#/proc/}"; done > "$dir/pids"
	awk '{print $1}' /proc/modules > "$dir/modules"
	awk '{print $2}' /proc/self/mounts > "$dir/mounts"
}

# user processes that did not exist when the state was saved; never this shell, its
# ancestors or its own children (zombies and helpers of the cleanup itself)
_vm_new_pids() {
	local state=$1 d pid line rest p me=$BASHPID
	declare -A old=() keep=() fixture=()
	while read -r pid; do old[$pid]=1; done < "$state/pids"
	# shared fixtures (ceph_fixture) outlive the test that started them
	if [ -f "$VM_KEEP_PIDS" ]; then
		while read -r pid; do fixture[$pid]=1; done < "$VM_KEEP_PIDS"
	fi
	p=$me
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		keep[$p]=1
		read -r line 2>/dev/null < "/proc/$p/stat" || break
		rest=${line##*) }
		set -- $rest
		p=$2
	done
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ -n "${old[$pid]:-}" ] || [ -n "${keep[$pid]:-}" ] && continue
		[ -n "${fixture[$pid]:-}" ] && continue
		read -r line 2>/dev/null < "$d/stat" || continue
		rest=${line##*) }
		set -- $rest
		# $1 state, $2 ppid, $7 flags
		[ "$1" = Z ] || [ "$2" = "$me" ] && continue
		(( $7 & 0x200000 )) && continue	# PF_KTHREAD
		echo "$pid"
	done
}

_vm_none_alive() {
	local p
	for p in "$@"; do _vm_alive "$p" && return 1; done
	return 0
}

_vm_alive() {
	local line
	read -r line 2>/dev/null < "/proc/$1/stat" || return 1
	line=${line##*) }
	[ "${line%% *}" != Z ]
}

# vm_cleanup: undo what a test left behind, in an order that lets each step work:
# unmount, disconnect the kernel host (before its target goes away), disconnect NBD,
# kill leftover processes, delete ublk devices left by them, tear down the kernel target, detach loop devices, unload
# modules the test loaded, restore rxe0/rxe1. Without a saved state (RBLK_VM_STATE) it
# does what needs none of it. Safe to call twice; says what it did.
vm_cleanup() {
	local state=${RBLK_VM_STATE:-} m pids p i left n

	if [ -n "$state" ] && [ -f "$state/mounts" ]; then
		# new mount points, deepest first
		awk '{print $2}' /proc/self/mounts | grep -vxF -f "$state/mounts" | sort -r |
		while read -r m; do
			echo "vm_cleanup: unmounting $m"
			umount "$m" 2>/dev/null || umount -l "$m"
		done
	fi

	if compgen -G "/sys/class/nvme-fabrics/ctl/nvme*" >/dev/null; then
		echo "vm_cleanup: nvme disconnect-all"
		timeout 60 nvme disconnect-all >/dev/null 2>&1 || echo "vm_cleanup: nvme disconnect-all failed"
	fi

	for p in /sys/block/nbd*; do
		[ -e "$p/pid" ] || continue
		echo "vm_cleanup: disconnecting /dev/${p##*/}"
		timeout 30 nbd-client -d "/dev/${p##*/}" >/dev/null 2>&1
	done

	if [ -n "$state" ] && [ -f "$state/pids" ]; then
		pids=$(_vm_new_pids "$state")
		if [ -n "$pids" ]; then
			for p in $pids; do
				echo "vm_cleanup: killing leftover pid $p: $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"
			done
			kill -TERM $pids 2>/dev/null
			for i in $(seq 25); do
				left=
				for p in $pids; do _vm_alive $p && left="$left $p"; done
				[ -z "$left" ] && break
				sleep 0.2
			done
			if [ -n "$left" ]; then
				echo "vm_cleanup: SIGKILL$left"
				kill -KILL $left 2>/dev/null
				# shellcheck disable=SC2086 # one word per pid
				wait_for 10 _vm_none_alive $left ||
					echo "vm_cleanup: still there 10 s after SIGKILL (stuck in the kernel?):$left"
			fi
		fi
	fi

	# ublk devices whose rblk attach was killed above: /dev/ublkcN stays until DEL_DEV,
	# which `rblk detach` sends for a device whose server is dead (and ublk_drv can unload)
	for p in /dev/ublkc*; do
		[ -e "$p" ] && [ -x "$RBLK_BUILD/cli/rblk" ] || continue
		echo "vm_cleanup: deleting ublk device ${p#/dev/ublkc}"
		timeout 30 "$RBLK_BUILD/cli/rblk" detach "ublkb${p#/dev/ublkc}" >/dev/null 2>&1
	done

	if [ -d $NVMET_CFS ] && [ -n "$(ls -A $NVMET_CFS/ports $NVMET_CFS/subsystems $NVMET_CFS/hosts 2>/dev/null)" ]; then
		echo "vm_cleanup: removing the kernel target's configuration"
		nvmet_cleanup
	fi

	if losetup -a 2>/dev/null | grep -q .; then
		echo "vm_cleanup: detaching loop devices"
		losetup -D
	fi

	# a test that simulated an outage with tc (netem) must not leave packets dropping
	for i in veth0 veth1; do
		tc qdisc show dev $i 2>/dev/null | grep -q netem || continue
		tc qdisc del dev $i root 2>/dev/null && echo "vm_cleanup: removed the netem qdisc on $i"
	done

	if [ -n "$state" ] && [ -f "$state/modules" ]; then
		# unload modules the test loaded; repeat while progress is made (dependencies)
		for i in 1 2 3 4; do
			left=$(awk '{print $1}' /proc/modules | grep -vxF -f "$state/modules")
			[ -z "$left" ] && break
			n=0
			for m in $left; do
				rmmod "$m" 2>/dev/null && { echo "vm_cleanup: unloaded $m"; n=1; }
			done
			[ $n = 0 ] && break
		done
		left=$(awk '{print $1}' /proc/modules | grep -vxF -f "$state/modules")
		[ -n "$left" ] && echo "vm_cleanup: could not unload:" $left
	fi

	vm_restore_rxe
	return 0
}
