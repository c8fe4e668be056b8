/* SPDX-License-Identifier: MIT */
/*
 * Drives the fabrics commands of a fresh admin queue and of I/O queue 1
 * (target/fabrics.c, target/ctrl.c): Connect in any shape, then Property
 * Get/Set sequences that enable, disable, shut down and re-enable the
 * controller. The record's sel picks what it is (bits 1:0):
 *   0  the record's SQE and data, raw, on the admin queue
 *   1  a well-formed admin Connect (SQSIZE and KATO from the SQE's bytes)
 *   2  Property Set CC with the value in the SQE's first 4 bytes
 *   3  the record's SQE and data, raw, on I/O queue 1
 * After each accepted CC write, CC and CSTS are read back: RDY only with
 * CC.EN, never RDY with CFS; EN written 0 clears RDY; a new shutdown
 * request reports not ready, and shutdown processing or complete, then
 * complete once the namespaces are synced; EN 0 -> 1 without
 * shutdown ends in RDY or CFS. An I/O queue connects only to a ready
 * controller.
 */
#include "tgt_env.h"

static uint16_t prop_get(struct tgt_env *t, uint32_t ofst, uint32_t *val)
{
	uint64_t v = 0;
	uint16_t st = tt_prop_get(t->aq, ofst, false, &v);

	*val = (uint32_t)v;
	return st;
}

static void cc_write(struct tgt_env *t, uint32_t cc)
{
	uint32_t old_cc, old_csts, new_cc, csts;

	if (prop_get(t, NVME_REG_CC, &old_cc) || prop_get(t, NVME_REG_CSTS, &old_csts))
		return; /* not connected yet: the write must fail too */
	FUZZ_CHECK(tt_prop_set(t->aq, NVME_REG_CC, cc) == 0);
	FUZZ_CHECK(prop_get(t, NVME_REG_CC, &new_cc) == 0);
	FUZZ_CHECK(prop_get(t, NVME_REG_CSTS, &csts) == 0);
	if (csts & NVME_CSTS_RDY) {
		FUZZ_CHECK(new_cc & NVME_CC_EN);
		FUZZ_CHECK(!(csts & NVME_CSTS_CFS));
	}
	if (!(cc & NVME_CC_EN))
		FUZZ_CHECK(!(csts & NVME_CSTS_RDY));
	if (NVME_CC_SHN(cc) && !NVME_CC_SHN(old_cc)) {
		uint64_t v;

		FUZZ_CHECK(!(csts & NVME_CSTS_RDY));
		/* Processing while the namespaces are synced, then complete. */
		FUZZ_CHECK(NVME_CSTS_SHST(csts) == NVME_CSTS_SHST_OCCUR ||
			   NVME_CSTS_SHST(csts) == NVME_CSTS_SHST_CMPLT);
		FUZZ_CHECK(tt_wait_shutdown(t->aq, &v) == 0);
		FUZZ_CHECK(NVME_CSTS_SHST(v) == NVME_CSTS_SHST_CMPLT && !(v & NVME_CSTS_RDY));
	} else if ((cc & NVME_CC_EN) && !(old_cc & NVME_CC_EN)) {
		FUZZ_CHECK(!!(csts & NVME_CSTS_RDY) != !!(csts & NVME_CSTS_CFS));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[TGT_MAX_DATA];
	struct tgt_env t;
	struct tgt_rec r;

	FUZZ_CHECK(tgt_env_setup(&t, TGT_NOTHING) == 0);
	t.iq = tt_queue_create(t.env, 1, 0);
	FUZZ_CHECK(t.iq != NULL);
	for (unsigned n = 0; n < TGT_MAX_CMDS && tgt_next(&data, &size, &r); n++) {
		const uint8_t *b = (const uint8_t *)&r.sqe;
		uint32_t csts = 0;
		uint16_t st;

		switch (r.sel & 3) {
		case 0:
			tgt_exec(t.aq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
			break;
		case 1:
			tt_connect(t.aq, TT_SUBNQN, TT_HOSTNQN, 0, (uint16_t)(b[0] | b[1] << 8),
				   0xFFFF, (uint32_t)(b[2] | b[3] << 8), 0, NULL);
			break;
		case 2:
			cc_write(&t, (uint32_t)(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24));
			break;
		case 3:
			if (t.aq->sq.ctrl && prop_get(&t, NVME_REG_CSTS, &csts))
				csts = 0;
			st = tgt_exec(t.iq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
			if (!st && t.iq->sq.state == RBLK_SQ_LIVE && r.sqe.opc == NVME_ADMIN_FABRICS)
				FUZZ_CHECK(csts & NVME_CSTS_RDY);
			break;
		}
	}
	tgt_env_teardown(&t);
	return 0;
}

static void connect_rec(uint8_t *buf, size_t max, size_t *off, uint8_t sel, uint16_t qid,
			uint16_t sqsize, uint16_t cntlid)
{
	struct nvmf_connect_data d;
	struct nvmf_connect_cmd c;

	tt_fabrics_sqe((struct nvme_sqe *)&c, NVMF_FCTYPE_CONNECT, 1);
	c.qid = rblk_cpu_to_le16(qid);
	c.sqsize = rblk_cpu_to_le16(sqsize);
	memset(&d, 0, sizeof(d));
	for (int i = 0; i < 16; i++)
		d.hostid[i] = (uint8_t)(0xA0 + i); /* tt_env_create()'s host ID */
	d.cntlid = rblk_cpu_to_le16(cntlid);
	snprintf(d.subnqn, sizeof(d.subnqn), "%s", TT_SUBNQN);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", TT_HOSTNQN);
	tgt_seed_rec(buf, max, off, sel, &c, &d, sizeof(d));
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	struct nvme_sqe s;
	size_t off = 0;
	/* CC values: EN with 64/16-byte entries, EN 0, shutdown (normal), re-enable */
	static const uint32_t ccs[] = { 0x00460001, 0x00460000, 0x00464001, 0x00460001 };

	memset(&s, 0, sizeof(s));
	switch (idx) {
	case 0: /* connect, enable, shutdown, enable again */
		((uint8_t *)&s)[0] = 31;
		((uint8_t *)&s)[2] = 0x88;
		((uint8_t *)&s)[3] = 0x13; /* KATO 5000 */
		tgt_seed_rec(buf, max, &off, 1, &s, NULL, 0);
		for (unsigned i = 0; i < 4; i++) {
			memcpy(&s, &ccs[i], 4);
			tgt_seed_rec(buf, max, &off, 2, &s, NULL, 0);
		}
		return off;
	case 1: /* connect, enable, then I/O queue 1 (controller 1, the first one) */
		((uint8_t *)&s)[0] = 31;
		tgt_seed_rec(buf, max, &off, 1, &s, NULL, 0);
		memcpy(&s, &ccs[0], 4);
		tgt_seed_rec(buf, max, &off, 2, &s, NULL, 0);
		connect_rec(buf, max, &off, 3, 1, 127, 1);
		return off;
	case 2: /* a raw admin Connect with its data, then an I/O Connect before enable */
		connect_rec(buf, max, &off, 0, 0, 31, 0xFFFF);
		connect_rec(buf, max, &off, 3, 1, 127, 1);
		return off;
	default:
		return 0;
	}
}
