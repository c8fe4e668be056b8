/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/io.c against real backends: a RAM namespace, and a temp
 * file through the io_uring and libaio engines. Write then read back (one and
 * several buffers), FUA, Flush, Write Zeroes, Dataset Management, range and
 * protection errors, the parking queue when the backend queue is full,
 * namespace removal with I/O in flight, backend errors -> NVMe status, and
 * the datasyncs of close and of CC.SHN.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/internal.h"
#include "common/clock.h"
#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *aq, *iq;
static struct rblk_subsystem *ss;
static char path[256];
static const char *engine;

/* Builds the target with one namespace: a temp file, or RAM when engine is NULL. */
static bool setup(uint32_t block_size, unsigned bq_depth, bool read_only)
{
	struct rblk_target_opts o;
	struct rblk_ns_opts no;
	uint16_t cntlid;

	rblk_target_opts_init(&o);
	o.backend = engine;
	/* 128 KiB, so that MDTS can be exceeded inside the 1 MiB namespace. */
	o.max_io_size = 131072;
	env = tt_env_create(&o, bq_depth);
	if (!env)
		return false; /* engine not usable here */
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	rblk_ns_opts_init(&no);
	if (engine) {
		CU_ASSERT_EQUAL_FATAL(tt_tempfile(path, sizeof(path), 1 << 20), 0);
		no.path = path;
	} else {
		path[0] = 0;
		no.path = "mem:1M";
	}
	no.block_size = block_size;
	no.read_only = read_only;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	return true;
}

static void teardown(void)
{
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	iq = aq = NULL;
	tt_env_destroy(env);
	env = NULL;
	if (path[0])
		unlink(path);
	path[0] = 0;
}

static uint8_t *pattern(size_t len, uint8_t seed)
{
	uint8_t *p = aligned_alloc(4096, len < 4096 ? 4096 : len);

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
	return p;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static uint16_t dsm(struct tt_queue *q, uint32_t nsid, uint32_t attrs,
		    const struct nvme_dsm_range *r, unsigned nr, size_t sgl_len)
{
	struct nvme_dsm_cmd c;
	uint8_t buf[4096] = { 0 };

	tt_sqe((struct nvme_sqe *)&c, NVME_IO_DSM, 0x77, nsid);
	c.nr = rblk_cpu_to_le32(nr - 1);
	c.attributes = rblk_cpu_to_le32(attrs);
	memcpy(buf, r, nr * sizeof(*r));
	return tt_cmd(q, (struct nvme_sqe *)&c, buf, sgl_len, NULL, NULL, 0);
}

static struct nvme_dsm_range range(uint64_t slba, uint32_t nlb)
{
	struct nvme_dsm_range r = { 0 };

	r.slba = rblk_cpu_to_le64(slba);
	r.nlb = rblk_cpu_to_le32(nlb);
	return r;
}

/* ------------------------------------------------------------------------ */

static void write_read_back(void)
{
	uint8_t *w = pattern(16384, 3), *r = aligned_alloc(4096, 16384);

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 8, 32, 0, w, 16384), 0);
	memset(r, 0, 16384);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 8, 32, 0, r, 16384), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 16384), 0);
	/* Several buffers (a multi-unit I/O): same bytes. */
	env->iov_split = 4096;
	memset(r, 0, 16384);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 8, 32, 0, r, 16384), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 16384), 0);
	free(w);
	w = pattern(16384, 9);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 40, 32, NVME_RW_FUA, w, 16384), 0);
	env->iov_split = 0;
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 40, 32, 0, r, 16384), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 16384), 0);
	/* The last block of the namespace. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 2047, 1, 0, w, 512), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 2047, 1, 0, r, 512), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 512), 0);
	free(w);
	free(r);
}

/* The built-in provider's backend request: first in the io's private area. */
static const struct rblk_bio *bio_of(const struct tt_req *tr)
{
	return (const struct rblk_bio *)(const void *)tr->req.pio_priv;
}

static void flush_fua(void)
{
	struct nvme_rw_cmd c;
	uint8_t *w = pattern(4096, 1);
	struct tt_req *tr;

	tt_sqe((struct nvme_sqe *)&c, NVME_IO_FLUSH, 1, 1);
	CU_ASSERT_EQUAL(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0), 0);
	/* FUA from the host reaches the backend. */
	tt_sqe((struct nvme_sqe *)&c, NVME_IO_WRITE, 2, 1);
	c.nlb = rblk_cpu_to_le16(7);
	c.control = rblk_cpu_to_le16(NVME_RW_FUA);
	tr = tt_send(iq, (struct nvme_sqe *)&c, w, 4096);
	while (!tr->done)
		tt_pump(env);
	CU_ASSERT_EQUAL(tt_status(&tr->cqe), 0);
	CU_ASSERT_TRUE(bio_of(tr)->flags & RBLK_BIO_FUA);
	tt_req_release(tr);
	/* With the volatile write cache off every write is FUA. */
	c.control = 0;
	if (iq->sq.ctrl->ss->ns[0]->vwc) {
		CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_VOLATILE_WC, 0, NULL), 0);
		tr = tt_send(iq, (struct nvme_sqe *)&c, w, 4096);
		while (!tr->done)
			tt_pump(env);
		CU_ASSERT_EQUAL(tt_status(&tr->cqe), 0);
		CU_ASSERT_TRUE(bio_of(tr)->flags & RBLK_BIO_FUA);
		tt_req_release(tr);
		CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_VOLATILE_WC, 1, NULL), 0);
	}
	tr = tt_send(iq, (struct nvme_sqe *)&c, w, 4096);
	while (!tr->done)
		tt_pump(env);
	CU_ASSERT_FALSE(bio_of(tr)->flags & RBLK_BIO_FUA);
	tt_req_release(tr);
	free(w);
}

static void write_zeroes(void)
{
	struct nvme_rw_cmd c;
	uint8_t *w = pattern(8192, 5), *r = aligned_alloc(4096, 8192);

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 100, 16, 0, w, 8192), 0);
	tt_sqe((struct nvme_sqe *)&c, NVME_IO_WRITE_ZEROES, 3, 1);
	c.slba = rblk_cpu_to_le64(104);
	c.nlb = rblk_cpu_to_le16(3); /* 4 blocks */
	CU_ASSERT_EQUAL(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 100, 16, 0, r, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 2048), 0);
	CU_ASSERT_TRUE(all_zero(r + 2048, 2048));
	CU_ASSERT_EQUAL(memcmp(r + 4096, w + 4096, 4096), 0);
	/* Out of range, and no data allowed. */
	c.slba = rblk_cpu_to_le64(2046);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	c.slba = 0;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 512, NULL, NULL, 0)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	free(w);
	free(r);
}

static void dataset_management(void)
{
	uint8_t *w = pattern(8192, 11), *r = aligned_alloc(4096, 8192);
	struct nvme_dsm_range rs[3];
	bool zeroes = ss->ns[0]->prov.discard_zeroes;

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 200, 16, 0, w, 8192), 0);
	/* Any bad range fails the command before anything is deallocated. */
	rs[0] = range(200, 8);
	rs[1] = range(2040, 9);
	CU_ASSERT_EQUAL(TT_SC(dsm(iq, 1, NVME_DSM_AD, rs, 2, 4096)), NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 200, 16, 0, r, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 8192), 0);
	/* Hints only: success, nothing changes. */
	rs[1] = range(208, 8);
	CU_ASSERT_EQUAL(dsm(iq, 1, NVME_DSM_IDR, rs, 2, 4096), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 200, 16, 0, r, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 8192), 0);
	/* Deallocate: ranges 1-based NLB, an empty range is skipped; 4 KiB SGL like Linux. */
	rs[0] = range(208, 8);
	rs[1] = range(0, 0);
	rs[2] = range(2047, 1);
	CU_ASSERT_EQUAL(dsm(iq, 1, NVME_DSM_AD, rs, 3, 4096), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 200, 16, 0, r, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 4096), 0);
	if (zeroes)
		CU_ASSERT_TRUE(all_zero(r + 4096, 4096));
	/* An empty range may start at the end (slba + nlb <= nsze, as nvmet), not past it. */
	rs[0] = range(2048, 0);
	CU_ASSERT_EQUAL(dsm(iq, 1, NVME_DSM_AD, rs, 1, 4096), 0);
	rs[0] = range(2049, 0);
	CU_ASSERT_EQUAL(TT_SC(dsm(iq, 1, NVME_DSM_AD, rs, 1, 4096)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	rs[0] = range(208, 8);
	/* Exactly (NR + 1) x 16 is enough; less is not. */
	CU_ASSERT_EQUAL(dsm(iq, 1, NVME_DSM_AD, rs, 1, 16), 0);
	CU_ASSERT_EQUAL(TT_SC(dsm(iq, 1, NVME_DSM_AD, rs, 2, 16)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	free(w);
	free(r);
}

static void errors(void)
{
	uint8_t *b = aligned_alloc(4096, 65536 * 2);
	struct nvme_sqe sqe;

	/* Ranges: past the end, and slba + nlb overflowing 64 bits. */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 2048, 1, 0, b, 512)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, 2040, 9, 0, b, 4608)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, UINT64_MAX, 2, 0, b, 1024)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	/* Namespaces. */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 2, 0, 1, 0, b, 512)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 0, 0, 1, 0, b, 512)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 0xFFFFFFFF, 0, 1, 0, b, 512)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	/* Opcodes: Write Uncorrectable is not implemented; fabrics on an I/O queue. */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE_UNCOR, 1, 0, 1, 0, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	tt_fabrics_sqe(&sqe, NVMF_FCTYPE_PROP_GET, 5);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	/* The transport's exact length rule, and MDTS (128 KiB). */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 2, 0, b, 512)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 257, 0, b, 257 * 512)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 0, 256, 0, b, 256 * 512), 0);
	free(b);
}

static void not_ready_after_disable(void)
{
	uint8_t *b = aligned_alloc(4096, 4096);

	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00460000), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, b, 512)),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	free(b);
}

static void run_suite(void)
{
	char why[200];

	if (!setup(0, 0, false)) {
		/*
		 * io_uring may be disabled (sysctl, seccomp in containers): a skip.
		 * RAM and libaio are always there on Linux: a failure.
		 */
		if (engine && !strcmp(engine, "uring") && rblk_uring_ops.probe(why, sizeof(why)) < 0)
			ut_skip(why);
		else
			CU_FAIL("cannot set up a target on this engine");
		return;
	}
	write_read_back();
	flush_fua();
	write_zeroes();
	dataset_management();
	errors();
	not_ready_after_disable();
	teardown();
}

static void test_io_mem(void)
{
	engine = NULL;
	run_suite();
}

static void test_io_uring(void)
{
	engine = "uring";
	run_suite();
}

static void test_io_aio(void)
{
	engine = "aio";
	run_suite();
}

/* ------------------------------------------------------------------------ */

static void test_read_only(void)
{
	uint8_t *b = aligned_alloc(4096, 4096);
	struct nvme_dsm_range r = range(0, 1);
	struct nvme_rw_cmd c;

	engine = NULL;
	CU_ASSERT_TRUE_FATAL(setup(0, 0, true));
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, 0, 1, 0, b, 512)),
			NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR);
	tt_sqe((struct nvme_sqe *)&c, NVME_IO_WRITE_ZEROES, 3, 1);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0)),
			NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(dsm(iq, 1, NVME_DSM_AD, &r, 1, 4096)),
			NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(dsm(iq, 1, NVME_DSM_IDR, &r, 1, 4096), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, b, 512), 0);
	tt_sqe((struct nvme_sqe *)&c, NVME_IO_FLUSH, 4, 1);
	CU_ASSERT_EQUAL(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0), 0);
	teardown();
	free(b);
}

static void test_block_size_4k(void)
{
	uint8_t *w = pattern(8192, 2), *r = aligned_alloc(4096, 8192);

	engine = NULL;
	CU_ASSERT_TRUE_FATAL(setup(4096, 0, false));
	CU_ASSERT_EQUAL(ss->ns[0]->nlb, 256);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 254, 2, 0, w, 8192), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 254, 2, 0, r, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 8192), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 255, 2, 0, r, 8192)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	teardown();
	free(w);
	free(r);
}

/* A backend queue of depth 2 and 12 writes at once: the rest park and go in order. */
static void test_parking_queue(void)
{
	struct tt_req *tr[12];
	uint8_t *w[12], *r = aligned_alloc(4096, 4096);
	unsigned inflight, local;

	engine = "aio";
	CU_ASSERT_TRUE_FATAL(setup(0, 2, false)); /* libaio is always there */
	for (int i = 0; i < 12; i++) {
		struct nvme_rw_cmd c;

		w[i] = pattern(4096, (uint8_t)(i * 13));
		tt_rw_sqe(&c, NVME_IO_WRITE, (uint16_t)i, 1, (uint64_t)i * 8, 8);
		tr[i] = tt_send(iq, (struct nvme_sqe *)&c, w[i], 4096);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tr[i]);
	}
	/* The queue holds two: the rest are parked, and count as in flight. */
	inflight = rblk_tgt_pg_storage_inflight(&env->pg, &local);
	CU_ASSERT(inflight >= 10);
	while (rblk_tgt_pg_storage_inflight(&env->pg, &local))
		tt_pump(env);
	for (int i = 0; i < 12; i++) {
		CU_ASSERT_TRUE(tr[i]->done);
		CU_ASSERT_EQUAL(tt_status(&tr[i]->cqe), 0);
		tt_req_release(tr[i]);
		CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, (uint64_t)i * 8, 8, 0, r, 4096), 0);
		CU_ASSERT_EQUAL(memcmp(r, w[i], 4096), 0);
		free(w[i]);
	}
	teardown();
	free(r);
}

struct remover {
	struct rblk_subsystem *ss;
	int ret;
	_Atomic bool done;
};

static void *remove_thread(void *arg)
{
	struct remover *rm = arg;

	rm->ret = rblk_subsystem_remove_namespace(rm->ss, 1);
	rm->done = true;
	return NULL;
}

/* Removal (a SIGHUP reload on the daemon thread) waits for I/O in flight. */
static void test_remove_ns_with_io_in_flight(void)
{
	struct tt_req *tr[4];
	uint8_t *w = pattern(4096, 4);
	struct remover rm = { 0 };
	pthread_t th;

	engine = "aio";
	CU_ASSERT_TRUE_FATAL(setup(0, 0, false)); /* libaio is always there */
	for (int i = 0; i < 4; i++) {
		struct nvme_rw_cmd c;

		tt_rw_sqe(&c, NVME_IO_WRITE, (uint16_t)i, 1, (uint64_t)i * 8, 8);
		tr[i] = tt_send(iq, (struct nvme_sqe *)&c, w, 4096);
	}
	/* Counted in the poll group's slot, not in the shared reference count. */
	CU_ASSERT_EQUAL(rblk_tgt_ns_inflight(ss->ns[0]), 4);
	CU_ASSERT_EQUAL(ss->ns[0]->pgstats[0].inflight, 4);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->refs), 1);
	rm.ss = ss;
	pthread_create(&th, NULL, remove_thread, &rm);
	/* The remover cannot finish before the writes complete. */
	usleep(20000);
	CU_ASSERT_FALSE(rm.done);
	while (!rm.done)
		tt_pump(env);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(rm.ret, 0);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_TRUE(tr[i]->done);
		CU_ASSERT_EQUAL(tt_status(&tr[i]->cqe), 0);
		tt_req_release(tr[i]);
	}
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, w, 4096)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	teardown();
	free(w);
}

/*
 * Closing a namespace (removal; subsystem and target destroy, rblk-target's
 * SIGTERM path, go the same way) syncs a file opened writable, once.
 */
static void test_close_syncs_writable_file(void)
{
	uint8_t *w = pattern(4096, 6);

	engine = "aio";
	CU_ASSERT_TRUE_FATAL(setup(0, 0, false)); /* libaio is always there */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, w, 4096), 0);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[0]).syncs, 0);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 1), 0);
	CU_ASSERT_EQUAL(ss->retired.syncs, 1);
	CU_ASSERT_EQUAL(ss->retired.sync_errors, 0);
	teardown();

	/* Read-only: nothing was written through us, nothing to sync. */
	CU_ASSERT_TRUE_FATAL(setup(0, 0, true));
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 1), 0);
	CU_ASSERT_EQUAL(ss->retired.syncs, 0);
	teardown();
	free(w);
}

/* CC.SHN: SHST is 01b or 10b at once, and 10b only after the file was synced. */
static void test_shutdown_syncs_namespaces(void)
{
	uint8_t *w = pattern(4096, 7);
	uint64_t v;

	engine = "aio";
	CU_ASSERT_TRUE_FATAL(setup(0, 0, false)); /* libaio is always there */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, w, 4096), 0);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[0]).syncs, 0);
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00464001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v & NVME_CSTS_RDY, 0);
	CU_ASSERT_TRUE(NVME_CSTS_SHST(v) == NVME_CSTS_SHST_OCCUR ||
		       NVME_CSTS_SHST(v) == NVME_CSTS_SHST_CMPLT);
	CU_ASSERT_EQUAL(tt_wait_shutdown(aq, &v), 0);
	CU_ASSERT_EQUAL(v, NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[0]).syncs, 1);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[0]).sync_errors, 0);
	/* A completed shutdown is a safe one. */
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	iq = aq = NULL;
	CU_ASSERT_EQUAL(atomic_load(&ss->unsafe_shutdowns), 0);
	teardown();
	free(w);
}

/* A backing file cut short under the namespace: reads fail -EIO -> Unrecovered Read Error. */
static void test_media_error(void)
{
	uint8_t *b = aligned_alloc(4096, 4096);
	struct nvme_error_log_entry e;
	struct nvme_smart_log log;

	engine = "aio";
	CU_ASSERT_TRUE_FATAL(setup(0, 0, false)); /* libaio is always there */
	CU_ASSERT_EQUAL_FATAL(truncate(path, 0), 0);
	/* Retryable (no DNR): the host retries media errors. */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 16, 8, 0, b, 4096)), NVME_SC_READ_ERROR);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0xFFFFFFFF, 0, 512, false, &log), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.media_errors), 1);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_reads), 0);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_ERROR, 0, 0, 64, false, &e), 0);
	CU_ASSERT_EQUAL(rblk_le64(e.error_count), 1);
	CU_ASSERT_EQUAL(rblk_le16(e.sqid), 1);
	CU_ASSERT_EQUAL(rblk_le64(e.lba), 16);
	CU_ASSERT_EQUAL(rblk_le32(e.nsid), 1);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[0]).errors, 1);
	/* Counted under its status code type (Media and Data Integrity Errors). */
	struct rblk_tgt_ns_lat lat = { 0 };

	rblk_tgt_ns_lat_read(ss->ns[0], &lat);
	CU_ASSERT_EQUAL(lat.errors_sct[RBLK_TGT_SCT_MEDIA], 1);
	CU_ASSERT_EQUAL(lat.errors_sct[RBLK_TGT_SCT_GENERIC], 0);
	/* A failed read is no latency sample. */
	for (unsigned i = 0; i < RBLK_LAT_BUCKETS; i++)
		CU_ASSERT_EQUAL(lat.lat[0][i], 0);
	teardown();
	free(b);
}

/*
 * One command through the queue with the latency clock at @arrive when it
 * is received and @arrive + @lat when it completes; its status.
 */
static uint16_t timed_rw(struct rblk_clock_cache *clk, uint8_t opc, uint64_t lat, void *b)
{
	struct nvme_rw_cmd c;
	struct tt_req *tr;
	uint16_t st;

	tt_sqe((struct nvme_sqe *)&c, opc, 6, 1);
	c.nlb = rblk_cpu_to_le16(7);
	tr = tt_send(iq, (struct nvme_sqe *)&c, b, 4096);
	CU_ASSERT_FALSE(tr->done); /* the RAM engine completes from the next poll */
	clk->ns += lat;
	while (!tr->done)
		tt_pump(env);
	st = tt_status(&tr->cqe);
	tt_req_release(tr);
	return st;
}

/*
 * Latencies from the precise iteration clock (sq->lat_clock), from receipt
 * to completion, each in the first bucket whose bound is >= it.
 */
static void test_latency_histograms(void)
{
	struct rblk_clock_cache clk = { .ns = 5000000000ull, .valid = true, .on = true };
	uint8_t *b = aligned_alloc(4096, 4096);
	struct rblk_tgt_ns_lat lat = { 0 };
	struct rblk_tgt_ns *ns;

	engine = NULL;
	setup(512, 0, false);
	ns = iq->sq.ctrl->ss->ns[0];
	iq->sq.lat_clock = &clk;
	CU_ASSERT_EQUAL(timed_rw(&clk, NVME_IO_READ, 30000, b), 0);      /* <= 50 us */
	CU_ASSERT_EQUAL(timed_rw(&clk, NVME_IO_READ, 10000, b), 0);      /* <= 10 us: inclusive */
	CU_ASSERT_EQUAL(timed_rw(&clk, NVME_IO_WRITE, 10001, b), 0);     /* <= 25 us */
	CU_ASSERT_EQUAL(timed_rw(&clk, NVME_IO_WRITE, 20000000000ull, b), 0); /* > 10 s */
	rblk_tgt_ns_lat_read(ns, &lat);
	CU_ASSERT_EQUAL(lat.lat[0][0], 1);
	CU_ASSERT_EQUAL(lat.lat[0][2], 1);
	CU_ASSERT_EQUAL(lat.lat_sum_ns[0], 40000);
	CU_ASSERT_EQUAL(lat.lat[1][1], 1);
	CU_ASSERT_EQUAL(lat.lat[1][RBLK_LAT_BUCKETS - 1], 1);
	CU_ASSERT_EQUAL(lat.lat_sum_ns[1], 20000010001ull);
	CU_ASSERT_EQUAL(ns_stats(ns).read_cmds, 2);
	/* No iteration clock (latency_stats off): counted, kept out of the histograms. */
	iq->sq.lat_clock = NULL;
	CU_ASSERT_EQUAL(timed_rw(&clk, NVME_IO_READ, 30000, b), 0);
	memset(&lat, 0, sizeof(lat));
	rblk_tgt_ns_lat_read(ns, &lat);
	CU_ASSERT_EQUAL(lat.lat[0][2], 1);
	CU_ASSERT_EQUAL(lat.lat_sum_ns[0], 40000);
	CU_ASSERT_EQUAL(ns_stats(ns).read_cmds, 3);
	teardown();
	free(b);
}

/* Service times come from the queue's iteration clock: no clock read per command. */
static void test_busy_time_uses_the_iteration_clock(void)
{
	struct rblk_clock_cache clk = { .ns = 1000000000ull, .valid = true, .on = true };
	uint8_t *b = aligned_alloc(4096, 4096);
	struct rblk_tgt_ns *ns;
	struct nvme_rw_cmd c;
	struct tt_req *tr;
	uint64_t busy0;

	engine = NULL;
	setup(512, 0, false);
	ns = iq->sq.ctrl->ss->ns[0];
	iq->sq.clock = &clk;
	busy0 = ns_stats(ns).busy_ns;
	tt_sqe((struct nvme_sqe *)&c, NVME_IO_READ, 5, 1);
	c.nlb = rblk_cpu_to_le16(7);
	tr = tt_send(iq, (struct nvme_sqe *)&c, b, 4096);
	CU_ASSERT_FALSE(tr->done); /* the RAM engine completes from the next poll */
	/* The next iteration's time: what the completion must account. */
	clk.ns += 4321;
	while (!tr->done)
		tt_pump(env);
	CU_ASSERT_EQUAL(tt_status(&tr->cqe), 0);
	CU_ASSERT_EQUAL(ns_stats(ns).busy_ns - busy0, 4321);
	tt_req_release(tr);
	iq->sq.clock = NULL;
	teardown();
	free(b);
}

static const struct ut_case cases[] = {
	UT_CASE(test_io_mem),
	UT_CASE(test_io_uring),
	UT_CASE(test_io_aio),
	UT_CASE(test_read_only),
	UT_CASE(test_block_size_4k),
	UT_CASE(test_parking_queue),
	UT_CASE(test_remove_ns_with_io_in_flight),
	UT_CASE(test_media_error),
	UT_CASE(test_busy_time_uses_the_iteration_clock),
	UT_CASE(test_latency_histograms),
	UT_CASE(test_close_syncs_writable_file),
	UT_CASE(test_shutdown_syncs_namespaces),
	UT_END,
};

UT_MAIN("target/io", cases)
