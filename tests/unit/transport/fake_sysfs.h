/* SPDX-License-Identifier: MIT */
/*
 * Fake sysfs trees in a temp directory for the transport tests. The rxe0
 * tree copies what Soft-RoCE on Linux 6.1 shows (captured in the VM): no
 * counters/ directory, packets-only hw_counters/, two GIDs, a parent netdev.
 * mlx5_0 is an InfiniBand HCA with IB PMA counters/.
 */
#ifndef RBLK_UT_FAKE_SYSFS_H
#define RBLK_UT_FAKE_SYSFS_H

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int fs_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A new empty root; remove with fs_destroy(). */
static inline char *fs_create(void)
{
	char tmpl[] = "/tmp/rblk-sysfs-XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

static inline void fs_destroy(char *root)
{
	if (!root)
		return;
	nftw(root, fs_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}

static inline int fs_mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* Writes @content (plus a newline, as sysfs does) to root/relpath, creating directories. */
static inline int fs_write(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int fs_write(const char *root, const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX];
	char *slash;
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (fs_mkdirs(path))
		return -1;
	*slash = '/';
	f = fopen(path, "w");
	if (!f)
		return -1;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	return fclose(f);
}

#define RXE0 "class/infiniband/rxe0/"
#define RXE0P RXE0 "ports/1/"

static inline void fs_add_rxe0(const char *r, unsigned long long sent, unsigned long long rcvd)
{
	fs_write(r, RXE0 "node_guid", "ec98:4fff:fe10:6a56");
	fs_write(r, RXE0 "node_type", "1: CA");
	fs_write(r, RXE0 "fw_ver", "%s", "");
	fs_write(r, RXE0 "parent", "veth0");
	fs_write(r, RXE0P "state", "4: ACTIVE");
	fs_write(r, RXE0P "phys_state", "5: LinkUp");
	fs_write(r, RXE0P "link_layer", "Ethernet");
	fs_write(r, RXE0P "rate", "10 Gb/sec (1X FDR10)");
	fs_write(r, RXE0P "gids/0", "fe80:0000:0000:0000:ec98:4fff:fe10:6a56");
	fs_write(r, RXE0P "gids/1", "0000:0000:0000:0000:0000:ffff:0a63:0001");
	fs_write(r, RXE0P "gids/2", "0000:0000:0000:0000:0000:0000:0000:0000");
	fs_write(r, RXE0P "gids/10", "0000:0000:0000:0000:0000:0000:0000:0000");
	fs_write(r, RXE0P "gid_attrs/types/0", "RoCE v2");
	fs_write(r, RXE0P "gid_attrs/types/1", "RoCE v2");
	fs_write(r, RXE0P "gid_attrs/ndevs/0", "veth0");
	fs_write(r, RXE0P "gid_attrs/ndevs/1", "veth0");
	fs_write(r, RXE0P "hw_counters/sent_pkts", "%llu", sent);
	fs_write(r, RXE0P "hw_counters/rcvd_pkts", "%llu", rcvd);
	fs_write(r, RXE0P "hw_counters/rdma_sends", "42");
	fs_write(r, RXE0P "hw_counters/rdma_recvs", "41");
	fs_write(r, RXE0P "hw_counters/duplicate_request", "0");
	fs_write(r, RXE0P "hw_counters/retry_exceeded_err", "3");
	fs_write(r, RXE0P "hw_counters/lifespan", "12");
}

static inline void fs_add_netdev(const char *r, const char *ndev, unsigned long long tx_bytes,
				 unsigned long long rx_bytes, unsigned long long tx_pkts,
				 unsigned long long rx_pkts)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/net/%s/statistics/tx_bytes", ndev);
	fs_write(r, rel, "%llu", tx_bytes);
	snprintf(rel, sizeof(rel), "class/net/%s/statistics/rx_bytes", ndev);
	fs_write(r, rel, "%llu", rx_bytes);
	snprintf(rel, sizeof(rel), "class/net/%s/statistics/tx_packets", ndev);
	fs_write(r, rel, "%llu", tx_pkts);
	snprintf(rel, sizeof(rel), "class/net/%s/statistics/rx_packets", ndev);
	fs_write(r, rel, "%llu", rx_pkts);
}

#define MLX "class/infiniband/mlx5_0/"
#define MLXP MLX "ports/1/"

/* port_xmit_data/port_rcv_data are in 4-byte words, as the IB PMA counts them. */
static inline void fs_add_mlx5(const char *r, unsigned long long xmit_words,
			       unsigned long long rcv_words)
{
	fs_write(r, MLX "node_guid", "0002:c903:0010:1234");
	fs_write(r, MLX "node_type", "1: CA");
	fs_write(r, MLX "fw_ver", "16.35.2000");
	fs_write(r, MLXP "state", "1: DOWN");
	fs_write(r, MLXP "phys_state", "3: Disabled");
	fs_write(r, MLXP "link_layer", "InfiniBand");
	fs_write(r, MLXP "rate", "100 Gb/sec (4X EDR)");
	fs_write(r, MLXP "gids/0", "fe80:0000:0000:0000:0002:c903:0010:1235");
	fs_write(r, MLXP "gid_attrs/types/0", "IB/RoCE v1");
	fs_write(r, MLXP "counters/port_xmit_data", "%llu", xmit_words);
	fs_write(r, MLXP "counters/port_rcv_data", "%llu", rcv_words);
	fs_write(r, MLXP "counters/port_xmit_packets", "1000");
	fs_write(r, MLXP "counters/port_rcv_packets", "900");
	fs_write(r, MLXP "counters/symbol_error", "0");
	fs_write(r, MLXP "counters/port_rcv_errors", "2");
	fs_write(r, MLXP "hw_counters/out_of_buffer", "7");
}

#endif
