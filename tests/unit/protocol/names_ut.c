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
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4183, NVME_IO_COPY),
			       "Command Size Limit Exceeded");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(NVME_SC_COMPARE_FAILED | NVME_SC_DNR,
							NVME_IO_COMPARE), "Compare Failure");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4180, NVME_FABRICS_COMMAND),
			       "Connect Incompatible Format");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x4180, NVME_IO_DSM), "Conflicting Attributes");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(NVME_SC_LBA_RANGE, NVME_IO_READ), "LBA Out of Range");
	CU_ASSERT_STRING_EQUAL(rblk_nvme_cmd_status_str(0x184, NVME_IO_WRITE), "Connect Invalid Host");
	/* Every status code nvme_status.h defines has a name, with and without the opcode. */
	static const uint16_t defined[] = {
		NVME_SC_SUCCESS,
		NVME_SC_INVALID_OPCODE,
		NVME_SC_INVALID_FIELD,
		NVME_SC_CMDID_CONFLICT,
		NVME_SC_DATA_XFER_ERROR,
		NVME_SC_POWER_LOSS,
		NVME_SC_INTERNAL,
		NVME_SC_ABORT_REQ,
		NVME_SC_ABORT_QUEUE,
		NVME_SC_FUSED_FAIL,
		NVME_SC_FUSED_MISSING,
		NVME_SC_INVALID_NS,
		NVME_SC_CMD_SEQ_ERROR,
		NVME_SC_SGL_INVALID_LAST,
		NVME_SC_SGL_INVALID_COUNT,
		NVME_SC_SGL_INVALID_DATA,
		NVME_SC_SGL_INVALID_METADATA,
		NVME_SC_SGL_INVALID_TYPE,
		NVME_SC_CMB_INVALID_USE,
		NVME_SC_PRP_INVALID_OFFSET,
		NVME_SC_ATOMIC_WU_EXCEEDED,
		NVME_SC_OP_DENIED,
		NVME_SC_SGL_INVALID_OFFSET,
		NVME_SC_HOST_ID_INCONSIST,
		NVME_SC_KA_TIMEOUT_EXPIRED,
		NVME_SC_KA_TIMEOUT_INVALID,
		NVME_SC_ABORTED_PREEMPT_ABORT,
		NVME_SC_SANITIZE_FAILED,
		NVME_SC_SANITIZE_IN_PROGRESS,
		NVME_SC_SGL_INVALID_GRANULARITY,
		NVME_SC_CMD_NOT_SUP_CMB_QUEUE,
		NVME_SC_NS_WRITE_PROTECTED,
		NVME_SC_CMD_INTERRUPTED,
		NVME_SC_TRANSIENT_TR_ERR,
		NVME_SC_ADMIN_CMD_MEDIA_NOT_READY,
		NVME_SC_INVALID_IO_CMD_SET,
		NVME_SC_LBA_RANGE,
		NVME_SC_CAP_EXCEEDED,
		NVME_SC_NS_NOT_READY,
		NVME_SC_RESERVATION_CONFLICT,
		NVME_SC_FORMAT_IN_PROGRESS,
		NVME_SC_CQ_INVALID,
		NVME_SC_QID_INVALID,
		NVME_SC_QUEUE_SIZE,
		NVME_SC_ABORT_LIMIT,
		NVME_SC_ABORT_MISSING,
		NVME_SC_AER_LIMIT,
		NVME_SC_FIRMWARE_SLOT,
		NVME_SC_FIRMWARE_IMAGE,
		NVME_SC_INVALID_VECTOR,
		NVME_SC_INVALID_LOG_PAGE,
		NVME_SC_INVALID_FORMAT,
		NVME_SC_FW_NEEDS_CONV_RESET,
		NVME_SC_INVALID_QUEUE,
		NVME_SC_FEATURE_NOT_SAVEABLE,
		NVME_SC_FEATURE_NOT_CHANGEABLE,
		NVME_SC_FEATURE_NOT_PER_NS,
		NVME_SC_FW_NEEDS_SUBSYS_RESET,
		NVME_SC_FW_NEEDS_RESET,
		NVME_SC_FW_NEEDS_MAX_TIME,
		NVME_SC_FW_ACTIVATE_PROHIBITED,
		NVME_SC_OVERLAPPING_RANGE,
		NVME_SC_NS_INSUFFICIENT_CAP,
		NVME_SC_NS_ID_UNAVAILABLE,
		NVME_SC_NS_ALREADY_ATTACHED,
		NVME_SC_NS_IS_PRIVATE,
		NVME_SC_NS_NOT_ATTACHED,
		NVME_SC_THIN_PROV_NOT_SUPP,
		NVME_SC_CTRL_LIST_INVALID,
		NVME_SC_SELF_TEST_IN_PROGRESS,
		NVME_SC_BP_WRITE_PROHIBITED,
		NVME_SC_CTRL_ID_INVALID,
		NVME_SC_SEC_CTRL_STATE_INVALID,
		NVME_SC_CTRL_RES_NUM_INVALID,
		NVME_SC_RES_ID_INVALID,
		NVME_SC_PMR_SAN_PROHIBITED,
		NVME_SC_ANA_GROUP_ID_INVALID,
		NVME_SC_ANA_ATTACH_FAILED,
		NVME_SC_CONNECT_FORMAT,
		NVME_SC_CONNECT_CTRL_BUSY,
		NVME_SC_CONNECT_INVALID_PARAM,
		NVME_SC_CONNECT_RESTART_DISC,
		NVME_SC_CONNECT_INVALID_HOST,
		NVME_SC_DISCOVERY_RESTART,
		NVME_SC_AUTH_REQUIRED,
		NVME_SC_NVM_CONFLICTING_ATTRS,
		NVME_SC_NVM_INVALID_PI,
		NVME_SC_NVM_READ_ONLY,
		NVME_SC_ONCS_NOT_SUPPORTED,
		NVME_SC_WRITE_FAULT,
		NVME_SC_READ_ERROR,
		NVME_SC_GUARD_CHECK,
		NVME_SC_APPTAG_CHECK,
		NVME_SC_REFTAG_CHECK,
		NVME_SC_COMPARE_FAILED,
		NVME_SC_ACCESS_DENIED,
		NVME_SC_UNWRITTEN_BLOCK,
		NVME_SC_INTERNAL_PATH_ERROR,
		NVME_SC_ANA_PERSISTENT_LOSS,
		NVME_SC_ANA_INACCESSIBLE,
		NVME_SC_ANA_TRANSITION,
		NVME_SC_CTRL_PATH_ERROR,
		NVME_SC_HOST_PATH_ERROR,
		NVME_SC_HOST_ABORTED_CMD,
	};

	for (size_t i = 0; i < sizeof(defined) / sizeof(defined[0]); i++) {
		CU_ASSERT_STRING_NOT_EQUAL(rblk_nvme_status_str(defined[i]), "Unknown");
		CU_ASSERT_STRING_NOT_EQUAL(rblk_nvme_cmd_status_str(defined[i], NVME_FABRICS_COMMAND), "Unknown");
		CU_ASSERT_STRING_NOT_EQUAL(rblk_nvme_cmd_status_str(defined[i], NVME_IO_WRITE), "Unknown");
		if (!strcmp(rblk_nvme_status_str(defined[i]), "Unknown"))
			fprintf(stderr, "no name for %#x\n", defined[i]);
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
