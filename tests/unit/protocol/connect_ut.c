/* SPDX-License-Identifier: MIT */
/*
 * Tests for protocol/connect.c: the encoded bytes, each validation rule with
 * the status and DW0 (IATTR/IPO) nvmet reports, and round trips.
 */
#include <errno.h>
#include <string.h>

#include "protocol/connect.h"
#include "protocol/nqn.h"
#include "ut.h"

#define SUBNQN "nqn.2016-06.io.rblk:sub1"
#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"

static struct nvmf_connect_cmd cmd;
static struct nvmf_connect_data data;

static void make(uint16_t qid, uint16_t sqsize, uint16_t cntlid)
{
	struct rblk_connect_info in;

	memset(&in, 0, sizeof(in));
	in.qid = qid;
	in.sqsize = sqsize;
	in.kato_ms = qid ? 0 : 5000;
	in.cntlid = cntlid;
	for (int i = 0; i < 16; i++)
		in.hostid[i] = (uint8_t)(0xA0 + i);
	strcpy(in.subnqn, SUBNQN);
	strcpy(in.hostnqn, HOSTNQN);
	CU_ASSERT_FATAL(rblk_connect_encode(&in, 0x1234, &cmd, &data) == 0);
}

static void test_encode_bytes(void)
{
	const uint8_t *c = (const uint8_t *)&cmd;
	const uint8_t *d = (const uint8_t *)&data;

	make(0, 31, 0xFFFF);
	CU_ASSERT_EQUAL(c[0], 0x7F);
	CU_ASSERT_EQUAL(c[1], 0x40);
	CU_ASSERT_EQUAL(c[2], 0x34);
	CU_ASSERT_EQUAL(c[3], 0x12);
	CU_ASSERT_EQUAL(c[4], 0x01);
	CU_ASSERT_EQUAL(c[39], 0x40); /* null keyed SGL until the caller sets it */
	CU_ASSERT_EQUAL(c[40], 0);
	CU_ASSERT_EQUAL(c[41], 0);
	CU_ASSERT_EQUAL(c[42], 0);
	CU_ASSERT_EQUAL(c[43], 0);
	CU_ASSERT_EQUAL(c[44], 31);
	CU_ASSERT_EQUAL(c[45], 0);
	CU_ASSERT_EQUAL(c[46], 0);
	CU_ASSERT_EQUAL(c[48], 0x88); /* 5000 = 0x1388 */
	CU_ASSERT_EQUAL(c[49], 0x13);
	CU_ASSERT_EQUAL(c[50], 0);
	CU_ASSERT_EQUAL(c[51], 0);
	for (int i = 52; i < 64; i++)
		CU_ASSERT_EQUAL(c[i], 0);

	CU_ASSERT_EQUAL(d[0], 0xA0);
	CU_ASSERT_EQUAL(d[15], 0xAF);
	CU_ASSERT_EQUAL(d[16], 0xFF);
	CU_ASSERT_EQUAL(d[17], 0xFF);
	CU_ASSERT_EQUAL(memcmp(d + 256, SUBNQN, sizeof(SUBNQN)), 0);
	CU_ASSERT_EQUAL(memcmp(d + 512, HOSTNQN, sizeof(HOSTNQN)), 0);
	CU_ASSERT_EQUAL(d[511], 0);
	CU_ASSERT_EQUAL(d[767], 0);
}

static void test_decode_admin_round_trip(void)
{
	struct rblk_connect_info info;
	uint32_t dw0 = 0xDEAD;

	make(0, 31, 0xFFFF);
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(info.qid, 0);
	CU_ASSERT_EQUAL(info.sqsize, 31);
	CU_ASSERT_EQUAL(info.kato_ms, 5000);
	CU_ASSERT_EQUAL(info.cntlid, 0xFFFF);
	CU_ASSERT_EQUAL(info.hostid[0], 0xA0);
	CU_ASSERT_EQUAL(info.hostid[15], 0xAF);
	CU_ASSERT_STRING_EQUAL(info.subnqn, SUBNQN);
	CU_ASSERT_STRING_EQUAL(info.hostnqn, HOSTNQN);
}

static void test_decode_io_queue(void)
{
	struct rblk_connect_info info;
	uint32_t dw0;

	make(4, 127, 7);
	cmd.cattr = NVMF_CATTR_DISABLE_SQFLOW;
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(info.qid, 4);
	CU_ASSERT_EQUAL(info.sqsize, 127);
	CU_ASSERT_EQUAL(info.cntlid, 7);
	CU_ASSERT_EQUAL(info.cattr, NVMF_CATTR_DISABLE_SQFLOW);
	CU_ASSERT_EQUAL(info.kato_ms, 0);
}

static void test_recfmt(void)
{
	struct rblk_connect_info info;
	uint32_t dw0 = 1;

	make(0, 31, 0xFFFF);
	cmd.recfmt = rblk_cpu_to_le16(1);
	data.cntlid = 0; /* also wrong: format is reported first, like nvmet */
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4180);
	CU_ASSERT_EQUAL(dw0, 0);
}

static void test_admin_cntlid(void)
{
	struct rblk_connect_info info;
	uint32_t dw0;

	make(0, 31, 1);
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(dw0, 0x00010010);
}

static void test_subnqn(void)
{
	struct rblk_connect_info info;
	uint32_t dw0;

	make(0, 31, 0xFFFF);
	memset(data.subnqn, 'a', sizeof(data.subnqn)); /* unterminated */
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4182);
	CU_ASSERT_EQUAL(dw0, 0x00010100);

	/* Not of the nqn.yyyy-mm form, but nvmet accepts it and so do we. */
	make(0, 31, 0xFFFF);
	strcpy(data.subnqn, "testnqn");
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), NVME_SC_SUCCESS);
	CU_ASSERT_STRING_EQUAL(info.subnqn, "testnqn");

	/* 224 bytes, terminated: longer than any NQN may be. */
	make(0, 31, 0xFFFF);
	memset(data.subnqn, 's', 224);
	data.subnqn[224] = 0;
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4182);
	CU_ASSERT_EQUAL(dw0, 0x00010100);

	make(0, 31, 0xFFFF);
	memset(data.subnqn, 0, sizeof(data.subnqn)); /* empty */
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4182);
	CU_ASSERT_EQUAL(dw0, 0x00010100);

	/* The discovery NQN is a valid SUBNQN. */
	make(0, 31, 0xFFFF);
	rblk_nqn_copy_field(data.subnqn, NVME_DISC_SUBSYS_NAME);
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), NVME_SC_SUCCESS);
	CU_ASSERT_STRING_EQUAL(info.subnqn, NVME_DISC_SUBSYS_NAME);
}

static void test_hostnqn(void)
{
	struct rblk_connect_info info;
	uint32_t dw0;

	make(0, 31, 0xFFFF);
	memset(data.hostnqn, 'h', sizeof(data.hostnqn));
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4182);
	CU_ASSERT_EQUAL(dw0, 0x00010200);

	make(0, 31, 0xFFFF);
	memset(data.hostnqn, 0, sizeof(data.hostnqn)); /* empty */
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4182);
	CU_ASSERT_EQUAL(dw0, 0x00010200);

	make(0, 31, 0xFFFF);
	strcpy(data.hostnqn, "testhost");
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), NVME_SC_SUCCESS);
}

static void test_sqsize_zero(void)
{
	struct rblk_connect_info info;
	uint32_t dw0;

	make(1, 1, 3);
	cmd.sqsize = 0;
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0), 0x4182);
	CU_ASSERT_EQUAL(dw0, 0x0000002C);
}

static void test_not_connect(void)
{
	struct rblk_connect_info info;
	uint32_t dw0;

	make(0, 31, 0xFFFF);
	cmd.fctype = NVMF_FCTYPE_PROP_GET;
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	make(0, 31, 0xFFFF);
	cmd.opc = 0x06;
	CU_ASSERT_EQUAL(rblk_connect_decode(&cmd, &data, &info, &dw0),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
}

static void test_encode_rejects(void)
{
	struct rblk_connect_info in;

	memset(&in, 0, sizeof(in));
	in.sqsize = 31;
	strcpy(in.subnqn, SUBNQN);
	memset(in.hostnqn, 'x', 224); /* one byte over the NQN limit */
	CU_ASSERT_EQUAL(rblk_connect_encode(&in, 1, &cmd, &data), -EINVAL);
	in.hostnqn[223] = 0;
	CU_ASSERT_EQUAL(rblk_connect_encode(&in, 1, &cmd, &data), 0);
	in.sqsize = 0;
	CU_ASSERT_EQUAL(rblk_connect_encode(&in, 1, &cmd, &data), -EINVAL);
}

static const struct ut_case cases[] = {
	UT_CASE(test_encode_bytes),
	UT_CASE(test_decode_admin_round_trip),
	UT_CASE(test_decode_io_queue),
	UT_CASE(test_recfmt),
	UT_CASE(test_admin_cntlid),
	UT_CASE(test_subnqn),
	UT_CASE(test_hostnqn),
	UT_CASE(test_sqsize_zero),
	UT_CASE(test_not_connect),
	UT_CASE(test_encode_rejects),
	UT_END,
};

UT_MAIN("protocol/connect", cases)
