/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the remaining admin/fabrics SQE decoders: Property Get/Set and Get Log
 * Page, plus the windowed read of an in-memory log with the decoded offset and
 * length. Checks: failures carry DNR and an error location; accepted property
 * accesses have the size of their property; log windows match the log.
 */
#include "fuzz.h"
#include "protocol/log_pages.h"
#include "protocol/props.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t log[512], win[4096];
	struct nvmf_property_get_cmd get;
	struct nvmf_property_set_cmd set;
	struct nvme_get_log_cmd glp;
	struct rblk_get_log_info info;
	uint8_t msg[64];
	uint32_t ofst, value;
	unsigned psize;
	uint16_t loc, st;

	if (size < 1)
		return 0;
	memset(msg, 0, sizeof(msg));
	if (data[0] & 1) {
		msg[0] = 0x7F;
		msg[1] = 0x40;
		msg[40] = NVMF_PROP_SIZE_8;
		fuzz_patch(msg, sizeof(msg), data + 1, size - 1);
	} else {
		memcpy(msg, data + 1, size - 1 < sizeof(msg) ? size - 1 : sizeof(msg));
	}
	memcpy(&get, msg, sizeof(get));
	memcpy(&set, msg, sizeof(set));
	memcpy(&glp, msg, sizeof(glp));

	st = rblk_prop_get_decode(&get, &ofst, &psize, &loc);
	if (st)
		FUZZ_CHECK((st & NVME_SC_DNR) && (loc == 40 || loc == 44));
	else
		FUZZ_CHECK(psize == rblk_prop_size(ofst) && psize != 0);

	st = rblk_prop_set_decode(&set, &ofst, &value, &loc);
	if (st)
		FUZZ_CHECK((st & NVME_SC_DNR) && (loc == 40 || loc == 44));
	else
		FUZZ_CHECK(ofst == NVME_REG_CC || ofst == NVME_REG_NSSR);

	st = rblk_get_log_decode(&glp, &info, &loc);
	if (st) {
		FUZZ_CHECK((st & NVME_SC_DNR) && loc < 64);
	} else {
		uint32_t len = (uint32_t)(info.len % sizeof(win));

		FUZZ_CHECK(info.len >= 4 && info.len % 4 == 0);
		for (size_t i = 0; i < sizeof(log); i++)
			log[i] = (uint8_t)(i * 13 + 5);
		st = rblk_log_read(win, len, info.lpo % 1024, log, sizeof(log));
		if ((info.lpo % 1024) % 4 || info.lpo % 1024 > sizeof(log)) {
			FUZZ_CHECK(st == (NVME_SC_INVALID_FIELD | NVME_SC_DNR));
		} else {
			FUZZ_CHECK(st == 0);
			for (uint32_t i = 0; i < len; i++) {
				uint64_t pos = info.lpo % 1024 + i;

				FUZZ_CHECK(win[i] == (pos < sizeof(log) ? log[pos] : 0));
			}
		}
	}
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	uint8_t m[64];

	if (idx > 2)
		return 0;
	memset(m, 0, sizeof(m));
	m[0] = idx == 2 ? NVME_ADMIN_GET_LOG_PAGE : 0x7F;
	m[1] = 0x40;
	m[4] = idx == 0 ? NVMF_FCTYPE_PROP_GET : NVMF_FCTYPE_PROP_SET;
	m[39] = 0x40;
	m[40] = idx == 2 ? NVME_LOG_SMART : (idx == 0 ? NVMF_PROP_SIZE_8 : NVMF_PROP_SIZE_4);
	m[42] = idx == 2 ? 0x7F : 0;
	m[44] = idx == 1 ? NVME_REG_CC : 0;
	return fuzz_seed_raw(buf, max, m, sizeof(m));
}
