/* SPDX-License-Identifier: MIT */
/* Tests for protocol/names.c. */
#include <string.h>

#include "protocol/names.h"
#include "protocol/nvme.h"
#include "protocol/nvmf.h"
#include "ut.h"

static void test_status(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(NVME_SC_LBA_RANGE | NVME_SC_DNR), "LBA Out of Range");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(NVME_SC_LBA_RANGE | NVME_SC_DNR | NVME_SC_MORE),
			       "LBA Out of Range");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(0), "Successful Completion");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(NVME_SC_INVALID_FIELD), "Invalid Field in Command");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(NVME_SC_SGL_INVALID_DATA), "Data SGL Length Invalid");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(NVME_SC_WRITE_FAULT), "Write Fault");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR),
			       "Connect Invalid Host");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(0x182),
			       "Connect Invalid Parameters / Write to Read Only Range");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(0x0FF), "Unknown");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_status_str(0x7C0), "Vendor Specific");
}

static void test_status_by_command(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4183, NVME_FABRICS_COMMAND),
			       "Connect Restart Discovery");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4183, NVME_IO_DSM), "ONCS Not Supported");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4180, NVME_FABRICS_COMMAND),
			       "Connect Incompatible Format");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4180, NVME_IO_DSM), "Conflicting Attributes");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(NVME_SC_LBA_RANGE, NVME_IO_READ), "LBA Out of Range");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x184, NVME_IO_WRITE), "Connect Invalid Host");
	/* Every defined status has a name. */
	for (unsigned s = 0; s < 0x800; s++) {
		const char *n = rblk_nvme_status_str((uint16_t)s);

		CU_ASSERT_PTR_NOT_NULL(n);
	}
}

static void test_opcodes(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_nvme_admin_opc_str(NVME_ADMIN_IDENTIFY), "Identify");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_admin_opc_str(NVME_ADMIN_KEEP_ALIVE), "Keep Alive");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_admin_opc_str(NVME_ADMIN_ASYNC_EVENT), "Asynchronous Event Request");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_admin_opc_str(0x03), "Unknown");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_io_opc_str(NVME_IO_READ), "Read");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_io_opc_str(NVME_IO_WRITE_ZEROES), "Write Zeroes");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_io_opc_str(NVME_IO_DSM), "Dataset Management");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_io_opc_str(0x03), "Unknown");
	CU_ASSERT_STRING_EQUAL(rblk_nvmf_fctype_str(NVMF_FCTYPE_CONNECT), "Connect");
	CU_ASSERT_STRING_EQUAL(rblk_nvmf_fctype_str(NVMF_FCTYPE_PROP_GET), "Property Get");
	CU_ASSERT_STRING_EQUAL(rblk_nvmf_fctype_str(NVMF_FCTYPE_PROP_SET), "Property Set");
	CU_ASSERT_STRING_EQUAL(rblk_nvmf_fctype_str(0x02), "Unknown");
}

static const struct ut_case cases[] = {
	UT_CASE(test_status),
	UT_CASE(test_status_by_command),
	UT_CASE(test_opcodes),
	UT_END,
};

UT_MAIN("protocol/names", cases)
