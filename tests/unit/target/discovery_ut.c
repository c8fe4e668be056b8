/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/discovery.c: the discovery log with two subsystems, three
 * listeners (one on the wildcard address, one IPv6) and a host ACL, served
 * per port as nvmet does (only what the host's port exports, with that
 * port's address; every port when the transport did not say); ports with
 * explicit subsystem links; windows of any size and offset; GENCTR on every
 * change; the change event; and what a discovery controller refuses.
 */
#include <stdlib.h>
#include <string.h>

#include "protocol/disc.h"
#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *dq;
static struct rblk_subsystem *s1, *s2;

static void listen_on(const char *addr, uint16_t port, uint16_t portid, uint8_t treq)
{
	struct rblk_listen_opts o;

	rblk_listen_opts_init(&o);
	o.traddr = addr;
	o.trsvcid = port;
	o.portid = portid;
	o.treq = treq;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
}

static void setup(const char *hostnqn)
{
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	s1 = tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL);
	s2 = tt_add_subsys(env, TT_SUBNQN2, "mem:64K", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(s2, false), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(s2, TT_HOSTNQN2), 0);
	listen_on("10.99.0.1", 4420, 1, 0);
	listen_on(NULL, 4421, 0, NVMF_TREQ_DISABLE_SQFLOW);
	dq = tt_queue_create(env, 0, 32);
	dq->sq.listener = env->tgt->listeners[0];
	strcpy(dq->sq.local_traddr, "10.99.0.1");
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(dq, NVME_DISC_SUBSYS_NAME, hostnqn, 0), 0);
}

static void teardown(void)
{
	tt_queue_destroy(dq);
	dq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

/* The log as libnvme reads it: header first, then the whole in 4 KiB chunks. */
static uint8_t *read_log(struct tt_queue *q, uint64_t *numrec, uint64_t *genctr)
{
	struct nvmf_disc_log_hdr hdr;
	size_t len;
	uint8_t *buf;

	CU_ASSERT_EQUAL_FATAL(tt_get_log(q, NVME_LOG_DISC, 0, 0, sizeof(hdr), true, &hdr), 0);
	*numrec = rblk_le64(hdr.numrec);
	*genctr = rblk_le64(hdr.genctr);
	len = NVMF_DISC_LOG_HDR_SIZE + *numrec * NVMF_DISC_ENTRY_SIZE;
	buf = calloc(1, len + 4096);
	for (size_t off = 0; off < len; off += 4096) {
		size_t n = len - off < 4096 ? len - off : 4096;

		CU_ASSERT_EQUAL(tt_get_log(q, NVME_LOG_DISC, 0, off, (uint32_t)n, off + n < len,
					   buf + off), 0);
	}
	return buf;
}

static const struct nvmf_disc_log_entry *entry(const uint8_t *log, unsigned i)
{
	return (const struct nvmf_disc_log_entry *)(log + NVMF_DISC_LOG_HDR_SIZE +
						    i * NVMF_DISC_ENTRY_SIZE);
}

static void check_entry(const struct nvmf_disc_log_entry *e, uint8_t subtype, const char *subnqn,
			const char *traddr, const char *trsvcid, uint16_t portid, uint8_t treq)
{
	CU_ASSERT_EQUAL(e->trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(e->adrfam, NVMF_ADRFAM_IPV4);
	CU_ASSERT_EQUAL(e->subtype, subtype);
	CU_ASSERT_EQUAL(e->treq, treq);
	CU_ASSERT_EQUAL(rblk_le16(e->portid), portid);
	CU_ASSERT_EQUAL(rblk_le16(e->cntlid), 0xFFFF);
	CU_ASSERT_EQUAL(rblk_le16(e->asqsz), 32);
	CU_ASSERT_STRING_EQUAL(e->subnqn, subnqn);
	CU_ASSERT_STRING_EQUAL(e->traddr, traddr);
	CU_ASSERT_STRING_EQUAL(e->trsvcid, trsvcid);
	CU_ASSERT_EQUAL(e->tsas.rdma.qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(e->tsas.rdma.prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	CU_ASSERT_EQUAL(e->tsas.rdma.cms, NVMF_RDMA_CMS_RDMA_CM);
	CU_ASSERT_EQUAL(rblk_le16(e->tsas.rdma.pkey), 0);
}

static void test_log_content(void)
{
	uint64_t numrec, genctr;
	uint8_t *log;
	const struct nvmf_disc_log_entry *e;

	setup(TT_HOSTNQN);
	log = read_log(dq, &numrec, &genctr);
	/* Self entry + the open subsystem on the host's port only (nvmet); the ACL hides s2. */
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	CU_ASSERT(genctr > 0);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvmf_disc_log_hdr *)log)->recfmt), 0);
	e = entry(log, 0);
	check_entry(e, NVMF_SUBTYPE_CURRENT_DISCOVERY, NVME_DISC_SUBSYS_NAME, "10.99.0.1", "4420",
		    1, 0);
	CU_ASSERT_EQUAL(rblk_le16(e->eflags), NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD);
	check_entry(entry(log, 1), NVMF_SUBTYPE_NVME, TT_SUBNQN, "10.99.0.1", "4420", 1, 0);
	CU_ASSERT_EQUAL(rblk_le16(entry(log, 1)->eflags), 0);
	free(log);

	/* Asked through the wildcard listener: its entries, with the address the host reached. */
	dq->sq.listener = env->tgt->listeners[1];
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	check_entry(entry(log, 0), NVMF_SUBTYPE_CURRENT_DISCOVERY, NVME_DISC_SUBSYS_NAME,
		    "10.99.0.1", "4421", 2, NVMF_TREQ_DISABLE_SQFLOW);
	check_entry(entry(log, 1), NVMF_SUBTYPE_NVME, TT_SUBNQN, "10.99.0.1", "4421", 2,
		    NVMF_TREQ_DISABLE_SQFLOW);
	free(log);

	/* The transport did not say which port: every port, wildcard shown as our address. */
	dq->sq.listener = NULL;
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 3);
	check_entry(entry(log, 1), NVMF_SUBTYPE_NVME, TT_SUBNQN, "10.99.0.1", "4420", 1, 0);
	check_entry(entry(log, 2), NVMF_SUBTYPE_NVME, TT_SUBNQN, "10.99.0.1", "4421", 2,
		    NVMF_TREQ_DISABLE_SQFLOW);
	free(log);
	teardown();
}

static void test_log_acl_admits_host(void)
{
	uint64_t numrec, genctr;
	uint8_t *log;

	setup(TT_HOSTNQN2);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 3);
	check_entry(entry(log, 1), NVMF_SUBTYPE_NVME, TT_SUBNQN, "10.99.0.1", "4420", 1, 0);
	check_entry(entry(log, 2), NVMF_SUBTYPE_NVME, TT_SUBNQN2, "10.99.0.1", "4420", 1, 0);
	free(log);
	teardown();
}

static void test_log_unknown_local_address(void)
{
	uint64_t numrec, genctr;
	uint8_t *log;

	setup(TT_HOSTNQN);
	/* Without our local address a wildcard listener cannot be described: left out. */
	dq->sq.listener = NULL;
	dq->sq.local_traddr[0] = 0;
	listen_on("::1", 4420, 9, 0);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 3);
	CU_ASSERT_STRING_EQUAL(entry(log, 1)->trsvcid, "4420");
	CU_ASSERT_STRING_EQUAL(entry(log, 2)->traddr, "::1");
	CU_ASSERT_EQUAL(entry(log, 2)->adrfam, NVMF_ADRFAM_IPV6);
	CU_ASSERT_EQUAL(rblk_le16(entry(log, 2)->portid), 9);
	free(log);
	/* Asked through the wildcard port itself: only the self entry's address is unknown too. */
	dq->sq.listener = env->tgt->listeners[1];
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL(numrec, 0);
	free(log);
	teardown();
}

/*
 * Ports with subsystem links (nvmet's ports/N/subsystems): the log served on
 * a port lists what is linked there and admits the host; links and unlinks
 * bump GENCTR; removing a subsystem drops its links.
 */
static void test_log_per_port_links(void)
{
	struct rblk_listen_opts o;
	struct rblk_listener *pa, *pb;
	uint64_t numrec, genctr, g;
	uint8_t *log;

	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	s1 = tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL);
	s2 = tt_add_subsys(env, TT_SUBNQN2, "mem:64K", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
	rblk_listen_opts_init(&o);
	o.linked_only = true;
	o.traddr = "10.99.0.1";
	o.portid = 7;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	o.traddr = "10.99.0.2";
	o.portid = 8;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	pa = env->tgt->listeners[0];
	pb = env->tgt->listeners[1];
	dq = tt_queue_create(env, 0, 32);
	dq->sq.listener = pa;
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(dq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0), 0);

	/* Nothing linked yet: the self entry only. */
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL(numrec, 1);
	free(log);
	g = genctr;
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 8, TT_SUBNQN), 0);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 7, TT_SUBNQN2), 0);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 8, TT_SUBNQN2), 0);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT(genctr > g);
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	check_entry(entry(log, 0), NVMF_SUBTYPE_CURRENT_DISCOVERY, NVME_DISC_SUBSYS_NAME,
		    "10.99.0.1", "4420", 7, NVMF_TREQ_DISABLE_SQFLOW);
	check_entry(entry(log, 1), NVMF_SUBTYPE_NVME, TT_SUBNQN2, "10.99.0.1", "4420", 7,
		    NVMF_TREQ_DISABLE_SQFLOW);
	free(log);

	/* Port 8 has both, in subsystem order. */
	dq->sq.listener = pb;
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 3);
	check_entry(entry(log, 1), NVMF_SUBTYPE_NVME, TT_SUBNQN, "10.99.0.2", "4420", 8,
		    NVMF_TREQ_DISABLE_SQFLOW);
	check_entry(entry(log, 2), NVMF_SUBTYPE_NVME, TT_SUBNQN2, "10.99.0.2", "4420", 8,
		    NVMF_TREQ_DISABLE_SQFLOW);
	free(log);

	/* The host ACL still applies on a linked port. */
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(s2, false), 0);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	CU_ASSERT_STRING_EQUAL(entry(log, 1)->subnqn, TT_SUBNQN);
	free(log);
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(s2, true), 0);

	/* Unlinked: gone from that port's log, still on the other. */
	g = genctr;
	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 8, TT_SUBNQN2), 0);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT(genctr > g);
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	CU_ASSERT_STRING_EQUAL(entry(log, 1)->subnqn, TT_SUBNQN);
	free(log);
	dq->sq.listener = pa;
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	CU_ASSERT_STRING_EQUAL(entry(log, 1)->subnqn, TT_SUBNQN2);
	free(log);

	/* A removed subsystem takes its links along; added again, it is not linked. */
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, TT_SUBNQN2), 0);
	CU_ASSERT_EQUAL(pa->nr_subsys, 0);
	s2 = tt_add_subsys(env, TT_SUBNQN2, NULL, NULL);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL(numrec, 1);
	free(log);
	teardown();
}

static void test_log_windows(void)
{
	uint64_t numrec, genctr;
	uint8_t *log, *w = malloc(8192);
	size_t len;

	setup(TT_HOSTNQN2);
	log = read_log(dq, &numrec, &genctr);
	len = NVMF_DISC_LOG_HDR_SIZE + numrec * NVMF_DISC_ENTRY_SIZE;
	/* Odd-sized windows across the header/entry and entry/entry boundaries. */
	static const struct { uint64_t lpo; uint32_t len; } win[] = {
		{ 0, 4 }, { 1020, 8 }, { 1024, 1024 }, { 2044, 12 }, { 3000, 3000 }, { 4096, 4 },
	};
	for (unsigned i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
		memset(w, 0xAB, 8192);
		CU_ASSERT_EQUAL(tt_get_log(dq, NVME_LOG_DISC, 0, win[i].lpo, win[i].len, true, w), 0);
		CU_ASSERT_EQUAL(memcmp(w, log + win[i].lpo, win[i].len), 0);
	}
	/* Past the end: zero-filled. At the end: all zero. Beyond: refused. */
	memset(w, 0xAB, 8192);
	CU_ASSERT_EQUAL(tt_get_log(dq, NVME_LOG_DISC, 0, len - 8, 16, true, w), 0);
	CU_ASSERT_EQUAL(memcmp(w, log + len - 8, 8), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(w + 8), 0);
	CU_ASSERT_EQUAL(tt_get_log(dq, NVME_LOG_DISC, 0, len, 8, true, w), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(w), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(dq, NVME_LOG_DISC, 0, len + 4, 8, true, w)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(dq, NVME_LOG_DISC, 0, 6, 8, true, w)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	free(w);
	free(log);
	teardown();
}

static uint64_t genctr_now(void)
{
	struct nvmf_disc_log_hdr hdr;

	CU_ASSERT_EQUAL(tt_get_log(dq, NVME_LOG_DISC, 0, 0, sizeof(hdr), true, &hdr), 0);
	return rblk_le64(hdr.genctr);
}

static void test_genctr_changes(void)
{
	struct rblk_subsystem_opts so;
	struct rblk_ns_opts no;
	uint64_t g;

	setup(TT_HOSTNQN);
	g = genctr_now();
	CU_ASSERT_EQUAL(genctr_now(), g); /* stable without changes */
	rblk_subsystem_opts_init(&so);
	so.nqn = "nqn.2024-01.org.example:disk9";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &so, NULL), 0);
	CU_ASSERT(genctr_now() > g);
	g = genctr_now();
	rblk_ns_opts_init(&no);
	no.path = "mem:64K";
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(s1, &no, NULL), 0);
	CU_ASSERT(genctr_now() > g);
	g = genctr_now();
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(s2, TT_HOSTNQN), 0);
	CU_ASSERT(genctr_now() > g);
	g = genctr_now();
	listen_on("10.99.0.2", 4420, 0, 0);
	CU_ASSERT(genctr_now() > g);
	g = genctr_now();
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, "nqn.2024-01.org.example:disk9"), 0);
	CU_ASSERT(genctr_now() > g);
	teardown();
}

static void test_change_event(void)
{
	struct rblk_subsystem_opts so;
	struct nvme_sqe sqe;
	struct tt_req *tr;
	uint8_t hdr[1024];

	setup(TT_HOSTNQN);
	CU_ASSERT_EQUAL(tt_set_features(dq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_DISC_CHANGE, NULL), 0);
	tt_sqe(&sqe, NVME_ADMIN_ASYNC_EVENT, 31, 0);
	tr = tt_send(dq, &sqe, NULL, 0);
	tt_pump(env);
	CU_ASSERT_FALSE(tr->done);
	rblk_subsystem_opts_init(&so);
	so.nqn = "nqn.2024-01.org.example:disk9";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &so, NULL), 0);
	tt_pump(env);
	CU_ASSERT_TRUE_FATAL(tr->done);
	CU_ASSERT_EQUAL(rblk_le32(tr->cqe.dw0), 0x0070F002);
	tt_req_release(tr);
	/* Masked until a log read without RAE. */
	tr = tt_send(dq, &sqe, NULL, 0);
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, "nqn.2024-01.org.example:disk9"), 0);
	tt_pump(env);
	CU_ASSERT_FALSE(tr->done);
	CU_ASSERT_EQUAL(tt_get_log(dq, NVME_LOG_DISC, 0, 0, 1024, false, hdr), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(s2, TT_HOSTNQN), 0);
	tt_pump(env);
	CU_ASSERT_TRUE(tr->done);
	teardown();
}

static void test_discovery_commands(void)
{
	struct nvme_id_ctrl id;
	struct nvme_sqe sqe;
	uint8_t buf[4096];
	uint32_t dw0;

	setup(TT_HOSTNQN);
	CU_ASSERT_EQUAL_FATAL(tt_identify(dq, NVME_ID_CNS_CTRL, 0, 0, &id), 0);
	CU_ASSERT_EQUAL(id.cntrltype, 2);
	CU_ASSERT_STRING_EQUAL(id.subnqn, NVME_DISC_SUBSYS_NAME);
	CU_ASSERT_EQUAL(rblk_le32(id.oaes), NVME_CTRL_OAES_DISC_CHANGE);
	CU_ASSERT_EQUAL(id.lpa, NVME_CTRL_LPA_EXT_DATA);
	CU_ASSERT_EQUAL(rblk_le32(id.sgls) & NVME_CTRL_SGLS_KEYED, NVME_CTRL_SGLS_KEYED);
	CU_ASSERT_EQUAL(rblk_le16(id.icdoff), 0);
	CU_ASSERT_EQUAL(rblk_le16(id.kas), 10);
	CU_ASSERT_EQUAL(rblk_le32(id.nn), 0);
	CU_ASSERT_EQUAL(rblk_le16(id.oncs), 0);
	CU_ASSERT_EQUAL(rblk_le16(id.cntlid), dq->sq.ctrl->cntlid);
	/* Identify: CNS 01h only. Logs: 70h only. Features: 0Bh and 0Fh only. */
	CU_ASSERT_EQUAL(TT_SC(tt_identify(dq, NVME_ID_CNS_NS, 1, 0, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_log(dq, NVME_LOG_SMART, 0, 0, 512, false, buf)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_set_features(dq, NVME_FEAT_NUM_QUEUES, 0, NULL)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_get_features(dq, NVME_FEAT_HOST_ID, 0, 1, NULL, buf, 16)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_set_features(dq, NVME_FEAT_KATO, 30000, NULL), 0);
	CU_ASSERT_EQUAL(tt_get_features(dq, NVME_FEAT_KATO, 0, 0, &dw0, NULL, 0), 0);
	CU_ASSERT_EQUAL(dw0, 30000);
	/* KATO 0 means 120 s here, so Keep Alive always succeeds. */
	CU_ASSERT_EQUAL(tt_set_features(dq, NVME_FEAT_KATO, 0, NULL), 0);
	tt_sqe(&sqe, NVME_ADMIN_KEEP_ALIVE, 1, 0);
	CU_ASSERT_EQUAL(tt_cmd(dq, &sqe, NULL, 0, NULL, NULL, 0), 0);
	/* Everything else is an invalid opcode. */
	tt_sqe(&sqe, NVME_ADMIN_ABORT, 2, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(dq, &sqe, NULL, 0, NULL, NULL, 0)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	teardown();
}

static void test_build_log_direct(void)
{
	struct nvmf_disc_log_entry *entries;
	uint32_t numrec;
	uint64_t genctr;
	struct rblk_sq sq;

	/* No listener at all: an empty log, still with a header. */
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL(tt_add_subsys(env, TT_SUBNQN, NULL, NULL));
	memset(&sq, 0, sizeof(sq));
	CU_ASSERT_EQUAL_FATAL(rblk_disc_build_log(env->tgt, &sq, TT_HOSTNQN, &entries, &numrec,
						  &genctr), 0);
	CU_ASSERT_EQUAL(rblk_disc_log_size(numrec), 1024);
	CU_ASSERT_EQUAL(numrec, 0);
	free(entries);
	tt_env_destroy(env);
	env = NULL;
}

/*
 * A listener with default options advertises TREQ bit 2 like nvmet, so
 * connect-all connects with CATTR bit 2 on every queue: the Connect CQE then
 * carries SQHD 0xFFFF and later CQEs 0 (docs/interop.md §14.2, §3.4).
 */
static void test_default_treq_sqflow_disabled(void)
{
	struct rblk_listen_opts o;
	struct tt_queue *aq, *iq;
	struct nvme_cqe cqe;
	uint64_t numrec, genctr, v;
	uint16_t cntlid;
	uint8_t *log, b[512];

	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL));
	rblk_listen_opts_init(&o);
	o.traddr = "10.99.0.1";
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	dq = tt_queue_create(env, 0, 32);
	dq->sq.listener = env->tgt->listeners[0];
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(dq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0), 0);
	log = read_log(dq, &numrec, &genctr);
	CU_ASSERT_EQUAL_FATAL(numrec, 2);
	CU_ASSERT_EQUAL(entry(log, 0)->treq, 0x04);
	CU_ASSERT_EQUAL(entry(log, 1)->treq, 0x04);
	free(log);

	aq = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 5000,
				   NVMF_CATTR_DISABLE_SQFLOW, &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 0xFFFF);
	cntlid = (uint16_t)rblk_le32(cqe.dw0);
	CU_ASSERT_EQUAL(tt_prop_set(aq, NVME_REG_CC, 0x00460001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &v), 0);
	CU_ASSERT_EQUAL(v, NVME_CSTS_RDY);
	CU_ASSERT_EQUAL(aq->sq.sqhd, 0);
	iq = tt_queue_create(env, 1, 128);
	CU_ASSERT_EQUAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0,
				   NVMF_CATTR_DISABLE_SQFLOW, &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 0xFFFF);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqid), 1);
	{
		struct nvme_rw_cmd c;

		tt_rw_sqe(&c, NVME_IO_READ, 3, 1, 0, 1);
		CU_ASSERT_EQUAL(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 512, &cqe, b, 512), 0);
		CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 0);
		CU_ASSERT_EQUAL(rblk_le16(cqe.sqid), 1);
	}
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_log_content),
	UT_CASE(test_log_acl_admits_host),
	UT_CASE(test_log_unknown_local_address),
	UT_CASE(test_log_per_port_links),
	UT_CASE(test_log_windows),
	UT_CASE(test_genctr_changes),
	UT_CASE(test_change_event),
	UT_CASE(test_discovery_commands),
	UT_CASE(test_build_log_direct),
	UT_CASE(test_default_treq_sqflow_disabled),
	UT_END,
};

UT_MAIN("target/discovery", cases)
