/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/engine_io: the data path, in the shape of fio's io_uring engine.
 *   queue     builds the command into one of the job's qpairs, taken in turn
 *             when qpairs= is above 1 (rblk_submit stages it;
 *             nothing is posted) and returns FIO_Q_QUEUED, or FIO_Q_BUSY when
 *             the qpair has no free slot: fio then commits and reaps;
 *   commit    posts everything staged with one doorbell per qpair
 *             (rblk_qpair_flush) and stamps the issue times;
 *   getevents polls the qpairs (rblk_poll runs our callback per completion)
 *             until @min completions or the timeout: spins for spin_us after
 *             the last completion (common/spin.h: few clock reads, and no
 *             spin while windows keep running out empty), then sleeps on the
 *             qpairs' completion channels (or never sleeps with busy_poll);
 *   event     hands them to fio one by one.
 * Errors: an NVMe status becomes EIO (errdetails names the status), a
 * transport failure its errno. No allocation here: requests live in the io_u.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fio-plugin/engine.h"

#define SPIN_CLOCK_PASSES 8

static void io_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct rblk_fio_req *r = arg;
	struct rblk_fio_td *d = r->d;
	struct io_u *io_u = r->io_u;

	r->status = status;
	r->err = err;
	if (err)
		io_u->error = -err;
	else if (status)
		io_u->error = EIO;
	else
		io_u->error = 0;
	io_u->resid = io_u->error ? io_u->xfer_buflen : 0;
	/* Completions never outnumber the io_us in flight, which are at most iodepth. */
	if (d->nev < d->cap)
		d->events[d->nev++] = io_u;
	else
		log_err("rblk: more completions than iodepth=%u: one is lost\n", d->cap);
}

static enum fio_q_status complete_now(struct io_u *io_u, int err)
{
	struct rblk_fio_req *r = io_u->engine_data;

	r->status = 0;
	r->err = -err;
	io_u->error = err;
	io_u->resid = io_u->xfer_buflen;
	return FIO_Q_COMPLETED;
}

enum fio_q_status rblk_fio_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rblk_fio_td *d = td->io_ops_data;
	struct rblk_fio_file *rf = FILE_ENG_DATA(io_u->file);
	struct rblk_fio_req *r = io_u->engine_data;
	struct rblk_io *io = &r->io;
	struct rblk_fio_qp *q;
	uint64_t mask = (1ull << rf->lba_shift) - 1;
	int ret;

	r->status = 0;
	r->err = 0;
	io->ns = rf->ns;
	io->buf = NULL;
	io->iov = NULL;
	io->iovcnt = 0;
	io->flags = 0;
	io->lba = 0;
	io->nlb = 0;
	switch (io_u->ddir) {
	case DDIR_READ:
	case DDIR_WRITE:
	case DDIR_TRIM:
		/* Blocks only: fio's bs/offset must be multiples of the LBA size. */
		if ((io_u->offset | io_u->xfer_buflen) & mask || !io_u->xfer_buflen ||
		    (io_u->xfer_buflen >> rf->lba_shift) > UINT32_MAX)
			return complete_now(io_u, EINVAL);
		io->lba = io_u->offset >> rf->lba_shift;
		io->nlb = (uint32_t)(io_u->xfer_buflen >> rf->lba_shift);
		if (io_u->ddir == DDIR_TRIM) {
			io->op = RBLK_OP_DEALLOCATE;
			break;
		}
		io->op = io_u->ddir == DDIR_READ ? RBLK_OP_READ : RBLK_OP_WRITE;
		io->buf = io_u->xfer_buf;
		if (d->fua && io_u->ddir == DDIR_WRITE)
			io->flags = RBLK_IO_FUA;
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
		io->op = RBLK_OP_FLUSH;
		break;
	default:
		return complete_now(io_u, EINVAL);
	}

	/* I/Os take the qpairs in turn (qpairs=); a retry after FIO_Q_BUSY tries the next */
	q = &rf->qp[rf->next];
	if (++rf->next == rf->nqp)
		rf->next = 0;
	ret = rblk_submit(q->qp, io, io_done, r);
	if (ret == -EAGAIN)
		return FIO_Q_BUSY;
	if (ret)
		return complete_now(io_u, -ret);
	q->staged = true;
	if (d->nstaged < d->cap)
		d->staged[d->nstaged++] = io_u;
	return FIO_Q_QUEUED;
}

int rblk_fio_commit(struct thread_data *td)
{
	struct rblk_fio_td *d = td->io_ops_data;
	struct timespec now;

	if (!d->nstaged)
		return 0;
	for (unsigned i = 0; i < d->nqp; i++) {
		int ret;

		if (!d->qps[i].staged)
			continue;
		d->qps[i].staged = false;
		/*
		 * A failed post fails the queue: its commands complete with an error
		 * through rblk_poll (or are resent after a reconnect), so fio still
		 * sees each of them once.
		 */
		ret = rblk_qpair_flush(d->qps[i].qp);
		if (ret)
			log_err("rblk: %s: posting to the I/O queue: %s\n", td->o.name,
				strerror(-ret));
	}
	if (fio_fill_issue_time(td)) {
		fio_gettime(&now, NULL);
		for (unsigned i = 0; i < d->nstaged; i++) {
			memcpy(&d->staged[i]->issue_time, &now, sizeof(now));
			io_u_queued(td, d->staged[i]);
		}
		if (td->o.read_iolog_file)
			memcpy(&td->last_issue, &now, sizeof(now));
	}
	io_u_mark_submit(td, d->nstaged);
	d->nstaged = 0;
	return 0;
}

/* One pass over the qpairs; 0 or the first error rblk_poll() reported. */
static int poll_once(struct rblk_fio_td *d)
{
	int err = 0;

	for (unsigned i = 0; i < d->nqp; i++) {
		int ret;

		if (!rblk_qpair_inflight(d->qps[i].qp))
			continue;
		ret = rblk_poll(d->qps[i].qp, 0);
		if (ret < 0 && !err)
			err = ret;
	}
	return err;
}

/*
 * Arms every qpair with requests in flight and watches only those (an idle
 * one is not polled, so a wakeup left on its channel would keep poll()
 * returning at once); false when one has completions waiting.
 */
static bool prepare_sleep(struct rblk_fio_td *d)
{
	for (unsigned i = 0; i < d->nqp; i++) {
		struct rblk_qpair *qp = d->qps[i].qp;
		bool busy = rblk_qpair_inflight(qp) != 0;

		if (busy && rblk_qpair_prepare_sleep(qp) != 0)
			return false;
		d->pfds[i].fd = busy ? rblk_qpair_fd(qp) : -1;
	}
	return true;
}

int rblk_fio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
		       const struct timespec *t)
{
	struct rblk_fio_td *d = td->io_ops_data;
	uint64_t deadline = UINT64_MAX;
	unsigned found;
	int ret;

	/* What the last call did not return (it found more than its max) comes first. */
	if (d->nret) {
		memmove(d->events, d->events + d->nret, (d->nev - d->nret) * sizeof(*d->events));
		d->nev -= d->nret;
		d->nret = 0;
	}
	found = d->nev;
	for (unsigned pass = 1;; pass++) {
		uint64_t now = 0;
		int timeout_ms;

		ret = poll_once(d);
		if (ret < 0 && d->nev == 0) {
			/* The controller is gone and nothing in flight will complete. */
			log_err("rblk: %s: %s\n", td->o.name, strerror(-ret));
			return ret;
		}
		if (d->nev > found) {
			/* Completions: the next empty pass starts a spin window. */
			rblk_spin_work(&d->spin, true);
			found = d->nev;
			if (d->nev >= min)
				break;
			continue;
		}
		if (d->nev >= min)
			break;
		/*
		 * The timeout (fio rarely gives one) is checked on the passes
		 * that read the clock anyway: where the spin's window ends and
		 * before each sleep. With an hpet clocksource each read is a
		 * system call, and an empty pass makes none (lazy qpairs:
		 * nothing is armed until we sleep).
		 */
		if (d->busy_poll) {
			if (!t || pass % SPIN_CLOCK_PASSES)
				continue;
		} else if (d->spin_us &&
			   rblk_spin_empty(&d->spin, false, NULL) == RBLK_SPIN_POLL) {
			continue;
		}
		if (t) {
			now = rblk_clock_ns();
			if (deadline == UINT64_MAX)
				deadline = now + (uint64_t)t->tv_sec * 1000000000ull +
					   (uint64_t)t->tv_nsec;
			if (now >= deadline)
				break;
			if (d->busy_poll)
				continue;
		}
		/*
		 * Sleep until a completion channel fires. The qpairs are lazy
		 * (rblk_poll() does not arm while we spin): arm them now, and
		 * poll instead when something beat the arm. The 100 ms cap only
		 * bounds how stale a lost-connection check gets.
		 */
		if (!prepare_sleep(d)) {
			rblk_spin_work(&d->spin, false);
			continue;
		}
		timeout_ms = 100;
		if (deadline != UINT64_MAX && (deadline - now) / 1000000ull < 100)
			timeout_ms = (int)((deadline - now + 999999ull) / 1000000ull);
		if (poll(d->pfds, d->nqp, timeout_ms) < 0 && errno != EINTR) {
			ret = -errno;
			log_err("rblk: %s: poll: %s\n", td->o.name, strerror(errno));
			return ret;
		}
		/* A wakeup that brings nothing (the 100 ms check) sleeps again at once. */
		rblk_spin_slept(&d->spin);
	}
	d->nret = d->nev < max ? d->nev : max;
	return (int)d->nret;
}

struct io_u *rblk_fio_event(struct thread_data *td, int event)
{
	struct rblk_fio_td *d = td->io_ops_data;

	return d->events[event];
}

char *rblk_fio_errdetails(struct io_u *io_u)
{
	struct rblk_fio_req *r = io_u->engine_data;
	char *s = NULL;
	int n;

	if (r && r->status)
		n = asprintf(&s, "rblk: NVMe status %s (0x%03x%s)", rblk_status_str(r->status),
			     r->status & 0x7ff, (r->status & 0x4000) ? ", do not retry" : "");
	else if (r && r->err)
		n = asprintf(&s, "rblk: transport error: %s", strerror(-r->err));
	else
		n = asprintf(&s, "rblk: %s", strerror(io_u->error));
	return n < 0 ? NULL : s;
}
