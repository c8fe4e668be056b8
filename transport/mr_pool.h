/* SPDX-License-Identifier: MIT */
/*
 * Registered buffer pools: one allocation per pool (2 MiB hugepages when the
 * system has them reserved, else normal pages with MADV_HUGEPAGE), split
 * into fixed-size units, registered once with the NIC, handed out through an
 * O(1) LIFO free list. A pool belongs to one reactor thread: no locks.
 *
 * The same memory can be registered with io_uring (rblk_mr_pool_base/len or
 * one iovec per unit), so a backend reads straight into what the NIC sends.
 *
 * Also the RLIMIT_MEMLOCK check every program runs before creating pools:
 * ibv_reg_mr pins pages, and without CAP_IPC_LOCK the kernel refuses to pin
 * more than RLIMIT_MEMLOCK in total per process.
 */
#ifndef RBLK_TRANSPORT_MR_POOL_H
#define RBLK_TRANSPORT_MR_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct rblk_pd;
struct rblk_mr_pool;

/*
 * Distance between units: @unit_size rounded up to 4 KiB when it is at least
 * 4 KiB (so O_DIRECT and io_uring fixed-buffer I/O can target any unit),
 * else to a 64-byte cache line (capsule and completion buffers).
 */
size_t rblk_mr_pool_stride(size_t unit_size);

/*
 * Bytes a pool of @count units of @unit_size pins (what counts against
 * RLIMIT_MEMLOCK): the registered length, rounded up to whole pages.
 * 0 for an impossible size (zero or overflowing).
 */
size_t rblk_mr_pool_bytes_needed(size_t unit_size, uint32_t count);

/* Flags for rblk_mr_pool_create_ex(). */
#define RBLK_MR_POOL_NO_HUGETLB 0x1	/* skip the MAP_HUGETLB attempt */

/*
 * Allocates @count units of @unit_size and registers them with @pd for
 * @access (RBLK_ACCESS_* from rdma.h: a target wants LOCAL_WRITE only; an
 * initiator's data buffers also need REMOTE_READ | REMOTE_WRITE). @pd NULL
 * allocates without registering (tests; keys read as 0).
 * Returns 0, -EINVAL, -ENOMEM, or what ibv_reg_mr said (-ENOMEM is also its
 * answer when RLIMIT_MEMLOCK is too small: check first with
 * rblk_memlock_check()).
 */
int rblk_mr_pool_create(struct rblk_pd *pd, size_t unit_size, uint32_t count, int access,
			struct rblk_mr_pool **out);
int rblk_mr_pool_create_ex(struct rblk_pd *pd, size_t unit_size, uint32_t count, int access,
			   unsigned flags, struct rblk_mr_pool **out);
/* Deregisters and unmaps. Units still out are a caller bug (logged). NULL is fine. */
void rblk_mr_pool_destroy(struct rblk_mr_pool *pool);

/*
 * Moves the pool's registration to @pd, another device's after the first
 * went away: the old registration goes, the memory and the units out stay,
 * the keys change. @pd NULL only drops it (keys read 0). 0, or what
 * ibv_reg_mr said (the pool is then left unregistered).
 */
int rblk_mr_pool_rereg(struct rblk_mr_pool *pool, struct rblk_pd *pd);
/* False for a pool made without a PD or whose registration was dropped. */
bool rblk_mr_pool_registered(const struct rblk_mr_pool *pool);

/* A free unit, or NULL when all are out (wait on a resource queue; never fall back). */
void *rblk_mr_pool_get(struct rblk_mr_pool *pool);
/* Returns a unit from rblk_mr_pool_get(); asserts it belongs and is out. */
void rblk_mr_pool_put(struct rblk_mr_pool *pool, void *buf);

/* Unit number of any address inside a unit (for io_uring buf_index, tags). */
uint32_t rblk_mr_pool_index(const struct rblk_mr_pool *pool, const void *buf);
void *rblk_mr_pool_unit(const struct rblk_mr_pool *pool, uint32_t index);

uint32_t rblk_mr_pool_lkey(const struct rblk_mr_pool *pool);
uint32_t rblk_mr_pool_rkey(const struct rblk_mr_pool *pool);
size_t rblk_mr_pool_unit_size(const struct rblk_mr_pool *pool);
uint32_t rblk_mr_pool_count(const struct rblk_mr_pool *pool);
uint32_t rblk_mr_pool_free_count(const struct rblk_mr_pool *pool);
/* True when the memory came from MAP_HUGETLB (not just THP advice). */
bool rblk_mr_pool_hugetlb(const struct rblk_mr_pool *pool);

/* The registered range: for io_uring_register_buffers with a single iovec (< 1 GiB). */
void *rblk_mr_pool_base(const struct rblk_mr_pool *pool);
size_t rblk_mr_pool_len(const struct rblk_mr_pool *pool);
/*
 * One iovec per unit ({unit address, unit_size}); @n must be at least the
 * unit count. Then io_uring's buf_index equals rblk_mr_pool_index().
 * Returns the number written or -EINVAL.
 */
int rblk_mr_pool_iovecs(const struct rblk_mr_pool *pool, struct iovec *iov, uint32_t n);

/*
 * Can this process pin @need more bytes? Compares with RLIMIT_MEMLOCK (no
 * limit with CAP_IPC_LOCK or RLIM_INFINITY). On failure writes a message
 * for the operator into @msg saying how much is needed and how to raise the
 * limit, and returns -ENOMEM; 0 otherwise (then @msg says what was checked).
 * @need should be the sum over every pool the program will create.
 */
int rblk_memlock_check(size_t need, char *msg, size_t msglen);
/* The same with the limit (bytes, UINT64_MAX = unlimited) and capability given (tests). */
int rblk_memlock_check_limit(size_t need, uint64_t limit, bool cap_ipc_lock,
			     char *msg, size_t msglen);

#endif
