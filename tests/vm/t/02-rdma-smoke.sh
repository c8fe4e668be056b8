#!/bin/bash
# 02-rdma-smoke: rblk's own transport seam end to end over rxe (tests/func/rdma_smoke):
# the server listens on 10.99.0.1 (rxe0), the client connects from 10.99.0.2 (rxe1),
# RDMA WRITEs a pattern into the server's memory and READs it back; both sides verify the
# bytes and that their port counters grew by at least the bytes moved.
# vm-timeout: 180
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
smoke=$(rblk_bin tests/func/rdma_smoke) || exit 1

bg_start server "$smoke" --server 10.99.0.1 --timeout 120
spid=$BG_PID
wait_for_line 30 "$T_WORK/server.log" 'listening' $spid ||
	{ bg_log server; die "rdma_smoke server did not start listening"; }
"$smoke" --client 10.99.0.1 --src 10.99.0.2 --timeout 120 --connect-timeout 30 > client.log 2>&1
crc=$?
bg_wait server 60; src=$?
echo "--- client ---"; cat client.log
bg_log server
[ $crc = 0 ] || die "rdma_smoke client exited with $crc"
[ $src = 0 ] || die "rdma_smoke server exited with $src"
grep -q 'OK:' client.log || die "the client did not report OK"
grep -q 'OK:' server.log || die "the server did not report OK"
grep -q 'rxe1' client.log || die "the client did not use rxe1"
grep -q 'rxe0' server.log || die "the server did not use rxe0"
log "rdma_smoke: rxe1 -> rxe0 RDMA WRITE + READ verified on both sides"
