#!/bin/bash
# Installs every Debian package that building rblk, its tests and the Soft-RoCE VM
# need. Idempotent: packages already present are left alone, and apt is only asked
# when something is missing. Run as root on Debian 12.
set -euo pipefail

# --ceph: also the daemons and tools for tests/ceph/ceph-mini.sh (a throw-away
# one-node cluster the RBD tests run against). Not default: ceph-osd pulls in
# lvm2 and friends that nothing else needs.
WITH_CEPH=0
for a in "$@"; do
	case "$a" in
	--ceph) WITH_CEPH=1 ;;
	*) echo "usage: $0 [--ceph]" >&2; exit 2 ;;
	esac
done

PKGS=(
	# build
	build-essential cmake pkg-config clang
	libibverbs-dev librdmacm-dev liburing-dev libaio-dev libcunit1-dev
	libjson-c-dev libnl-3-dev libnl-genl-3-dev libssl-dev
	# rblk-target's Prometheus endpoint (--metrics); the build leaves it out without
	libmicrohttpd-dev
	# the RBD backend (rbd:POOL/IMAGE namespaces); the build skips it without them
	librbd-dev librados-dev
	# RDMA user space: providers (rxe), tools
	rdma-core ibverbs-providers ibverbs-utils librdmacm1 rdmacm-utils perftest infiniband-diags
	# the VM: QEMU, a static busybox for the initramfs, kmod for depmod/modprobe
	qemu-system-x86 busybox-static kmod iproute2 cpio xz-utils
	# tests inside the VM
	nvme-cli fio e2fsprogs util-linux nbd-client jq dmsetup python3
	# promtool, which checks the metrics endpoint's output (63-target-metrics)
	prometheus
	# the benchmarks' system call counts (bench/syscalls.sh): perf stat on the VM's 6.1
	# kernel (Debian 12's linux-perf is 6.1), strace -c for the breakdown and as fallback
	strace linux-perf
	# the RBD gateway benchmark's CPU of fio's process tree (bench/rbd_gateway.sh)
	time
	# developer checks
	valgrind
)
if [ "$WITH_CEPH" = 1 ]; then
	PKGS+=(ceph-mon ceph-osd ceph-common)
fi

# The VM's second kernel, 6.12, comes from bookworm-backports. The source is added with
# a pin below the default (1 < 500), so that apt never installs or upgrades anything
# from it by itself: the VM runner fetches that one kernel package by name.
BACKPORTS_LIST=/etc/apt/sources.list.d/rblk-bookworm-backports.list
BACKPORTS_PIN=/etc/apt/preferences.d/rblk-bookworm-backports
need_update=0
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: bookworm-backports is not an apt source (the VM's 6.12 kernel); run as root" >&2
		exit 1
	fi
	# The mirror bookworm itself comes from (these machines reach no other).
	mirror=$({ grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/ 2>/dev/null || true; } | awk 'NR==1{print $1}')
	echo "deb ${mirror:-http://deb.debian.org/debian} bookworm-backports main" > "$BACKPORTS_LIST"
	echo "install-deps: added bookworm-backports ($BACKPORTS_LIST)"
	need_update=1
fi
if [ ! -f "$BACKPORTS_PIN" ] && [ "$(id -u)" -eq 0 ]; then
	printf 'Package: *\nPin: release n=bookworm-backports\nPin-Priority: 1\n' > "$BACKPORTS_PIN"
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	if [ "$need_update" = 1 ]; then
		apt-get update -qq
	fi
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
