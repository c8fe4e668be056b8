/* SPDX-License-Identifier: MIT */
/*
 * RDMA port counters, read from sysfs, as proof that bytes crossed an RDMA
 * device (`rblk bench`, `rblk doctor`, the VM smoke test).
 *
 * Three sources, none of which every device has:
 *   counters/       IB PortCounters (PMA). port_{xmit,rcv}_data count 4-byte
 *                   words (IBA 16.1.3.5); stored here in bytes. Real HCAs have
 *                   them; Soft-RoCE (rxe) does not create this directory.
 *   hw_counters/    provider-specific. rxe (Linux 6.1) exposes sent_pkts,
 *                   rcvd_pkts, duplicate_request, out_of_seq_request,
 *                   rcvd_rnr_err, send_rnr_err, rcvd_seq_err, ack_deferred,
 *                   retry_exceeded_err, retry_rnr_exceeded_err,
 *                   completer_retry_err, send_err, link_downed, rdma_sends,
 *                   rdma_recvs, lifespan; packets only, no bytes.
 *   the netdev      /sys/class/net/<ndev>/statistics of the Ethernet device
 *                   behind a RoCE port: counts the UDP-encapsulated frames,
 *                   headers included, plus any other traffic on it. rxe
 *                   short-cuts traffic between two local addresses inside the
 *                   kernel, and then the netdev sees nothing.
 * rblk_port_bytes() picks the best of them and says which it used.
 */
#ifndef RBLK_TRANSPORT_COUNTERS_H
#define RBLK_TRANSPORT_COUNTERS_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

enum rblk_pc {
	/* counters/ (IB PMA) */
	RBLK_PC_XMIT_BYTES,		/* port_xmit_data x 4 */
	RBLK_PC_RCV_BYTES,		/* port_rcv_data x 4 */
	RBLK_PC_XMIT_PACKETS,
	RBLK_PC_RCV_PACKETS,
	RBLK_PC_SYMBOL_ERROR,
	RBLK_PC_LINK_ERROR_RECOVERY,
	RBLK_PC_LINK_DOWNED,
	RBLK_PC_RCV_ERRORS,
	RBLK_PC_RCV_REMOTE_PHYSICAL_ERRORS,
	RBLK_PC_RCV_SWITCH_RELAY_ERRORS,
	RBLK_PC_XMIT_DISCARDS,
	RBLK_PC_XMIT_CONSTRAINT_ERRORS,
	RBLK_PC_RCV_CONSTRAINT_ERRORS,
	RBLK_PC_LOCAL_LINK_INTEGRITY_ERRORS,
	RBLK_PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	RBLK_PC_VL15_DROPPED,
	RBLK_PC_XMIT_WAIT,
	/* hw_counters/ (rxe's names first, then common mlx5 ones) */
	RBLK_PC_HW_SENT_PKTS,
	RBLK_PC_HW_RCVD_PKTS,
	RBLK_PC_HW_DUPLICATE_REQUEST,
	RBLK_PC_HW_OUT_OF_SEQ_REQUEST,
	RBLK_PC_HW_RCVD_RNR_ERR,
	RBLK_PC_HW_SEND_RNR_ERR,
	RBLK_PC_HW_RCVD_SEQ_ERR,
	RBLK_PC_HW_ACK_DEFERRED,
	RBLK_PC_HW_RETRY_EXCEEDED_ERR,
	RBLK_PC_HW_RETRY_RNR_EXCEEDED_ERR,
	RBLK_PC_HW_COMPLETER_RETRY_ERR,
	RBLK_PC_HW_SEND_ERR,
	RBLK_PC_HW_LINK_DOWNED,
	RBLK_PC_HW_RDMA_SENDS,
	RBLK_PC_HW_RDMA_RECVS,
	RBLK_PC_HW_OUT_OF_BUFFER,
	RBLK_PC_HW_OUT_OF_SEQUENCE,
	RBLK_PC_HW_PACKET_SEQ_ERR,
	RBLK_PC_HW_LOCAL_ACK_TIMEOUT_ERR,
	RBLK_PC_HW_RNR_NAK_RETRY_ERR,
	RBLK_PC_HW_IMPLIED_NAK_SEQ_ERR,
	/* /sys/class/net/<ndev>/statistics */
	RBLK_PC_NET_TX_BYTES,
	RBLK_PC_NET_RX_BYTES,
	RBLK_PC_NET_TX_PACKETS,
	RBLK_PC_NET_RX_PACKETS,
	RBLK_PC_NET_TX_ERRORS,
	RBLK_PC_NET_RX_ERRORS,
	RBLK_PC_NET_TX_DROPPED,
	RBLK_PC_NET_RX_DROPPED,
	RBLK_PC_COUNT
};

struct rblk_port_counters {
	uint64_t avail;			/* bit (1 << RBLK_PC_x): v[x] was read */
	uint64_t reset;			/* in a delta: the counter went backwards */
	uint64_t v[RBLK_PC_COUNT];
	char netdev[IF_NAMESIZE];	/* "" when the port has none */
};

/* sysfs file name ("port_xmit_data", "sent_pkts", "tx_bytes"); NULL if out of range. */
const char *rblk_pc_name(enum rblk_pc c);
/* "counters", "hw_counters" or "netdev". */
const char *rblk_pc_source(enum rblk_pc c);
/* True for counters that should stay at zero on a healthy link. */
bool rblk_pc_is_error(enum rblk_pc c);

static inline bool rblk_pc_avail(const struct rblk_port_counters *c, enum rblk_pc i)
{
	return (c->avail >> i) & 1;
}

/*
 * Reads every counter the port has. @sysfs_root NULL means "/sys". The
 * netdev is the one behind GID 0 (gid_attrs/ndevs/0), else the device's
 * `parent` attribute (rxe). Missing files are not errors: their avail bit
 * stays clear. Returns -ENOENT when the device/port does not exist.
 */
int rblk_port_counters_read(const char *sysfs_root, const char *dev, int port,
			    struct rblk_port_counters *out);

/*
 * @out = @after - @before for every counter available in both. A counter
 * that went backwards (device re-created, 32-bit PMA counter reset) yields
 * its @after value and sets its bit in out->reset.
 */
void rblk_port_counters_delta(const struct rblk_port_counters *before,
			      const struct rblk_port_counters *after,
			      struct rblk_port_counters *out);

enum rblk_bytes_source {
	RBLK_BYTES_NONE,	/* no counter can tell */
	RBLK_BYTES_PORT_DATA,	/* counters/port_{xmit,rcv}_data: exact, the port counted them */
	RBLK_BYTES_NETDEV,	/* netdev tx/rx_bytes: RoCE frames with their headers */
	RBLK_BYTES_PKTS_MTU,	/* hw_counters packets x MTU: a capacity bound, not a count */
};

struct rblk_port_bytes {
	uint64_t tx;
	uint64_t rx;
	enum rblk_bytes_source source;
	bool exact;		/* false for RBLK_BYTES_PKTS_MTU */
	char desc[192];		/* which files, and why this source */
};

/* "port_data", "netdev", "pkts_x_mtu", "none". */
const char *rblk_bytes_source_str(enum rblk_bytes_source s);

/*
 * "Bytes that crossed the device" from a delta, best source first:
 * counters/ data; else the netdev, but only if it saw at least as many
 * packets as the RDMA port sent and received (otherwise the RDMA traffic
 * went around it); else hw_counters packets x @mtu (the path MTU in bytes;
 * 0 means 4096, the largest, so the bound stays an upper bound). Returns 0,
 * or -ENODATA with source RBLK_BYTES_NONE.
 */
int rblk_port_bytes(const struct rblk_port_counters *delta, unsigned mtu,
		    struct rblk_port_bytes *out);

#endif
