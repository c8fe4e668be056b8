#!/bin/bash
# 58-ceph-up: the Ceph cluster the RBD tests share (lib.sh's ceph_fixture: one monitor,
# one memory-store OSD on 127.0.0.1, everything under /tmp) starts in the VM, whose
# root is read-only, and serves RBD I/O. Logs how long the start took under TCG; later
# tests (59-rbd-gateway) reuse this cluster instead of starting their own. Numbered just before
# them so that its daemons do not tick in the background of the rest of the suite.
# Skips where Ceph is not installed on the host.
# vm-timeout: 400
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

t0=$SECONDS
ceph_fixture
log "cluster ready after $((SECONDS - t0)) s (start: ${CEPH_FIXTURE_START_S:-already running})"
img=$RBLK_CEPH_POOL/$T_NAME
t1=$SECONDS
head -c 4M /dev/urandom > "$T_WORK/in"
timeout 120 rbd import --no-progress "$T_WORK/in" "$img-data" || die "rbd import failed"
timeout 120 rbd export --no-progress "$img-data" "$T_WORK/out" || die "rbd export failed"
cmp "$T_WORK/in" "$T_WORK/out" || die "what rbd exported is not what was imported"
timeout 120 rbd rm --no-progress "$img-data" || die "rbd rm failed"
log "rbd import/export/rm of 4 MiB: $((SECONDS - t1)) s"
echo "ceph_start_s ${CEPH_FIXTURE_START_S:-0}"
log PASS
