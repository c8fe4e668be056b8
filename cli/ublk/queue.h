/* SPDX-License-Identifier: MIT */
/*
 * One ublk queue, served on one thread: its own io_uring on /dev/ublkcN,
 * the queue's request descriptors (mapped read-only from the kernel), one
 * data buffer per tag, and the state of every tag (cli/ublk/tag.h).
 *
 * The kernel binds a queue to the task that sends its first FETCH_REQ and
 * delivers requests to that task (as io_uring task work), so everything here
 * after create() runs on the serving thread. Requests go to a backend through
 * a one-member ops table; the backend answers each with
 * rblk_ublk_queue_complete(), and flush() sends the answers (each a
 * COMMIT_AND_FETCH_REQ that also waits for the tag's next request) in one
 * submit. Nothing is allocated after create().
 */
#ifndef RBLK_CLI_UBLK_QUEUE_H
#define RBLK_CLI_UBLK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/ublk/uapi.h"

struct rblk_ublk_queue;

struct rblk_ublk_queue_ops {
	/*
	 * Starts the request of @tag: @iod as the kernel wrote it, @buf the
	 * tag's buffer (a WRITE's data is there already; a READ's goes there).
	 * Finishes with rblk_ublk_queue_complete(), maybe before returning.
	 * Returns 0, or -errno to fail the request at once.
	 */
	int (*submit)(void *ctx, unsigned tag, const struct ublksrv_io_desc *iod, void *buf);
};

struct rblk_ublk_queue_opts {
	int char_fd;			/* /dev/ublkcN, shared by the device's queues; not closed */
	unsigned q_id;
	unsigned depth;			/* tags, as ADD_DEV returned it */
	uint8_t *bufs;			/* depth * buf_bytes: tag i's buffer at i * buf_bytes */
	uint32_t buf_bytes;
	const struct rblk_ublk_queue_ops *ops;
	void *ctx;
};

struct rblk_ublk_queue_stats {
	uint64_t requests[6];		/* per UBLK_IO_OP_* (0..5) */
	uint64_t bytes_read, bytes_written;
	uint64_t errors;		/* requests answered with -errno */
};

/* The ring and the descriptor mapping. 0 or -errno. */
int rblk_ublk_queue_create(const struct rblk_ublk_queue_opts *o, struct rblk_ublk_queue **out);
/* Nothing may be with the backend any more. NULL is fine. */
void rblk_ublk_queue_destroy(struct rblk_ublk_queue *q);
/* Sends a FETCH_REQ for every tag: on the serving thread, once. 0 or -errno. */
int rblk_ublk_queue_start(struct rblk_ublk_queue *q);
/*
 * Reaps completions: hands new requests to the backend, marks aborted tags.
 * The number of completions reaped, or -errno.
 */
int rblk_ublk_queue_process(struct rblk_ublk_queue *q);
/* The backend finished @tag: @result is the bytes done (READ/WRITE), 0, or -errno. */
void rblk_ublk_queue_complete(struct rblk_ublk_queue *q, unsigned tag, int32_t result);
/* Sends the answers queued since the last flush, in one submit. 0 or -errno. */
int rblk_ublk_queue_flush(struct rblk_ublk_queue *q);
/* The ring's fd: readable when process() has work (for poll). */
int rblk_ublk_queue_fd(const struct rblk_ublk_queue *q);
/* Every tag is aborted: the kernel will send nothing more. */
bool rblk_ublk_queue_done(const struct rblk_ublk_queue *q);
/* Requests with the backend (handed over, not completed). */
unsigned rblk_ublk_queue_in_backend(const struct rblk_ublk_queue *q);
const struct rblk_ublk_queue_stats *rblk_ublk_queue_stats(const struct rblk_ublk_queue *q);

#endif
