# lib_mpath.sh: the Linux host's native multipath device over two paths, as tests 56
# (two rblk-targets on a file) and 59 (two RBD gateways) look at it; sourced after
# lib.sh. HEAD is the multipath block device's name (nvmeXnY), set by the test once
# the host is connected on both paths.
#
#   paths           the hidden per-controller path devices of $HEAD
#   path SVC        the path whose controller went to port SVC
#   ana_of PATH     the path's ana_state; ctrl_of PATH: its controller (nvmeZ)
#   _is_ana PATH STATE, _is_live_opt PATH   for wait_for
#   show_paths      log each path's controller state, cntlid, ana_state and address

# paths: nvmeXnZ has a path device nvmeXcYnZ per controller Y (6.1 and 6.12 have no
# /sys/block/$HEAD/multipath/ listing them)
paths() {
	local p
	for p in /sys/block/${HEAD%n*}c*n${HEAD##*n}; do [ -e "$p" ] && echo "${p##*/}"; done
}
# path SVC: the path device whose controller went to port SVC
path() {
	local p c a
	for p in $(paths); do
		c=${p#nvme*c}; c=nvme${c%n*}
		read -r a < "/sys/class/nvme/$c/address" || continue
		[[ $a == *"trsvcid=$1"* ]] && { echo "$p"; return 0; }
	done
	return 1
}
ana_of() { local s; read -r s < "/sys/block/$1/ana_state" && echo "$s"; }
ctrl_of() { local c=${1#nvme*c}; echo "nvme${c%n*}"; }
_is_ana() { [ "$(ana_of "$1")" = "$2" ]; }
_is_live_opt() { [ "$(nvme_ctrl_state "$(ctrl_of "$1")")" = live ] && _is_ana "$1" optimized; }
show_paths() {
	local p
	for p in $(paths); do
		log "  path $p: controller $(ctrl_of "$p") $(nvme_ctrl_state "$(ctrl_of "$p")")," \
			"cntlid $(cat /sys/class/nvme/$(ctrl_of "$p")/cntlid), ana_state $(ana_of "$p")," \
			"$(cat /sys/class/nvme/$(ctrl_of "$p")/address)"
	done
}
