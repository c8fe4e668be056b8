#!/bin/bash
# cli_main_test.sh RBLK: the whole `rblk` program, built on the fake initiator library
# (tests/unit/cli/fake_initiator.c), run as users run it: every verb's exit codes, messages, help,
# normal and JSON output. No RDMA needed.
set -u
RBLK=$(realpath "${1:?usage: cli_main_test.sh PATH/TO/rblk-fake}")
# gen-dhchap-key known answers (tests/unit/auth/make_vectors.py)
VEC=$(realpath "$(dirname "$0")/../auth/vectors.h")
command -v jq >/dev/null || { echo "SKIP: jq not installed (scripts/install-deps.sh)"; exit 77; }
WORK=$(mktemp -d /tmp/rblk-cli-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export RBLK_FAKE_DIR=$WORK
cd "$WORK" || exit 1

NQN=nqn.2024-01.io.rblk:fake
T="-t rdma -a 192.0.2.1 -s 4420 -n $NQN"
fails=0 n=0

# expect CODE DESCRIPTION CMD...: run rblk, check the exit code; output in out.txt/err.txt
expect() {
	local want=$1 what=$2 rc
	shift 2
	n=$((n + 1))
	"$RBLK" "$@" > out.txt 2> err.txt < /dev/null
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $what: exit $rc, wanted $want: rblk $*"
		sed 's/^/  stderr: /' err.txt | head -5
		fails=$((fails + 1))
		return 1
	fi
	return 0
}

# has FILE REGEX DESCRIPTION
has() {
	n=$((n + 1))
	grep -qE -- "$2" "$1" && return 0
	echo "FAIL: $3: no /$2/ in $1"
	sed 's/^/  /' "$1" | head -10
	fails=$((fails + 1))
}

# jqtest FILTER DESCRIPTION: jq -e on out.txt
jqtest() {
	n=$((n + 1))
	jq -e "$1" out.txt > /dev/null && return 0
	echo "FAIL: $2: jq '$1' on:"
	head -20 out.txt | sed 's/^/  /'
	fails=$((fails + 1))
}

# ---- help, version, usage errors
expect 0 "--version" --version && has out.txt '^rblk version [0-9]+\.[0-9]+\.[0-9]+$' "--version output"
expect 0 "version -o json" version -o json && jqtest '.version | test("^[0-9]")' "version JSON"
expect 0 "--help" --help && has out.txt 'Exit status:' "--help lists exit codes"
expect 2 "no verb"
expect 2 "unknown verb" frobnicate && has err.txt "unknown verb 'frobnicate'" "unknown verb message"
expect 2 "unknown global option" --bogus discover
for v in discover id-ctrl id-ns list read write bench attach detach doctor gen-hostnqn gen-dhchap-key; do
	expect 0 "$v --help" $v --help && has out.txt '^Examples:' "$v --help has EXAMPLES" &&
		has out.txt '^Usage: rblk '"$v" "$v --help usage line"
	expect 0 "help $v" help $v
done
expect 2 "unknown option" id-ctrl $T --bogus && has err.txt "unknown option '--bogus'" "unknown option message"
expect 2 "missing value" id-ctrl -a && has err.txt "option '-a' needs a value" "missing value message"
expect 2 "stray argument" list $T extra && has err.txt "unexpected argument 'extra'" "stray argument message"
expect 2 "no address" id-ctrl -n $NQN && has err.txt "no target address" "no address message"
expect 2 "no NQN" id-ctrl -a 192.0.2.1 && has err.txt "no subsystem NQN" "no NQN message"
expect 2 "tcp transport" discover -t tcp -a 192.0.2.1 && has err.txt "only the rdma transport" "transport message"
expect 2 "bad port" discover -a 192.0.2.1 -s 99999 &&
	has err.txt "invalid value '99999' for -s: the port must be a decimal number 1-65535" "bad port message"
# A port in hex used to pass here (base 0) and fail only in the library.
expect 2 "hex port" id-ctrl $T -s 0x1144 &&
	has err.txt "invalid value '0x1144' for -s: the port must be a decimal number 1-65535" "hex port message"
expect 2 "hex port in a transport ID" id-ctrl -r "traddr=192.0.2.1 trsvcid=0x1144 subnqn=$NQN" &&
	has err.txt "trsvcid '0x1144': must be a decimal number 1-65535" "hex trsvcid message"
expect 2 "NQN with a space" id-ctrl -a 192.0.2.1 -n 'nqn.2024-01.io.example:a b' &&
	has err.txt "for -n: the NQN contains a space" "NQN message"
expect 2 "io-timeout 0" read $T -N 1 --io-timeout 0 &&
	has err.txt "invalid value '0' for --io-timeout: seconds \(1..4294967\), or -1 for never" "io-timeout message"
expect 2 "bad iopolicy" attach $T -a 192.0.2.2 -N 1 --iopolicy numa &&
	has err.txt "invalid value 'numa' for --iopolicy: first, round-robin or queue-depth" "iopolicy message"
expect 2 "bad queue size" id-ctrl $T -Q 4
expect 2 "bad hostid" id-ctrl $T -I nope
expect 2 "bad -o" discover -a 192.0.2.1 -o xml && has err.txt "unknown output format 'xml'" "-o message"
expect 2 "bad trid" discover -r 'trtype=RDMA color=red' && has err.txt "unknown key 'color'" "trid message"
expect 2 "bad size" read $T -N 1 --length 1.5M && has err.txt "invalid size '1.5M' for --length: it must be a whole number" "size message"

# ---- discover
expect 0 "discover" discover -t rdma -a 192.0.2.1 -s 4420 &&
	has out.txt '^=====Discovery Log Entry 1======$' "discover entry header" &&
	has out.txt "^subnqn:  $NQN\$" "discover subnqn line" &&
	has out.txt '^rdma_cms:    rdma-cm$' "discover rdma_cms"
expect 0 "discover -o json" discover -a 192.0.2.1 -o json &&
	jqtest '.genctr == 7 and (.records | length) == 2' "discover JSON records" &&
	jqtest ".records[1].subnqn == \"$NQN\" and .records[1].trtype == \"rdma\"" "discover JSON keys"
expect 0 "discover with a transport ID" discover -r 'trtype:RDMA adrfam:IPv4 traddr:192.0.2.1 trsvcid:4420'
expect 4 "unreachable" discover -a 192.0.2.99 && has err.txt 'No route to host' "unreachable message" &&
	has err.txt 'rblk doctor' "unreachable hint"
expect 4 "timeout" id-ctrl -a 192.0.2.98 -n $NQN && has err.txt 'timed out' "timeout message"

# ---- id-ctrl, id-ns, list
expect 0 "id-ctrl" id-ctrl $T && has out.txt '^mn        : rblk fake controller$' "id-ctrl mn"
expect 0 "id-ctrl -o json" id-ctrl $T -o json && jqtest '.vid == 6966 and .sn == "FAKE0001" and .nn == 3' "id-ctrl JSON"
expect 5 "unknown NQN" id-ctrl -a 192.0.2.1 -n nqn.2024-01.io.rblk:nope &&
	has err.txt 'Connect Invalid Parameters \(0x4182\)' "unknown NQN status name" &&
	has err.txt 'rblk discover' "unknown NQN hint"
expect 3 "refused host" id-ctrl -a 192.0.2.1 -n nqn.2024-01.io.rblk:refused &&
	has err.txt 'Connect Invalid Host \(0x4184\)' "refused status name"
expect 0 "id-ns -N 2" id-ns $T -N 2 && has out.txt '^NVME Identify Namespace 2:$' "id-ns header" &&
	has out.txt 'lbads:12 rp:0 \(in use\)' "id-ns format in use"
expect 0 "id-ns via trid ns=" id-ns -r "traddr=192.0.2.1 subnqn=$NQN ns=1" -o json && jqtest '.nsze == 2048' "id-ns JSON"
expect 2 "id-ns, several namespaces" id-ns $T && has err.txt 'several namespaces \(1, 2, 3\)' "id-ns choice message"
expect 5 "id-ns inactive" id-ns $T -N 9 && has err.txt 'namespace 9 is not an active namespace' "inactive message"
expect 2 "id-ns NSID 0" id-ns $T -N 0
expect 0 "list" list $T && has out.txt '^3 +FAKE0001' "list row"
expect 0 "list -o json" list $T -o json &&
	jqtest '(.Devices | length) == 3 and .Devices[1].SectorSize == 4096 and .Devices[0].PhysicalSize == 1048576' "list JSON"

# ---- in-band authentication: -S / -C (the fake's :auth subsystem wants S1, and S2 as controller key)
S1='DHHC-1:00:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAl7OaH:'
S2='DHHC-1:02:ZWZnaGlqa2xtbm9wcXJzdHV2d3h5ent8fX5/gIGCg4SFhoeIiYqLjI2Oj5CRkpOUeJdF8g==:'
A="-t rdma -a 192.0.2.1 -n nqn.2024-01.io.rblk:auth"
expect 0 "auth: host secret" id-ctrl $A -S "$S1"
expect 0 "auth: bidirectional, long options" id-ctrl $A --dhchap-secret="$S1" --dhchap-ctrl-secret "$S2"
expect 0 "auth: discover takes -S too" discover -a 192.0.2.1 -S "$S1"
expect 3 "auth: no secret" id-ctrl $A && has err.txt 'Permission denied' "auth refusal errno" &&
	has err.txt 'hint: in-band authentication failed.*--dhchap-secret' "auth refusal hint"
expect 3 "auth: wrong host secret" id-ctrl $A -S "$S2"
expect 3 "auth: wrong controller secret" id-ctrl $A -S "$S1" -C "$S1"
expect 2 "auth: not DHHC-1" id-ctrl $A -S 'DHHC-1:00:c2VjcmV0LXRleHQ=:' &&
	has err.txt 'invalid value for -S \(--dhchap-secret\): not a DHHC-1 secret' "bad secret message"
n=$((n + 1))
grep -q 'c2VjcmV0' err.txt && { echo "FAIL: the bad secret is echoed"; fails=$((fails + 1)); }
expect 2 "auth: bad CRC" id-ctrl $A -S "${S1/AQID/AQIE}" && has err.txt 'not a DHHC-1 secret' "bad CRC message"
expect 2 "auth: bad controller secret" id-ctrl $A -S "$S1" -C nope &&
	has err.txt 'invalid value for -C \(--dhchap-ctrl-secret\)' "bad -C message"
expect 2 "auth: controller secret alone" id-ctrl $A -C "$S2" &&
	has err.txt '--dhchap-ctrl-secret needs --dhchap-secret' "-C without -S message"
expect 2 "auth: missing value" id-ctrl $A -S && has err.txt "option '-S' needs a value" "-S missing value"
expect 0 "id-ctrl --help lists -S" id-ctrl --help && has out.txt '-S, --dhchap-secret=SECRET' "help -S" &&
	has out.txt '-C, --dhchap-ctrl-secret=SECRET' "help -C"

# ---- read / write
head -c 1048576 /dev/urandom > in.bin
# The mismatch check below zeroes 8192..12287 and expects the first difference at
# 8192: a random zero there (1 run in 256) would move it. Make that byte non-zero.
printf '\377' | dd of=in.bin bs=1 seek=8192 conv=notrunc status=none
expect 0 "write whole namespace, verify" write $T -N 1 -d in.bin --verify --qd 4 &&
	has err.txt '^1048576 bytes \(1.00 MiB\) written and verified' "write summary"
expect 0 "read it back" read $T -N 1 -d out.bin --no-progress && cmp -s in.bin out.bin ||
	{ echo "FAIL: read back differs"; fails=$((fails + 1)); }
expect 0 "read --verify" read $T -N 1 -d in.bin --verify
expect 0 "read to stdout" read $T -N 1 --lba 8 --length 4k --quiet && cmp -s out.txt <(tail -c +4097 in.bin | head -c 4096) ||
	{ echo "FAIL: read to stdout differs"; fails=$((fails + 1)); }
head -c 4096 /dev/zero > zero.bin
expect 0 "write -o json" write $T -N 1 --offset 8192 -d zero.bin --fua -o json &&
	jqtest '.bytes == 4096 and .offset == 8192 and .verified == false' "write JSON"
expect 6 "read --verify mismatch" read $T -N 1 -d in.bin --verify && has err.txt 'differs from the file at byte offset 8192' "mismatch offset"
expect 2 "unaligned offset" read $T -N 1 --offset 1000 -d x.bin && has err.txt 'not a multiple of the block size 512' "unaligned message"
expect 2 "unaligned length" read $T -N 1 --length 1000 -d x.bin
expect 2 "past the end" read $T -N 1 --offset 1M --length 512 -d x.bin && has err.txt 'past the end of the namespace' "range message"
expect 2 "LBA past the end" read $T -N 1 --lba 4096 -d x.bin

# ---- compare, compare-write, verify, copy (blocks 16..23 hold zeros now)
head -c 4096 in.bin > first4k.bin
head -c 4096 /dev/urandom > new.bin
expect 0 "compare match" compare $T -N 1 --start-block 0 --block-count 7 -d first4k.bin &&
	has out.txt 'the blocks match' "compare match message"
expect 6 "compare mismatch" compare $T -N 1 --start-block 16 --block-count 7 -d first4k.bin -o json &&
	jqtest '.match == false and .slba == 16 and .nlb == 8' "compare mismatch JSON"
expect 2 "compare --data-size" compare $T -N 1 --start-block 0 --block-count 7 -d first4k.bin --data-size 512 &&
	has err.txt -- '--data-size 512 is not' "--data-size message"
expect 2 "compare short file" compare $T -N 1 --start-block 0 --block-count 15 -d first4k.bin &&
	has err.txt 'holds 4096 bytes; the range is 8192' "short file message"
expect 2 "compare without -d" compare $T -N 1 --start-block 0 --block-count 7
expect 0 "compare-write match" compare-write $T -N 1 --start-block 16 --block-count 7 --expect zero.bin -d new.bin -o json &&
	jqtest '.written == true' "compare-write JSON"
expect 6 "compare-write mismatch" compare-write $T -N 1 --start-block 16 --block-count 7 --expect zero.bin -d first4k.bin &&
	has out.txt 'differ, nothing written' "compare-write mismatch message"
expect 0 "compare-write left the first write" compare $T -N 1 --start-block 16 --block-count 7 -d new.bin
expect 2 "compare-write over one command" compare-write $T -N 1 --start-block 0 --block-count 511 --expect zero.bin -d new.bin &&
	has err.txt 'compare-write is one command: at most 131072 bytes' "compare-write size message"
expect 2 "compare-write without --expect" compare-write $T -N 1 --start-block 0 --block-count 7 -d new.bin
expect 0 "verify" verify $T -N 1 --start-block 0 --block-count 2047 && has out.txt '2048 blocks from 0 are readable' "verify message"
expect 2 "verify past the end" verify $T -N 1 --start-block 2047 --block-count 1 && has err.txt 'past the end' "verify range message"
expect 2 "verify --block-count 65536" verify $T -N 1 --start-block 0 --block-count 65536
expect 0 "copy" copy $T -N 1 --sdlba 100 --slbs 0,16 --blocks 7,7 && has out.txt '2 ranges copied to block 100' "copy message"
expect 0 "read the copy" read $T -N 1 --lba 100 --length 8k --quiet &&
	cmp -s out.txt <(cat first4k.bin new.bin) || { echo "FAIL: copied data differs"; fails=$((fails + 1)); }
expect 2 "copy uneven lists" copy $T -N 1 --sdlba 100 --slbs 0,16 --blocks 7 && has err.txt 'one count per --slbs entry' "copy lists message"
expect 2 "copy past the end" copy $T -N 1 --sdlba 2047 --slbs 0 --blocks 7 && has err.txt 'destination' "copy range message"
expect 2 "copy without --sdlba" copy $T -N 1 --slbs 0 --blocks 7
# ---- reservations (the fake keeps one host's registration)
expect 0 "resv-register" resv-register $T -N 1 --nrkey 0xabc --cptpl 3 && has out.txt 'Register success' "register message"
expect 0 "resv-acquire" resv-acquire $T -N 1 --crkey 0xabc --rtype 1
expect 0 "resv-report JSON" resv-report $T -N 1 -o json &&
	jqtest '.rtype == 1 and .regctl == 1 and .ptpls and .registrants[0].rkey == "0xabc" and .registrants[0].holder' "resv-report JSON"
expect 0 "resv-report --eds" resv-report $T -N 1 --eds &&
	has out.txt 'hostid  : abababababababababababababababab' "128-bit host ID" && has out.txt 'Write Exclusive' "type name"
expect 3 "resv-acquire with a wrong key" resv-acquire $T -N 1 --crkey 0xdef --rtype 1 && has err.txt 'Reservation Conflict' "conflict message"
expect 2 "resv-acquire without --rtype" resv-acquire $T -N 1 --crkey 1
expect 2 "resv-acquire --rrega" resv-acquire $T -N 1 --crkey 1 --rtype 1 --rrega 1 && has err.txt -- '--racqa is' "action option message"
expect 2 "resv-acquire preempt without --prkey" resv-acquire $T -N 1 --crkey 1 --rtype 1 --racqa 2 && has err.txt -- '--prkey' "prkey message"
expect 2 "resv-register bad key" resv-register $T -N 1 --nrkey 12k && has err.txt "invalid key '12k'" "key message"
expect 2 "resv-register --cptpl 1" resv-register $T -N 1 --nrkey 1 --cptpl 1
expect 2 "resv-report --crkey" resv-report $T -N 1 --crkey 1 && has err.txt 'not an option of resv-report' "option message"
expect 0 "resv-release" resv-release $T -N 1 --crkey 0xabc --rtype 1
expect 0 "resv-register unregister" resv-register $T -N 1 --crkey 0xabc --rrega 1
expect 0 "resv-report empty" resv-report $T -N 1 -o json && jqtest '.regctl == 0 and .rtype == 0' "empty report"
expect 2 "offset and lba" read $T -N 1 --offset 0 --lba 0 -d x.bin
expect 2 "4k namespace, 512 bs" read $T -N 2 --bs 512 -d x.bin
head -c 1000 /dev/zero > odd.bin
expect 2 "odd-sized input" write $T -N 1 -d odd.bin && has err.txt 'not a multiple of the block size' "odd input message"
expect 2 "input too large" write $T -N 3 -d in.bin
expect 3 "write-protected namespace" write $T -N 3 -d zero.bin && has err.txt 'write-protected' "ro message"
expect 2 "read -o json to stdout" read $T -N 1 -o json
# one I/O queue: the copy holds it, so its closing Flush must go through it too
RBLK_FAKE_IO_QUEUES=1 expect 0 "write with one I/O queue" write $T -N 1 -d zero.bin
RBLK_FAKE_IO_QUEUES=1 expect 0 "bench, more jobs than queues" bench $T -N 1 --numjobs 4 --time 0.2 --no-counters &&
	has err.txt 'gave 1 I/O queues: running 1 job with 1 queue each' "jobs clamped"
# without -i, bench asks for the queues its jobs take (the fake grants what is asked)
expect 0 "bench asks for its queues" bench $T -N 1 --numjobs 3 --qpairs 2 --time 0.2 --no-counters -o json &&
	jqtest '.params.numjobs == 3 and .params.qpairs == 2' "asked-for queues JSON"
RBLK_FAKE_IO_QUEUES=3 expect 0 "bench, more queues than the controller has" bench $T -N 1 --numjobs 2 --qpairs 2 \
	--time 0.2 --no-counters -o json && has err.txt 'gave 3 I/O queues: running 2 jobs with 1 queue each' \
	"queues clamped" && jqtest '.params.numjobs == 2 and .params.qpairs == 1' "clamped params JSON"
RBLK_FAKE_FAIL_LBA=100 expect 3 "target read error" read $T -N 1 -d x.bin &&
	has err.txt 'NVMe status: Unrecovered Read Error' "read error status"
expect 2 "--fua on read" read $T -N 1 --fua -d x.bin

# ---- bench
expect 0 "bench -o json" bench $T -N 1 --time 0.3 --qd 4 -o json &&
	jqtest '.results.iops > 0 and .results.read.lat_us.p50 > 0 and (.results.read.histogram | length) > 0' "bench JSON" &&
	jqtest '.rdma_check.verdict == "unknown"' "bench counter check without RDMA"
expect 2 "bench write without --force" bench $T -N 1 --rw randwrite --time 0.1 && has err.txt 'add --force' "force message"
expect 0 "bench randrw verify" bench $T -N 1 --rw randrw --verify --force --time 0.3 --no-counters -o json &&
	jqtest '.results.verify.mismatches == 0 and .results.verify.reads_checked > 0' "bench verify JSON"
expect 0 "bench verify over 2 queues" bench $T -N 1 --rw randrw --qpairs 2 --qd 5 --verify --force --time 0.3 \
	--no-counters -o json &&
	jqtest '.params.qpairs == 2 and .results.verify.mismatches == 0 and .results.verify.reads_checked > 0' \
	"2-queue verify JSON"
expect 2 "bench --qpairs 0" bench $T -N 1 --qpairs 0 && has err.txt "invalid --qpairs '0' \\(1\\.\\.16\\)" "qpairs message"
expect 2 "bench --qpairs 17" bench $T -N 1 --qpairs 17
expect 0 "bench sweep" bench $T -N 1 --sweep --sweep-min 512 --sweep-max 4k --sweep-time 0.1 --no-counters &&
	has out.txt '^ #bytes +#iterations +BW peak\[MB/sec\] +BW average\[MB/sec\]' "sweep header" &&
	has out.txt '^ 4096 ' "sweep 4096 row"
expect 0 "bench save baseline" bench $T -N 1 --time 0.3 --qd 4 --no-counters --save-baseline base.json &&
	jq -e '.rblk_bench_baseline == 1 and (.figures | length) == 6' base.json > /dev/null ||
	{ echo "FAIL: baseline file"; fails=$((fails + 1)); }
expect 0 "bench compare, wide threshold" bench $T -N 1 --time 0.3 --qd 4 --no-counters --compare base.json --threshold 100000
jq '.figures["randread.bs4096.qd4.read.iops"].value *= 1000' base.json > fast.json
expect 6 "bench compare, slower than baseline" bench $T -N 1 --time 0.3 --qd 4 --no-counters --compare fast.json -o json &&
	jqtest '.baseline.worse >= 1' "compare JSON"
expect 2 "bench bad --rw" bench $T --rw sideways

# ---- doctor, gen-hostnqn, attach/detach without a kernel
mkdir -p root/sys root/proc
expect 6 "doctor without RDMA" doctor --root "$WORK/root" && has out.txt '^\[FAIL\] rdma devices: no RDMA device' "doctor verdict" &&
	has out.txt 'modprobe rdma_rxe && rdma link add rxe0 type rxe netdev' "doctor fix"
expect 6 "doctor -o json" doctor --root "$WORK/root" -o json && jqtest '.summary.fail == 1 and (.checks | length) > 3' "doctor JSON"
expect 0 "gen-hostnqn" gen-hostnqn && has out.txt '^nqn\.2014-08\.org\.nvmexpress:uuid:[0-9a-f-]{36}$' "hostnqn form"

# ---- gen-dhchap-key: the DHHC-1 line, nvme-cli 2.3's output for the same options
# key_ok FILE ID LEN: one line DHHC-1:ID:<base64 of LEN key bytes + CRC-32 LE>: whose CRC holds
key_ok() {
	n=$((n + 1))
	if python3 - "$1" "$2" "$3" <<'PY'; then return 0; fi
import base64, sys, zlib
lines = open(sys.argv[1]).read().split("\n")
assert len(lines) == 2 and lines[1] == "", "not exactly one line"
line = lines[0]
assert line.startswith("DHHC-1:%s:" % sys.argv[2]) and line.endswith(":"), line
raw = base64.b64decode(line[10:-1], validate=True)
key, crc = raw[:-4], raw[-4:]
assert len(key) == int(sys.argv[3]), "key of %d bytes" % len(key)
assert zlib.crc32(key).to_bytes(4, "little") == crc, "CRC"
PY
	echo "FAIL: gen-dhchap-key output is not a DHHC-1 secret (id $2, $3 bytes):"
	sed 's/^/  /' "$1"
	fails=$((fails + 1))
}
if command -v python3 >/dev/null; then
	expect 0 "gen-dhchap-key" gen-dhchap-key && key_ok out.txt 00 32
	cp out.txt first.txt
	expect 0 "gen-dhchap-key again" gen-dhchap-key && n=$((n + 1)) &&
		{ ! cmp -s out.txt first.txt || { echo "FAIL: two random secrets are equal"; fails=$((fails + 1)); }; }
	expect 0 "gen-dhchap-key -l 48" gen-dhchap-key -l 48 && key_ok out.txt 00 48
	expect 0 "gen-dhchap-key -m 1" gen-dhchap-key -m 1 && key_ok out.txt 01 32
	expect 0 "gen-dhchap-key --hmac 2" gen-dhchap-key --hmac 2 -n $NQN && key_ok out.txt 02 48
	expect 0 "gen-dhchap-key -m 3 -l 64" gen-dhchap-key -m 3 -l 64 && key_ok out.txt 03 64
else
	echo "note: python3 missing, gen-dhchap-key outputs checked by form only"
	expect 0 "gen-dhchap-key" gen-dhchap-key && has out.txt '^DHHC-1:00:[A-Za-z0-9+/]{48}:$' "secret form"
fi
# Fixed secrets: the outputs tests/unit/auth/make_vectors.py computed (nvme-cli 2.3 prints
# the same). The vector on the fake library's host NQN runs without -n: the default NQN.
fake_hostnqn=$(sed -n 's/^#define VEC_FAKE_HOSTNQN "\(.*\)"$/\1/p' "$VEC")
nvec=0
while read -r secret len nqn hmac want; do
	nqnopt=(--nqn "$nqn")
	[ "$nqn" = "$fake_hostnqn" ] && nqnopt=()
	expect 0 "gen-dhchap-key -s ($hmac/$len)" gen-dhchap-key --secret "$secret" \
		--key-length "$len" "${nqnopt[@]}" --hmac "$hmac" &&
		has out.txt "^$(printf '%s' "$want" | sed 's/[+/.]/\\&/g')\$" "gen-dhchap-key -s -m $hmac -l $len output"
	nvec=$((nvec + 1))
done < <(sed -n '/gen-key-vectors-begin/,/gen-key-vectors-end/{s/^\t{ "\([0-9a-f]*\)", \([0-9]*\), "\([^"]*\)", \([0-9]\), "\([^"]*\)" },$/\1 \2 \3 \4 \5/p}' "$VEC")
want_n=$(sed -n 's/^#define VEC_N_GEN_KEYS \([0-9]*\)$/\1/p' "$VEC")
n=$((n + 1))
[ "$nvec" -gt 0 ] && [ "$nvec" = "$want_n" ] || { echo "FAIL: read $nvec of ${want_n:-?} gen-key vectors"; fails=$((fails + 1)); }
# nvme-cli's refusals, as usage errors
expect 2 "gen-dhchap-key -m 4" gen-dhchap-key -m 4 && has err.txt "invalid HMAC identifier '4'" "-m 4 message"
expect 2 "gen-dhchap-key -m 2 -l 32" gen-dhchap-key -m 2 -l 32 &&
	has err.txt 'key length 32 does not fit -m 2: SHA-384 needs 48 bytes' "-l/-m mismatch message"
expect 2 "gen-dhchap-key -l 40" gen-dhchap-key -l 40 && has err.txt 'invalid key length 40' "-l 40 message"
expect 2 "gen-dhchap-key -s zz" gen-dhchap-key -s zz && has err.txt 'invalid secret: hex digits' "bad hex message"
expect 2 "gen-dhchap-key -s odd" gen-dhchap-key -s 001 && has err.txt 'invalid secret' "odd hex message"
expect 2 "gen-dhchap-key short secret" gen-dhchap-key -s 0011 && has err.txt 'the secret is 2 bytes, the key length 32' "short secret message"
expect 2 "gen-dhchap-key secret for -m 2" gen-dhchap-key -m 2 -s "$(printf '%064d' 0)" &&
	has err.txt 'the secret is 32 bytes, the key length 48' "-m 2 default length message"
expect 2 "gen-dhchap-key stray argument" gen-dhchap-key extra && has err.txt "unexpected argument 'extra'" "stray argument"
expect 2 "gen-dhchap-key empty NQN" gen-dhchap-key -m 1 -n '' && has err.txt 'empty NQN' "empty NQN message"
expect 2 "detach junk" detach /dev/sda
expect 2 "detach nothing" detach
expect 5 "detach missing device" detach /dev/nbd4095
expect 5 "detach missing ublk device" detach /dev/ublkb99999
expect 2 "detach a ublk character device" detach /dev/ublkc0
expect 2 "attach --ublk --nbd" attach $T --ublk --nbd && has err.txt 'exclude each other' "--ublk --nbd message"
expect 0 "attach --help names both drivers" attach --help && has out.txt -- '--ublk' "--ublk in help" &&
	has out.txt -- '--nbd' "--nbd in help"

echo "$((n - fails)) of $n checks passed"
[ $fails -eq 0 ]
