/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/disc_log.c: reading the discovery log from a fake
 * controller whose log changes between reads (GENCTR), in 4 KiB chunks
 * with RAE on all but the last, and turning it into public entries
 * (subtype 3 hidden unless asked).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "initiator/disc_log.h"
#include "protocol/disc.h"
#include "ut.h"

#define MAX_CALLS 64

/* A controller's discovery log: each read sees log "version" v = the number of reads so far mapped by gen_at[]. */
struct fake {
	unsigned numrec[8];	/* per version */
	uint64_t genctr[8];
	unsigned version_at_read[MAX_CALLS];	/* which version read i sees */
	unsigned reads;
	uint64_t lpo[MAX_CALLS];
	uint32_t len[MAX_CALLS];
	bool rae[MAX_CALLS];
	int fail_at;		/* read index that fails, -1 none */
};

static void build_log(const struct fake *f, unsigned v, uint8_t **out, size_t *len)
{
	size_t size = (size_t)rblk_disc_log_size(f->numrec[v]);
	uint8_t *log = calloc(1, size);
	struct nvmf_disc_log_hdr *h = (struct nvmf_disc_log_hdr *)log;

	h->genctr = rblk_cpu_to_le64(f->genctr[v]);
	h->numrec = rblk_cpu_to_le64(f->numrec[v]);
	for (unsigned i = 0; i < f->numrec[v]; i++) {
		struct rblk_disc_entry_info e = {
			.trtype = NVMF_TRTYPE_RDMA,
			.adrfam = NVMF_ADRFAM_IPV4,
			.subtype = i == 0 ? NVMF_SUBTYPE_CURRENT_DISCOVERY : NVMF_SUBTYPE_NVME,
			.treq = NVMF_TREQ_DISABLE_SQFLOW,
			.portid = 1,
		};

		strcpy(e.trsvcid, "4420");
		strcpy(e.traddr, "10.99.0.1");
		if (i == 0)
			strcpy(e.subnqn, NVME_DISC_SUBSYS_NAME);
		else
			snprintf(e.subnqn, sizeof(e.subnqn), "nqn.2024-01.io.rblk:v%u-s%u", v, i);
		rblk_disc_entry_build((struct nvmf_disc_log_entry *)(log + 1024 + i * 1024), &e);
	}
	*out = log;
	*len = size;
}

static int fake_read(void *ctx, uint64_t lpo, void *buf, uint32_t len, bool rae, uint16_t *status)
{
	struct fake *f = ctx;
	unsigned i = f->reads++;
	uint8_t *log;
	size_t size;

	CU_ASSERT_FATAL(i < MAX_CALLS);
	f->lpo[i] = lpo;
	f->len[i] = len;
	f->rae[i] = rae;
	CU_ASSERT(len <= RBLK_DISC_CHUNK);
	CU_ASSERT_EQUAL(len % 4, 0);
	if ((int)i == f->fail_at) {
		*status = 0x4002;
		return -EREMOTEIO;
	}
	build_log(f, f->version_at_read[i], &log, &size);
	memset(buf, 0, len);
	if (lpo < size)
		memcpy(buf, log + lpo, size - lpo < len ? size - lpo : len);
	free(log);
	return 0;
}

static void test_empty(void)
{
	struct fake f = { .numrec = { 0 }, .genctr = { 5 }, .fail_at = -1 };
	size_t len;
	void *log;

	CU_ASSERT_EQUAL(rblk_disc_log_fetch(fake_read, &f, 10, &log, &len, NULL), 0);
	CU_ASSERT_EQUAL(f.reads, 1);
	CU_ASSERT_EQUAL(len, 1024);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvmf_disc_log_hdr *)log)->genctr), 5);
	free(log);
}

static void test_stable_chunks(void)
{
	struct fake f = { .numrec = { 5 }, .genctr = { 9 }, .fail_at = -1 };
	struct rblk_disc_entry *e;
	uint64_t genctr = 0;
	unsigned n = 0;
	size_t len;
	void *log;

	CU_ASSERT_EQUAL_FATAL(rblk_disc_log_fetch(fake_read, &f, 10, &log, &len, NULL), 0);
	/* Header (RAE), then 1024 + 5 * 1024 = 6144 bytes: 4096 (RAE) + 2048 (last, no RAE). */
	CU_ASSERT_EQUAL(f.reads, 3);
	CU_ASSERT_EQUAL(f.lpo[0], 0);
	CU_ASSERT_EQUAL(f.len[0], 1024);
	CU_ASSERT_TRUE(f.rae[0]);
	CU_ASSERT_EQUAL(f.lpo[1], 0);
	CU_ASSERT_EQUAL(f.len[1], 4096);
	CU_ASSERT_TRUE(f.rae[1]);
	CU_ASSERT_EQUAL(f.lpo[2], 4096);
	CU_ASSERT_EQUAL(f.len[2], 2048);
	CU_ASSERT_FALSE(f.rae[2]);
	CU_ASSERT_EQUAL(len, 6144);

	CU_ASSERT_EQUAL(rblk_disc_log_entries(log, len, false, &e, &n, &genctr), 0);
	CU_ASSERT_EQUAL(genctr, 9);
	CU_ASSERT_EQUAL_FATAL(n, 4);	/* the subtype-3 self entry is hidden */
	CU_ASSERT_EQUAL(e[0].subtype, NVMF_SUBTYPE_NVME);
	CU_ASSERT_STRING_EQUAL(e[0].subnqn, "nqn.2024-01.io.rblk:v0-s1");
	CU_ASSERT_STRING_EQUAL(e[3].subnqn, "nqn.2024-01.io.rblk:v0-s4");
	CU_ASSERT_STRING_EQUAL(e[0].traddr, "10.99.0.1");
	CU_ASSERT_STRING_EQUAL(e[0].trsvcid, "4420");
	CU_ASSERT_EQUAL(e[0].trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(e[0].treq, NVMF_TREQ_DISABLE_SQFLOW);
	CU_ASSERT_EQUAL(e[0].cntlid, 0xFFFF);
	CU_ASSERT_EQUAL(e[0].asqsz, 32);
	CU_ASSERT_EQUAL(e[0].rdma_qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	free(e);

	CU_ASSERT_EQUAL(rblk_disc_log_entries(log, len, true, &e, &n, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT_EQUAL(e[0].subtype, NVMF_SUBTYPE_CURRENT_DISCOVERY);
	CU_ASSERT_STRING_EQUAL(e[0].subnqn, NVME_DISC_SUBSYS_NAME);
	free(e);
	free(log);
}

static void test_genctr_changes_once(void)
{
	/* Read 0 (header) sees version 0 (2 records); the full read sees version 1 (3 records). */
	struct fake f = { .numrec = { 2, 3 }, .genctr = { 1, 2 },
			  .version_at_read = { 0, 1, 1, 1, 1 }, .fail_at = -1 };
	struct rblk_disc_entry *e;
	unsigned n;
	size_t len;
	void *log;

	CU_ASSERT_EQUAL_FATAL(rblk_disc_log_fetch(fake_read, &f, 10, &log, &len, NULL), 0);
	/* hdr, full (3072: one chunk), then again: hdr, full (4096: one chunk). */
	CU_ASSERT_EQUAL(f.reads, 4);
	CU_ASSERT_EQUAL(f.len[1], 3072);
	CU_ASSERT_EQUAL(f.len[3], 4096);
	CU_ASSERT_EQUAL(len, 4096);
	CU_ASSERT_EQUAL(rblk_disc_log_entries(log, len, false, &e, &n, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(e[1].subnqn, "nqn.2024-01.io.rblk:v1-s2");
	free(e);
	free(log);
}

static void test_genctr_keeps_changing(void)
{
	struct fake f = { .numrec = { 1, 1, 1, 1, 1, 1, 1, 1 },
			  .genctr = { 1, 2, 3, 4, 5, 6, 7, 8 }, .fail_at = -1 };
	size_t len;
	void *log = (void *)1;

	for (unsigned i = 0; i < MAX_CALLS; i++)
		f.version_at_read[i] = (i + 1) / 2 % 8;	/* every header differs from its full read */
	CU_ASSERT_EQUAL(rblk_disc_log_fetch(fake_read, &f, 3, &log, &len, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(f.reads, 6);
	CU_ASSERT_PTR_NULL(log);
}

static void test_numrec_changes_silently(void)
{
	struct fake f = { .numrec = { 2, 4 }, .genctr = { 7, 7 },
			  .version_at_read = { 0, 1 }, .fail_at = -1 };
	size_t len;
	void *log;

	CU_ASSERT_EQUAL(rblk_disc_log_fetch(fake_read, &f, 10, &log, &len, NULL), -EBADMSG);
}

static void test_read_error(void)
{
	struct fake f = { .numrec = { 3 }, .genctr = { 1 }, .fail_at = 1 };
	uint16_t status = 0;
	size_t len;
	void *log;

	CU_ASSERT_EQUAL(rblk_disc_log_fetch(fake_read, &f, 10, &log, &len, &status), -EREMOTEIO);
	CU_ASSERT_EQUAL(status, 0x4002);
}

static void test_too_many_records(void)
{
	struct fake f = { .numrec = { 0 }, .genctr = { 1 }, .fail_at = -1 };
	size_t len;
	void *log;

	f.numrec[0] = RBLK_DISC_MAX_RECORDS + 1;
	/* Only the header is built from numrec here; the fetch must stop at it. */
	CU_ASSERT_EQUAL(rblk_disc_log_fetch(fake_read, &f, 10, &log, &len, NULL), -EBADMSG);
	CU_ASSERT_EQUAL(f.reads, 1);
}

static void test_entries_malformed(void)
{
	uint8_t log[1024] = { 0 };
	struct rblk_disc_entry *e;
	unsigned n;

	/* NUMREC 1 but no room for the entry. */
	log[8] = 1;
	CU_ASSERT_NOT_EQUAL(rblk_disc_log_entries(log, sizeof(log), false, &e, &n, NULL), 0);
	CU_ASSERT_EQUAL(rblk_disc_log_entries(log, 100, false, &e, &n, NULL), -EINVAL);
}

static const struct ut_case cases[] = {
	UT_CASE(test_empty),
	UT_CASE(test_stable_chunks),
	UT_CASE(test_genctr_changes_once),
	UT_CASE(test_genctr_keeps_changing),
	UT_CASE(test_numrec_changes_silently),
	UT_CASE(test_read_error),
	UT_CASE(test_too_many_records),
	UT_CASE(test_entries_malformed),
	UT_END,
};

UT_MAIN("initiator/disc_log", cases)
