/* SPDX-License-Identifier: MIT */
/* Tests for protocol/disc.c: entry bytes, log windows, parse and its refusals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/disc.h"
#include "ut.h"

static struct nvmf_disc_log_entry ents[5];

static void fill_info(struct rblk_disc_entry_info *info, unsigned i)
{
	memset(info, 0, sizeof(*info));
	info->trtype = NVMF_TRTYPE_RDMA;
	info->adrfam = NVMF_ADRFAM_IPV4;
	info->subtype = i == 0 ? NVMF_SUBTYPE_CURRENT_DISCOVERY : NVMF_SUBTYPE_NVME;
	info->treq = NVMF_TREQ_DISABLE_SQFLOW;
	info->portid = (uint16_t)(0x100 + i);
	info->eflags = i == 0 ? NVMF_DISC_EFLAGS_DUPRETINFO : 0;
	strcpy(info->trsvcid, "4420");
	snprintf(info->traddr, sizeof(info->traddr), "10.99.0.%u", i + 1);
	if (i == 0)
		strcpy(info->subnqn, NVME_DISC_SUBSYS_NAME);
	else
		snprintf(info->subnqn, sizeof(info->subnqn), "nqn.2016-06.io.rblk:sub%u", i);
}

static void build_all(void)
{
	struct rblk_disc_entry_info info;

	for (unsigned i = 0; i < 5; i++) {
		fill_info(&info, i);
		CU_ASSERT_FATAL(rblk_disc_entry_build(&ents[i], &info) == 0);
	}
}

static void test_entry_bytes(void)
{
	struct rblk_disc_entry_info info;
	struct nvmf_disc_log_entry e;
	const uint8_t *b = (const uint8_t *)&e;

	fill_info(&info, 1);
	memset(&e, 0xEE, sizeof(e));
	CU_ASSERT_EQUAL(rblk_disc_entry_build(&e, &info), 0);
	CU_ASSERT_EQUAL(b[0], 1);    /* RDMA */
	CU_ASSERT_EQUAL(b[1], 1);    /* IPv4 */
	CU_ASSERT_EQUAL(b[2], 2);    /* NVM subsystem */
	CU_ASSERT_EQUAL(b[3], 4);    /* SQ flow control disable */
	CU_ASSERT_EQUAL(b[4], 0x01); /* portid 0x101 */
	CU_ASSERT_EQUAL(b[5], 0x01);
	CU_ASSERT_EQUAL(b[6], 0xFF); /* cntlid 0xFFFF */
	CU_ASSERT_EQUAL(b[7], 0xFF);
	CU_ASSERT_EQUAL(b[8], 32);   /* asqsz */
	CU_ASSERT_EQUAL(b[9], 0);
	CU_ASSERT_EQUAL(b[10], 0);   /* eflags */
	for (int i = 12; i < 32; i++)
		CU_ASSERT_EQUAL(b[i], 0);
	CU_ASSERT_EQUAL(memcmp(b + 32, "4420", 5), 0);
	CU_ASSERT_EQUAL(b[63], 0);
	CU_ASSERT_EQUAL(memcmp(b + 256, "nqn.2016-06.io.rblk:sub1", 25), 0);
	CU_ASSERT_EQUAL(memcmp(b + 512, "10.99.0.2", 10), 0);
	CU_ASSERT_EQUAL(b[767], 0);
	CU_ASSERT_EQUAL(b[768], 1);  /* QPTYPE RC */
	CU_ASSERT_EQUAL(b[769], 1);  /* PRTYPE not specified */
	CU_ASSERT_EQUAL(b[770], 1);  /* CMS RDMA_CM */
	CU_ASSERT_EQUAL(b[776], 0);  /* PKEY */
	CU_ASSERT_EQUAL(b[777], 0);
	CU_ASSERT_EQUAL(b[1023], 0);
}

static void test_entry_build_rejects(void)
{
	struct rblk_disc_entry_info info;
	struct nvmf_disc_log_entry e;

	fill_info(&info, 1);
	memset(info.trsvcid, '9', 32);
	info.trsvcid[32] = 0;
	CU_ASSERT_EQUAL(rblk_disc_entry_build(&e, &info), -EINVAL);
	fill_info(&info, 1);
	memset(info.traddr, '1', 256);
	info.traddr[256] = 0;
	CU_ASSERT_EQUAL(rblk_disc_entry_build(&e, &info), -EINVAL);
	fill_info(&info, 1);
	info.subnqn[0] = 0;
	CU_ASSERT_EQUAL(rblk_disc_entry_build(&e, &info), -EINVAL);
	fill_info(&info, 1);
	memset(info.subnqn, 'n', 224);
	info.subnqn[224] = 0;
	CU_ASSERT_EQUAL(rblk_disc_entry_build(&e, &info), -EINVAL);
	info.subnqn[223] = 0;
	CU_ASSERT_EQUAL(rblk_disc_entry_build(&e, &info), 0);
}

static void test_window_header(void)
{
	uint8_t buf[1024];
	struct nvmf_disc_log_hdr want;

	build_all();
	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 1024, 0, 0x0102030405060708ull, ents, 3),
			NVME_SC_SUCCESS);
	memset(&want, 0, sizeof(want));
	want.genctr = rblk_cpu_to_le64(0x0102030405060708ull);
	want.numrec = rblk_cpu_to_le64(3);
	CU_ASSERT_EQUAL(memcmp(buf, &want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(buf[0], 0x08);
	CU_ASSERT_EQUAL(buf[8], 3);
}

static void test_window_full_and_offsets(void)
{
	uint8_t buf[4096];

	build_all();
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 4096, 0, 1, ents, 3), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(buf[8], 3);
	CU_ASSERT_EQUAL(memcmp(buf + 1024, ents, 3 * 1024), 0);

	/* Offset 1024: entry 0. */
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 1024, 1024, 1, ents, 3), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, &ents[0], 1024), 0);

	/* Offset 4096 == log size: allowed, all zero. */
	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 4096, 4096, 1, ents, 3), NVME_SC_SUCCESS);
	for (int i = 0; i < 4096; i++)
		CU_ASSERT_EQUAL(buf[i], 0);

	/* Past the end, and unaligned. */
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 4, 4100, 1, ents, 3), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 4, 2, 1, ents, 3), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
}

static void test_window_partial(void)
{
	uint8_t buf[100];
	const uint8_t *e0 = (const uint8_t *)&ents[0];
	const uint8_t *e2 = (const uint8_t *)&ents[2];

	build_all();
	/* Straddling header and entry 0. */
	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 8, 1020, 1, ents, 3), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, "\0\0\0\0", 4), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 4, e0, 4), 0);
	CU_ASSERT_EQUAL(buf[8], 0xAA); /* nothing written past len */

	/* Straddling entry 1 and entry 2. */
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 100, 3072 - 40, 1, ents, 3), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, (const uint8_t *)&ents[1] + 984, 40), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 40, e2, 60), 0);

	/* Tail of the last entry, then zero fill. */
	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 100, 3072 + 1000, 1, ents, 3), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, e2 + 1000, 24), 0);
	for (int i = 24; i < 100; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
}

/* nvme-cli: header read, then the whole log in 4 KiB chunks. */
static void test_window_chunks_match_full(void)
{
	uint8_t *full = calloc(1, 8192);
	uint8_t *chunked = calloc(1, 8192);

	CU_ASSERT_FATAL(full && chunked);
	build_all();
	CU_ASSERT_EQUAL(rblk_disc_log_read(full, 8192, 0, 9, ents, 5), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_disc_log_read(chunked, 4096, 0, 9, ents, 5), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_disc_log_read(chunked + 4096, 4096, 4096, 9, ents, 5), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(full, chunked, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(full + 1024, ents, 5 * 1024), 0);
	for (int i = 6144; i < 8192; i++)
		CU_ASSERT_EQUAL(full[i], 0);
	free(full);
	free(chunked);
}

static void test_window_empty_log(void)
{
	uint8_t buf[1024];

	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 1024, 0, 5, NULL, 0), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(buf[0], 5);
	for (int i = 1; i < 1024; i++)
		CU_ASSERT_EQUAL(buf[i], 0);
	CU_ASSERT_EQUAL(rblk_disc_log_read(buf, 4, 1028, 5, NULL, 0), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
}

static void test_parse_round_trip_unaligned(void)
{
	uint8_t *raw = calloc(1, 4096 + 1);
	struct rblk_disc_entry_info out[4], want;
	struct rblk_disc_log_info hdr;
	size_t count = 99;

	CU_ASSERT_FATAL(raw != NULL);
	build_all();
	CU_ASSERT_EQUAL(rblk_disc_log_read(raw + 1, 4096, 0, 42, ents, 3), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw + 1, 4096, &hdr, out, 4, &count), 0);
	CU_ASSERT_EQUAL(hdr.genctr, 42);
	CU_ASSERT_EQUAL(hdr.numrec, 3);
	CU_ASSERT_EQUAL(count, 3);
	for (unsigned i = 0; i < 3; i++) {
		fill_info(&want, i);
		CU_ASSERT_EQUAL(out[i].trtype, want.trtype);
		CU_ASSERT_EQUAL(out[i].adrfam, want.adrfam);
		CU_ASSERT_EQUAL(out[i].subtype, want.subtype);
		CU_ASSERT_EQUAL(out[i].treq, want.treq);
		CU_ASSERT_EQUAL(out[i].portid, want.portid);
		CU_ASSERT_EQUAL(out[i].eflags, want.eflags);
		CU_ASSERT_EQUAL(out[i].cntlid, 0xFFFF);
		CU_ASSERT_EQUAL(out[i].asqsz, 32);
		CU_ASSERT_STRING_EQUAL(out[i].trsvcid, want.trsvcid);
		CU_ASSERT_STRING_EQUAL(out[i].traddr, want.traddr);
		CU_ASSERT_STRING_EQUAL(out[i].subnqn, want.subnqn);
		CU_ASSERT_EQUAL(out[i].rdma_qptype, 1);
		CU_ASSERT_EQUAL(out[i].rdma_prtype, 1);
		CU_ASSERT_EQUAL(out[i].rdma_cms, 1);
	}
	free(raw);
}

static void test_parse_refusals(void)
{
	uint8_t *raw = calloc(1, 4096);
	struct rblk_disc_entry_info out[4];
	struct rblk_disc_log_info hdr;
	size_t count;

	CU_ASSERT_FATAL(raw != NULL);
	build_all();
	rblk_disc_log_read(raw, 4096, 0, 1, ents, 3);

	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw, 1023, &hdr, out, 4, &count), -EINVAL);
	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw, 3072, &hdr, out, 4, &count), -EMSGSIZE);
	CU_ASSERT_EQUAL(hdr.numrec, 3); /* header still reported */
	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw, 4096, &hdr, out, 2, &count), -ENOSPC);
	CU_ASSERT_EQUAL(count, 3);

	/* A huge NUMREC must not overflow the size computation. */
	rblk_put_le64(raw + 8, UINT64_MAX);
	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw, 4096, &hdr, out, 4, &count), -EMSGSIZE);
	rblk_put_le64(raw + 8, 3);

	raw[16] = 1; /* RECFMT */
	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw, 4096, &hdr, out, 4, &count), -EINVAL);
	raw[16] = 0;

	memset(raw + 2048 + 256, 0, 256); /* entry 1: empty SUBNQN */
	CU_ASSERT_EQUAL(rblk_disc_log_parse(raw, 4096, &hdr, out, 4, &count), -EINVAL);
	free(raw);
}

static void test_parse_space_padding(void)
{
	struct nvmf_disc_log_entry e;
	struct rblk_disc_entry_info out;

	build_all();
	e = ents[1];
	/* SPDK pads fixed fields with spaces and may leave no NUL. */
	memset(e.trsvcid, ' ', sizeof(e.trsvcid));
	memcpy(e.trsvcid, "4420", 4);
	memset(e.traddr, 'a', sizeof(e.traddr));
	CU_ASSERT_EQUAL(rblk_disc_entry_parse(&e, &out), 0);
	CU_ASSERT_STRING_EQUAL(out.trsvcid, "4420");
	CU_ASSERT_EQUAL(strlen(out.traddr), 256);

	memset(e.subnqn, 'n', sizeof(e.subnqn)); /* 256 chars: longer than an NQN */
	CU_ASSERT_EQUAL(rblk_disc_entry_parse(&e, &out), -EINVAL);
	memset(e.subnqn, ' ', sizeof(e.subnqn));
	memcpy(e.subnqn, "testnqn", 7); /* kernel targets allow this name: shown as is */
	CU_ASSERT_EQUAL(rblk_disc_entry_parse(&e, &out), 0);
	CU_ASSERT_STRING_EQUAL(out.subnqn, "testnqn");
}

static const struct ut_case cases[] = {
	UT_CASE(test_entry_bytes),
	UT_CASE(test_entry_build_rejects),
	UT_CASE(test_window_header),
	UT_CASE(test_window_full_and_offsets),
	UT_CASE(test_window_partial),
	UT_CASE(test_window_chunks_match_full),
	UT_CASE(test_window_empty_log),
	UT_CASE(test_parse_round_trip_unaligned),
	UT_CASE(test_parse_refusals),
	UT_CASE(test_parse_space_padding),
	UT_END,
};

UT_MAIN("protocol/disc", cases)
