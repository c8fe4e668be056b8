#!/bin/bash
# librblk-initiator.so exports exactly the functions declared RBLK_EXPORT in
# include/rblk/initiator.h and include/rblk/common.h, all in the version node of
# initiator/librblk-initiator.map, and carries its SONAME.
#   abi_exports_test.sh LIB SRCDIR
set -euo pipefail
lib=$1 src=$2
want=$(cat "$src/include/rblk/initiator.h" "$src/include/rblk/common.h" | tr '\n' ' ' | tr ';' '\n' |
	grep RBLK_EXPORT | grep -o 'rblk_[a-z_0-9]*(' | tr -d '(' | sort -u)
got=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sed 's/@.*//' | sort -u)
if [ "$want" != "$got" ]; then
	echo "exported symbols differ from the public headers (< headers, > library):"
	diff <(echo "$want") <(echo "$got") || true
	exit 1
fi
unversioned=$(nm -D --defined-only "$lib" | awk '$2 == "T" && $3 !~ /@@RBLK_INITIATOR_/ {print $3}')
[ -z "$unversioned" ] || { echo "symbols outside the version node: $unversioned"; exit 1; }
objdump -p "$lib" | grep -q 'SONAME *librblk-initiator\.so\.0$' || { echo "no SONAME librblk-initiator.so.0"; exit 1; }
echo "$(echo "$want" | wc -l) symbols exported, versioned, SONAME ok"
