#!/bin/bash
# 45-target-id-smart: the identity and health rblk-target reports, read by the Linux
# host with nvme-cli: id-ctrl (subnqn, mn, sn = the subsystem serial in the target's
# statistics, cntlid = the controller the target logged, mdts, nn, sgls, ioccsz, kas,
# maxcmd), id-ns (nsze/ncap = file size / block size, for 512 B and 4 KiB blocks),
# nvme list, and smart-log counters that move by what was written and read.
# vm-timeout: 300
set -u
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"

TGT=$(rblk_bin daemon/rblk-target) || exit 1
NQN=nqn.2024-01.io.rblk:ident
need_cmd nvme nvme-cli
need_cmd jq jq
modprobe nvme_rdma || die "modprobe nvme_rdma failed"
mkdir -p "$T_OUT" 2>/dev/null
truncate -s 48M "$T_WORK/a.img"
truncate -s 40M "$T_WORK/b.img"

fail() { bg_log target; dmesg | tail -30; die "$*"; }
# field TEXT NAME: the value of "NAME : value" in nvme-cli's normal output
field() { echo "$1" | sed -nE "s/^$2 +: *(.*[^ ]) *\$/\\1/p" | head -1; }
expect() { [ "$2" = "$3" ] || fail "$1 is '$2', expected '$3'"; log "$1 = $2"; }

bg_start target "$TGT" --listen $VM_ADDR0 --subsystem $NQN --ns "$T_WORK/a.img" \
	--ns "$T_WORK/b.img,bs=4096" --allow-any-host --log-level info
TPID=$BG_PID
wait_for_line 60 "$T_WORK/target.log" 'notice: ready' "$TPID" || fail "the target did not start"
DEV=$(nvme_connect_rdma $NQN | tail -1)
[ -b "$DEV" ] || fail "connect failed"
CTRL=/dev/$(basename /sys/class/nvme-fabrics/ctl/nvme* | head -1)
DEV2=$(nvme_wait_ns $NQN 2) || fail "namespace 2 did not appear"
DEV=$(nvme_dev_for_nqn $NQN 1)

# the target's view: its controller id and the subsystem serial
CNT=$(grep -oE "ctrl [0-9]+ on $NQN created" "$T_WORK/target.log" | tail -1 | awk '{print $2}')
kill -USR1 $TPID
# the first dump: complete when its closing brace is there
wait_for_line 30 "$T_WORK/target.log" '^}$' "$TPID" || fail "no statistics after SIGUSR1"
awk '/^\{$/ { buf = ""; on = 1 } on { buf = buf $0 "\n" } /^\}$/ { on = 0; last = buf }
	END { printf "%s", last }' "$T_WORK/target.log" > stats.json
SERIAL=$(jq -r ".subsystems[] | select(.nqn == \"$NQN\") | .serial" stats.json)
[ -n "$SERIAL" ] || fail "no serial for $NQN in the target's statistics"

out=$(nvme id-ctrl "$CTRL") || fail "id-ctrl $CTRL failed"
echo "$out" > "$T_OUT/id-ctrl.txt" 2>/dev/null
expect subnqn "$(field "$out" subnqn)" "$NQN"
expect mn "$(field "$out" mn)" rblk
expect sn "$(field "$out" sn)" "$SERIAL"
expect cntlid "$(( $(field "$out" cntlid) ))" "$CNT"
expect mdts "$(field "$out" mdts)" 8
expect sgls "$(field "$out" sgls)" 0x100005
expect ioccsz "$(field "$out" ioccsz)" 516
expect iorcsz "$(field "$out" iorcsz)" 1
expect kas "$(( $(field "$out" kas) ))" 10
expect maxcmd "$(field "$out" maxcmd)" 128
expect cntrltype "$(field "$out" cntrltype)" 1
nn=$(field "$out" nn)
[ "$nn" -ge 2 ] 2>/dev/null || fail "nn is '$nn': fewer than the 2 namespaces exported"
log "nn = $nn"
expect ver "$(field "$out" ver)" 0x10300
expect fr "$(field "$out" fr | cut -c1-4)" rblk

out=$(nvme id-ns "$DEV") || fail "id-ns $DEV failed"
expect "ns1 nsze" "$(field "$out" nsze)" 0x18000
expect "ns1 ncap" "$(field "$out" ncap)" 0x18000
echo "$out" | grep -qE '^lbaf +0 : .*lbads:9 .*in use' || fail "ns1 lbaf 0 is not 512 B in use"
out=$(nvme id-ns "$DEV2") || fail "id-ns $DEV2 failed"
expect "ns2 nsze" "$(field "$out" nsze)" 0x2800
echo "$out" | grep -qE '^lbaf +[0-9]+ : .*lbads:12 .*in use' || { echo "$out" | grep lbaf; fail "ns2 does not use 4 KiB blocks"; }
expect "ns2 logical block size" "$(blockdev --getss "$DEV2")" 4096
expect "ns1 size" "$(blockdev --getsize64 "$DEV")" $((48 * 1048576))

nvme list > list.txt; cat list.txt
grep -E "^$DEV .* $SERIAL +rblk .* 50\.33 +MB / +50\.33 +MB +512 +B" list.txt >/dev/null ||
	fail "nvme list does not show $DEV as a 50.33 MB rblk namespace with serial $SERIAL"

smart() { nvme smart-log "$CTRL" -o json > "$T_WORK/smart.json" || fail "smart-log failed"; jq -r ".$1" "$T_WORK/smart.json"; }
w0=$(smart data_units_written); c0=$(smart host_write_commands)
r0=$(smart data_units_read); rc0=$(smart host_read_commands)
log "before: data_units_written $w0, host_write_commands $c0, data_units_read $r0, host_read_commands $rc0"
head -c 4M /dev/urandom > pat
dd if=pat of="$DEV" bs=128k oflag=direct status=none || fail "write failed"
dd if="$DEV" of=back bs=128k count=32 iflag=direct status=none || fail "read failed"
cmp pat back || fail "data read back differs"
w1=$(smart data_units_written); c1=$(smart host_write_commands)
r1=$(smart data_units_read); rc1=$(smart host_read_commands)
log "after 4 MiB in 32 writes and 32 reads: data_units_written $w1, host_write_commands $c1, data_units_read $r1, host_read_commands $rc1"
dw=$((w1 - w0)); dc=$((c1 - c0)); dr=$((r1 - r0)); drc=$((rc1 - rc0))
# 4 MiB = 8.2 units of 1000 x 512 bytes
[ $dw -ge 8 ] && [ $dw -le 9 ] || fail "data_units_written grew by $dw, not 8-9 (4 MiB)"
[ $dc = 32 ] || fail "host_write_commands grew by $dc, not 32"
[ $dr -ge 8 ] && [ $dr -le 10 ] || fail "data_units_read grew by $dr, not 8-10 (4 MiB, + any probing)"
[ $drc -ge 32 ] && [ $drc -le 64 ] || fail "host_read_commands grew by $drc, not 32 (+ any probing)"
expect critical_warning "$(smart critical_warning)" 0
expect media_errors "$(smart media_errors)" 0

timeout 60 nvme disconnect -n $NQN | grep -q 'disconnected 1 controller' || fail "disconnect failed"
bg_stop target; rc=$?
cp "$T_WORK/target.log" "$T_OUT/" 2>/dev/null
[ $rc = 0 ] || fail "the target exited with $rc on SIGTERM"
log "PASS"
