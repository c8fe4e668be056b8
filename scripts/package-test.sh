#!/bin/bash
# package-test.sh: builds rblk's Debian packages and checks them the way a user meets
# them, on this machine (as root; it installs and then purges them):
#   1. configures a build for /usr (CMAKE_INSTALL_PREFIX=/usr, the fio plugin on, no
#      tests) and builds it; refuses install() rules without a COMPONENT, which no
#      package would contain (see cmake/RblkPackaging.cmake);
#   2. cpack -G DEB: one package per component, all six expected;
#   3. apt-get install ./*.deb, so that every dependency resolves through apt;
#   4. pkg-config --cflags --libs rblk-target rblk-initiator;
#   5. compiles every examples/*.c against the installed headers and .pc files only
#      (a copy in a temporary directory, no -I into the source tree), or, with no
#      examples/, a program that includes <rblk/target.h> and <rblk/initiator.h> and
#      prints rblk_version(), which it runs;
#   6. rblk --version, rblk-target --version;
#   7. the fio plugin: fio --enghelp loads it into the installed fio, and every
#      example job the package ships (docs/examples/fio/*.fio) parses as written
#      (fio --parse-only: the engine loads, all its options are known);
#   8. apt-get purge of every package, then nothing of them is left (dpkg -l, files).
# Prints the time of each step; exits non-zero, saying what failed, on any failure
# (the packages are purged then too).
#
#   scripts/package-test.sh [--keep-examples DIR] [--build DIR]
#
#   --keep-examples DIR   copy the compiled example programs to DIR (the VM tests run
#                         them; they need the packages' libraries installed)
#   --build DIR           the build directory (default: build-pkg beside build/, or
#                         $RBLK_BUILD_PKG)
set -euo pipefail

keep=""
build_arg=""
while [ $# -gt 0 ]; do
	case "$1" in
	--keep-examples) keep=${2:?--keep-examples needs a directory}; shift 2 ;;
	--keep-examples=*) keep=${1#*=}; shift ;;
	--build) build_arg=${2:?--build needs a directory}; shift 2 ;;
	--build=*) build_arg=${1#*=}; shift ;;
	-h | --help) sed -n '2,27p' "$0"; exit 0 ;;
	*) echo "package-test: unknown option $1" >&2; exit 2 ;;
	esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
case "$top" in
/tmp | /tmp/*) base=/var/tmp/rblk-build-$(printf %s "$top" | md5sum | cut -c1-8) ;;
*) base=$top/build ;;
esac
build=${build_arg:-${RBLK_BUILD_PKG:-$base-pkg}}
jobs=$(nproc)

# component -> package (cmake/RblkPackaging.cmake)
PKGS=(rblk librblk-common0 librblk-initiator0 librblk-target0 librblk-dev rblk-fio)

work=$(mktemp -d /var/tmp/rblk-package-test.XXXXXX)
chmod 755 "$work"          # apt's _apt user reads the .debs from here
installed=0
t_all=$(date +%s.%N)
t_step=$t_all
cur=""

fail() {
	echo "package-test: FAILED in step '$cur': $*" >&2
	exit 1
}
cleanup() {
	local rc=$?
	if [ "$installed" = 1 ]; then
		echo "package-test: purging the packages after the failure" >&2
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${PKGS[@]}" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
step() {
	[ -n "$cur" ] && printf '  (%s s)\n' "$(elapsed "$t_step")"
	cur=$1
	t_step=$(date +%s.%N)
	printf '\n== package-test: %s\n' "$cur"
}

[ "$(id -u)" -eq 0 ] || { echo "package-test: run as root (it installs and purges packages)" >&2; exit 1; }
for tool in cmake cpack dpkg-shlibdeps pkg-config cc fio apt-get; do
	command -v "$tool" >/dev/null || { echo "package-test: $tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
for p in "${PKGS[@]}"; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
		echo "package-test: $p is installed already; it would be purged at the end: remove it first (apt-get purge ${PKGS[*]})" >&2
		exit 1
	fi
done

# ---- 1
step "configure and build for /usr in $build"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
	-DRBLK_FIO_PLUGIN=ON -DRBLK_TESTS=OFF -DRBLK_VM_TESTS=OFF >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log" >&2; fail "cmake configure"; }
cmake --build "$build" -j "$jobs" >"$work/build.log" 2>&1 ||
	{ tail -40 "$work/build.log" >&2; fail "build"; }
unspecified=$(find "$build" -name cmake_install.cmake -not -path '*/_CPack_Packages/*' \
	-exec grep -l 'STREQUAL "x\?Unspecifiedx\?"' {} + || true)
if [ -n "$unspecified" ]; then
	for f in $unspecified; do
		d=${f#"$build"/}; d=${d%cmake_install.cmake}
		echo "  ${d:-./}CMakeLists.txt: install() without COMPONENT:" >&2
		# the files of each file(INSTALL ...) inside an "Unspecified" block
		awk '/STREQUAL "x?Unspecifiedx?"/ { u = 1 } u && /^endif/ { u = 0 }
			u && /file\(INSTALL/ { f = 1 } f { while (match($0, /"\/[^"]*"/)) {
				print "      " substr($0, RSTART + 1, RLENGTH - 2); $0 = substr($0, RSTART + RLENGTH) } }
			f && /\)/ { f = 0 }' "$f" >&2
	done
	fail "install() rules without a COMPONENT: no package would contain them (components: cmake/RblkPackaging.cmake)"
fi

# ---- 2
step "cpack -G DEB"
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB) >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log" >&2; fail "cpack"; }
cp "$build"/*.deb "$work/"
chmod 644 "$work"/*.deb
for p in "${PKGS[@]}"; do
	deb=$(find "$work" -maxdepth 1 -name "${p}_*.deb" | head -1)
	[ -n "$deb" ] || {
		grep 'has no install() rule' "$work/cpack.log" >&2 || true
		fail "no package $p (its component installs nothing: cmake/RblkPackaging.cmake lists what must)"
	}
	printf '  %-28s %s, %s files; Depends: %s\n' "$(basename "$deb")" \
		"$(du -h "$deb" | cut -f1)" "$(dpkg-deb -c "$deb" | grep -vc '/$')" \
		"$(dpkg-deb -f "$deb" Depends)"
done

# ---- 3
step "apt-get install ./*.deb"
installed=1
(cd "$work" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./*.deb) >"$work/install.log" 2>&1 ||
	{ tail -30 "$work/install.log" >&2; fail "apt-get install"; }
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" | grep -q 'install ok installed' || fail "$p is not installed"
done
for h in common.h initiator.h target.h; do
	[ -f /usr/include/rblk/$h ] || fail "/usr/include/rblk/$h is not installed"
done

# ---- 4
step "pkg-config rblk-target rblk-initiator"
pc=$(pkg-config --cflags --libs rblk-target rblk-initiator) || fail "pkg-config --cflags --libs rblk-target rblk-initiator"
echo "  $pc"
case "$pc" in *"$top"*) fail "pkg-config points into the source tree: $pc" ;; esac

# ---- 5
step "compile against the installed headers and pkg-config files"
mkdir -p "$work/ex"
sources=()
if compgen -G "$top/examples/*.c" >/dev/null; then
	cp "$top"/examples/*.c "$work/ex/"
	compgen -G "$top/examples/*.h" >/dev/null && cp "$top"/examples/*.h "$work/ex/"
	for f in "$top"/examples/*.c; do sources+=("$(basename "$f")"); done
else
	echo "  no examples/*.c: compiling a minimal program instead"
	cat > "$work/ex/rblk_pkg_smoke.c" <<'EOF'
#include <stdio.h>
#include <rblk/target.h>
#include <rblk/initiator.h>

int main(void)
{
	printf("%s\n", rblk_version());
	return 0;
}
EOF
	sources=(rblk_pkg_smoke.c)
fi
built=()
for src in "${sources[@]}"; do
	mods=""
	grep -q '#include <rblk/target.h>' "$work/ex/$src" && mods="$mods rblk-target"
	grep -q '#include <rblk/initiator.h>' "$work/ex/$src" && mods="$mods rblk-initiator"
	[ -n "$mods" ] || mods="rblk-initiator"
	bin=${src%.c}
	# shellcheck disable=SC2046,SC2086  # pkg-config's output is words
	(cd "$work/ex" && cc -Wall -Werror $(pkg-config --cflags $mods) -o "$bin" "$src" $(pkg-config --libs $mods)) ||
		fail "cc $src (pkg-config:$mods)"
	ldd "$work/ex/$bin" | grep -q 'not found' && { ldd "$work/ex/$bin" >&2; fail "$bin: unresolved libraries"; }
	echo "  $src -> $bin ($(ldd "$work/ex/$bin" | grep -oE 'librblk-[a-z]+\.so\.[0-9]+' | sort -u | tr '\n' ' '))"
	built+=("$bin")
done
if [ "${sources[0]}" = rblk_pkg_smoke.c ]; then
	v=$("$work/ex/rblk_pkg_smoke") || fail "rblk_pkg_smoke did not run"
	echo "  rblk_version() = $v"
	case "$v" in *"$(dpkg-query -W -f='${Version}' librblk-dev)"*) ;; *) fail "rblk_version() says '$v', the packages are $(dpkg-query -W -f='${Version}' librblk-dev)" ;; esac
fi
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	for b in "${built[@]}"; do cp "$work/ex/$b" "$keep/"; done
	echo "  kept in $keep: ${built[*]}"
fi

# ---- 6
step "rblk --version, rblk-target --version"
ver=$(dpkg-query -W -f='${Version}' rblk)
for prog in rblk rblk-target; do
	[ "$(command -v $prog)" = /usr/bin/$prog ] || fail "$prog is not /usr/bin/$prog"
	out=$($prog --version 2>&1) || fail "$prog --version: $out"
	echo "  $prog: $out"
	grep -qF "$ver" <<< "$out" || fail "$prog --version does not say $ver: $out"
done

# ---- 7
step "fio plugin"
so=$(dpkg -L rblk-fio | grep '/librblk_fio\.so$') || fail "rblk-fio has no librblk_fio.so"
echo "  $so"
out=$(fio --enghelp="$so" 2>&1) || fail "fio --enghelp=$so: $out"
grep -q '^traddr ' <<< "$out" || fail "fio --enghelp=$so lists no traddr option: $out"
jobs_parsed=0
fio_jobs=$(dpkg -L rblk-fio | grep '\.fio$') || fail "rblk-fio ships no example job files"
for job in $fio_jobs; do
	grep -qF "ioengine=external:$so" "$job" ||
		fail "$(basename "$job"): its ioengine= is not external:$so"
	out=$(cd "$work" && fio --parse-only "$job" 2>&1) || fail "fio --parse-only $(basename "$job"): $out"
	jobs_parsed=$((jobs_parsed + 1))
done
echo "  fio $(fio --version) loads it; the $jobs_parsed job files in $(dirname "${fio_jobs%%$'\n'*}") parse"

# ---- 8
step "apt-get purge"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${PKGS[@]}" >"$work/purge.log" 2>&1 ||
	{ tail -20 "$work/purge.log" >&2; fail "apt-get purge"; }
installed=0
left=$(dpkg -l "${PKGS[@]}" 2>/dev/null | awk '/^[a-z][a-z] / && $1 != "un" && $1 != "pn" { print $1, $2 }' || true)
[ -z "$left" ] || fail "still known to dpkg after the purge: $left"
for f in /usr/bin/rblk /usr/bin/rblk-target /usr/include/rblk "$(dirname "$so")" \
	/usr/share/doc/rblk /usr/share/doc/rblk-fio /usr/lib/systemd/system/rblk-target.service; do
	[ ! -e "$f" ] || fail "$f is still there after the purge"
done
compgen -G '/usr/lib/*/librblk-*' >/dev/null && fail "left after the purge: $(ls /usr/lib/*/librblk-*)"
echo "  nothing left"

printf '  (%s s)\n\npackage-test: all checks passed in %s s\n' "$(elapsed "$t_step")" "$(elapsed "$t_all")"
