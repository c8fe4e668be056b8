/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the initiator's discovery log parser on arbitrary buffers (exact-size
 * heap copies, odd alignment), and the target's windowed log read with
 * fuzzed offsets and lengths. Checks: parsed strings are terminated and within
 * their fields; a parsed log rebuilt and read back parses to the same entries;
 * a window read equals the same bytes of the full log.
 */
#include <errno.h>

#include "fuzz.h"
#include "protocol/disc.h"

#define MAX_ENT 8

static void check_reread(const struct rblk_disc_entry_info *ents, size_t n, uint64_t genctr,
			 const uint8_t *sel, size_t sel_len)
{
	static struct nvmf_disc_log_entry built[MAX_ENT];
	static uint8_t full[NVMF_DISC_LOG_HDR_SIZE + MAX_ENT * NVMF_DISC_ENTRY_SIZE + 64];
	static uint8_t win[9000];
	static struct rblk_disc_entry_info again[MAX_ENT];
	struct rblk_disc_log_info hdr;
	size_t count, n_built = 0;
	uint64_t size;

	for (size_t i = 0; i < n; i++) {
		/* Build refuses what cannot round-trip (e.g. 32-char trsvcid): skip those. */
		if (rblk_disc_entry_build(&built[n_built], &ents[i]) == 0)
			n_built++;
	}
	size = rblk_disc_log_size(n_built);
	FUZZ_CHECK(rblk_disc_log_read(full, (uint32_t)size, 0, genctr, built, (uint32_t)n_built) == 0);
	FUZZ_CHECK(rblk_disc_log_parse(full, size, &hdr, again, MAX_ENT, &count) == 0);
	FUZZ_CHECK(count == n_built && hdr.genctr == genctr);

	/* A fuzzed window must equal the same bytes of the full log (zero past its end). */
	if (sel_len >= 4) {
		uint32_t lpo = (uint32_t)(sel[0] | (sel[1] << 8)) & ~3u;
		uint32_t len = (uint32_t)(sel[2] | (sel[3] << 8)) % sizeof(win);
		uint16_t st = rblk_disc_log_read(win, len, lpo, genctr, built, (uint32_t)n_built);

		if (lpo > size) {
			FUZZ_CHECK(st == (NVME_SC_INVALID_FIELD | NVME_SC_DNR));
		} else {
			FUZZ_CHECK(st == 0);
			for (uint32_t i = 0; i < len; i++)
				FUZZ_CHECK(win[i] == (lpo + i < size ? full[lpo + i] : 0));
		}
	}
}

/* A valid 3-entry log: the base of patch mode. */
static size_t valid_log(uint8_t *log)
{
	static struct nvmf_disc_log_entry e[3];
	struct rblk_disc_entry_info info;

	for (unsigned i = 0; i < 3; i++) {
		memset(&info, 0, sizeof(info));
		info.trtype = NVMF_TRTYPE_RDMA;
		info.adrfam = NVMF_ADRFAM_IPV4;
		info.subtype = i ? NVMF_SUBTYPE_NVME : NVMF_SUBTYPE_CURRENT_DISCOVERY;
		info.treq = NVMF_TREQ_DISABLE_SQFLOW;
		strcpy(info.trsvcid, "4420");
		strcpy(info.traddr, "10.99.0.1");
		snprintf(info.subnqn, sizeof(info.subnqn), "nqn.2016-06.io.rblk:s%u", i);
		FUZZ_CHECK(rblk_disc_entry_build(&e[i], &info) == 0);
	}
	FUZZ_CHECK(rblk_disc_log_read(log, (uint32_t)rblk_disc_log_size(3), 0, 3, e, 3) == 0);
	return (size_t)rblk_disc_log_size(3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rblk_disc_entry_info ents[MAX_ENT];
	static uint8_t base[NVMF_DISC_LOG_HDR_SIZE + 3 * NVMF_DISC_ENTRY_SIZE];
	struct rblk_disc_log_info hdr;
	const uint8_t *msg;
	size_t count, len;
	uint8_t *copy;
	int ret;

	if (size < 1)
		return 0;
	/* data[0] bit 1: patch a valid log; else the rest is the raw log. */
	if (data[0] & 2) {
		len = valid_log(base);
		fuzz_patch(base, len, data + 1, size - 1);
		/* Also let the patches shorten the buffer. */
		if (size > 1 && data[1] == 0xFF)
			len = (size_t)(data[size - 1]) * 16;
		msg = base;
	} else {
		len = size - 1;
		msg = data + 1;
	}
	/* Exact-size heap copy, misaligned by one byte when data[0] bit 0 is set. */
	copy = malloc(len + 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy + (data[0] & 1), msg, len);

	ret = rblk_disc_log_parse(copy + (data[0] & 1), len, &hdr, ents, MAX_ENT, &count);
	if (ret == 0) {
		FUZZ_CHECK(count <= MAX_ENT && count == hdr.numrec);
		FUZZ_CHECK(len >= rblk_disc_log_size(count));
		for (size_t i = 0; i < count; i++) {
			FUZZ_CHECK(strlen(ents[i].trsvcid) <= NVMF_TRSVCID_SIZE);
			FUZZ_CHECK(strlen(ents[i].traddr) <= NVMF_TRADDR_SIZE);
			FUZZ_CHECK(strlen(ents[i].subnqn) >= 1 && strlen(ents[i].subnqn) <= NVMF_NQN_SIZE);
		}
		check_reread(ents, count, hdr.genctr, data + 1, size - 1);
	} else {
		FUZZ_CHECK(ret == -EINVAL || ret == -EMSGSIZE || ret == -ENOSPC);
		if (ret == -ENOSPC)
			FUZZ_CHECK(count > MAX_ENT);
	}
	free(copy);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static uint8_t log[NVMF_DISC_LOG_HDR_SIZE + 3 * NVMF_DISC_ENTRY_SIZE];
	size_t len;

	switch (idx) {
	case 0:
		len = valid_log(log);
		return fuzz_seed_raw(buf, max, log, len);
	case 1:
		buf[0] = 2; /* patch mode, no patches */
		return 1;
	case 2:
		buf[0] = 3; /* patch mode, misaligned */
		return 1;
	}
	return 0;
}
