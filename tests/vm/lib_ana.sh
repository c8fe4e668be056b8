# lib_ana.sh: two rblk-target processes that present ONE subsystem on two ports, as
# test 56 sets them up; sourced after lib.sh. A listens on $VM_ADDR0:4420 (cntlids
# 1..999), B on $VM_ADDR0:4421 (1000..1999); both export the file $IMG as namespace 1
# with the same serial, model, UUID and NGUID, in ANA group 1.
#
#   ANA_NQN         the subsystem NQN (set before sourcing, or the default below)
#   ANA_SERIAL, ANA_MODEL, ANA_UUID, ANA_NGUID   the identity both present (likewise)
#   IMG             the shared backing file, or any namespace device path such as
#                   rbd:POOL/IMAGE (lib_rbd.sh; set before ana_cfg)
#   ana_cfg NAME STATE      write target NAME's (A or B) nvmetcli JSON, group 1 in STATE
#   ana_start NAME          start it from that JSON, wait for "ready"; pid in PID_<NAME>
#   ana_writes NAME         its namespace's write command count (SIGUSR1 statistics)
#   ana_wrote NAME N        true when that count exceeds N (for wait_for)
#   first_write_on NAME BEFORE LIMIT   seconds (at most LIMIT) until NAME's write count
#                           exceeds BEFORE: when an initiator's I/O reached it
#   kill_a TAG              SIGKILL A, keep its log as A-killed-TAG.log
#
# The shared medium is a file on the VM's tmpfs: both targets run in the same kernel,
# whose page cache is per inode, and rblk keeps no cache of its own, so what A wrote
# is what B reads.

ANA_NQN=${ANA_NQN:-nqn.2024-01.io.rblk:ana-mpath}
ANA_SERIAL=${ANA_SERIAL:-ANAMPATH0001}
ANA_MODEL=${ANA_MODEL:-rblk ana multipath}
ANA_UUID=${ANA_UUID:-5e1f0c2a-9b7d-4e36-8a41-0d2c6b9e7f13}
ANA_NGUID=${ANA_NGUID:-a1b2c3d4-e5f6-4789-8abc-def012345678}
ANA_TGT=$(rblk_bin daemon/rblk-target) || exit 1

# ana_cfg NAME STATE
ana_cfg() {
	local svc=4420 lo=1 hi=999
	[ "$1" = B ] && { svc=4421; lo=1000; hi=1999; }
	cat > "$T_WORK/$1.json.new" <<JSON
{ "ports": [ { "portid": 1, "subsystems": [ "$ANA_NQN" ],
    "addr": { "trtype": "rdma", "adrfam": "ipv4", "traddr": "$VM_ADDR0", "trsvcid": "$svc",
              "treq": "not specified" },
    "ana_groups": [ { "grpid": 1, "ana": { "state": "$2" } } ] } ],
  "subsystems": [ { "nqn": "$ANA_NQN",
    "attr": { "allow_any_host": "1", "serial": "$ANA_SERIAL", "model": "$ANA_MODEL",
              "cntlid_min": "$lo", "cntlid_max": "$hi" },
    "namespaces": [ { "nsid": 1, "enable": 1, "ana_grpid": 1,
      "device": { "path": "$IMG", "uuid": "$ANA_UUID",
                  "nguid": "$ANA_NGUID" } } ] } ] }
JSON
	mv "$T_WORK/$1.json.new" "$T_WORK/$1.json"
}

# ana_start NAME
ana_start() {
	bg_start "$1" "$ANA_TGT" --config "$T_WORK/$1.json" --log-level info
	printf -v "PID_$1" %s "$BG_PID"
	wait_for_line 60 "$T_WORK/$1.log" 'notice: ready' "$BG_PID" || fail "target $1 did not start"
}

# ana_writes NAME: SIGUSR1 makes the target print its statistics as JSON on stderr (its log)
ana_writes() {
	local pid=PID_$1 f=$T_WORK/$1.log n i
	n=$(grep -c '"write_cmds"' "$f")
	kill -USR1 "${!pid}" || return 1
	for i in $(seq 50); do
		[ "$(grep -c '"write_cmds"' "$f")" -gt "$n" ] && break
		sleep 0.2
	done
	grep -oE '"write_cmds": *[0-9]+' "$f" | tail -1 | grep -oE '[0-9]+$'
}

# ana_wrote NAME N
ana_wrote() { [ "$(ana_writes "$1")" -gt "$2" ]; }

first_write_on() {
	local t0=$SECONDS n
	while [ $((SECONDS - t0)) -lt "$3" ]; do
		n=$(ana_writes "$1")
		[ "${n:-0}" -gt "$2" ] && { echo $((SECONDS - t0)); return 0; }
		sleep 0.5
	done
	return 1
}

kill_a() {
	kill -KILL "$PID_A"
	wait "$PID_A" 2>/dev/null
	mv "$T_WORK/A.log" "$T_WORK/A-killed-$1.log"
}
