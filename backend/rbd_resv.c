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
 * Telling the others: after a store, a notify on the object, which waits
 * for every watcher's acknowledgement. Each other gateway's watch hands the
 * news to the target, which loads the object on a thread of its own, and
 * acknowledges once a load that started after the notice has succeeded: so
 * when the host's command completes, the other gateways judge I/O by the
 * new state. Not later than ACK_DEFER_MS, though: a gateway whose load
 * waits (its own change in progress, itself waiting for our answer) or
 * fails (then it fails closed) must not hold the notifier up. A gateway that
 * does not answer at all within NOTIFY_TIMEOUT_MS (killed, its watch not yet
 * expired) delays the command that long, and is logged; the state is stored
 * all the same.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/rbd_resv.h"
#include "common/clock.h"
#include "common/log.h"

#define RESV_OID_PREFIX "rblk_resv."
#define NOTIFY_TIMEOUT_MS 5000u
/* Seconds the OSDs keep the watch of a gateway they lost (then notifies stop waiting for it). */
#define WATCH_TIMEOUT_S 15u
#define WATCH_RETRY_MS 1000u
/* Notices held unacknowledged until a load, at most this many and this long. */
#define ACK_MAX 16u
#define ACK_DEFER_MS 500u
/* The largest state kept (the target's are much smaller: RBLK_PROVIDER_RESV_MAX). */
#define RESV_BLOB_MAX 4096u

/* A notice from another gateway, not yet acknowledged. */
struct pending_ack {
	uint64_t notify_id;
	uint64_t handle;
	uint64_t seq;                   /* arrival order (notify_seq) */
	uint64_t deadline_ms;           /* acknowledged by then, loaded or not */
};

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
	/* Notices awaiting a load (under wlock). */
	struct pending_ack acks[ACK_MAX];
	unsigned nr_acks;
	uint64_t notify_seq;            /* notices received so far */
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

/* Takes out the notices that arrived by seq upto or are due at now; wlock held. */
static unsigned take_acks_locked(struct rblk_rbd_resv *rs, uint64_t upto, uint64_t now,
				 struct pending_ack *out)
{
	unsigned n = 0, k = 0;

	for (unsigned i = 0; i < rs->nr_acks; i++) {
		if (rs->acks[i].seq <= upto || rs->acks[i].deadline_ms <= now)
			out[n++] = rs->acks[i];
		else
			rs->acks[k++] = rs->acks[i];
	}
	rs->nr_acks = k;
	return n;
}

/* Queues the acknowledgements (librados sends them; nothing waits here). */
static void send_acks(struct rblk_rbd_resv *rs, const struct pending_ack *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rados_notify_ack(rs->io, rs->oid, a[i].notify_id, a[i].handle, NULL, 0);
}

/* A load that started after notice seq succeeded: the notifiers may go on. */
static void loaded_after(struct rblk_rbd_resv *rs, uint64_t seq)
{
	struct pending_ack due[ACK_MAX];
	unsigned n;

	pthread_mutex_lock(&rs->wlock);
	n = take_acks_locked(rs, seq, 0, due);
	pthread_mutex_unlock(&rs->wlock);
	send_acks(rs, due, n);
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
	uint64_t ver = 0, seq;
	size_t got;
	int r;

	if (watch_down(rs))
		return -ENOTCONN;
	pthread_mutex_lock(&rs->wlock);
	seq = rs->notify_seq;
	pthread_mutex_unlock(&rs->wlock);
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
	if (!r || r == -ENOENT)
		loaded_after(rs, seq);
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

/*
 * On a librados thread: another gateway stored a state (or we did: not
 * news). Acknowledged after the target's next load (loaded_after), or by
 * the rewatch thread when ACK_DEFER_MS is up.
 */
static void watch_notified(void *arg, uint64_t notify_id, uint64_t handle, uint64_t notifier_id,
			   void *data, size_t data_len)
{
	struct rblk_rbd_resv *rs = arg;
	struct pending_ack a = { notify_id, handle, 0, 0 }, oldest;
	bool full;

	(void)data;
	(void)data_len;
	if (notifier_id == rs->self_id) {
		send_acks(rs, &a, 1);
		return;
	}
	pthread_mutex_lock(&rs->wlock);
	full = rs->nr_acks == ACK_MAX;
	if (full) {
		oldest = rs->acks[0];
		memmove(rs->acks, rs->acks + 1, (ACK_MAX - 1) * sizeof(rs->acks[0]));
		rs->nr_acks--;
	}
	a.seq = ++rs->notify_seq;
	a.deadline_ms = rblk_clock_ms() + ACK_DEFER_MS;
	rs->acks[rs->nr_acks++] = a;
	pthread_cond_signal(&rs->wcond); /* its deadline */
	pthread_mutex_unlock(&rs->wlock);
	if (full)
		send_acks(rs, &oldest, 1);
	rs->fn(rs->arg);
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

/* Waits on wcond until wake_ms (rblk_clock_ms; UINT64_MAX: no deadline). wlock held. */
static void wait_until(struct rblk_rbd_resv *rs, uint64_t wake_ms)
{
	struct timespec ts = { .tv_sec = (time_t)(wake_ms / 1000),
			       .tv_nsec = (long)(wake_ms % 1000) * 1000000 };

	if (wake_ms == UINT64_MAX)
		pthread_cond_wait(&rs->wcond, &rs->wlock);
	else
		pthread_cond_timedwait(&rs->wcond, &rs->wlock, &ts);
}

/*
 * Re-registers a broken watch until it works or closing, then tells the
 * target; and acknowledges the notices no load acknowledged in time.
 */
static void *rewatch_thread(void *arg)
{
	struct rblk_rbd_resv *rs = arg;
	struct pending_ack due[ACK_MAX];
	uint64_t old, handle, now, wake, retry_at = 0;
	bool registered;
	unsigned n;
	int r;

	pthread_mutex_lock(&rs->wlock);
	while (!rs->closing) {
		now = rblk_clock_ms();
		n = take_acks_locked(rs, 0, now, due);
		if (n) {
			pthread_mutex_unlock(&rs->wlock);
			send_acks(rs, due, n);
			pthread_mutex_lock(&rs->wlock);
			continue;
		}
		if (!rs->broken || now < retry_at) {
			wake = rs->broken ? retry_at : UINT64_MAX;
			for (unsigned i = 0; i < rs->nr_acks; i++)
				if (rs->acks[i].deadline_ms < wake)
					wake = rs->acks[i].deadline_ms;
			wait_until(rs, wake);
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
		retry_at = rblk_clock_ms() + WATCH_RETRY_MS;
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
	struct pending_ack due[ACK_MAX];
	bool registered;
	unsigned n;

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
	n = take_acks_locked(rs, UINT64_MAX, 0, due);
	pthread_mutex_unlock(&rs->wlock);
	send_acks(rs, due, n); /* no load will come: the notifiers need not wait */
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
