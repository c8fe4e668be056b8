#!/bin/bash
# rblk's main job, end to end: an rblk target exporting a file, and initiators moving
# real data to and from it over RDMA — rblk's own CLI and the Linux kernel host — with
# the bytes checked and the RDMA port counters shown as proof that the data crossed the
# RDMA device.
#
#   scripts/demo.sh            # installs what it needs, builds, runs (in the VM here)
#
# This machine (and CI) has no RDMA device, so the demo runs inside the Soft-RoCE VM
# (tests/vm/softroce-vm): rblk-target listens on rxe0 (10.99.0.1), the initiators use
# rxe1 (10.99.0.2), and traffic crosses veth1 -> veth0 between them. On a machine with
# an RDMA device, run scripts/demo-inside.sh ADDR directly (ADDR = a local address an
# RDMA device serves; target and initiator then share it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case "$top" in
/tmp | /tmp/*) build=${RBLK_BUILD:-/var/tmp/rblk-build-$(printf %s "$top" | md5sum | cut -c1-8)} ;;
*) build=${RBLK_BUILD:-$top/build} ;;
esac

"$top/scripts/install-deps.sh"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target rblk-target rblk

export RBLK_BUILD=$build
VM_OUT=${VM_OUT:-$build/vm-out-demo} exec "$top/tests/vm/softroce-vm" "$top/scripts/demo-inside.sh" 10.99.0.1 10.99.0.2
