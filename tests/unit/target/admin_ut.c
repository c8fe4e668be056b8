/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/admin.c: Identify (controller fields the Linux host
 * requires, namespace, active list, descriptor list, CNS 06h), Get Log Page
 * (lengths, offsets, error log, SMART counters moving with I/O, firmware,
 * changed namespaces read-clear, effects), Features, Abort, Keep Alive.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *aq;
static struct rblk_subsystem *ss;
static uint16_t cntlid;

static void setup_opts(const struct rblk_target_opts *o)
{
	env = tt_env_create(o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:1M", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
}

static void setup(void)
{
	setup_opts(NULL);
}

static void teardown(void)
{
	tt_queue_destroy(aq);
	aq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

static uint32_t add_ns(const char *path, uint32_t nsid, bool ro, uint32_t bs)
{
	struct rblk_ns_opts o;
	uint32_t got = 0;

	rblk_ns_opts_init(&o);
	o.path = path;
	o.nsid = nsid;
	o.read_only = ro;
	o.block_size = bs;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &o, &got), 0);
	return got;
}

/* ------------------------------------------------------------------------ */

static void test_identify_ctrl(void)
{
	struct nvme_id_ctrl id;
	char sn[21], mn[41];

	setup();
	memset(&id, 0xAB, sizeof(id));
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, &id), 0);
	CU_ASSERT_EQUAL(rblk_le16(id.cntlid), cntlid);
	CU_ASSERT_EQUAL(rblk_le32(id.sgls), 0x00100005);
	CU_ASSERT_EQUAL(rblk_le32(id.ioccsz), (64 + 8192) / 16);
	CU_ASSERT_EQUAL(rblk_le32(id.iorcsz), 1);
	CU_ASSERT_EQUAL(rblk_le16(id.icdoff), 0);
	CU_ASSERT_EQUAL(id.msdbd, 1);
	CU_ASSERT_EQUAL(id.fcatt, 0);
	CU_ASSERT_EQUAL(rblk_le16(id.kas), 10);
	CU_ASSERT_EQUAL(rblk_le32(id.rtd3e), 30000000);	/* 30 s for the shutdown syncs */
	CU_ASSERT_EQUAL(rblk_le16(id.maxcmd), 128);
	CU_ASSERT_EQUAL(id.mdts, 8); /* 1 MiB = 2^8 x 4 KiB, as nvmet-rdma */
	CU_ASSERT_EQUAL(rblk_le32(id.nn), 1024);
	/* Compare, DSM, Write Zeroes, Reservations, Verify, Copy: 0x1AD; no timestamp. */
	CU_ASSERT_EQUAL(rblk_le16(id.oncs), 0x1AD);
	CU_ASSERT_EQUAL(id.vwc, 0); /* RAM has no volatile cache */
	CU_ASSERT_EQUAL(id.cntrltype, 1);
	/* Multi-port, multi-controller, ANA (0x0B) and the ANA change AEN, as nvmet. */
	CU_ASSERT_EQUAL(id.cmic, 0x0B);
	CU_ASSERT_EQUAL(rblk_le32(id.oaes), 0x900);
	CU_ASSERT_EQUAL(id.anatt, 10);
	CU_ASSERT_EQUAL(id.anacap, 0x1F);
	CU_ASSERT_EQUAL(rblk_le32(id.anagrpmax), 128);
	CU_ASSERT_EQUAL(rblk_le32(id.nanagrpid), 128);
	CU_ASSERT_EQUAL(rblk_le32(id.ctratt), 0x41);
	CU_ASSERT_EQUAL(id.lpa, 0x07);
	CU_ASSERT_EQUAL(id.elpe, 63);
	CU_ASSERT_EQUAL(id.aerl, 3);
	CU_ASSERT_EQUAL(id.sqes, 0x66);
	CU_ASSERT_EQUAL(id.cqes, 0x44);
	CU_ASSERT_EQUAL(rblk_le32(id.ver), 0x00010300);
	/* The Linux host refuses an ANA controller whose MNAN is 0 or above NN. */
	CU_ASSERT_EQUAL(rblk_le32(id.mnan), 1024);
	CU_ASSERT_EQUAL(id.apsta, 0);
	CU_ASSERT_EQUAL(rblk_le16(id.crdt1), 0);
	CU_ASSERT_STRING_EQUAL(id.subnqn, TT_SUBNQN);
	/* Space padded, no NUL. */
	memcpy(sn, id.sn, 20);
	sn[20] = 0;
	CU_ASSERT_EQUAL(strlen(sn), 20);
	CU_ASSERT_EQUAL(sn[19], ' ');
	CU_ASSERT_EQUAL(strncmp(sn, ss->serial, strlen(ss->serial)), 0);
	memcpy(mn, id.mn, 40);
	mn[40] = 0;
	CU_ASSERT_STRING_EQUAL(mn, "rblk                                    ");
	CU_ASSERT_EQUAL(memcmp(id.fr, "rblk0.1 ", 8), 0);
	teardown();
}

static void test_identify_ctrl_options(void)
{
	struct rblk_target_opts o;
	struct nvme_id_ctrl id;
	char path[256];

	rblk_target_opts_init(&o);
	o.in_capsule_data_size = 0;
	o.max_io_size = 1 << 20;
	o.max_queue_depth = 64;
	setup_opts(&o);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, &id), 0);
	CU_ASSERT_EQUAL(rblk_le32(id.sgls), 0x00000005); /* no in-capsule data: no bit 20 */
	CU_ASSERT_EQUAL(rblk_le32(id.ioccsz), 4);
	CU_ASSERT_EQUAL(id.mdts, 8);
	CU_ASSERT_EQUAL(rblk_le16(id.maxcmd), 64);
	/* A file namespace has a volatile cache (page cache): VWC = 1. */
	CU_ASSERT_EQUAL_FATAL(tt_tempfile(path, sizeof(path), 1 << 20), 0);
	add_ns(path, 2, false, 0);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, &id), 0);
	CU_ASSERT_EQUAL(id.vwc, 1);
	teardown();
	unlink(path);
}

static void test_identify_ns(void)
{
	struct nvme_id_ns id;
	uint8_t zero[sizeof(id)];
	uint8_t nguid[16];

	setup();
	memset(&id, 0xAB, sizeof(id));
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, &id), 0);
	CU_ASSERT_EQUAL(rblk_le64(id.nsze), 2048);
	CU_ASSERT_EQUAL(rblk_le64(id.ncap), 2048);
	CU_ASSERT_EQUAL(rblk_le64(id.nuse), 2048);
	CU_ASSERT_EQUAL(id.nlbaf, 0);
	CU_ASSERT_EQUAL(id.flbas, 0);
	CU_ASSERT_EQUAL(id.nmic, NVME_NS_NMIC_SHARED);
	CU_ASSERT_EQUAL(id.nsattr, 0);
	CU_ASSERT_EQUAL(id.lbaf[0].ds, 9);
	CU_ASSERT_EQUAL(rblk_le16(id.lbaf[0].ms), 0);
	rblk_gen_nguid(TT_SUBNQN, 1, nguid);
	CU_ASSERT_EQUAL(memcmp(id.nguid, nguid, 16), 0);
	/* Copy: MCL = MDTS (1 MiB) in 512-byte blocks, MSSRL capped at 16 bits, 128 ranges. */
	CU_ASSERT_EQUAL(rblk_le32(id.mcl), 2048);
	CU_ASSERT_EQUAL(rblk_le16(id.mssrl), 2048);
	CU_ASSERT_EQUAL(id.msrc, 127);

	/* Inactive: zeroes with success (NCAP 0 = not present). */
	memset(zero, 0, sizeof(zero));
	memset(&id, 0xAB, sizeof(id));
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_NS, 5, 0, &id), 0);
	CU_ASSERT_EQUAL(memcmp(&id, zero, sizeof(id)), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_NS, 0xFFFFFFFF, 0, &id)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);

	add_ns("mem:64K", 2, true, 4096);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS, 2, 0, &id), 0);
	CU_ASSERT_EQUAL(id.nsattr, NVME_NS_NSATTR_WP);
	CU_ASSERT_EQUAL(id.lbaf[0].ds, 12);
	CU_ASSERT_EQUAL(rblk_le64(id.nsze), 16);
	CU_ASSERT_EQUAL(rblk_le32(id.mcl), 256); /* 1 MiB in 4 KiB blocks */
	CU_ASSERT_EQUAL(rblk_le16(id.mssrl), 256);
	teardown();
}

static void test_identify_active_list(void)
{
	uint32_t list[1024];

	setup();
	add_ns("mem:64K", 7, false, 0);
	add_ns("mem:64K", 3, false, 0);
	memset(list, 0xAB, sizeof(list));
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS_ACTIVE_LIST, 0, 0, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 1);
	CU_ASSERT_EQUAL(rblk_le32(list[1]), 3);
	CU_ASSERT_EQUAL(rblk_le32(list[2]), 7);
	CU_ASSERT_EQUAL(list[3], 0);
	CU_ASSERT_EQUAL(list[1023], 0);
	/* Strictly greater than NSID. */
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS_ACTIVE_LIST, 3, 0, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 7);
	CU_ASSERT_EQUAL(list[1], 0);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS_ACTIVE_LIST, 7, 0, list), 0);
	CU_ASSERT_EQUAL(list[0], 0);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_NS_ACTIVE_LIST, 0xFFFFFFFE, 0, list)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	teardown();
}

static void test_identify_desc_list(void)
{
	struct rblk_ns_opts o;
	uint8_t buf[4096], uuid[16], nguid[16];
	static const uint8_t eui[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned off = 0, seen = 0;

	setup();
	rblk_gen_uuid(TT_SUBNQN, 1, uuid);
	rblk_gen_nguid(TT_SUBNQN, 1, nguid);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS_DESC_LIST, 1, 0, buf), 0);
	/* Parse like nvme_process_ns_desc(): {NIDT, NIDL, rsvd[2], NID}, NIDL 0 ends. */
	while (off + 4 <= sizeof(buf) && buf[off + 1]) {
		uint8_t nidt = buf[off], nidl = buf[off + 1];

		switch (nidt) {
		case NVME_NIDT_NGUID:
			CU_ASSERT_EQUAL(nidl, 16);
			CU_ASSERT_EQUAL(memcmp(buf + off + 4, nguid, 16), 0);
			break;
		case NVME_NIDT_UUID:
			CU_ASSERT_EQUAL(nidl, 16);
			CU_ASSERT_EQUAL(memcmp(buf + off + 4, uuid, 16), 0);
			break;
		case NVME_NIDT_CSI:
			CU_ASSERT_EQUAL(nidl, 1);
			CU_ASSERT_EQUAL(buf[off + 4], NVME_CSI_NVM);
			break;
		default:
			CU_FAIL("unexpected descriptor");
		}
		seen |= 1u << nidt;
		off += 4 + nidl;
	}
	CU_ASSERT_EQUAL(seen, (1u << NVME_NIDT_NGUID) | (1u << NVME_NIDT_UUID) | (1u << NVME_NIDT_CSI));

	/* Given identifiers are used as is, EUI-64 included. */
	rblk_ns_opts_init(&o);
	o.path = "mem:64K";
	o.nsid = 2;
	o.has_eui64 = true;
	memcpy(o.eui64, eui, 8);
	o.has_uuid = true;
	memset(o.uuid, 0x42, 16);
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &o, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS_DESC_LIST, 2, 0, buf), 0);
	CU_ASSERT_EQUAL(buf[0], NVME_NIDT_EUI64);
	CU_ASSERT_EQUAL(buf[1], 8);
	CU_ASSERT_EQUAL(memcmp(buf + 4, eui, 8), 0);
	CU_ASSERT_EQUAL(buf[12], NVME_NIDT_NGUID);
	CU_ASSERT_EQUAL(buf[32], NVME_NIDT_UUID);
	CU_ASSERT_EQUAL(buf[36], 0x42);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_NS_DESC_LIST, 9, 0, buf)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	teardown();
}

static void test_identify_other_cns(void)
{
	uint8_t buf[4096], zero[4096];

	setup();
	memset(zero, 0, sizeof(zero));
	memset(buf, 0xAB, sizeof(buf));
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_CS_CTRL, 0, NVME_CSI_NVM, buf), 0);
	CU_ASSERT_EQUAL(memcmp(buf, zero, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_CS_CTRL, 0, NVME_CSI_ZNS, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_CTRL_LIST, 0, 0, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_CS_NS, 1, 0, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	teardown();
}

/* ------------------------------------------------------------------------ */

static void test_log_lengths_and_offsets(void)
{
	uint8_t buf[8192];

	setup();
	/* Unknown logs, including discovery on an I/O controller. */
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(aq, NVME_LOG_DISC, 0, 0, 1024, false, buf)),
			NVME_SC_INVALID_LOG_PAGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(aq, NVME_LOG_PERSISTENT_EVENT, 0, 0, 4096, false, buf)),
			NVME_SC_INVALID_LOG_PAGE | NVME_SC_DNR);
	/* LPO: dword aligned, not past the end; at the end reads zeroes. */
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(aq, NVME_LOG_SMART, 0, 2, 8, false, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(aq, NVME_LOG_SMART, 0, 516, 8, false, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	memset(buf, 0xAB, 8);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0, 512, 8, false, buf), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(buf), 0);
	/* Longer than the log: the rest is zero-filled. */
	memset(buf, 0xAB, sizeof(buf));
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0, 0, 1024, false, buf), 0);
	CU_ASSERT_EQUAL(buf[3], 100); /* available spare */
	CU_ASSERT_EQUAL(buf[600], 0);
	CU_ASSERT_EQUAL(buf[1023], 0);
	/* Beyond MDTS (1 MiB): (0x4FFFF + 1) dwords. */
	{
		struct nvme_get_log_cmd c;

		tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_GET_LOG_PAGE, 1, 0);
		c.lid = NVME_LOG_SMART;
		c.numdl = 0xFFFF;
		c.numdu = rblk_cpu_to_le16(4);
		CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0)),
				NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	}
	/* LPO as an index (offset type, CDW14 bit 23) is not offered. */
	{
		struct nvme_get_log_cmd c;
		struct nvme_error_log_entry e;

		tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_GET_LOG_PAGE, 2, 0);
		c.lid = NVME_LOG_SMART;
		c.numdl = rblk_cpu_to_le16(127);
		c.ot = 0x80;
		CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, NULL, 512, NULL, NULL, 0)),
				NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_ERROR, 0, 0, 64, false, &e), 0);
		CU_ASSERT_EQUAL(rblk_le16(e.parm_error_location), offsetof(struct nvme_get_log_cmd, ot));
	}
	teardown();
}

static void test_log_error(void)
{
	struct nvme_error_log_entry e[3];
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;

	setup();
	memset(e, 0xAB, sizeof(e));
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_ERROR, 0, 0, sizeof(e), false, e), 0);
	CU_ASSERT_EQUAL(e[0].error_count, 0);

	/* Two failures: the newest comes first, with cid, sqid, status and location. */
	tt_sqe(&sqe, 0x80 /* Format NVM */, 0x2001, 0);
	CU_ASSERT_EQUAL(tt_cmd(aq, &sqe, NULL, 0, &cqe, NULL, 0),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR | NVME_SC_MORE);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, 0x1F, 0, 0, NULL)), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_ERROR, 0, 0, sizeof(e), false, e), 0);
	CU_ASSERT_EQUAL(rblk_le64(e[0].error_count), 2);
	CU_ASSERT_EQUAL(rblk_le16(e[0].cmdid), 9);
	CU_ASSERT_EQUAL(rblk_le16(e[0].parm_error_location), 40); /* CNS */
	CU_ASSERT_EQUAL(rblk_le64(e[1].error_count), 1);
	CU_ASSERT_EQUAL(rblk_le16(e[1].cmdid), 0x2001);
	CU_ASSERT_EQUAL(rblk_le16(e[1].sqid), 0);
	CU_ASSERT_EQUAL(rblk_le16(e[1].parm_error_location), 0);
	CU_ASSERT_EQUAL(nvme_status_from_wire(rblk_le16(e[1].status_field)) & NVME_STATUS_CODE_MASK,
			NVME_SC_INVALID_OPCODE);
	CU_ASSERT_EQUAL(e[1].trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(e[2].error_count, 0);
	/* With an offset: the second entry alone. */
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_ERROR, 0, 64, 64, false, e), 0);
	CU_ASSERT_EQUAL(rblk_le64(e[0].error_count), 1);
	teardown();
}

static void test_log_smart_counts_io(void)
{
	struct nvme_smart_log log;
	struct tt_queue *iq;
	uint8_t *buf = aligned_alloc(4096, 8192);

	setup();
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0xFFFFFFFF, 0, 512, false, &log), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_reads), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_writes), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.data_units_read), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.power_cycles), 1);

	memset(buf, 0x5A, 8192);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 16, 0, buf, 8192), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 16, 16, 0, buf, 8192), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 0, 16, 0, buf, 8192), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 2047, 2, 0, buf, 1024)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);

	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0xFFFFFFFF, 0, 512, false, &log), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_reads), 1);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_writes), 2);
	/* 16 units of 512 bytes round up to one thousand-unit. */
	CU_ASSERT_EQUAL(nvme_u128_get64(log.data_units_read), 1);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.data_units_written), 1);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.num_err_log_entries), 1);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.media_errors), 0);
	/* Per namespace (LPA bit 0): namespace 1 has it all, an unknown one is refused. */
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 1, 0, 512, false, &log), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_writes), 2);
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(aq, NVME_LOG_SMART, 9, 0, 512, false, &log)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);
	/* A window into the middle of the log (host_reads at byte 64). */
	{
		uint8_t w[16];

		CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0, 64, 16, false, w), 0);
		CU_ASSERT_EQUAL(rblk_get_le64(w), 1);
	}
	/* Counters of a removed namespace stay in the controller-wide log. */
	tt_queue_destroy(iq);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 1), 0);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_SMART, 0, 0, 512, false, &log), 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(log.host_writes), 2);
	free(buf);
	teardown();
}

static void test_log_fw_slot(void)
{
	uint8_t log[512];

	setup();
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_FW_SLOT, 0, 0, 512, false, log), 0);
	CU_ASSERT_EQUAL(log[0], 1);
	CU_ASSERT_EQUAL(memcmp(log + 8, "rblk0.1 ", 8), 0);
	CU_ASSERT_EQUAL(log[16], 0);
	teardown();
}

static void test_log_changed_ns(void)
{
	uint32_t list[1024];

	setup();
	add_ns("mem:64K", 4, false, 0);
	add_ns("mem:64K", 2, false, 0);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 4), 0); /* already listed */
	memset(list, 0xAB, sizeof(list));
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 4);
	CU_ASSERT_EQUAL(rblk_le32(list[1]), 2);
	CU_ASSERT_EQUAL(list[2], 0);
	CU_ASSERT_EQUAL(list[1023], 0);
	/* Read clears. */
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);
	CU_ASSERT_EQUAL(list[0], 0);
	/* More than 1024 changes: 0xFFFFFFFF in the first entry. */
	pthread_mutex_lock(&aq->sq.ctrl->lock);
	for (uint32_t i = 0; i < 1024; i++)
		aq->sq.ctrl->changed_ns[i] = i + 10;
	aq->sq.ctrl->nr_changed_ns = 1024;
	pthread_mutex_unlock(&aq->sq.ctrl->lock);
	rblk_tgt_ctrl_ns_changed(aq->sq.ctrl, 5000);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 0xFFFFFFFF);
	CU_ASSERT_EQUAL(list[1], 0);
	teardown();
}

static void test_log_effects(void)
{
	struct nvme_effects_log log;

	setup();
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CMD_EFFECTS, 0, 0, 4096, false, &log), 0);
	CU_ASSERT_EQUAL(rblk_le32(log.acs[NVME_ADMIN_IDENTIFY]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(rblk_le32(log.acs[NVME_ADMIN_KEEP_ALIVE]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(rblk_le32(log.acs[NVME_ADMIN_FORMAT_NVM]), 0);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_WRITE]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_READ]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_DSM]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_COMPARE]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_VERIFY]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_COPY]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(rblk_le32(log.iocs[NVME_IO_WRITE_UNCOR]), 0);
	teardown();
}

/* ------------------------------------------------------------------------ */

static void test_features_num_queues(void)
{
	struct tt_queue *iq;
	uint32_t dw0;

	setup();
	/* The default maximum before Set Features. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_NUM_QUEUES, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0x003F003F);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_NUM_QUEUES, 0x00050003, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0x00050005);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_NUM_QUEUES, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0x00050005);
	/* Capped by max_io_queues (64), 0-based in both halves. */
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_NUM_QUEUES, 0x01FF01FF, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0x003F003F);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_NUM_QUEUES, 0xFFFF0000, &dw0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* Fixed once an I/O queue exists. */
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_NUM_QUEUES, 0, &dw0)),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	tt_queue_destroy(iq);
	teardown();
}

static void test_features_aec_kato(void)
{
	uint32_t dw0;

	setup();
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_NS_ATTR, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ASYNC_EVENT, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, NVME_AEN_CFG_NS_ATTR);
	/* Events this controller never sends are dropped from the configuration. */
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, 0x80000B00, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ASYNC_EVENT, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, NVME_AEN_CFG_NS_ATTR | NVME_AEN_CFG_ANA_CHANGE);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_KATO, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 5000);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_KATO, 12000, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_KATO, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 12000);
	/* SEL: default and supported capabilities. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_KATO, NVME_FEAT_SEL_DEFAULT, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_KATO, NVME_FEAT_SEL_SUPPORTED, 0, &dw0, NULL, 0),
			0);
	CU_ASSERT_EQUAL(dw0, 1u << 2);
	teardown();
}

static void test_features_vwc_hostid_other(void)
{
	struct nvme_features_cmd c;
	uint8_t hostid[16];
	uint32_t dw0;
	char path[256];

	setup();
	/* No volatile cache on RAM: reads 0, cannot be set. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_VOLATILE_WC, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_VOLATILE_WC, 0, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL_FATAL(tt_tempfile(path, sizeof(path), 1 << 20), 0);
	add_ns(path, 2, false, 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_VOLATILE_WC, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 1);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_VOLATILE_WC, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_VOLATILE_WC, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_FALSE(aq->sq.ctrl->vwc_enabled);

	/* Host ID: 16 bytes with EXHID, refused without; not settable. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_HOST_ID, 0, 1, NULL, hostid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(hostid, env->hostid, 16), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_get_features(aq, NVME_FEAT_HOST_ID, 0, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_HOST_ID, 1, NULL)),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	/* Not supported features and saving. */
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_TIMESTAMP, 0, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_features(aq, NVME_FEAT_LBA_RANGE, 0, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_SET_FEATURES, 1, 0);
	c.fid = NVME_FEAT_KATO;
	c.sv = NVME_FEAT_SV;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0)),
			NVME_SC_FEATURE_NOT_SAVEABLE | NVME_SC_DNR);
	teardown();
	unlink(path);
}

/* The features mandatory for an I/O controller: values true of rblk, Set where changeable. */
static void test_features_mandatory(void)
{
	uint32_t dw0;

	setup();
	/* Arbitration: round robin, no burst limit; not changeable. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ARBITRATION, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 7);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ARBITRATION, NVME_FEAT_SEL_SUPPORTED, 0,
					&dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_ARBITRATION, 0x01020307, NULL)),
			NVME_SC_FEATURE_NOT_CHANGEABLE | NVME_SC_DNR);

	/* Power Management: power state 0 only. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_POWER_MGMT, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_POWER_MGMT, 0, NULL), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_POWER_MGMT, 1, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_POWER_MGMT, NVME_FEAT_SEL_SUPPORTED, 0,
					&dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 1u << 2);

	/* Temperature Threshold: composite sensor, over and under, per controller. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_TEMP_THRESH, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0xFFFF);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_TEMP_THRESH, 0, 1u << 20, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_TEMP_THRESH, 343, NULL), 0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_TEMP_THRESH, (1u << 20) | 273, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_TEMP_THRESH, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 343);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_TEMP_THRESH, 0, 1u << 20, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 273);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_TEMP_THRESH, NVME_FEAT_SEL_DEFAULT, 0, &dw0,
					NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0xFFFF);
	CU_ASSERT_EQUAL(aq->sq.ctrl->temp_over, 343);
	/* Sensor 1 does not exist; THSEL 2 is reserved. */
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_TEMP_THRESH, (1u << 16) | 300, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_TEMP_THRESH, (2u << 20) | 300, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_features(aq, NVME_FEAT_TEMP_THRESH, 0, 1u << 16, &dw0, NULL,
					      0)), NVME_SC_INVALID_FIELD | NVME_SC_DNR);

	/* Error Recovery: TLER stored, DULBE refused. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ERR_RECOVERY, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ERR_RECOVERY, 50, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ERR_RECOVERY, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 50);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(aq, NVME_FEAT_ERR_RECOVERY, 1u << 16, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_ERR_RECOVERY, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 50);

	/* Write Atomicity Normal: DN stored. */
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_WRITE_ATOMIC, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_WRITE_ATOMIC, 1, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_WRITE_ATOMIC, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 1);
	CU_ASSERT_EQUAL(tt_get_features(aq, NVME_FEAT_WRITE_ATOMIC, NVME_FEAT_SEL_DEFAULT, 0, &dw0,
					NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	teardown();
}

static void test_abort_keep_alive_unknown(void)
{
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	struct tt_queue *q2;

	setup();
	tt_sqe(&sqe, NVME_ADMIN_ABORT, 1, 0);
	CU_ASSERT_EQUAL(tt_cmd(aq, &sqe, NULL, 0, &cqe, NULL, 0), 0);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 1);
	tt_sqe(&sqe, NVME_ADMIN_KEEP_ALIVE, 2, 0);
	CU_ASSERT_EQUAL(tt_cmd(aq, &sqe, NULL, 0, &cqe, NULL, 0), 0);
	/* Opcodes we do not implement; I/O queue management does not exist on fabrics. */
	tt_sqe(&sqe, NVME_ADMIN_CREATE_SQ, 3, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	tt_sqe(&sqe, NVME_ADMIN_NS_MGMT, 3, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);

	/* KATO 0 on an I/O controller: no timer, Keep Alive is KA Timeout Invalid. */
	q2 = tt_queue_create(env, 0, 32);
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(q2, TT_SUBNQN, TT_HOSTNQN, 0), 0);
	tt_sqe(&sqe, NVME_ADMIN_KEEP_ALIVE, 4, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(q2, &sqe, NULL, 0, NULL, NULL, 0)), NVME_SC_KA_TIMEOUT_INVALID);
	tt_queue_destroy(q2);
	teardown();
}

static void test_flags_checked(void)
{
	struct nvme_sqe sqe;

	setup();
	/* FUSE must be 0 and PSDT must be 01b on fabrics. */
	tt_sqe(&sqe, NVME_ADMIN_KEEP_ALIVE, 1, 0);
	sqe.flags |= NVME_CMD_FUSE_FIRST;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	tt_sqe(&sqe, NVME_ADMIN_KEEP_ALIVE, 1, 0);
	sqe.flags = 0;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* Identify needs exactly 4096 bytes of SGL. */
	tt_sqe(&sqe, NVME_ADMIN_IDENTIFY, 1, 0);
	((struct nvme_identify_cmd *)&sqe)->cns = NVME_ID_CNS_CTRL;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 4095, NULL, NULL, 0)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_identify_ctrl),
	UT_CASE(test_identify_ctrl_options),
	UT_CASE(test_identify_ns),
	UT_CASE(test_identify_active_list),
	UT_CASE(test_identify_desc_list),
	UT_CASE(test_identify_other_cns),
	UT_CASE(test_log_lengths_and_offsets),
	UT_CASE(test_log_error),
	UT_CASE(test_log_smart_counts_io),
	UT_CASE(test_log_fw_slot),
	UT_CASE(test_log_changed_ns),
	UT_CASE(test_log_effects),
	UT_CASE(test_features_num_queues),
	UT_CASE(test_features_aec_kato),
	UT_CASE(test_features_vwc_hostid_other),
	UT_CASE(test_features_mandatory),
	UT_CASE(test_abort_keep_alive_unknown),
	UT_CASE(test_flags_checked),
	UT_END,
};

UT_MAIN("target/admin", cases)
