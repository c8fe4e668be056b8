#!/bin/bash
# 01-perftest: perftest moves data between rxe1 (10.99.0.2, client) and rxe0 (10.99.0.1,
# server) over rdma_cm (-R; without it perftest ran 0 iterations here): ib_write_bw and
# ib_read_bw, 64 KiB messages for a few seconds each. Checks that iterations ran and
# that rxe1's packet counters account for the bytes (the data crossed the veth pair
# instead of looping back inside one device: perftest -R cannot pick a source address,
# the VM's policy routing does). Reports the bandwidth: perftest's own figure (computed
# from the TSC and the CPU MHz, often 0.00 under TCG) and bytes/duration (an estimate;
# absolute numbers mean nothing under TCG anyway).
# vm-timeout: 240
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
need_cmd ib_write_bw perftest
SIZE=65536
DUR=${PERFTEST_DURATION:-3}
PORT=18515	# perftest's default, named so that we can look for its listener
mtu=$(ibv_devinfo -d rxe1 | awk '/active_mtu/{print $2; exit}')
[ -n "$mtu" ] || die "cannot read rxe1's active MTU"

for kind in write read; do
	tool=ib_${kind}_bw
	# stdbuf: perftest's stdout is block-buffered into a file; we wait for its banner
	bg_start $tool-server stdbuf -oL $tool -R -d rxe0 -F -s $SIZE -D $DUR -p $PORT
	spid=$BG_PID
	# perftest's rdma_cm server is ready when it says it waits for the client
	wait_for_line 30 "$T_WORK/$tool-server.log" 'Waiting for client' $spid ||
		{ bg_log $tool-server; die "$tool server did not start"; }
	# the banner comes just before rdma_cm starts listening: wait for the listener
	wait_for 30 rdma_listening $PORT ||
		{ bg_log $tool-server; rdma res show cm_id; die "$tool server: no RDMA CM listener on port $PORT"; }
	tx0=$(rxe_counter rxe1 sent_pkts) rx0=$(rxe_counter rxe1 rcvd_pkts)
	timeout 120 $tool -R -d rxe1 -F -s $SIZE -D $DUR -p $PORT 10.99.0.1 > $tool-client.log 2>&1
	crc=$?
	bg_wait $tool-server 60; src=$?
	tx=$(($(rxe_counter rxe1 sent_pkts) - tx0)) rx=$(($(rxe_counter rxe1 rcvd_pkts) - rx0))
	cat $tool-client.log
	[ $crc = 0 ] || { bg_log $tool-server; die "$tool client exited with $crc"; }
	[ $src = 0 ] || { bg_log $tool-server; die "$tool server exited with $src"; }

	# the result line follows the "#bytes #iterations BW peak BW average MsgRate" header
	read -r bytes iters peak avg rate < <(awk '/#bytes/{getline; print; exit}' $tool-client.log)
	[ "${bytes:-}" = $SIZE ] || die "$tool: no result line"
	[ "${iters:-0}" -gt 0 ] || die "$tool: ran 0 iterations"
	moved=$((iters * SIZE))
	# write: rxe1 sends the data; read: rxe1 receives it. Each packet carries <= MTU bytes.
	if [ $kind = write ]; then pk=$tx; else pk=$rx; fi
	[ $((pk * mtu)) -ge $moved ] ||
		die "$tool: rxe1 saw $pk packets (x $mtu B MTU) for $moved bytes: the data did not cross rxe1"
	est=$(awk -v b=$moved -v d=$DUR 'BEGIN{printf "%.2f", b / d / 1e6}')
	log "$tool -R rxe1 <-> rxe0: $iters x $SIZE B in ${DUR}s = ~$est MB/s (perftest says average $avg MB/s, peak $peak); rxe1 packets +$tx sent +$rx received"
done
