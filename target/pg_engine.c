/* SPDX-License-Identifier: MIT */
/*
 * Provider engines on the poll groups (include/rblk/provider.h): the
 * target's registry of the engines its namespaces name, and each poll
 * group's attachment to them: attached on the group's thread at the first io
 * that needs one (io_uring binds a ring to the thread that creates it),
 * polled and flushed by the group's loop, their wait fds on the group's
 * epoll set, the group's registered buffers offered to them, detached when
 * the group stops.
 *
 * The built-in backends are one such engine (backend/provider.c), which
 * every group attaches when its thread starts; an embedder's provider may
 * bring its own, attached at its first io on each group. The registry only grows: a slot is
 * published before the first namespace naming it, and namespaces are found
 * by the I/O path with an acquire load, so the group reads the slot without
 * a lock. Four slots are plenty: an engine is a kind of storage, not a
 * namespace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/log.h"
#include "target/core.h"

/* Completions reaped per engine per iteration. */
#define PG_ENGINE_BATCH 32

static bool engine_valid(const struct rblk_provider_engine *e)
{
	return e->size >= offsetof(struct rblk_provider_engine, register_buffers) +
				  sizeof(e->register_buffers) &&
	       e->attach && e->detach && e->poll && e->inflight &&
	       e->io_priv_size <= RBLK_PROVIDER_IO_PRIV_MAX;
}

int rblk_tgt_engine_slot(struct rblk_target *tgt, const struct rblk_provider *prov)
{
	const struct rblk_provider_engine *e = prov->engine;
	int slot = -ENOSPC;

	if (!e)
		return -1;
	if (!engine_valid(e)) {
		RBLK_ERR("provider engine %s: needs attach, detach, poll and inflight, and at most "
			 "%u bytes of io->priv (asks %zu)", e->name ? e->name : "?",
			 RBLK_PROVIDER_IO_PRIV_MAX, e->io_priv_size);
		return -EINVAL;
	}
	pthread_mutex_lock(&tgt->eng_lock);
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		if (tgt->engines[i] == e) {
			slot = i;
			break;
		}
		if (!tgt->engines[i]) {
			tgt->engines[i] = e;
			slot = i;
			break;
		}
	}
	pthread_mutex_unlock(&tgt->eng_lock);
	if (slot < 0)
		RBLK_ERR("provider engine %s: the target runs %u engines already",
			 e->name ? e->name : "?", RBLK_TGT_MAX_ENGINES);
	return slot;
}

/* ------------------------------------------------------------------------ */
/* Attach and detach.                                                        */

static void offer_buffers(struct rblk_tgt_pg *pg, struct rblk_tgt_pg_engine *pe)
{
	int ret;

	if (!pg->nbufs || !pe->e->register_buffers || pe->bufs)
		return;
	ret = pe->e->register_buffers(pe->thread, pg->bufs, pg->nbufs);
	if (ret) {
		RBLK_WARN("poll group %u: the %s engine cannot register the buffer pool (%s): "
			  "I/O goes through unregistered buffers", pg->id, pe->e->name,
			  strerror(-ret));
		return;
	}
	pe->bufs = true;
	RBLK_INFO("poll group %u: %u buffers registered with the %s engine", pg->id, pg->nbufs,
		  pe->e->name);
}

/* Its wait fd on the group's epoll set, off while the group is awake. */
static void watch_fd(struct rblk_tgt_pg *pg, struct rblk_tgt_pg_engine *pe)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = pe->e->wait_fd ? pe->e->wait_fd(pe->thread) : -EOPNOTSUPP;

	pe->fd = -1;
	if (fd < 0) {
		RBLK_WARN("poll group %u: the %s engine has no wait fd (%s): the group will not "
			  "sleep while its I/O is in flight", pg->id, pe->e->name, strerror(-fd));
		return;
	}
	/* No epoll set (a test's loop): the fd is read by storage_sleep() only. */
	if (pg->epfd >= 0) {
		ev.data.ptr = &pe->fd;
		if (epoll_ctl(pg->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			RBLK_WARN("poll group %u: the %s engine's wait fd: %s", pg->id,
				  pe->e->name, strerror(errno));
			return;
		}
	}
	pe->fd = fd;
	pe->toggle = pe->e->notify && pe->e->notify(pe->thread, false) == 0;
	pe->on = false;
}

int rblk_tgt_pg_engine_attach(struct rblk_tgt_pg *pg, struct rblk_target *tgt, int slot)
{
	struct rblk_tgt_pg_engine *pe = &pg->eng[slot];
	const struct rblk_provider_engine *e = tgt->engines[slot];
	int ret;

	if (pe->e)
		return 0;
	ret = e->attach(e, &pe->thread);
	if (ret) {
		RBLK_ERR("poll group %u: cannot start the %s engine: %s", pg->id, e->name,
			 strerror(-ret));
		return ret;
	}
	pe->e = e;
	watch_fd(pg, pe);
	offer_buffers(pg, pe);
	RBLK_DEBUG("poll group %u: %s engine attached", pg->id, e->name);
	return 0;
}

int rblk_tgt_pg_storage_attach(struct rblk_tgt_pg *pg, struct rblk_target *tgt)
{
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		const struct rblk_provider_engine *e;
		int ret;

		pthread_mutex_lock(&tgt->eng_lock);
		e = tgt->engines[i];
		pthread_mutex_unlock(&tgt->eng_lock);
		if (!e)
			break;
		ret = rblk_tgt_pg_engine_attach(pg, tgt, i);
		if (ret)
			return ret;
	}
	return 0;
}

void rblk_tgt_pg_storage_detach(struct rblk_tgt_pg *pg)
{
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];

		if (!pe->e)
			continue;
		if (pe->fd >= 0 && pg->epfd >= 0)
			epoll_ctl(pg->epfd, EPOLL_CTL_DEL, pe->fd, NULL);
		pe->e->detach(pe->thread);
		memset(pe, 0, sizeof(*pe));
		pe->fd = -1;
	}
	free(pg->bufs);
	pg->bufs = NULL;
	pg->nbufs = 0;
}

int rblk_tgt_pg_storage_buffers(struct rblk_tgt_pg *pg, const struct iovec *iov, unsigned n)
{
	struct iovec *copy;
	unsigned local;

	if (!n) {
		free(pg->bufs);
		pg->bufs = NULL;
		pg->nbufs = 0;
		return 0;
	}
	copy = malloc(n * sizeof(*iov));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, iov, n * sizeof(*iov));
	free(pg->bufs);
	pg->bufs = copy;
	pg->nbufs = n;
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];

		/* Registration replaces the previous one and wants an idle engine. */
		if (pe->e && !pe->e->inflight(pe->thread, &local)) {
			pe->bufs = false;
			offer_buffers(pg, pe);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The loop's calls.                                                         */

unsigned rblk_tgt_pg_storage_poll(struct rblk_tgt_pg *pg)
{
	unsigned n = 0;

	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];
		int r;

		if (!pe->e)
			continue;
		r = pe->e->poll(pe->thread, PG_ENGINE_BATCH);
		if (r > 0)
			n += (unsigned)r;
		else if (r < 0)
			RBLK_ERR("poll group %u: polling the %s engine: %s", pg->id, pe->e->name,
				 strerror(-r));
	}
	return n;
}

void rblk_tgt_pg_storage_flush(struct rblk_tgt_pg *pg)
{
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];
		int r;

		if (!pe->e || !pe->e->flush)
			continue;
		r = pe->e->flush(pe->thread);
		/* Busy: what stays queued goes with the next flush. */
		if (r < 0 && r != -EAGAIN && r != -EBUSY)
			RBLK_ERR("poll group %u: %s engine submission: %s", pg->id, pe->e->name,
				 strerror(-r));
	}
}

unsigned rblk_tgt_pg_storage_inflight(const struct rblk_tgt_pg *pg, unsigned *local)
{
	unsigned all = 0, l;

	*local = 0;
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		const struct rblk_tgt_pg_engine *pe = &pg->eng[i];

		if (!pe->e)
			continue;
		all += pe->e->inflight(pe->thread, &l);
		*local += l;
	}
	return all;
}

void rblk_tgt_pg_storage_awake(struct rblk_tgt_pg *pg)
{
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];

		/* We poll anyway; every signal now would be a write to read back. */
		if (pe->e && pe->toggle && pe->on) {
			pe->e->notify(pe->thread, false);
			pe->on = false;
		}
	}
}

static void read_fd(struct rblk_tgt_pg *pg, struct rblk_tgt_pg_engine *pe)
{
	uint64_t v;

	if (read(pe->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		RBLK_DEBUG("poll group %u: %s engine eventfd: %s", pg->id, pe->e->name,
			   strerror(errno));
}

bool rblk_tgt_pg_storage_sleep(struct rblk_tgt_pg *pg, bool reset)
{
	bool stay = false;
	unsigned local;

	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];

		if (!pe->e)
			continue;
		if (pe->fd < 0) {
			/* Nothing would wake us: keep polling while its I/O is out. */
			if (pe->e->inflight(pe->thread, &local))
				stay = true;
			continue;
		}
		if (pe->toggle) {
			/* What completes from now on signals; what completed before, look. */
			pe->e->notify(pe->thread, true);
			pe->on = true;
			if (reset)
				read_fd(pg, pe);
		} else {
			read_fd(pg, pe);
		}
	}
	if (rblk_tgt_pg_storage_poll(pg))
		return true;
	return stay;
}

bool rblk_tgt_pg_storage_event(struct rblk_tgt_pg *pg, const void *tag)
{
	for (int i = 0; i < RBLK_TGT_MAX_ENGINES; i++) {
		struct rblk_tgt_pg_engine *pe = &pg->eng[i];

		if (tag == &pe->fd) {
			if (pe->e && pe->fd >= 0)
				read_fd(pg, pe);
			return true;
		}
	}
	return false;
}
