/* SPDX-License-Identifier: MIT */
/* The target harnesses' environment and command stream: see tgt_env.h. */
#include <errno.h>

#include "tgt_env.h"

#include "protocol/disc.h"

static void listen_on(struct tt_env *env, const char *addr, uint16_t port, uint16_t portid)
{
	struct rblk_listen_opts o;

	rblk_listen_opts_init(&o);
	o.traddr = addr;
	o.trsvcid = port;
	o.portid = portid;
	FUZZ_CHECK(rblk_target_listen(env->tgt, &o) == 0);
}

int tgt_env_setup(struct tgt_env *t, enum tgt_setup what)
{
	struct rblk_target_opts o;

	memset(t, 0, sizeof(*t));
	rblk_target_opts_init(&o);
	/* 64 KiB: MDTS is reachable with the records' data lengths. */
	o.max_io_size = 65536;
	rblk_log_set_level(RBLK_LOG_ERR);
	t->env = tt_env_create(&o, 0);
	if (!t->env)
		return -ENOMEM;
	rblk_log_set_level(RBLK_LOG_ERR); /* tt_env_create() sets WARN */
	t->ss = tt_add_subsys(t->env, TT_SUBNQN, "mem:256K", NULL);
	FUZZ_CHECK(t->ss != NULL);
	t->aq = tt_queue_create(t->env, 0, 32);
	FUZZ_CHECK(t->aq != NULL);
	switch (what) {
	case TGT_NOTHING:
		return 0;
	case TGT_DISCOVERY:
		FUZZ_CHECK(tt_add_subsys(t->env, TT_SUBNQN2, "mem:64K", NULL) != NULL);
		listen_on(t->env, "10.99.0.1", 4420, 1);
		listen_on(t->env, NULL, 4421, 0);
		t->aq->sq.listener = t->env->tgt->listeners[0];
		strcpy(t->aq->sq.local_traddr, "10.99.0.1");
		t->cntlid = tt_admin_bringup(t->aq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0);
		FUZZ_CHECK(t->cntlid != 0);
		return 0;
	case TGT_ADMIN:
	case TGT_IO:
		t->cntlid = tt_admin_bringup(t->aq, TT_SUBNQN, TT_HOSTNQN, 5000);
		FUZZ_CHECK(t->cntlid != 0);
		break;
	}
	if (what == TGT_IO) {
		t->iq = tt_queue_create(t->env, 1, 0);
		FUZZ_CHECK(t->iq != NULL);
		FUZZ_CHECK(tt_connect(t->iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, t->cntlid, 0, 0, NULL) == 0);
	}
	return 0;
}

void tgt_env_teardown(struct tgt_env *t)
{
	tt_queue_destroy(t->iq);
	tt_queue_destroy(t->aq);
	tt_env_destroy(t->env);
	memset(t, 0, sizeof(*t));
}

bool tgt_next(const uint8_t **data, size_t *size, struct tgt_rec *r)
{
	static uint8_t pad[TGT_MAX_DATA];
	const uint8_t *p = *data;
	size_t n = *size;

	if (n < TGT_REC_HDR + TGT_REC_SQE)
		return false;
	r->sel = p[0];
	r->len = (uint32_t)(p[1] | p[2] << 8) % (TGT_MAX_DATA + 1);
	memcpy(&r->sqe, p + TGT_REC_HDR, TGT_REC_SQE);
	p += TGT_REC_HDR + TGT_REC_SQE;
	n -= TGT_REC_HDR + TGT_REC_SQE;
	if (n >= r->len) {
		r->data = p;
		p += r->len;
		n -= r->len;
	} else {
		memset(pad, 0, sizeof(pad));
		memcpy(pad, p, n);
		r->data = pad;
		p += n;
		n = 0;
	}
	*data = p;
	*size = n;
	return true;
}

uint16_t tgt_exec(struct tt_queue *q, const struct nvme_sqe *sqe, const void *data, uint32_t len,
		  void *out, size_t outlen, struct nvme_cqe *cqe_out)
{
	struct tt_req *tr = tt_send(q, sqe, data, len);
	const struct nvme_cqe *cqe;
	uint16_t status;

	if (!tr)
		return TT_TIMEOUT_STATUS;
	tt_pump(q->env);
	if (!tr->done)
		return TT_TIMEOUT_STATUS; /* held (an AER): completed at teardown */
	cqe = &tr->cqe;
	status = tt_status(cqe);
	FUZZ_CHECK(cqe->cid == sqe->cid);
	if (q->sq.ctrl) {
		FUZZ_CHECK(rblk_le16(cqe->sqid) == q->sq.qid);
		if (!q->sq.sqhd_disabled)
			FUZZ_CHECK(rblk_le16(cqe->sqhd) < q->sq.size);
	}
	if (status)
		FUZZ_CHECK(!tr->data_sent);
	if (tr->data_sent)
		FUZZ_CHECK(tr->outlen <= len);
	if (out && tr->out)
		memcpy(out, tr->out, outlen < tr->outlen ? outlen : tr->outlen);
	if (cqe_out)
		*cqe_out = *cqe;
	tt_req_release(tr);
	return status;
}

bool tgt_seed_rec(uint8_t *buf, size_t max, size_t *off, uint8_t sel, const void *sqe,
		  const void *data, uint16_t len)
{
	size_t need = TGT_REC_HDR + TGT_REC_SQE + (data ? len : 0);

	if (*off + need > max)
		return false;
	buf[*off] = sel;
	buf[*off + 1] = (uint8_t)len;
	buf[*off + 2] = (uint8_t)(len >> 8);
	memcpy(buf + *off + TGT_REC_HDR, sqe, TGT_REC_SQE);
	if (data)
		memcpy(buf + *off + TGT_REC_HDR + TGT_REC_SQE, data, len);
	*off += need;
	return true;
}
