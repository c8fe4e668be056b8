/* SPDX-License-Identifier: MIT */
/*
 * The multipath head (include/rblk/initiator.h, "Multipath") inside the
 * library:
 *   mpath.c      the head: options, connecting paths, namespace identity,
 *                the background thread (late paths, ANA refresh), info
 *   mpath_ana.c  the ANA log page: how much to read, parsing (bounds-checked:
 *                the target is not trusted), reading it on one path
 *   mpath_io.c   the multipath queue pair: path choice, failover, the
 *                no-path wait, completions
 *
 * Threads: the head thread is the only writer of a path's ctrl, ns, refused
 * and (apart from the hint below) ANA fields; it publishes ctrl last, with
 * release order, so an I/O thread that sees ctrl sees ns and the ANA state.
 * An I/O thread that gets an ANA status stores the state the status implies
 * and marks the path's log stale (the head re-reads it at once). Each
 * multipath queue pair belongs to one thread at a time, like any qpair.
 */
#ifndef RBLK_INITIATOR_MPATH_H
#define RBLK_INITIATOR_MPATH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

#include "initiator/ctrl.h"

/*
 * The per-path layer the multipath queue pair drives: the library's own
 * calls (rblk_mpath_path_ops_default), or fakes in the unit tests.
 */
struct rblk_mpath_path_ops {
	int (*qpair_alloc)(struct rblk_ctrl *c, struct rblk_qpair **out);	/* 0 or -errno */
	void (*qpair_free)(struct rblk_qpair *qp);
	int (*submit)(struct rblk_qpair *qp, struct rblk_io *io, rblk_io_cb cb, void *arg);
	int (*poll)(struct rblk_qpair *qp, unsigned max);	/* callbacks run inside */
	int (*flush)(struct rblk_qpair *qp);
	int (*fd)(struct rblk_qpair *qp);			/* < 0: none to watch */
	enum rblk_ctrl_state (*state)(struct rblk_ctrl *c);
};
extern const struct rblk_mpath_path_ops rblk_mpath_path_ops_default;

struct rblk_mpath_path {
	unsigned index;
	struct rblk_connect_opts opts;	/* strings below are ours */
	char *strs[8];
	_Atomic(struct rblk_ctrl *) ctrl;	/* set once the path is usable; never cleared while the head lives */
	struct rblk_ns *ns;		/* the namespace on this path (set before ctrl) */
	atomic_bool refused;		/* the namespace differs here */
	bool ana_supported;		/* CMIC bit 3 (set before ctrl) */
	_Atomic int ana;		/* enum rblk_ana_state */
	_Atomic uint32_t anagrpid;
	atomic_bool ana_reported;
	atomic_bool ana_stale;		/* an I/O saw an ANA status: re-read now */
	uint64_t ana_read_ms;		/* head thread only */
	uint32_t ana_events_seen;	/* head thread only: ctrl->ana_events at the last read */
	uint64_t nsze_seen;		/* head thread only: ns->nsze at the last look */
	uint64_t next_connect_ms;	/* head thread only */
	bool was_live;			/* head thread only: re-read the log after a reconnect */
	_Atomic uint64_t ios, failovers;
};

/* What must be the same on every path: the namespace's identity and shape. */
struct rblk_mpath_ident {
	uint8_t nguid[16];
	uint8_t eui64[8];
	uint64_t nsze;
	unsigned lba_shift;
};

struct rblk_mpath_qp;

struct rblk_mpath {
	struct rblk_mpath_opts opts;
	unsigned npaths;
	struct rblk_mpath_path paths[RBLK_MPATH_MAX_PATHS];
	const struct rblk_mpath_path_ops *ops;
	uint32_t nsid;
	bool have_ident;
	struct rblk_mpath_ident ident;
	struct rblk_ns ns;		/* the head's namespace (ctrl NULL, mpath set) */
	unsigned depth;			/* requests per multipath queue pair */
	uint64_t no_path_ms;		/* UINT64_MAX: wait forever */

	pthread_mutex_t lock;		/* qps, sync_free */
	struct rblk_mpath_qp *qps;
	struct rblk_mpath_qp *sync_free; /* idle queue pairs of the synchronous calls */

	pthread_t thread;
	bool thread_running;
	atomic_bool stopping;
	int wake_fd;
};

/* mpath_ana.c */
/*
 * Looks @nsid up in an ANA log page of @len bytes: the group whose
 * descriptor lists it, else (a log read with RGO, no NSIDs) the descriptor
 * of @grpid_hint (the namespace's ANAGRPID). Every count is checked against
 * @len. 0 with *grpid and *state (bits 3:0 of the descriptor's state),
 * -ENOENT when the log does not mention the namespace or its group, -EPROTO
 * when the log is too short for what its header says before that.
 */
int rblk_ana_log_lookup(const void *log, size_t len, uint32_t nsid, uint32_t grpid_hint,
			uint32_t *grpid, enum rblk_ana_state *state);
/* How many bytes the whole log can take for a controller's Identify data (4 KiB..64 KiB). */
uint32_t rblk_ana_log_len(const void *id_ctrl);
/* Reads the log on @c and updates @p's ANA fields. 0 or -errno. */
int rblk_mpath_ana_refresh(struct rblk_mpath_path *p, struct rblk_ctrl *c, uint32_t nsid);
/* The state an I/O's ANA status implies (0x301..0x303), or 0 for other statuses. */
enum rblk_ana_state rblk_ana_state_of_status(uint16_t status);

/* mpath_io.c */
/*
 * The path for the next I/O among @n, from the usable ones of the best ANA
 * state present (optimized, else non-optimized); -1 when none. Among those,
 * by @pol: the first; the first at or after *@rr (which then moves past
 * it); the one with the fewest @inflight (the first of equals).
 */
int rblk_mpath_pick(const bool *usable, const enum rblk_ana_state *ana, unsigned n,
		    enum rblk_mpath_iopolicy pol, const unsigned *inflight, unsigned *rr);

enum rblk_mpath_disposition {
	RBLK_MPATH_DONE,	/* a final result for the caller */
	RBLK_MPATH_RETRY,	/* a path failure: send it on another path */
};
/* What a path's result (NVMe status, -errno) means for the request. */
enum rblk_mpath_disposition rblk_mpath_disposition(uint16_t status, int err);

/* The multipath side of rblk_qpair_* / rblk_submit / rblk_poll for a head's qpair. */
int rblk_mpath_qp_create(struct rblk_mpath *mp, struct rblk_qpair **out);
void rblk_mpath_qp_destroy(struct rblk_mpath_qp *mq);
int rblk_mpath_qp_submit(struct rblk_mpath_qp *mq, struct rblk_io *io, rblk_io_cb cb, void *arg);
int rblk_mpath_qp_poll(struct rblk_mpath_qp *mq, unsigned max);
int rblk_mpath_qp_flush(struct rblk_mpath_qp *mq);
int rblk_mpath_qp_fd(struct rblk_mpath_qp *mq);
unsigned rblk_mpath_qp_depth(struct rblk_mpath_qp *mq);
unsigned rblk_mpath_qp_inflight(struct rblk_mpath_qp *mq);
/* The head's list of queue pairs (under its lock). */
struct rblk_mpath_qp *rblk_mpath_qp_next(struct rblk_mpath_qp *mq);
/* From the head thread: wake the owner (a path changed, or waiting requests may time out). */
void rblk_mpath_qp_notify(struct rblk_mpath_qp *mq, bool only_if_waiting);
/*
 * The synchronous calls on the head's namespace (rblk_read() ...): a queue
 * pair of the head for the length of one call, an idle one if there is one,
 * else a new one (so concurrent callers each get theirs), kept for the next
 * call and freed by rblk_mpath_disconnect(). NULL with *err on failure.
 */
struct rblk_qpair *rblk_mpath_sync_qpair_get(struct rblk_mpath *mp, int *err);
void rblk_mpath_sync_qpair_put(struct rblk_mpath *mp, struct rblk_qpair *qp);
/* rblk_mpath_disconnect(): frees the idle ones (no synchronous call may be running). */
void rblk_mpath_sync_qpairs_free(struct rblk_mpath *mp);

#endif
