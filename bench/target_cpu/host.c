/* SPDX-License-Identifier: MIT */
/*
 * target_cpu's NVMe host (see host.h): controller bring-up over the fabric's
 * CM and the closed loop that answers each response with the next command.
 * Capsules are built with protocol/'s encoders; every response is checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/target_cpu/host.h"
#include "protocol/cm.h"
#include "protocol/connect.h"
#include "protocol/le.h"
#include "protocol/nvme.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_regs.h"
#include "protocol/sgl.h"

#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000c0001"
#define ADMIN_DEPTH 32
#define WAIT_MS 5000
#define SETUP_BUF 8192            /* admin data: Identify (4 KiB), Connect data (1 KiB) */
#define STAMP 0x72626c6b7374616dull

struct host_slot {
	uint64_t lba;
	bool write;
	bool busy;
};

struct host_queue {
	/* Whole lines: each queue is its own poll group's (rblk_calloc_lines). */
	_Alignas(RBLK_CACHE_LINE) struct host_ctrl *c;
	uint16_t qid;
	uint16_t depth;
	struct rblk_cm_id *id;
	struct rblk_qp *qp;
	uint8_t *buf;                 /* set-up data, or the loop's slots */
	size_t buf_len;
	struct rblk_mr *mr;

	/* Set-up: the caller waits for one response at a time. */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool have_rsp;
	struct nvme_cqe rsp;
	uint16_t next_cid;

	/* Loop: from the first command on, only the poll group's thread. */
	bool loop;
	struct host_wl wl;
	uint32_t nlb;
	uint64_t nslots_lba;          /* I/O-sized places this queue uses */
	/*
	 * Verify: queue i uses places i, i + stride, ... only. Two poll groups
	 * reading and writing one block at once may tear it (NVMe promises one
	 * command's atomicity to no other), and the check would call it wrong.
	 */
	uint64_t place_first, place_stride;
	uint64_t rng;
	bool incapsule;
	struct host_slot *slots;      /* [qd]: cid = slot */
	atomic_bool stop;
	_Atomic uint64_t outstanding;
	_Atomic uint64_t done;
	_Atomic uint64_t verified;
};

struct host_ctrl {
	struct rblk_cm_channel *ch;
	struct rblk_pd *pd;
	struct rblk_cq *cq;           /* the host QPs' CQ: the driver takes their traffic */
	struct host_info info;
	char subnqn[256];
	uint8_t hostid[16];
	unsigned nq;                  /* admin + I/O */
	struct host_queue *q;         /* [nq] */
};

/* ------------------------------------------------------------------------ */
/* Responses.                                                                */

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64*: a few cycles, plenty for spreading LBAs. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static void *slot_buf(struct host_queue *q, unsigned slot)
{
	return q->buf + (size_t)slot * q->wl.bs;
}

/* Every 8 bytes of a block name its LBA: a misplaced or partial copy shows. */
static void stamp(struct host_queue *q, uint64_t *p, uint64_t lba)
{
	uint32_t words = q->c->info.lba_size / 8;

	for (uint32_t b = 0; b < q->nlb; b++, lba++)
		for (uint32_t w = 0; w < words; w++)
			*p++ = (STAMP ^ lba) + w;
}

static void check(struct host_queue *q, const uint64_t *p, uint64_t lba)
{
	uint32_t words = q->c->info.lba_size / 8;
	uint64_t good = 0;

	for (uint32_t b = 0; b < q->nlb; b++, lba++, p += words) {
		bool zero = true, ok = true;

		for (uint32_t w = 0; w < words; w++) {
			zero &= p[w] == 0;
			ok &= p[w] == (STAMP ^ lba) + w;
		}
		if (ok) {
			good++;
		} else if (!zero) {
			fab_fail("qid %u: read of LBA %llu: wrong data (first word %#llx, expected %#llx)",
				 q->qid, (unsigned long long)lba, (unsigned long long)p[0],
				 (unsigned long long)(STAMP ^ lba));
			return;
		}
	}
	fab_add(&q->verified, good);
}

static int issue(struct host_queue *q, unsigned slot)
{
	uint64_t r = rnd(&q->rng);
	uint64_t lba = ((r % q->nslots_lba) * q->place_stride + q->place_first) * q->nlb;
	bool write = q->wl.verify ? (r >> 63) : q->wl.write;
	struct host_slot *sl = &q->slots[slot];
	struct nvme_rw_cmd c;
	const void *data = NULL;
	uint32_t dlen = 0;

	memset(&c, 0, sizeof(c));
	c.opc = write ? NVME_IO_WRITE : NVME_IO_READ;
	c.flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	c.cid = rblk_cpu_to_le16((uint16_t)slot);
	c.nsid = rblk_cpu_to_le32(1);
	c.slba = rblk_cpu_to_le64(lba);
	c.nlb = rblk_cpu_to_le16((uint16_t)(q->nlb - 1));
	if (q->wl.verify && write)
		stamp(q, slot_buf(q, slot), lba);
	if (write && q->incapsule) {
		rblk_sgl_encode_incapsule(&c.sgl1, 0, q->wl.bs);
		data = slot_buf(q, slot);
		dlen = q->wl.bs;
	} else {
		rblk_sgl_encode_keyed(&c.sgl1, (uint64_t)(uintptr_t)slot_buf(q, slot), q->wl.bs,
				      rblk_mr_rkey(q->mr), false);
	}
	sl->busy = true;
	sl->write = write;
	sl->lba = lba;
	return fab_host_send(q->qp, &c, sizeof(c), data, dlen);
}

static void on_loop_rsp(struct host_queue *q, const struct nvme_cqe *cqe)
{
	uint16_t cid = rblk_le16(cqe->cid), st = nvme_cqe_status(cqe);
	struct host_slot *sl = cid < q->wl.qd ? &q->slots[cid] : NULL;

	if (!sl || !sl->busy) {
		fab_fail("qid %u: response for cid %u, which is not outstanding", q->qid, cid);
		return;
	}
	if (st) {
		fab_fail("qid %u cid %u: %s of LBA %llu failed with status %#x", q->qid, cid,
			 sl->write ? "write" : "read", (unsigned long long)sl->lba, st);
		return;
	}
	if (q->wl.verify && !sl->write)
		check(q, slot_buf(q, cid), sl->lba);
	fab_add(&q->done, 1);
	if (atomic_load_explicit(&q->stop, memory_order_relaxed)) {
		sl->busy = false;
		atomic_store_explicit(&q->outstanding,
				      atomic_load_explicit(&q->outstanding, memory_order_relaxed) - 1,
				      memory_order_release);
		return;
	}
	if (issue(q, cid))
		fab_fail("qid %u: cannot send the next command", q->qid);
}

static void on_rsp(void *ctx, const void *data, uint32_t len)
{
	struct host_queue *q = ctx;
	struct nvme_cqe cqe;

	if (len != sizeof(cqe)) {
		fab_fail("qid %u: a response of %u bytes", q->qid, len);
		return;
	}
	memcpy(&cqe, data, sizeof(cqe));
	if (q->loop) {
		on_loop_rsp(q, &cqe);
		return;
	}
	pthread_mutex_lock(&q->lock);
	q->rsp = cqe;
	q->have_rsp = true;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->lock);
}

static const struct fab_host_ops host_ops = { .recv = on_rsp };

/* ------------------------------------------------------------------------ */
/* Set-up: one command at a time, from the caller's thread.                  */

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

static void deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/*
 * Sends sqe (cid set here) with dlen bytes of data at the start of the
 * queue's buffer described by a keyed SGL, waits for the response.
 * Returns 0 with *cqe, or -errno with err saying what.
 */
static int exec(struct host_queue *q, struct nvme_sqe *sqe, uint32_t dlen, struct nvme_cqe *cqe,
		const char *what, char *err, size_t errlen)
{
	uint16_t cid = q->next_cid++, st;
	struct timespec dl;
	int ret = 0;

	sqe->cid = rblk_cpu_to_le16(cid);
	sqe->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	if (dlen)
		rblk_sgl_encode_keyed(&sqe->sgl1, (uint64_t)(uintptr_t)q->buf, dlen,
				      rblk_mr_rkey(q->mr), false);
	else
		rblk_sgl_encode_null(&sqe->sgl1);
	pthread_mutex_lock(&q->lock);
	q->have_rsp = false;
	pthread_mutex_unlock(&q->lock);
	ret = fab_host_send(q->qp, sqe, sizeof(*sqe), NULL, 0);
	if (ret)
		return fail(err, errlen, ret, "%s on qid %u: send: %s", what, q->qid, strerror(-ret));
	deadline_in(&dl, WAIT_MS);
	pthread_mutex_lock(&q->lock);
	while (!q->have_rsp && !ret)
		ret = -pthread_cond_timedwait(&q->cv, &q->lock, &dl);
	*cqe = q->rsp;
	pthread_mutex_unlock(&q->lock);
	if (ret)
		return fail(err, errlen, ret, "%s on qid %u: no response in %d ms%s%s", what, q->qid,
			    WAIT_MS, fab_failure() ? ": " : "", fab_failure() ? fab_failure() : "");
	st = nvme_cqe_status(cqe);
	if (rblk_le16(cqe->cid) != cid)
		return fail(err, errlen, -EPROTO, "%s on qid %u: response for cid %u, sent %u", what,
			    q->qid, rblk_le16(cqe->cid), cid);
	if (st)
		return fail(err, errlen, -EIO, "%s on qid %u: status %#x", what, q->qid, st);
	return 0;
}

static int wait_cm(struct host_ctrl *c, struct host_queue *q, enum rblk_cm_event_type want,
		   struct rblk_cm_event *ev, char *err, size_t errlen)
{
	int ret = rblk_cm_wait_event(c->ch, WAIT_MS, ev);

	if (ret)
		return fail(err, errlen, ret, "qid %u: waiting for %s: %s", q->qid,
			    rblk_cm_event_str(want), strerror(-ret));
	if (ev->id != q->id || ev->type != want) {
		uint16_t sts = 0;

		if (ev->type == RBLK_CM_EVENT_REJECTED)
			rblk_cm_rej_decode(ev->param.private_data, ev->param.private_data_len, &sts);
		fail(err, errlen, -ECONNREFUSED, "qid %u: %s (status %d%s%s) instead of %s", q->qid,
		     rblk_cm_event_str(ev->type), ev->status, sts ? ", " : "",
		     sts ? rblk_cm_rej_str(sts) : "", rblk_cm_event_str(want));
		rblk_cm_ack_event(ev);
		return -ECONNREFUSED;
	}
	return 0;
}

/* The RDMA connection of one queue: CM id, QP with the host driver, buffer. */
static int queue_connect(struct host_ctrl *c, struct host_queue *q, const struct sockaddr *dst,
			 char *err, size_t errlen)
{
	struct rblk_qp_caps caps = { 0 };
	struct nvme_rdma_cm_req req;
	struct rblk_cm_req_info ri = { 0 };
	struct rblk_conn_param p = { 0 };
	struct rblk_cm_event ev;
	pthread_condattr_t ca;
	int ret;

	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cv, &ca);
	pthread_condattr_destroy(&ca);
	q->next_cid = 0x100;
	ret = rblk_cm_id_create(c->ch, q, &q->id);
	if (!ret)
		ret = rblk_cm_resolve_addr(q->id, NULL, dst, WAIT_MS);
	if (ret)
		return fail(err, errlen, ret, "qid %u: resolving the address: %s", q->qid,
			    strerror(-ret));
	ret = wait_cm(c, q, RBLK_CM_EVENT_ADDR_RESOLVED, &ev, err, errlen);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	ret = rblk_cm_resolve_route(q->id, WAIT_MS);
	if (!ret)
		ret = wait_cm(c, q, RBLK_CM_EVENT_ROUTE_RESOLVED, &ev, err, errlen);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	if (!c->pd) {
		ret = rblk_pd_alloc(rblk_cm_id_device(q->id), &c->pd);
		if (!ret)
			ret = rblk_cq_create(rblk_cm_id_device(q->id), 64, 0, false, &c->cq);
		if (ret)
			return fail(err, errlen, ret, "PD/CQ: %s", strerror(-ret));
	}
	caps.max_send_wr = q->depth;
	caps.max_recv_wr = q->depth;
	caps.max_send_sge = 2;
	caps.max_recv_sge = 1;
	ret = rblk_qp_create(q->id, c->pd, c->cq, c->cq, &caps, q, &q->qp);
	if (ret)
		return fail(err, errlen, ret, "qid %u: QP: %s", q->qid, strerror(-ret));
	fab_qp_set_host(q->qp, &host_ops, q);
	if (posix_memalign((void **)&q->buf, 4096, q->buf_len))
		return fail(err, errlen, -ENOMEM, "qid %u: buffer", q->qid);
	memset(q->buf, 0, q->buf_len);
	ret = rblk_mr_reg(c->pd, q->buf, q->buf_len,
			  RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ | RBLK_ACCESS_REMOTE_WRITE,
			  &q->mr);
	if (ret)
		return fail(err, errlen, ret, "qid %u: MR: %s", q->qid, strerror(-ret));

	ri.qid = q->qid;
	ri.hrqsize = q->depth;
	ri.hsqsize = (uint16_t)(q->depth - 1);
	rblk_cm_req_encode(&req, &ri);
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	/* As the Linux host: the target may have 16 RDMA READs outstanding at us. */
	p.responder_resources = 16;
	p.initiator_depth = 16;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	ret = rblk_cm_connect(q->id, &p);
	if (ret)
		return fail(err, errlen, ret, "qid %u: connect: %s", q->qid, strerror(-ret));
	ret = wait_cm(c, q, RBLK_CM_EVENT_ESTABLISHED, &ev, err, errlen);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	return 0;
}

static int fabrics_connect(struct host_ctrl *c, struct host_queue *q, char *err, size_t errlen)
{
	struct rblk_connect_info ci = { 0 };
	struct nvmf_connect_cmd cmd;
	struct nvme_cqe cqe;
	int ret;

	ci.qid = q->qid;
	ci.sqsize = (uint16_t)(q->depth - 1);
	ci.kato_ms = q->qid ? 0 : 5000;
	ci.cntlid = q->qid ? c->info.cntlid : 0xFFFF;
	memcpy(ci.hostid, c->hostid, sizeof(ci.hostid));
	snprintf(ci.subnqn, sizeof(ci.subnqn), "%s", c->subnqn);
	snprintf(ci.hostnqn, sizeof(ci.hostnqn), "%s", HOSTNQN);
	ret = rblk_connect_encode(&ci, 0, &cmd, (struct nvmf_connect_data *)q->buf);
	if (ret)
		return fail(err, errlen, ret, "qid %u: Connect encoding: %s", q->qid, strerror(-ret));
	ret = exec(q, (struct nvme_sqe *)&cmd, NVMF_CONNECT_DATA_SIZE, &cqe, "Fabrics Connect", err,
		   errlen);
	if (ret)
		return ret;
	if (!q->qid)
		c->info.cntlid = (uint16_t)rblk_le32(cqe.dw0);
	return 0;
}

static int prop(struct host_queue *q, bool set, uint32_t ofst, uint32_t value, uint32_t *out,
		char *err, size_t errlen)
{
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	int ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opc = NVME_FABRICS_COMMAND;
	if (set) {
		struct nvmf_property_set_cmd *c = (struct nvmf_property_set_cmd *)&sqe;

		c->fctype = NVMF_FCTYPE_PROP_SET;
		c->attrib = NVMF_PROP_SIZE_4;
		c->ofst = rblk_cpu_to_le32(ofst);
		c->value = rblk_cpu_to_le64(value);
	} else {
		struct nvmf_property_get_cmd *c = (struct nvmf_property_get_cmd *)&sqe;

		c->fctype = NVMF_FCTYPE_PROP_GET;
		c->attrib = NVMF_PROP_SIZE_4;
		c->ofst = rblk_cpu_to_le32(ofst);
	}
	ret = exec(q, &sqe, 0, &cqe, set ? "Property Set" : "Property Get", err, errlen);
	if (!ret && out)
		*out = rblk_le32(cqe.dw0);
	return ret;
}

static int identify(struct host_queue *q, uint8_t cns, uint32_t nsid, char *err, size_t errlen)
{
	struct nvme_identify_cmd *c;
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;

	memset(&sqe, 0, sizeof(sqe));
	c = (struct nvme_identify_cmd *)&sqe;
	c->opc = NVME_ADMIN_IDENTIFY;
	c->nsid = rblk_cpu_to_le32(nsid);
	c->cns = cns;
	memset(q->buf, 0, 4096);
	return exec(q, &sqe, 4096, &cqe, cns == NVME_ID_CNS_CTRL ? "Identify Controller"
								 : "Identify Namespace",
		    err, errlen);
}

static uint32_t cc_enabled(void)
{
	return ((uint32_t)NVME_SQE_SHIFT << NVME_CC_IOSQES_SHIFT) |
	       ((uint32_t)NVME_CQE_SHIFT << NVME_CC_IOCQES_SHIFT) |
	       (NVME_CC_CSS_NVM << NVME_CC_CSS_SHIFT) | NVME_CC_EN;
}

/* CC.EN = 1, CSTS.RDY, then what the controller and namespace 1 are. */
static int enable(struct host_ctrl *c, char *err, size_t errlen)
{
	struct host_queue *aq = &c->q[0];
	const struct nvme_id_ctrl *idc = (const void *)aq->buf;
	const struct nvme_id_ns *idn = (const void *)aq->buf;
	uint32_t csts = 0;
	int ret;

	ret = prop(aq, true, NVME_REG_CC, cc_enabled(), NULL, err, errlen);
	for (int i = 0; !ret && i < WAIT_MS && !(csts & NVME_CSTS_RDY); i++) {
		struct timespec d = { 0, 1000 * 1000 };

		ret = prop(aq, false, NVME_REG_CSTS, 0, &csts, err, errlen);
		if (!ret && !(csts & NVME_CSTS_RDY))
			nanosleep(&d, NULL);
	}
	if (ret)
		return ret;
	if (!(csts & NVME_CSTS_RDY))
		return fail(err, errlen, -ETIMEDOUT, "CSTS.RDY not set %d ms after CC.EN", WAIT_MS);
	ret = identify(aq, NVME_ID_CNS_CTRL, 0, err, errlen);
	if (ret)
		return ret;
	c->info.icd_bytes = rblk_le32(idc->ioccsz) * 16 - 64;
	c->info.mdts_bytes = idc->mdts ? 4096u << idc->mdts : 0;
	ret = identify(aq, NVME_ID_CNS_NS, 1, err, errlen);
	if (ret)
		return ret;
	c->info.nsze = rblk_le64(idn->nsze);
	c->info.lba_size = 1u << idn->lbaf[idn->flbas & 0xF].ds;
	if (!c->info.nsze || c->info.lba_size < 512)
		return fail(err, errlen, -ENODEV, "namespace 1: %llu blocks of %u bytes",
			    (unsigned long long)c->info.nsze, c->info.lba_size);
	return 0;
}

int host_ctrl_connect(const struct sockaddr *dst, const char *subnqn, unsigned nio,
		      unsigned depth, struct host_ctrl **out, char *err, size_t errlen)
{
	struct host_ctrl *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c)
		return fail(err, errlen, -ENOMEM, "out of memory");
	snprintf(c->subnqn, sizeof(c->subnqn), "%s", subnqn);
	for (unsigned i = 0; i < sizeof(c->hostid); i++)
		c->hostid[i] = (uint8_t)(0xB0 + i);
	c->nq = nio + 1;
	c->q = rblk_calloc_lines(c->nq, sizeof(*c->q));
	ret = c->q ? rblk_cm_channel_create(true, &c->ch) : -ENOMEM;
	if (ret) {
		free(c->q);
		free(c);
		return fail(err, errlen, ret, "CM channel: %s", strerror(-ret));
	}
	*out = c;
	for (unsigned i = 0; i < c->nq; i++) {
		struct host_queue *q = &c->q[i];

		q->c = c;
		q->qid = (uint16_t)i;
		q->depth = (uint16_t)(i ? depth : ADMIN_DEPTH);
		q->buf_len = SETUP_BUF;
		ret = queue_connect(c, q, dst, err, errlen);
		if (!ret)
			ret = fabrics_connect(c, q, err, errlen);
		if (!ret && !i)
			ret = enable(c, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

const struct host_info *host_ctrl_info(const struct host_ctrl *c)
{
	return &c->info;
}

struct fab_thread *host_queue_thread(const struct host_ctrl *c, unsigned i)
{
	return fab_qp_peer_thread(c->q[i + 1].qp);
}

bool host_wl_incapsule(const struct host_ctrl *c, const struct host_wl *wl)
{
	/* What the Linux host does: in the capsule when IOCCSZ leaves room. */
	return wl->bs <= c->info.icd_bytes;
}

/* ------------------------------------------------------------------------ */
/* The loop.                                                                 */

int host_queue_start(struct host_ctrl *c, unsigned i, const struct host_wl *wl, uint64_t seed)
{
	struct host_queue *q = &c->q[i + 1];
	uint8_t *buf;
	int ret;

	if (wl->bs % c->info.lba_size || !wl->qd || wl->qd >= q->depth ||
	    (c->info.mdts_bytes && wl->bs > c->info.mdts_bytes))
		return -EINVAL;
	/* The slots' memory: registered for the target's RDMA READs and WRITEs. */
	if (posix_memalign((void **)&buf, 4096, (size_t)wl->qd * wl->bs))
		return -ENOMEM;
	memset(buf, 0, (size_t)wl->qd * wl->bs);
	rblk_mr_dereg(q->mr);
	free(q->buf);
	q->buf = buf;
	q->buf_len = (size_t)wl->qd * wl->bs;
	ret = rblk_mr_reg(c->pd, q->buf, q->buf_len,
			  RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ | RBLK_ACCESS_REMOTE_WRITE,
			  &q->mr);
	q->slots = rblk_calloc_lines(wl->qd, sizeof(*q->slots));
	if (ret || !q->slots)
		return ret ? ret : -ENOMEM;
	q->wl = *wl;
	q->nlb = wl->bs / c->info.lba_size;
	q->nslots_lba = c->info.nsze / q->nlb;
	q->place_first = 0;
	q->place_stride = 1;
	if (wl->verify && c->nq > 2) {
		q->place_stride = c->nq - 1;
		q->place_first = i;
		q->nslots_lba /= q->place_stride;
		if (!q->nslots_lba)
			return -EINVAL;
	}
	q->rng = seed | 1;
	q->incapsule = host_wl_incapsule(c, wl);
	atomic_store(&q->outstanding, wl->qd);
	/* From here on responses are the loop's; the inbox's lock orders this. */
	q->loop = true;
	for (unsigned s = 0; s < wl->qd; s++) {
		ret = issue(q, s);
		if (ret)
			return ret;
	}
	return 0;
}

void host_queue_stats(const struct host_ctrl *c, unsigned i, struct host_qstats *out)
{
	const struct host_queue *q = &c->q[i + 1];

	out->done = atomic_load_explicit(&q->done, memory_order_relaxed);
	out->verified = atomic_load_explicit(&q->verified, memory_order_relaxed);
}

int host_ctrl_stop(struct host_ctrl *c, int timeout_ms)
{
	struct timespec d = { 0, 1000 * 1000 };

	for (unsigned i = 1; i < c->nq; i++)
		atomic_store(&c->q[i].stop, true);
	for (unsigned i = 1; i < c->nq; i++) {
		int waited = 0;

		if (!c->q[i].loop)
			continue;
		while (atomic_load_explicit(&c->q[i].outstanding, memory_order_acquire)) {
			if (waited++ >= timeout_ms || fab_failure())
				return -ETIMEDOUT;
			nanosleep(&d, NULL);
		}
	}
	return 0;
}

int host_ctrl_shutdown(struct host_ctrl *c, char *err, size_t errlen)
{
	uint32_t cc = cc_enabled() | NVME_CC_SHN_NORMAL << NVME_CC_SHN_SHIFT, csts = 0;
	int ret;

	/* As the Linux host at disconnect: a normal shutdown, then wait for it. */
	ret = prop(&c->q[0], true, NVME_REG_CC, cc, NULL, err, errlen);
	for (int i = 0; !ret && i < WAIT_MS; i++) {
		struct timespec d = { 0, 1000 * 1000 };

		ret = prop(&c->q[0], false, NVME_REG_CSTS, 0, &csts, err, errlen);
		if (ret || NVME_CSTS_SHST(csts) == NVME_CSTS_SHST_CMPLT)
			return ret;
		nanosleep(&d, NULL);
	}
	return ret ? ret : fail(err, errlen, -ETIMEDOUT, "shutdown not complete in %d ms", WAIT_MS);
}

void host_ctrl_destroy(struct host_ctrl *c)
{
	struct rblk_cm_event ev;

	if (!c)
		return;
	/* The target's disconnects: acked, so that the ids can go. */
	while (c->ch && rblk_cm_get_event(c->ch, &ev) == 0)
		rblk_cm_ack_event(&ev);
	for (unsigned i = 0; i < c->nq; i++) {
		struct host_queue *q = &c->q[i];

		rblk_qp_destroy(q->qp);
		rblk_mr_dereg(q->mr);
		rblk_cm_id_destroy(q->id);
		free(q->buf);
		free(q->slots);
		if (q->id) {
			pthread_cond_destroy(&q->cv);
			pthread_mutex_destroy(&q->lock);
		}
	}
	rblk_cq_destroy(c->cq);
	rblk_pd_dealloc(c->pd);
	rblk_cm_channel_destroy(c->ch);
	free(c->q);
	free(c);
}
