#!/bin/bash
# get-fio-source.sh: a configured source tree of the fio release that is installed, for
# building librblk_fio.so. Debian ships no fio headers, and an external engine must be
# compiled against the same release as the binary that loads it (ioengines.c rejects any
# other FIO_IOOPS_VERSION; struct layouts follow config-host.h).
#
#   get-fio-source.sh [--print-dir]
#
# What it does (each step only when needed, so a second run costs nothing):
#   1. finds the installed fio's version (`fio --version`, `dpkg-query`);
#   2. adds a deb-src entry for the main Debian archive
#      (/etc/apt/sources.list.d/rblk-deb-src.sources, copied from debian.sources with
#      Types: deb-src) and refreshes only that source's lists;
#   3. `apt-get source fio=<installed version>` into $RBLK_FIO_SRC_CACHE
#      (default /var/tmp/rblk-fio-src, outside the repo);
#   4. runs fio's ./configure there with the options Debian's package used (read from
#      its debian/rules), so config-host.h matches the binary;
#   5. checks that the tree's FIO_VERSION equals the binary's.
# Prints the tree's path on stdout as its last line; messages go to stderr.
# Needs root for steps 2-3 (apt); later runs with a ready cache need nothing.
set -euo pipefail
ME=get-fio-source
CACHE=${RBLK_FIO_SRC_CACHE:-/var/tmp/rblk-fio-src}
SRCLIST=/etc/apt/sources.list.d/rblk-deb-src.sources
DEBSRC=/etc/apt/sources.list.d/debian.sources

say() { echo "$ME: $*" >&2; }
die() { echo "$ME: error: $*" >&2; exit 1; }

command -v fio >/dev/null || die "fio is not installed (apt-get install fio; scripts/install-deps.sh)"
bin_ver=$(fio --version 2>/dev/null) || die "'fio --version' failed"
bin_ver=${bin_ver#fio-}                       # "3.33"
deb_ver=$(dpkg-query -W -f='${Version}' fio 2>/dev/null) ||
	die "fio is not a Debian package here: cannot fetch its source with apt"
upstream=${deb_ver#*:}
upstream=${upstream%-*}                       # "3.33"
[ "$upstream" = "$bin_ver" ] ||
	die "'fio --version' says $bin_ver but the fio package is $deb_ver: which fio is in PATH ($(command -v fio))?"

tree=$CACHE/fio-$bin_ver
stamp=$tree/.rblk-configured-$deb_ver
if [ -f "$stamp" ] && [ -f "$tree/config-host.h" ]; then
	echo "$tree"
	exit 0
fi

# ---- 2. deb-src entry
ensure_debsrc() {
	[ "$(id -u)" -eq 0 ] || die "the fio source is not in $CACHE yet and fetching it needs root (apt)"
	if [ ! -f "$SRCLIST" ]; then
		[ -f "$DEBSRC" ] || die "no $DEBSRC to copy the archive's address from; add a deb-src entry for fio by hand"
		# The first stanza of debian.sources is the main archive (the second, security).
		awk 'BEGIN{RS=""; ORS="\n"} NR==1 {print; exit}' "$DEBSRC" |
			sed -E 's/^Types:.*/Types: deb-src/' > "$SRCLIST.new"
		grep -q '^Types: deb-src' "$SRCLIST.new" && grep -q '^URIs:' "$SRCLIST.new" ||
			die "could not derive a deb-src entry from $DEBSRC"
		mv "$SRCLIST.new" "$SRCLIST"
		say "added $SRCLIST"
	fi
}

have_src() { apt-cache showsrc fio 2>/dev/null | grep -qx "Version: $deb_ver"; }

# ---- 3. apt-get source
fetch() {
	local dl
	ensure_debsrc
	if ! have_src; then
		say "refreshing the source lists of $SRCLIST"
		apt-get update -qq -o Dir::Etc::sourcelist="$SRCLIST" -o Dir::Etc::sourceparts=- \
			-o APT::Get::List-Cleanup=0 >&2 || die "apt-get update failed"
		have_src || die "apt knows no source package fio=$deb_ver (is the archive in $SRCLIST the one fio came from?)"
	fi
	mkdir -p "$CACHE"
	dl=$CACHE/dl.$$
	rm -rf "$dl"; mkdir "$dl"
	say "apt-get source fio=$deb_ver into $CACHE"
	# The cache folder is usually not writable by apt's sandbox user _apt.
	(cd "$dl" && apt-get source -qq -o APT::Sandbox::User=root "fio=$deb_ver" >&2) ||
		{ rm -rf "$dl"; die "apt-get source fio=$deb_ver failed (dpkg-dev installed?)"; }
	local d
	d=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name 'fio-*' | head -1)
	[ -n "$d" ] && [ -f "$d/ioengines.h" ] || { rm -rf "$dl"; die "the unpacked source has no ioengines.h"; }
	rm -rf "$tree"
	mv "$d" "$tree"
	rm -rf "$dl"
}

if [ ! -f "$tree/ioengines.h" ] || [ ! -d "$tree/debian" ]; then
	fetch
fi

# ---- 4. configure as Debian did
# debian/rules passes its flags to ./configure (--disable-native, ...); use the same,
# minus the --enable-X ones: they only make configure fail when library X (gtk for
# gfio, libnbd) is not installed, and change no structure an engine sees. What does
# (the io_u union: CONFIG_LIBAIO, CONFIG_POSIXAIO, CONFIG_RDMA) is checked below.
conf_flags=$(sed -nE 's/^[[:space:]]*\.\/configure[[:space:]]+(.*)$/\1/p' "$tree/debian/rules" |
	sed -E 's/\\$//; s/\$\([^)]*\)//g; s/--enable-[^[:space:]]*//g' | head -1)
say "configuring $tree (./configure $conf_flags)"
(cd "$tree" && ./configure $conf_flags > "$tree/.rblk-configure.log" 2>&1) ||
	die "fio's ./configure failed: see $tree/.rblk-configure.log"
[ -f "$tree/config-host.h" ] || die "./configure made no config-host.h"
engines=$(fio --enghelp 2>&1 | tr -s ' \t' '\n\n')
for pair in libaio:CONFIG_LIBAIO rdma:CONFIG_RDMA posixaio:CONFIG_POSIXAIO; do
	eng=${pair%%:*} def=${pair#*:}
	if grep -qx "$eng" <<< "$engines" && ! grep -q "^#define $def\b" "$tree/config-host.h"; then
		die "the fio binary has the $eng engine but ./configure found no $def: install the -dev package it needs (libaio-dev, librdmacm-dev) and rerun"
	fi
done

# ---- 5. versions
src_ver=$(sed -nE 's/^DEF_VER=fio-([0-9.]+).*/\1/p' "$tree/FIO-VERSION-GEN" | head -1)
if [ -z "$src_ver" ]; then
	src_ver=$(basename "$tree"); src_ver=${src_ver#fio-}
fi
[ "$src_ver" = "$bin_ver" ] || die "the source tree is fio $src_ver, the binary fio $bin_ver"
rm -f "$tree"/.rblk-configured-*
touch "$stamp"
say "fio $bin_ver source ready"
echo "$tree"
