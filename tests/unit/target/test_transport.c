/* SPDX-License-Identifier: MIT */
/* The test transport: see test_transport.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/provider.h"
#include "common/util.h"
#include "protocol/nvmf.h"
#include "protocol/sgl.h"
#include "test_transport.h"

/* ------------------------------------------------------------------------ */
/* The fabric (struct rblk_fabric_ops) stand-in.                             */

static int tt_fabric_create(struct rblk_target *tgt, struct rblk_transport **out)
{
	struct rblk_transport *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->tgt = tgt;
	*out = t;
	return 0;
}

static void tt_fabric_destroy(struct rblk_transport *t)
{
	free(t);
}

static int tt_fabric_listen(struct rblk_transport *t, struct rblk_listener *l)
{
	(void)l;
	if (t->listen_result)
		return t->listen_result;
	t->listens++;
	return 0;
}

static int tt_fabric_start(struct rblk_transport *t)
{
	t->started = true;
	return 0;
}

static int tt_fabric_fd(struct rblk_transport *t)
{
	(void)t;
	return -EINVAL;
}

static int tt_fabric_poll(struct rblk_transport *t, int *timeout_ms)
{
	(void)t;
	*timeout_ms = -1;
	return -EINVAL;
}

static void tt_fabric_idle_wait(struct rblk_transport *t, unsigned us)
{
	(void)t;
	usleep(us);
}

static void tt_fabric_stop(struct rblk_transport *t)
{
	t->started = false;
	t->stops++;
}

static void tt_fabric_admit_stats(struct rblk_transport *t, struct rblk_fabric_admit_stats *out)
{
	*out = t->admit;
}

static const struct rblk_fabric_ops tt_fabric = {
	.name = "test",
	.create = tt_fabric_create,
	.destroy = tt_fabric_destroy,
	.listen = tt_fabric_listen,
	.start = tt_fabric_start,
	.stop = tt_fabric_stop,
	.idle_wait = tt_fabric_idle_wait,
	.fd = tt_fabric_fd,
	.poll = tt_fabric_poll,
	.admit_stats = tt_fabric_admit_stats,
};

int tt_target_create(const struct rblk_target_opts *opts, struct rblk_target **out)
{
	return rblk_tgt_create(opts, &tt_fabric, &rblk_backend_storage, out);
}

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static void tt_queue_response(struct rblk_req *req)
{
	struct tt_req *tr = rblk_container_of(req, struct tt_req, req);

	tr->cqe = req->cqe;
	free(tr->out);
	tr->out = NULL;
	tr->outlen = 0;
	tr->data_sent = false;
	/* Like the RDMA transport: data only with a successful completion. */
	if (req->dir == RBLK_XFER_C2H && tt_status(&req->cqe) == 0 && req->data_len) {
		tr->out = malloc(req->data_len);
		memcpy(tr->out, tr->buf, req->data_len);
		tr->outlen = req->data_len;
		tr->data_sent = true;
	}
	tr->done = true;
}

static void tt_disconnect(struct rblk_sq *sq)
{
	struct tt_queue *q = rblk_container_of(sq, struct tt_queue, sq);

	q->disconnects++;
}

/* The mailbox takes work from any thread (the core's helper threads post to it). */
static pthread_mutex_t tt_work_lock = PTHREAD_MUTEX_INITIALIZER;

static int tt_run_on(struct rblk_sq *sq, void (*fn)(void *arg), void *arg)
{
	struct tt_queue *q = rblk_container_of(sq, struct tt_queue, sq);
	struct tt_env *env = q->env;

	pthread_mutex_lock(&tt_work_lock);
	if (env->nr_work == sizeof(env->work) / sizeof(env->work[0])) {
		pthread_mutex_unlock(&tt_work_lock);
		return -ENOSPC;
	}
	env->work[env->nr_work].fn = fn;
	env->work[env->nr_work].arg = arg;
	env->nr_work++;
	pthread_mutex_unlock(&tt_work_lock);
	return 0;
}

/*
 * Provider completions, FIFO, run by tt_pump(). Providers may complete from
 * any thread (tests/unit/target/provider_ut.c does), hence the lock.
 */
static pthread_mutex_t tt_cpl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rblk_req *tt_cpl_head, **tt_cpl_tail = &tt_cpl_head;

void tt_complete_io(struct rblk_req *req)
{
	pthread_mutex_lock(&tt_cpl_lock);
	req->cpl_next = NULL;
	*tt_cpl_tail = req;
	tt_cpl_tail = &req->cpl_next;
	pthread_mutex_unlock(&tt_cpl_lock);
}

static unsigned tt_run_completions(void)
{
	struct rblk_req *req, *next;
	unsigned n = 0;

	pthread_mutex_lock(&tt_cpl_lock);
	req = tt_cpl_head;
	tt_cpl_head = NULL;
	tt_cpl_tail = &tt_cpl_head;
	pthread_mutex_unlock(&tt_cpl_lock);
	for (; req; req = next, n++) {
		next = req->cpl_next;
		rblk_req_io_done(req);
	}
	return n;
}

static const struct rblk_transport_ops tt_ops = {
	.queue_response = tt_queue_response,
	.disconnect = tt_disconnect,
	.run_on = tt_run_on,
	.complete_io = tt_complete_io,
};

/* ------------------------------------------------------------------------ */

struct tt_env *tt_env_create(const struct rblk_target_opts *opts, unsigned bq_depth)
{
	struct tt_env *env = calloc(1, sizeof(*env));

	if (!env)
		return NULL;
	if (tt_target_create(opts, &env->tgt)) {
		free(env);
		return NULL;
	}
	if (bq_depth)
		rblk_backend_storage_set_depth(env->tgt->storage, bq_depth);
	/* Offline until a test calls rblk_tgt_pg_quiescent(): grace periods do not wait. */
	if (rblk_tgt_pg_register(env->tgt, &env->pg, 0)) {
		rblk_target_destroy(env->tgt);
		free(env);
		return NULL;
	}
	rblk_log_set_level(RBLK_LOG_WARN);
	for (int i = 0; i < 16; i++)
		env->hostid[i] = (uint8_t)(0xA0 + i);
	return env;
}

void tt_env_destroy(struct tt_env *env)
{
	if (!env)
		return;
	tt_pump(env);
	/* The engines are the target's storage's: let go of them first. */
	rblk_tgt_pg_storage_detach(&env->pg);
	rblk_tgt_pg_unregister(env->tgt, &env->pg);
	rblk_target_destroy(env->tgt);
	free(env);
}

unsigned tt_pump(struct tt_env *env)
{
	unsigned total = 0, n;

	do {
		/*
		 * The work queued before this pass, as a poll group's mailbox
		 * takes its list: work that queues more (a fused command polling
		 * its range lock) runs again on the next pass, after completions.
		 */
		pthread_mutex_lock(&tt_work_lock);
		n = env->nr_work;
		pthread_mutex_unlock(&tt_work_lock);
		for (unsigned i = 0; i < n; i++) {
			struct tt_work w;

			pthread_mutex_lock(&tt_work_lock);
			w = env->work[0];
			memmove(env->work, env->work + 1, --env->nr_work * sizeof(env->work[0]));
			pthread_mutex_unlock(&tt_work_lock);
			w.fn(w.arg);
		}
		n += tt_run_completions();
		if (env->pg.qos_waiting)
			n += rblk_tgt_pg_qos_poll(&env->pg);
		rblk_tgt_pg_storage_flush(&env->pg);
		n += rblk_tgt_pg_storage_poll(&env->pg);
		total += n;
	} while (n);
	return total;
}

struct tt_queue *tt_queue_create(struct tt_env *env, uint16_t cm_qid, uint16_t depth)
{
	struct tt_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->env = env;
	rblk_sq_init(&q->sq, env->tgt, &tt_ops, cm_qid, depth);
	q->sq.pg = &env->pg;
	return q;
}

void tt_req_release(struct tt_req *tr)
{
	if (!tr)
		return;
	free(tr->buf);
	free(tr->out);
	tr->buf = NULL;
	tr->out = NULL;
	tr->busy = false;
	tr->done = false;
}

void tt_queue_destroy(struct tt_queue *q)
{
	uint64_t deadline = rblk_clock_ms() + 10000;
	bool busy;

	if (!q)
		return;
	rblk_sq_teardown(&q->sq);
	/* Requests at the backend finish on their own; wait for them. */
	do {
		tt_pump(q->env);
		busy = false;
		for (int i = 0; i < TT_MAX_REQS; i++)
			busy |= q->reqs[i].busy && !q->reqs[i].done;
	} while (busy && rblk_clock_ms() < deadline);
	rblk_sq_destroy(&q->sq);
	tt_pump(q->env);
	for (int i = 0; i < TT_MAX_REQS; i++)
		tt_req_release(&q->reqs[i]);
	free(q);
}

uint16_t tt_status(const struct nvme_cqe *cqe)
{
	return nvme_cqe_status(cqe);
}

static void split_iov(struct tt_env *env, struct rblk_req *req, uint8_t *buf, size_t len)
{
	size_t chunk = env->iov_split ? env->iov_split : len;

	req->iovcnt = 0;
	while (len && req->iovcnt < RBLK_REQ_MAX_IOV) {
		size_t n = len < chunk || req->iovcnt == RBLK_REQ_MAX_IOV - 1 ? len : chunk;

		req->iov[req->iovcnt].iov_base = buf;
		req->iov[req->iovcnt].iov_len = n;
		req->iovcnt++;
		buf += n;
		len -= n;
	}
}

struct tt_req *tt_send(struct tt_queue *q, const struct nvme_sqe *sqe, const void *data,
		       size_t len)
{
	struct rblk_sgl sgl = { .kind = RBLK_SGL_NONE };
	struct tt_req *tr = NULL;
	struct rblk_req *req;
	uint16_t status;
	size_t xfer;

	for (int i = 0; i < TT_MAX_REQS; i++) {
		if (!q->reqs[i].busy) {
			tr = &q->reqs[i];
			break;
		}
	}
	if (!tr)
		return NULL;
	memset(tr, 0, sizeof(*tr));
	tr->q = q;
	tr->busy = true;
	tr->sqe = *sqe;
	req = &tr->req;

	rblk_req_init(req, &q->sq, &tr->sqe);
	status = rblk_req_parse(req);
	if (status) {
		rblk_req_complete(req, status);
		return tr;
	}
	/* The transport's SGL length rule (docs/interop.md §4.3); the SGL describes len bytes. */
	if (len) {
		sgl.kind = RBLK_SGL_KEYED;
		sgl.len = (uint32_t)len;
	}
	status = rblk_sgl_check_len(&sgl, req->data_len, rblk_req_sgl_at_least(req));
	if (status) {
		rblk_req_complete(req, status);
		return tr;
	}
	xfer = req->data_len;
	if (xfer) {
		/* Page aligned, as the registered pool is (O_DIRECT needs it). */
		if (posix_memalign((void **)&tr->buf, 4096, xfer)) {
			rblk_req_complete(req, NVME_SC_INTERNAL);
			return tr;
		}
		tr->buflen = xfer;
		memset(tr->buf, 0xEE, xfer); /* poison: handlers must write every byte */
		if (req->dir == RBLK_XFER_H2C && data)
			memcpy(tr->buf, data, xfer);
		split_iov(q->env, req, tr->buf, xfer);
		req->buf_index = -1;
	}
	req->execute(req);
	return tr;
}

uint16_t tt_cmd(struct tt_queue *q, const struct nvme_sqe *sqe, const void *data, size_t len,
		struct nvme_cqe *cqe, void *out, size_t outlen)
{
	uint64_t deadline = rblk_clock_ms() + 10000;
	struct tt_req *tr = tt_send(q, sqe, data, len);
	uint16_t status;

	if (!tr)
		return 0xFFFF;
	while (!tr->done && rblk_clock_ms() < deadline)
		tt_pump(q->env);
	if (!tr->done)
		return 0xFFFF;
	if (cqe)
		*cqe = tr->cqe;
	if (out && tr->out)
		memcpy(out, tr->out, outlen < tr->outlen ? outlen : tr->outlen);
	status = tt_status(&tr->cqe);
	tt_req_release(tr);
	return status;
}

/* ------------------------------------------------------------------------ */
/* Builders.                                                                 */

void tt_sqe(struct nvme_sqe *sqe, uint8_t opc, uint16_t cid, uint32_t nsid)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opc = opc;
	sqe->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	sqe->cid = rblk_cpu_to_le16(cid);
	sqe->nsid = rblk_cpu_to_le32(nsid);
	sqe->sgl1.keyed.type = NVME_SGL_KEYED_DATA;
}

void tt_fabrics_sqe(struct nvme_sqe *sqe, uint8_t fctype, uint16_t cid)
{
	tt_sqe(sqe, NVME_ADMIN_FABRICS, cid, 0);
	((uint8_t *)sqe)[NVME_SQE_FCTYPE_OFFSET] = fctype;
}

void tt_rw_sqe(struct nvme_rw_cmd *c, uint8_t opc, uint16_t cid, uint32_t nsid, uint64_t slba,
	       uint32_t nlb)
{
	tt_sqe((struct nvme_sqe *)c, opc, cid, nsid);
	c->slba = rblk_cpu_to_le64(slba);
	c->nlb = rblk_cpu_to_le16((uint16_t)(nlb - 1));
}

uint16_t tt_connect(struct tt_queue *q, const char *subnqn, const char *hostnqn, uint16_t qid,
		    uint16_t sqsize, uint16_t cntlid, uint32_t kato, uint8_t cattr,
		    struct nvme_cqe *cqe)
{
	struct nvmf_connect_cmd c;
	struct nvmf_connect_data d;

	tt_fabrics_sqe((struct nvme_sqe *)&c, NVMF_FCTYPE_CONNECT, 0x1234);
	c.qid = rblk_cpu_to_le16(qid);
	c.sqsize = rblk_cpu_to_le16(sqsize);
	c.cattr = cattr;
	c.kato = rblk_cpu_to_le32(kato);
	memset(&d, 0, sizeof(d));
	memcpy(d.hostid, q->env->hostid, 16);
	d.cntlid = rblk_cpu_to_le16(cntlid);
	snprintf(d.subnqn, sizeof(d.subnqn), "%s", subnqn);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", hostnqn);
	return tt_cmd(q, (struct nvme_sqe *)&c, &d, sizeof(d), cqe, NULL, 0);
}

uint16_t tt_prop_get(struct tt_queue *q, uint32_t ofst, bool eight, uint64_t *val)
{
	struct nvmf_property_get_cmd c;
	struct nvme_cqe cqe;
	uint16_t st;

	tt_fabrics_sqe((struct nvme_sqe *)&c, NVMF_FCTYPE_PROP_GET, 7);
	c.attrib = eight ? NVMF_PROP_SIZE_8 : NVMF_PROP_SIZE_4;
	c.ofst = rblk_cpu_to_le32(ofst);
	st = tt_cmd(q, (struct nvme_sqe *)&c, NULL, 0, &cqe, NULL, 0);
	if (val)
		*val = rblk_le32(cqe.dw0) | ((uint64_t)rblk_le32(cqe.dw1) << 32);
	return st;
}

uint16_t tt_prop_set(struct tt_queue *q, uint32_t ofst, uint64_t val)
{
	struct nvmf_property_set_cmd c;

	tt_fabrics_sqe((struct nvme_sqe *)&c, NVMF_FCTYPE_PROP_SET, 8);
	c.attrib = NVMF_PROP_SIZE_4;
	c.ofst = rblk_cpu_to_le32(ofst);
	c.value = rblk_cpu_to_le64(val);
	return tt_cmd(q, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0);
}

uint16_t tt_wait_shutdown(struct tt_queue *q, uint64_t *csts)
{
	/* As the host: poll CSTS, here for at most 10 s (a datasync of a temp file). */
	for (int i = 0; i < 10000; i++) {
		uint16_t status = tt_prop_get(q, NVME_REG_CSTS, false, csts);

		if (status || NVME_CSTS_SHST(*csts) != NVME_CSTS_SHST_OCCUR)
			return status;
		usleep(1000);
	}
	return 0;
}

uint16_t tt_admin_bringup(struct tt_queue *q, const char *subnqn, const char *hostnqn,
			  uint32_t kato)
{
	struct nvme_cqe cqe;
	uint64_t csts;

	if (tt_connect(q, subnqn, hostnqn, 0, 31, 0xFFFF, kato, 0, &cqe))
		return 0;
	if (tt_prop_set(q, NVME_REG_CC, 0x00460000) || tt_prop_set(q, NVME_REG_CC, 0x00460001))
		return 0;
	if (tt_prop_get(q, NVME_REG_CSTS, false, &csts) || !(csts & NVME_CSTS_RDY))
		return 0;
	return (uint16_t)rblk_le32(cqe.dw0);
}

uint16_t tt_identify(struct tt_queue *q, uint8_t cns, uint32_t nsid, uint8_t csi, void *buf)
{
	struct nvme_identify_cmd c;

	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_IDENTIFY, 9, nsid);
	c.cns = cns;
	c.csi = csi;
	return tt_cmd(q, (struct nvme_sqe *)&c, NULL, NVME_IDENTIFY_DATA_SIZE, NULL, buf,
		      NVME_IDENTIFY_DATA_SIZE);
}

uint16_t tt_get_log(struct tt_queue *q, uint8_t lid, uint32_t nsid, uint64_t lpo, uint32_t len,
		    bool rae, void *buf)
{
	struct nvme_get_log_cmd c;
	uint32_t numd = len / 4 - 1;

	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_GET_LOG_PAGE, 10, nsid);
	c.lid = lid;
	c.lsp = rae ? NVME_LOG_RAE : 0;
	c.numdl = rblk_cpu_to_le16((uint16_t)numd);
	c.numdu = rblk_cpu_to_le16((uint16_t)(numd >> 16));
	c.lpol = rblk_cpu_to_le32((uint32_t)lpo);
	c.lpou = rblk_cpu_to_le32((uint32_t)(lpo >> 32));
	return tt_cmd(q, (struct nvme_sqe *)&c, NULL, len, NULL, buf, len);
}

uint16_t tt_set_features(struct tt_queue *q, uint8_t fid, uint32_t cdw11, uint32_t *dw0)
{
	struct nvme_features_cmd c;
	struct nvme_cqe cqe;
	uint16_t st;

	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_SET_FEATURES, 11, 0);
	c.fid = fid;
	c.cdw11 = rblk_cpu_to_le32(cdw11);
	st = tt_cmd(q, (struct nvme_sqe *)&c, NULL, 0, &cqe, NULL, 0);
	if (dw0)
		*dw0 = rblk_le32(cqe.dw0);
	return st;
}

uint16_t tt_get_features(struct tt_queue *q, uint8_t fid, uint8_t sel, uint32_t cdw11,
			 uint32_t *dw0, void *buf, size_t len)
{
	struct nvme_features_cmd c;
	struct nvme_cqe cqe;
	uint16_t st;

	tt_sqe((struct nvme_sqe *)&c, NVME_ADMIN_GET_FEATURES, 12, 0);
	c.fid = fid;
	c.sel = sel;
	c.cdw11 = rblk_cpu_to_le32(cdw11);
	st = tt_cmd(q, (struct nvme_sqe *)&c, NULL, len, &cqe, buf, len);
	if (dw0)
		*dw0 = rblk_le32(cqe.dw0);
	return st;
}

uint16_t tt_rw(struct tt_queue *q, uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb,
	       uint16_t control, void *buf, size_t len)
{
	struct nvme_rw_cmd c;

	tt_rw_sqe(&c, opc, 0x5000 | (uint16_t)(slba & 0xFFF), nsid, slba, nlb);
	c.control = rblk_cpu_to_le16(control);
	if (opc == NVME_IO_READ)
		return tt_cmd(q, (struct nvme_sqe *)&c, NULL, len, NULL, buf, len);
	return tt_cmd(q, (struct nvme_sqe *)&c, buf, len, NULL, NULL, 0);
}

struct rblk_subsystem *tt_add_subsys(struct tt_env *env, const char *nqn, const char *path,
				     uint32_t *nsid)
{
	struct rblk_subsystem_opts so;
	struct rblk_ns_opts no;
	struct rblk_subsystem *ss;

	rblk_subsystem_opts_init(&so);
	so.nqn = nqn;
	so.allow_any_host = true;
	if (rblk_target_add_subsystem(env->tgt, &so, &ss))
		return NULL;
	if (path) {
		rblk_ns_opts_init(&no);
		no.path = path;
		if (rblk_subsystem_add_namespace(ss, &no, nsid))
			return NULL;
	}
	return ss;
}

int tt_tempfile(char *buf, size_t len, uint64_t size)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(buf, len, "%s/rblk-target-ut-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(buf);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		unlink(buf);
		return -1;
	}
	close(fd);
	return 0;
}
