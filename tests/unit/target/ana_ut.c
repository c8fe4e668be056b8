/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/ana.c: the ANA log page byte for byte (groups listed as
 * nvmet lists them, NSIDs ascending, RGO, LPO windows), the state each port
 * gives a group, I/O refused with the path-related statuses and served in
 * the accessible states, Identify Namespace's ANAGRPID and NUSE, the ANA
 * change AEN (per port, masked until the log is read), moving a namespace
 * between groups, the API's argument checks, and subsystems' controller ID
 * ranges (subsys.c), which two targets exporting one subsystem rely on.
 */
#include <stdlib.h>
#include <string.h>

#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_subsystem *ss;
static struct rblk_listener *p1, *p2;
static struct tt_queue *aq;   /* admin queue through port 1 */
static uint16_t cntlid;

/* Port 1 (10.99.0.1) and port 2 (10.99.0.2), both exporting every subsystem. */
static void add_ports(void)
{
	struct rblk_listen_opts o;

	rblk_listen_opts_init(&o);
	o.traddr = "10.99.0.1";
	o.portid = 1;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	o.traddr = "10.99.0.2";
	o.portid = 2;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	p1 = env->tgt->listeners[0];
	p2 = env->tgt->listeners[1];
}

static uint32_t add_ns(uint32_t nsid, uint32_t grpid)
{
	struct rblk_ns_opts o;
	uint32_t got = 0;

	rblk_ns_opts_init(&o);
	o.path = "mem:64K";
	o.nsid = nsid;
	o.anagrpid = grpid;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &o, &got), 0);
	tt_pump(env);
	return got;
}

/* A controller of TT_SUBNQN through @port; returns its admin queue. */
static struct tt_queue *ctrl_on(struct rblk_listener *port, uint16_t *id)
{
	struct tt_queue *q = tt_queue_create(env, 0, 32);

	q->sq.listener = port;
	*id = tt_admin_bringup(q, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(*id, 0);
	return q;
}

/* A subsystem with namespace 1 (group 1), two ports, a controller through port 1. */
static void setup(void)
{
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	add_ports();
	aq = ctrl_on(p1, &cntlid);
}

static void teardown(void)
{
	tt_queue_destroy(aq);
	aq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

static struct tt_req *send_aer(struct tt_queue *q, uint16_t cid)
{
	struct nvme_sqe sqe;
	struct tt_req *tr;

	tt_sqe(&sqe, NVME_ADMIN_ASYNC_EVENT, cid, 0);
	tr = tt_send(q, &sqe, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	tt_pump(q->env);
	return tr;
}

/* Get Log Page 0Ch with LSP (RGO in bit 0) and RAE. */
static uint16_t get_ana_log(struct tt_queue *q, uint8_t lsp, bool rae, uint64_t lpo,
			    uint32_t len, void *buf)
{
	struct nvme_get_log_cmd c;
	uint32_t numd = len / 4 - 1;

	memset(&c, 0, sizeof(c));
	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_GET_LOG_PAGE, 7, 0xFFFFFFFF);
	c.lid = NVME_LOG_ANA;
	c.lsp = (uint8_t)(lsp | (rae ? NVME_LOG_RAE : 0));
	c.numdl = rblk_cpu_to_le16((uint16_t)numd);
	c.numdu = rblk_cpu_to_le16((uint16_t)(numd >> 16));
	c.lpol = rblk_cpu_to_le32((uint32_t)lpo);
	c.lpou = rblk_cpu_to_le32((uint32_t)(lpo >> 32));
	return tt_cmd(q, (struct nvme_sqe *)&c, NULL, len, NULL, buf, len);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* ------------------------------------------------------------------------ */
/* The log page.                                                             */

/* Nothing configured: group 1, optimized, with the one namespace. */
static void test_log_default_bytes(void)
{
	static const uint8_t want[] = {
		/* header: CHGCNT 0, NGRPS 1 */
		0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		/* group 1: 1 NSID, CHGCNT 0, optimized */
		1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* NSID 1 */
		1, 0, 0, 0,
	};
	uint8_t buf[4096];

	setup();
	memset(buf, 0xAB, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(get_ana_log(aq, 0, false, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(memcmp(buf, want, sizeof(want)), 0);
	CU_ASSERT_TRUE(all_zero(buf + sizeof(want), sizeof(buf) - sizeof(want)));
	teardown();
}

/*
 * Groups as nvmet lists them: 1 always, every group a port has (port 2's
 * group 5, in its state on port 1: inaccessible), every group a namespace
 * is in (3, configured nowhere); NSIDs ascending within a group.
 */
static void test_log_groups_states_nsids(void)
{
	uint8_t buf[4096];
	const uint8_t *d;

	setup();
	add_ns(4, 2);
	add_ns(2, 2);
	add_ns(3, 3);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 2, RBLK_ANA_NON_OPTIMIZED), 0);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 2, 5, RBLK_ANA_OPTIMIZED), 0);
	CU_ASSERT_EQUAL_FATAL(get_ana_log(aq, 0, false, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(buf), 2); /* two changes */
	CU_ASSERT_EQUAL(rblk_get_le16(buf + 8), 4);
	CU_ASSERT_TRUE(all_zero(buf + 10, 6));
	d = buf + 16; /* group 1: NSID 1 */
	CU_ASSERT_EQUAL(rblk_get_le32(d), 1);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 4), 1);
	CU_ASSERT_EQUAL(rblk_get_le64(d + 8), 2);
	CU_ASSERT_EQUAL(d[16], NVME_ANA_OPTIMIZED);
	CU_ASSERT_TRUE(all_zero(d + 17, 15));
	CU_ASSERT_EQUAL(rblk_get_le32(d + 32), 1);
	d += 36; /* group 2: NSIDs 2, 4, non-optimized here */
	CU_ASSERT_EQUAL(rblk_get_le32(d), 2);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 4), 2);
	CU_ASSERT_EQUAL(d[16], NVME_ANA_NONOPTIMIZED);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 32), 2);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 36), 4);
	d += 40; /* group 3: NSID 3, no port has it */
	CU_ASSERT_EQUAL(rblk_get_le32(d), 3);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 4), 1);
	CU_ASSERT_EQUAL(d[16], NVME_ANA_INACCESSIBLE);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 32), 3);
	d += 36; /* group 5: port 2's, no namespace */
	CU_ASSERT_EQUAL(rblk_get_le32(d), 5);
	CU_ASSERT_EQUAL(rblk_get_le32(d + 4), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(d + 8), 2);
	CU_ASSERT_EQUAL(d[16], NVME_ANA_INACCESSIBLE);
	d += 32;
	CU_ASSERT_EQUAL(d - buf, 16 + 4 * 32 + 4 * 4);
	CU_ASSERT_TRUE(all_zero(d, sizeof(buf) - (size_t)(d - buf)));
	teardown();
}

/* The same log through port 2: that port's states. */
static void test_log_states_are_the_ports(void)
{
	struct tt_queue *q2;
	uint16_t id2;
	uint8_t buf[512];

	setup();
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 2, 1, RBLK_ANA_CHANGE), 0);
	q2 = ctrl_on(p2, &id2);
	CU_ASSERT_EQUAL_FATAL(get_ana_log(q2, 0, false, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(buf[16 + 16], NVME_ANA_CHANGE);
	CU_ASSERT_EQUAL_FATAL(get_ana_log(aq, 0, false, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(buf[16 + 16], NVME_ANA_OPTIMIZED);
	tt_queue_destroy(q2);
	teardown();
}

/* RGO: descriptors only, NNSIDS 0; LPO windows like the other logs. */
static void test_log_rgo_and_offsets(void)
{
	uint8_t full[512], buf[512];

	setup();
	add_ns(2, 2);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 2, RBLK_ANA_INACCESSIBLE), 0);
	CU_ASSERT_EQUAL_FATAL(get_ana_log(aq, NVME_ANA_LOG_RGO, false, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(rblk_get_le16(buf + 8), 2);
	CU_ASSERT_EQUAL(rblk_get_le32(buf + 16), 1);
	CU_ASSERT_EQUAL(rblk_get_le32(buf + 16 + 4), 0);
	CU_ASSERT_EQUAL(rblk_get_le32(buf + 48), 2); /* right after group 1's descriptor */
	CU_ASSERT_EQUAL(rblk_get_le32(buf + 48 + 4), 0);
	CU_ASSERT_EQUAL(buf[48 + 16], NVME_ANA_INACCESSIBLE);
	CU_ASSERT_TRUE(all_zero(buf + 80, sizeof(buf) - 80));

	/* Full log: 16 + 36 + 36 bytes. A window at 52 is group 2's descriptor. */
	CU_ASSERT_EQUAL_FATAL(get_ana_log(aq, 0, false, 0, sizeof(full), full), 0);
	memset(buf, 0xAB, sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(get_ana_log(aq, 0, false, 52, 64, buf), 0);
	CU_ASSERT_EQUAL(memcmp(buf, full + 52, 36), 0);
	CU_ASSERT_EQUAL(rblk_get_le32(buf), 2);
	CU_ASSERT_TRUE(all_zero(buf + 36, 28)); /* past the end: zeroes */
	/* At the very end: zeroes; past it, or unaligned: Invalid Field. */
	CU_ASSERT_EQUAL(get_ana_log(aq, 0, false, 88, 8, buf), 0);
	CU_ASSERT_TRUE(all_zero(buf, 8));
	CU_ASSERT_EQUAL(TT_SC(get_ana_log(aq, 0, false, 92, 8, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(get_ana_log(aq, 0, false, 2, 8, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* I/O and Identify per state.                                               */

static void test_io_per_state(void)
{
	static const struct {
		enum rblk_ana_state state;
		uint16_t status;
		bool nuse;
	} cases[] = {
		{ RBLK_ANA_OPTIMIZED, 0, true },
		{ RBLK_ANA_NON_OPTIMIZED, 0, true },
		{ RBLK_ANA_INACCESSIBLE, 0x302, false },
		{ RBLK_ANA_PERSISTENT_LOSS, 0x301, false },
		{ RBLK_ANA_CHANGE, 0x303, true },
	};
	struct tt_queue *iq;
	struct nvme_id_ns id;
	struct nvme_sqe sqe;
	uint8_t data[512];

	setup();
	iq = tt_queue_create(env, 1, 128);
	iq->sq.listener = p1;
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, cases[i].state), 0);
		memset(data, 0x10 + (int)i, sizeof(data));
		/* Path-related (SCT 3), no DNR: the host retries on another path. */
		CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, 0, 1, 0, data, sizeof(data))),
				cases[i].status);
		memset(data, 0xEE, sizeof(data));
		CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, data, sizeof(data))),
				cases[i].status);
		tt_sqe(&sqe, NVME_IO_FLUSH, 9, 1);
		CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, &sqe, NULL, 0, NULL, NULL, 0)), cases[i].status);
		/* Served: what this round wrote; refused: nothing moved. */
		CU_ASSERT_EQUAL(data[0], cases[i].status ? 0xEE : 0x10 + i);
		/* Admin commands still work on such a path; NUSE as nvmet. */
		CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, &id), 0);
		CU_ASSERT_EQUAL(rblk_le32(id.anagrpid), 1);
		CU_ASSERT_EQUAL(rblk_le64(id.ncap), 128);
		CU_ASSERT_EQUAL(rblk_le64(id.nuse), cases[i].nuse ? 128 : 0);
		CU_ASSERT_EQUAL(id.nmic, NVME_NS_NMIC_SHARED);
	}
	tt_queue_destroy(iq);
	teardown();
}

/* A group's state on port 2 does not touch port 1's I/O. */
static void test_io_other_port_unaffected(void)
{
	struct tt_queue *iq;
	uint8_t data[512] = { 0 };

	setup();
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 2, 1, RBLK_ANA_INACCESSIBLE), 0);
	iq = tt_queue_create(env, 1, 128);
	iq->sq.listener = p1;
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, data, sizeof(data)), 0);
	/* A namespace moved to a group port 1 does not have: inaccessible there. */
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_ana_grpid(ss, 1, 7), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, data, sizeof(data))), 0x302);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 7, RBLK_ANA_OPTIMIZED), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, data, sizeof(data)), 0);
	tt_queue_destroy(iq);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* Events.                                                                   */

#define ANA_AEN_DW0 0x000C0302u /* Notice, ANA change, log 0Ch */

static void test_aen_on_state_change(void)
{
	struct tt_queue *q2;
	struct tt_req *a1, *a2;
	uint16_t id2;
	uint8_t buf[512];

	setup();
	q2 = ctrl_on(p2, &id2);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_ANA_CHANGE, NULL), 0);
	CU_ASSERT_EQUAL(tt_set_features(q2, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_ANA_CHANGE, NULL), 0);
	a1 = send_aer(aq, 40);
	a2 = send_aer(q2, 41);
	CU_ASSERT_FALSE(a1->done);

	/* Port 1's group changes: port 1's controller hears of it, port 2's not. */
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, RBLK_ANA_NON_OPTIMIZED), 0);
	tt_pump(env);
	CU_ASSERT_TRUE_FATAL(a1->done);
	CU_ASSERT_EQUAL(tt_status(&a1->cqe), 0);
	CU_ASSERT_EQUAL(rblk_le32(a1->cqe.dw0), ANA_AEN_DW0);
	CU_ASSERT_FALSE(a2->done);
	tt_req_release(a1);

	/* The same state again is no change: no count, no event. */
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, RBLK_ANA_NON_OPTIMIZED), 0);
	CU_ASSERT_EQUAL(atomic_load(&env->tgt->ana_chgcnt), 1);

	/* Masked until the log is read without RAE. */
	a1 = send_aer(aq, 42);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, RBLK_ANA_OPTIMIZED), 0);
	tt_pump(env);
	CU_ASSERT_FALSE(a1->done);
	CU_ASSERT_EQUAL(get_ana_log(aq, 0, true, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(buf), 2);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, RBLK_ANA_CHANGE), 0);
	tt_pump(env);
	CU_ASSERT_FALSE(a1->done); /* RAE kept it masked */
	CU_ASSERT_EQUAL(get_ana_log(aq, 0, false, 0, sizeof(buf), buf), 0);
	CU_ASSERT_EQUAL(buf[32], NVME_ANA_CHANGE);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, RBLK_ANA_OPTIMIZED), 0);
	tt_pump(env);
	CU_ASSERT_TRUE(a1->done);
	CU_ASSERT_EQUAL(rblk_le32(a1->cqe.dw0), ANA_AEN_DW0);
	tt_req_release(a1);

	/* A group added on port 2 reaches port 2's controller. */
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 2, 3, RBLK_ANA_OPTIMIZED), 0);
	tt_pump(env);
	CU_ASSERT_TRUE_FATAL(a2->done);
	CU_ASSERT_EQUAL(rblk_le32(a2->cqe.dw0), ANA_AEN_DW0);
	tt_req_release(a2);
	tt_queue_destroy(q2);
	teardown();
}

static void test_aen_needs_aec(void)
{
	struct tt_req *a;

	setup();
	/* Only the namespace attribute notice enabled: no ANA event. */
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_NS_ATTR, NULL), 0);
	a = send_aer(aq, 40);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 1, RBLK_ANA_INACCESSIBLE), 0);
	tt_pump(env);
	CU_ASSERT_FALSE(a->done);
	CU_ASSERT_EQUAL(atomic_load(&env->tgt->ana_chgcnt), 1);
	teardown();
}

/* A namespace changing group: every controller of the subsystem, any port. */
static void test_aen_on_grpid_change(void)
{
	struct tt_queue *q2;
	struct tt_req *a1, *a2;
	struct nvme_id_ns id;
	uint16_t id2;

	setup();
	q2 = ctrl_on(p2, &id2);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_ANA_CHANGE, NULL), 0);
	CU_ASSERT_EQUAL(tt_set_features(q2, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_ANA_CHANGE, NULL), 0);
	a1 = send_aer(aq, 40);
	a2 = send_aer(q2, 41);
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_ana_grpid(ss, 1, 9), 0);
	tt_pump(env);
	CU_ASSERT_TRUE(a1->done);
	CU_ASSERT_TRUE(a2->done);
	CU_ASSERT_EQUAL(rblk_le32(a1->cqe.dw0), ANA_AEN_DW0);
	CU_ASSERT_EQUAL(rblk_le32(a2->cqe.dw0), ANA_AEN_DW0);
	CU_ASSERT_EQUAL(atomic_load(&env->tgt->ana_chgcnt), 1);
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, &id), 0);
	CU_ASSERT_EQUAL(rblk_le32(id.anagrpid), 9);
	/* Unchanged: nothing happens. */
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_ana_grpid(ss, 1, 9), 0);
	CU_ASSERT_EQUAL(atomic_load(&env->tgt->ana_chgcnt), 1);
	tt_req_release(a1);
	tt_req_release(a2);
	tt_queue_destroy(q2);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* The API.                                                                  */

static void test_api_checks(void)
{
	enum rblk_ana_state st = RBLK_ANA_CHANGE;
	struct rblk_ns_opts o;

	setup();
	CU_ASSERT_EQUAL(rblk_target_port_get_ana_state(env->tgt, 1, 1, &st), 0);
	CU_ASSERT_EQUAL(st, RBLK_ANA_OPTIMIZED);
	CU_ASSERT_EQUAL(rblk_target_port_get_ana_state(env->tgt, 1, 2, &st), 0);
	CU_ASSERT_EQUAL(st, RBLK_ANA_INACCESSIBLE);
	CU_ASSERT_EQUAL(rblk_target_port_get_ana_state(env->tgt, 9, 1, &st), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 9, 1, RBLK_ANA_OPTIMIZED), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 0, RBLK_ANA_OPTIMIZED), -EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 129, RBLK_ANA_OPTIMIZED), -EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 128, RBLK_ANA_OPTIMIZED), 0);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 2, (enum rblk_ana_state)5),
			-EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_set_ana_state(env->tgt, 1, 2, (enum rblk_ana_state)0),
			-EINVAL);
	/* Group 1 cannot go; a group the port has can, and reads inaccessible after. */
	CU_ASSERT_EQUAL(rblk_target_port_remove_ana_group(env->tgt, 1, 1), -EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_remove_ana_group(env->tgt, 1, 3), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_remove_ana_group(env->tgt, 1, 128), 0);
	CU_ASSERT_EQUAL(rblk_target_port_remove_ana_group(env->tgt, 1, 128), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_get_ana_state(env->tgt, 1, 128, &st), 0);
	CU_ASSERT_EQUAL(st, RBLK_ANA_INACCESSIBLE);
	CU_ASSERT_FALSE(p1->ana_group[128]);
	CU_ASSERT_EQUAL(atomic_load(&env->tgt->ana_chgcnt), 2);
	/* Namespaces: the group must be 1..128, the namespace must exist. */
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_ana_grpid(ss, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_ana_grpid(ss, 1, 129), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_ana_grpid(ss, 5, 2), -ENOENT);
	rblk_ns_opts_init(&o);
	o.path = "mem:64K";
	o.anagrpid = 129;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &o, NULL), -EINVAL);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* Controller ID ranges (subsys.c).                                          */

static void test_cntlid_range(void)
{
	struct rblk_subsystem_opts so;
	struct rblk_subsystem *s2;
	struct tt_queue *q[3];
	struct nvme_cqe cqe;

	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN2;
	so.allow_any_host = true;
	so.cntlid_min = 0x100;
	so.cntlid_max = 0xFF; /* below min */
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &so, &s2), -EINVAL);
	so.cntlid_max = 0xFFF0; /* reserved ids */
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &so, &s2), -EINVAL);
	so.cntlid_max = 0x100;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &s2), 0);
	so.nqn = "nqn.2024-01.org.example:range";
	so.cntlid_min = 0;
	so.cntlid_max = 0; /* both default: the whole range */
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &s2), 0);
	CU_ASSERT_EQUAL(s2->cntlid_min, 1);
	CU_ASSERT_EQUAL(s2->cntlid_max, 0xFFEF);

	/* TT_SUBNQN2 took 0x100..0x100 above; a second controller is refused. */
	q[0] = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_admin_bringup(q[0], TT_SUBNQN2, TT_HOSTNQN, 0), 0x100);
	q[1] = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(q[1], TT_SUBNQN2, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR);
	tt_queue_destroy(q[1]);
	/* Freed, the id comes back. */
	tt_queue_destroy(q[0]);
	q[0] = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_admin_bringup(q[0], TT_SUBNQN2, TT_HOSTNQN, 0), 0x100);
	tt_queue_destroy(q[0]);
	tt_env_destroy(env);
	env = NULL;

	/* A two-id range: both, then busy, then the first again once freed. */
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN;
	so.allow_any_host = true;
	so.cntlid_min = 0xFFEE;
	so.cntlid_max = 0xFFEF;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &s2), 0);
	for (int i = 0; i < 2; i++) {
		q[i] = tt_queue_create(env, 0, 32);
		CU_ASSERT_EQUAL(tt_admin_bringup(q[i], TT_SUBNQN, TT_HOSTNQN, 0), 0xFFEE + i);
	}
	q[2] = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(q[2], TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR);
	tt_queue_destroy(q[2]);
	tt_queue_destroy(q[0]);
	q[0] = tt_queue_create(env, 0, 32);
	/* Wraps from the top of the range back to its bottom, never past it. */
	CU_ASSERT_EQUAL(tt_admin_bringup(q[0], TT_SUBNQN, TT_HOSTNQN, 0), 0xFFEE);
	tt_queue_destroy(q[0]);
	tt_queue_destroy(q[1]);
	tt_env_destroy(env);
	env = NULL;
}

static const struct ut_case cases[] = {
	UT_CASE(test_log_default_bytes),
	UT_CASE(test_log_groups_states_nsids),
	UT_CASE(test_log_states_are_the_ports),
	UT_CASE(test_log_rgo_and_offsets),
	UT_CASE(test_io_per_state),
	UT_CASE(test_io_other_port_unaffected),
	UT_CASE(test_aen_on_state_change),
	UT_CASE(test_aen_needs_aec),
	UT_CASE(test_aen_on_grpid_change),
	UT_CASE(test_api_checks),
	UT_CASE(test_cntlid_range),
	UT_END,
};

UT_MAIN("target/ana", cases)
