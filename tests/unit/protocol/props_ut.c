/* SPDX-License-Identifier: MIT */
/* Tests for protocol/props.c and the CAP/CC/CSTS helpers of nvme.h. */
#include <errno.h>
#include <string.h>

#include "protocol/props.h"
#include "ut.h"

#define IF_DNR (NVME_SC_INVALID_FIELD | NVME_SC_DNR)

static void get_cmd(struct nvmf_property_get_cmd *c, uint8_t attrib, uint32_t ofst)
{
	memset(c, 0, sizeof(*c));
	c->opc = 0x7F;
	c->flags = 0x40;
	c->fctype = NVMF_FCTYPE_PROP_GET;
	c->attrib = attrib;
	c->ofst = rblk_cpu_to_le32(ofst);
}

static void set_cmd(struct nvmf_property_set_cmd *c, uint8_t attrib, uint32_t ofst, uint64_t v)
{
	memset(c, 0, sizeof(*c));
	c->opc = 0x7F;
	c->flags = 0x40;
	c->fctype = NVMF_FCTYPE_PROP_SET;
	c->attrib = attrib;
	c->ofst = rblk_cpu_to_le32(ofst);
	c->value = rblk_cpu_to_le64(v);
}

static void test_sizes(void)
{
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_CAP), 8);
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_VS), 4);
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_CC), 4);
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_CSTS), 4);
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_NSSR), 4);
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_CRTO), 4);
	CU_ASSERT_EQUAL(rblk_prop_size(0x04), 0); /* upper half of CAP */
	CU_ASSERT_EQUAL(rblk_prop_size(NVME_REG_AQA), 0);
	CU_ASSERT_EQUAL(rblk_prop_size(0x1000), 0);
}

static void test_get(void)
{
	struct nvmf_property_get_cmd c;
	uint32_t ofst;
	unsigned size;
	uint16_t loc;

	get_cmd(&c, NVMF_PROP_SIZE_8, NVME_REG_CAP);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(ofst, 0);
	CU_ASSERT_EQUAL(size, 8);

	get_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_CSTS);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(ofst, 0x1C);
	CU_ASSERT_EQUAL(size, 4);

	get_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_CAP); /* CAP only as 8 bytes */
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 40);
	get_cmd(&c, NVMF_PROP_SIZE_8, NVME_REG_VS);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 40);
	get_cmd(&c, 2, NVME_REG_VS); /* reserved size encoding */
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 40);
	get_cmd(&c, NVMF_PROP_SIZE_4, 0x50);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 44);
	/* NSSR and CRTO exist, but nvmet reads CAP, VS, CC and CSTS only (docs/interop.md §7.2). */
	get_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_NSSR);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 44);
	get_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_CRTO);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 44);
	get_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_CC);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), NVME_SC_SUCCESS);
	get_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_VS);
	CU_ASSERT_EQUAL(rblk_prop_get_decode(&c, &ofst, &size, &loc), NVME_SC_SUCCESS);
}

static void test_set(void)
{
	struct nvmf_property_set_cmd c;
	uint32_t ofst, value;
	uint16_t loc;

	/* Upper half of VALUE is ignored for 4-byte properties. */
	set_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_CC, 0xFFFFFFFF00460001ull);
	CU_ASSERT_EQUAL(rblk_prop_set_decode(&c, &ofst, &value, &loc), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(ofst, NVME_REG_CC);
	CU_ASSERT_EQUAL(value, 0x00460001);

	set_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_CSTS, 1);
	CU_ASSERT_EQUAL(rblk_prop_set_decode(&c, &ofst, &value, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 44);
	set_cmd(&c, NVMF_PROP_SIZE_8, NVME_REG_CAP, 1);
	CU_ASSERT_EQUAL(rblk_prop_set_decode(&c, &ofst, &value, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 44);
	set_cmd(&c, NVMF_PROP_SIZE_8, NVME_REG_CC, 1);
	CU_ASSERT_EQUAL(rblk_prop_set_decode(&c, &ofst, &value, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 40);
	/* Only CC: nvmet offers no NSSR reset (docs/interop.md §7.2). */
	set_cmd(&c, NVMF_PROP_SIZE_4, NVME_REG_NSSR, 0x4E564D65);
	CU_ASSERT_EQUAL(rblk_prop_set_decode(&c, &ofst, &value, &loc), IF_DNR);
	CU_ASSERT_EQUAL(loc, 44);
	CU_ASSERT_EQUAL(value, 0);
}

static void test_cap(void)
{
	/* The CAP rblk serves (docs/interop.md §7.3). */
	uint64_t cap = nvme_cap_build(127, 1, 15, NVME_CAP_CSS_NVM, 0, 0);
	/* nvmet's CAP (6.1.192). */
	uint64_t nvmet = 0x000008200F00007Full;

	CU_ASSERT_EQUAL(cap, 0x000000200F01007Full);
	CU_ASSERT_EQUAL(NVME_CAP_MQES(nvmet), 127);
	CU_ASSERT_EQUAL(NVME_CAP_CQR(nvmet), 0);
	CU_ASSERT_EQUAL(NVME_CAP_TO(nvmet), 15);
	CU_ASSERT_EQUAL(NVME_CAP_CSS(nvmet), NVME_CAP_CSS_NVM | NVME_CAP_CSS_CSI);
	CU_ASSERT_EQUAL(NVME_CAP_MPSMIN(nvmet), 0);
	CU_ASSERT_EQUAL(NVME_CAP_CRMS(nvmet), 0);
	CU_ASSERT_EQUAL(NVME_CAP_CQR(cap), 1);
}

static void test_cc_validate(void)
{
	uint64_t cap = nvme_cap_build(127, 1, 15, NVME_CAP_CSS_NVM, 0, 0);
	uint64_t cap_csi = nvme_cap_build(127, 1, 15, NVME_CAP_CSS_NVM | NVME_CAP_CSS_CSI, 0, 0);

	/* What the Linux host writes. */
	CU_ASSERT_EQUAL(NVME_CC_IOSQES(0x00460001u), 6);
	CU_ASSERT_EQUAL(NVME_CC_IOCQES(0x00460001u), 4);
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460001, cap, true), 0);
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460000, cap, true), 0);
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460061, cap, true), -EINVAL); /* CSI not offered */
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460061, cap_csi, true), 0);
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00470001, cap, true), -EINVAL); /* IOSQES 7 */
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00360001, cap, true), -EINVAL); /* IOCQES 3 */
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00000001, cap, false), 0);      /* discovery */
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00000001, cap, true), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460081, cap, true), -EINVAL); /* MPS 1 */
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460801, cap, true), -EINVAL); /* AMS 1 */
	CU_ASSERT_EQUAL(rblk_cc_validate(0x00460071, cap_csi, true), -EINVAL); /* CSS 7 */
}

static void test_cc_csts_fields(void)
{
	uint32_t shn = 0x00464001; /* Linux shutdown write */

	CU_ASSERT_EQUAL(NVME_CC_SHN(shn), NVME_CC_SHN_NORMAL);
	CU_ASSERT_TRUE(shn & NVME_CC_EN);
	CU_ASSERT_EQUAL(NVME_CSTS_SHST(NVME_CSTS_RDY | (NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT)),
			NVME_CSTS_SHST_CMPLT);
	CU_ASSERT_EQUAL(NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT, 0x8);
	CU_ASSERT_EQUAL(NVME_VS(1, 3, 0), 0x00010300);
	CU_ASSERT_EQUAL(NVME_VS_MINOR(0x00010400u), 4);
}

static const struct ut_case cases[] = {
	UT_CASE(test_sizes),
	UT_CASE(test_get),
	UT_CASE(test_set),
	UT_CASE(test_cap),
	UT_CASE(test_cc_validate),
	UT_CASE(test_cc_csts_fields),
	UT_END,
};

UT_MAIN("protocol/props", cases)
