#!/bin/bash
# Runs one test program against a fresh ceph-mini cluster and removes the
# cluster afterwards, whatever the outcome. Exit 77 (skip) where no cluster can
# run: not root, or the Ceph daemons are not installed.
#   run.sh PROGRAM [ARGS...]
set -uo pipefail

here=$(dirname "$(realpath "$0")")
if [ "$(id -u)" -ne 0 ]; then
	echo "run.sh: the test cluster needs root; skipping" >&2
	exit 77
fi
for b in ceph-mon ceph-osd ceph rbd; do
	if ! command -v "$b" >/dev/null; then
		echo "run.sh: $b missing (scripts/install-deps.sh --ceph); skipping" >&2
		exit 77
	fi
done

# A directory of our own: tests running in parallel must not share a cluster.
dir=$(mktemp -d "${TMPDIR:-/tmp}/rblk-ceph.XXXXXX")
rmdir "$dir"
trap '"$here/ceph-mini.sh" stop "$dir" >/dev/null' EXIT
env_out=$("$here/ceph-mini.sh" start "$dir") || exit 1
eval "$env_out"
"$@"
