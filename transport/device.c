/* SPDX-License-Identifier: MIT */
/*
 * RDMA device inventory (see device.h): enumeration from sysfs
 * (class/infiniband/<dev>/...), GID tables with their types and netdevs,
 * verbs-only facts (MTU, speed, limits) when the device opens, and "which
 * device serves this IP address".
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "transport/rdma.h"
#include "transport/sysfs.h"

const char *rblk_port_state_str(enum rblk_port_state s)
{
	switch (s) {
	case RBLK_PORT_NOP:
		return "NOP";
	case RBLK_PORT_DOWN:
		return "DOWN";
	case RBLK_PORT_INIT:
		return "INIT";
	case RBLK_PORT_ARMED:
		return "ARMED";
	case RBLK_PORT_ACTIVE:
		return "ACTIVE";
	case RBLK_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	}
	return "?";
}

const char *rblk_link_layer_str(enum rblk_link_layer l)
{
	switch (l) {
	case RBLK_LINK_INFINIBAND:
		return "InfiniBand";
	case RBLK_LINK_ETHERNET:
		return "Ethernet";
	case RBLK_LINK_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *rblk_gid_type_str(enum rblk_gid_type t)
{
	switch (t) {
	case RBLK_GID_IB:
		return "IB";
	case RBLK_GID_ROCE_V1:
		return "RoCE v1";
	case RBLK_GID_ROCE_V2:
		return "RoCE v2";
	case RBLK_GID_UNKNOWN:
		break;
	}
	return "unknown";
}

int rblk_gid_type_parse(const char *s, enum rblk_link_layer ll, enum rblk_gid_type *out)
{
	if (!strcmp(s, "RoCE v2")) {
		*out = RBLK_GID_ROCE_V2;
		return 0;
	}
	if (!strcmp(s, "IB/RoCE v1")) {
		*out = ll == RBLK_LINK_ETHERNET ? RBLK_GID_ROCE_V1 : RBLK_GID_IB;
		return 0;
	}
	if (!strcmp(s, "RoCE v1")) {
		*out = RBLK_GID_ROCE_V1;
		return 0;
	}
	if (!strcmp(s, "IB")) {
		*out = RBLK_GID_IB;
		return 0;
	}
	*out = RBLK_GID_UNKNOWN;
	return -EINVAL;
}

unsigned rblk_ib_mtu_bytes(int ib_mtu)
{
	return ib_mtu >= 1 && ib_mtu <= 5 ? 128u << ib_mtu : 0;
}

const char *rblk_rate_str(uint8_t active_width, uint8_t active_speed, char *buf, size_t len)
{
	static const struct {
		uint8_t code;
		const char *name;
		double gbps;
	} speeds[] = {
		{ 1, "SDR", 2.5 }, { 2, "DDR", 5 },    { 4, "QDR", 10 },  { 8, "FDR10", 10 },
		{ 16, "FDR", 14 }, { 32, "EDR", 25 }, { 64, "HDR", 50 }, { 128, "NDR", 100 },
	};
	static const struct {
		uint8_t code;
		unsigned lanes;
	} widths[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } };
	unsigned lanes = 0;
	int s = -1;

	for (unsigned i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == active_width)
			lanes = widths[i].lanes;
	for (unsigned i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == active_speed)
			s = (int)i;
	if (!lanes || s < 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%g Gb/s (%uX %s)", speeds[s].gbps * lanes, lanes, speeds[s].name);
	return buf;
}

/* "4: ACTIVE" -> 4, and the words after the colon. */
static int parse_num_colon(const char *s, unsigned *num, char *word, size_t wlen)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end != ':')
		return -EINVAL;
	*num = (unsigned)v;
	end++;
	while (*end == ' ')
		end++;
	if (word)
		snprintf(word, wlen, "%s", end);
	return 0;
}

/* sysfs prints GUIDs as "ec98:4fff:fe10:6a56". */
static int parse_guid(const char *s, uint64_t *out)
{
	unsigned a, b, c, d;
	int n = 0;

	if (sscanf(s, "%4x:%4x:%4x:%4x%n", &a, &b, &c, &d, &n) != 4 || s[n])
		return -EINVAL;
	*out = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return 0;
}

static bool gid_is_zero(const uint8_t *g)
{
	for (int i = 0; i < 16; i++)
		if (g[i])
			return false;
	return true;
}

static int read_gids(const char *portdir, struct rblk_port_info *p)
{
	char path[512], buf[64];
	unsigned *idx = NULL, n = 0;
	int ret;

	if (rblk_sysfs_path(path, sizeof(path), "%s/gids", portdir))
		return -ENAMETOOLONG;
	ret = rblk_sysfs_list_numeric(path, &idx, &n);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++) {
		struct rblk_gid_info g;

		memset(&g, 0, sizeof(g));
		g.index = idx[i];
		if (rblk_sysfs_path(path, sizeof(path), "%s/gids/%u", portdir, idx[i]) ||
		    rblk_sysfs_read_str(path, buf, sizeof(buf)) ||
		    inet_pton(AF_INET6, buf, g.raw) != 1 || gid_is_zero(g.raw))
			continue;
		inet_ntop(AF_INET6, g.raw, g.str, sizeof(g.str));
		if (!rblk_sysfs_path(path, sizeof(path), "%s/gid_attrs/types/%u", portdir, idx[i]) &&
		    !rblk_sysfs_read_str(path, buf, sizeof(buf)))
			rblk_gid_type_parse(buf, p->link_layer, &g.type);
		if (!rblk_sysfs_path(path, sizeof(path), "%s/gid_attrs/ndevs/%u", portdir, idx[i]) &&
		    rblk_sysfs_read_str(path, g.netdev, sizeof(g.netdev)))
			g.netdev[0] = '\0';
		if (!(p->gid_count & 15)) {
			struct rblk_gid_info *ng =
				realloc(p->gids, (p->gid_count + 16) * sizeof(*ng));

			if (!ng) {
				free(idx);
				return -ENOMEM;
			}
			p->gids = ng;
		}
		p->gids[p->gid_count++] = g;
	}
	free(idx);
	return 0;
}

static int read_port(const char *devdir, const char *parent, unsigned num, struct rblk_port_info *p)
{
	char portdir[384], path[512], buf[64];

	memset(p, 0, sizeof(*p));
	p->port_num = num;
	if (rblk_sysfs_path(portdir, sizeof(portdir), "%s/ports/%u", devdir, num))
		return -ENAMETOOLONG;
	if (!rblk_sysfs_path(path, sizeof(path), "%s/state", portdir) &&
	    !rblk_sysfs_read_str(path, buf, sizeof(buf))) {
		unsigned st;

		if (!parse_num_colon(buf, &st, NULL, 0))
			p->state = (enum rblk_port_state)st;
	}
	if (!rblk_sysfs_path(path, sizeof(path), "%s/phys_state", portdir) &&
	    !rblk_sysfs_read_str(path, buf, sizeof(buf)))
		parse_num_colon(buf, &p->phys_state, p->phys_state_str, sizeof(p->phys_state_str));
	if (!rblk_sysfs_path(path, sizeof(path), "%s/link_layer", portdir) &&
	    !rblk_sysfs_read_str(path, buf, sizeof(buf)))
		p->link_layer = !strcmp(buf, "Ethernet")     ? RBLK_LINK_ETHERNET
				: !strcmp(buf, "InfiniBand") ? RBLK_LINK_INFINIBAND
							     : RBLK_LINK_UNKNOWN;
	if (rblk_sysfs_path(path, sizeof(path), "%s/rate", portdir) ||
	    rblk_sysfs_read_str(path, p->rate, sizeof(p->rate)))
		p->rate[0] = '\0';
	if (read_gids(portdir, p))
		return -ENOMEM;
	if (p->link_layer == RBLK_LINK_ETHERNET) {
		if (p->gid_count && p->gids[0].index == 0 && p->gids[0].netdev[0])
			snprintf(p->netdev, sizeof(p->netdev), "%s", p->gids[0].netdev);
		else
			snprintf(p->netdev, sizeof(p->netdev), "%s", parent);
	}
	return 0;
}

/* MTU, speed and limits: only verbs knows them. Best effort. */
static void fill_from_verbs(struct rblk_rdma_dev_info *d)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr a;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return;
	for (int i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), d->name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		RBLK_DEBUG("%s: cannot open the device for its limits", d->name);
		return;
	}
	if (!ibv_query_device(ctx, &a)) {
		d->have_limits = true;
		d->max_qp_wr = (uint32_t)a.max_qp_wr;
		d->max_qp_rd_atom = (uint32_t)a.max_qp_rd_atom;
		d->max_qp_init_rd_atom = (uint32_t)a.max_qp_init_rd_atom;
		d->max_sge = (uint32_t)a.max_sge;
		d->max_cqe = (uint32_t)a.max_cqe;
		d->max_mr_size = a.max_mr_size;
	}
	for (unsigned i = 0; i < d->port_count; i++) {
		struct rblk_port_info *p = &d->ports[i];
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx, (uint8_t)p->port_num, &pa))
			continue;
		p->active_mtu = rblk_ib_mtu_bytes(pa.active_mtu);
		p->max_mtu = rblk_ib_mtu_bytes(pa.max_mtu);
		p->active_width = pa.active_width;
		p->active_speed = pa.active_speed;
		if (!p->rate[0])
			rblk_rate_str(pa.active_width, pa.active_speed, p->rate, sizeof(p->rate));
	}
	ibv_close_device(ctx);
}

static int read_device(const char *root, const char *name, bool use_verbs,
		       struct rblk_rdma_dev_info *d)
{
	char devdir[320], path[512], buf[64];
	unsigned *ports = NULL, nports = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (rblk_sysfs_path(devdir, sizeof(devdir), "%s/class/infiniband/%s", root, name))
		return -ENAMETOOLONG;
	if (!rblk_sysfs_path(path, sizeof(path), "%s/node_guid", devdir) &&
	    !rblk_sysfs_read_str(path, d->node_guid_str, sizeof(d->node_guid_str)))
		parse_guid(d->node_guid_str, &d->node_guid);
	if (!rblk_sysfs_path(path, sizeof(path), "%s/node_type", devdir) &&
	    !rblk_sysfs_read_str(path, buf, sizeof(buf)))
		parse_num_colon(buf, &d->node_type, d->node_type_str, sizeof(d->node_type_str));
	if (rblk_sysfs_path(path, sizeof(path), "%s/fw_ver", devdir) ||
	    rblk_sysfs_read_str(path, d->fw_ver, sizeof(d->fw_ver)))
		d->fw_ver[0] = '\0';
	if (rblk_sysfs_path(path, sizeof(path), "%s/parent", devdir) ||
	    rblk_sysfs_read_str(path, d->parent, sizeof(d->parent)))
		d->parent[0] = '\0';

	if (rblk_sysfs_path(path, sizeof(path), "%s/ports", devdir))
		return -ENAMETOOLONG;
	ret = rblk_sysfs_list_numeric(path, &ports, &nports);
	if (ret && ret != -ENOENT)
		return ret;
	if (nports) {
		d->ports = calloc(nports, sizeof(*d->ports));
		if (!d->ports) {
			free(ports);
			return -ENOMEM;
		}
	}
	for (unsigned i = 0; i < nports; i++) {
		ret = read_port(devdir, d->parent, ports[i], &d->ports[i]);
		d->port_count = i + 1;
		if (ret) {
			free(ports);
			return ret;
		}
	}
	free(ports);
	if (use_verbs)
		fill_from_verbs(d);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rblk_rdma_dev_list_free(struct rblk_rdma_dev_info *devs, int n)
{
	if (!devs)
		return;
	for (int i = 0; i < n; i++) {
		for (unsigned p = 0; p < devs[i].port_count; p++)
			free(devs[i].ports[p].gids);
		free(devs[i].ports);
	}
	free(devs);
}

int rblk_rdma_dev_list_at(const char *sysfs_root, struct rblk_rdma_dev_info **out, int *n)
{
	const char *root = sysfs_root ? sysfs_root : RBLK_SYSFS_DEFAULT_ROOT;
	bool use_verbs = !strcmp(root, RBLK_SYSFS_DEFAULT_ROOT);
	struct rblk_rdma_dev_info *devs = NULL;
	char **names = NULL;
	char dir[256];
	struct dirent *de;
	int cnt = 0, cap = 0, ret = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (rblk_sysfs_path(dir, sizeof(dir), "%s/class/infiniband", root))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;	/* no RDMA in this kernel: no devices */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (cnt == cap) {
			int ncap = cap ? cap * 2 : 8;
			char **nn = realloc(names, (size_t)ncap * sizeof(*nn));

			if (!nn) {
				ret = -ENOMEM;
				goto out_names;
			}
			names = nn;
			cap = ncap;
		}
		names[cnt] = strdup(de->d_name);
		if (!names[cnt]) {
			ret = -ENOMEM;
			goto out_names;
		}
		cnt++;
	}
	if (!cnt)
		goto out_names;
	qsort(names, (size_t)cnt, sizeof(*names), cmp_name);
	devs = calloc((size_t)cnt, sizeof(*devs));
	if (!devs) {
		ret = -ENOMEM;
		goto out_names;
	}
	for (int i = 0; i < cnt; i++) {
		ret = read_device(root, names[i], use_verbs, &devs[i]);
		if (ret) {
			rblk_rdma_dev_list_free(devs, i + 1);
			devs = NULL;
			goto out_names;
		}
	}
	*out = devs;
	*n = cnt;
out_names:
	closedir(d);
	for (int i = 0; i < cnt; i++)
		free(names[i]);
	free(names);
	return ret;
}

int rblk_rdma_dev_list(struct rblk_rdma_dev_info **out, int *n)
{
	return rblk_rdma_dev_list_at(NULL, out, n);
}

/* Prefer a RoCE v2 entry: that is the one rdma_cm uses for IP addresses when present. */
static bool better_match(const struct rblk_addr_dev *cur, enum rblk_gid_type t)
{
	return cur->gid_index < 0 || (t == RBLK_GID_ROCE_V2 && cur->gid_type != RBLK_GID_ROCE_V2);
}

static void scan_gids(const struct rblk_rdma_dev_info *devs, int n, const uint8_t want[16],
		      const char *only_dev, unsigned only_port, struct rblk_addr_dev *out)
{
	for (int i = 0; i < n; i++) {
		if (only_dev && strcmp(devs[i].name, only_dev))
			continue;
		for (unsigned p = 0; p < devs[i].port_count; p++) {
			const struct rblk_port_info *pi = &devs[i].ports[p];

			if (only_port && pi->port_num != only_port)
				continue;
			for (unsigned g = 0; g < pi->gid_count; g++) {
				const struct rblk_gid_info *gi = &pi->gids[g];

				if (memcmp(gi->raw, want, 16) || !better_match(out, gi->type))
					continue;
				snprintf(out->dev, sizeof(out->dev), "%s", devs[i].name);
				out->port_num = pi->port_num;
				out->gid_index = (int)gi->index;
				out->gid_type = gi->type;
				snprintf(out->netdev, sizeof(out->netdev), "%s",
					 gi->netdev[0] ? gi->netdev : pi->netdev);
			}
		}
	}
}

int rblk_rdma_dev_for_addr_sysfs(const char *sysfs_root, const struct sockaddr *sa,
				 struct rblk_addr_dev *out)
{
	struct rblk_rdma_dev_info *devs;
	uint8_t want[16];
	int n, ret;

	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	if (rblk_addr_to_gid(sa, want))
		return -EAFNOSUPPORT;
	if (rblk_addr_is_any(sa))
		return -EINVAL;
	ret = rblk_rdma_dev_list_at(sysfs_root, &devs, &n);
	if (ret)
		return ret;
	scan_gids(devs, n, want, NULL, 0, out);
	rblk_rdma_dev_list_free(devs, n);
	return out->gid_index >= 0 ? 0 : -ENODEV;
}

int rblk_rdma_dev_for_addr(const struct sockaddr *sa, struct rblk_addr_dev *out)
{
	struct rblk_cm_channel *ch;
	struct rblk_cm_id *id;
	struct rblk_device *dev;
	struct rblk_rdma_dev_info *devs;
	uint8_t want[16];
	int n, ret;

	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	if (rblk_addr_to_gid(sa, want))
		return -EAFNOSUPPORT;
	if (rblk_addr_is_any(sa))
		return -EINVAL;
	ret = rblk_cm_channel_create(false, &ch);
	if (ret) {
		/* No rdma_cm (module not loaded, no RDMA in the kernel): GID tables only. */
		RBLK_DEBUG("rdma_cm unavailable (%s); looking in the GID tables", strerror(-ret));
		return rblk_rdma_dev_for_addr_sysfs(NULL, sa, out);
	}
	ret = rblk_cm_id_create(ch, NULL, &id);
	if (ret)
		goto out_channel;
	/* Bound like the listener will be: rdma_cm picks the device that owns the address. */
	ret = rblk_cm_bind(id, sa);
	if (ret)
		goto out_id;
	dev = rblk_cm_id_device(id);
	if (!dev) {
		ret = -ENODEV;
		goto out_id;
	}
	snprintf(out->dev, sizeof(out->dev), "%s", rblk_device_name(dev));
	out->port_num = rblk_cm_id_port_num(id);
	if (!rblk_rdma_dev_list(&devs, &n)) {
		struct rblk_addr_dev g = { .gid_index = -1 };

		scan_gids(devs, n, want, out->dev, out->port_num, &g);
		out->gid_index = g.gid_index;
		out->gid_type = g.gid_type;
		snprintf(out->netdev, sizeof(out->netdev), "%s", g.netdev);
		rblk_rdma_dev_list_free(devs, n);
	}
out_id:
	rblk_cm_id_destroy(id);
out_channel:
	rblk_cm_channel_destroy(ch);
	return ret;
}
