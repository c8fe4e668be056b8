/* SPDX-License-Identifier: MIT */
/*
 * Names of NVMe status codes, opcodes and fabrics command types, for logs.
 * Status names follow the wording of the NVMe base specification status
 * tables (shortened where the spec is verbose).
 */
#include "protocol/names.h"
#include "protocol/nvme_resv.h"
#include "protocol/nvme.h"
#include "protocol/nvmf.h"

/* Codes whose meaning does not depend on the command. */
static const char *status_common_str(uint16_t code)
{
	switch (code) {
	case NVME_SC_SUCCESS: return "Successful Completion";
	case NVME_SC_INVALID_OPCODE: return "Invalid Command Opcode";
	case NVME_SC_INVALID_FIELD: return "Invalid Field in Command";
	case NVME_SC_CMDID_CONFLICT: return "Command ID Conflict";
	case NVME_SC_DATA_XFER_ERROR: return "Data Transfer Error";
	case NVME_SC_POWER_LOSS: return "Commands Aborted due to Power Loss Notification";
	case NVME_SC_INTERNAL: return "Internal Error";
	case NVME_SC_ABORT_REQ: return "Command Abort Requested";
	case NVME_SC_ABORT_QUEUE: return "Command Aborted due to SQ Deletion";
	case NVME_SC_FUSED_FAIL: return "Command Aborted due to Failed Fused Command";
	case NVME_SC_FUSED_MISSING: return "Command Aborted due to Missing Fused Command";
	case NVME_SC_INVALID_NS: return "Invalid Namespace or Format";
	case NVME_SC_CMD_SEQ_ERROR: return "Command Sequence Error";
	case NVME_SC_SGL_INVALID_LAST: return "Invalid SGL Segment Descriptor";
	case NVME_SC_SGL_INVALID_COUNT: return "Invalid Number of SGL Descriptors";
	case NVME_SC_SGL_INVALID_DATA: return "Data SGL Length Invalid";
	case NVME_SC_SGL_INVALID_METADATA: return "Metadata SGL Length Invalid";
	case NVME_SC_SGL_INVALID_TYPE: return "SGL Descriptor Type Invalid";
	case NVME_SC_CMB_INVALID_USE: return "Invalid Use of Controller Memory Buffer";
	case NVME_SC_PRP_INVALID_OFFSET: return "PRP Offset Invalid";
	case NVME_SC_ATOMIC_WU_EXCEEDED: return "Atomic Write Unit Exceeded";
	case NVME_SC_OP_DENIED: return "Operation Denied";
	case NVME_SC_SGL_INVALID_OFFSET: return "SGL Offset Invalid";
	case NVME_SC_HOST_ID_INCONSIST: return "Host Identifier Inconsistent Format";
	case NVME_SC_KA_TIMEOUT_EXPIRED: return "Keep Alive Timer Expired";
	case NVME_SC_KA_TIMEOUT_INVALID: return "Keep Alive Timeout Invalid";
	case NVME_SC_ABORTED_PREEMPT_ABORT: return "Command Aborted due to Preempt and Abort";
	case NVME_SC_SANITIZE_FAILED: return "Sanitize Failed";
	case NVME_SC_SANITIZE_IN_PROGRESS: return "Sanitize In Progress";
	case NVME_SC_SGL_INVALID_GRANULARITY: return "SGL Data Block Granularity Invalid";
	case NVME_SC_CMD_NOT_SUP_CMB_QUEUE: return "Command Not Supported for Queue in CMB";
	case NVME_SC_NS_WRITE_PROTECTED: return "Namespace is Write Protected";
	case NVME_SC_CMD_INTERRUPTED: return "Command Interrupted";
	case NVME_SC_TRANSIENT_TR_ERR: return "Transient Transport Error";
	case NVME_SC_ADMIN_CMD_MEDIA_NOT_READY: return "Admin Command Media Not Ready";
	case NVME_SC_INVALID_IO_CMD_SET: return "Invalid IO Command Set";
	case NVME_SC_LBA_RANGE: return "LBA Out of Range";
	case NVME_SC_CAP_EXCEEDED: return "Capacity Exceeded";
	case NVME_SC_NS_NOT_READY: return "Namespace Not Ready";
	case NVME_SC_RESERVATION_CONFLICT: return "Reservation Conflict";
	case NVME_SC_FORMAT_IN_PROGRESS: return "Format In Progress";
	case NVME_SC_CQ_INVALID: return "Completion Queue Invalid";
	case NVME_SC_QID_INVALID: return "Invalid Queue Identifier";
	case NVME_SC_QUEUE_SIZE: return "Invalid Queue Size";
	case NVME_SC_ABORT_LIMIT: return "Abort Command Limit Exceeded";
	case NVME_SC_ABORT_MISSING: return "Abort Command Is Missing";
	case NVME_SC_AER_LIMIT: return "Asynchronous Event Request Limit Exceeded";
	case NVME_SC_FIRMWARE_SLOT: return "Invalid Firmware Slot";
	case NVME_SC_FIRMWARE_IMAGE: return "Invalid Firmware Image";
	case NVME_SC_INVALID_VECTOR: return "Invalid Interrupt Vector";
	case NVME_SC_INVALID_LOG_PAGE: return "Invalid Log Page";
	case NVME_SC_INVALID_FORMAT: return "Invalid Format";
	case NVME_SC_FW_NEEDS_CONV_RESET: return "Firmware Activation Requires Conventional Reset";
	case NVME_SC_INVALID_QUEUE: return "Invalid Queue Deletion";
	case NVME_SC_FEATURE_NOT_SAVEABLE: return "Feature Identifier Not Saveable";
	case NVME_SC_FEATURE_NOT_CHANGEABLE: return "Feature Not Changeable";
	case NVME_SC_FEATURE_NOT_PER_NS: return "Feature Not Namespace Specific";
	case NVME_SC_FW_NEEDS_SUBSYS_RESET: return "Firmware Activation Requires NVM Subsystem Reset";
	case NVME_SC_FW_NEEDS_RESET: return "Firmware Activation Requires Controller Level Reset";
	case NVME_SC_FW_NEEDS_MAX_TIME: return "Firmware Activation Requires Maximum Time Violation";
	case NVME_SC_FW_ACTIVATE_PROHIBITED: return "Firmware Activation Prohibited";
	case NVME_SC_OVERLAPPING_RANGE: return "Overlapping Range";
	case NVME_SC_NS_INSUFFICIENT_CAP: return "Namespace Insufficient Capacity";
	case NVME_SC_NS_ID_UNAVAILABLE: return "Namespace Identifier Unavailable";
	case NVME_SC_NS_ALREADY_ATTACHED: return "Namespace Already Attached";
	case NVME_SC_NS_IS_PRIVATE: return "Namespace Is Private";
	case NVME_SC_NS_NOT_ATTACHED: return "Namespace Not Attached";
	case NVME_SC_THIN_PROV_NOT_SUPP: return "Thin Provisioning Not Supported";
	case NVME_SC_CTRL_LIST_INVALID: return "Controller List Invalid";
	case NVME_SC_SELF_TEST_IN_PROGRESS: return "Device Self-test In Progress";
	case NVME_SC_BP_WRITE_PROHIBITED: return "Boot Partition Write Prohibited";
	case NVME_SC_CTRL_ID_INVALID: return "Invalid Controller Identifier";
	case NVME_SC_SEC_CTRL_STATE_INVALID: return "Invalid Secondary Controller State";
	case NVME_SC_CTRL_RES_NUM_INVALID: return "Invalid Number of Controller Resources";
	case NVME_SC_RES_ID_INVALID: return "Invalid Resource Identifier";
	case NVME_SC_PMR_SAN_PROHIBITED: return "Sanitize Prohibited While PMR Enabled";
	case NVME_SC_ANA_GROUP_ID_INVALID: return "ANA Group Identifier Invalid";
	case NVME_SC_ANA_ATTACH_FAILED: return "ANA Attach Failed";
	case NVME_SC_DISCOVERY_RESTART: return "Discovery Restart";
	case NVME_SC_AUTH_REQUIRED: return "Authentication Required";
	case NVME_SC_WRITE_FAULT: return "Write Fault";
	case NVME_SC_READ_ERROR: return "Unrecovered Read Error";
	case NVME_SC_GUARD_CHECK: return "End-to-end Guard Check Error";
	case NVME_SC_APPTAG_CHECK: return "End-to-end Application Tag Check Error";
	case NVME_SC_REFTAG_CHECK: return "End-to-end Reference Tag Check Error";
	case NVME_SC_COMPARE_FAILED: return "Compare Failure";
	case NVME_SC_ACCESS_DENIED: return "Access Denied";
	case NVME_SC_UNWRITTEN_BLOCK: return "Deallocated or Unwritten Logical Block";
	case NVME_SC_INTERNAL_PATH_ERROR: return "Internal Path Error";
	case NVME_SC_ANA_PERSISTENT_LOSS: return "Asymmetric Access Persistent Loss";
	case NVME_SC_ANA_INACCESSIBLE: return "Asymmetric Access Inaccessible";
	case NVME_SC_ANA_TRANSITION: return "Asymmetric Access Transition";
	case NVME_SC_CTRL_PATH_ERROR: return "Controller Pathing Error";
	case NVME_SC_HOST_PATH_ERROR: return "Host Pathing Error";
	case NVME_SC_HOST_ABORTED_CMD: return "Command Aborted By Host";
	}
	return NULL;
}

static const char *status_fabrics_str(uint16_t code)
{
	switch (code) {
	case NVME_SC_CONNECT_FORMAT: return "Connect Incompatible Format";
	case NVME_SC_CONNECT_CTRL_BUSY: return "Connect Controller Busy";
	case NVME_SC_CONNECT_INVALID_PARAM: return "Connect Invalid Parameters";
	case NVME_SC_CONNECT_RESTART_DISC: return "Connect Restart Discovery";
	case NVME_SC_CONNECT_INVALID_HOST: return "Connect Invalid Host";
	}
	return NULL;
}

static const char *status_nvm_str(uint16_t code)
{
	switch (code) {
	case NVME_SC_NVM_CONFLICTING_ATTRS: return "Conflicting Attributes";
	case NVME_SC_NVM_INVALID_PI: return "Invalid Protection Information";
	case NVME_SC_NVM_READ_ONLY: return "Write to Read Only Range";
	case NVME_SC_ONCS_NOT_SUPPORTED: return "ONCS Not Supported";
	}
	return NULL;
}

static const char *status_ambiguous_str(uint16_t code)
{
	switch (code) {
	case 0x180: return "Connect Incompatible Format / Conflicting Attributes";
	case 0x181: return "Connect Controller Busy / Invalid Protection Information";
	case 0x182: return "Connect Invalid Parameters / Write to Read Only Range";
	case 0x183: return "Connect Restart Discovery / ONCS Not Supported";
	case 0x184: return "Connect Invalid Host";
	}
	return NULL;
}

const char *rblk_nvme_status_str(uint16_t status)
{
	uint16_t code = status & NVME_STATUS_CODE_MASK;
	const char *s = status_common_str(code);

	if (!s)
		s = status_ambiguous_str(code);
	if (!s && NVME_STATUS_SCT(code) == NVME_SCT_VENDOR)
		s = "Vendor Specific";
	return s ? s : "Unknown";
}

const char *rblk_nvme_cmd_status_str(uint16_t status, uint8_t opc)
{
	uint16_t code = status & NVME_STATUS_CODE_MASK;
	const char *s = status_common_str(code);

	/* NVMe 2.0 named 0x183 for Copy; the older name stays for the rest. */
	if (!s && opc == NVME_IO_COPY && code == NVME_SC_CMD_SIZE_LIMIT)
		s = "Command Size Limit Exceeded";
	if (!s)
		s = opc == NVME_FABRICS_COMMAND ? status_fabrics_str(code) : status_nvm_str(code);
	return s ? s : rblk_nvme_status_str(status);
}

const char *rblk_nvme_admin_opc_str(uint8_t opc)
{
	switch (opc) {
	case NVME_ADMIN_DELETE_SQ: return "Delete I/O SQ";
	case NVME_ADMIN_CREATE_SQ: return "Create I/O SQ";
	case NVME_ADMIN_GET_LOG_PAGE: return "Get Log Page";
	case NVME_ADMIN_DELETE_CQ: return "Delete I/O CQ";
	case NVME_ADMIN_CREATE_CQ: return "Create I/O CQ";
	case NVME_ADMIN_IDENTIFY: return "Identify";
	case NVME_ADMIN_ABORT: return "Abort";
	case NVME_ADMIN_SET_FEATURES: return "Set Features";
	case NVME_ADMIN_GET_FEATURES: return "Get Features";
	case NVME_ADMIN_ASYNC_EVENT: return "Asynchronous Event Request";
	case NVME_ADMIN_NS_MGMT: return "Namespace Management";
	case NVME_ADMIN_FW_COMMIT: return "Firmware Commit";
	case NVME_ADMIN_FW_DOWNLOAD: return "Firmware Image Download";
	case NVME_ADMIN_DEV_SELF_TEST: return "Device Self-test";
	case NVME_ADMIN_NS_ATTACH: return "Namespace Attachment";
	case NVME_ADMIN_KEEP_ALIVE: return "Keep Alive";
	case NVME_ADMIN_DIRECTIVE_SEND: return "Directive Send";
	case NVME_ADMIN_DIRECTIVE_RECV: return "Directive Receive";
	case NVME_ADMIN_VIRTUAL_MGMT: return "Virtualization Management";
	case NVME_ADMIN_NVME_MI_SEND: return "NVMe-MI Send";
	case NVME_ADMIN_NVME_MI_RECV: return "NVMe-MI Receive";
	case NVME_ADMIN_DBBUF: return "Doorbell Buffer Config";
	case NVME_ADMIN_FABRICS: return "Fabrics Command";
	case NVME_ADMIN_FORMAT_NVM: return "Format NVM";
	case NVME_ADMIN_SECURITY_SEND: return "Security Send";
	case NVME_ADMIN_SECURITY_RECV: return "Security Receive";
	case NVME_ADMIN_SANITIZE: return "Sanitize";
	case NVME_ADMIN_GET_LBA_STATUS: return "Get LBA Status";
	}
	return "Unknown";
}

const char *rblk_nvme_io_opc_str(uint8_t opc)
{
	switch (opc) {
	case NVME_IO_FLUSH: return "Flush";
	case NVME_IO_WRITE: return "Write";
	case NVME_IO_READ: return "Read";
	case NVME_IO_WRITE_UNCOR: return "Write Uncorrectable";
	case NVME_IO_COMPARE: return "Compare";
	case NVME_IO_WRITE_ZEROES: return "Write Zeroes";
	case NVME_IO_DSM: return "Dataset Management";
	case NVME_IO_VERIFY: return "Verify";
	case NVME_IO_RESV_REGISTER: return "Reservation Register";
	case NVME_IO_RESV_REPORT: return "Reservation Report";
	case NVME_IO_RESV_ACQUIRE: return "Reservation Acquire";
	case NVME_IO_RESV_RELEASE: return "Reservation Release";
	case NVME_IO_COPY: return "Copy";
	case NVME_IO_ZONE_MGMT_SEND: return "Zone Management Send";
	case NVME_IO_ZONE_MGMT_RECV: return "Zone Management Receive";
	case NVME_IO_ZONE_APPEND: return "Zone Append";
	case NVME_IO_FABRICS: return "Fabrics Command";
	}
	return "Unknown";
}

const char *rblk_nvme_resv_type_str(uint8_t rtype)
{
	switch (rtype) {
	case NVME_RESV_NONE: return "Reservation not held";
	case NVME_RESV_WE: return "Write Exclusive";
	case NVME_RESV_EA: return "Exclusive Access";
	case NVME_RESV_WE_RO: return "Write Exclusive - Registrants Only";
	case NVME_RESV_EA_RO: return "Exclusive Access - Registrants Only";
	case NVME_RESV_WE_AR: return "Write Exclusive - All Registrants";
	case NVME_RESV_EA_AR: return "Exclusive Access - All Registrants";
	}
	return "Reserved";
}

const char *rblk_nvmf_fctype_str(uint8_t fctype)
{
	switch (fctype) {
	case NVMF_FCTYPE_PROP_SET: return "Property Set";
	case NVMF_FCTYPE_CONNECT: return "Connect";
	case NVMF_FCTYPE_PROP_GET: return "Property Get";
	case NVMF_FCTYPE_AUTH_SEND: return "Authentication Send";
	case NVMF_FCTYPE_AUTH_RECV: return "Authentication Receive";
	case NVMF_FCTYPE_DISCONNECT: return "Disconnect";
	}
	return "Unknown";
}
