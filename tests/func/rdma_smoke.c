/* SPDX-License-Identifier: MIT */
/*
 * rdma_smoke: an end-to-end check of the transport seam over a real RDMA
 * device (Soft-RoCE in the VM tests). Run by tests/vm, not by CTest.
 *
 *   server: listens, registers a buffer for remote access, hands
 *           {addr, rkey, len} to the client in the CM accept private data.
 *   client: RDMA WRITEs a pattern into that buffer (one chained post),
 *           RDMA READs it back into another buffer (one chained post),
 *           verifies it, SENDs "done"; the server verifies its buffer and
 *           SENDs its verdict back.
 * Both sides read their port counters before and after and require that
 * the bytes that crossed their RDMA device (best counter available, named)
 * are at least the bytes moved. Exit 0 with a one-line summary, 1 on a
 * failed check, 2 on bad usage.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/parse.h"
#include "smoke.h"

static int run_server(const struct opts *o)
{
	int timeout_ms = o->timeout_s * 1000;
	struct sockaddr_storage sa;
	struct rblk_cm_event ev;
	struct conn c = { 0 };
	struct smoke_req req;
	struct smoke_rep rep;
	struct smoke_msg m;
	struct rblk_conn_param p;
	char summary[512], peer[RBLK_ADDR_STRLEN];
	uint8_t *buf;
	int64_t bad;
	int ret;

	smoke_role = "rdma_smoke server";
	ret = rblk_addr_parse(o->addr, o->port, &sa);
	if (ret) {
		smoke_fail("bad address '%s'", o->addr);
		return 2;
	}
	ret = rblk_cm_channel_create(false, &c.ch);
	if (ret) {
		smoke_fail("rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(-ret));
		goto out;
	}
	ret = rblk_cm_id_create(c.ch, NULL, &c.listen_id);
	if (!ret)
		ret = rblk_cm_listen(c.listen_id, (struct sockaddr *)&sa, 4);
	if (ret) {
		smoke_fail("listening on %s port %u: %s", o->addr, o->port, strerror(-ret));
		goto out;
	}
	ret = smoke_bind_report(&c, c.listen_id, "listening on", true);
	if (ret == -ENOTCONN) {
		char a[RBLK_ADDR_STRLEN];

		/* A wildcard listener has no device until a client arrives. */
		printf("%s: listening on %s (every RDMA device)\n", smoke_role,
		       rblk_addr_str((struct sockaddr *)&sa, a, sizeof(a)));
		fflush(stdout);
	} else if (ret) {
		smoke_fail("listening on %s: which RDMA port? %s", o->addr, strerror(-ret));
		goto out;
	}

	ret = smoke_expect_event(&c, RBLK_CM_EVENT_CONNECT_REQUEST, timeout_ms, &ev);
	if (ret) {
		if (ret == -ETIMEDOUT)
			smoke_fail("no client connected within %d s", o->timeout_s);
		goto out;
	}
	c.id = ev.id;
	rblk_cm_id_set_context(c.id, &c);
	memset(&req, 0, sizeof(req));
	memcpy(&req, ev.param.private_data,
	       ev.param.private_data_len < sizeof(req) ? ev.param.private_data_len : sizeof(req));
	p = ev.param;
	rblk_cm_ack_event(&ev);
	rblk_addr_str(rblk_cm_id_peer_addr(c.id), peer, sizeof(peer));
	if (memcmp(req.magic, smoke_magic, sizeof(req.magic)) || le32toh(req.size) != o->size) {
		smoke_fail("connection from %s is not an rdma_smoke client for %u bytes", peer, o->size);
		rblk_cm_reject(c.id, NULL, 0);
		ret = -EPROTO;
		goto out;
	}
	smoke_info(o, "connect request from %s: initiator_depth %u responder_resources %u", peer,
	     p.initiator_depth, p.responder_resources);
	if (!c.where.dev[0]) {
		ret = smoke_bind_report(&c, c.id, "serving", true);
		if (ret) {
			smoke_fail("serving %s: which RDMA port? %s", peer, strerror(-ret));
			rblk_cm_reject(c.id, NULL, 0);
			goto out;
		}
	}
	ret = smoke_setup_resources(&c, o, true);
	if (ret) {
		rblk_cm_reject(c.id, NULL, 0);
		goto out;
	}
	buf = c.data_buf[0] = rblk_mr_pool_get(c.data);
	memset(buf, 0, o->size);
	memcpy(rep.magic, smoke_magic, sizeof(rep.magic));
	rep.addr = htole64((uintptr_t)buf);
	rep.rkey = htole32(rblk_mr_pool_rkey(c.data));
	rep.len = htole32(o->size);
	/* The peer's RDMA READs land on us: answer as many as both sides allow. */
	p = (struct rblk_conn_param){
		.private_data = &rep,
		.private_data_len = sizeof(rep),
		.responder_resources = (uint8_t)(p.initiator_depth < c.attr.max_qp_rd_atom
							 ? p.initiator_depth
							 : c.attr.max_qp_rd_atom),
		.initiator_depth = (uint8_t)(p.responder_resources < c.attr.max_qp_init_rd_atom
						     ? p.responder_resources
						     : c.attr.max_qp_init_rd_atom),
		.rnr_retry_count = 7,
	};
	ret = rblk_cm_accept(c.id, &p);
	if (ret) {
		smoke_fail("rdma_accept: %s", strerror(-ret));
		goto out;
	}
	ret = smoke_expect_event(&c, RBLK_CM_EVENT_ESTABLISHED, timeout_ms, &ev);
	if (ret) {
		smoke_fail("connection from %s not established: %s", peer, strerror(-ret));
		goto out;
	}
	rblk_cm_ack_event(&ev);
	c.connected = true;
	smoke_info(o, "established with %s, qp %#x", peer, rblk_qp_num(c.qp));

	ret = smoke_recv_msg(&c, MSG_DONE, &m, timeout_ms);
	if (ret)
		goto out;
	bad = smoke_pattern_check(buf, o->size, le64toh(m.seed));
	ret = smoke_send_msg(&c, MSG_VERDICT, bad < 0, le64toh(m.seed), bad < 0 ? 0 : (uint64_t)bad);
	if (ret)
		goto out;
	if (bad >= 0) {
		smoke_fail("the client's RDMA WRITE did not land: first wrong byte at offset %" PRId64, bad);
		ret = -EIO;
		goto out;
	}
	if (!le32toh(m.ok)) {
		smoke_fail("the client says its RDMA READ came back wrong at offset %" PRIu64,
		     le64toh(m.bad_offset));
		ret = -EIO;
		goto out;
	}
	ret = smoke_check_counters(&c, o, 2ull * o->size, summary, sizeof(summary));
	if (ret)
		goto out;
	ret = smoke_expect_event(&c, RBLK_CM_EVENT_DISCONNECTED, timeout_ms, &ev);
	if (ret) {
		smoke_fail("waiting for the client to disconnect: %s", strerror(-ret));
		goto out;
	}
	rblk_cm_ack_event(&ev);
	printf("%s: OK: %s wrote and read %u bytes of our memory; %s\n", smoke_role, peer, o->size,
	       summary);
out:
	smoke_conn_cleanup(&c);
	return ret ? 1 : 0;
}

/* One attempt: resolve, set up, connect. -ECONNREFUSED/-ENETUNREACH etc. are retried. */
static int client_connect(struct conn *c, const struct opts *o, const struct sockaddr *dst,
			  const struct sockaddr *src, struct smoke_rep *rep)
{
	struct smoke_req req;
	struct rblk_cm_event ev;
	struct rblk_conn_param p;
	int ret;

	ret = rblk_cm_channel_create(false, &c->ch);
	if (ret) {
		smoke_fail("rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(-ret));
		return ret;
	}
	ret = rblk_cm_id_create(c->ch, c, &c->id);
	if (ret)
		return ret;
	ret = rblk_cm_resolve_addr(c->id, src, dst, 2000);
	if (!ret)
		ret = smoke_expect_event(c, RBLK_CM_EVENT_ADDR_RESOLVED, 5000, &ev);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	ret = rblk_cm_resolve_route(c->id, 2000);
	if (!ret)
		ret = smoke_expect_event(c, RBLK_CM_EVENT_ROUTE_RESOLVED, 5000, &ev);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	ret = smoke_bind_report(c, c->id, "connecting from", o->verbose);
	if (ret) {
		smoke_fail("which RDMA port? %s", strerror(-ret));
		return ret;
	}
	ret = smoke_setup_resources(c, o, false);
	if (ret)
		return ret;
	memset(&req, 0, sizeof(req));
	memcpy(req.magic, smoke_magic, sizeof(req.magic));
	req.size = htole32(o->size);
	p = (struct rblk_conn_param){
		.private_data = &req,
		.private_data_len = sizeof(req),
		.responder_resources = (uint8_t)(c->attr.max_qp_rd_atom < 16 ? c->attr.max_qp_rd_atom : 16),
		.initiator_depth =
			(uint8_t)(c->attr.max_qp_init_rd_atom < 16 ? c->attr.max_qp_init_rd_atom : 16),
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	ret = rblk_cm_connect(c->id, &p);
	if (ret) {
		smoke_fail("rdma_connect: %s", strerror(-ret));
		return ret;
	}
	ret = smoke_expect_event(c, RBLK_CM_EVENT_ESTABLISHED, 10000, &ev);
	if (ret)
		return ret;
	if (ev.param.private_data_len < sizeof(*rep) ||
	    memcmp(ev.param.private_data, smoke_magic, sizeof(smoke_magic))) {
		rblk_cm_ack_event(&ev);
		smoke_fail("the server's accept carried no buffer description");
		return -EPROTO;
	}
	memcpy(rep, ev.param.private_data, sizeof(*rep));
	rblk_cm_ack_event(&ev);
	c->connected = true;
	return 0;
}

/* Queues one WR per CHUNK over [local, local+size) <-> [raddr, raddr+size), posts once. */
static int rdma_chain(struct conn *c, enum rblk_wr_opcode op, uint8_t *local, uint64_t raddr,
		      uint32_t rkey, uint32_t size)
{
	uint32_t lkey = rblk_mr_pool_lkey(c->data);
	unsigned posted = 0;
	int ret;

	for (uint32_t off = 0; off < size; off += CHUNK) {
		uint32_t len = size - off < CHUNK ? size - off : CHUNK;
		struct rblk_sge sge = { (uintptr_t)(local + off), len, lkey };
		struct rblk_send_wr wr = {
			.wr_id = off,
			.opcode = op,
			/* RC completes in order: signalling the last WR covers the chain. */
			.flags = off + len >= size ? RBLK_SEND_SIGNALED : 0,
			.sge = &sge,
			.num_sge = 1,
			.remote_addr = raddr + off,
			.rkey = rkey,
		};

		ret = rblk_qp_queue_send(c->qp, &wr);
		if (ret) {
			smoke_fail("queueing an RDMA %s: %s", op == RBLK_WR_RDMA_READ ? "READ" : "WRITE",
			     strerror(-ret));
			return ret;
		}
	}
	ret = rblk_qp_flush_send(c->qp, &posted);
	if (ret)
		smoke_fail("ibv_post_send of %u chained WRs: %s (%u posted)",
		     (size + CHUNK - 1) / CHUNK, strerror(-ret), posted);
	return ret;
}

static int run_client(const struct opts *o)
{
	int timeout_ms = o->timeout_s * 1000;
	struct sockaddr_storage dst, src;
	struct conn c = { 0 };
	struct smoke_rep rep;
	struct smoke_msg m;
	struct rblk_cm_event ev;
	struct rblk_wc wc;
	char summary[512], dst_s[RBLK_ADDR_STRLEN];
	uint64_t deadline, seed, raddr;
	uint8_t *wbuf, *rbuf;
	uint32_t rkey;
	unsigned chunks = (o->size + CHUNK - 1) / CHUNK;
	int64_t bad;
	int ret;

	smoke_role = "rdma_smoke client";
	if (rblk_addr_parse(o->addr, o->port, &dst) || rblk_addr_is_any((struct sockaddr *)&dst)) {
		smoke_fail("bad server address '%s'", o->addr);
		return 2;
	}
	if (o->src && rblk_addr_parse(o->src, 0, &src)) {
		smoke_fail("bad source address '%s'", o->src);
		return 2;
	}
	rblk_addr_str((struct sockaddr *)&dst, dst_s, sizeof(dst_s));

	/* The server may still be starting: retry refusals until --connect-timeout. */
	deadline = smoke_now_ms() + (uint64_t)o->connect_timeout_s * 1000;
	for (;;) {
		ret = client_connect(&c, o, (struct sockaddr *)&dst,
				     o->src ? (struct sockaddr *)&src : NULL, &rep);
		if (!ret)
			break;
		smoke_conn_cleanup(&c);
		if ((ret != -ECONNREFUSED && ret != -ETIMEDOUT && ret != -ENETUNREACH &&
		     ret != -EHOSTUNREACH && ret != -EPROTO) ||
		    smoke_now_ms() >= deadline) {
			smoke_fail("cannot connect to %s: %s", dst_s, strerror(-ret));
			if (ret == -ETIMEDOUT && o->src)
				fprintf(stderr, "%s: hint: if %s and %s are both on this host, the kernel "
					"routes between them through lo and rdma_cm cannot resolve the "
					"address from --src; see --help for the policy routing that "
					"sends the traffic over the wire\n",
					smoke_role, o->src, o->addr);
			goto out;
		}
		smoke_info(o, "connect to %s: %s; retrying", dst_s, strerror(-ret));
		usleep(250 * 1000);
	}
	{
		char buf[256], a[RBLK_ADDR_STRLEN];

		printf("%s: connected from %s on %s\n", smoke_role,
		       rblk_addr_str(rblk_cm_id_local_addr(c.id), a, sizeof(a)),
		       rblk_cm_port_info_str(&c.where, buf, sizeof(buf)));
		fflush(stdout);
	}
	raddr = le64toh(rep.addr);
	rkey = le32toh(rep.rkey);
	if (le32toh(rep.len) < o->size) {
		smoke_fail("the server offers %u bytes, we need %u", le32toh(rep.len), o->size);
		ret = -EPROTO;
		goto out;
	}
	smoke_info(o, "established: qp %#x, remote buffer %#" PRIx64 " rkey %#x len %u", rblk_qp_num(c.qp),
	     raddr, rkey, le32toh(rep.len));

	wbuf = c.data_buf[0] = rblk_mr_pool_get(c.data);
	rbuf = c.data_buf[1] = rblk_mr_pool_get(c.data);
	seed = ((uint64_t)getpid() << 32) ^ smoke_now_ms();
	smoke_pattern_fill(wbuf, o->size, seed);
	memset(rbuf, 0, o->size);

	ret = rdma_chain(&c, RBLK_WR_RDMA_WRITE, wbuf, raddr, rkey, o->size);
	if (!ret)
		ret = smoke_wait_wc(&c, RBLK_WC_RDMA_WRITE, &wc, timeout_ms);
	if (ret)
		goto out;
	ret = rdma_chain(&c, RBLK_WR_RDMA_READ, rbuf, raddr, rkey, o->size);
	if (!ret)
		ret = smoke_wait_wc(&c, RBLK_WC_RDMA_READ, &wc, timeout_ms);
	if (ret)
		goto out;
	bad = smoke_pattern_check(rbuf, o->size, seed);
	ret = smoke_send_msg(&c, MSG_DONE, bad < 0, seed, bad < 0 ? 0 : (uint64_t)bad);
	if (ret)
		goto out;
	if (bad >= 0) {
		smoke_fail("RDMA READ brought back wrong data: first wrong byte at offset %" PRId64, bad);
		ret = -EIO;
		goto out;
	}
	ret = smoke_recv_msg(&c, MSG_VERDICT, &m, timeout_ms);
	if (ret)
		goto out;
	if (!le32toh(m.ok)) {
		smoke_fail("the server found wrong data in its buffer at offset %" PRIu64,
		     le64toh(m.bad_offset));
		ret = -EIO;
		goto out;
	}
	ret = smoke_check_counters(&c, o, 2ull * o->size, summary, sizeof(summary));
	if (ret)
		goto out;
	ret = rblk_cm_disconnect(c.id);
	if (!ret)
		ret = smoke_expect_event(&c, RBLK_CM_EVENT_DISCONNECTED, timeout_ms, &ev);
	if (ret) {
		smoke_fail("disconnect: %s", strerror(-ret));
		goto out;
	}
	rblk_cm_ack_event(&ev);
	printf("%s: OK: %u bytes RDMA WRITE (%u WRs, 1 post) + READ (%u WRs, 1 post) to %s "
	       "verified on both sides; %s\n",
	       smoke_role, o->size, chunks, chunks, dst_s, summary);
out:
	smoke_conn_cleanup(&c);
	return ret ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdma_smoke --server ADDR [options]\n"
		"       rdma_smoke --client ADDR [--src ADDR] [options]\n"
		"       rdma_smoke --devices [ADDR...]\n"
		"\n"
		"End-to-end check of rblk's RDMA transport over a real RDMA device: the client\n"
		"RDMA WRITEs a pattern into the server's registered buffer, READs it back,\n"
		"both sides verify the bytes, and both check that their RDMA port counters\n"
		"grew by at least the bytes moved. Exit 0 on success, 1 on failure, 2 on usage.\n"
		"\n"
		"  -S, --server ADDR        listen on ADDR (IPv4 or IPv6) and serve one client\n"
		"  -C, --client ADDR        connect to the server at ADDR\n"
		"  -D, --devices            list RDMA devices, ports and GIDs, and which device\n"
		"                           serves each ADDR; fails when there is no device\n"
		"  -s, --src ADDR           client: source address (selects the local RDMA device)\n"
		"  -p, --port PORT          rdma_cm port (default %u)\n"
		"  -n, --size BYTES         bytes to write and read back (default %u; K/M suffix)\n"
		"  -t, --timeout SEC        give up waiting after SEC seconds (default 60)\n"
		"  -r, --connect-timeout SEC  client: keep retrying refused connects (default 20)\n"
		"      --no-counter-check   report the counters but do not require them to grow\n"
		"  -v, --verbose            say what happens, and print every counter that moved\n"
		"  -h, --help\n"
		"\n"
		"Example (Soft-RoCE VM): rdma_smoke --server 10.99.0.1 &\n"
		"                        rdma_smoke --client 10.99.0.1 --src 10.99.0.2\n"
		"\n"
		"When both addresses are on this host, the kernel routes between them through\n"
		"lo: without --src both ends land on the server's device (rxe loops the packets\n"
		"back inside the kernel, no netdev sees them); with --src, address resolution\n"
		"times out unless output policy routing sends the traffic over the wire, e.g.\n"
		"  ip rule add pref 100 lookup local; ip rule del pref 0 lookup local\n"
		"  ip rule add pref 10 iif lo from 10.99.0.2 to 10.99.0.1 lookup 101\n"
		"  ip rule add pref 11 iif lo from 10.99.0.1 to 10.99.0.2 lookup 102\n"
		"  ip route add 10.99.0.1 dev veth1 src 10.99.0.2 table 101\n"
		"  ip route add 10.99.0.2 dev veth0 src 10.99.0.1 table 102\n"
		"  sysctl net.ipv4.conf.{all,veth0,veth1}.{rp_filter=0,accept_local=1}\n",
		DEFAULT_PORT, DEFAULT_SIZE);
}

/* A transfer size: the size rule of every rblk program, 1 byte .. 1 GiB. */
static int parse_size(const char *s, uint32_t *out)
{
	uint64_t v;

	if (rblk_size_parse(s, &v, NULL, 0) || !v || v > (1ull << 30))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "server", required_argument, NULL, 'S' },
		{ "client", required_argument, NULL, 'C' },
		{ "devices", no_argument, NULL, 'D' },
		{ "src", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "connect-timeout", required_argument, NULL, 'r' },
		{ "no-counter-check", no_argument, NULL, 'N' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.port = DEFAULT_PORT,
		.size = DEFAULT_SIZE,
		.timeout_s = 60,
		.connect_timeout_s = 20,
		.check_counters = true,
	};
	bool have_role = false;
	int c;

	while ((c = getopt_long(argc, argv, "S:C:Ds:p:n:t:r:vh", lopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'S':
		case 'C':
			if (have_role) {
				fprintf(stderr, "rdma_smoke: give one of --server or --client\n");
				return 2;
			}
			have_role = true;
			o.server = c == 'S';
			o.addr = optarg;
			break;
		case 'D':
			o.devices = true;
			break;
		case 's':
			o.src = optarg;
			break;
		case 'p': {
			char why[96];

			if (rblk_port_parse(optarg, &o.port, why, sizeof(why))) {
				fprintf(stderr, "rdma_smoke: port '%s': %s\n", optarg, why);
				return 2;
			}
			break;
		}
		case 'n':
			if (parse_size(optarg, &o.size)) {
				fprintf(stderr, "rdma_smoke: bad size '%s'\n", optarg);
				return 2;
			}
			break;
		case 't':
		case 'r':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 3600) {
				fprintf(stderr, "rdma_smoke: bad timeout '%s'\n", optarg);
				return 2;
			}
			if (c == 't')
				o.timeout_s = (int)v;
			else
				o.connect_timeout_s = (int)v;
			break;
		case 'N':
			o.check_counters = false;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (o.devices) {
		if (have_role) {
			fprintf(stderr, "rdma_smoke: --devices goes alone\n");
			return 2;
		}
		if (o.verbose)
			rblk_log_set_level(RBLK_LOG_DEBUG);
		return smoke_run_devices(&o, argv + optind, argc - optind);
	}
	if (!have_role || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (o.server && o.src) {
		fprintf(stderr, "rdma_smoke: --src is for the client\n");
		return 2;
	}
	smoke_verbose = o.verbose;
	if (o.verbose)
		rblk_log_set_level(RBLK_LOG_DEBUG);
	return o.server ? run_server(&o) : run_client(&o);
}
