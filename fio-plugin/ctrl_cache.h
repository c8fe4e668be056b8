/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/ctrl_cache: the controllers of one fio process. With thread=1
 * every job is a thread of one process, so jobs that name the same target
 * share a controller (one admin queue, one keep-alive, one connect) and each
 * takes one of its I/O queue pairs. When all of a controller's I/O queues are
 * taken (more jobs than the target granted queues), the next job gets a new
 * controller to the same target. Controllers live while a job refers to them.
 * Thread-safe: fio's setup runs in the main thread, init/cleanup in the jobs'.
 */
#ifndef RBLK_FIO_CTRL_CACHE_H
#define RBLK_FIO_CTRL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

#include "auth/auth.h"
#include "fio-plugin/trid.h"

/* How to connect, beyond the transport ID (engine options; 0 = library default). */
struct rblk_fio_conn_params {
	uint32_t queue_size;
	uint32_t keep_alive_tmo;
	uint32_t nr_io_queues;
	uint32_t connect_timeout_ms;
	int32_t reconnect_delay;     /* < 0: library default */
	int32_t ctrl_loss_tmo;       /* < -1: library default; -1 forever */
	int32_t io_timeout;          /* seconds; 0: library default; -1 never */
	enum rblk_mpath_iopolicy iopolicy; /* several paths */
	bool private_ctrl;           /* never share: a controller per caller */
	/* DH-HMAC-CHAP secrets (DHHC-1), "" = none; part of what makes a controller shared. */
	char dhchap_secret[RBLK_AUTH_SECRET_STR_MAX];
	char dhchap_ctrl_secret[RBLK_AUTH_SECRET_STR_MAX];
};

struct rblk_fio_ctrl;

/*
 * A reference to a controller for @t (connecting one if none is shared yet).
 * On failure -errno and a sentence in @why (with the NVMe status name when the
 * target refused the Connect).
 */
int rblk_fio_ctrl_get(const struct rblk_trid *t, const struct rblk_fio_conn_params *p,
		      struct rblk_fio_ctrl **out, char *why, size_t whylen);

/*
 * A reference to a controller for @t with @n of its I/O queue pairs (all from
 * that one controller) for the caller's thread; connects another controller
 * when no shared one has @n free queues. One reference per qpair: give each
 * back with rblk_fio_ctrl_put_qpair().
 */
int rblk_fio_ctrl_get_qpairs(const struct rblk_trid *t, const struct rblk_fio_conn_params *p,
			     unsigned n, struct rblk_fio_ctrl **out, struct rblk_qpair **qps,
			     char *why, size_t whylen);
void rblk_fio_ctrl_put_qpair(struct rblk_fio_ctrl *rc, struct rblk_qpair *qp);

/* The namespace @nsid of the controller, opened once and kept with it. */
int rblk_fio_ctrl_ns(struct rblk_fio_ctrl *rc, uint32_t nsid, struct rblk_ns **out,
		     char *why, size_t whylen);

struct rblk_ctrl *rblk_fio_ctrl_handle(struct rblk_fio_ctrl *rc);

/* Drops a reference; the last one closes the namespaces and disconnects. */
void rblk_fio_ctrl_put(struct rblk_fio_ctrl *rc);

#endif
