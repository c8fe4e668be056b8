/* SPDX-License-Identifier: MIT */
/*
 * One ublk queue on its own io_uring (see cli/ublk/queue.h): FETCH_REQ per
 * tag, requests read from the shared descriptor array, answers batched as
 * COMMIT_AND_FETCH_REQ. Each tag's state lives in cli/ublk/tag.c.
 *
 * Budgets: each tag has at most one command with the kernel and at most one
 * SQE waiting in the SQ, so an SQ of depth entries never runs dry and the
 * CQ (twice that) never overflows.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <liburing.h>

#include "common/log.h"
#include "cli/ublk/queue.h"
#include "cli/ublk/tag.h"

struct rblk_ublk_queue {
	struct io_uring ring;
	int char_fd;
	unsigned q_id, depth;
	const struct ublksrv_io_desc *descs;	/* the kernel's, read-only */
	size_t descs_len;
	uint8_t *bufs;
	uint32_t buf_bytes;
	const struct rblk_ublk_queue_ops *ops;
	void *ctx;
	struct rblk_ublk_tag *tags;
	unsigned *to_commit;		/* tags in COMMIT_QUEUED, in completion order */
	unsigned nr_to_commit;
	unsigned in_backend, aborted;
	struct rblk_ublk_queue_stats stats;
};

int rblk_ublk_queue_create(const struct rblk_ublk_queue_opts *o, struct rblk_ublk_queue **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rblk_ublk_queue *q;
	void *m;
	int ret;

	if (!o->depth || o->depth > UBLK_MAX_QUEUE_DEPTH || !o->bufs || !o->ops || !o->ops->submit)
		return -EINVAL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->char_fd = o->char_fd;
	q->q_id = o->q_id;
	q->depth = o->depth;
	q->bufs = o->bufs;
	q->buf_bytes = o->buf_bytes;
	q->ops = o->ops;
	q->ctx = o->ctx;
	q->tags = calloc(o->depth, sizeof(*q->tags));
	q->to_commit = calloc(o->depth, sizeof(*q->to_commit));
	if (!q->tags || !q->to_commit) {
		ret = -ENOMEM;
		goto out_free;
	}
	q->descs_len = ublk_desc_len(o->depth, page);
	m = mmap(NULL, q->descs_len, PROT_READ, MAP_SHARED | MAP_POPULATE, o->char_fd,
		 (off_t)ublk_desc_offset(o->q_id, page));
	if (m == MAP_FAILED) {
		ret = -errno;
		goto out_free;
	}
	q->descs = m;
	/*
	 * No COOP_TASKRUN: the kernel delivers requests as task work, and
	 * only the default notification wakes a thread asleep in poll().
	 */
	ret = io_uring_queue_init(o->depth, &q->ring, 0);
	if (ret)
		goto out_unmap;
	*out = q;
	return 0;

out_unmap:
	munmap((void *)q->descs, q->descs_len);
out_free:
	free(q->to_commit);
	free(q->tags);
	free(q);
	return ret;
}

void rblk_ublk_queue_destroy(struct rblk_ublk_queue *q)
{
	if (!q)
		return;
	/* commands still with the kernel are cancelled with the ring */
	io_uring_queue_exit(&q->ring);
	munmap((void *)q->descs, q->descs_len);
	free(q->to_commit);
	free(q->tags);
	free(q);
}

static void prep_io(struct rblk_ublk_queue *q, struct io_uring_sqe *sqe, uint32_t op, unsigned tag,
		    int32_t result)
{
	struct ublksrv_io_cmd cmd = {
		.q_id = (uint16_t)q->q_id,
		.tag = (uint16_t)tag,
		.result = result,
		.addr = (uint64_t)(uintptr_t)(q->bufs + (size_t)tag * q->buf_bytes),
	};

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->char_fd;
	sqe->cmd_op = op;
	sqe->user_data = tag;
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
}

int rblk_ublk_queue_start(struct rblk_ublk_queue *q)
{
	int ret;

	for (unsigned t = 0; t < q->depth; t++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

		if (!sqe)
			return -EBUSY;	/* cannot happen: the SQ has depth entries */
		prep_io(q, sqe, UBLK_U_IO_FETCH_REQ, t, 0);
		if (rblk_ublk_tag_fetch_sent(&q->tags[t]))
			return -EINVAL;	/* start() twice */
	}
	ret = io_uring_submit(&q->ring);
	return ret < 0 ? ret : 0;
}

static void start_request(struct rblk_ublk_queue *q, unsigned tag)
{
	const struct ublksrv_io_desc *iod = &q->descs[tag];
	int ret;

	q->in_backend++;
	q->stats.requests[ublk_iod_op(iod) < 6 ? ublk_iod_op(iod) : UBLK_IO_OP_WRITE_SAME]++;
	ret = q->ops->submit(q->ctx, tag, iod, q->bufs + (size_t)tag * q->buf_bytes);
	if (ret)
		rblk_ublk_queue_complete(q, tag, ret);
}

int rblk_ublk_queue_process(struct rblk_ublk_queue *q)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&q->ring, head, cqe) {
		unsigned tag = (unsigned)cqe->user_data;
		int r;

		n++;
		if (tag >= q->depth) {
			RBLK_WARN("ublk: queue %u: a completion for tag %u of %u", q->q_id, tag, q->depth);
			continue;
		}
		r = rblk_ublk_tag_cqe(&q->tags[tag], cqe->res);
		if (r == 1) {
			start_request(q, tag);
		} else if (r == 0) {
			q->aborted++;
			if (cqe->res != UBLK_IO_RES_ABORT)
				RBLK_WARN("ublk: queue %u tag %u: the kernel refused the command: %s", q->q_id,
					  tag, strerror(-cqe->res));
		} else {
			RBLK_WARN("ublk: queue %u tag %u: a completion in state %s", q->q_id, tag,
				  rblk_ublk_tag_state_str(q->tags[tag].state));
		}
	}
	io_uring_cq_advance(&q->ring, n);
	return (int)n;
}

void rblk_ublk_queue_complete(struct rblk_ublk_queue *q, unsigned tag, int32_t result)
{
	const struct ublksrv_io_desc *iod = &q->descs[tag];
	int ret = rblk_ublk_tag_done(&q->tags[tag], result);

	if (ret) {
		RBLK_WARN("ublk: queue %u tag %u completed in state %s", q->q_id, tag,
			  rblk_ublk_tag_state_str(q->tags[tag].state));
		return;
	}
	assert(q->in_backend > 0 && q->nr_to_commit < q->depth);
	q->in_backend--;
	q->to_commit[q->nr_to_commit++] = tag;
	if (result < 0)
		q->stats.errors++;
	else if (ublk_iod_op(iod) == UBLK_IO_OP_READ)
		q->stats.bytes_read += (uint64_t)result;
	else if (ublk_iod_op(iod) == UBLK_IO_OP_WRITE)
		q->stats.bytes_written += (uint64_t)result;
}

int rblk_ublk_queue_flush(struct rblk_ublk_queue *q)
{
	int ret;

	if (!q->nr_to_commit)
		return 0;
	for (unsigned i = 0; i < q->nr_to_commit; i++) {
		unsigned tag = q->to_commit[i];
		struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

		if (!sqe)
			return -EBUSY;	/* cannot happen: one SQE per tag at most */
		prep_io(q, sqe, UBLK_U_IO_COMMIT_AND_FETCH_REQ, tag, q->tags[tag].result);
		rblk_ublk_tag_commit_sent(&q->tags[tag]);	/* COMMIT_QUEUED: complete() saw to it */
	}
	q->nr_to_commit = 0;
	ret = io_uring_submit(&q->ring);
	return ret < 0 ? ret : 0;
}

int rblk_ublk_queue_fd(const struct rblk_ublk_queue *q)
{
	return q->ring.ring_fd;
}

bool rblk_ublk_queue_done(const struct rblk_ublk_queue *q)
{
	return q->aborted == q->depth;
}

unsigned rblk_ublk_queue_in_backend(const struct rblk_ublk_queue *q)
{
	return q->in_backend;
}

const struct rblk_ublk_queue_stats *rblk_ublk_queue_stats(const struct rblk_ublk_queue *q)
{
	return &q->stats;
}
