/* SPDX-License-Identifier: MIT */
/*
 * RDMA device inventory for `rblk doctor` and for the target's start-up
 * check ("which device serves this address, on which port, with which GID").
 * Enumeration reads sysfs (so tests can point it at a fake tree), then fills
 * in what only verbs knows (MTU, limits) when the device can be opened.
 */
#ifndef RBLK_TRANSPORT_DEVICE_H
#define RBLK_TRANSPORT_DEVICE_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define RBLK_DEV_NAME_MAX 64

/* IBA port states; values are the PortInfo PortState encoding. */
enum rblk_port_state {
	RBLK_PORT_NOP = 0,
	RBLK_PORT_DOWN = 1,
	RBLK_PORT_INIT = 2,
	RBLK_PORT_ARMED = 3,
	RBLK_PORT_ACTIVE = 4,
	RBLK_PORT_ACTIVE_DEFER = 5,
};
/* "DOWN", "INIT", "ARMED", "ACTIVE", ...; "?" if unknown. */
const char *rblk_port_state_str(enum rblk_port_state s);

enum rblk_link_layer {
	RBLK_LINK_UNKNOWN,
	RBLK_LINK_INFINIBAND,
	RBLK_LINK_ETHERNET,
};
/* "InfiniBand", "Ethernet", "unknown". */
const char *rblk_link_layer_str(enum rblk_link_layer l);

enum rblk_gid_type {
	RBLK_GID_UNKNOWN,
	RBLK_GID_IB,
	RBLK_GID_ROCE_V1,
	RBLK_GID_ROCE_V2,
};
/* "IB", "RoCE v1", "RoCE v2", "unknown". */
const char *rblk_gid_type_str(enum rblk_gid_type t);
/*
 * Parses sysfs gid_attrs/types/<i>. The kernel prints "IB/RoCE v1" for both
 * IB and RoCE v1 GIDs (one enum value), so the link layer decides.
 * Returns 0 or -EINVAL.
 */
int rblk_gid_type_parse(const char *s, enum rblk_link_layer ll, enum rblk_gid_type *out);

/* IB MTU enum value (1..5) to bytes (256..4096); 0 for anything else. */
unsigned rblk_ib_mtu_bytes(int ib_mtu);
/*
 * Link rate from verbs' active_width/active_speed codes: "10 Gb/s (1X FDR10)"
 * style, written to @buf. Unknown codes give "unknown". Returns @buf.
 */
const char *rblk_rate_str(uint8_t active_width, uint8_t active_speed, char *buf, size_t len);

struct rblk_gid_info {
	unsigned index;
	uint8_t raw[16];
	char str[INET6_ADDRSTRLEN];	/* "fe80::...", "::ffff:10.99.0.1" */
	enum rblk_gid_type type;
	char netdev[IF_NAMESIZE];	/* "" for IB or unknown */
};

struct rblk_port_info {
	unsigned port_num;
	enum rblk_port_state state;
	unsigned phys_state;		/* IBA PortPhysicalState, 5 = LinkUp */
	char phys_state_str[32];	/* "LinkUp", as sysfs words it */
	enum rblk_link_layer link_layer;
	char rate[48];			/* sysfs `rate`, e.g. "10 Gb/sec (1X FDR10)" */
	char netdev[IF_NAMESIZE];	/* Ethernet ports: the netdev behind GID 0 */
	/* From verbs; 0 when the device could not be opened. */
	unsigned active_mtu;		/* bytes */
	unsigned max_mtu;		/* bytes */
	uint8_t active_width, active_speed;
	unsigned gid_count;		/* non-zero GIDs only */
	struct rblk_gid_info *gids;
};

struct rblk_rdma_dev_info {
	char name[RBLK_DEV_NAME_MAX];
	uint64_t node_guid;		/* host order */
	char node_guid_str[24];		/* "ec98:4fff:fe10:6a56", as sysfs prints it */
	unsigned node_type;		/* 1 = CA, 2 = switch, 3 = router, 4 = RNIC */
	char node_type_str[16];		/* "CA" */
	char fw_ver[64];
	char parent[IF_NAMESIZE];	/* rxe/siw: the netdev they were created on */
	unsigned port_count;
	struct rblk_port_info *ports;
	bool have_limits;		/* false: verbs could not open the device */
	uint32_t max_qp_wr, max_qp_rd_atom, max_qp_init_rd_atom, max_sge, max_cqe;
	uint64_t max_mr_size;
};

/*
 * Every RDMA device: *n = 0 and *out = NULL when there is none (a kernel
 * without RDMA is not an error). Free with rblk_rdma_dev_list_free().
 */
int rblk_rdma_dev_list(struct rblk_rdma_dev_info **out, int *n);
/* The same over another sysfs root (tests); verbs is not consulted unless root is "/sys". */
int rblk_rdma_dev_list_at(const char *sysfs_root, struct rblk_rdma_dev_info **out, int *n);
void rblk_rdma_dev_list_free(struct rblk_rdma_dev_info *devs, int n);

/* Where an IP address lives on the RDMA side. */
struct rblk_addr_dev {
	char dev[RBLK_DEV_NAME_MAX];
	unsigned port_num;
	int gid_index;			/* -1 when not found in the table */
	enum rblk_gid_type gid_type;
	char netdev[IF_NAMESIZE];
};

/*
 * Which RDMA device and port serve @sa: asks rdma_cm (bind a temporary id to
 * the address, as the listener will) and then looks the address's GID up in
 * the port's table. -ENODEV: no RDMA device serves it (or RDMA is not
 * available at all); -EADDRNOTAVAIL: the address is not local; -EINVAL: a
 * wildcard address (it is served by every device).
 */
int rblk_rdma_dev_for_addr(const struct sockaddr *sa, struct rblk_addr_dev *out);
/*
 * The GID-table half alone, over a sysfs root (tests, and a fallback when
 * rdma_cm is unavailable): the first port whose table holds @sa's GID,
 * preferring RoCE v2. -ENODEV when none does.
 */
int rblk_rdma_dev_for_addr_sysfs(const char *sysfs_root, const struct sockaddr *sa,
				 struct rblk_addr_dev *out);

#endif
