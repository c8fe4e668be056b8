/* SPDX-License-Identifier: MIT */
/*
 * Drives a discovery controller's command dispatch (target/discovery.c)
 * with any SQEs: Get Log Page windows of the discovery log, Identify, and
 * everything a discovery controller must refuse. Beyond tgt_exec()'s checks:
 * a discovery log header read at offset 0 counts exactly what this port
 * exports to the host (its own entry and 2 subsystems; commands cannot
 * change that), and GENCTR never goes back.
 */
#include "protocol/disc.h"
#include "tgt_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[TGT_MAX_DATA];
	uint64_t genctr = 0;
	struct tgt_env t;
	struct tgt_rec r;

	FUZZ_CHECK(tgt_env_setup(&t, TGT_DISCOVERY) == 0);
	for (unsigned n = 0; n < TGT_MAX_CMDS && tgt_next(&data, &size, &r); n++) {
		const struct nvme_get_log_cmd *gl = (const void *)&r.sqe;
		struct nvmf_disc_log_hdr hdr;
		uint16_t st;

		st = tgt_exec(t.aq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
		if (st || r.sqe.opc != NVME_ADMIN_GET_LOG_PAGE || gl->lid != NVME_LOG_DISC ||
		    gl->lpol || gl->lpou || r.len < sizeof(hdr))
			continue;
		memcpy(&hdr, out, sizeof(hdr));
		FUZZ_CHECK(rblk_le64(hdr.numrec) == 3);
		FUZZ_CHECK(rblk_le64(hdr.genctr) >= genctr);
		genctr = rblk_le64(hdr.genctr);
	}
	tgt_env_teardown(&t);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	struct nvme_get_log_cmd gl;
	struct nvme_identify_cmd id;
	size_t off = 0;

	switch (idx) {
	case 0: /* the header, then the whole log (libnvme's two reads) */
		tt_sqe((struct nvme_sqe *)&gl, NVME_ADMIN_GET_LOG_PAGE, 1, 0);
		gl.lid = NVME_LOG_DISC;
		gl.lsp = 0x80; /* RAE */
		gl.numdl = rblk_cpu_to_le16(1024 / 4 - 1);
		tgt_seed_rec(buf, max, &off, 0, &gl, NULL, 1024);
		gl.cid = 2;
		gl.lsp = 0;
		gl.numdl = rblk_cpu_to_le16(3072 / 4 - 1);
		tgt_seed_rec(buf, max, &off, 0, &gl, NULL, 3072);
		return off;
	case 1: /* a window in the middle of an entry */
		tt_sqe((struct nvme_sqe *)&gl, NVME_ADMIN_GET_LOG_PAGE, 1, 0);
		gl.lid = NVME_LOG_DISC;
		gl.numdl = rblk_cpu_to_le16(256 / 4 - 1);
		gl.lpol = rblk_cpu_to_le32(1024 + 512);
		tgt_seed_rec(buf, max, &off, 0, &gl, NULL, 256);
		return off;
	case 2: /* Identify Controller, then an I/O opcode it must refuse */
		tt_sqe((struct nvme_sqe *)&id, NVME_ADMIN_IDENTIFY, 1, 0);
		id.cns = NVME_ID_CNS_CTRL;
		tgt_seed_rec(buf, max, &off, 0, &id, NULL, NVME_IDENTIFY_DATA_SIZE);
		tt_sqe((struct nvme_sqe *)&id, NVME_ADMIN_SET_FEATURES, 2, 0);
		tgt_seed_rec(buf, max, &off, 0, &id, NULL, 0);
		return off;
	default:
		return 0;
	}
}
