/* SPDX-License-Identifier: MIT */
/*
 * Port counters from sysfs and the choice of a "bytes that crossed the
 * device" figure (see counters.h for the sources and their caveats).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "transport/counters.h"
#include "transport/sysfs.h"

enum pc_dir { DIR_PMA, DIR_HW, DIR_NET };

static const struct {
	const char *name;
	enum pc_dir dir;
	unsigned scale;		/* value x scale = what we store */
	bool error;		/* stays at zero on a healthy link */
} pc_table[RBLK_PC_COUNT] = {
	[RBLK_PC_XMIT_BYTES] = { "port_xmit_data", DIR_PMA, 4, false },
	[RBLK_PC_RCV_BYTES] = { "port_rcv_data", DIR_PMA, 4, false },
	[RBLK_PC_XMIT_PACKETS] = { "port_xmit_packets", DIR_PMA, 1, false },
	[RBLK_PC_RCV_PACKETS] = { "port_rcv_packets", DIR_PMA, 1, false },
	[RBLK_PC_SYMBOL_ERROR] = { "symbol_error", DIR_PMA, 1, true },
	[RBLK_PC_LINK_ERROR_RECOVERY] = { "link_error_recovery", DIR_PMA, 1, true },
	[RBLK_PC_LINK_DOWNED] = { "link_downed", DIR_PMA, 1, true },
	[RBLK_PC_RCV_ERRORS] = { "port_rcv_errors", DIR_PMA, 1, true },
	[RBLK_PC_RCV_REMOTE_PHYSICAL_ERRORS] = { "port_rcv_remote_physical_errors", DIR_PMA, 1, true },
	[RBLK_PC_RCV_SWITCH_RELAY_ERRORS] = { "port_rcv_switch_relay_errors", DIR_PMA, 1, true },
	[RBLK_PC_XMIT_DISCARDS] = { "port_xmit_discards", DIR_PMA, 1, true },
	[RBLK_PC_XMIT_CONSTRAINT_ERRORS] = { "port_xmit_constraint_errors", DIR_PMA, 1, true },
	[RBLK_PC_RCV_CONSTRAINT_ERRORS] = { "port_rcv_constraint_errors", DIR_PMA, 1, true },
	[RBLK_PC_LOCAL_LINK_INTEGRITY_ERRORS] = { "local_link_integrity_errors", DIR_PMA, 1, true },
	[RBLK_PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = { "excessive_buffer_overrun_errors", DIR_PMA, 1, true },
	[RBLK_PC_VL15_DROPPED] = { "VL15_dropped", DIR_PMA, 1, true },
	[RBLK_PC_XMIT_WAIT] = { "port_xmit_wait", DIR_PMA, 1, false },
	[RBLK_PC_HW_SENT_PKTS] = { "sent_pkts", DIR_HW, 1, false },
	[RBLK_PC_HW_RCVD_PKTS] = { "rcvd_pkts", DIR_HW, 1, false },
	[RBLK_PC_HW_DUPLICATE_REQUEST] = { "duplicate_request", DIR_HW, 1, true },
	[RBLK_PC_HW_OUT_OF_SEQ_REQUEST] = { "out_of_seq_request", DIR_HW, 1, true },
	[RBLK_PC_HW_RCVD_RNR_ERR] = { "rcvd_rnr_err", DIR_HW, 1, true },
	[RBLK_PC_HW_SEND_RNR_ERR] = { "send_rnr_err", DIR_HW, 1, true },
	[RBLK_PC_HW_RCVD_SEQ_ERR] = { "rcvd_seq_err", DIR_HW, 1, true },
	[RBLK_PC_HW_ACK_DEFERRED] = { "ack_deferred", DIR_HW, 1, false },
	[RBLK_PC_HW_RETRY_EXCEEDED_ERR] = { "retry_exceeded_err", DIR_HW, 1, true },
	[RBLK_PC_HW_RETRY_RNR_EXCEEDED_ERR] = { "retry_rnr_exceeded_err", DIR_HW, 1, true },
	[RBLK_PC_HW_COMPLETER_RETRY_ERR] = { "completer_retry_err", DIR_HW, 1, true },
	[RBLK_PC_HW_SEND_ERR] = { "send_err", DIR_HW, 1, true },
	[RBLK_PC_HW_LINK_DOWNED] = { "link_downed", DIR_HW, 1, true },
	[RBLK_PC_HW_RDMA_SENDS] = { "rdma_sends", DIR_HW, 1, false },
	[RBLK_PC_HW_RDMA_RECVS] = { "rdma_recvs", DIR_HW, 1, false },
	[RBLK_PC_HW_OUT_OF_BUFFER] = { "out_of_buffer", DIR_HW, 1, true },
	[RBLK_PC_HW_OUT_OF_SEQUENCE] = { "out_of_sequence", DIR_HW, 1, true },
	[RBLK_PC_HW_PACKET_SEQ_ERR] = { "packet_seq_err", DIR_HW, 1, true },
	[RBLK_PC_HW_LOCAL_ACK_TIMEOUT_ERR] = { "local_ack_timeout_err", DIR_HW, 1, true },
	[RBLK_PC_HW_RNR_NAK_RETRY_ERR] = { "rnr_nak_retry_err", DIR_HW, 1, true },
	[RBLK_PC_HW_IMPLIED_NAK_SEQ_ERR] = { "implied_nak_seq_err", DIR_HW, 1, true },
	[RBLK_PC_NET_TX_BYTES] = { "tx_bytes", DIR_NET, 1, false },
	[RBLK_PC_NET_RX_BYTES] = { "rx_bytes", DIR_NET, 1, false },
	[RBLK_PC_NET_TX_PACKETS] = { "tx_packets", DIR_NET, 1, false },
	[RBLK_PC_NET_RX_PACKETS] = { "rx_packets", DIR_NET, 1, false },
	[RBLK_PC_NET_TX_ERRORS] = { "tx_errors", DIR_NET, 1, true },
	[RBLK_PC_NET_RX_ERRORS] = { "rx_errors", DIR_NET, 1, true },
	[RBLK_PC_NET_TX_DROPPED] = { "tx_dropped", DIR_NET, 1, true },
	[RBLK_PC_NET_RX_DROPPED] = { "rx_dropped", DIR_NET, 1, true },
};

_Static_assert(RBLK_PC_COUNT <= 64, "avail/reset masks are 64 bits");

#define PC_BIT(i) (1ULL << (i))

const char *rblk_pc_name(enum rblk_pc c)
{
	return (unsigned)c < RBLK_PC_COUNT ? pc_table[c].name : NULL;
}

const char *rblk_pc_source(enum rblk_pc c)
{
	if ((unsigned)c >= RBLK_PC_COUNT)
		return NULL;
	switch (pc_table[c].dir) {
	case DIR_PMA:
		return "counters";
	case DIR_HW:
		return "hw_counters";
	case DIR_NET:
		return "netdev";
	}
	return NULL;
}

bool rblk_pc_is_error(enum rblk_pc c)
{
	return (unsigned)c < RBLK_PC_COUNT && pc_table[c].error;
}

/* The netdev behind the port: GID 0's ndev (any RoCE device), else `parent` (rxe). */
static void find_netdev(const char *root, const char *dev, int port, char *out, size_t len)
{
	char path[512];

	out[0] = '\0';
	if (!rblk_sysfs_path(path, sizeof(path), "%s/class/infiniband/%s/ports/%d/gid_attrs/ndevs/0",
			     root, dev, port) &&
	    !rblk_sysfs_read_str(path, out, len) && out[0])
		return;
	out[0] = '\0';
	if (!rblk_sysfs_path(path, sizeof(path), "%s/class/infiniband/%s/parent", root, dev) &&
	    !rblk_sysfs_read_str(path, out, len) && out[0])
		return;
	out[0] = '\0';
}

int rblk_port_counters_read(const char *sysfs_root, const char *dev, int port,
			    struct rblk_port_counters *out)
{
	const char *root = sysfs_root ? sysfs_root : RBLK_SYSFS_DEFAULT_ROOT;
	char portdir[384], path[512];
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!dev || !*dev || strchr(dev, '/') || port < 1)
		return -EINVAL;
	ret = rblk_sysfs_path(portdir, sizeof(portdir), "%s/class/infiniband/%s/ports/%d",
			      root, dev, port);
	if (ret)
		return ret;
	if (stat(portdir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	find_netdev(root, dev, port, out->netdev, sizeof(out->netdev));

	for (unsigned i = 0; i < RBLK_PC_COUNT; i++) {
		uint64_t v;

		switch (pc_table[i].dir) {
		case DIR_PMA:
			ret = rblk_sysfs_path(path, sizeof(path), "%s/counters/%s", portdir,
					      pc_table[i].name);
			break;
		case DIR_HW:
			ret = rblk_sysfs_path(path, sizeof(path), "%s/hw_counters/%s", portdir,
					      pc_table[i].name);
			break;
		case DIR_NET:
			if (!out->netdev[0])
				continue;
			ret = rblk_sysfs_path(path, sizeof(path), "%s/class/net/%s/statistics/%s",
					      root, out->netdev, pc_table[i].name);
			break;
		}
		if (ret || rblk_sysfs_read_u64(path, &v))
			continue;
		out->v[i] = v * pc_table[i].scale;
		out->avail |= PC_BIT(i);
	}
	return 0;
}

void rblk_port_counters_delta(const struct rblk_port_counters *before,
			      const struct rblk_port_counters *after,
			      struct rblk_port_counters *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->netdev, after->netdev, sizeof(out->netdev));
	out->avail = before->avail & after->avail;
	/* A different netdev behind the port makes its counters incomparable. */
	if (strcmp(before->netdev, after->netdev)) {
		for (unsigned i = 0; i < RBLK_PC_COUNT; i++)
			if (pc_table[i].dir == DIR_NET)
				out->avail &= ~PC_BIT(i);
	}
	for (unsigned i = 0; i < RBLK_PC_COUNT; i++) {
		if (!(out->avail & PC_BIT(i)))
			continue;
		if (after->v[i] >= before->v[i]) {
			out->v[i] = after->v[i] - before->v[i];
		} else {
			out->v[i] = after->v[i];
			out->reset |= PC_BIT(i);
		}
	}
}

const char *rblk_bytes_source_str(enum rblk_bytes_source s)
{
	switch (s) {
	case RBLK_BYTES_NONE:
		return "none";
	case RBLK_BYTES_PORT_DATA:
		return "port_data";
	case RBLK_BYTES_NETDEV:
		return "netdev";
	case RBLK_BYTES_PKTS_MTU:
		return "pkts_x_mtu";
	}
	return "?";
}

static bool have(const struct rblk_port_counters *c, enum rblk_pc a, enum rblk_pc b)
{
	return rblk_pc_avail(c, a) && rblk_pc_avail(c, b);
}

int rblk_port_bytes(const struct rblk_port_counters *delta, unsigned mtu,
		    struct rblk_port_bytes *out)
{
	bool have_hw = have(delta, RBLK_PC_HW_SENT_PKTS, RBLK_PC_HW_RCVD_PKTS);
	uint64_t hw_pkts = 0;

	memset(out, 0, sizeof(*out));
	if (have_hw)
		hw_pkts = delta->v[RBLK_PC_HW_SENT_PKTS] + delta->v[RBLK_PC_HW_RCVD_PKTS];

	if (have(delta, RBLK_PC_XMIT_BYTES, RBLK_PC_RCV_BYTES)) {
		out->tx = delta->v[RBLK_PC_XMIT_BYTES];
		out->rx = delta->v[RBLK_PC_RCV_BYTES];
		out->source = RBLK_BYTES_PORT_DATA;
		out->exact = true;
		snprintf(out->desc, sizeof(out->desc),
			 "counters/port_xmit_data + port_rcv_data (x4: IB counts 4-byte words)");
		return 0;
	}
	if (have(delta, RBLK_PC_NET_TX_BYTES, RBLK_PC_NET_RX_BYTES) &&
	    have(delta, RBLK_PC_NET_TX_PACKETS, RBLK_PC_NET_RX_PACKETS)) {
		uint64_t net_pkts = delta->v[RBLK_PC_NET_TX_PACKETS] +
				    delta->v[RBLK_PC_NET_RX_PACKETS];

		if (!have_hw || (hw_pkts > 0 && net_pkts >= hw_pkts)) {
			out->tx = delta->v[RBLK_PC_NET_TX_BYTES];
			out->rx = delta->v[RBLK_PC_NET_RX_BYTES];
			out->source = RBLK_BYTES_NETDEV;
			out->exact = true;
			snprintf(out->desc, sizeof(out->desc),
				 "netdev %s statistics/tx_bytes + rx_bytes (RoCE frames with headers; "
				 "no counters/port_*_data on this port)", delta->netdev);
			return 0;
		}
	}
	if (have_hw) {
		uint64_t m = mtu ? mtu : 4096;

		out->tx = delta->v[RBLK_PC_HW_SENT_PKTS] * m;
		out->rx = delta->v[RBLK_PC_HW_RCVD_PKTS] * m;
		out->source = RBLK_BYTES_PKTS_MTU;
		out->exact = false;
		snprintf(out->desc, sizeof(out->desc),
			 "hw_counters/sent_pkts + rcvd_pkts x %llu-byte MTU (upper bound: no byte "
			 "counter%s)", (unsigned long long)m,
			 rblk_pc_avail(delta, RBLK_PC_NET_TX_BYTES)
				 ? "; the netdev saw fewer packets, so the traffic bypassed it"
				 : "");
		return 0;
	}
	out->source = RBLK_BYTES_NONE;
	snprintf(out->desc, sizeof(out->desc), "no byte or packet counters on this port");
	return -ENODATA;
}
