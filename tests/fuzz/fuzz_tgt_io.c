/* SPDX-License-Identifier: MIT */
/*
 * Drives the target's I/O command dispatch (target/io.c) on I/O queue 1 of
 * an enabled controller over a 256 KiB RAM namespace; records with sel bit 0
 * set go to the admin queue instead (so CC and features change under the
 * I/O). Beyond tgt_exec()'s checks, a shadow copy of the namespace: a Read
 * that succeeds returns what the last successful Write or Write Zeroes put
 * there (blocks a DSM deallocated, or a failed write touched, are unknown).
 */
#include "tgt_env.h"

#define BS 512u
#define NBLOCKS (256u * 1024 / BS)

static uint8_t shadow[NBLOCKS * BS];
static bool known[NBLOCKS];

static void mark(uint64_t slba, uint64_t nlb, const uint8_t *data)
{
	for (uint64_t b = slba; b < slba + nlb && b < NBLOCKS; b++) {
		known[b] = data != NULL;
		if (data)
			memcpy(shadow + b * BS, data + (b - slba) * BS, BS);
	}
}

static void track(const struct tgt_rec *r, uint16_t st, const uint8_t *out)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)&r->sqe;
	uint64_t slba = rblk_le64(c->slba), nlb = (uint64_t)rblk_le16(c->nlb) + 1;
	static const uint8_t zero[NBLOCKS * BS];

	if (rblk_le32(c->nsid) != 1 || slba >= NBLOCKS)
		return;
	switch (c->opc) {
	case NVME_IO_WRITE:
		mark(slba, nlb, st ? NULL : r->data);
		break;
	case NVME_IO_WRITE_ZEROES:
		mark(slba, nlb, st ? NULL : zero);
		break;
	case NVME_IO_DSM:
		for (uint32_t i = 0; i <= (rblk_le32(r->sqe.cdw10) & 0xFF) && (i + 1) * 16 <= r->len;
		     i++) {
			struct nvme_dsm_range d;

			memcpy(&d, r->data + i * 16, sizeof(d));
			if (rblk_le64(d.slba) < NBLOCKS)
				mark(rblk_le64(d.slba), rblk_le32(d.nlb), NULL);
		}
		break;
	case NVME_IO_READ:
		if (st)
			break;
		for (uint64_t b = slba; b < slba + nlb && b < NBLOCKS; b++)
			if (known[b])
				FUZZ_CHECK(!memcmp(out + (b - slba) * BS, shadow + b * BS, BS));
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[TGT_MAX_DATA];
	struct tgt_env t;
	struct tgt_rec r;

	memset(shadow, 0, sizeof(shadow));
	for (unsigned b = 0; b < NBLOCKS; b++)
		known[b] = true; /* a RAM namespace starts zeroed */
	FUZZ_CHECK(tgt_env_setup(&t, TGT_IO) == 0);
	for (unsigned n = 0; n < TGT_MAX_CMDS && tgt_next(&data, &size, &r); n++) {
		uint16_t st;

		if (r.sel & 1) {
			tgt_exec(t.aq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
			continue;
		}
		memset(out, 0x5A, sizeof(out));
		st = tgt_exec(t.iq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
		FUZZ_CHECK(st != TT_TIMEOUT_STATUS); /* I/O is never held */
		track(&r, st, out);
	}
	tgt_env_teardown(&t);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static uint8_t pat[4096];
	struct nvme_rw_cmd c;
	struct nvme_dsm_range d = { 0 };
	size_t off = 0;

	for (unsigned i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + idx);
	switch (idx) {
	case 0: /* write 8 blocks, read them back, flush */
		tt_rw_sqe(&c, NVME_IO_WRITE, 1, 1, 16, 8);
		tgt_seed_rec(buf, max, &off, 0, &c, pat, 4096);
		tt_rw_sqe(&c, NVME_IO_READ, 2, 1, 16, 8);
		tgt_seed_rec(buf, max, &off, 0, &c, NULL, 4096);
		tt_sqe((struct nvme_sqe *)&c, NVME_IO_FLUSH, 3, 1);
		tgt_seed_rec(buf, max, &off, 0, &c, NULL, 0);
		return off;
	case 1: /* FUA write, write zeroes, read across both */
		tt_rw_sqe(&c, NVME_IO_WRITE, 1, 1, 0, 2);
		c.control = rblk_cpu_to_le16(1u << 14);
		tgt_seed_rec(buf, max, &off, 0, &c, pat, 1024);
		tt_rw_sqe(&c, NVME_IO_WRITE_ZEROES, 2, 1, 1, 4);
		tgt_seed_rec(buf, max, &off, 0, &c, NULL, 0);
		tt_rw_sqe(&c, NVME_IO_READ, 3, 1, 0, 8);
		tgt_seed_rec(buf, max, &off, 0, &c, NULL, 4096);
		return off;
	case 2: /* DSM deallocate of one range, then read it */
		tt_sqe((struct nvme_sqe *)&c, NVME_IO_DSM, 1, 1);
		((struct nvme_sqe *)&c)->cdw11 = rblk_cpu_to_le32(4); /* AD */
		d.nlb = rblk_cpu_to_le32(8);
		d.slba = rblk_cpu_to_le64(32);
		tgt_seed_rec(buf, max, &off, 0, &c, &d, sizeof(d));
		tt_rw_sqe(&c, NVME_IO_READ, 2, 1, 32, 8);
		tgt_seed_rec(buf, max, &off, 0, &c, NULL, 4096);
		return off;
	case 3: /* disable the controller on the admin queue, then read */
	{
		struct nvmf_property_set_cmd p;

		tt_fabrics_sqe((struct nvme_sqe *)&p, NVMF_FCTYPE_PROP_SET, 1);
		p.attrib = NVMF_PROP_SIZE_4;
		p.ofst = rblk_cpu_to_le32(NVME_REG_CC);
		p.value = rblk_cpu_to_le64(0x00460000);
		tgt_seed_rec(buf, max, &off, 1, &p, NULL, 0);
		tt_rw_sqe(&c, NVME_IO_READ, 2, 1, 0, 1);
		tgt_seed_rec(buf, max, &off, 0, &c, NULL, 512);
		return off;
	}
	default:
		return 0;
	}
}
