/* SPDX-License-Identifier: MIT */
/*
 * Registered buffer pools (see mr_pool.h): one mapping, fixed-size units,
 * one ibv_reg_mr, a LIFO free list of unit indices. LIFO because the unit
 * put back last is the one most likely still in cache. No locks: a pool
 * belongs to one reactor thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "transport/rdma.h"

#define HUGE_2M ((size_t)2 << 20)
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

struct rblk_mr_pool {
	uint8_t *base;
	size_t map_len;		/* what was mmap()ed */
	size_t reg_len;		/* what was registered: count * stride, page-rounded */
	size_t unit_size;
	size_t stride;
	unsigned stride_shift;	/* log2(stride) when a power of two, else 0 */
	uint32_t count;
	uint32_t nfree;
	uint32_t *free;		/* stack of free unit indices; top = free[nfree - 1] */
	uint8_t *out;		/* 1 while handed out: catches double and foreign puts */
	struct rblk_mr *mr;
	uint32_t lkey, rkey;
	int access;		/* kept for rblk_mr_pool_rereg() */
	bool hugetlb;
};

static size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

size_t rblk_mr_pool_stride(size_t unit_size)
{
	if (!unit_size || unit_size > SIZE_MAX / 2)
		return 0;
	return round_up(unit_size, unit_size >= 4096 ? 4096 : 64);
}

size_t rblk_mr_pool_bytes_needed(size_t unit_size, uint32_t count)
{
	size_t stride = rblk_mr_pool_stride(unit_size);

	if (!stride || !count || stride > (SIZE_MAX - HUGE_2M) / count)
		return 0;
	return round_up(stride * count, page_size());
}

static int map_memory(struct rblk_mr_pool *pool, unsigned flags)
{
	void *p;

	/*
	 * Reserved 2 MiB pages first: fewer TLB misses on the data path and
	 * fewer pages for the NIC to translate. Only worth it for pools of at
	 * least one hugepage; small pools would waste most of it.
	 */
	if (!(flags & RBLK_MR_POOL_NO_HUGETLB) && pool->reg_len >= HUGE_2M) {
		size_t len = round_up(pool->reg_len, HUGE_2M);

		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
		if (p != MAP_FAILED) {
			pool->base = p;
			pool->map_len = len;
			pool->hugetlb = true;
			return 0;
		}
		RBLK_DEBUG("mr_pool: no reserved 2 MiB pages for %zu bytes (%s), using normal pages",
			   len, strerror(errno));
	}
	p = mmap(NULL, pool->reg_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* Transparent hugepages if the system allows them; harmless if not. */
	if (pool->reg_len >= HUGE_2M)
		(void)madvise(p, pool->reg_len, MADV_HUGEPAGE);
	pool->base = p;
	pool->map_len = pool->reg_len;
	pool->hugetlb = false;
	return 0;
}

int rblk_mr_pool_create_ex(struct rblk_pd *pd, size_t unit_size, uint32_t count, int access,
			   unsigned flags, struct rblk_mr_pool **out)
{
	struct rblk_mr_pool *pool;
	int ret;

	*out = NULL;
	if (!rblk_mr_pool_bytes_needed(unit_size, count))
		return -EINVAL;
	pool = rblk_calloc_lines(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->unit_size = unit_size;
	pool->stride = rblk_mr_pool_stride(unit_size);
	if (!(pool->stride & (pool->stride - 1)))
		pool->stride_shift = (unsigned)__builtin_ctzll(pool->stride);
	pool->count = count;
	pool->reg_len = rblk_mr_pool_bytes_needed(unit_size, count);
	pool->access = access;

	pool->free = rblk_calloc_lines(count, sizeof(*pool->free));
	pool->out = rblk_calloc_lines(count, 1);
	if (!pool->free || !pool->out) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = map_memory(pool, flags);
	if (ret)
		goto out_free;
	ret = rblk_mr_pool_rereg(pool, pd);
	if (ret)
		goto out_unmap;
	/* Unit 0 on top, so a fresh pool hands out units in address order. */
	for (uint32_t i = 0; i < count; i++)
		pool->free[i] = count - 1 - i;
	pool->nfree = count;
	*out = pool;
	return 0;

out_unmap:
	munmap(pool->base, pool->map_len);
out_free:
	free(pool->out);
	free(pool->free);
	free(pool);
	return ret;
}

int rblk_mr_pool_create(struct rblk_pd *pd, size_t unit_size, uint32_t count, int access,
			struct rblk_mr_pool **out)
{
	return rblk_mr_pool_create_ex(pd, unit_size, count, access, 0, out);
}

void rblk_mr_pool_destroy(struct rblk_mr_pool *pool)
{
	if (!pool)
		return;
	if (pool->nfree != pool->count)
		RBLK_WARN("mr_pool: destroyed with %u of %u units still out",
			  pool->count - pool->nfree, pool->count);
	rblk_mr_dereg(pool->mr);
	munmap(pool->base, pool->map_len);
	free(pool->out);
	free(pool->free);
	free(pool);
}

void *rblk_mr_pool_get(struct rblk_mr_pool *pool)
{
	uint32_t idx;

	if (!pool->nfree)
		return NULL;
	idx = pool->free[--pool->nfree];
	pool->out[idx] = 1;
	return pool->base + (size_t)idx * pool->stride;
}

static bool unit_of(const struct rblk_mr_pool *pool, const void *buf, uint32_t *idx)
{
	const uint8_t *p = buf;
	size_t off;

	if (p < pool->base || p >= pool->base + (size_t)pool->count * pool->stride)
		return false;
	off = (size_t)(p - pool->base);
	*idx = (uint32_t)(pool->stride_shift ? off >> pool->stride_shift : off / pool->stride);
	return true;
}

void rblk_mr_pool_put(struct rblk_mr_pool *pool, void *buf)
{
	uint32_t idx;

	/*
	 * Checked in release builds too: a double put would hand one buffer to
	 * two requests, which corrupts data silently much later.
	 */
	if (!unit_of(pool, buf, &idx) || (uint8_t *)buf != pool->base + (size_t)idx * pool->stride ||
	    !pool->out[idx]) {
		RBLK_ERR("mr_pool: put of %p which is not a unit handed out by this pool", buf);
		return;
	}
	pool->out[idx] = 0;
	pool->free[pool->nfree++] = idx;
}

uint32_t rblk_mr_pool_index(const struct rblk_mr_pool *pool, const void *buf)
{
	uint32_t idx = UINT32_MAX;

	unit_of(pool, buf, &idx);
	return idx;
}

void *rblk_mr_pool_unit(const struct rblk_mr_pool *pool, uint32_t index)
{
	if (index >= pool->count)
		return NULL;
	return pool->base + (size_t)index * pool->stride;
}

int rblk_mr_pool_rereg(struct rblk_mr_pool *pool, struct rblk_pd *pd)
{
	int ret;

	rblk_mr_dereg(pool->mr);
	pool->mr = NULL;
	pool->lkey = pool->rkey = 0;
	if (!pd)
		return 0;
	ret = rblk_mr_reg(pd, pool->base, pool->reg_len, pool->access, &pool->mr);
	if (ret) {
		RBLK_ERR("mr_pool: registering %zu bytes failed: %s", pool->reg_len,
			 strerror(-ret));
		return ret;
	}
	pool->lkey = rblk_mr_lkey(pool->mr);
	pool->rkey = rblk_mr_rkey(pool->mr);
	return 0;
}

bool rblk_mr_pool_registered(const struct rblk_mr_pool *pool)
{
	return pool->mr != NULL;
}

uint32_t rblk_mr_pool_lkey(const struct rblk_mr_pool *pool)
{
	return pool->lkey;
}

uint32_t rblk_mr_pool_rkey(const struct rblk_mr_pool *pool)
{
	return pool->rkey;
}

size_t rblk_mr_pool_unit_size(const struct rblk_mr_pool *pool)
{
	return pool->unit_size;
}

uint32_t rblk_mr_pool_count(const struct rblk_mr_pool *pool)
{
	return pool->count;
}

uint32_t rblk_mr_pool_free_count(const struct rblk_mr_pool *pool)
{
	return pool->nfree;
}

bool rblk_mr_pool_hugetlb(const struct rblk_mr_pool *pool)
{
	return pool->hugetlb;
}

void *rblk_mr_pool_base(const struct rblk_mr_pool *pool)
{
	return pool->base;
}

size_t rblk_mr_pool_len(const struct rblk_mr_pool *pool)
{
	return pool->reg_len;
}

int rblk_mr_pool_iovecs(const struct rblk_mr_pool *pool, struct iovec *iov, uint32_t n)
{
	if (n < pool->count)
		return -EINVAL;
	for (uint32_t i = 0; i < pool->count; i++) {
		iov[i].iov_base = pool->base + (size_t)i * pool->stride;
		iov[i].iov_len = pool->unit_size;
	}
	return (int)pool->count;
}
