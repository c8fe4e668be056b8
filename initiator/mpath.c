/* SPDX-License-Identifier: MIT */
/*
 * The multipath head (see include/rblk/initiator.h, "Multipath", and
 * initiator/mpath.h): options, connecting each path and checking that it
 * leads to the same namespace, the head's thread, and the path snapshot.
 *
 * The head thread wakes every TICK_MS (or when an I/O saw an ANA status)
 * and, per path: connects a path that has no controller yet (every
 * reconnect_delay: a path that was down at start, or that the target
 * refused), and re-reads a live path's ANA log when stale (an I/O saw an
 * ANA status, or the controller sent an ANA change notice: aen.c writes the
 * head's eventfd) or every ana_poll_ms (30 s at least for a controller that
 * sends those notices). After that it wakes the multipath queue pairs: all
 * of them when a path became usable (failback without waiting for I/O),
 * else the ones whose requests wait for a path (their no-path timeout runs
 * in poll).
 * Reconnecting a controller that was lost is the controller's own thread's
 * work (paths reconnect forever).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "initiator/ctrl.h"
#include "initiator/mpath.h"
#include "protocol/le.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_log.h"

#define TICK_MS 250
#define ANA_POLL_WITH_EVENTS_MS 30000u

static enum rblk_ctrl_state path_ctrl_state(struct rblk_ctrl *c)
{
	return rblk_ctrl_state(c);
}

const struct rblk_mpath_path_ops rblk_mpath_path_ops_default = {
	.qpair_alloc = rblk_qpair_alloc,
	.qpair_free = rblk_qpair_free,
	.submit = rblk_submit,
	.poll = rblk_poll,
	.flush = rblk_qpair_flush,
	.fd = rblk_qpair_fd,
	.state = path_ctrl_state,
};

void rblk_mpath_opts_init(struct rblk_mpath_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->no_path_tmo = -2;	/* "not given": paths[0].ctrl_loss_tmo */
	opts->ana_poll_ms = 1000;
}

/* Our own copy of a path's connect options: the head connects it again later. */
static int path_init(struct rblk_mpath_path *p, unsigned index, const struct rblk_connect_opts *in)
{
	const char **fields[] = {
		&p->opts.traddr, &p->opts.trsvcid, &p->opts.host_traddr, &p->opts.subnqn,
		&p->opts.hostnqn, &p->opts.hostid, &p->opts.dhchap_secret, &p->opts.dhchap_ctrl_secret,
	};

	_Static_assert(sizeof(fields) / sizeof(fields[0]) == sizeof(p->strs) / sizeof(p->strs[0]),
		       "one owned string per field");
	p->index = index;
	rblk_connect_opts_init(&p->opts);
	if (!in || in->size < offsetof(struct rblk_connect_opts, subnqn) + sizeof(in->subnqn))
		return -EINVAL;
	memcpy(&p->opts, in, in->size < sizeof(p->opts) ? in->size : sizeof(p->opts));
	p->opts.size = sizeof(p->opts);
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!*fields[i])
			continue;
		p->strs[i] = strdup(*fields[i]);
		if (!p->strs[i])
			return -ENOMEM;
		*fields[i] = p->strs[i];
	}
	if (!p->opts.trsvcid || !*p->opts.trsvcid)
		p->opts.trsvcid = "4420";
	/* The head bounds the wait (no_path_tmo); a path itself never gives up. */
	p->opts.ctrl_loss_tmo = -1;
	p->opts.fast_io_fail = true;
	atomic_init(&p->ana, (int)RBLK_ANA_OPTIMIZED);
	return 0;
}

static void path_fini(struct rblk_mpath_path *p)
{
	struct rblk_ctrl *c = atomic_load(&p->ctrl);

	if (c)
		rblk_disconnect(c);	/* closes p->ns with it */
	atomic_store(&p->ctrl, NULL);
	for (unsigned i = 0; i < sizeof(p->strs) / sizeof(p->strs[0]); i++) {
		if (p->strs[i] && (i == 6 || i == 7))
			memset(p->strs[i], 0, strlen(p->strs[i]));	/* secrets */
		free(p->strs[i]);
		p->strs[i] = NULL;
	}
}

static void ident_of(const struct rblk_ns *ns, struct rblk_mpath_ident *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->nguid, ns->id->nguid, sizeof(out->nguid));
	memcpy(out->eui64, ns->id->eui64, sizeof(out->eui64));
	out->nsze = ns->nsze;
	out->lba_shift = ns->lba_shift;
}

/* nsid 0: the only active namespace, as the CLI's choice. */
static int resolve_nsid(struct rblk_mpath *mp, struct rblk_ctrl *c)
{
	uint32_t ids[2];
	int n;

	if (mp->nsid)
		return 0;
	n = rblk_ctrl_list_ns(c, ids, 2);
	if (n < 0)
		return n;
	if (n != 1) {
		RBLK_ERR("multipath: %s has %d active namespaces: name one", c->subnqn, n);
		return -EINVAL;
	}
	mp->nsid = ids[0];
	return 0;
}

/*
 * One connect of path @p: the controller, its namespace, the identity check
 * (the first path to connect sets the identity), the ANA state; publishes
 * the controller. -EMEDIUMTYPE: the namespace differs (the path is refused).
 */
static int path_connect(struct rblk_mpath *mp, struct rblk_mpath_path *p, uint16_t *status)
{
	struct rblk_mpath_ident id;
	const struct nvme_id_ctrl *idc;
	struct rblk_ctrl *c;
	struct rblk_ns *ns;
	int ret;

	ret = rblk_connect(&p->opts, &c, status);
	if (ret)
		return ret;
	ret = resolve_nsid(mp, c);
	if (ret)
		goto out_disconnect;
	ret = rblk_ns_open(c, mp->nsid, &ns);
	if (ret)
		goto out_disconnect;
	ident_of(ns, &id);
	if (!mp->have_ident) {
		mp->ident = id;
		mp->have_ident = true;
	} else if (memcmp(&id, &mp->ident, sizeof(id))) {
		RBLK_ERR("multipath: namespace %u at %s:%s is not the one of the other paths (NGUID, EUI-64 or size differ): path not used",
			 mp->nsid, p->opts.traddr, p->opts.trsvcid);
		atomic_store(&p->refused, true);
		ret = -EMEDIUMTYPE;
		goto out_disconnect;
	}
	p->ns = ns;
	p->nsze_seen = atomic_load(&ns->nsze);
	idc = rblk_ctrl_identify(c);
	p->ana_supported = (idc->cmic & (1u << 3)) != 0;
	/* From here an ANA change notice wakes the head (taken before the read below). */
	rblk_ctrl_set_event_fd(c, mp->wake_fd);
	p->ana_events_seen = atomic_load(&c->ana_events);
	if (p->ana_supported) {
		ret = rblk_mpath_ana_refresh(p, c, mp->nsid);
		/* A log that is refused or does not place the namespace leaves the path inaccessible. */
		if (ret && ret != -ENOENT && ret != -EPROTO && ret != -EREMOTEIO)
			goto out_disconnect;
	} else {
		atomic_store(&p->ana, (int)RBLK_ANA_OPTIMIZED);
	}
	RBLK_NOTICE("multipath: path %u %s:%s: controller %u, %s%s", p->index, p->opts.traddr,
		    p->opts.trsvcid, rblk_ctrl_cntlid(c), p->ana_supported ? "ANA " : "no ANA",
		    p->ana_supported ? rblk_ana_state_str((enum rblk_ana_state)atomic_load(&p->ana))
				     : "");
	p->was_live = true;
	atomic_store_explicit(&p->ctrl, c, memory_order_release);
	return 0;

out_disconnect:
	p->ns = NULL;
	rblk_disconnect(c);
	return ret;
}

/* A new ANA change notice from @c since the path's last look (head thread). */
static bool ana_event_seen(struct rblk_mpath_path *p, struct rblk_ctrl *c)
{
	uint32_t n = atomic_load(&c->ana_events);

	if (n == p->ana_events_seen)
		return false;
	p->ana_events_seen = n;
	RBLK_DEBUG("multipath: path %u (%s:%s): ANA change notice", p->index, p->opts.traddr,
		   p->opts.trsvcid);
	return true;
}

/*
 * How long a path's ANA log is trusted: ana_poll_ms, or at least
 * ANA_POLL_WITH_EVENTS_MS when its controller reports ANA changes itself
 * (then the poll is only a safety net for a notice lost with a connection).
 */
static uint64_t ana_period(const struct rblk_mpath *mp, struct rblk_ctrl *c)
{
	if (!(atomic_load(&c->aen_enabled) & NVME_AEN_CFG_ANA_CHANGE))
		return mp->opts.ana_poll_ms;
	return mp->opts.ana_poll_ms > ANA_POLL_WITH_EVENTS_MS ? mp->opts.ana_poll_ms
							      : ANA_POLL_WITH_EVENTS_MS;
}

/*
 * A namespace resized behind the paths (aen.c updated @p's size on a
 * namespace-changed notice): the head takes the new size, and so does the
 * identity a path connected later must match. Only a path whose own size
 * changed moves the head, so one not yet told keeps it where it is.
 */
static void size_follow(struct rblk_mpath *mp, struct rblk_mpath_path *p)
{
	uint64_t n = atomic_load(&p->ns->nsze), old = atomic_load(&mp->ns.nsze);

	if (n == p->nsze_seen)
		return;
	p->nsze_seen = n;
	if (n == old)
		return;
	RBLK_NOTICE("multipath: namespace %u resized: %llu -> %llu blocks (path %u)", mp->nsid,
		    (unsigned long long)old, (unsigned long long)n, p->index);
	atomic_store(&mp->ns.nsze, n);
	mp->ident.nsze = n;
}

static void *head_thread(void *arg)
{
	struct rblk_mpath *mp = arg;

	while (!atomic_load(&mp->stopping)) {
		struct pollfd pfd = { .fd = mp->wake_fd, .events = POLLIN };
		bool changed = false;
		uint64_t drain, now;

		if (poll(&pfd, 1, TICK_MS) < 0 && errno != EINTR)
			RBLK_DEBUG("multipath thread: poll: %s", strerror(errno));
		if (read(mp->wake_fd, &drain, sizeof(drain)) < 0 && errno != EAGAIN)
			RBLK_DEBUG("multipath thread: eventfd: %s", strerror(errno));
		for (unsigned i = 0; i < mp->npaths && !atomic_load(&mp->stopping); i++) {
			struct rblk_mpath_path *p = &mp->paths[i];
			struct rblk_ctrl *c = atomic_load(&p->ctrl);
			int before = atomic_load(&p->ana);

			now = rblk_clock_ms();
			if (atomic_load(&p->refused))
				continue;
			if (!c) {
				if (now < p->next_connect_ms)
					continue;
				if (path_connect(mp, p, NULL) == 0)
					changed = true;
				else
					p->next_connect_ms = rblk_clock_ms() +
							     (uint64_t)p->opts.reconnect_delay * 1000;
				continue;
			}
			if (rblk_ctrl_state(c) != RBLK_CTRL_LIVE) {
				p->was_live = false;
				continue;
			}
			if (!p->was_live) {
				/* Back from a reconnect: the groups may have moved meanwhile. */
				p->was_live = true;
				atomic_store(&p->ana_stale, true);
				changed = true;
			}
			size_follow(mp, p);
			if (!p->ana_supported)
				continue;
			if (ana_event_seen(p, c))
				atomic_store(&p->ana_stale, true);
			if (!atomic_load(&p->ana_stale) && now - p->ana_read_ms < ana_period(mp, c))
				continue;
			rblk_mpath_ana_refresh(p, c, mp->nsid);
			if (atomic_load(&p->ana) != before)
				changed = true;
		}
		pthread_mutex_lock(&mp->lock);
		for (struct rblk_mpath_qp *mq = mp->qps; mq; mq = rblk_mpath_qp_next(mq))
			rblk_mpath_qp_notify(mq, !changed);
		pthread_mutex_unlock(&mp->lock);
	}
	return NULL;
}

static void head_free(struct rblk_mpath *mp)
{
	if (mp->thread_running) {
		atomic_store(&mp->stopping, true);
		if (mp->wake_fd >= 0) {
			uint64_t one = 1;

			if (write(mp->wake_fd, &one, sizeof(one)) < 0)
				RBLK_DEBUG("waking the multipath thread: %s", strerror(errno));
		}
		pthread_join(mp->thread, NULL);
	}
	for (unsigned i = 0; i < mp->npaths; i++)
		path_fini(&mp->paths[i]);
	free(mp->ns.id);
	if (mp->wake_fd >= 0)
		close(mp->wake_fd);
	pthread_mutex_destroy(&mp->lock);
	free(mp);
}

/* The head's namespace: the shape of the first path's, with no controller. */
static int head_ns_init(struct rblk_mpath *mp, const struct rblk_ns *first)
{
	mp->ns.ctrl = NULL;
	mp->ns.mpath = mp;
	mp->ns.uid = rblk_ns_uid_new();
	mp->ns.nsid = mp->nsid;
	mp->ns.nsze = first->nsze;
	mp->ns.lba_shift = first->lba_shift;
	mp->ns.read_only = first->read_only;
	if (posix_memalign((void **)&mp->ns.id, 4096, sizeof(*mp->ns.id)))
		return -ENOMEM;
	memcpy(mp->ns.id, first->id, sizeof(*mp->ns.id));
	return 0;
}

int rblk_mpath_connect(const struct rblk_mpath_opts *in, struct rblk_mpath **out, uint16_t *status)
{
	struct rblk_mpath_opts o;
	struct rblk_mpath *mp;
	struct rblk_ns *first = NULL;
	sigset_t all, old;
	int ret, first_err = 0;

	if (status)
		*status = 0;
	if (!out || !in || in->size < offsetof(struct rblk_mpath_opts, nsid) + sizeof(in->nsid))
		return -EINVAL;
	*out = NULL;
	rblk_mpath_opts_init(&o);
	memcpy(&o, in, in->size < sizeof(o) ? in->size : sizeof(o));
	o.size = sizeof(o);
	if (!o.paths || !o.npaths || o.npaths > RBLK_MPATH_MAX_PATHS)
		return -EINVAL;
	for (unsigned i = 1; i < o.npaths; i++)
		if (!o.paths[i].subnqn || !o.paths[0].subnqn || strcmp(o.paths[i].subnqn, o.paths[0].subnqn))
			return -EINVAL;
	if (!o.ana_poll_ms)
		o.ana_poll_ms = 1000;
	if ((unsigned)o.iopolicy > RBLK_MPATH_IOPOLICY_QUEUE_DEPTH)
		return -EINVAL;
	mp = calloc(1, sizeof(*mp));
	if (!mp)
		return -ENOMEM;
	mp->wake_fd = -1;
	pthread_mutex_init(&mp->lock, NULL);
	mp->opts = o;
	mp->opts.paths = NULL;	/* not ours to keep: copied below */
	mp->nsid = o.nsid;
	for (unsigned i = 0; i < o.npaths; i++) {
		mp->npaths++;
		ret = path_init(&mp->paths[i], i, &o.paths[i]);
		if (ret)
			goto out_free;
	}
	if (o.no_path_tmo < -1)
		o.no_path_tmo = o.paths[0].size >= offsetof(struct rblk_connect_opts, ctrl_loss_tmo) +
						   sizeof(int32_t) ? o.paths[0].ctrl_loss_tmo : 600;
	mp->no_path_ms = o.no_path_tmo < 0 ? UINT64_MAX : (uint64_t)o.no_path_tmo * 1000;
	mp->depth = mp->paths[0].opts.queue_size ? mp->paths[0].opts.queue_size : 128;
	mp->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (mp->wake_fd < 0) {
		ret = -errno;
		goto out_free;
	}
	for (unsigned i = 0; i < mp->npaths; i++) {
		struct rblk_mpath_path *p = &mp->paths[i];
		uint16_t st = 0;

		ret = path_connect(mp, p, &st);
		if (ret) {
			RBLK_WARN("multipath: path %u %s:%s: %s; retrying every %d s", i, p->opts.traddr,
				  p->opts.trsvcid, strerror(-ret), p->opts.reconnect_delay);
			p->next_connect_ms = rblk_clock_ms() + (uint64_t)p->opts.reconnect_delay * 1000;
			if (!first_err) {
				first_err = ret;
				if (status)
					*status = st;
			}
			/* Wrong namespace selection is the caller's error, not the path's. */
			if (ret == -EINVAL && !mp->nsid)
				goto out_free_ret;
			continue;
		}
		if (!first)
			first = p->ns;
	}
	if (!first) {
		ret = first_err ? first_err : -ENOTCONN;
		goto out_free;
	}
	if (status)
		*status = 0;
	ret = head_ns_init(mp, first);
	if (ret)
		goto out_free;
	/* A library thread must never take the application's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&mp->thread, NULL, head_thread, mp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto out_free;
	mp->thread_running = true;
	*out = mp;
	return 0;

out_free_ret:
	ret = first_err;
out_free:
	head_free(mp);
	return ret;
}

void rblk_mpath_disconnect(struct rblk_mpath *mp)
{
	if (!mp)
		return;
	rblk_mpath_sync_qpairs_free(mp);
	if (mp->qps)
		RBLK_WARN("multipath: disconnecting with queue pairs still allocated");
	head_free(mp);
}

struct rblk_ns *rblk_mpath_ns(struct rblk_mpath *mp)
{
	return mp ? &mp->ns : NULL;
}

int rblk_mpath_qpair_alloc(struct rblk_mpath *mp, struct rblk_qpair **out)
{
	if (!mp || !out)
		return -EINVAL;
	return rblk_mpath_qp_create(mp, out);
}

unsigned rblk_mpath_num_paths(struct rblk_mpath *mp)
{
	return mp ? mp->npaths : 0;
}

int rblk_mpath_path_info(struct rblk_mpath *mp, unsigned i, struct rblk_mpath_path_info *out)
{
	struct rblk_mpath_path *p;
	struct rblk_ctrl *c;

	if (!mp || !out || i >= mp->npaths)
		return -EINVAL;
	p = &mp->paths[i];
	c = atomic_load_explicit(&p->ctrl, memory_order_acquire);
	memset(out, 0, sizeof(*out));
	out->traddr = p->opts.traddr;
	out->trsvcid = p->opts.trsvcid;
	out->refused = atomic_load(&p->refused);
	out->connected = c != NULL;
	if (c) {
		out->state = rblk_ctrl_state(c);
		out->cntlid = rblk_ctrl_cntlid(c);
		out->ana_reported = p->ana_supported && atomic_load(&p->ana_reported);
	}
	out->anagrpid = atomic_load(&p->anagrpid);
	out->ana = (enum rblk_ana_state)atomic_load(&p->ana);
	out->ios = atomic_load(&p->ios);
	out->failovers = atomic_load(&p->failovers);
	return 0;
}

struct rblk_ctrl *rblk_mpath_path_ctrl(struct rblk_mpath *mp, unsigned i)
{
	if (!mp || i >= mp->npaths)
		return NULL;
	return atomic_load_explicit(&mp->paths[i].ctrl, memory_order_acquire);
}
