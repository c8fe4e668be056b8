/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/resv*.c through the test transport: three hosts (a
 * holder, a registrant, a non-registrant) against every reservation type
 * and every command group; Register, Replace, Unregister, Acquire, Preempt,
 * Preempt and Abort, Release, Clear and Report (extended) contents; the
 * notification log and its event, the mask feature; PTPL to a state
 * directory and back after a restart; and the provider's own store through
 * a fake provider (load, store, a change another gateway made, a lost race,
 * a store out of reach: failing closed and coming back by itself).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "protocol/nvme_log.h"
#include "protocol/nvme_resv.h"
#include "test_transport.h"
#include "ut.h"

#define HOSTNQN3 "nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-cccc-4ddd-8eee-ffffffffffff"
#define CONFLICT (NVME_SC_RESERVATION_CONFLICT | NVME_SC_DNR)
#define INVALID (NVME_SC_INVALID_FIELD | NVME_SC_DNR)

struct host {
	struct tt_queue *aq, *iq;
	uint8_t hostid[16];
};

static struct tt_env *env;
static struct rblk_subsystem *ss;
static struct host H[3]; /* 0 holder, 1 registrant, 2 non-registrant */
static char path[256];
static char state_dir[256];

static void host_connect(struct host *h, const char *hostnqn, uint8_t id)
{
	uint16_t cntlid;

	memset(h->hostid, id, 16);
	memcpy(env->hostid, h->hostid, 16);
	h->aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(h->aq, TT_SUBNQN, hostnqn, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	h->iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(h->iq, TT_SUBNQN, hostnqn, 1, 127, cntlid, 0, 0, NULL), 0);
}

/* A target whose namespace 1 is ns_path (NULL: a temp file) or the provider. */
static void setup(const char *ns_path, const struct rblk_provider *prov)
{
	struct rblk_target_opts o;
	struct rblk_ns_opts no;

	rblk_target_opts_init(&o);
	o.state_dir = state_dir;
	env = tt_env_create(&o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	rblk_ns_opts_init(&no);
	no.nsid = 1;
	if (prov) {
		no.provider = prov;
	} else if (ns_path) {
		no.path = ns_path;
	} else {
		if (!path[0])
			CU_ASSERT_EQUAL_FATAL(tt_tempfile(path, sizeof(path), 1 << 20), 0);
		no.path = path;
	}
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	host_connect(&H[0], TT_HOSTNQN, 0x11);
	host_connect(&H[1], TT_HOSTNQN2, 0x22);
	host_connect(&H[2], HOSTNQN3, 0x33);
}

static void teardown(void)
{
	for (int i = 2; i >= 0; i--) {
		tt_queue_destroy(H[i].iq);
		tt_queue_destroy(H[i].aq);
	}
	tt_env_destroy(env);
	env = NULL;
}

/* ------------------------------------------------------------------------ */
/* Commands.                                                                 */

static uint16_t resv_cmd(struct host *h, uint8_t opc, uint32_t cdw10, uint64_t k1, uint64_t k2)
{
	struct nvme_sqe c;
	uint64_t keys[2] = { rblk_cpu_to_le64(k1), rblk_cpu_to_le64(k2) };

	tt_sqe(&c, opc, 0x77, 1);
	c.cdw10 = rblk_cpu_to_le32(cdw10);
	return TT_SC(tt_cmd(h->iq, &c, keys, opc == NVME_IO_RESV_RELEASE ? 8 : 16, NULL, NULL, 0));
}

static uint16_t reg(struct host *h, unsigned act, uint64_t crkey, uint64_t nrkey, uint32_t extra)
{
	return resv_cmd(h, NVME_IO_RESV_REGISTER, act | extra, crkey, nrkey);
}

static uint16_t acq(struct host *h, unsigned act, unsigned rtype, uint64_t crkey, uint64_t prkey)
{
	return resv_cmd(h, NVME_IO_RESV_ACQUIRE, act | rtype << 8, crkey, prkey);
}

static uint16_t rel(struct host *h, unsigned act, unsigned rtype, uint64_t crkey)
{
	return resv_cmd(h, NVME_IO_RESV_RELEASE, act | rtype << 8, crkey, 0);
}

static uint16_t report(struct host *h, bool eds, uint8_t *buf, size_t len)
{
	struct nvme_sqe c;

	memset(buf, 0xEE, len);
	tt_sqe(&c, NVME_IO_RESV_REPORT, 0x78, 1);
	c.cdw10 = rblk_cpu_to_le32((uint32_t)(len / 4 - 1));
	c.cdw11 = rblk_cpu_to_le32(eds ? NVME_RESV_REPORT_EDS : 0);
	return TT_SC(tt_cmd(h->iq, &c, NULL, len, NULL, buf, len));
}

static uint8_t page[4096] __attribute__((aligned(4096)));

static uint16_t feat_set(struct host *h, uint8_t fid, uint32_t nsid, uint32_t cdw11)
{
	struct nvme_features_cmd c;

	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_SET_FEATURES, 0x7C, nsid);
	c.fid = fid;
	c.cdw11 = rblk_cpu_to_le32(cdw11);
	return TT_SC(tt_cmd(h->aq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0));
}

/* The current value (dw0) of a namespace's feature; 0xFFFFFFFF when refused. */
static uint32_t feat_get(struct host *h, uint8_t fid, uint32_t nsid)
{
	struct nvme_features_cmd c;
	struct nvme_cqe cqe;

	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_GET_FEATURES, 0x7D, nsid);
	c.fid = fid;
	if (tt_cmd(h->aq, (struct nvme_sqe *)&c, NULL, 0, &cqe, NULL, 0))
		return 0xFFFFFFFF;
	return rblk_le32(cqe.dw0);
}

/* One command of each kind the conflict table names, by opcode. */
static uint16_t io(struct host *h, uint8_t opc)
{
	struct nvme_sqe c;

	switch (opc) {
	case NVME_IO_READ:
	case NVME_IO_WRITE:
	case NVME_IO_COMPARE:
		return TT_SC(tt_rw(h->iq, opc, 1, 8, 1, 0, page, 512));
	case NVME_IO_WRITE_ZEROES:
	case NVME_IO_VERIFY:
		return TT_SC(tt_rw(h->iq, opc, 1, 8, 1, 0, NULL, 0));
	case NVME_IO_FLUSH:
		tt_sqe(&c, opc, 0x79, 1);
		return TT_SC(tt_cmd(h->iq, &c, NULL, 0, NULL, NULL, 0));
	case NVME_IO_DSM: {
		struct nvme_dsm_range r = { .nlb = rblk_cpu_to_le32(1), .slba = rblk_cpu_to_le64(9) };
		struct nvme_dsm_cmd *d = (struct nvme_dsm_cmd *)&c;

		tt_sqe(&c, opc, 0x7A, 1);
		d->attributes = rblk_cpu_to_le32(NVME_DSM_AD);
		return TT_SC(tt_cmd(h->iq, &c, &r, sizeof(r), NULL, NULL, 0));
	}
	default: { /* Copy: block 8 to block 20 */
		struct nvme_copy_cmd *cc = (struct nvme_copy_cmd *)&c;
		struct nvme_copy_range r;

		memset(&r, 0, sizeof(r));
		r.slba = rblk_cpu_to_le64(8);
		tt_sqe(&c, NVME_IO_COPY, 0x7B, 1);
		cc->sdlba = rblk_cpu_to_le64(20);
		return TT_SC(tt_cmd(h->iq, &c, &r, sizeof(r), NULL, NULL, 0));
	}
	}
}

static const uint8_t reads[] = { NVME_IO_READ, NVME_IO_COMPARE, NVME_IO_VERIFY };
static const uint8_t writes[] = { NVME_IO_WRITE, NVME_IO_WRITE_ZEROES, NVME_IO_FLUSH,
				  NVME_IO_DSM, NVME_IO_COPY };

/* Every read-group and write-group command of h: allowed or Reservation Conflict. */
static void expect(struct host *h, bool read_ok, bool write_ok, unsigned rtype)
{
	for (unsigned i = 0; i < sizeof(reads); i++) {
		uint16_t st = io(h, reads[i]);

		if ((st == CONFLICT) == read_ok)
			fprintf(stderr, "type %u host %02x opc %02x: status %#x\n", rtype,
				h->hostid[0], reads[i], st);
		CU_ASSERT_EQUAL(st == CONFLICT, !read_ok);
		/* Compare may differ; anything else must succeed. */
		if (read_ok && reads[i] != NVME_IO_COMPARE)
			CU_ASSERT_EQUAL(st, 0);
	}
	for (unsigned i = 0; i < sizeof(writes); i++) {
		uint16_t st = io(h, writes[i]);

		if ((st == CONFLICT) == write_ok)
			fprintf(stderr, "type %u host %02x opc %02x: status %#x\n", rtype,
				h->hostid[0], writes[i], st);
		CU_ASSERT_EQUAL(st, write_ok ? 0 : CONFLICT);
	}
}

/* ------------------------------------------------------------------------ */

static void test_conflict_matrix(void)
{
	/* [type][0 registrant, 1 non-registrant] = { read ok, write ok } */
	static const bool m[7][2][2] = {
		[NVME_RESV_WE] = { { true, false }, { true, false } },
		[NVME_RESV_EA] = { { false, false }, { false, false } },
		[NVME_RESV_WE_RO] = { { true, true }, { true, false } },
		[NVME_RESV_EA_RO] = { { true, true }, { false, false } },
		[NVME_RESV_WE_AR] = { { true, true }, { true, false } },
		[NVME_RESV_EA_AR] = { { true, true }, { false, false } },
	};

	setup(NULL, NULL);
	/* No reservation: everyone does everything. */
	for (int i = 0; i < 3; i++)
		expect(&H[i], true, true, 0);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), 0);
	for (unsigned t = NVME_RESV_WE; t <= NVME_RESV_EA_AR; t++) {
		CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, t, 0xA, 0), 0);
		CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), t);
		expect(&H[0], true, true, t);
		expect(&H[1], m[t][0][0], m[t][0][1], t);
		expect(&H[2], m[t][1][0], m[t][1][1], t);
		/* Reservation commands are judged by their keys, never by the table. */
		CU_ASSERT_EQUAL(acq(&H[2], NVME_RESV_ACQUIRE, t, 0xC, 0), CONFLICT);
		CU_ASSERT_EQUAL(rel(&H[0], NVME_RESV_RELEASE, t, 0xA), 0);
		CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), 0);
	}
	teardown();
}

static void test_register_report(void)
{
	uint8_t buf[4096];
	const struct nvme_resv_status *hdr = (const void *)buf;
	const struct nvme_resv_regctl_ext *rc = (const void *)(buf + NVME_RESV_STATUS_EXT_LEN);

	setup(NULL, NULL);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0x1111, 0), 0);
	/* Registering again: the same key is fine, another is a conflict. */
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0x1111, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0x2222, 0), CONFLICT);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0x3333, 0), 0);
	/* Replace: the current key, or IEKEY. */
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REPLACE, 0x9999, 0x4444, 0), CONFLICT);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REPLACE, 0x3333, 0x4444, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REPLACE, 0x9999, 0x5555, NVME_RESV_IEKEY), 0);
	CU_ASSERT_EQUAL(reg(&H[2], NVME_RESV_REPLACE, 0, 0x6666, NVME_RESV_IEKEY), CONFLICT);
	/* Invalid action, reserved CPTPL, PTPL asked of RAM: Invalid Field. */
	CU_ASSERT_EQUAL(reg(&H[2], 3, 0, 1, 0), INVALID);
	CU_ASSERT_EQUAL(reg(&H[2], NVME_RESV_REGISTER, 0, 1, 1u << 30), INVALID);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, 7, 0x1111, 0), INVALID);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, 0, 0x1111, 0), INVALID);
	CU_ASSERT_EQUAL(acq(&H[0], 3, 1, 0x1111, 0), INVALID);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE | NVME_RESV_IEKEY, 1, 0, 0), INVALID);
	/* Wrong key, non-registrant: Reservation Conflict. */
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, 1, 0x1112, 0), CONFLICT);
	CU_ASSERT_EQUAL(acq(&H[2], NVME_RESV_ACQUIRE, 1, 0, 0), CONFLICT);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_WE_RO, 0x1111, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_WE_RO, 0x1111, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_EA, 0x1111, 0), CONFLICT);
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_ACQUIRE, NVME_RESV_WE_RO, 0x5555, 0), CONFLICT);

	/* Report: 64-bit host IDs cannot name fabrics hosts. */
	CU_ASSERT_EQUAL(report(&H[2], false, buf, 4096), NVME_SC_HOST_ID_INCONSIST | NVME_SC_DNR);
	CU_ASSERT_EQUAL(report(&H[2], true, buf, 4096), 0);
	CU_ASSERT_EQUAL(rblk_le32(hdr->gen), 5); /* 3 registers (one a no-op) + 2 replaces */
	CU_ASSERT_EQUAL(hdr->rtype, NVME_RESV_WE_RO);
	CU_ASSERT_EQUAL(hdr->regctl[0], 2);
	CU_ASSERT_EQUAL(hdr->ptpls, 0);
	CU_ASSERT_EQUAL(rblk_le16(rc[0].cntlid), 0xFFFF);
	CU_ASSERT_EQUAL(rc[0].rcsts, 1);
	CU_ASSERT_EQUAL(rblk_le64(rc[0].rkey), 0x1111);
	CU_ASSERT_EQUAL(rc[0].hostid[0], 0x11);
	CU_ASSERT_EQUAL(rc[0].hostid[15], 0x11);
	CU_ASSERT_EQUAL(rc[1].rcsts, 0);
	CU_ASSERT_EQUAL(rblk_le64(rc[1].rkey), 0x5555);
	CU_ASSERT_EQUAL(rc[1].hostid[7], 0x22);
	CU_ASSERT_EQUAL(buf[NVME_RESV_STATUS_EXT_LEN + 2 * 64], 0); /* zero past the end */
	/* A short buffer gets what fits. */
	CU_ASSERT_EQUAL(report(&H[2], true, buf, 96), 0);
	CU_ASSERT_EQUAL(rblk_le64(rc[0].rkey), 0x1111);

	/* Release: the type must be the reservation's; a non-holder releases nothing. */
	CU_ASSERT_EQUAL(rel(&H[0], NVME_RESV_RELEASE, NVME_RESV_WE, 0x1111), INVALID);
	CU_ASSERT_EQUAL(rel(&H[1], NVME_RESV_RELEASE, NVME_RESV_WE_RO, 0x5555), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_WE_RO);
	CU_ASSERT_EQUAL(rel(&H[0], NVME_RESV_RELEASE, NVME_RESV_WE_RO, 0x1112), CONFLICT);
	/* Unregistering the holder releases a Registrants Only reservation. */
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_UNREGISTER, 0x1112, 0, 0), CONFLICT);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_UNREGISTER, 0x1111, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), 0);
	CU_ASSERT_EQUAL(report(&H[2], true, buf, 4096), 0);
	CU_ASSERT_EQUAL(hdr->rtype, 0);
	CU_ASSERT_EQUAL(hdr->regctl[0], 1);
	CU_ASSERT_EQUAL(rc[0].hostid[0], 0x22);

	/* All Registrants: lasts while anyone is registered. */
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0x1111, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_ACQUIRE, NVME_RESV_EA_AR, 0x5555, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_EA_AR, 0x1111, 0), 0);
	CU_ASSERT_EQUAL(report(&H[2], true, buf, 4096), 0);
	CU_ASSERT_EQUAL(rc[0].rcsts, 1);
	CU_ASSERT_EQUAL(rc[1].rcsts, 1);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_UNREGISTER, 0, 0, NVME_RESV_IEKEY), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_EA_AR);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_UNREGISTER, 0x1111, 0, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), 0);
	teardown();
}

/* The next Reservation Notification log page of h: its type (0: empty), nsid, count. */
static uint8_t log_next(struct host *h, uint32_t *nsid, uint64_t *count)
{
	struct nvme_resv_log log;

	CU_ASSERT_EQUAL(tt_get_log(h->aq, NVME_LOG_RESERVATION, 0, 0, sizeof(log), false, &log), 0);
	if (nsid)
		*nsid = rblk_le32(log.nsid);
	if (count)
		*count = rblk_le64(log.count);
	return log.type;
}

static void test_preempt_notices(void)
{
	struct nvme_sqe aer;
	struct tt_req *tr;
	uint64_t count;
	uint32_t nsid;
	uint8_t buf[512];

	setup("mem:1M", NULL);
	/* An AER held by host 0's controller. */
	tt_sqe(&aer, NVME_ADMIN_ASYNC_EVENT, 0x99, 0);
	tr = tt_send(H[0].aq, &aer, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	CU_ASSERT_FALSE(tr->done);

	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[2], NVME_RESV_REGISTER, 0, 0xC, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_WE, 0xA, 0), 0);
	CU_ASSERT_EQUAL(io(&H[1], NVME_IO_WRITE), CONFLICT);
	/* Preempt with PRKEY 0 of a plain reservation: Invalid Field. */
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_WE, 0xB, 0), INVALID);
	/* A key nobody has: Reservation Conflict. */
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_WE, 0xB, 0x77), CONFLICT);
	/* Preempt and abort the holder: host 1 holds, host 0 is out, its writes cut. */
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT_ABORT, NVME_RESV_EA, 0xB, 0xA), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_EA);
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_READ), CONFLICT);
	CU_ASSERT_EQUAL(io(&H[1], NVME_IO_WRITE), 0);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_UNREGISTER, 0xA, 0, 0), CONFLICT);

	/* Host 0 learns it: the event, then "registration preempted" in the log. */
	tt_pump(env);
	CU_ASSERT_TRUE(tr->done);
	CU_ASSERT_EQUAL(NVME_AEN_DW0_TYPE(rblk_le32(tr->cqe.dw0)), NVME_AER_TYPE_IO_CMD_SET);
	CU_ASSERT_EQUAL(NVME_AEN_DW0_INFO(rblk_le32(tr->cqe.dw0)), NVME_AER_INFO_RESV_LOG);
	CU_ASSERT_EQUAL(NVME_AEN_DW0_LID(rblk_le32(tr->cqe.dw0)), NVME_LOG_RESERVATION);
	tt_req_release(tr);
	CU_ASSERT_EQUAL(log_next(&H[0], &nsid, &count), NVME_RESV_LOG_REG_PREEMPTED);
	CU_ASSERT_EQUAL(nsid, 1);
	CU_ASSERT_EQUAL(count, 1);
	CU_ASSERT_EQUAL(log_next(&H[0], NULL, NULL), NVME_RESV_LOG_EMPTY);
	/* The type changed from WE: the other registrant (host 2) hears "released". */
	CU_ASSERT_EQUAL(log_next(&H[2], NULL, &count), NVME_RESV_LOG_RESV_RELEASED);
	CU_ASSERT_EQUAL(count, 1);
	CU_ASSERT_EQUAL(log_next(&H[1], NULL, NULL), NVME_RESV_LOG_EMPTY);

	/* Mask "reservation preempted" on the namespace: a Clear tells nobody. */
	CU_ASSERT_EQUAL(feat_set(&H[2], NVME_FEAT_RESV_MASK, 1, NVME_RESV_MASK_RESPRE), 0);
	CU_ASSERT_EQUAL(feat_get(&H[0], NVME_FEAT_RESV_MASK, 1), NVME_RESV_MASK_RESPRE);
	CU_ASSERT_EQUAL(feat_set(&H[2], NVME_FEAT_RESV_MASK, 5, 0), NVME_SC_INVALID_NS | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rel(&H[1], NVME_RESV_CLEAR, 0, 0xB), 0);
	CU_ASSERT_EQUAL(log_next(&H[2], NULL, NULL), NVME_RESV_LOG_EMPTY);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), 0);
	CU_ASSERT_EQUAL(report(&H[2], true, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(((struct nvme_resv_status *)buf)->regctl[0], 0);
	/* Unmasked (broadcast NSID): the next Clear reaches host 2. */
	CU_ASSERT_EQUAL(feat_set(&H[2], NVME_FEAT_RESV_MASK, 0xFFFFFFFF, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[2], NVME_RESV_REGISTER, 0, 0xC, 0), 0);
	CU_ASSERT_EQUAL(rel(&H[1], NVME_RESV_CLEAR, 0, 0xB), 0);
	CU_ASSERT_EQUAL(log_next(&H[2], NULL, &count), NVME_RESV_LOG_RESV_PREEMPTED);
	CU_ASSERT_EQUAL(count, 2);
	CU_ASSERT_EQUAL(log_next(&H[1], NULL, NULL), NVME_RESV_LOG_EMPTY);
	teardown();
}

/* All Registrants with PRKEY 0: the preempter takes it, everyone else goes. */
static void test_preempt_all_registrants(void)
{
	setup(NULL, NULL);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), 0);
	CU_ASSERT_EQUAL(reg(&H[2], NVME_RESV_REGISTER, 0, 0xC, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_WE_AR, 0xA, 0), 0);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), 0);
	/* A non-zero PRKEY removes that registrant only. */
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_WE_AR, 0xB, 0xC), 0);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(log_next(&H[2], NULL, NULL), NVME_RESV_LOG_REG_PREEMPTED);
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_WE, 0xB, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_WE);
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(io(&H[1], NVME_IO_WRITE), 0);
	CU_ASSERT_EQUAL(log_next(&H[0], NULL, NULL), NVME_RESV_LOG_REG_PREEMPTED);
	/* The holder preempting itself changes the type. */
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_EA, 0xB, 0xB), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_EA);
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_READ), CONFLICT);
	teardown();
}

/* More notices than the FIFO holds: the ones lost show as a gap in the counts. */
static void test_log_overflow(void)
{
	uint64_t count;

	setup("mem:1M", NULL);
	for (unsigned i = 0; i < RBLK_RESV_LOG_ENTRIES + 6; i++) {
		/* A preempt without a reservation unregisters host 0 by its key. */
		CU_ASSERT_EQUAL_FATAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
		if (!i)
			CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), 0);
		CU_ASSERT_EQUAL_FATAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_WE, 0xB, 0xA), 0);
	}
	for (unsigned i = 0; i < RBLK_RESV_LOG_ENTRIES; i++) {
		CU_ASSERT_EQUAL(log_next(&H[0], NULL, &count), NVME_RESV_LOG_REG_PREEMPTED);
		CU_ASSERT_EQUAL(count, i + 1);
	}
	CU_ASSERT_EQUAL(log_next(&H[0], NULL, NULL), NVME_RESV_LOG_EMPTY);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[1], NVME_RESV_PREEMPT, NVME_RESV_WE, 0xB, 0xA), 0);
	CU_ASSERT_EQUAL(log_next(&H[0], NULL, &count), NVME_RESV_LOG_REG_PREEMPTED);
	CU_ASSERT_EQUAL(count, RBLK_RESV_LOG_ENTRIES + 7); /* 6 lost */
	teardown();
}

static void test_identify_features(void)
{
	struct nvme_id_ctrl *ic = (void *)page;
	struct nvme_id_ns *in = (void *)page;
	uint8_t hostid[16];
	uint32_t dw0;

	setup("mem:1M", NULL);
	CU_ASSERT_EQUAL(tt_identify(H[0].aq, NVME_ID_CNS_CTRL, 0, 0, page), 0);
	CU_ASSERT_TRUE(rblk_le16(ic->oncs) & NVME_CTRL_ONCS_RESERVATIONS);
	CU_ASSERT_EQUAL(tt_identify(H[0].aq, NVME_ID_CNS_NS, 1, 0, page), 0);
	/* RAM cannot outlive the process: no PTPL. */
	CU_ASSERT_EQUAL(in->rescap, NVME_NS_RESCAP_TYPES | NVME_NS_RESCAP_IEKEY);
	CU_ASSERT_EQUAL(in->nmic, NVME_NS_NMIC_SHARED);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 1, (uint32_t)NVME_RESV_CPTPL_SET << 30),
			INVALID);
	CU_ASSERT_EQUAL(feat_set(&H[0], NVME_FEAT_RESV_PERSIST, 1, NVME_RESV_PTPL), INVALID);
	CU_ASSERT_EQUAL(feat_set(&H[0], NVME_FEAT_RESV_PERSIST, 1, 0), 0);
	CU_ASSERT_EQUAL(feat_get(&H[0], NVME_FEAT_RESV_PERSIST, 1), 0);
	/* The host ID is the Connect's, 128-bit (EXHID). */
	CU_ASSERT_EQUAL(tt_get_features(H[1].aq, NVME_FEAT_HOST_ID, 0, 1, &dw0, hostid, 16), 0);
	CU_ASSERT_EQUAL(hostid[0], 0x22);
	CU_ASSERT_EQUAL(hostid[15], 0x22);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* PTPL.                                                                     */

static char *ptpl_file(void)
{
	DIR *d = opendir(state_dir);
	struct dirent *e;
	char *found = NULL;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "resv-", 5) && !strchr(e->d_name, '.')) {
			found = malloc(strlen(state_dir) + strlen(e->d_name) + 2);
			sprintf(found, "%s/%s", state_dir, e->d_name);
		}
	if (d)
		closedir(d);
	return found;
}

static void test_ptpl_file(void)
{
	uint8_t buf[4096];
	const struct nvme_resv_status *hdr = (const void *)buf;
	const struct nvme_resv_regctl_ext *rc = (const void *)(buf + NVME_RESV_STATUS_EXT_LEN);
	struct nvme_id_ns *in = (void *)page;
	struct rblk_resv_state st;
	uint8_t blob[RBLK_RESV_BLOB_MAX];
	char *f;
	FILE *fp;
	size_t n;

	setup(NULL, NULL);
	CU_ASSERT_EQUAL(tt_identify(H[0].aq, NVME_ID_CNS_NS, 1, 0, page), 0);
	CU_ASSERT_TRUE(in->rescap & NVME_NS_RESCAP_PTPL);
	/* PTPL off: memory only, no file. */
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_PTR_NULL(ptpl_file());
	/* CPTPL set: the file exists when the command completes, and holds the state. */
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, (uint32_t)NVME_RESV_CPTPL_SET << 30), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_WE_RO, 0xA, 0), 0);
	f = ptpl_file();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fp = fopen(f, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	n = fread(blob, 1, sizeof(blob), fp);
	fclose(fp);
	CU_ASSERT_EQUAL(rblk_resv_decode(blob, n, &st), 0);
	CU_ASSERT_EQUAL(st.nr, 2);
	CU_ASSERT_EQUAL(st.rtype, NVME_RESV_WE_RO);
	CU_ASSERT_TRUE(st.ptpl);
	CU_ASSERT_EQUAL(st.regs[1].rkey, 0xB);
	/* A torn or foreign file is refused, not guessed at. */
	CU_ASSERT_EQUAL(rblk_resv_decode(blob, n - 1, &st), -EINVAL);
	blob[20] ^= 1;
	CU_ASSERT_EQUAL(rblk_resv_decode(blob, n, &st), -EINVAL);
	CU_ASSERT_EQUAL(feat_get(&H[2], NVME_FEAT_RESV_PERSIST, 1), NVME_RESV_PTPL);
	teardown();

	/* A restart: the same namespace comes back with its registrants and holder. */
	setup(NULL, NULL);
	CU_ASSERT_EQUAL(report(&H[2], true, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(hdr->rtype, NVME_RESV_WE_RO);
	CU_ASSERT_EQUAL(hdr->regctl[0], 2);
	CU_ASSERT_EQUAL(hdr->ptpls, 1);
	CU_ASSERT_EQUAL(rc[0].rcsts, 1);
	CU_ASSERT_EQUAL(rblk_le64(rc[0].rkey), 0xA);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(io(&H[1], NVME_IO_WRITE), 0);
	/* PTPL off (feature 83h): the file goes, the state stays in memory. */
	CU_ASSERT_EQUAL(feat_set(&H[2], NVME_FEAT_RESV_PERSIST, 1, 0), 0);
	CU_ASSERT_EQUAL(access(f, F_OK), -1);
	CU_ASSERT_EQUAL(feat_get(&H[2], NVME_FEAT_RESV_PERSIST, 1), 0);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), CONFLICT);
	/* And on again: written out at once. */
	CU_ASSERT_EQUAL(feat_set(&H[2], NVME_FEAT_RESV_PERSIST, 1, NVME_RESV_PTPL), 0);
	CU_ASSERT_EQUAL(access(f, F_OK), 0);
	teardown();

	/* A corrupt file refuses the namespace. */
	fp = fopen(f, "wb");
	fputs("garbage", fp);
	fclose(fp);
	{
		struct rblk_target_opts o;
		struct rblk_ns_opts no;

		rblk_target_opts_init(&o);
		o.state_dir = state_dir;
		env = tt_env_create(&o, 0);
		ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
		rblk_ns_opts_init(&no);
		no.nsid = 1;
		no.path = path;
		CU_ASSERT_NOT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
		tt_env_destroy(env);
		env = NULL;
	}
	unlink(f);
	free(f);
}

/* ------------------------------------------------------------------------ */
/* The provider's own store (a second gateway's view, faked).                */

struct fake {
	uint8_t blob[RBLK_PROVIDER_RESV_MAX];
	size_t len;
	unsigned loads, stores, eagain;
	int load_err, store_err;        /* what the next loads / stores return (atomic) */
	void (*changed)(void *arg);
	void *arg;
};
static struct fake fake;

static int fake_submit(void *ctx, struct rblk_provider_io *io)
{
	(void)ctx;
	rblk_provider_complete(io, 0);
	return 0;
}

static int fake_load(void *ctx, void *buf, size_t len, size_t *out)
{
	struct fake *f = ctx;

	__atomic_fetch_add(&f->loads, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&f->load_err, __ATOMIC_RELAXED))
		return __atomic_load_n(&f->load_err, __ATOMIC_RELAXED);
	if (!f->len)
		return -ENOENT;
	if (f->len > len)
		return -EINVAL;
	memcpy(buf, f->blob, f->len);
	*out = f->len;
	return 0;
}

static int fake_store(void *ctx, const void *buf, size_t len)
{
	struct fake *f = ctx;

	f->stores++;
	if (f->eagain) {
		f->eagain--;
		return -EAGAIN;
	}
	if (f->store_err)
		return f->store_err;
	memcpy(f->blob, buf, len);
	f->len = len;
	return 0;
}

static int fake_watch(void *ctx, void (*fn)(void *arg), void *arg)
{
	struct fake *f = ctx;

	f->changed = fn;
	f->arg = arg;
	return 0;
}

static const struct rblk_provider_ops fake_ops = {
	.size = sizeof(fake_ops),
	.submit = fake_submit,
	.resv_load = fake_load,
	.resv_store = fake_store,
	.resv_watch = fake_watch,
};

/* Another gateway writes st into the shared store and notifies. */
static void other_gateway_sets(const struct rblk_resv_state *st)
{
	uint64_t deadline = rblk_clock_ms() + 5000;

	fake.len = rblk_resv_encode(st, fake.blob);
	fake.changed(fake.arg);
	while (atomic_load(&ss->ns[0]->resv_type) != st->rtype && rblk_clock_ms() < deadline)
		usleep(1000);
}

static void test_provider_store(void)
{
	struct rblk_provider p;
	struct rblk_resv_state st;
	uint8_t buf[4096];

	memset(&fake, 0, sizeof(fake));
	rblk_provider_init(&p);
	p.ops = &fake_ops;
	p.ctx = &fake;
	p.block_size = 512;
	p.num_blocks = 2048;
	setup(NULL, &p);
	CU_ASSERT_EQUAL(fake.loads, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fake.changed);
	CU_ASSERT_EQUAL(tt_identify(H[0].aq, NVME_ID_CNS_NS, 1, 0, page), 0);
	CU_ASSERT_TRUE(((struct nvme_id_ns *)page)->rescap & NVME_NS_RESCAP_PTPL);
	/* Every change goes to the provider's store, PTPL or not. */
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(fake.stores, 1);
	CU_ASSERT_EQUAL(rblk_resv_decode(fake.blob, fake.len, &st), 0);
	CU_ASSERT_EQUAL(st.nr, 1);
	/* Through "gateway B": host 1 registered and holds Write Exclusive. */
	memset(st.regs[1].hostid, 0x22, 16);
	st.regs[1].rkey = 0xB;
	st.nr = 2;
	st.rtype = NVME_RESV_WE;
	memset(st.holder, 0x22, 16);
	other_gateway_sets(&st);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_WE);
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(io(&H[1], NVME_IO_WRITE), 0);
	CU_ASSERT_EQUAL(report(&H[2], true, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[NVME_RESV_STATUS_EXT_LEN + 64 + 2], 1); /* host 1 holds */
	/* A lost race: the store says "changed meanwhile", the command is judged again. */
	fake.eagain = 1;
	fake.stores = 0;
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_PREEMPT, NVME_RESV_EA, 0xA, 0xB), 0);
	CU_ASSERT_EQUAL(fake.stores, 2);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_EA);
	CU_ASSERT_EQUAL(io(&H[1], NVME_IO_WRITE), CONFLICT);
	/* A store that fails leaves the state as it was. */
	fake.eagain = 10;
	CU_ASSERT_EQUAL(rel(&H[0], NVME_RESV_RELEASE, NVME_RESV_EA, 0xA), NVME_SC_INTERNAL);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), NVME_RESV_EA);
	fake.eagain = 0;
	teardown();
}

/* Wait up to 5 s for the namespace's resv_type to become want. */
static bool resv_type_becomes(unsigned want)
{
	uint64_t deadline = rblk_clock_ms() + 5000;

	while (atomic_load(&ss->ns[0]->resv_type) != want && rblk_clock_ms() < deadline)
		usleep(1000);
	return atomic_load(&ss->ns[0]->resv_type) == want;
}

static void provider_setup(void)
{
	struct rblk_provider p;

	memset(&fake, 0, sizeof(fake));
	rblk_provider_init(&p);
	p.ops = &fake_ops;
	p.ctx = &fake;
	p.block_size = 512;
	p.num_blocks = 2048;
	setup(NULL, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fake.changed);
}

/*
 * A gateway whose load fails after another gateway announced a change
 * fails closed: reservation commands and the I/O the last state known
 * would judge get Namespace Not Ready, loads are retried by themselves,
 * and it serves again once one succeeds.
 */
static void test_provider_unreachable(void)
{
	uint8_t buf[4096];
	unsigned loads;

	provider_setup();
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_WE, 0xA, 0), 0);
	/* The watch fires, the load fails: the last state (H0 holds WE) is no longer trusted. */
	__atomic_store_n(&fake.load_err, -ETIMEDOUT, __ATOMIC_RELAXED);
	fake.changed(fake.arg);
	CU_ASSERT_TRUE(resv_type_becomes(RBLK_RESV_TYPE_STALE));
	/* Even the holder's writes and reads that WE lets everyone do. */
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_WRITE), NVME_SC_NS_NOT_READY);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), NVME_SC_NS_NOT_READY);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_READ), NVME_SC_NS_NOT_READY);
	CU_ASSERT_EQUAL(report(&H[1], true, buf, sizeof(buf)), NVME_SC_NS_NOT_READY);
	/* A command tries the load once more, fails, and is refused unchanged. */
	fake.stores = 0;
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), NVME_SC_NS_NOT_READY);
	CU_ASSERT_EQUAL(rel(&H[0], NVME_RESV_RELEASE, NVME_RESV_WE, 0xA), NVME_SC_NS_NOT_READY);
	CU_ASSERT_EQUAL(fake.stores, 0);
	/* Retried without a command: at least two more loads in about 2.5 s. */
	loads = __atomic_load_n(&fake.loads, __ATOMIC_RELAXED);
	usleep(2500 * 1000);
	CU_ASSERT_TRUE(__atomic_load_n(&fake.loads, __ATOMIC_RELAXED) >= loads + 2);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), RBLK_RESV_TYPE_STALE);
	/* Back: the next retry loads it, and the reservation judges again. */
	__atomic_store_n(&fake.load_err, 0, __ATOMIC_RELAXED);
	CU_ASSERT_TRUE(resv_type_becomes(NVME_RESV_WE));
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_WRITE), 0);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_READ), 0);
	CU_ASSERT_EQUAL(report(&H[1], true, buf, sizeof(buf)), 0);

	/* A store whose outcome is unknown (-EIO) leaves the state stale too. */
	fake.store_err = -EIO;
	__atomic_store_n(&fake.load_err, -EIO, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), NVME_SC_INTERNAL);
	fake.store_err = 0;
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), RBLK_RESV_TYPE_STALE);
	CU_ASSERT_EQUAL(io(&H[0], NVME_IO_WRITE), NVME_SC_NS_NOT_READY);
	/* ... until the reload it started finds the store as it is. */
	__atomic_store_n(&fake.load_err, 0, __ATOMIC_RELAXED);
	CU_ASSERT_TRUE(resv_type_becomes(NVME_RESV_WE));
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), CONFLICT);
	CU_ASSERT_EQUAL(reg(&H[1], NVME_RESV_REGISTER, 0, 0xB, 0), 0);
	teardown();
}

/*
 * A last state with neither registrants nor a holder judged no I/O: it
 * still flows while stale; reservation commands do not, until a command
 * finds the store reachable again (without waiting for the retry).
 */
static void test_provider_unreachable_empty(void)
{
	__atomic_store_n(&fake.load_err, 0, __ATOMIC_RELAXED);
	provider_setup();
	__atomic_store_n(&fake.load_err, -ENOTCONN, __ATOMIC_RELAXED);
	fake.changed(fake.arg);
	/* Stale, but the I/O path reads 0 and never looks. */
	usleep(100 * 1000);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->resv_type), 0);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_WRITE), 0);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), NVME_SC_NS_NOT_READY);
	__atomic_store_n(&fake.load_err, 0, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(reg(&H[0], NVME_RESV_REGISTER, 0, 0xA, 0), 0);
	CU_ASSERT_EQUAL(acq(&H[0], NVME_RESV_ACQUIRE, NVME_RESV_EA, 0xA, 0), 0);
	CU_ASSERT_EQUAL(io(&H[2], NVME_IO_READ), CONFLICT);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_conflict_matrix),
	UT_CASE(test_register_report),
	UT_CASE(test_preempt_notices),
	UT_CASE(test_preempt_all_registrants),
	UT_CASE(test_log_overflow),
	UT_CASE(test_identify_features),
	UT_CASE(test_ptpl_file),
	UT_CASE(test_provider_store),
	UT_CASE(test_provider_unreachable),
	UT_CASE(test_provider_unreachable_empty),
	UT_END,
};

static int init(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(state_dir, sizeof(state_dir), "%s/rblk-resv-ut.XXXXXX", tmp ? tmp : "/tmp");
	return mkdtemp(state_dir) ? 0 : -1;
}

static int fini(void)
{
	if (path[0])
		unlink(path);
	rmdir(state_dir);
	return 0;
}

UT_MAIN_INIT("target/resv", cases, init, fini)
