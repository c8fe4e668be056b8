/* SPDX-License-Identifier: MIT */
/*
 * Registered memory: rblk_buf_alloc() buffers (each a one-unit registered
 * pool: hugepages when reserved, page aligned otherwise) and caller memory
 * registered with rblk_mem_register(), all for LOCAL_WRITE | REMOTE_READ |
 * REMOTE_WRITE on the controller's PD, which outlives reconnects. I/O finds
 * the keys of its buffer here by binary search over non-overlapping ranges
 * under a read lock.
 *
 * When the device goes away the regions stay and only their registrations
 * go; until a new device is attached a region is known but not registered,
 * and I/O on it moves through the queues' bounce buffers (the lookup says
 * -ENOENT). rblk_buf_alloc() and rblk_mem_register() then record memory
 * to be registered on the next device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "initiator/ctrl.h"

#define ACCESS_ALL (RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ | RBLK_ACCESS_REMOTE_WRITE)

/* Index of the first region starting after @addr. */
static unsigned upper_bound(const struct rblk_ctrl *c, uintptr_t addr)
{
	unsigned lo = 0, hi = c->nregions;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (c->regions[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rblk_mem_lookup(struct rblk_ctrl *c, const void *addr, size_t len, uint32_t *lkey,
		    uint32_t *rkey)
{
	uintptr_t a = (uintptr_t)addr;
	int ret = -ENOENT;
	unsigned i;

	pthread_rwlock_rdlock(&c->mem_lock);
	i = upper_bound(c, a);
	if (i > 0) {
		const struct rblk_mem_region *r = &c->regions[i - 1];

		if (a - r->start <= r->len && len <= r->len - (a - r->start)) {
			if (r->pool && rblk_mr_pool_registered(r->pool)) {
				*lkey = rblk_mr_pool_lkey(r->pool);
				*rkey = rblk_mr_pool_rkey(r->pool);
				ret = 0;
			} else if (r->mr) {
				*lkey = rblk_mr_lkey(r->mr);
				*rkey = rblk_mr_rkey(r->mr);
				ret = 0;
			}
		}
	}
	pthread_rwlock_unlock(&c->mem_lock);
	return ret;
}

/* With the write lock held. */
static int region_insert(struct rblk_ctrl *c, const struct rblk_mem_region *r)
{
	unsigned i = upper_bound(c, r->start);

	if ((i > 0 && c->regions[i - 1].start + c->regions[i - 1].len > r->start) ||
	    (i < c->nregions && r->start + r->len > c->regions[i].start))
		return -EEXIST;
	if (c->nregions == c->regions_cap) {
		unsigned cap = c->regions_cap ? c->regions_cap * 2 : 16;
		struct rblk_mem_region *n = realloc(c->regions, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->regions = n;
		c->regions_cap = cap;
	}
	memmove(&c->regions[i + 1], &c->regions[i], (c->nregions - i) * sizeof(*r));
	c->regions[i] = *r;
	c->nregions++;
	return 0;
}

/* With the write lock held: removes the region starting exactly at @addr into *out. */
static int region_remove(struct rblk_ctrl *c, uintptr_t addr, struct rblk_mem_region *out)
{
	unsigned i = upper_bound(c, addr);

	if (i == 0 || c->regions[i - 1].start != addr)
		return -ENOENT;
	*out = c->regions[i - 1];
	memmove(&c->regions[i - 1], &c->regions[i], (c->nregions - i) * sizeof(*out));
	c->nregions--;
	return 0;
}

void *rblk_buf_alloc(struct rblk_ctrl *c, size_t len)
{
	struct rblk_mem_region r = { 0 };
	void *buf;
	int ret;

	if (!c || !len)
		return NULL;
	/*
	 * Made and recorded under the write lock, as rblk_mem_register() does.
	 * No PD between two devices: registered when the next one is attached.
	 */
	pthread_rwlock_wrlock(&c->mem_lock);
	ret = rblk_mr_pool_create(c->pd, len, 1, ACCESS_ALL, &r.pool);
	if (ret) {
		pthread_rwlock_unlock(&c->mem_lock);
		RBLK_ERR("rblk_buf_alloc(%zu): %s", len, strerror(-ret));
		return NULL;
	}
	buf = rblk_mr_pool_get(r.pool);
	r.start = (uintptr_t)buf;
	r.len = rblk_mr_pool_unit_size(r.pool);
	ret = region_insert(c, &r);
	pthread_rwlock_unlock(&c->mem_lock);
	if (ret) {
		rblk_mr_pool_put(r.pool, buf);
		rblk_mr_pool_destroy(r.pool);
		return NULL;
	}
	return buf;
}

void rblk_buf_free(struct rblk_ctrl *c, void *buf)
{
	struct rblk_mem_region r;
	int ret;

	if (!c || !buf)
		return;
	pthread_rwlock_wrlock(&c->mem_lock);
	ret = region_remove(c, (uintptr_t)buf, &r);
	if (!ret && r.caller) {
		/* A rblk_mem_register() range: not ours to free. */
		region_insert(c, &r);
		ret = -EINVAL;
	}
	pthread_rwlock_unlock(&c->mem_lock);
	if (ret) {
		RBLK_WARN("rblk_buf_free(%p): not a buffer from rblk_buf_alloc()", buf);
		return;
	}
	rblk_mr_pool_put(r.pool, buf);
	rblk_mr_pool_destroy(r.pool);
}

int rblk_mem_register(struct rblk_ctrl *c, void *addr, size_t len)
{
	struct rblk_mem_region r = { .start = (uintptr_t)addr, .len = len, .caller = true };
	int ret;

	if (!c || !addr || !len)
		return -EINVAL;
	/*
	 * Under the write lock, so that a device attached meanwhile either
	 * sees the region or gave us its PD. None between two devices: the
	 * next one registers it.
	 */
	pthread_rwlock_wrlock(&c->mem_lock);
	ret = c->pd ? rblk_mr_reg(c->pd, addr, len, ACCESS_ALL, &r.mr) : 0;
	if (ret)
		RBLK_ERR("registering %zu bytes at %p: %s", len, addr, strerror(-ret));
	else
		ret = region_insert(c, &r);
	pthread_rwlock_unlock(&c->mem_lock);
	if (ret)
		rblk_mr_dereg(r.mr);
	return ret;
}

int rblk_mem_unregister(struct rblk_ctrl *c, void *addr)
{
	struct rblk_mem_region r;
	int ret;

	if (!c || !addr)
		return -EINVAL;
	pthread_rwlock_wrlock(&c->mem_lock);
	ret = region_remove(c, (uintptr_t)addr, &r);
	if (!ret && !r.caller) {
		region_insert(c, &r);
		ret = -EINVAL;
	}
	pthread_rwlock_unlock(&c->mem_lock);
	if (ret)
		return ret;
	return rblk_mr_dereg(r.mr);
}

struct rblk_pd *rblk_mem_detach(struct rblk_ctrl *c)
{
	struct rblk_pd *pd;

	pthread_rwlock_wrlock(&c->mem_lock);
	for (unsigned i = 0; i < c->nregions; i++) {
		struct rblk_mem_region *r = &c->regions[i];

		if (r->pool)
			rblk_mr_pool_rereg(r->pool, NULL);
		rblk_mr_dereg(r->mr);
		r->mr = NULL;
	}
	pd = c->pd;
	c->pd = NULL;
	pthread_rwlock_unlock(&c->mem_lock);
	return pd;
}

void rblk_mem_attach(struct rblk_ctrl *c, struct rblk_pd *pd)
{
	unsigned failed = 0;

	pthread_rwlock_wrlock(&c->mem_lock);
	c->pd = pd;
	for (unsigned i = 0; i < c->nregions; i++) {
		struct rblk_mem_region *r = &c->regions[i];
		int ret = 0;

		if (r->pool && !rblk_mr_pool_registered(r->pool))
			ret = rblk_mr_pool_rereg(r->pool, pd);
		else if (r->caller && !r->mr)
			ret = rblk_mr_reg(pd, (void *)r->start, r->len, ACCESS_ALL, &r->mr);
		/* Left unregistered: its I/O moves through bounce buffers. */
		if (ret)
			failed++;
	}
	pthread_rwlock_unlock(&c->mem_lock);
	if (failed)
		RBLK_WARN("%u of %u memory regions could not be registered again: their I/O is copied through bounce buffers",
			  failed, c->nregions);
}

void rblk_mem_fini(struct rblk_ctrl *c)
{
	for (unsigned i = 0; i < c->nregions; i++) {
		struct rblk_mem_region *r = &c->regions[i];

		if (r->pool) {
			rblk_mr_pool_put(r->pool, (void *)r->start);
			rblk_mr_pool_destroy(r->pool);
		} else {
			rblk_mr_dereg(r->mr);
		}
	}
	free(c->regions);
	c->regions = NULL;
	c->nregions = c->regions_cap = 0;
}
