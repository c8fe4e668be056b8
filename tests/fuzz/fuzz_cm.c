/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the RDMA CM private data decoders (request, accept, reject) on
 * arbitrary lengths. Checks: the reject status is one of the defined codes;
 * an accepted request obeys the admin HSQSIZE and HRQSIZE rules and
 * re-encodes to the same first bytes.
 */
#include "fuzz.h"
#include "protocol/cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rblk_cm_req_info info, again;
	struct nvme_rdma_cm_req req;
	struct nvme_rdma_cm_rep rep;
	struct nvme_rdma_cm_rej rej;
	uint8_t *copy;
	uint16_t v;
	int ret;

	if (size < 1)
		return 0;
	/* Exact-size heap copy so ASan sees any read past the private data. */
	copy = malloc(size - 1 ? size - 1 : 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data + 1, size - 1);
	size -= 1;

	ret = rblk_cm_req_decode(size ? copy : NULL, size, &info);
	if (ret) {
		FUZZ_CHECK(ret >= NVME_RDMA_CM_INVALID_LEN && ret <= NVME_RDMA_CM_INVALID_HRQSIZE);
		FUZZ_CHECK(ret == NVME_RDMA_CM_INVALID_LEN || size >= 8);
		FUZZ_CHECK(strcmp(rblk_cm_rej_str((uint16_t)ret), "unknown") != 0);
	} else {
		FUZZ_CHECK(size >= 8);
		FUZZ_CHECK(info.hrqsize > 0);
		FUZZ_CHECK(info.qid != 0 || info.hsqsize < 32);
		FUZZ_CHECK(rblk_cm_req_encode(&req, &info) == 0);
		FUZZ_CHECK(memcmp(&req, copy, size >= 10 ? 10 : 8) == 0);
		FUZZ_CHECK(rblk_cm_req_decode(&req, sizeof(req), &again) == 0);
		FUZZ_CHECK(again.qid == info.qid && again.hrqsize == info.hrqsize &&
			   again.hsqsize == info.hsqsize);
	}

	if (rblk_cm_rep_decode(copy, size, &v) == 0) {
		FUZZ_CHECK(size >= 4);
		rblk_cm_rep_encode(&rep, v);
		FUZZ_CHECK(memcmp(&rep, copy, 4) == 0);
	}
	if (rblk_cm_rej_decode(copy, size, &v) == 0) {
		FUZZ_CHECK(size >= 4);
		rblk_cm_rej_encode(&rej, v);
		FUZZ_CHECK(memcmp((uint8_t *)&rej + 2, copy + 2, 2) == 0);
		FUZZ_CHECK(rblk_cm_rej_str(v) != NULL);
	}
	free(copy);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static const uint8_t admin[8] = { 0, 0, 0, 0, 32, 0, 31, 0 };
	static const uint8_t io[32] = { 0, 0, 1, 0, 128, 0, 127, 0, 1, 0 };
	static const uint8_t rej[4] = { 0, 0, 4, 0 };

	switch (idx) {
	case 0: return fuzz_seed_raw(buf, max, admin, sizeof(admin));
	case 1: return fuzz_seed_raw(buf, max, io, sizeof(io));
	case 2: return fuzz_seed_raw(buf, max, rej, sizeof(rej));
	}
	return 0;
}
