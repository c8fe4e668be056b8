/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/compare.c and target/bounce.c against real backends (RAM
 * and a temp file through the target's kernel engine): Compare match and
 * mismatch (at the right LBA), Verify, Copy across several ranges and its
 * limits (ranges, range length, total length, format, LBA range, write
 * protection), ranges longer than one bounce unit, and commands that wait
 * for a bounce unit when the poll group's are all taken.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *aq, *iq;
static struct rblk_subsystem *ss;
static char path[256];
static const char *engine;

static bool setup(bool read_only)
{
	struct rblk_target_opts o;
	struct rblk_ns_opts no;
	uint16_t cntlid;

	rblk_target_opts_init(&o);
	o.backend = engine;
	env = tt_env_create(&o, 0);
	if (!env)
		return false;
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	rblk_ns_opts_init(&no);
	if (engine) {
		CU_ASSERT_EQUAL_FATAL(tt_tempfile(path, sizeof(path), 4 << 20), 0);
		no.path = path;
	} else {
		path[0] = 0;
		no.path = "mem:4M";
	}
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

/* Page aligned, as the transport's buffers are (aligned_alloc wants whole pages). */
static uint8_t *page_alloc(size_t len)
{
	return aligned_alloc(4096, (len + 4095) / 4096 * 4096);
}

static uint8_t *pattern(size_t len, uint8_t seed)
{
	uint8_t *p = page_alloc(len);

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
	return p;
}

static struct nvme_copy_range crange(uint64_t slba, uint32_t nlb)
{
	struct nvme_copy_range r;

	memset(&r, 0, sizeof(r));
	r.slba = rblk_cpu_to_le64(slba);
	r.nlb = rblk_cpu_to_le16((uint16_t)(nlb - 1));
	return r;
}

static void copy_sqe(struct nvme_copy_cmd *c, uint64_t sdlba, unsigned nr, uint32_t extra)
{
	tt_sqe((struct nvme_sqe *)c, NVME_IO_COPY, 0x19, 1);
	c->sdlba = rblk_cpu_to_le64(sdlba);
	c->cdw12 = rblk_cpu_to_le32((nr - 1) | extra);
}

static uint16_t copy(uint64_t sdlba, const struct nvme_copy_range *r, unsigned nr,
		     uint32_t extra, uint32_t *dw0)
{
	struct nvme_copy_cmd c;
	struct nvme_cqe cqe;
	uint16_t st;

	copy_sqe(&c, sdlba, nr, extra);
	st = tt_cmd(iq, (struct nvme_sqe *)&c, r, nr * sizeof(*r), &cqe, NULL, 0);
	if (dw0)
		*dw0 = rblk_le32(cqe.dw0);
	return st;
}

/* ------------------------------------------------------------------------ */

static void compare_match_mismatch(void)
{
	uint8_t *w = pattern(8192, 5), *h = page_alloc(8192);
	struct nvme_error_log_entry log[2];
	struct rblk_tgt_ns_stats st;

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 100, 16, 0, w, 8192), 0);
	/* The same bytes: success. */
	memcpy(h, w, 8192);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_COMPARE, 1, 100, 16, 0, h, 8192), 0);
	/* One byte off in block 11 of 16: Compare Failure, error log at LBA 111. */
	h[11 * 512 + 77] ^= 0x40;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_COMPARE, 1, 100, 16, 0, h, 8192)),
			NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_ERROR, 0, 0, sizeof(log), false, log), 0);
	CU_ASSERT_EQUAL(rblk_le64(log[0].lba), 111);
	CU_ASSERT_EQUAL(TT_SC(nvme_status_from_wire(rblk_le16(log[0].status_field))),
			NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	/* A Compare never writes: the data is as written. */
	memset(h, 0, 8192);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 100, 16, 0, h, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(h, w, 8192), 0);
	/* Past the end, and the MDTS of its data (1 MiB). */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_COMPARE, 1, 8191, 2, 0, h, 1024)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	st = ns_stats(ss->ns[0]);
	CU_ASSERT_EQUAL(st.other_cmds, 2);
	CU_ASSERT_EQUAL(rblk_tgt_bounce_free_count(&env->pg), RBLK_TGT_BOUNCE_UNITS);
	free(w);
	free(h);
}

/* 1 MiB: eight bounce units' worth, a difference in the last piece only. */
static void compare_long(void)
{
	size_t len = 1 << 20;
	uint8_t *w = pattern(len, 9), *h = page_alloc(len);

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 2048, 2048, 0, w, len), 0);
	memcpy(h, w, len);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_COMPARE, 1, 2048, 2048, 0, h, len), 0);
	h[len - 1] ^= 1;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_COMPARE, 1, 2048, 2048, 0, h, len)),
			NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	/* With the host's data split over several buffers. */
	env->iov_split = 3000;
	h[len - 1] ^= 1;
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_COMPARE, 1, 2048, 2048, 0, h, len), 0);
	h[5000] ^= 1;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_COMPARE, 1, 2048, 2048, 0, h, len)),
			NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	env->iov_split = 0;
	free(w);
	free(h);
}

static void verify(void)
{
	struct nvme_rw_cmd c;

	/* No data moves, so MDTS does not apply: the whole 4 MiB namespace at once. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_VERIFY, 1, 0, 8192, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_VERIFY, 1, 8000, 193, 0, NULL, 0)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	/* A Verify carries no data: an SGL that says otherwise is refused. */
	tt_rw_sqe(&c, NVME_IO_VERIFY, 3, 1, 0, 1);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 512, NULL, NULL, 0)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_tgt_bounce_free_count(&env->pg), RBLK_TGT_BOUNCE_UNITS);
}

static void copy_ranges(void)
{
	uint8_t *a = pattern(4096, 1), *b = pattern(300 * 512, 2), *r = page_alloc(310 * 512);
	struct nvme_copy_range rg[3];
	uint32_t dw0;

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 10, 8, 0, a, 4096), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 1000, 300, 0, b, 300 * 512), 0);
	/* b's 300 blocks (two bounce units and a bit), then a's 8, then a's first 2 again. */
	rg[0] = crange(1000, 300);
	rg[1] = crange(10, 8);
	rg[2] = crange(10, 2);
	CU_ASSERT_EQUAL(copy(4000, rg, 3, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 4000, 310, 0, r, 310 * 512), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 300 * 512), 0);
	CU_ASSERT_EQUAL(memcmp(r + 300 * 512, a, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r + 308 * 512, a, 1024), 0);
	/* The sources are untouched. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 10, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, a, 4096), 0);
	/* FUA (CDW12 bit 30) is accepted. */
	CU_ASSERT_EQUAL(copy(5000, rg + 1, 1, NVME_COPY_FUA, NULL), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 5000, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, a, 4096), 0);

	/* Limits: MSSRL and MCL are 2048 blocks (MDTS), MSRC + 1 = 128 ranges. */
	rg[0] = crange(0, 2049);
	CU_ASSERT_EQUAL(TT_SC(copy(6000, rg, 1, 0, NULL)), NVME_SC_CMD_SIZE_LIMIT | NVME_SC_DNR);
	rg[0] = crange(0, 1500);
	rg[1] = crange(2000, 600);
	CU_ASSERT_EQUAL(TT_SC(copy(6000, rg, 2, 0, NULL)), NVME_SC_CMD_SIZE_LIMIT | NVME_SC_DNR);
	{
		struct nvme_copy_range many[129];

		for (unsigned i = 0; i < 129; i++)
			many[i] = crange(i, 1);
		CU_ASSERT_EQUAL(TT_SC(copy(6000, many, 129, 0, NULL)),
				NVME_SC_CMD_SIZE_LIMIT | NVME_SC_DNR);
		CU_ASSERT_EQUAL(copy(6000, many, 128, 0, NULL), 0);
	}
	/* A source, or the destination, past the end; nothing is written. */
	rg[0] = crange(10, 8);
	rg[1] = crange(8190, 4);
	CU_ASSERT_EQUAL(TT_SC(copy(7000, rg, 2, 0, NULL)), NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(copy(8190, rg, 1, 0, NULL)), NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 7000, 8, 0, r, 4096), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(r, a, 4096), 0);
	/* Descriptor formats other than 0. */
	CU_ASSERT_EQUAL(TT_SC(copy(7000, rg, 1, 1u << NVME_COPY_DESFMT_SHIFT, &dw0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_tgt_bounce_free_count(&env->pg), RBLK_TGT_BOUNCE_UNITS);
	free(a);
	free(b);
	free(r);
}

/* More commands than bounce units: the rest wait, FIFO, and all finish. */
static void bounce_wait(void)
{
	enum { N = RBLK_TGT_BOUNCE_UNITS + 3 };
	uint8_t *w = pattern(65536, 4);
	struct tt_req *tr[N];

	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 128, 0, w, 65536), 0);
	for (unsigned i = 0; i < N; i++) {
		struct nvme_rw_cmd c;

		tt_rw_sqe(&c, NVME_IO_COMPARE, (uint16_t)(0x100 + i), 1, 0, 128);
		tr[i] = tt_send(iq, (struct nvme_sqe *)&c, w, 65536);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tr[i]);
	}
	/* Every unit taken before anything completed; three wait. */
	CU_ASSERT_EQUAL(rblk_tgt_bounce_free_count(&env->pg), 0);
	for (unsigned i = 0; i < N; i++)
		CU_ASSERT_FALSE(tr[i]->done);
	for (uint64_t deadline = rblk_clock_ms() + 10000; rblk_clock_ms() < deadline;) {
		bool all = true;

		tt_pump(env);
		for (unsigned i = 0; i < N; i++)
			all = all && tr[i]->done;
		if (all)
			break;
	}
	for (unsigned i = 0; i < N; i++) {
		CU_ASSERT_TRUE(tr[i]->done);
		CU_ASSERT_EQUAL(tt_status(&tr[i]->cqe), 0);
		tt_req_release(tr[i]);
	}
	CU_ASSERT_EQUAL(rblk_tgt_bounce_free_count(&env->pg), RBLK_TGT_BOUNCE_UNITS);
	free(w);
}

static void run_all(void)
{
	compare_match_mismatch();
	compare_long();
	verify();
	copy_ranges();
	bounce_wait();
}

static void test_mem(void)
{
	engine = NULL;
	CU_ASSERT_TRUE_FATAL(setup(false));
	run_all();
	teardown();
}

static void test_uring(void)
{
	engine = "uring";
	if (!setup(false))
		return; /* io_uring not usable here */
	run_all();
	teardown();
}

static void test_read_only(void)
{
	struct nvme_copy_range rg = crange(0, 1);
	uint8_t buf[512] = { 0 };

	engine = NULL;
	CU_ASSERT_TRUE_FATAL(setup(true));
	/* Compare and Verify read; Copy writes. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_COMPARE, 1, 0, 1, 0, buf, 512), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_VERIFY, 1, 0, 1, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(TT_SC(copy(10, &rg, 1, 0, NULL)), NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_mem),
	UT_CASE(test_uring),
	UT_CASE(test_read_only),
	UT_END,
};

UT_MAIN("target/compare", cases)
