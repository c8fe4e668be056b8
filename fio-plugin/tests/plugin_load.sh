#!/bin/bash
# plugin_load.sh LIBRBLK_FIO_SO: what can be checked of the fio plugin without RDMA.
#   - the installed fio loads it (its engine ABI version matches: fio refuses a
#     mismatch with "bad ioops version") and lists the engine options;
#   - a filename that is no transport ID and a target no RDMA device can reach (from
#     threads and from processes) each end fio with a non-zero status and a sentence
#     that says why, quickly (no hang).
set -u
SO=${1:?usage: plugin_load.sh LIBRBLK_FIO_SO}
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

out=$(fio --enghelp="$SO" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^traddr ' <<< "$out" && grep -q '^subnqn ' <<< "$out" &&
	grep -q '^queue_size ' <<< "$out" && grep -q '^qpairs ' <<< "$out" &&
	grep -q '^dhchap_secret ' <<< "$out" &&
	grep -q '^dhchap_ctrl_secret ' <<< "$out" && grep -q '^io_timeout ' <<< "$out" &&
	grep -q '^iopolicy ' <<< "$out"; then
	ok "fio --enghelp loads the plugin and lists its options"
else
	bad "fio --enghelp=$SO (rc $rc): $out"
fi

# run_fio NAME EXPECTED_REGEX FIO_ARGS...: fio must fail (rc != 0) within 60 s and
# print EXPECTED_REGEX.
run_fio() {
	local name=$1 re=$2 rc
	shift 2
	timeout 60 fio --name="$name" --ioengine=external:"$SO" --rw=read --bs=4k "$@" > "$name.log" 2>&1
	rc=$?
	if [ $rc -eq 124 ]; then
		bad "$name: fio did not finish within 60 s"
	elif [ $rc -eq 0 ]; then
		bad "$name: fio exited 0"
	elif ! grep -qE -- "$re" "$name.log"; then
		bad "$name: no '$re' in the output:"; sed 's/^/  | /' "$name.log"
	elif grep -qiE 'segmentation|core dumped|assert' "$name.log"; then
		bad "$name: fio crashed:"; sed 's/^/  | /' "$name.log"
	else
		ok "$name: rc $rc, '$(grep -m1 -oE -- "$re" "$name.log")'"
	fi
}

run_fio bad-filename "'/dev/nvme0n1' is not KEY=VALUE.*\\\\:" --thread=1 --filename=/dev/nvme0n1
# An NQN with an unescaped ':' reaches the engine in two pieces: nothing connects.
run_fio unescaped-colon "'disk' is not KEY=VALUE" --thread=1 \
	--filename='trtype=RDMA traddr=127.0.0.1 subnqn=nqn.2024-01.io.rblk:disk ns=1'
run_fio bad-key "unknown key 'bogus'" --thread=1 --filename='traddr=127.0.0.1 subnqn=n bogus=1'
run_fio no-subnqn "no subsystem NQN" --thread=1 --filename='traddr=127.0.0.1 ns=1'
run_fio tcp "only RDMA" --thread=1 --filename='trtype=TCP traddr=127.0.0.1 subnqn=n'
# The port rule of every rblk program: decimal, in the filename and in the option alike.
run_fio hex-port "trsvcid '0x1144': must be a decimal number 1-65535" --thread=1 \
	--filename='traddr=127.0.0.1 trsvcid=0x1144 subnqn=n'
run_fio hex-port-option "trsvcid '0x1144': must be a decimal number 1-65535" --thread=1 \
	--filename='traddr=127.0.0.1 subnqn=n' --trsvcid=0x1144
run_fio qpairs-0 "qpairs: min value out of range: 0" --thread=1 --qpairs=0 \
	--filename='traddr=127.0.0.1 subnqn=n ns=1'
# With processes (no thread=1) a helper child sizes the namespace: its failure too
# reaches fio as a sentence.
run_fio processes "cannot connect to traddr=127.0.0.1" --filename='traddr=127.0.0.1 subnqn=n ns=1'
# Without an RDMA device for it (this host has none; in the VM, 127.0.0.1 has none
# either) the connect fails at address resolution with a reason.
run_fio unreachable "cannot connect to traddr=127.0.0.1 trsvcid=4420 subnqn=nqn.x" --thread=1 \
	--filename='trtype=RDMA adrfam=IPv4 traddr=127.0.0.1 trsvcid=4420 subnqn=nqn.x ns=1' \
	--connect_timeout=2000
# DH-HMAC-CHAP secrets are checked before anything connects, and never echoed.
run_fio bad-secret "dhchap_secret: not a DHHC-1 secret" --thread=1 \
	--filename='traddr=127.0.0.1 subnqn=n ns=1' --dhchap_secret='DHHC-1:01:c2VjcmV0:'
grep -q 'c2VjcmV0' bad-secret.log && bad "bad-secret: the secret is echoed"
run_fio ctrl-secret-alone "dhchap_ctrl_secret needs dhchap_secret" --thread=1 \
	--filename='traddr=127.0.0.1 subnqn=n ns=1' --dhchap_ctrl_secret='DHHC-1:00:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAl7OaH:'
# A valid secret passes the check: the connect itself fails (no RDMA device here).
run_fio good-secret "cannot connect to traddr=127.0.0.1" --thread=1 \
	--filename='traddr=127.0.0.1 subnqn=n ns=1' --dhchap_secret='DHHC-1:00:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAl7OaH:' --connect_timeout=2000
# The multipath policy is checked before anything connects, by the library's own names.
run_fio bad-iopolicy "iopolicy numa: first, round-robin or queue-depth" --thread=1 \
	--filename='traddr=127.0.0.1,127.0.0.2 subnqn=n ns=1' --iopolicy=numa
run_fio io-timeout-range "io_timeout: min value out of range: -2" --thread=1 --io_timeout=-2 \
	--filename='traddr=127.0.0.1 subnqn=n ns=1'

[ $fails -eq 0 ] && { echo "all fio plugin load checks passed"; exit 0; }
echo "$fails check(s) failed"
exit 1
