/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/fabrics.c: Connect (admin and I/O, every failure status
 * with its IATTR/IPO DW0, SQHD/CATTR, per-port subsystem links and what
 * unlinking does to connected hosts), Property Get/Set, both Linux 6.1.y
 * enable sequences, shutdown, and what is refused before Connect / RDY.
 */
#include <string.h>

#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *aq;

static void setup(void)
{
	struct rblk_target_opts o;

	rblk_target_opts_init(&o);
	o.max_io_queues = 4;
	env = tt_env_create(&o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:1M", NULL));
	aq = tt_queue_create(env, 0, 32);
}

static void teardown(void)
{
	tt_queue_destroy(aq);
	aq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

/* A Connect with explicit command and data, for the malformed cases. */
static uint16_t connect_raw(struct tt_queue *q, const struct nvmf_connect_cmd *c,
			    const struct nvmf_connect_data *d, size_t len, struct nvme_cqe *cqe)
{
	return tt_cmd(q, (const struct nvme_sqe *)c, d, len, cqe, NULL, 0);
}

static void default_connect(struct tt_queue *q, struct nvmf_connect_cmd *c,
			    struct nvmf_connect_data *d, uint16_t qid, uint16_t cntlid)
{
	tt_fabrics_sqe((struct nvme_sqe *)c, NVMF_FCTYPE_CONNECT, 0xA001);
	c->qid = rblk_cpu_to_le16(qid);
	c->sqsize = rblk_cpu_to_le16(qid ? 127 : 31);
	memset(d, 0, sizeof(*d));
	memcpy(d->hostid, q->env->hostid, 16);
	d->cntlid = rblk_cpu_to_le16(cntlid);
	strcpy(d->subnqn, TT_SUBNQN);
	strcpy(d->hostnqn, TT_HOSTNQN);
}

static void test_admin_connect_success(void)
{
	struct nvme_cqe cqe;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 5000, 0, &cqe), 0);
	/* DW0 = CNTLID, AUTHREQ bits 31:16 zero. */
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 1);
	CU_ASSERT_EQUAL(rblk_le16(cqe.cid), 0x1234);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqid), 0);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 1); /* (0 + 1) mod 32 */
	CU_ASSERT_EQUAL(aq->sq.state, RBLK_SQ_LIVE);
	CU_ASSERT_EQUAL(aq->sq.size, 32);
	CU_ASSERT_EQUAL(aq->sq.ctrl->kato_ms, 5000);
	teardown();
}

static void test_second_admin_connect_new_cntlid(void)
{
	struct tt_queue *aq2;
	struct nvme_cqe c1, c2;

	setup();
	aq2 = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &c1), 0);
	CU_ASSERT_EQUAL(tt_connect(aq2, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &c2), 0);
	CU_ASSERT_NOT_EQUAL(rblk_le32(c1.dw0), rblk_le32(c2.dw0));
	CU_ASSERT(rblk_le32(c2.dw0) >= 1 && rblk_le32(c2.dw0) <= 0xFFEF);
	tt_queue_destroy(aq2);
	teardown();
}

static void test_connect_sqflow_disabled(void)
{
	struct nvme_cqe cqe;
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0,
				   NVMF_CATTR_DISABLE_SQFLOW, &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 0xFFFF);
	/* Later CQEs carry 0 (nvmet stops updating SQHD). */
	{
		struct nvmf_property_get_cmd c;

		tt_fabrics_sqe((struct nvme_sqe *)&c, NVMF_FCTYPE_PROP_GET, 0);
		c.ofst = rblk_cpu_to_le32(NVME_REG_VS);
		CU_ASSERT_EQUAL(tt_cmd(aq, (struct nvme_sqe *)&c, NULL, 0, &cqe, NULL, 0), 0);
		CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 0);
		CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010300);
	}
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	teardown();
}

static void test_sqhd_wraps(void)
{
	struct nvme_cqe cqe;
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 3, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 1);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	CU_ASSERT_EQUAL(aq->sq.sqhd, 0); /* 4 entries: 1, 2, 3, 0 */
	teardown();
}

static void test_connect_recfmt(void)
{
	struct nvmf_connect_cmd c;
	struct nvmf_connect_data d;
	struct nvme_cqe cqe;

	setup();
	default_connect(aq, &c, &d, 0, 0xFFFF);
	c.recfmt = rblk_cpu_to_le16(1);
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, sizeof(d), &cqe),
			NVME_SC_CONNECT_FORMAT | NVME_SC_DNR);
	CU_ASSERT_EQUAL(aq->sq.state, RBLK_SQ_NEW);
	teardown();
}

static void test_connect_admin_static_cntlid(void)
{
	struct nvme_cqe cqe;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 5, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010010);
	teardown();
}

/* With several faults, the one nvmet checks first: format, CNTLID, then the NQNs. */
static void test_connect_fault_order(void)
{
	struct nvmf_connect_cmd c;
	struct nvmf_connect_data d;
	struct nvme_cqe cqe;

	setup();
	default_connect(aq, &c, &d, 0, 5);
	memset(d.hostnqn, 'a', sizeof(d.hostnqn));
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, sizeof(d), &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010010);
	c.recfmt = rblk_cpu_to_le16(1);
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, sizeof(d), &cqe),
			NVME_SC_CONNECT_FORMAT | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0);
	CU_ASSERT_EQUAL(aq->sq.state, RBLK_SQ_NEW);
	teardown();
}

static void test_connect_unknown_subnqn(void)
{
	struct nvme_cqe cqe;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, "nqn.2024-01.org.example:nope", TT_HOSTNQN, 0, 31, 0xFFFF,
				   0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010100);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 0);
	CU_ASSERT_PTR_NULL(aq->sq.ctrl);
	teardown();
}

/* Two linked_only ports, 1 (TT_SUBNQN linked) and 2 (nothing linked). */
static void two_ports(struct rblk_listener **p1, struct rblk_listener **p2)
{
	struct rblk_listen_opts o;

	rblk_listen_opts_init(&o);
	o.linked_only = true;
	o.traddr = "10.99.0.1";
	o.portid = 1;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	o.traddr = "10.99.0.2";
	o.portid = 2;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_target_port_add_subsystem(env->tgt, 1, TT_SUBNQN), 0);
	*p1 = env->tgt->listeners[0];
	*p2 = env->tgt->listeners[1];
}

/*
 * nvmet: a subsystem not linked to the port the host connects through is
 * unknown there: Connect Invalid Parameters, IPO 256 (SUBNQN), admin and
 * I/O queues alike (docs/interop.md §6.6).
 */
static void test_connect_wrong_port(void)
{
	struct rblk_listener *p1, *p2;
	struct tt_queue *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;

	setup();
	two_ports(&p1, &p2);
	aq->sq.listener = p2;
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010100);
	CU_ASSERT_PTR_NULL(aq->sq.ctrl);
	/* The discovery subsystem is on every port. */
	CU_ASSERT_EQUAL(tt_connect(aq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0,
				   &cqe), 0);
	tt_queue_destroy(aq);

	/* Through port 1 it works, and the controller remembers the port. */
	aq = tt_queue_create(env, 0, 32);
	aq->sq.listener = p1;
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	CU_ASSERT_PTR_EQUAL(aq->sq.ctrl->listener, p1);
	/* An I/O queue through port 2 is refused the same way. */
	iq = tt_queue_create(env, 1, 128);
	iq->sq.listener = p2;
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010100);
	iq->sq.listener = p1;
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, &cqe), 0);
	tt_queue_destroy(iq);

	/* Linked to port 2 as well: a host may connect there now. */
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 2, TT_SUBNQN), 0);
	iq = tt_queue_create(env, 0, 32);
	iq->sq.listener = p2;
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	tt_queue_destroy(iq);
	teardown();
}

/*
 * Unlinking, as nvmet (nvmet_port_del_ctrls): the subsystem's controllers
 * that came through that port are disconnected, those of other ports stay,
 * and the reconnect is refused.
 */
static void test_unlink_disconnects_that_port(void)
{
	struct rblk_listener *p1, *p2;
	struct tt_queue *aq2, *iq;
	struct nvme_cqe cqe;
	uint16_t c1, c2;

	setup();
	two_ports(&p1, &p2);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 2, TT_SUBNQN), 0);
	aq->sq.listener = p1;
	c1 = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(c1, 0);
	iq = tt_queue_create(env, 1, 128);
	iq->sq.listener = p1;
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, c1, 0, 0, &cqe), 0);
	aq2 = tt_queue_create(env, 0, 32);
	aq2->sq.listener = p2;
	c2 = tt_admin_bringup(aq2, TT_SUBNQN, TT_HOSTNQN2, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(c2, 0);

	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 1, TT_SUBNQN), 0);
	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 1, TT_SUBNQN), -ENOENT);
	CU_ASSERT(atomic_load(&aq->disconnects) > 0);
	CU_ASSERT(atomic_load(&iq->disconnects) > 0);
	CU_ASSERT_TRUE(aq->sq.ctrl->fatal);
	CU_ASSERT_EQUAL(atomic_load(&aq2->disconnects), 0);
	CU_ASSERT_FALSE(aq2->sq.ctrl->fatal);
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	aq = tt_queue_create(env, 0, 32);
	aq->sq.listener = p1;
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010100);
	tt_queue_destroy(aq2);
	teardown();
}

static void test_connect_host_acl(void)
{
	struct rblk_subsystem *ss;
	struct nvme_cqe cqe;

	setup();
	ss = rblk_target_find_subsystem(env->tgt, TT_SUBNQN);
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(ss, false), 0);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010200);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN2), 0);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	teardown();
}

/* max_ctrls_per_host: the host's next admin Connect gets Controller Busy; others still connect. */
static void test_connect_ctrls_per_host(void)
{
	struct rblk_target_opts o;
	struct tt_queue *q[3];
	struct nvme_cqe cqe;

	rblk_target_opts_init(&o);
	o.max_ctrls_per_host = 2;
	env = tt_env_create(&o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:1M", NULL));
	for (int i = 0; i < 3; i++)
		q[i] = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(q[0], TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(tt_connect(q[1], TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(tt_connect(q[2], TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR);
	CU_ASSERT_PTR_NULL(q[2]->sq.ctrl);
	/* Another host is not held back by the first one's share. */
	CU_ASSERT_EQUAL(tt_connect(q[2], TT_SUBNQN, TT_HOSTNQN2, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	/* A controller that went away gives its place back. */
	tt_queue_destroy(q[0]);
	q[0] = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(q[0], TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	for (int i = 0; i < 3; i++)
		tt_queue_destroy(q[i]);
	tt_env_destroy(env);
	env = NULL;
}

/* A host taken off the allow list (a reload) loses its live controllers at once. */
static void test_revoked_host_loses_ctrls(void)
{
	struct rblk_subsystem *ss;
	struct tt_queue *aq2, *iq;
	struct nvme_cqe cqe;
	uint16_t c1;

	setup();
	ss = rblk_target_find_subsystem(env->tgt, TT_SUBNQN);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN2), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(ss, false), 0);
	c1 = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(c1, 0);
	iq = tt_queue_create(env, 1, 128);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, c1, 0, 0, &cqe), 0);
	aq2 = tt_queue_create(env, 0, 32);
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(aq2, TT_SUBNQN, TT_HOSTNQN2, 0), 0);

	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_TRUE(aq->sq.ctrl->fatal);
	CU_ASSERT(atomic_load(&aq->disconnects) > 0);
	CU_ASSERT(atomic_load(&iq->disconnects) > 0);
	CU_ASSERT_FALSE(aq2->sq.ctrl->fatal);
	CU_ASSERT_EQUAL(atomic_load(&aq2->disconnects), 0);

	/* Turning allow-any off with no list entry for the host does the same. */
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(ss, true), 0);
	CU_ASSERT_FALSE(aq2->sq.ctrl->fatal);
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN2), 0);
	CU_ASSERT_FALSE(aq2->sq.ctrl->fatal); /* allow-any still admits it */
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(ss, false), 0);
	CU_ASSERT_TRUE(aq2->sq.ctrl->fatal);
	tt_queue_destroy(iq);
	tt_queue_destroy(aq2);
	teardown();
}

static void test_connect_sqsize(void)
{
	struct tt_queue *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 0, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002C);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 32, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002C);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);

	/* I/O: MQES = 127 with the default depth; 128 is one too many. */
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 128, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002C);
	tt_queue_destroy(iq);
	/* Nor more than the receive buffers the CM exchange allowed. */
	iq = tt_queue_create(env, 1, 64);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 64, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002C);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 63, cntlid, 0, 0, &cqe), 0);
	tt_queue_destroy(iq);
	teardown();
}

static void test_io_connect(void)
{
	struct tt_queue *iq, *iq2;
	struct nvme_cqe cqe;
	uint16_t cntlid;

	setup();
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 2, 128);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), cntlid);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqid), 2);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 1);
	CU_ASSERT_PTR_EQUAL(iq->sq.ctrl, aq->sq.ctrl);
	CU_ASSERT_EQUAL(iq->sq.size, 128);

	/* The same QID again on another queue: Command Sequence Error. */
	iq2 = tt_queue_create(env, 2, 128);
	CU_ASSERT_EQUAL(tt_connect(iq2, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	CU_ASSERT_EQUAL(iq2->sq.state, RBLK_SQ_NEW);
	tt_queue_destroy(iq2);

	/* A second Connect on a live queue. */
	CU_ASSERT_EQUAL(TT_SC(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, &cqe)),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	tt_queue_destroy(iq);
	teardown();
}

static void test_io_connect_wrong_ctrl(void)
{
	struct tt_queue *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;

	setup();
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid + 1, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010010);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN2, 1, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010010);
	/* Host ID must be the admin queue's. */
	env->hostid[0] ^= 0xFF;
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010000);
	env->hostid[0] ^= 0xFF;
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, &cqe), 0);
	tt_queue_destroy(iq);
	teardown();
}

static void test_io_connect_qid_limit(void)
{
	struct tt_queue *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;
	uint32_t dw0;

	setup();
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	/* max_io_queues is 4: qid 5 is out before Set Features... */
	iq = tt_queue_create(env, 5, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 5, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002A);
	tt_queue_destroy(iq);
	/* ...and after granting 2, qid 3 is out too. */
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_NUM_QUEUES, 0x00010001, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0x00010001);
	iq = tt_queue_create(env, 3, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 3, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002A);
	tt_queue_destroy(iq);
	iq = tt_queue_create(env, 2, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, &cqe), 0);
	tt_queue_destroy(iq);
	teardown();
}

static void test_io_connect_before_enable(void)
{
	struct tt_queue *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	cntlid = (uint16_t)rblk_le32(cqe.dw0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, &cqe),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	tt_queue_destroy(iq);
	teardown();
}

static void test_connect_cm_qid_mismatch(void)
{
	struct nvme_cqe cqe;
	struct tt_queue *q;

	setup();
	q = tt_queue_create(env, 1, 32);
	CU_ASSERT_EQUAL(tt_connect(q, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002A);
	tt_queue_destroy(q);
	teardown();
}

/* CM QID 0xFFFF is a QID like any other, not "unknown": Connect must match it. */
static void test_connect_cm_qid_ffff(void)
{
	struct nvme_cqe cqe;
	struct tt_queue *q;

	setup();
	q = tt_queue_create(env, 0xFFFF, 32);
	CU_ASSERT_EQUAL(tt_connect(q, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002A);
	tt_queue_destroy(q);
	teardown();
}

static void test_connect_bad_data(void)
{
	struct nvmf_connect_cmd c;
	struct nvmf_connect_data d;
	struct nvme_cqe cqe;

	setup();
	default_connect(aq, &c, &d, 0, 0xFFFF);
	/* The transport's exact-length rule: 1024 bytes, not 512. */
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, 512, &cqe), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	/* A host NQN field without a NUL is rejected, not truncated. */
	memset(d.hostnqn, 'a', sizeof(d.hostnqn));
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, sizeof(d), &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010200);
	/* Terminated but 224 bytes: longer than any NQN (protocol/connect.c's rule). */
	d.hostnqn[224] = '\0';
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, sizeof(d), &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010200);
	d.hostnqn[223] = '\0';
	CU_ASSERT_EQUAL(connect_raw(aq, &c, &d, sizeof(d), &cqe), 0);
	teardown();
}

static void test_unconnected_queue_refuses(void)
{
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CAP, true, &v),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	tt_sqe(&sqe, NVME_ADMIN_IDENTIFY, 3, 0);
	CU_ASSERT_EQUAL(tt_cmd(aq, &sqe, NULL, 4096, &cqe, NULL, 0),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le16(cqe.cid), 3);
	teardown();
}

static void test_unknown_fctype(void)
{
	struct nvme_sqe sqe;

	setup();
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0), 0);
	tt_fabrics_sqe(&sqe, NVMF_FCTYPE_DISCONNECT, 4);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	((uint8_t *)&sqe)[NVME_SQE_FCTYPE_OFFSET] = NVMF_FCTYPE_AUTH_SEND;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	teardown();
}

static void test_properties(void)
{
	struct nvmf_property_get_cmd g;
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, NULL), 0);
	/* MQES 127, CQR, TO 15, CSS bit 37, MPSMIN 0, no CRMS (docs/interop.md §7.3). */
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CAP, true, &v), 0);
	CU_ASSERT_EQUAL(v, 0x000000200F01007Full);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00010300);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CC, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	/* CAP is 8 bytes only; VS/CC/CSTS 4 bytes only; CRTO absent. */
	CU_ASSERT_EQUAL(TT_SC(tt_prop_get(aq, NVME_REG_CAP, false, &v)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_prop_get(aq, NVME_REG_CC, true, &v)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_prop_get(aq, NVME_REG_CRTO, false, &v)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* Only CC is writable. */
	CU_ASSERT_EQUAL(TT_SC(tt_prop_set(aq, NVME_REG_CSTS, 1)), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* ATTRIB size 2 (reserved). */
	tt_fabrics_sqe((struct nvme_sqe *)&g, NVMF_FCTYPE_PROP_GET, 0);
	g.attrib = 2;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&g, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* Property commands carry no data: a 4-byte SGL is refused. */
	g.attrib = 0;
	g.ofst = rblk_cpu_to_le32(NVME_REG_VS);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&g, NULL, 4, NULL, NULL, 0)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	teardown();
}

/* Debian 6.1.192: CC with EN = 0, read back CC, read CAP, then EN = 1. */
static void test_enable_sequence_6_1_192(void)
{
	struct nvme_sqe sqe;
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, NULL), 0);
	/* Before RDY, non-fabrics admin commands are a sequence error. */
	tt_sqe(&sqe, NVME_ADMIN_IDENTIFY, 1, 0);
	((struct nvme_identify_cmd *)&sqe)->cns = NVME_ID_CNS_CTRL;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &sqe, NULL, 4096, NULL, NULL, 0)),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00460000), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CC, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00460000);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CAP, true, &v), 0);
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00460001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, NVME_CSTS_RDY);
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, NULL), 0);
	teardown();
}

/* Early 6.1.y: one write with EN = 1. */
static void test_enable_sequence_single_write(void)
{
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00460001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, NVME_CSTS_RDY);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CC, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00460001);
	teardown();
}

static void test_enable_bad_config(void)
{
	static const uint32_t bad[] = {
		0x00470001, /* IOSQES 7 */
		0x00450001, /* IOCQES... IOSQES 5 */
		0x00560001, /* IOCQES 5 */
		0x00460081, /* MPS 1 */
		0x00460801, /* AMS 1 */
		0x00460061, /* CSS 6: CAP has no bit 43 */
	};
	uint64_t v;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup();
		CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, NULL), 0);
		CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, bad[i]), 0);
		CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
		CU_ASSERT_EQUAL(v, NVME_CSTS_CFS);
		CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, NULL)),
				NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
		teardown();
	}
}

static void test_shutdown_and_unsafe_count(void)
{
	struct rblk_subsystem *ss;
	uint64_t v;

	setup();
	ss = rblk_target_find_subsystem(env->tgt, TT_SUBNQN);
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0), 0);
	/*
	 * nvme disconnect: CC.SHN = 01b; RDY clears at once, SHST reads 01b
	 * (processing) or already 10b, and 10b once the namespace is synced.
	 */
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00464001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v & NVME_CSTS_RDY, 0);
	CU_ASSERT_TRUE(NVME_CSTS_SHST(v) == NVME_CSTS_SHST_OCCUR ||
		       NVME_CSTS_SHST(v) == NVME_CSTS_SHST_CMPLT);
	CU_ASSERT_EQUAL(tt_wait_shutdown(aq, &v), 0);
	CU_ASSERT_EQUAL(v, NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT);
	tt_queue_destroy(aq);
	CU_ASSERT_EQUAL(atomic_load(&ss->unsafe_shutdowns), 0);

	/* The same host going away without a shutdown is counted. */
	aq = tt_queue_create(env, 0, 32);
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0), 0);
	tt_queue_destroy(aq);
	CU_ASSERT_EQUAL(atomic_load(&ss->unsafe_shutdowns), 1);
	aq = NULL;
	teardown();
}

static void test_disable_clears_ready(void)
{
	uint64_t v;

	setup();
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0), 0);
	/* The reset path: EN = 0, wait for RDY = 0. */
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00460000), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CC, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	teardown();
}

static void test_discovery_connect(void)
{
	struct nvme_cqe cqe;
	uint64_t v;

	setup();
	CU_ASSERT_EQUAL(tt_connect(aq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			0);
	CU_ASSERT_EQUAL(aq->sq.ctrl->kato_ms, RBLK_DISC_KATO_MS);
	/* Discovery before RDY: Invalid Opcode, not a sequence error. */
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, NULL)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	/* Its CC check skips IOSQES/IOCQES. */
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00000001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, NVME_CSTS_RDY);
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, NULL), 0);
	teardown();
}

static void test_discovery_no_io_queues(void)
{
	struct tt_queue *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;

	setup();
	cntlid = tt_admin_bringup(aq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL(tt_connect(iq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 1, 31, cntlid, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x0000002A);
	tt_queue_destroy(iq);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_connect_ctrls_per_host),
	UT_CASE(test_revoked_host_loses_ctrls),
	UT_CASE(test_admin_connect_success),
	UT_CASE(test_second_admin_connect_new_cntlid),
	UT_CASE(test_connect_sqflow_disabled),
	UT_CASE(test_sqhd_wraps),
	UT_CASE(test_connect_recfmt),
	UT_CASE(test_connect_admin_static_cntlid),
	UT_CASE(test_connect_fault_order),
	UT_CASE(test_connect_unknown_subnqn),
	UT_CASE(test_connect_wrong_port),
	UT_CASE(test_unlink_disconnects_that_port),
	UT_CASE(test_connect_host_acl),
	UT_CASE(test_connect_sqsize),
	UT_CASE(test_io_connect),
	UT_CASE(test_io_connect_wrong_ctrl),
	UT_CASE(test_io_connect_qid_limit),
	UT_CASE(test_io_connect_before_enable),
	UT_CASE(test_connect_cm_qid_mismatch),
	UT_CASE(test_connect_cm_qid_ffff),
	UT_CASE(test_connect_bad_data),
	UT_CASE(test_unconnected_queue_refuses),
	UT_CASE(test_unknown_fctype),
	UT_CASE(test_properties),
	UT_CASE(test_enable_sequence_6_1_192),
	UT_CASE(test_enable_sequence_single_write),
	UT_CASE(test_enable_bad_config),
	UT_CASE(test_shutdown_and_unsafe_count),
	UT_CASE(test_disable_clears_ready),
	UT_CASE(test_discovery_connect),
	UT_CASE(test_discovery_no_io_queues),
	UT_END,
};

UT_MAIN("target/fabrics", cases)
