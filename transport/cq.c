/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: one per reactor and device, with a non-blocking
 * completion channel for epoll, batched event acks, and polling straight
 * into the caller's struct rblk_wc array (ibv_wc's layout, checked below).
 */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/util.h"
#include "transport/cq_priv.h"
#include "transport/err.h"
#include "transport/rdma.h"

/* ibv_ack_cq_events() takes a mutex; ack this many at a time. */
#define CQ_ACK_BATCH 64

struct rblk_cq {
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;	/* NULL without a channel */
	unsigned unacked;
};

#define WC_SAME(f)                                                                        \
	_Static_assert(offsetof(struct rblk_wc, f) == offsetof(struct ibv_wc, f) &&       \
			       sizeof(((struct rblk_wc *)0)->f) == sizeof(((struct ibv_wc *)0)->f), \
		       "rblk_wc." #f " must match ibv_wc")
WC_SAME(wr_id);
WC_SAME(status);
WC_SAME(opcode);
WC_SAME(vendor_err);
WC_SAME(byte_len);
WC_SAME(qp_num);
WC_SAME(src_qp);
WC_SAME(wc_flags);
WC_SAME(pkey_index);
WC_SAME(slid);
WC_SAME(sl);
WC_SAME(dlid_path_bits);
_Static_assert(offsetof(struct rblk_wc, imm_or_inv_rkey) == offsetof(struct ibv_wc, imm_data),
	       "rblk_wc.imm_or_inv_rkey must match ibv_wc's union");
_Static_assert(sizeof(struct rblk_wc) == sizeof(struct ibv_wc), "rblk_wc size");
_Static_assert(RBLK_WC_SUCCESS == (int)IBV_WC_SUCCESS, "wc status");
_Static_assert(RBLK_WC_WR_FLUSH_ERR == (int)IBV_WC_WR_FLUSH_ERR, "wc status");
_Static_assert(RBLK_WC_REM_ACCESS_ERR == (int)IBV_WC_REM_ACCESS_ERR, "wc status");
_Static_assert(RBLK_WC_RETRY_EXC_ERR == (int)IBV_WC_RETRY_EXC_ERR, "wc status");
_Static_assert(RBLK_WC_GENERAL_ERR == (int)IBV_WC_GENERAL_ERR, "wc status");
_Static_assert(RBLK_WC_SEND == (int)IBV_WC_SEND && RBLK_WC_RDMA_WRITE == (int)IBV_WC_RDMA_WRITE &&
		       RBLK_WC_RDMA_READ == (int)IBV_WC_RDMA_READ &&
		       RBLK_WC_LOCAL_INV == (int)IBV_WC_LOCAL_INV && RBLK_WC_RECV == (int)IBV_WC_RECV &&
		       RBLK_WC_RECV_RDMA_WITH_IMM == (int)IBV_WC_RECV_RDMA_WITH_IMM,
	       "wc opcode");
_Static_assert(RBLK_WC_WITH_IMM == IBV_WC_WITH_IMM && RBLK_WC_WITH_INV == IBV_WC_WITH_INV,
	       "wc flags");

static void ack_pending(struct rblk_cq *cq)
{
	if (cq->unacked) {
		ibv_ack_cq_events(cq->cq, cq->unacked);
		cq->unacked = 0;
	}
}

int rblk_cq_create(struct rblk_device *dev, int cqe, int comp_vector, bool with_channel,
		   struct rblk_cq **out)
{
	struct ibv_context *ctx = (struct ibv_context *)dev;
	struct rblk_cq *cq;
	int ret, flags;

	*out = NULL;
	if (cqe < 1 || comp_vector < 0)
		return -EINVAL;
	cq = rblk_calloc_lines(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	if (with_channel) {
		cq->ch = ibv_create_comp_channel(ctx);
		if (!cq->ch) {
			ret = err_errno();
			goto out_free;
		}
		flags = fcntl(cq->ch->fd, F_GETFL);
		if (flags < 0 || fcntl(cq->ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
			ret = -errno;
			goto out_destroy_channel;
		}
	}
	if (ctx->num_comp_vectors > 0)
		comp_vector %= ctx->num_comp_vectors;
	errno = 0;
	cq->cq = ibv_create_cq(ctx, cqe, cq, cq->ch, comp_vector);
	if (!cq->cq) {
		ret = err_errno();
		goto out_destroy_channel;
	}
	*out = cq;
	return 0;

out_destroy_channel:
	if (cq->ch)
		ibv_destroy_comp_channel(cq->ch);
out_free:
	free(cq);
	return ret;
}

void rblk_cq_destroy(struct rblk_cq *cq)
{
	int ret;

	if (!cq)
		return;
	if (cq->cq) {
		ack_pending(cq);
		ret = err_ret(ibv_destroy_cq(cq->cq));
		if (ret)
			RBLK_WARN("ibv_destroy_cq: %s", strerror(-ret));
	}
	if (cq->ch) {
		ret = err_ret(ibv_destroy_comp_channel(cq->ch));
		if (ret)
			RBLK_WARN("ibv_destroy_comp_channel: %s", strerror(-ret));
	}
	free(cq);
}

struct ibv_cq *rblk_cq_ibv(struct rblk_cq *cq)
{
	return cq->cq;
}

int rblk_cq_fd(const struct rblk_cq *cq)
{
	return cq->ch ? cq->ch->fd : -1;
}

int rblk_cq_size(const struct rblk_cq *cq)
{
	return cq->cq->cqe;
}

int rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only)
{
	return err_ret(ibv_req_notify_cq(cq->cq, solicited_only));
}

int rblk_cq_get_event(struct rblk_cq *cq)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (!cq->ch)
		return -EINVAL;
	if (ibv_get_cq_event(cq->ch, &ev_cq, &ev_ctx)) {
		int ret = err_errno();

		return ret == -EAGAIN ? 0 : ret;
	}
	/* One channel per CQ, so the event is for this CQ. */
	if (++cq->unacked >= CQ_ACK_BATCH)
		ack_pending(cq);
	return 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rblk_cq_poll_wait(struct rblk_cq *cq, struct rblk_wc *wc, int n, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct pollfd pfd;
	int ret;

	if (!cq->ch)
		return -EINVAL;
	pfd.fd = cq->ch->fd;
	pfd.events = POLLIN;
	for (;;) {
		int left = -1;

		ret = rblk_cq_poll(cq, wc, n);
		if (ret)
			return ret;
		ret = rblk_cq_req_notify(cq, false);
		if (ret)
			return ret;
		/* A completion that landed before the CQ was armed raises no event. */
		ret = rblk_cq_poll(cq, wc, n);
		if (ret)
			return ret;
		if (deadline >= 0) {
			int64_t d = deadline - now_ms();

			if (d <= 0)
				return -ETIMEDOUT;
			left = (int)d;
		}
		ret = poll(&pfd, 1, left);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret > 0) {
			ret = rblk_cq_get_event(cq);
			if (ret < 0)
				return ret;
		}
	}
}

int rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n)
{
	int ret = ibv_poll_cq(cq->cq, n, (struct ibv_wc *)wc);

	/* A negative count is "an error", not an errno (ibv_poll_cq(3)). */
	return ret >= 0 ? ret : -EIO;
}

const char *rblk_wc_status_str(enum rblk_wc_status status)
{
	return ibv_wc_status_str((enum ibv_wc_status)status);
}

const char *rblk_wc_opcode_str(enum rblk_wc_opcode op)
{
	switch (op) {
	case RBLK_WC_SEND:
		return "SEND";
	case RBLK_WC_RDMA_WRITE:
		return "RDMA_WRITE";
	case RBLK_WC_RDMA_READ:
		return "RDMA_READ";
	case RBLK_WC_LOCAL_INV:
		return "LOCAL_INV";
	case RBLK_WC_RECV:
		return "RECV";
	case RBLK_WC_RECV_RDMA_WITH_IMM:
		return "RECV_RDMA_WITH_IMM";
	}
	return "?";
}
