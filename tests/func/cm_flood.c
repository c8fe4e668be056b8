/* SPDX-License-Identifier: MIT */
/*
 * cm_flood: a client that opens many NVMe/RDMA connections to a target and
 * never sends a Fabrics Connect on any of them, then holds them: what an
 * attacker (or a broken host) does to exhaust a target's queues before it
 * has said who it is. The VM's admission test runs it beside a real host.
 *
 *   cm_flood -a ADDR[:PORT] [-w SRC] [-n COUNT] [-H HOLD_S]
 *
 * Each connection: its own rdma_cm id and a QP with one receive and no
 * memory (the private data is a valid admin-queue request, so only the
 * missing Connect is wrong). Connects one after the other, each waiting for
 * its answer; then waits HOLD_S seconds counting the target's disconnects.
 * Prints one summary line:
 *   cm_flood: asked N, established E, rejected R (no resources X), errors F,
 *   disconnected by the target D (first after T ms)
 * Exit 0 when the run went as far as it could (the counts are the result),
 * 1 on a setup error, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protocol/cm.h"
#include "protocol/nvme_rdma.h"
#include "transport/addr.h"
#include "transport/rdma.h"

#define MAX_CONNS 4096

struct conn {
	struct rblk_cm_id *id;
	struct rblk_qp *qp;
	bool established;
	bool disconnected;
};

static struct rblk_cm_channel *ch;
static struct rblk_pd *pd;
static struct rblk_cq *cq;
static struct conn conns[MAX_CONNS];
static unsigned ndisc;
static uint64_t t0_ms, first_disc_ms;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* An event for an earlier connection: the target let go of it. */
static void note_other(struct rblk_cm_event *ev)
{
	struct conn *c = rblk_cm_id_context(ev->id);

	if (c && c->established && !c->disconnected &&
	    ev->type == RBLK_CM_EVENT_DISCONNECTED) {
		c->disconnected = true;
		if (!ndisc++)
			first_disc_ms = now_ms() - t0_ms;
	}
}

/* The next event for @c; others are noted and acked on the way. */
static int wait_for(struct conn *c, struct rblk_cm_event *ev, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	int ret;

	for (;;) {
		int left = (int)(end - now_ms());

		ret = rblk_cm_wait_event(ch, left > 0 ? left : 0, ev);
		if (ret)
			return ret;
		if (ev->id == c->id)
			return 0;
		note_other(ev);
		rblk_cm_ack_event(ev);
	}
}

static int expect(struct conn *c, enum rblk_cm_event_type want)
{
	struct rblk_cm_event ev;
	int ret = wait_for(c, &ev, 5000);

	if (ret)
		return ret;
	ret = ev.type == want ? 0 : -EPROTO;
	rblk_cm_ack_event(&ev);
	return ret;
}

/* 0 established, 1 rejected with no resources, 2 rejected otherwise, <0 error. */
static int open_one(struct conn *c, const struct sockaddr *src, const struct sockaddr *dst)
{
	struct rblk_qp_caps caps = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				     .max_recv_sge = 1 };
	struct rblk_cm_req_info info = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nvme_rdma_cm_req req;
	struct rblk_conn_param p;
	struct rblk_cm_event ev;
	uint16_t sts;
	int ret;

	ret = rblk_cm_id_create(ch, c, &c->id);
	if (!ret)
		ret = rblk_cm_resolve_addr(c->id, src, dst, 3000);
	if (!ret)
		ret = expect(c, RBLK_CM_EVENT_ADDR_RESOLVED);
	if (!ret)
		ret = rblk_cm_resolve_route(c->id, 3000);
	if (!ret)
		ret = expect(c, RBLK_CM_EVENT_ROUTE_RESOLVED);
	if (!ret && !pd) {
		ret = rblk_pd_alloc(rblk_cm_id_device(c->id), &pd);
		if (!ret)
			ret = rblk_cq_create(rblk_cm_id_device(c->id), 256, 0, false, &cq);
	}
	if (!ret)
		ret = rblk_qp_create(c->id, pd, cq, cq, &caps, c, &c->qp);
	if (ret)
		return ret;
	rblk_cm_req_encode(&req, &info);
	memset(&p, 0, sizeof(p));
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	p.responder_resources = 16;
	p.flow_control = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	ret = rblk_cm_connect(c->id, &p);
	if (ret)
		return ret;
	ret = wait_for(c, &ev, 10000);
	if (ret)
		return ret;
	if (ev.type == RBLK_CM_EVENT_ESTABLISHED) {
		c->established = true;
		ret = 0;
	} else if (ev.type == RBLK_CM_EVENT_REJECTED) {
		ret = !rblk_cm_rej_decode(ev.param.private_data, ev.param.private_data_len, &sts) &&
		      sts == NVME_RDMA_CM_NO_RSC ? 1 : 2;
	} else {
		ret = -EPROTO;
	}
	rblk_cm_ack_event(&ev);
	return ret;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage dst, src;
	const char *addr = NULL, *srcs = NULL;
	unsigned count = 300, hold = 20, est = 0, rej = 0, nrsc = 0, errs = 0, i;
	struct rblk_cm_event ev;
	int opt, ret;

	while ((opt = getopt(argc, argv, "a:w:n:H:")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'w': srcs = optarg; break;
		case 'n': count = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'H': hold = (unsigned)strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (!addr || !count || count > MAX_CONNS || optind != argc)
		goto usage;
	if (rblk_hostport_parse(addr, 4420, &dst) || (srcs && rblk_addr_parse(srcs, 0, &src))) {
		fprintf(stderr, "cm_flood: bad address\n");
		return 2;
	}
	ret = rblk_cm_channel_create(false, &ch);
	if (ret) {
		fprintf(stderr, "cm_flood: rdma_create_event_channel: %s\n", strerror(-ret));
		return 1;
	}
	t0_ms = now_ms();
	for (i = 0; i < count; i++) {
		ret = open_one(&conns[i], srcs ? (struct sockaddr *)&src : NULL,
			       (struct sockaddr *)&dst);
		if (ret == 0)
			est++;
		else if (ret > 0)
			rej++, nrsc += ret == 1;
		else
			errs++;
		if (ret < 0 && errs == 1)
			fprintf(stderr, "cm_flood: connection %u: %s\n", i, strerror(-ret));
	}
	printf("cm_flood: %u connections attempted in %llu ms; holding them %u s\n", count,
	       (unsigned long long)(now_ms() - t0_ms), hold);
	fflush(stdout);
	for (uint64_t end = now_ms() + hold * 1000ull; now_ms() < end;) {
		if (rblk_cm_wait_event(ch, 200, &ev))
			continue;
		note_other(&ev);
		rblk_cm_ack_event(&ev);
	}
	printf("cm_flood: asked %u, established %u, rejected %u (no resources %u), errors %u, "
	       "disconnected by the target %u (first after %llu ms)\n", count, est, rej, nrsc,
	       errs, ndisc, (unsigned long long)first_disc_ms);
	/* Leaving: the process exit tears the rest down (that is what a crash does too). */
	return 0;

usage:
	fprintf(stderr, "usage: cm_flood -a ADDR[:PORT] [-w SRC] [-n COUNT (1..%u)] [-H HOLD_S]\n",
		MAX_CONNS);
	return 2;
}
