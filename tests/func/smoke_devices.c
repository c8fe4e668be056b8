/* SPDX-License-Identifier: MIT */
/* rdma_smoke --devices: the RDMA inventory, and which device serves each address. */
#include <errno.h>
#include <string.h>

#include "smoke.h"

/* --devices: the inventory, and which device serves each address given. */
int smoke_run_devices(const struct opts *o, char **addrs, int naddrs)
{
	struct rblk_rdma_dev_info *d;
	int n, ret, bad = 0;

	smoke_role = "rdma_smoke devices";
	ret = rblk_rdma_dev_list(&d, &n);
	if (ret) {
		smoke_fail("listing RDMA devices: %s", strerror(-ret));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		printf("%s: node_guid %s, %s, fw '%s'%s%s", d[i].name, d[i].node_guid_str,
		       d[i].node_type_str, d[i].fw_ver, d[i].parent[0] ? ", parent " : "", d[i].parent);
		if (d[i].have_limits)
			printf(", max_qp_wr %u max_qp_rd_atom %u max_qp_init_rd_atom %u max_sge %u "
			       "max_cqe %u",
			       d[i].max_qp_wr, d[i].max_qp_rd_atom, d[i].max_qp_init_rd_atom,
			       d[i].max_sge, d[i].max_cqe);
		putchar('\n');
		for (unsigned p = 0; p < d[i].port_count; p++) {
			const struct rblk_port_info *pi = &d[i].ports[p];

			printf("  port %u: %s (%u: %s), %s%s%s, MTU %u (max %u), %s\n", pi->port_num,
			       rblk_port_state_str(pi->state), pi->phys_state, pi->phys_state_str,
			       rblk_link_layer_str(pi->link_layer), pi->netdev[0] ? " via " : "",
			       pi->netdev, pi->active_mtu, pi->max_mtu, pi->rate);
			for (unsigned g = 0; g < pi->gid_count; g++)
				printf("    GID[%u] %s %s%s%s\n", pi->gids[g].index, pi->gids[g].str,
				       rblk_gid_type_str(pi->gids[g].type),
				       pi->gids[g].netdev[0] ? " " : "", pi->gids[g].netdev);
		}
	}
	rblk_rdma_dev_list_free(d, n);
	if (!n) {
		smoke_fail("no RDMA devices");
		bad = 1;
	}
	for (int i = 0; i < naddrs; i++) {
		struct sockaddr_storage sa;
		struct rblk_addr_dev ad;

		if (rblk_addr_parse(addrs[i], 0, &sa)) {
			smoke_fail("bad address '%s'", addrs[i]);
			return 2;
		}
		ret = rblk_rdma_dev_for_addr((struct sockaddr *)&sa, &ad);
		if (ret)
			printf("%s: no RDMA device: %s\n", addrs[i], strerror(-ret));
		else
			printf("%s: %s port %u, GID index %d (%s)%s%s\n", addrs[i], ad.dev, ad.port_num,
			       ad.gid_index, rblk_gid_type_str(ad.gid_type), ad.netdev[0] ? " via " : "",
			       ad.netdev);
	}
	(void)o;
	return bad;
}

