/* SPDX-License-Identifier: MIT */
/*
 * Fuzz rblk_connect_decode() on a Connect SQE + 1024-byte data. Checks: every
 * failure has DNR and a DW0 only for Invalid Parameters; an accepted Connect
 * has valid, terminated NQNs and survives encode -> decode unchanged.
 */
#include "fuzz.h"
#include "protocol/connect.h"
#include "protocol/nqn.h"

#define MSG_LEN (sizeof(struct nvmf_connect_cmd) + sizeof(struct nvmf_connect_data))

static void make_valid(uint8_t *msg, uint16_t qid)
{
	struct rblk_connect_info in;
	struct nvmf_connect_cmd cmd;
	struct nvmf_connect_data d;

	memset(&in, 0, sizeof(in));
	in.qid = qid;
	in.sqsize = qid ? 127 : 31;
	in.kato_ms = qid ? 0 : 5000;
	in.cntlid = qid ? 1 : 0xFFFF;
	strcpy(in.subnqn, "nqn.2016-06.io.rblk:sub1");
	strcpy(in.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
	FUZZ_CHECK(rblk_connect_encode(&in, 7, &cmd, &d) == 0);
	memcpy(msg, &cmd, sizeof(cmd));
	memcpy(msg + sizeof(cmd), &d, sizeof(d));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t msg[MSG_LEN];
	static struct nvmf_connect_cmd cmd, cmd2;
	static struct nvmf_connect_data d, d2;
	static struct rblk_connect_info info, info2;
	uint32_t dw0, dw0b;
	uint16_t st;

	if (size < 1)
		return 0;
	memset(msg, 0, sizeof(msg));
	if (data[0] & 1) {
		make_valid(msg, (data[0] >> 1) & 1);
		fuzz_patch(msg, sizeof(msg), data + 1, size - 1);
	} else {
		memcpy(msg, data + 1, size - 1 < sizeof(msg) ? size - 1 : sizeof(msg));
	}
	memcpy(&cmd, msg, sizeof(cmd));
	memcpy(&d, msg + sizeof(cmd), sizeof(d));

	st = rblk_connect_decode(&cmd, &d, &info, &dw0);
	if (st) {
		FUZZ_CHECK(st & NVME_SC_DNR);
		if ((st & NVME_STATUS_CODE_MASK) == NVME_SC_CONNECT_INVALID_PARAM)
			FUZZ_CHECK(dw0 == 0x2C || dw0 == 0x10010 || dw0 == 0x10100 || dw0 == 0x10200);
		else
			FUZZ_CHECK(dw0 == 0);
		return 0;
	}
	FUZZ_CHECK(dw0 == 0);
	/* Accepted NQNs are terminated and 1..223 bytes (the form is not checked). */
	FUZZ_CHECK(strlen(info.subnqn) >= 1 && strlen(info.subnqn) <= NVMF_NQN_SIZE);
	FUZZ_CHECK(strlen(info.hostnqn) >= 1 && strlen(info.hostnqn) <= NVMF_NQN_SIZE);
	FUZZ_CHECK(info.sqsize != 0);
	FUZZ_CHECK(info.qid != 0 || info.cntlid == 0xFFFF);

	FUZZ_CHECK(rblk_connect_encode(&info, 1, &cmd2, &d2) == 0);
	FUZZ_CHECK(rblk_connect_decode(&cmd2, &d2, &info2, &dw0b) == 0);
	FUZZ_CHECK(memcmp(&info, &info2, sizeof(info)) == 0);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static uint8_t msg[MSG_LEN];

	if (idx > 3 || max < MSG_LEN + 1)
		return 0;
	if (idx >= 2) {
		buf[0] = (uint8_t)(1 | ((idx & 1) << 1)); /* patch mode, no patches */
		return 1;
	}
	make_valid(msg, (uint16_t)idx);
	return fuzz_seed_raw(buf, max, msg, sizeof(msg));
}
