#!/bin/bash
# The rblk-target daemon end to end over the fake target API (no RDMA):
# exit codes, --check (the start-up check, without the start), strict vs
# best-effort, SIGHUP reload (applied and refused), SIGUSR1 statistics,
# SIGTERM shutdown and the pidfile; the JSON-RPC socket and `rblk-target rpc`.
#   main_daemon_test.sh PATH/TO/rblk-target-fake
set -u
bin=$1
dir=$(mktemp -d /tmp/rblk-daemon-test.XXXXXX)
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
pid=
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
has() { grep -qF -- "$2" "$1" || { echo "  '$2' not in $1:"; sed 's/^/    /' "$1"; return 1; }; }

H=nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001
S=nqn.2024-01.io.rblk:disk0
config() { # config PATH_OF_NS2 -> the config on stdout
	cat <<JSON
{ "hosts": [ { "nqn": "$H" } ],
  "subsystems": [ { "nqn": "$S", "allowed_hosts": [ "$H" ],
    "namespaces": [ { "nsid": 1, "device": { "path": "$dir/a.img" } },
                    { "nsid": 2, "device": { "path": "$1" } } ] } ],
  "ports": [ { "portid": 1, "subsystems": [ "$S" ],
    "addr": { "trtype": "rdma", "traddr": "10.99.0.1", "trsvcid": "4420" } } ] }
JSON
}

# The namespaces' files: the start-up check opens every one.
truncate -s 1M "$dir/a.img" "$dir/b.img" "$dir/c.img"

# Usage and config errors: exit 2, message names the flag or key path.
"$bin" --listen 10.0.0.1:44x0 --subsystem $S 2>"$dir/e"; rc=$?
check "bad flag exits 2" [ $rc = 2 ]
check "bad flag message" has "$dir/e" '--listen 10.0.0.1:44x0: port "44x0" must be a decimal number 1-65535'
config $dir/b.img | sed 's/"nsid": 2/"nsid": 0/' >"$dir/bad.json"
"$bin" --config "$dir/bad.json" 2>"$dir/e"; rc=$?
check "bad config exits 2" [ $rc = 2 ]
check "bad config message" has "$dir/e" 'subsystems[0].namespaces[1].nsid: 0 is not a valid namespace id'
"$bin" --config "$dir/bad.json" --best-effort --check >"$dir/o" 2>"$dir/e"; rc=$?
check "best effort skips" [ $rc = 0 ]
check "best effort says skipped" has "$dir/e" 'namespace skipped'
check "--check prints JSON" has "$dir/o" "\"path\": \"$dir/a.img\""

# --check runs the start-up check: what a start refuses, it refuses, with exit 2.
echo '{}' >"$dir/empty.json"
"$bin" --config "$dir/empty.json" --check >"$dir/o" 2>"$dir/e"; rc=$?
check "--check {} exits 2" [ $rc = 2 ]
check "--check {} says what to add" has "$dir/e" 'nothing to export: no subsystems; add one to "subsystems"'
check "--check {} wants a port" has "$dir/e" 'nothing to listen on: no ports; add one to "ports"'
check "--check {} prints nothing" [ ! -s "$dir/o" ]
"$bin" --config "$dir/empty.json" 2>"$dir/e"; rc=$?
check "start {} exits 2" [ $rc = 2 ]
config $dir/b.img >"$dir/c.json"
"$bin" --config "$dir/c.json" --in-capsule 3 --check 2>"$dir/e"; rc=$?
check "--in-capsule 3 exits 2" [ $rc = 2 ]
check "--in-capsule 3 message" has "$dir/e" '(--in-capsule, x-rblk.in_capsule_data_size, ports[].param.inline_data_size): in_capsule_data_size 3: must be a multiple of 16'
config $dir/missing.img >"$dir/m.json"
"$bin" --config "$dir/m.json" --check 2>"$dir/e"; rc=$?
check "--check missing ns exits 2" [ $rc = 2 ]
check "missing ns message" has "$dir/e" "subsystems[0].namespaces[1] (nsid 2 of $S): $dir/missing.img: No such file or directory"
"$bin" --config "$dir/m.json" 2>"$dir/e"; rc=$?
check "start missing ns exits 2" [ $rc = 2 ]
check "start missing ns before the target" bash -c "! grep -q 'cannot create\|apply' '$dir/e'"
"$bin" --config "$dir/m.json" --best-effort --check >"$dir/o" 2>"$dir/e"; rc=$?
check "best effort missing ns exits 0" [ $rc = 0 ]
check "best effort missing ns warned" has "$dir/e" 'it will not be exported'
"$bin" --config "$dir/c.json" --check >"$dir/o" 2>"$dir/e"; rc=$?
check "valid --check exits 0" [ $rc = 0 ]
check "valid --check prints JSON" has "$dir/o" "\"path\": \"$dir/b.img\""

# No RDMA device for the address: exit 1 and what to check.
config $dir/b.img >"$dir/c.json"
RBLK_FAKE_FAIL=listen:19 "$bin" --config "$dir/c.json" 2>"$dir/e"; rc=$?
check "listen ENODEV exits 1" [ $rc = 1 ]
check "listen ENODEV message" has "$dir/e" 'no RDMA device serves 10.99.0.1'
# --log-time: every line starts with the local date and time, to the millisecond.
RBLK_FAKE_FAIL=listen:19 JOURNAL_STREAM= "$bin" --config "$dir/c.json" --log-time 2>"$dir/e"
check "--log-time stamps every line" bash -c "[ -s '$dir/e' ] && ! grep -vqE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} rblk-target: ' '$dir/e'"

# A running daemon: reload, refused reload, statistics, stop.
"$bin" --config "$dir/c.json" --pidfile "$dir/pid" --save "$dir/saved.json" \
	--rpc-socket "$dir/rpc.sock" >"$dir/out" 2>"$dir/err" &
pid=$!
for _ in $(seq 50); do grep -q "notice: ready" "$dir/err" 2>/dev/null && break; sleep 0.1; done
check "pidfile written" [ "$(cat "$dir/pid" 2>/dev/null)" = "$pid" ]
check "ready logged" has "$dir/err" 'notice: ready'
check "saved at start" has "$dir/saved.json" '"uuid": "'
config $dir/c.img >"$dir/c.json"
kill -HUP $pid
for _ in $(seq 50); do grep -q 'reload: 2 changes' "$dir/err" && break; sleep 0.1; done
check "reload replaces ns 2" has "$dir/err" "remove namespace 2 ($dir/b.img) (path $dir/b.img -> $dir/c.img)"
check "reload keeps ns 1" bash -c "! grep -q 'namespace 1' <(sed -n '/SIGHUP/,\$p' '$dir/err')"
check "saved after reload" has "$dir/saved.json" "$dir/c.img"
echo '{ "hosts": [' >"$dir/c.json"
kill -HUP $pid
for _ in $(seq 50); do grep -q 'reload refused' "$dir/err" && break; sleep 0.1; done
check "bad reload refused" has "$dir/err" 'previous configuration keeps running'
rpc() { "$bin" rpc -s "$dir/rpc.sock" "$@"; }
check "socket is 0600" [ "$(stat -c %a "$dir/rpc.sock")" = 600 ]
rpc nvmf_subsystem_add_ns --nqn $S --namespace.path "$dir/a.img" --namespace.nsid 7 >"$dir/o" 2>"$dir/e"
check "rpc add_ns answers the nsid" [ "$(cat "$dir/o")" = 7 ]
check "rpc add_ns saved" has "$dir/saved.json" '"nsid": 7'
rpc nvmf_subsystem_add_ns --nqn $S --namespace.path "$dir/a.img" --namespace.nsid 7 >"$dir/o" 2>"$dir/e"; rc=$?
check "rpc error exits 1" [ $rc = 1 ]
check "rpc error says why" has "$dir/e" "namespace.nsid: 7 is in use in $S (JSON-RPC error -32602)"
rpc nvmf_subsystem_add_ns --nqn $S --namespace.path "$dir/missing.img" >"$dir/o" 2>"$dir/e"
check "rpc missing path refused" has "$dir/e" "namespace.path: $dir/missing.img: No such file or directory"
rpc no_such_method 2>"$dir/e"; rc=$?
check "rpc unknown method" has "$dir/e" 'no_such_method: no such method'
rpc nvmf_subsystem_get_controllers --nqn $S >"$dir/o"
check "rpc get_controllers" [ "$(tr -d ' \n' <"$dir/o")" = "[]" ]
rpc nvmf_subsystem_add_ns --bad 2>"$dir/e"; rc=$?
check "rpc usage exits 2" [ $rc = 2 ]
kill -USR1 $pid
for _ in $(seq 50); do grep -q controllers "$dir/err" && break; sleep 0.1; done
check "SIGUSR1 statistics" has "$dir/err" '{"controllers": []}'
kill -TERM $pid
wait $pid; rc=$?
pid=
check "SIGTERM exits 0" [ $rc = 0 ]
check "stopped logged" has "$dir/err" 'notice: stopped'
check "pidfile removed" [ ! -e "$dir/pid" ]
check "socket removed" [ ! -e "$dir/rpc.sock" ]

# No configuration at all: an empty start, configured through the socket, saved.
"$bin" --rpc-socket "$dir/r2/rpc.sock" --save "$dir/s2.json" >"$dir/out" 2>"$dir/err" &
pid=$!
for _ in $(seq 50); do grep -q "notice: ready" "$dir/err" 2>/dev/null && break; sleep 0.1; done
check "empty start ready" has "$dir/err" '0 subsystems, 0 namespaces, 0 listeners'
rpc() { "$bin" rpc -s "$dir/r2/rpc.sock" "$@"; }
rpc nvmf_create_subsystem --nqn $S --allow_any_host true >/dev/null
rpc nvmf_subsystem_add_listener --nqn $S --listen_address.trtype rdma \
	--listen_address.traddr 10.99.0.1 --listen_address.trsvcid 4420 >/dev/null
rpc nvmf_subsystem_add_ns --json "{\"nqn\": \"$S\", \"namespace\": {\"path\": \"mem:1M\"}}" >/dev/null
rpc nvmf_get_subsystems >"$dir/o"
check "rpc configured" has "$dir/o" '"path": "mem:1M"'
kill -TERM $pid
wait $pid
pid=
"$bin" --config "$dir/s2.json" --check >"$dir/o" 2>"$dir/e"; rc=$?
check "saved config restarts" [ $rc = 0 ]
check "saved config keeps the listener" has "$dir/o" '"traddr": "10.99.0.1"'
exit $fail
