/* SPDX-License-Identifier: MIT */
/*
 * An RBD image's NVMe reservation state, kept for the target in one RADOS
 * object next to the image (its pool and RADOS namespace), named
 * "rblk_resv.<image id>": the id, not the name, so a rename keeps it. Every
 * gateway exporting the image reads and writes that object, so hosts see
 * one reservation whichever gateway they reach it through.
 *
 * Races: a store asserts the object version this gateway last read or
 * wrote (create-exclusive when it saw no object). A write in between fails
 * it (-ERANGE or -EOVERFLOW for a version that moved, -EEXIST for an object
 * created meanwhile, -ENOENT for one removed). But the version also moves
 * when any gateway registers its watch on the object, so the store then
 * reads the object: the state it last knew, it writes again on the new
 * version; another state is -EAGAIN, and the target loads it and judges the
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
/* The largest state kept (the target's are much smaller: RBLK_PROVIDER_RESV_MAX). */
#define RESV_BLOB_MAX 4096u

struct rblk_rbd_resv {
	rados_ioctx_t io;
	char *label;
	char oid[128];
	uint64_t self_id;               /* our client's id: our own notifies are not news */
	/* The object as last read or written, under lock (held across its I/O). */
	pthread_mutex_t lock;
	bool known;                     /* absent, ver and last below are valid */
	bool absent;                    /* there was no object */
	uint64_t ver;
	size_t last_len;                /* 0: no state */
	uint8_t last[RESV_BLOB_MAX];    /* the state */
	uint8_t cur[RESV_BLOB_MAX + 1]; /* what the latest look found (+1: tells "too big") */
	/* The watch, under wlock (never held across a cluster call). */
	pthread_mutex_t wlock;
	pthread_cond_t wcond;           /* wakes the rewatch thread */
	void (*fn)(void *arg);
	void *arg;
	bool wanted;                    /* rblk_rbd_resv_watch was called */
	bool up;                        /* the watch is registered and sound */
	bool broken;                    /* an error came: register again */
	bool registered;                /* handle is librados's until unwatched (once) */
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

/*
 * Reads the object into rs->cur (*got bytes) with its version; lock held.
 * 0, -ENOENT (no object), -EFBIG (more than any state), or -errno.
 */
static int look(struct rblk_rbd_resv *rs, size_t *got, uint64_t *ver)
{
	rados_read_op_t op = rados_create_read_op();
	uint64_t size = 0;
	int r, rstat = 0, rread = 0;

	if (!op)
		return -ENOMEM;
	*got = 0;
	rados_read_op_stat(op, &size, NULL, &rstat);
	rados_read_op_read(op, 0, sizeof(rs->cur), (char *)rs->cur, got, &rread);
	r = operate(rs, op, NULL, ver);
	rados_release_read_op(op);
	if (!r)
		r = rstat < 0 ? rstat : rread;
	if (!r && size > sizeof(rs->cur))
		r = -EFBIG;
	return r;
}

/* Does what look() found (r, got) hold the state last read or written? */
static bool same_as_last(const struct rblk_rbd_resv *rs, int r, size_t got)
{
	if (r == -ENOENT || (!r && !got))
		return rs->known && !rs->last_len;
	return !r && rs->known && got == rs->last_len && !memcmp(rs->cur, rs->last, got);
}

/* Take what look() found (r 0 or -ENOENT) as the state last known. */
static void keep(struct rblk_rbd_resv *rs, int r, size_t got, uint64_t ver)
{
	rs->known = true;
	rs->absent = r == -ENOENT;
	rs->ver = ver;
	rs->last_len = r ? 0 : got;
	memcpy(rs->last, rs->cur, rs->last_len);
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
	uint64_t ver = 0;
	size_t got;
	int r;

	if (watch_down(rs))
		return -ENOTCONN;
	pthread_mutex_lock(&rs->lock);
	r = look(rs, &got, &ver);
	if (!r && got > len)
		r = -EFBIG;
	if (r == -EFBIG) {
		/* Not a state this target wrote: never guess one. */
		RBLK_ERR("backend: %s: reservation object %s holds more than a state",
			 rs->label, rs->oid);
		r = -EINVAL;
	}
	if (!r || r == -ENOENT)
		keep(rs, r, got, ver);
	if (!r) {
		memcpy(buf, rs->cur, got);
		*out_len = got;
		r = got ? 0 : -ENOENT; /* the watch's empty object: no reservation */
	}
	pthread_mutex_unlock(&rs->lock);
	return r;
}

/* Another gateway's write came between our last look and this store. */
static bool lost_race(int r)
{
	return r == -ERANGE || r == -EOVERFLOW || r == -EEXIST || r == -ENOENT;
}

/* One conditional write of buf; lock held. 0, a lost race's -errno, or -errno. */
static int write_if_unchanged(struct rblk_rbd_resv *rs, const void *buf, size_t len,
			      uint64_t *ver)
{
	rados_write_op_t op = rados_create_write_op();
	int r;

	if (!op)
		return -ENOMEM;
	if (rs->absent)
		rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
	else
		rados_write_op_assert_version(op, rs->ver);
	rados_write_op_write_full(op, buf, len);
	r = operate(rs, NULL, op, ver);
	rados_release_write_op(op);
	return r;
}

int rblk_rbd_resv_store(struct rblk_rbd_resv *rs, const void *buf, size_t len)
{
	char *reply = NULL;
	size_t reply_len = 0, got;
	uint64_t ver = 0;
	int r = -EAGAIN, r2;

	if (len > sizeof(rs->last))
		return -EINVAL;
	pthread_mutex_lock(&rs->lock);
	/* Nothing read yet to assert (!known): the target loads, then tries again. */
	for (unsigned tries = 0; rs->known && tries < 4; tries++) {
		r = write_if_unchanged(rs, buf, len, &ver);
		if (!lost_race(r))
			break;
		/*
		 * The version moves with every watch registered on the object,
		 * not only with a state written: a look tells which it was.
		 * The same state: take its version and write again.
		 */
		r2 = look(rs, &got, &ver);
		if (!same_as_last(rs, r2, got)) {
			r = -EAGAIN;
			break;
		}
		keep(rs, r2, got, ver);
		r = -EAGAIN;
	}
	if (r) {
		/* A failed write may have landed (a timeout): assert nothing until a load. */
		rs->known = false;
		pthread_mutex_unlock(&rs->lock);
		return r;
	}
	rs->absent = false;
	rs->ver = ver;
	rs->last_len = len;
	memcpy(rs->last, buf, len);
	pthread_mutex_unlock(&rs->lock);

	r = rados_notify2(rs->io, rs->oid, NULL, 0, NOTIFY_TIMEOUT_MS, &reply, &reply_len);
	if (reply)
		rados_buffer_free(reply);
	if (r < 0)
		RBLK_WARN("backend: %s: reservation stored, but not every gateway acknowledged "
			  "the notice on %s: %s", rs->label, rs->oid, strerror(-r));
	return 0;
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
 * Did the state change between the last load and the watch? (The object's
 * version did: the watch itself moves it.)
 */
static bool changed_since_load(struct rblk_rbd_resv *rs)
{
	uint64_t ver = 0;
	size_t got;
	bool changed;
	int r;

	pthread_mutex_lock(&rs->lock);
	r = look(rs, &got, &ver);
	changed = !same_as_last(rs, r, got);
	if (!changed)
		keep(rs, r, got, ver);
	pthread_mutex_unlock(&rs->lock);
	return changed;
}

/* Re-registers a broken watch until it works or closing, then tells the target. */
static void *rewatch_thread(void *arg)
{
	struct rblk_rbd_resv *rs = arg;
	struct timespec ts;
	uint64_t old, handle;
	bool registered;
	int r;

	pthread_mutex_lock(&rs->wlock);
	while (!rs->closing) {
		if (!rs->broken) {
			pthread_cond_wait(&rs->wcond, &rs->wlock);
			continue;
		}
		old = rs->handle;
		registered = rs->registered;
		rs->registered = false;
		pthread_mutex_unlock(&rs->wlock);
		/* Once only: librados frees the watch here, whatever it returns. */
		if (registered)
			rados_unwatch2(rs->io, old);
		r = watch_register(rs, &handle);
		pthread_mutex_lock(&rs->wlock);
		if (!r) {
			rs->handle = handle;
			rs->registered = true;
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
	rs->registered = true;
	rs->up = true;
	rs->wanted = true;
	pthread_mutex_unlock(&rs->wlock);
	r = pthread_create(&rs->thread, NULL, rewatch_thread, rs);
	if (r) {
		pthread_mutex_lock(&rs->wlock);
		rs->up = false;
		rs->wanted = false;
		rs->registered = false;
		pthread_mutex_unlock(&rs->wlock);
		rados_unwatch2(rs->io, handle);
		rados_watch_flush(rados_ioctx_get_cluster(rs->io));
		return -r;
	}
	rs->thread_started = true;
	/* A change between the target's first load and the watch found no watcher. */
	if (changed_since_load(rs))
		fn(arg);
	return 0;
}

void rblk_rbd_resv_destroy(struct rblk_rbd_resv *rs)
{
	bool registered;

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
	registered = rs->registered;
	pthread_mutex_unlock(&rs->wlock);
	if (registered)
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
