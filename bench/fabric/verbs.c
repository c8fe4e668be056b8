/* SPDX-License-Identifier: MIT */
/*
 * The in-process fabric's device, protection domains, memory regions (a key
 * table every WR is checked against), completion queues (a ring for the
 * owner thread, an inbox for the others), the per-thread time counters and
 * the first-failure record. See fabric.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/fabric/fabric.h"

__thread struct fab_thread fab_self __attribute__((tls_model("initial-exec")));
uint64_t fab_long_ticks = UINT64_MAX;

static uint64_t switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

bool fab_switched(void)
{
	uint64_t now = switches(), before = fab_self.switches;

	/*
	 * A switch outside the fabric also counts here, so a long call after
	 * one is left out though it ran whole: rare, and only undercounts.
	 */
	fab_self.switches = now;
	return now != before;
}

struct fab_thread *fab_thread_self(void)
{
	if (!fab_self.known) {
		fab_self.tid = pthread_self();
		fab_self.switches = switches();
		fab_self.known = true;
	}
	return &fab_self;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double fab_ticks_per_sec(void)
{
	uint64_t n0 = mono_ns(), t0 = fab_ticks(), n1, t1;
	struct timespec d = { 0, 50 * 1000 * 1000 };

	nanosleep(&d, NULL);
	n1 = mono_ns();
	t1 = fab_ticks();
	return (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
}

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static char fail_msg[512];
static atomic_bool failed;

void fab_fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	if (!atomic_load(&failed)) {
		va_start(ap, fmt);
		vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
		va_end(ap);
		atomic_store(&failed, true);
	}
	pthread_mutex_unlock(&fail_lock);
}

const char *fab_failure(void)
{
	return atomic_load(&failed) ? fail_msg : NULL;
}

/* ------------------------------------------------------------------------ */
/* Device, PD.                                                               */

/* Limits of a typical RoCE NIC; the target sizes its queues from them. */
struct rblk_device fab_device = {
	.name = "fabric0",
	.attr = {
		.max_qp_wr = 16384,
		.max_qp_rd_atom = 16,
		.max_qp_init_rd_atom = 16,
		.max_sge = FAB_MAX_SGE,
		.max_sge_rd = FAB_MAX_SGE,
		.max_cqe = 4194303,
		.max_qp = 65536,
		.max_mr = 65536,
		.max_mr_size = UINT64_MAX,
		.max_srq_wr = 16384,
		.num_comp_vectors = 1,
		.phys_port_cnt = 1,
	},
};

const char *rblk_device_name(const struct rblk_device *dev)
{
	return dev->name;
}

int rblk_device_query(struct rblk_device *dev, struct rblk_device_attr *out)
{
	*out = dev->attr;
	return 0;
}

int rblk_pd_alloc(struct rblk_device *dev, struct rblk_pd **out)
{
	struct rblk_pd *pd = calloc(1, sizeof(*pd));

	*out = NULL;
	if (!pd)
		return -ENOMEM;
	pd->dev = dev;
	*out = pd;
	return 0;
}

int rblk_pd_dealloc(struct rblk_pd *pd)
{
	if (!pd)
		return 0;
	if (atomic_load(&pd->users))
		return -EBUSY;
	free(pd);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Memory regions: key = slot << 8 | generation, so a stale key misses.      */

#define MR_SLOTS 65536

static struct rblk_mr *mr_table[MR_SLOTS];
static uint8_t mr_gen[MR_SLOTS];
static pthread_mutex_t mr_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned mr_next = 1;

struct rblk_mr *fab_mr_check(uint32_t key, uint64_t addr, uint64_t len)
{
	struct rblk_mr *mr = mr_table[(key >> 8) % MR_SLOTS];

	if (!mr || mr->key != key || addr < mr->addr || addr + len > mr->addr + mr->len ||
	    addr + len < addr)
		return NULL;
	return mr;
}

int rblk_mr_reg(struct rblk_pd *pd, void *addr, size_t len, int access, struct rblk_mr **out)
{
	struct rblk_mr *mr;
	unsigned slot = 0;

	*out = NULL;
	if (!pd || !addr || !len)
		return -EINVAL;
	mr = rblk_calloc_lines(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	pthread_mutex_lock(&mr_lock);
	for (unsigned i = 0; i < MR_SLOTS - 1 && !slot; i++) {
		unsigned s = (mr_next + i) % MR_SLOTS;

		if (s && !mr_table[s])
			slot = s;
	}
	if (slot) {
		mr_next = slot + 1;
		mr->pd = pd;
		mr->addr = (uintptr_t)addr;
		mr->len = len;
		mr->access = access;
		mr->key = (uint32_t)slot << 8 | ++mr_gen[slot];
		mr_table[slot] = mr;
	}
	pthread_mutex_unlock(&mr_lock);
	if (!slot) {
		free(mr);
		return -ENOMEM;
	}
	atomic_fetch_add(&pd->users, 1);
	*out = mr;
	return 0;
}

int rblk_mr_dereg(struct rblk_mr *mr)
{
	if (!mr)
		return 0;
	pthread_mutex_lock(&mr_lock);
	mr_table[mr->key >> 8] = NULL;
	pthread_mutex_unlock(&mr_lock);
	atomic_fetch_sub(&mr->pd->users, 1);
	free(mr);
	return 0;
}

uint32_t rblk_mr_lkey(const struct rblk_mr *mr)
{
	return mr->key;
}

uint32_t rblk_mr_rkey(const struct rblk_mr *mr)
{
	return mr->key;
}

/* ------------------------------------------------------------------------ */
/* Completion queues.                                                        */

int rblk_cq_create(struct rblk_device *dev, int cqe, int comp_vector, bool with_channel,
		   struct rblk_cq **out)
{
	struct rblk_cq *cq;
	uint32_t size = 1;

	(void)dev;
	*out = NULL;
	if (cqe < 1 || comp_vector < 0)
		return -EINVAL;
	while (size < (uint32_t)cqe + 1)
		size <<= 1;
	cq = rblk_calloc_lines(1, sizeof(*cq));
	if (!cq)
		return -ENOMEM;
	cq->ring = rblk_calloc_lines(size, sizeof(*cq->ring));
	if (!cq->ring) {
		free(cq);
		return -ENOMEM;
	}
	cq->mask = size - 1;
	cq->size = cqe;
	cq->efd = -1;
	if (with_channel) {
		cq->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (cq->efd < 0) {
			int ret = -errno;

			free(cq->ring);
			free(cq);
			return ret;
		}
	}
	pthread_mutex_init(&cq->lock, NULL);
	cq->msgs_tail = &cq->msgs;
	*out = cq;
	return 0;
}

void rblk_cq_destroy(struct rblk_cq *cq)
{
	if (!cq)
		return;
	while (cq->msgs) {
		struct fab_msg *m = cq->msgs;

		cq->msgs = m->next;
		free(m);
	}
	if (cq->efd >= 0)
		close(cq->efd);
	pthread_mutex_destroy(&cq->lock);
	free(cq->xwc);
	free(cq->ring);
	free(cq);
}

int rblk_cq_fd(const struct rblk_cq *cq)
{
	return cq->efd;
}

int rblk_cq_size(const struct rblk_cq *cq)
{
	return cq->size;
}

static void wake(struct rblk_cq *cq)
{
	uint64_t one = 1;

	if (cq->efd >= 0 && atomic_load_explicit(&cq->armed, memory_order_relaxed) &&
	    atomic_exchange(&cq->armed, false) && write(cq->efd, &one, sizeof(one)) < 0)
		fab_fail("CQ channel write: %s", strerror(errno));
}

int rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only)
{
	(void)solicited_only;
	atomic_store(&cq->armed, true);
	/* Something already waiting raises the event at once, as the poll after arming expects. */
	if (cq->head != cq->tail || atomic_load(&cq->inbox_pending))
		wake(cq);
	return 0;
}

int rblk_cq_get_event(struct rblk_cq *cq)
{
	uint64_t v;

	if (cq->efd < 0)
		return -EINVAL;
	if (read(cq->efd, &v, sizeof(v)) < 0)
		return errno == EAGAIN ? 0 : -errno;
	return 1;
}

static void ring_push(struct rblk_cq *cq, const struct rblk_wc *wc)
{
	if (cq->tail - cq->head > cq->mask) {
		/* A NIC would raise a CQ overrun and break every QP on it. */
		fab_fail("CQ overrun (%u entries)", cq->mask + 1);
		return;
	}
	cq->ring[cq->tail++ & cq->mask] = *wc;
}

void fab_cq_push(struct rblk_cq *cq, const struct rblk_wc *wc)
{
	if (cq->owner == &fab_self) {
		ring_push(cq, wc);
	} else {
		pthread_mutex_lock(&cq->lock);
		if (cq->nxwc == cq->xwc_cap) {
			unsigned cap = cq->xwc_cap ? cq->xwc_cap * 2 : 64;
			struct rblk_wc *n = realloc(cq->xwc, cap * sizeof(*n));

			if (!n) {
				pthread_mutex_unlock(&cq->lock);
				fab_fail("CQ inbox: out of memory");
				return;
			}
			cq->xwc = n;
			cq->xwc_cap = cap;
		}
		cq->xwc[cq->nxwc++] = *wc;
		atomic_store_explicit(&cq->inbox_pending, true, memory_order_release);
		pthread_mutex_unlock(&cq->lock);
	}
	wake(cq);
}

/* Owner thread: completions and SENDs other threads left for it. */
static void drain_inbox(struct rblk_cq *cq)
{
	struct fab_msg *m;

	pthread_mutex_lock(&cq->lock);
	atomic_store_explicit(&cq->inbox_pending, false, memory_order_relaxed);
	for (unsigned i = 0; i < cq->nxwc; i++)
		ring_push(cq, &cq->xwc[i]);
	cq->nxwc = 0;
	m = cq->msgs;
	cq->msgs = NULL;
	cq->msgs_tail = &cq->msgs;
	pthread_mutex_unlock(&cq->lock);
	while (m) {
		struct fab_msg *next = m->next;

		fab_deliver(m->qp, m->data, m->len, NULL, 0);
		free(m);
		m = next;
	}
}

int rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n)
{
	uint64_t t0 = fab_ticks();
	int got = 0;

	if (__builtin_expect(cq->owner != &fab_self, 0)) {
		if (cq->owner) {
			fab_fail("a CQ polled by two threads");
			fab_leave(t0);
			return -EINVAL;
		}
		cq->owner = fab_thread_self();
	}
	if (atomic_load_explicit(&cq->inbox_pending, memory_order_acquire))
		drain_inbox(cq);
	while (got < n && cq->head != cq->tail)
		wc[got++] = cq->ring[cq->head++ & cq->mask];
	fab_leave(t0);
	return got;
}

int rblk_cq_poll_wait(struct rblk_cq *cq, struct rblk_wc *wc, int n, int timeout_ms)
{
	struct timespec d = { 0, 100 * 1000 };
	int waited = 0;

	for (;;) {
		int ret = rblk_cq_poll(cq, wc, n);

		if (ret)
			return ret;
		if (timeout_ms >= 0 && waited / 10 >= timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&d, NULL);
		waited++;
	}
}

const char *rblk_wc_status_str(enum rblk_wc_status status)
{
	switch (status) {
	case RBLK_WC_SUCCESS:
		return "success";
	case RBLK_WC_WR_FLUSH_ERR:
		return "Work Request Flushed Error";
	case RBLK_WC_LOC_PROT_ERR:
		return "local protection error";
	case RBLK_WC_REM_ACCESS_ERR:
		return "remote access error";
	case RBLK_WC_LOC_LEN_ERR:
		return "local length error";
	default:
		return "error";
	}
}
