/* SPDX-License-Identifier: MIT */
/*
 * Device queries, protection domains and memory regions: thin verbs
 * wrappers. rblk_device, rblk_pd and rblk_mr are ibv_context, ibv_pd and
 * ibv_mr under rblk names. Also the "where does this id live" report the
 * target prints when it starts listening.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "transport/err.h"
#include "transport/rdma.h"

#define CTX(d) ((struct ibv_context *)(d))
#define PD(p) ((struct ibv_pd *)(p))
#define MR(m) ((struct ibv_mr *)(m))

_Static_assert((int)RBLK_ACCESS_LOCAL_WRITE == (int)IBV_ACCESS_LOCAL_WRITE, "access flag");
_Static_assert((int)RBLK_ACCESS_REMOTE_WRITE == (int)IBV_ACCESS_REMOTE_WRITE, "access flag");
_Static_assert((int)RBLK_ACCESS_REMOTE_READ == (int)IBV_ACCESS_REMOTE_READ, "access flag");
_Static_assert(RBLK_PORT_ACTIVE == (int)IBV_PORT_ACTIVE, "port state");
_Static_assert(RBLK_PORT_DOWN == (int)IBV_PORT_DOWN, "port state");

const char *rblk_device_name(const struct rblk_device *dev)
{
	return ibv_get_device_name(((const struct ibv_context *)dev)->device);
}

int rblk_device_query(struct rblk_device *dev, struct rblk_device_attr *out)
{
	struct ibv_device_attr a;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = err_ret(ibv_query_device(CTX(dev), &a));
	if (ret)
		return ret;
	out->max_qp_wr = (uint32_t)a.max_qp_wr;
	out->max_qp_rd_atom = (uint32_t)a.max_qp_rd_atom;
	out->max_qp_init_rd_atom = (uint32_t)a.max_qp_init_rd_atom;
	out->max_sge = (uint32_t)a.max_sge;
	out->max_sge_rd = (uint32_t)a.max_sge_rd;
	out->max_cqe = (uint32_t)a.max_cqe;
	out->max_qp = (uint32_t)a.max_qp;
	out->max_mr = (uint32_t)a.max_mr;
	out->max_mr_size = a.max_mr_size;
	out->max_srq_wr = (uint32_t)a.max_srq_wr;
	out->num_comp_vectors = CTX(dev)->num_comp_vectors;
	out->phys_port_cnt = a.phys_port_cnt;
	return 0;
}

static enum rblk_gid_type gid_type_from_verbs(uint32_t t, enum rblk_link_layer ll)
{
	switch (t) {
	case IBV_GID_TYPE_IB:
		return ll == RBLK_LINK_ETHERNET ? RBLK_GID_ROCE_V1 : RBLK_GID_IB;
	case IBV_GID_TYPE_ROCE_V1:
		return RBLK_GID_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2:
		return RBLK_GID_ROCE_V2;
	}
	return RBLK_GID_UNKNOWN;
}

/*
 * The GID rdma_cm uses for this id: for RoCE it is derived from the bound IP
 * address (IPv4-mapped for IPv4), and the kernel picks the RoCE v2 entry
 * when the port has one; for IB the CM reports it.
 */
static void find_source_gid(struct ibv_context *ctx, const struct rdma_cm_id *id,
			    const struct ibv_port_attr *pa, struct rblk_cm_port_info *out)
{
	struct ibv_gid_entry *entries;
	struct ibv_device_attr da;
	uint8_t want[16];
	size_t max;
	ssize_t n;
	int best = -1;

	if (out->link_layer == RBLK_LINK_ETHERNET) {
		if (rblk_addr_to_gid(&id->route.addr.src_addr, want))
			return;
	} else {
		memcpy(want, id->route.addr.addr.ibaddr.sgid.raw, 16);
	}
	if (!inet_ntop(AF_INET6, want, out->gid, sizeof(out->gid)))
		out->gid[0] = '\0';

	/* The kernel refuses (EINVAL) a buffer smaller than all valid entries of all ports. */
	if (ibv_query_device(ctx, &da) || !pa->gid_tbl_len)
		return;
	max = (size_t)pa->gid_tbl_len * (da.phys_port_cnt ? da.phys_port_cnt : 1);
	entries = calloc(max, sizeof(*entries));
	if (!entries)
		return;
	n = ibv_query_gid_table(ctx, entries, max, 0);
	if (n < 0)
		RBLK_DEBUG("ibv_query_gid_table: %s", strerror((int)-n));
	for (ssize_t i = 0; i < n; i++) {
		if (entries[i].port_num != out->port_num || memcmp(entries[i].gid.raw, want, 16))
			continue;
		if (best < 0 || entries[i].gid_type == IBV_GID_TYPE_ROCE_V2)
			best = (int)i;
	}
	if (best >= 0) {
		out->gid_index = (int)entries[best].gid_index;
		out->gid_type = gid_type_from_verbs(entries[best].gid_type, out->link_layer);
		if (entries[best].ndev_ifindex &&
		    !if_indextoname(entries[best].ndev_ifindex, out->netdev))
			out->netdev[0] = '\0';
	}
	free(entries);
}

int rblk_cm_id_port_info(const struct rblk_cm_id *cid, struct rblk_cm_port_info *out)
{
	const struct rdma_cm_id *id = (const struct rdma_cm_id *)cid;
	struct ibv_port_attr pa;
	int ret;

	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	if (!id->verbs)
		return -ENOTCONN;
	snprintf(out->dev, sizeof(out->dev), "%s", ibv_get_device_name(id->verbs->device));
	out->port_num = id->port_num;
	ret = err_ret(ibv_query_port(id->verbs, id->port_num, &pa));
	if (ret)
		return ret;
	out->state = (enum rblk_port_state)pa.state;
	out->link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? RBLK_LINK_ETHERNET
			  : pa.link_layer == IBV_LINK_LAYER_INFINIBAND ? RBLK_LINK_INFINIBAND
								       : RBLK_LINK_UNKNOWN;
	/* Older kernels report UNSPECIFIED for IB ports. */
	if (pa.link_layer == IBV_LINK_LAYER_UNSPECIFIED)
		out->link_layer = RBLK_LINK_INFINIBAND;
	out->active_mtu = rblk_ib_mtu_bytes(pa.active_mtu);
	find_source_gid(id->verbs, id, &pa, out);
	return 0;
}

const char *rblk_cm_port_info_str(const struct rblk_cm_port_info *info, char *buf, size_t len)
{
	char via[IF_NAMESIZE + 8] = "";
	char gid[INET6_ADDRSTRLEN + 48];

	if (info->netdev[0])
		snprintf(via, sizeof(via), " via %s", info->netdev);
	if (info->gid_index >= 0)
		snprintf(gid, sizeof(gid), "%s GID %s [%d]", rblk_gid_type_str(info->gid_type),
			 info->gid, info->gid_index);
	else
		snprintf(gid, sizeof(gid), "GID %s (not in the table)",
			 info->gid[0] ? info->gid : "?");
	snprintf(buf, len, "%s port %u (%s, %s%s), %s, MTU %u", info->dev, info->port_num,
		 rblk_port_state_str(info->state), rblk_link_layer_str(info->link_layer), via, gid,
		 info->active_mtu);
	return buf;
}

int rblk_pd_alloc(struct rblk_device *dev, struct rblk_pd **out)
{
	struct ibv_pd *pd;

	*out = NULL;
	errno = 0;
	pd = ibv_alloc_pd(CTX(dev));
	if (!pd)
		return errno ? -errno : -ENOMEM;
	*out = (struct rblk_pd *)pd;
	return 0;
}

int rblk_pd_dealloc(struct rblk_pd *pd)
{
	int ret;

	if (!pd)
		return 0;
	ret = err_ret(ibv_dealloc_pd(PD(pd)));
	if (ret)
		RBLK_WARN("ibv_dealloc_pd: %s", strerror(-ret));
	return ret;
}

int rblk_mr_reg(struct rblk_pd *pd, void *addr, size_t len, int access, struct rblk_mr **out)
{
	struct ibv_mr *mr;

	*out = NULL;
	if (!pd || !addr || !len)
		return -EINVAL;
	errno = 0;
	mr = ibv_reg_mr(PD(pd), addr, len, access);
	if (!mr)
		return err_errno();
	*out = (struct rblk_mr *)mr;
	return 0;
}

int rblk_mr_dereg(struct rblk_mr *mr)
{
	int ret;

	if (!mr)
		return 0;
	ret = err_ret(ibv_dereg_mr(MR(mr)));
	if (ret)
		RBLK_WARN("ibv_dereg_mr: %s", strerror(-ret));
	return ret;
}

uint32_t rblk_mr_lkey(const struct rblk_mr *mr)
{
	return ((const struct ibv_mr *)mr)->lkey;
}

uint32_t rblk_mr_rkey(const struct rblk_mr *mr)
{
	return ((const struct ibv_mr *)mr)->rkey;
}
