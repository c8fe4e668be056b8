/* SPDX-License-Identifier: MIT */
/*
 * Drives the target's admin command dispatch (target/admin.c through
 * rblk_req_parse) on an enabled NVM controller with a RAM namespace: any
 * SQE, any SGL length, any data, in any order. Besides tgt_exec()'s
 * completion checks: a held command can only be an Asynchronous Event
 * Request, and whatever the stream did, the controller still answers
 * Identify Controller with its own CNTLID or says it is not ready.
 */
#include "protocol/nvme_log.h"
#include "tgt_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[TGT_MAX_DATA];
	struct nvme_id_ctrl id;
	struct tgt_env t;
	struct tgt_rec r;
	uint16_t st;

	FUZZ_CHECK(tgt_env_setup(&t, TGT_ADMIN) == 0);
	for (unsigned n = 0; n < TGT_MAX_CMDS && tgt_next(&data, &size, &r); n++) {
		st = tgt_exec(t.aq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
		if (st == TT_TIMEOUT_STATUS)
			FUZZ_CHECK(r.sqe.opc == NVME_ADMIN_ASYNC_EVENT);
	}
	st = tt_identify(t.aq, NVME_ID_CNS_CTRL, 0, 0, &id);
	if (st == 0)
		FUZZ_CHECK(rblk_le16(id.cntlid) == t.cntlid);
	else
		FUZZ_CHECK(TT_SC(st) == (NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR) ||
			   st == TT_TIMEOUT_STATUS /* every slot held by AERs */);
	tgt_env_teardown(&t);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	struct nvme_identify_cmd id;
	struct nvme_get_log_cmd gl;
	struct nvme_sqe s;
	size_t off = 0;

	switch (idx) {
	case 0: /* Identify: controller, namespace 1, active list, descriptors */
		for (uint8_t cns = 0; cns < 4; cns++) {
			tt_sqe((struct nvme_sqe *)&id, NVME_ADMIN_IDENTIFY, cns, cns == 1 || cns == 3);
			id.cns = cns;
			tgt_seed_rec(buf, max, &off, 0, &id, NULL, NVME_IDENTIFY_DATA_SIZE);
		}
		return off;
	case 1: /* Get Log Page: error, SMART, firmware, changed NS, effects */
	{
		static const uint8_t lids[] = { 1, 2, 3, 4, 5 };

		for (unsigned i = 0; i < sizeof(lids); i++) {
			tt_sqe((struct nvme_sqe *)&gl, NVME_ADMIN_GET_LOG_PAGE, (uint16_t)i, 0xFFFFFFFF);
			gl.lid = lids[i];
			gl.numdl = rblk_cpu_to_le16(512 / 4 - 1);
			tgt_seed_rec(buf, max, &off, 0, &gl, NULL, 512);
		}
		return off;
	}
	case 2: /* Set / Get Features: number of queues, KATO, async event config */
		tt_sqe(&s, NVME_ADMIN_SET_FEATURES, 1, 0);
		s.cdw10 = rblk_cpu_to_le32(NVME_FEAT_NUM_QUEUES);
		s.cdw11 = rblk_cpu_to_le32(0x00030003);
		tgt_seed_rec(buf, max, &off, 0, &s, NULL, 0);
		tt_sqe(&s, NVME_ADMIN_GET_FEATURES, 2, 0);
		s.cdw10 = rblk_cpu_to_le32(NVME_FEAT_KATO);
		tgt_seed_rec(buf, max, &off, 0, &s, NULL, 0);
		tt_sqe(&s, NVME_ADMIN_SET_FEATURES, 3, 0);
		s.cdw10 = rblk_cpu_to_le32(NVME_FEAT_ASYNC_EVENT);
		s.cdw11 = rblk_cpu_to_le32(0x100);
		tgt_seed_rec(buf, max, &off, 0, &s, NULL, 0);
		return off;
	case 3: /* Keep Alive, Abort, AER, then Identify */
		tt_sqe(&s, NVME_ADMIN_KEEP_ALIVE, 1, 0);
		tgt_seed_rec(buf, max, &off, 0, &s, NULL, 0);
		tt_sqe(&s, NVME_ADMIN_ABORT, 2, 0);
		tgt_seed_rec(buf, max, &off, 0, &s, NULL, 0);
		tt_sqe(&s, NVME_ADMIN_ASYNC_EVENT, 3, 0);
		tgt_seed_rec(buf, max, &off, 0, &s, NULL, 0);
		return off;
	default:
		return 0;
	}
}
