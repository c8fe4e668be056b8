#!/bin/bash
# A disposable one-node Ceph cluster for the RBD backend's tests: one monitor and
# one OSD whose objects live in memory (memstore), no manager, on loopback.
#
#   ceph-mini.sh start [DIR]   start it, create pool "rbd" and one image; prints
#                              shell exports (CEPH_CONF first) on stdout, progress
#                              on stderr:  eval "$(tests/ceph/ceph-mini.sh start)"
#   ceph-mini.sh env [DIR]     print the exports again
#   ceph-mini.sh stop [DIR]    kill the two daemons started here, remove DIR
#
# Every file (configuration, keys, monitor store, logs, pid files, admin sockets)
# stays under DIR, default ${TMPDIR:-/tmp}/rblk-ceph, and nothing depends on
# systemd, so it also runs where only /tmp and /run are writable (the test VM).
# memstore does no O_DIRECT, so DIR may be on tmpfs. Needs root and the Debian
# packages ceph-mon ceph-osd ceph-common (scripts/install-deps.sh --ceph).
#
# Settings (environment): RBLK_CEPH_IP (127.0.0.1), RBLK_CEPH_PORT (the monitor's
# msgr2 port, 41200; msgr1 is the next one), RBLK_CEPH_OSD_PORTS (41210-41240),
# RBLK_CEPH_IMAGE (img0), RBLK_CEPH_IMAGE_SIZE (256M), RBLK_CEPH_STORE_GB (2),
# RBLK_CEPH_TIMEOUT (seconds per step, 60; raise it under emulation).
set -euo pipefail

cmd=${1:-}
DIR=$(realpath -m -- "${2:-${RBLK_CEPH_DIR:-${TMPDIR:-/tmp}/rblk-ceph}}")
IP=${RBLK_CEPH_IP:-127.0.0.1}
PORT=${RBLK_CEPH_PORT:-41200}
OSD_PORTS=${RBLK_CEPH_OSD_PORTS:-41210-41240}
IMAGE=${RBLK_CEPH_IMAGE:-img0}
IMAGE_SIZE=${RBLK_CEPH_IMAGE_SIZE:-256M}
STORE_GB=${RBLK_CEPH_STORE_GB:-2}
TIMEOUT=${RBLK_CEPH_TIMEOUT:-60}
CONF=$DIR/ceph.conf
KEYRING=$DIR/keyring

say() { echo "ceph-mini: $*" >&2; }
die() { say "$*"; exit 1; }
# The CLI against this cluster only, bounded: a dead monitor must not hang a test.
ceph_cli() { timeout "$TIMEOUT" ceph -c "$CONF" --connect-timeout 10 "$@"; }

write_conf() {
	local fsid=$1
	cat >"$CONF" <<CONF
# Written by rblk's tests/ceph/ceph-mini.sh: a throw-away test cluster.
[global]
fsid = $fsid
mon_host = [v2:$IP:$PORT,v1:$IP:$((PORT + 1))]
public_addr = $IP
cluster_addr = $IP
ms_bind_ipv4 = true
ms_bind_ipv6 = false
ms_bind_port_min = ${OSD_PORTS%-*}
ms_bind_port_max = ${OSD_PORTS#*-}
# cephx as on a real cluster, so the client's identity and key matter
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
keyring = $KEYRING
# Everything the daemons and clients write goes under this directory.
run_dir = $DIR/run
admin_socket = $DIR/run/\$cluster-\$name.asok
pid_file = $DIR/run/\$name.pid
log_file = $DIR/log/\$name.log
mon_cluster_log_file = $DIR/log/cluster.\$channel.log
crash_dir = $DIR/crash
mon_data = $DIR/mon.\$id
osd_data = $DIR/osd.\$id
# A single OSD: one copy, no failure domain above the OSD, no warning about it.
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
# There is no manager; without this health turns to MGR_DOWN after two minutes.
mon_mgr_mkfs_grace = 86400
# A nearly full tmpfs must not make the monitor shut itself down.
mon_data_avail_warn = 1
mon_data_avail_crit = 0

[client]
# Several processes may be client.admin at once: one socket each.
admin_socket = $DIR/run/\$cluster-\$name.\$pid.asok

[mon]
mon_initial_members = a
# Start-up is a chain of dependent map updates; the default 1 s pause after
# each commit would make it several seconds slower.
paxos_propose_interval = 0.05

[osd]
osd_objectstore = memstore
memstore_device_bytes = $((STORE_GB << 30))
memstore_page_set = true
# A fixed CRUSH location: a host without a proper hostname ("(none)" in a bare
# VM) is no valid bucket name, and the OSD would refuse to start.
crush_location = root=default host=rblk-ceph
osd_crush_initial_weight = 1
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
CONF
}

# Kills the daemon in pid file $1 only if its command line names our conf:
# a stale pid file must not kill an unrelated process that reused the pid.
kill_daemon() {
	local pidfile=$1 pid
	[ -f "$pidfile" ] || return 0
	pid=$(cat "$pidfile")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
	tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF -- "$CONF" || return 0
	# SIGKILL: a clean memstore shutdown first writes every object out, for nothing.
	kill -KILL "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		[ -d "/proc/$pid" ] || return 0
		# a zombie is gone for our purposes; its parent reaps it
		[ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = Z ] && return 0
		sleep 0.1
	done
}

print_env() {
	[ -f "$CONF" ] || die "no cluster in $DIR"
	cat <<ENV
export CEPH_CONF=$CONF
export RBLK_CEPH_DIR=$DIR
export RBLK_CEPH_POOL=rbd
export RBLK_CEPH_IMAGE=$IMAGE
export RBLK_CEPH_CLIENT_KEYRING=$DIR/client.rblk.keyring
ENV
}

start() {
	local b fsid osd_uuid id key
	for b in ceph-mon ceph-osd ceph ceph-authtool monmaptool rbd; do
		command -v "$b" >/dev/null ||
			die "$b missing (apt-get install ceph-mon ceph-osd ceph-common)"
	done
	if [ -d "$DIR" ] && [ -n "$(ls -A "$DIR")" ]; then
		die "$DIR is in use; '$0 stop $DIR' first"
	fi
	# On failure: no daemon left behind; the directory stays for its logs.
	trap 'kill_daemon "$DIR/run/osd.0.pid"; kill_daemon "$DIR/run/mon.a.pid";
		say "start failed; logs in $DIR/log"' EXIT
	mkdir -p "$DIR"/{run,log,crash,mon.a,osd.0}
	# The monitor's mkfs opens relative paths in the working directory.
	cd "$DIR"
	fsid=$(cat /proc/sys/kernel/random/uuid)
	osd_uuid=$(cat /proc/sys/kernel/random/uuid)
	write_conf "$fsid"

	# All keys in one keyring that the monitor's mkfs imports: no later
	# 'ceph auth' round trips. client.rblk has only what an RBD client needs.
	ceph-authtool -C "$KEYRING" -g -n mon. --cap mon 'allow *' >/dev/null
	ceph-authtool "$KEYRING" -g -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
		--cap mgr 'allow *' >/dev/null
	ceph-authtool "$KEYRING" -g -n osd.0 --cap mon 'allow profile osd' \
		--cap mgr 'allow profile osd' --cap osd 'allow *' >/dev/null
	ceph-authtool "$KEYRING" -g -n client.rblk --cap mon 'profile rbd' \
		--cap osd 'profile rbd pool=rbd' >/dev/null
	key=$(ceph-authtool "$KEYRING" -n client.rblk -p)
	printf '[client.rblk]\n\tkey = %s\n' "$key" >"$DIR/client.rblk.keyring"
	chmod 600 "$KEYRING" "$DIR/client.rblk.keyring"

	monmaptool --create --fsid "$fsid" --addv a "[v2:$IP:$PORT,v1:$IP:$((PORT + 1))]" \
		"$DIR/monmap" >/dev/null
	{ ceph-mon -c "$CONF" -i a --mkfs --monmap "$DIR/monmap" --keyring "$KEYRING" &&
		ceph-mon -c "$CONF" -i a; } >>"$DIR/log/start.log" 2>&1 ||
		{ cat "$DIR/log/start.log" >&2; die "ceph-mon did not start"; }

	id=$(ceph_cli osd new "$osd_uuid" 0)
	[ "$id" = 0 ] || die "'ceph osd new' gave '$id', not 0"
	{ ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$osd_uuid" &&
		ceph-osd -c "$CONF" -i 0; } >>"$DIR/log/start.log" 2>&1 ||
		{ cat "$DIR/log/start.log" >&2; die "ceph-osd did not start"; }

	ceph_cli osd pool create rbd 8 8 replicated >/dev/null 2>&1 || die "pool create failed"
	# Returns only once the pool's placement groups are active (it writes to
	# the pool), which is what "ready for I/O" means here. Not 'ceph -s':
	# without a manager it shows no PG states at all.
	timeout "$TIMEOUT" rbd -c "$CONF" pool init rbd || die "pool rbd not ready in ${TIMEOUT}s"
	timeout "$TIMEOUT" rbd -c "$CONF" create --size "$IMAGE_SIZE" "rbd/$IMAGE"
	trap - EXIT
	say "up in $SECONDS s: rbd/$IMAGE ($IMAGE_SIZE), conf $CONF"
	print_env
}

stop() {
	[ -d "$DIR" ] || return 0
	kill_daemon "$DIR/run/osd.0.pid"
	kill_daemon "$DIR/run/mon.a.pid"
	# Never remove a directory that is not one of ours.
	[ -f "$CONF" ] || [ -d "$DIR/mon.a" ] || die "$DIR is not a ceph-mini directory; left alone"
	rm -rf -- "$DIR"
	say "stopped; removed $DIR"
}

case "$cmd" in
start) start ;;
env) print_env ;;
stop) stop ;;
*) echo "usage: $0 start|env|stop [DIR]" >&2; exit 2 ;;
esac
