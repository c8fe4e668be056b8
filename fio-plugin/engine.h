/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/engine: what the plugin's files share — the engine options, the
 * per-job (struct rblk_fio_td), per-file and per-io_u state, and the ops the
 * data path (engine_io.c) exports to the engine table (engine.c). Includes
 * fio's own headers: built only against a configured fio source tree.
 */
#ifndef RBLK_FIO_ENGINE_H
#define RBLK_FIO_ENGINE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "fio.h"
#include "optgroup.h"

#include <rblk/initiator.h>

#include "common/spin.h"
#include "fio-plugin/ctrl_cache.h"
#include "fio-plugin/trid.h"

/*
 * Engine options (td->eo). fio finds an option through ->off1 and treats 0 as
 * "none", so no member may sit at offset 0: hence the pad.
 */
struct rblk_fio_opts {
	void *pad;
	char *traddr;
	char *trsvcid;
	char *subnqn;
	char *hostnqn;
	char *hostid;
	char *host_traddr;
	unsigned int ns;
	unsigned int queue_size;
	unsigned int keep_alive_tmo;
	unsigned int nr_io_queues;
	unsigned int qpairs;            /* per job and controller */
	unsigned int connect_timeout;   /* ms */
	unsigned int reconnect_delay;
	int ctrl_loss_tmo;
	int io_timeout;                 /* seconds; 0 = library default, -1 = never */
	char *iopolicy;                 /* several paths: first, round-robin, queue-depth */
	unsigned int private_ctrl;
	unsigned int fua;
	unsigned int busy_poll;
	unsigned int spin_us;
	char *log_level;
	char *dhchap_secret;
	char *dhchap_ctrl_secret;
};

extern struct fio_option rblk_fio_options[];

/*
 * Checks what the engine options cannot express by type: hostid is a UUID,
 * subnqn and hostnqn follow the NQN rule, the DH-HMAC-CHAP secrets are
 * DHHC-1 and the controller one comes with a host one. -EINVAL with a
 * sentence in @why that never quotes a secret.
 */
int rblk_fio_opts_check(const struct rblk_fio_opts *o, char *why, size_t whylen);

/* The engine options as transport-ID defaults and connection parameters. */
void rblk_fio_opts_defaults(const struct rblk_fio_opts *o, struct rblk_trid *defaults,
			    struct rblk_fio_conn_params *params);

#define RBLK_FIO_QPAIRS_MAX 16

/*
 * One I/O queue pair of a job. A job holds `qpairs=` of them per distinct
 * controller its files use, next to each other in rblk_fio_td.qps.
 */
struct rblk_fio_qp {
	struct rblk_fio_ctrl *rc;
	struct rblk_qpair *qp;
	struct rblk_trid trid;
	bool staged;                    /* rblk_submit() since the last flush */
};

/* A fio file (f->engine_data): set up in ->setup, bound to a qpair in ->init. */
struct rblk_fio_file {
	struct rblk_trid trid;
	struct rblk_fio_ctrl *setup_rc; /* the controller that sized it (a reference) */
	struct rblk_ns *ns;             /* the namespace on qp's controller (after init) */
	struct rblk_fio_qp *qp;         /* the first of its controller's nqp ... */
	unsigned nqp, next;             /* ... which its I/Os take in turn */
	uint32_t lba_shift;
	uint64_t size;
};

/* A job (td->io_ops_data). */
struct rblk_fio_td {
	struct rblk_fio_qp *qps;
	unsigned nqp;
	struct pollfd *pfds;            /* one per qpair: rblk_qpair_fd() */
	struct io_u **events;           /* completed, not yet handed to fio */
	unsigned nev, nret, cap;        /* stored, returned by the last getevents, capacity */
	struct io_u **staged;           /* queued since the last commit */
	unsigned nstaged;
	void *buf;                      /* fio's I/O buffers (iomem_alloc) */
	size_t buf_len;
	bool fua, busy_poll;
	unsigned spin_us;               /* 0: sleep as soon as a pass finds nothing */
	struct rblk_spin spin;          /* the spin after the last completion (idle_us = spin_us) */
};

/* An io_u's command (io_u->engine_data). */
struct rblk_fio_req {
	struct rblk_io io;
	struct io_u *io_u;
	struct rblk_fio_td *d;
	uint16_t status;                /* NVMe status, for errdetails */
	int err;                        /* -errno from the transport */
};

enum fio_q_status rblk_fio_queue(struct thread_data *td, struct io_u *io_u);
int rblk_fio_commit(struct thread_data *td);
int rblk_fio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		       const struct timespec *t);
struct io_u *rblk_fio_event(struct thread_data *td, int event);
char *rblk_fio_errdetails(struct io_u *io_u);

#endif
