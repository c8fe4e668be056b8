/* SPDX-License-Identifier: MIT */
/*
 * The in-process fabric's device inventory: one device, "fabric0", with one
 * active RoCE v2 port that serves every address, so that the target's
 * listen-time checks (which device serves this address, what to log for a
 * wildcard) pass as on a host with a NIC. See fabric.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fabric/fabric.h"

const char *rblk_port_state_str(enum rblk_port_state s)
{
	return s == RBLK_PORT_ACTIVE ? "ACTIVE" : s == RBLK_PORT_DOWN ? "DOWN" : "?";
}

const char *rblk_link_layer_str(enum rblk_link_layer l)
{
	return l == RBLK_LINK_ETHERNET	   ? "Ethernet"
	       : l == RBLK_LINK_INFINIBAND ? "InfiniBand"
					   : "unknown";
}

const char *rblk_gid_type_str(enum rblk_gid_type t)
{
	return t == RBLK_GID_ROCE_V2 ? "RoCE v2" : t == RBLK_GID_ROCE_V1 ? "RoCE v1" : "IB";
}

int rblk_rdma_dev_list_at(const char *sysfs_root, struct rblk_rdma_dev_info **out, int *n)
{
	struct rblk_rdma_dev_info *d = calloc(1, sizeof(*d));

	(void)sysfs_root;
	*out = NULL;
	*n = 0;
	if (!d)
		return -ENOMEM;
	d->ports = calloc(1, sizeof(*d->ports));
	if (!d->ports) {
		free(d);
		return -ENOMEM;
	}
	snprintf(d->name, sizeof(d->name), "%s", fab_device.name);
	d->node_type = 4;
	snprintf(d->node_type_str, sizeof(d->node_type_str), "RNIC");
	d->port_count = 1;
	d->ports[0].port_num = 1;
	d->ports[0].state = RBLK_PORT_ACTIVE;
	d->ports[0].link_layer = RBLK_LINK_ETHERNET;
	d->ports[0].active_mtu = 4096;
	snprintf(d->ports[0].netdev, sizeof(d->ports[0].netdev), "fab0");
	*out = d;
	*n = 1;
	return 0;
}

int rblk_rdma_dev_list(struct rblk_rdma_dev_info **out, int *n)
{
	return rblk_rdma_dev_list_at(NULL, out, n);
}

void rblk_rdma_dev_list_free(struct rblk_rdma_dev_info *devs, int n)
{
	for (int i = 0; devs && i < n; i++)
		free(devs[i].ports);
	free(devs);
}

int rblk_rdma_dev_for_addr(const struct sockaddr *sa, struct rblk_addr_dev *out)
{
	memset(out, 0, sizeof(*out));
	if (rblk_addr_is_any(sa))
		return -EINVAL;
	snprintf(out->dev, sizeof(out->dev), "%s", fab_device.name);
	out->port_num = 1;
	out->gid_index = 0;
	out->gid_type = RBLK_GID_ROCE_V2;
	snprintf(out->netdev, sizeof(out->netdev), "fab0");
	return 0;
}

int rblk_cm_id_port_info(const struct rblk_cm_id *id, struct rblk_cm_port_info *out)
{
	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	if (!rblk_cm_id_device(id))
		return -ENOTCONN;
	snprintf(out->dev, sizeof(out->dev), "%s", fab_device.name);
	out->port_num = 1;
	out->state = RBLK_PORT_ACTIVE;
	out->link_layer = RBLK_LINK_ETHERNET;
	out->active_mtu = 4096;
	out->gid_index = 0;
	out->gid_type = RBLK_GID_ROCE_V2;
	rblk_addr_host_str(rblk_cm_id_local_addr(id), out->gid, sizeof(out->gid));
	snprintf(out->netdev, sizeof(out->netdev), "fab0");
	return 0;
}

const char *rblk_cm_port_info_str(const struct rblk_cm_port_info *info, char *buf, size_t len)
{
	snprintf(buf, len, "%s port %u (in-process fabric), %s, MTU %u", info->dev,
		 info->port_num, info->gid, info->active_mtu);
	return buf;
}
