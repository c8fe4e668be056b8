#!/bin/bash
# Installs every Debian package that building rblk, its tests and the Soft-RoCE VM
# need. Idempotent: packages already present are left alone, and apt is only asked
# when something is missing. Run as root on Debian 12.
set -euo pipefail

PKGS=(
	# build
	build-essential cmake pkg-config clang
	libibverbs-dev librdmacm-dev liburing-dev libaio-dev libcunit1-dev
	libjson-c-dev libnl-3-dev libnl-genl-3-dev
	# RDMA user space: providers (rxe), tools
	rdma-core ibverbs-providers ibverbs-utils librdmacm1 rdmacm-utils perftest infiniband-diags
	# the VM: QEMU, a static busybox for the initramfs, kmod for depmod/modprobe
	qemu-system-x86 busybox-static kmod iproute2 cpio
	# tests inside the VM
	nvme-cli fio e2fsprogs util-linux nbd-client jq
	# developer checks
	valgrind
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
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
