/* SPDX-License-Identifier: MIT */
/*
 * Drives the initiator's discovery log reader (initiator/disc_log.c) with a
 * target that serves a log from the input and may change it between reads
 * or fail a read, then parses what was fetched into entries; the raw input
 * is parsed as a log too. Checks: every read the host asks for is a
 * 4-byte-multiple window of at most 4 KiB; a fetched log is exactly header
 * + NUMREC entries; parsed entries are no more than NUMREC and every string
 * is terminated within its field.
 *
 * Input: [change-after u8][fail-at u8][log image...] (zero past the end).
 */
#include <errno.h>

#include "fuzz.h"
#include "initiator/disc_log.h"
#include "protocol/disc.h"

struct server {
	const uint8_t *img;
	size_t len;
	unsigned reads, change_after, fail_at;
	uint64_t bump;   /* added to GENCTR once change_after reads happened */
};

static int serve(void *ctx, uint64_t lpo, void *buf, uint32_t len, bool rae, uint16_t *status)
{
	struct server *s = ctx;
	uint8_t *b = buf;

	(void)rae;
	FUZZ_CHECK(len && len <= RBLK_DISC_CHUNK && len % 4 == 0 && lpo % 4 == 0);
	if (++s->reads == s->fail_at) {
		if (status)
			*status = 0x4002; /* Invalid Field, DNR */
		return -EREMOTEIO;
	}
	for (uint32_t i = 0; i < len; i++)
		b[i] = lpo + i < s->len ? s->img[lpo + i] : 0;
	if (lpo == 0 && len >= 8 && s->reads > s->change_after) {
		uint64_t g;

		memcpy(&g, b, 8);
		g = rblk_cpu_to_le64(rblk_le64(g) + s->bump);
		memcpy(b, &g, 8);
	}
	return 0;
}

static void check_entries(const void *log, size_t len, bool all)
{
	struct rblk_disc_entry *e = NULL;
	uint64_t genctr = 0, numrec;
	unsigned n = 0;

	if (rblk_disc_log_entries(log, len, all, &e, &n, &genctr)) {
		FUZZ_CHECK(e == NULL && n == 0);
		return;
	}
	FUZZ_CHECK(len >= 16);
	memcpy(&numrec, (const uint8_t *)log + 8, 8);
	FUZZ_CHECK(n <= rblk_le64(numrec));
	FUZZ_CHECK((n == 0) == (e == NULL));
	for (unsigned i = 0; i < n; i++) {
		FUZZ_CHECK(strnlen(e[i].traddr, sizeof(e[i].traddr)) < sizeof(e[i].traddr));
		FUZZ_CHECK(strnlen(e[i].trsvcid, sizeof(e[i].trsvcid)) < sizeof(e[i].trsvcid));
		FUZZ_CHECK(strnlen(e[i].subnqn, sizeof(e[i].subnqn)) < sizeof(e[i].subnqn));
		FUZZ_CHECK(all || e[i].subtype != NVMF_SUBTYPE_CURRENT_DISCOVERY);
	}
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct server s = { 0 };
	uint16_t status = 0;
	size_t len = 0;
	void *log = NULL;
	int ret;

	if (size < 2)
		return 0;
	s.change_after = data[0] & 0x7F;
	s.bump = data[0] >> 7;
	s.fail_at = data[1];
	s.img = data + 2;
	s.len = size - 2;
	ret = rblk_disc_log_fetch(serve, &s, 3, &log, &len, &status);
	if (ret == 0) {
		uint64_t numrec;

		memcpy(&numrec, (uint8_t *)log + 8, 8);
		FUZZ_CHECK(rblk_le64(numrec) <= RBLK_DISC_MAX_RECORDS);
		FUZZ_CHECK(len == NVMF_DISC_LOG_HDR_SIZE + rblk_le64(numrec) * NVMF_DISC_ENTRY_SIZE);
		check_entries(log, len, data[1] & 1);
		free(log);
	} else {
		FUZZ_CHECK(log == NULL);
		FUZZ_CHECK(ret == -EREMOTEIO || ret == -EBADMSG || ret == -EAGAIN);
		if (ret == -EREMOTEIO)
			FUZZ_CHECK(status == 0x4002);
	}
	check_entries(s.img, s.len, true);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static uint8_t log[NVMF_DISC_LOG_HDR_SIZE + 2 * NVMF_DISC_ENTRY_SIZE];
	struct nvmf_disc_log_hdr *h = (void *)log;

	if (idx > 2 || 2 + sizeof(log) > max)
		return 0;
	memset(log, 0, sizeof(log));
	h->genctr = rblk_cpu_to_le64(5);
	h->numrec = rblk_cpu_to_le64(2);
	for (int i = 0; i < 2; i++) {
		struct nvmf_disc_log_entry *e =
			(void *)(log + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_ENTRY_SIZE);

		e->trtype = NVMF_TRTYPE_RDMA;
		e->adrfam = NVMF_ADRFAM_IPV4;
		e->subtype = i ? NVMF_SUBTYPE_NVME : NVMF_SUBTYPE_CURRENT_DISCOVERY;
		e->portid = rblk_cpu_to_le16(1);
		e->cntlid = rblk_cpu_to_le16(0xFFFF);
		e->asqsz = rblk_cpu_to_le16(32);
		memcpy(e->trsvcid, "4420", 4);
		memcpy(e->traddr, "10.99.0.1", 9);
		snprintf(e->subnqn, sizeof(e->subnqn), "%s",
			 i ? "nqn.2024-01.org.example:disk0" : "nqn.2014-08.org.nvmexpress.discovery");
	}
	buf[0] = idx == 1 ? 0x81 : 0x7F; /* seed 1: GENCTR moves after the first read */
	buf[1] = idx == 2 ? 2 : 0;       /* seed 2: the second read fails */
	memcpy(buf + 2, log, sizeof(log));
	return 2 + sizeof(log);
}
