/* SPDX-License-Identifier: MIT */
/*
 * An RBD image's NVMe reservation state, kept for the target in one RADOS
 * object next to the image (its pool and RADOS namespace), named
 * "rblk_resv.<image id>": the id, not the name, so a rename keeps it. Every
 * gateway exporting the image reads and writes that object, so hosts see
 * one reservation whichever gateway they reach it through.
 *
 * Races: a store asserts the object version this gateway last read or
 * wrote (create-exclusive when it saw no object). Another gateway's write
 * in between fails it (-ERANGE or -EOVERFLOW for a version that moved,
 * -EEXIST for an object created meanwhile, -ENOENT for one removed), which
 * is returned as -EAGAIN: the target loads the state again and judges the
 * command anew. The versions come from each operation's own completion
 * (rados_aio_get_version), not from the ioctx's last version, which any
 * other call on the ioctx (a notify's acknowledgement) may change.
 *
 * Telling the others: after a store, a notify on the object. Each other
 * gateway's watch hands the news to the target (which loads the object on
 * a thread of its own) and then acknowledges, and the notify waits for the
 * acknowledgements: when the host's command completes, every gateway that
 * answered has started its load. A gateway that does not answer within
 * NOTIFY_TIMEOUT_MS (killed, its watch not yet expired) delays the command
 * that long, and is logged; the state is stored all the same.
 *
 * The watch needs an object: an empty one is created when none exists,
 * and reads as "no reservation". When the watch breaks (the OSD session
 * lost: -ENOTCONN, or it timed out), librados calls us on its own thread,
 * where nothing may block: a thread of ours registers it again, every
 * WATCH_RETRY_MS until that works, then tells the target, which loads
 * what it may have missed. Meanwhile a load fails with -ENOTCONN: a state
 * read without a watch may already be old, and the target fails closed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/rbd_resv.h"
#include "common/log.h"

#define RESV_OID_PREFIX "rblk_resv."
#define NOTIFY_TIMEOUT_MS 5000u
/* Seconds the OSDs keep the watch of a gateway they lost (then notifies stop waiting for it). */
#define WATCH_TIMEOUT_S 15u
#define WATCH_RETRY_MS 1000u

struct rblk_rbd_resv {
	rados_ioctx_t io;
	char *label;
	char oid[128];
	uint64_t self_id;               /* our client's id: our own notifies are not news */
	/* The object as last read or written, under lock (held across its I/O). */
	pthread_mutex_t lock;
	bool known;                     /* absent and ver below are valid */
	bool absent;                    /* there was no object */
	uint64_t ver;
	/* The watch, under wlock (never held across a cluster call). */
	pthread_mutex_t wlock;
	pthread_cond_t wcond;           /* wakes the rewatch thread */
	void (*fn)(void *arg);
	void *arg;
	bool wanted;                    /* rblk_rbd_resv_watch was called */
	bool up;                        /* the watch is registered and sound */
	bool broken;                    /* an error came: register again */
	bool closing;
	bool thread_started;
	uint64_t handle;
	pthread_t thread;
};

int rblk_rbd_resv_create(rados_ioctx_t io, const char *image_id, const char *label,
			 struct rblk_rbd_resv **out)
{
	struct rblk_rbd_resv *rs;
	pthread_condattr_t ca;
	int n;

	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	n = snprintf(rs->oid, sizeof(rs->oid), RESV_OID_PREFIX "%s", image_id);
	rs->label = strdup(label);
	if (n < 0 || (size_t)n >= sizeof(rs->oid) || !rs->label) {
		free(rs->label);
		free(rs);
		return n < 0 || (size_t)n >= sizeof(rs->oid) ? -ENAMETOOLONG : -ENOMEM;
	}
	rs->io = io;
	rs->self_id = rados_get_instance_id(rados_ioctx_get_cluster(io));
	pthread_mutex_init(&rs->lock, NULL);
	pthread_mutex_init(&rs->wlock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rs->wcond, &ca);
	pthread_condattr_destroy(&ca);
	*out = rs;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Load and store.                                                           */

/* Runs op (a read op when rop, else write op) and waits: its result and the object's version. */
static int operate(struct rblk_rbd_resv *rs, rados_read_op_t rop, rados_write_op_t wop,
		   uint64_t *ver)
{
	rados_completion_t c;
	int r;

	r = rados_aio_create_completion2(NULL, NULL, &c);
	if (r < 0)
		return r;
	if (rop)
		r = rados_aio_read_op_operate(rop, rs->io, c, rs->oid, 0);
	else
		r = rados_aio_write_op_operate(wop, rs->io, c, rs->oid, NULL, 0);
	if (!r) {
		rados_aio_wait_for_complete(c);
		r = rados_aio_get_return_value(c);
		*ver = rados_aio_get_version(c);
	}
	rados_aio_release(c);
	return r;
}

static bool watch_down(struct rblk_rbd_resv *rs)
{
	bool down;

	pthread_mutex_lock(&rs->wlock);
	down = rs->wanted && !rs->up;
	pthread_mutex_unlock(&rs->wlock);
	return down;
}

int rblk_rbd_resv_load(struct rblk_rbd_resv *rs, void *buf, size_t len, size_t *out_len)
{
	rados_read_op_t op;
	uint64_t size = 0, ver = 0;
	size_t got = 0;
	int r, rstat = 0, rread = 0;

	if (watch_down(rs))
		return -ENOTCONN;
	op = rados_create_read_op();
	if (!op)
		return -ENOMEM;
	rados_read_op_stat(op, &size, NULL, &rstat);
	rados_read_op_read(op, 0, len, buf, &got, &rread);
	pthread_mutex_lock(&rs->lock);
	r = operate(rs, op, NULL, &ver);
	rados_release_read_op(op);
	if (r == -ENOENT) {
		rs->known = true;
		rs->absent = true;
		goto out;
	}
	if (!r)
		r = rstat < 0 ? rstat : rread;
	if (r < 0)
		goto out;
	if (size > len) {
		/* Not a state this target wrote: never guess one. */
		RBLK_ERR("backend: %s: reservation object %s holds %llu bytes, more than a state",
			 rs->label, rs->oid, (unsigned long long)size);
		r = -EINVAL;
		goto out;
	}
	rs->known = true;
	rs->absent = false;
	rs->ver = ver;
	*out_len = got;
	r = got ? 0 : -ENOENT; /* the watch's empty object: no reservation */
out:
	pthread_mutex_unlock(&rs->lock);
	return r;
}

/* Another gateway's write came between our last look and this store. */
static bool lost_race(int r)
{
	return r == -ERANGE || r == -EOVERFLOW || r == -EEXIST || r == -ENOENT;
}

int rblk_rbd_resv_store(struct rblk_rbd_resv *rs, const void *buf, size_t len)
{
	rados_write_op_t op;
	char *reply = NULL;
	size_t reply_len = 0;
	uint64_t ver = 0;
	int r;

	op = rados_create_write_op();
	if (!op)
		return -ENOMEM;
	pthread_mutex_lock(&rs->lock);
	if (!rs->known) {
		/* Nothing read yet to assert: the target loads, then tries again. */
		r = -EAGAIN;
		goto out_unlock;
	}
	if (rs->absent)
		rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
	else
		rados_write_op_assert_version(op, rs->ver);
	rados_write_op_write_full(op, buf, len);
	r = operate(rs, NULL, op, &ver);
	if (lost_race(r)) {
		rs->known = false;
		r = -EAGAIN;
		goto out_unlock;
	}
	if (r < 0) {
		/* It may have landed (a timeout): assert nothing until the next load. */
		rs->known = false;
		goto out_unlock;
	}
	rs->absent = false;
	rs->ver = ver;
	pthread_mutex_unlock(&rs->lock);
	rados_release_write_op(op);

	r = rados_notify2(rs->io, rs->oid, NULL, 0, NOTIFY_TIMEOUT_MS, &reply, &reply_len);
	if (reply)
		rados_buffer_free(reply);
	if (r < 0)
		RBLK_WARN("backend: %s: reservation stored, but not every gateway acknowledged "
			  "the notice on %s: %s", rs->label, rs->oid, strerror(-r));
	return 0;

out_unlock:
	pthread_mutex_unlock(&rs->lock);
	rados_release_write_op(op);
	return r;
}

/* ------------------------------------------------------------------------ */
/* The watch.                                                                */

/* On a librados thread: another gateway stored a state (or we did: not news). */
static void watch_notified(void *arg, uint64_t notify_id, uint64_t handle, uint64_t notifier_id,
			   void *data, size_t data_len)
{
	struct rblk_rbd_resv *rs = arg;

	(void)data;
	(void)data_len;
	/* The target's load starts before the notifier's command completes. */
	if (notifier_id != rs->self_id)
		rs->fn(rs->arg);
	rados_notify_ack(rs->io, rs->oid, notify_id, handle, NULL, 0);
}

/* On a librados thread, which must not block: the rewatch thread repairs it. */
static void watch_failed(void *arg, uint64_t handle, int err)
{
	struct rblk_rbd_resv *rs = arg;
	bool first;

	pthread_mutex_lock(&rs->wlock);
	first = rs->up && rs->handle == handle;
	if (first) {
		rs->up = false;
		rs->broken = true;
		pthread_cond_signal(&rs->wcond);
	}
	pthread_mutex_unlock(&rs->wlock);
	if (!first)
		return;
	RBLK_WARN("backend: %s: reservation watch on %s lost (%s): registering it again",
		  rs->label, rs->oid, strerror(-err));
	/* Changes may be missed from now: the target's load fails until the watch is back. */
	rs->fn(rs->arg);
}

/* Registers the watch, creating the (empty) object first if need be. */
static int watch_register(struct rblk_rbd_resv *rs, uint64_t *handle)
{
	rados_write_op_t op = rados_create_write_op();
	uint64_t ver;
	int r;

	if (!op)
		return -ENOMEM;
	rados_write_op_create(op, LIBRADOS_CREATE_IDEMPOTENT, NULL);
	r = operate(rs, NULL, op, &ver);
	rados_release_write_op(op);
	if (r < 0)
		return r;
	return rados_watch3(rs->io, rs->oid, handle, watch_notified, watch_failed,
			    WATCH_TIMEOUT_S, rs);
}

/*
 * Did the object change between the last load and the watch? An empty
 * object where there was none is the same state (the watch made it).
 */
static int changed_since_load(struct rblk_rbd_resv *rs, bool *changed)
{
	rados_read_op_t op = rados_create_read_op();
	uint64_t size = 0, ver = 0;
	int r, rstat = 0;

	if (!op)
		return -ENOMEM;
	rados_read_op_stat(op, &size, NULL, &rstat);
	pthread_mutex_lock(&rs->lock);
	r = operate(rs, op, NULL, &ver);
	if (!r)
		r = rstat;
	if (!r) {
		if (rs->known && rs->absent && !size) {
			rs->absent = false;
			rs->ver = ver;
		}
		*changed = !rs->known || rs->absent || rs->ver != ver;
	}
	pthread_mutex_unlock(&rs->lock);
	rados_release_read_op(op);
	return r;
}

/* Re-registers a broken watch until it works or closing, then tells the target. */
static void *rewatch_thread(void *arg)
{
	struct rblk_rbd_resv *rs = arg;
	struct timespec ts;
	uint64_t old, handle;
	int r;

	pthread_mutex_lock(&rs->wlock);
	while (!rs->closing) {
		if (!rs->broken) {
			pthread_cond_wait(&rs->wcond, &rs->wlock);
			continue;
		}
		old = rs->handle;
		pthread_mutex_unlock(&rs->wlock);
		rados_unwatch2(rs->io, old); /* gone already, most likely */
		r = watch_register(rs, &handle);
		pthread_mutex_lock(&rs->wlock);
		if (!r) {
			rs->handle = handle;
			rs->broken = false;
			rs->up = true;
			pthread_mutex_unlock(&rs->wlock);
			RBLK_NOTICE("backend: %s: reservation watch on %s registered again",
				    rs->label, rs->oid);
			rs->fn(rs->arg); /* load what may have been missed */
			pthread_mutex_lock(&rs->wlock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += WATCH_RETRY_MS / 1000;
		ts.tv_nsec += (long)(WATCH_RETRY_MS % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&rs->wcond, &rs->wlock, &ts);
	}
	pthread_mutex_unlock(&rs->wlock);
	return NULL;
}

int rblk_rbd_resv_watch(struct rblk_rbd_resv *rs, void (*fn)(void *arg), void *arg)
{
	bool changed = false;
	uint64_t handle;
	int r;

	if (rs->wanted)
		return -EBUSY;
	rs->fn = fn;
	rs->arg = arg;
	r = watch_register(rs, &handle);
	if (r < 0) {
		RBLK_ERR("backend: %s: cannot watch the reservation object %s: %s", rs->label,
			 rs->oid, strerror(-r));
		return r;
	}
	pthread_mutex_lock(&rs->wlock);
	rs->handle = handle;
	rs->up = true;
	rs->wanted = true;
	pthread_mutex_unlock(&rs->wlock);
	r = pthread_create(&rs->thread, NULL, rewatch_thread, rs);
	if (r) {
		pthread_mutex_lock(&rs->wlock);
		rs->up = false;
		rs->wanted = false;
		pthread_mutex_unlock(&rs->wlock);
		rados_unwatch2(rs->io, handle);
		rados_watch_flush(rados_ioctx_get_cluster(rs->io));
		return -r;
	}
	rs->thread_started = true;
	/* A change between the target's first load and the watch found no watcher. */
	r = changed_since_load(rs, &changed);
	if (r || changed)
		fn(arg);
	return 0;
}

void rblk_rbd_resv_destroy(struct rblk_rbd_resv *rs)
{
	bool up;

	if (!rs)
		return;
	pthread_mutex_lock(&rs->wlock);
	rs->closing = true;
	pthread_cond_signal(&rs->wcond);
	pthread_mutex_unlock(&rs->wlock);
	if (rs->thread_started)
		pthread_join(rs->thread, NULL);
	/* The thread is gone: nothing changes the watch any more. */
	pthread_mutex_lock(&rs->wlock);
	up = rs->wanted && (rs->up || rs->broken);
	pthread_mutex_unlock(&rs->wlock);
	if (up)
		rados_unwatch2(rs->io, rs->handle);
	/* No callback of ours runs after this; the ioctx may go. */
	if (rs->wanted)
		rados_watch_flush(rados_ioctx_get_cluster(rs->io));
	pthread_cond_destroy(&rs->wcond);
	pthread_mutex_destroy(&rs->wlock);
	pthread_mutex_destroy(&rs->lock);
	free(rs->label);
	free(rs);
}
