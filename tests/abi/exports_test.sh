#!/bin/bash
# A public library exports exactly its version script's symbols, which are
# exactly the functions its public headers declare RBLK_EXPORT, all in the
# script's version node(s), with the SONAME; and its static archive defines
# exactly the same global symbols (everything internal made local).
#   exports_test.sh SO ARCHIVE MAP SONAME HEADER...
set -euo pipefail
so=$1 ar=$2 map=$3 soname=$4
shift 4
fail() { echo "FAIL: $*"; exit 1; }

# Public API names: from the headers, from the map's public nodes (one per
# release that added symbols; a *_PRIVATE node is for rblk's own libraries).
want=$(cat "$@" | tr '\n' ' ' | tr ';' '\n' | grep RBLK_EXPORT | grep -o 'rblk_[a-z_0-9]*(' |
	tr -d '(' | sort -u)
mapped=$(awk '/^RBLK_[A-Z_0-9.]* *\{/ {pub = $1 !~ /PRIVATE/} pub && /^\t\trblk_/ {gsub(/[\t;]/, ""); print}' "$map" | sort -u)
[ "$want" = "$mapped" ] || {
	echo "the version script differs from the headers (< headers, > $map):"
	diff <(echo "$want") <(echo "$mapped") || true
	exit 1
}
# Everything the map exports (all nodes), and what the library exports.
allmapped=$(awk '/^\t\trblk_/ {gsub(/[\t;]/, ""); print}' "$map" | sort -u)
got=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' | sort -u)
[ "$allmapped" = "$got" ] || {
	echo "exported symbols differ from the version script (< $map, > $so):"
	diff <(echo "$allmapped") <(echo "$got") || true
	exit 1
}
unversioned=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ && $3 !~ /@@RBLK_/ {print $3}')
[ -z "$unversioned" ] || fail "symbols outside a version node: $unversioned"
dyn=$(objdump -p "$so")
grep -q "SONAME *$soname\$" <<<"$dyn" || fail "no SONAME $soname"
arsyms=$(nm -g --defined-only "$ar" | awk 'NF == 3 {print $3}' | sort -u)
[ "$arsyms" = "$allmapped" ] || {
	echo "the static archive's global symbols differ from the version script (< map, > $ar):"
	diff <(echo "$allmapped") <(echo "$arsyms") || true
	exit 1
}
echo "$(basename "$so"): $(echo "$allmapped" | wc -l) symbols exported, versioned, SONAME $soname; static archive alike"
