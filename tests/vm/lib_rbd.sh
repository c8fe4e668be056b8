# lib_rbd.sh: two rblk-target gateways to one Ceph RBD image, as tests 59 (Linux host)
# and 60 (rblk's initiator) use them; sourced after lib.sh. The gateways are lib_ana.sh's
# A ($VM_ADDR0:4420, cntlids 1..999) and B (:4421, 1000..1999): one subsystem, one
# namespace identity, ANA group 1, with rbd:POOL/IMAGE as namespace 1.
#
#   rbd_gw_image NAME SIZE_MB   the shared cluster (ceph_fixture: started if no earlier
#                               test did), a new layering-only image NAME in its pool;
#                               sets RBD_IMG=POOL/NAME and IMG=rbd:POOL/NAME (what
#                               ana_cfg exports) and the gateways' Ceph identity
#   rbd_admin ARGS...           the rbd command as the cluster's admin (120 s timeout)
# and lib_ana.sh's ana_cfg NAME STATE, ana_start NAME, ana_writes NAME.
#
# The gateways run as client.rblk (caps: profile rbd) with Ceph's default
# configuration, in which librbd's cache is on: rblk-target's own default turns it off
# for every namespace that does not ask for it (a write one gateway acknowledged must
# be in the cluster before the other can be asked to read it, and must survive the
# first's death; 60-rbd-gateway-rblk shows it does). The image has only the layering
# feature: no exclusive lock to bounce between two writers.

ANA_NQN=${ANA_NQN:-nqn.2024-01.io.rblk:rbd-gateway}
ANA_SERIAL=${ANA_SERIAL:-RBDGW0001}
ANA_MODEL=${ANA_MODEL:-rblk rbd gateway}
ANA_UUID=${ANA_UUID:-7c3e9a10-4b2d-4f8e-9a61-2d5c8b0e4f21}
ANA_NGUID=${ANA_NGUID:-b2c3d4e5-f6a7-4890-9bcd-ef0123456789}
. "$(dirname "${BASH_SOURCE[0]}")/lib_ana.sh" || exit 1

# rbd_admin ARGS...: rbd without the gateways' identity (CEPH_ARGS, RBLK_RBD_ID)
rbd_admin() {
	(unset CEPH_ARGS RBLK_RBD_ID; timeout 120 rbd "$@")
}

# rbd_gw_image NAME SIZE_MB
rbd_gw_image() {
	local t0
	ceph_fixture
	if [ -n "${CEPH_FIXTURE_START_S:-}" ]; then
		log "ceph cluster: started by this test in ${CEPH_FIXTURE_START_S} s"
	else
		log "ceph cluster: already up"
	fi
	RBD_IMG=$RBLK_CEPH_POOL/$1
	IMG=rbd:$RBD_IMG
	t0=$SECONDS
	rbd_admin create --size "$2"M --image-feature layering "$RBD_IMG" || die "rbd create $RBD_IMG failed"
	log "rbd create $RBD_IMG ($2 MiB, layering only) in $((SECONDS - t0)) s"
	# no rbd_cache here: the gateways must be safe with Ceph's default (cache on)
	export RBLK_RBD_ID=rblk CEPH_ARGS="--keyring $RBLK_CEPH_CLIENT_KEYRING"
}
