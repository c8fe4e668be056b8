/* SPDX-License-Identifier: MIT */
/*
 * "Is it really RDMA?" for `rblk bench` (see cli/bench.h). A benchmark that
 * silently took another path (wrong address, another device) reports good
 * numbers for the wrong thing; the field guide's remedy is to read the RDMA
 * port counters before and after and check that they grew by at least the
 * bytes moved. The device is the one the kernel would use for the
 * connection: the one holding the local source address (-w, else the
 * route's), found as rdma_cm finds it.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench.h"
#include "cli/output.h"

const char *rblk_cli_rdma_verdict_str(enum cli_rdma_verdict v)
{
	switch (v) {
	case CLI_RDMA_OK: return "ok";
	case CLI_RDMA_MISMATCH: return "mismatch";
	default: return "unknown";
	}
}

int rblk_cli_route_source(const char *traddr, const char *port, struct sockaddr_storage *out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai;
	socklen_t len = sizeof(*out);
	int fd, ret;

	ret = getaddrinfo(traddr, port ? port : "4420", &hints, &ai);
	if (ret)
		return ret == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = connect(fd, ai->ai_addr, ai->ai_addrlen) || getsockname(fd, (struct sockaddr *)out, &len) ?
		      -errno : 0;
	close(fd);
out:
	freeaddrinfo(ai);
	return ret;
}

static unsigned port_mtu(const char *root, const char *dev, unsigned port)
{
	struct rblk_rdma_dev_info *devs;
	unsigned mtu = 0;
	int n;

	if ((root ? rblk_rdma_dev_list_at(root, &devs, &n) : rblk_rdma_dev_list(&devs, &n)) || !n)
		return 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(devs[i].name, dev))
			continue;
		for (unsigned p = 0; p < devs[i].port_count; p++)
			if (devs[i].ports[p].port_num == port)
				mtu = devs[i].ports[p].active_mtu;
	}
	rblk_rdma_dev_list_free(devs, n);
	return mtu;
}

void rblk_cli_rdma_check_begin(struct cli_rdma_check *c, const char *sysfs_root, const char *traddr,
			       const char *port, const char *host_traddr)
{
	struct sockaddr_storage local;
	struct rblk_addr_dev ad;
	int ret;

	memset(c, 0, sizeof(*c));
	c->verdict = CLI_RDMA_UNKNOWN;
	ret = host_traddr ? rblk_addr_parse(host_traddr, 0, &local) : rblk_cli_route_source(traddr, port, &local);
	if (ret) {
		snprintf(c->why, sizeof(c->why), "cannot tell the local address used to reach %s: %s",
			 traddr, strerror(-ret));
		return;
	}
	rblk_addr_host_str((struct sockaddr *)&local, c->local, sizeof(c->local));
	if (sysfs_root)
		ret = rblk_rdma_dev_for_addr_sysfs(sysfs_root, (struct sockaddr *)&local, &ad);
	else if ((ret = rblk_rdma_dev_for_addr((struct sockaddr *)&local, &ad)))
		ret = rblk_rdma_dev_for_addr_sysfs("/sys", (struct sockaddr *)&local, &ad);
	if (ret) {
		snprintf(c->why, sizeof(c->why),
			 "no RDMA device holds the local address %s (%s): the connection cannot be RDMA "
			 "from here; see `rblk doctor`",
			 c->local, strerror(-ret));
		return;
	}
	snprintf(c->dev, sizeof(c->dev), "%s", ad.dev);
	c->port = ad.port_num;
	c->mtu = port_mtu(sysfs_root, c->dev, c->port);
	ret = rblk_port_counters_read(sysfs_root, c->dev, (int)c->port, &c->before);
	if (ret) {
		snprintf(c->why, sizeof(c->why), "cannot read the counters of %s port %u: %s", c->dev,
			 c->port, strerror(-ret));
		return;
	}
	c->have_dev = true;
}

void rblk_cli_rdma_check_end(struct cli_rdma_check *c, const char *sysfs_root, uint64_t data_tx,
			     uint64_t data_rx)
{
	int ret;

	c->data_tx = data_tx;
	c->data_rx = data_rx;
	if (!c->have_dev)
		return;
	ret = rblk_port_counters_read(sysfs_root, c->dev, (int)c->port, &c->after);
	if (ret) {
		c->have_dev = false;
		snprintf(c->why, sizeof(c->why), "cannot read the counters of %s port %u again: %s",
			 c->dev, c->port, strerror(-ret));
		return;
	}
	rblk_port_counters_delta(&c->before, &c->after, &c->delta);
	rblk_cli_rdma_verdict(c);
}

static void count_errors(struct cli_rdma_check *c)
{
	size_t o = 0;

	c->errors = 0;
	c->error_names[0] = '\0';
	for (int i = 0; i < RBLK_PC_COUNT; i++) {
		if (!rblk_pc_is_error(i) || !rblk_pc_avail(&c->delta, i) || !c->delta.v[i])
			continue;
		c->errors += c->delta.v[i];
		if (o < sizeof(c->error_names) - 1)
			o += (size_t)snprintf(c->error_names + o, sizeof(c->error_names) - o, "%s%s +%llu",
					      o ? ", " : "", rblk_pc_name(i),
					      (unsigned long long)c->delta.v[i]);
	}
}

void rblk_cli_rdma_verdict(struct cli_rdma_check *c)
{
	char tx[32], rx[32], w[32], r[32];
	const char *bound;

	c->verdict = CLI_RDMA_UNKNOWN;
	if (!c->have_dev)
		return;
	count_errors(c);
	c->have_bytes = !rblk_port_bytes(&c->delta, c->mtu, &c->bytes);
	if (!c->have_bytes) {
		snprintf(c->why, sizeof(c->why), "%s port %u has no counter that tells bytes (%s)", c->dev,
			 c->port, c->bytes.desc);
		return;
	}
	if (!c->data_tx && !c->data_rx) {
		snprintf(c->why, sizeof(c->why), "nothing was moved");
		return;
	}
	rblk_cli_fmt_iec(c->bytes.tx, tx, sizeof(tx));
	rblk_cli_fmt_iec(c->bytes.rx, rx, sizeof(rx));
	rblk_cli_fmt_iec(c->data_tx, w, sizeof(w));
	rblk_cli_fmt_iec(c->data_rx, r, sizeof(r));
	bound = c->bytes.exact ? "" : "at most ";
	/*
	 * Writes leave the host as the target's RDMA READ responses (tx), reads
	 * arrive as its RDMA WRITEs (rx). Counters include headers, so they can
	 * only be larger than the payload; a packets x MTU bound that is smaller
	 * cannot have carried it either.
	 */
	if (c->bytes.tx >= c->data_tx && c->bytes.rx >= c->data_rx) {
		c->verdict = CLI_RDMA_OK;
		snprintf(c->why, sizeof(c->why),
			 "%s port %u carried %stx %s / rx %s for %s written / %s read",
			 c->dev, c->port, bound, tx, rx, w, r);
	} else {
		c->verdict = CLI_RDMA_MISMATCH;
		snprintf(c->why, sizeof(c->why),
			 "%s port %u counted %stx %s / rx %s but the benchmark moved %s written / %s "
			 "read: the data did not cross %s - is it really RDMA? (another device or path?)",
			 c->dev, c->port, bound, tx, rx, w, r, c->dev);
	}
}

static uint64_t pkts(const struct rblk_port_counters *d, enum rblk_pc hw, enum rblk_pc pma)
{
	if (rblk_pc_avail(d, hw))
		return d->v[hw];
	return rblk_pc_avail(d, pma) ? d->v[pma] : 0;
}

void rblk_cli_rdma_check_print(FILE *f, const struct cli_rdma_check *c)
{
	fprintf(f, "RDMA check (is it really RDMA?): %s\n",
		c->verdict == CLI_RDMA_OK ? "OK" : c->verdict == CLI_RDMA_MISMATCH ? "MISMATCH" : "UNKNOWN");
	if (c->have_dev) {
		fprintf(f, "  device %s port %u (local address %s, MTU %u)\n", c->dev, c->port, c->local,
			c->mtu);
		if (c->have_bytes)
			fprintf(f, "  counted from %s: %s\n", rblk_bytes_source_str(c->bytes.source),
				c->bytes.desc);
		fprintf(f, "  packets: tx %llu rx %llu\n",
			(unsigned long long)pkts(&c->delta, RBLK_PC_HW_SENT_PKTS, RBLK_PC_XMIT_PACKETS),
			(unsigned long long)pkts(&c->delta, RBLK_PC_HW_RCVD_PKTS, RBLK_PC_RCV_PACKETS));
		fprintf(f, "  error counters: %s\n", c->errors ? c->error_names : "no increase");
	}
	fprintf(f, "  %s\n", c->why);
}

struct json_object *rblk_cli_rdma_check_json(const struct cli_rdma_check *c)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "verdict", json_object_new_string(rblk_cli_rdma_verdict_str(c->verdict)));
	json_object_object_add(o, "why", json_object_new_string(c->why));
	if (!c->have_dev)
		return o;
	json_object_object_add(o, "device", json_object_new_string(c->dev));
	json_object_object_add(o, "port", json_object_new_int((int)c->port));
	json_object_object_add(o, "local_addr", json_object_new_string(c->local));
	json_object_object_add(o, "mtu", json_object_new_int((int)c->mtu));
	if (c->have_bytes) {
		json_object_object_add(o, "source",
				       json_object_new_string(rblk_bytes_source_str(c->bytes.source)));
		json_object_object_add(o, "exact", json_object_new_boolean(c->bytes.exact));
		json_object_object_add(o, "counted_tx_bytes", json_object_new_uint64(c->bytes.tx));
		json_object_object_add(o, "counted_rx_bytes", json_object_new_uint64(c->bytes.rx));
	}
	json_object_object_add(o, "packets_tx",
			       json_object_new_uint64(pkts(&c->delta, RBLK_PC_HW_SENT_PKTS, RBLK_PC_XMIT_PACKETS)));
	json_object_object_add(o, "packets_rx",
			       json_object_new_uint64(pkts(&c->delta, RBLK_PC_HW_RCVD_PKTS, RBLK_PC_RCV_PACKETS)));
	json_object_object_add(o, "data_written_bytes", json_object_new_uint64(c->data_tx));
	json_object_object_add(o, "data_read_bytes", json_object_new_uint64(c->data_rx));
	json_object_object_add(o, "error_increase", json_object_new_uint64(c->errors));
	json_object_object_add(o, "error_counters", json_object_new_string(c->error_names));
	return o;
}
