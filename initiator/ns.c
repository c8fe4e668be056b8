/* SPDX-License-Identifier: MIT */
/*
 * Namespaces: geometry from Identify Namespace (the LBA format in use,
 * NSZE, NSATTR write protection), and the synchronous I/O calls, which
 * borrow a qpair for each call and wait on its fd. The NVMe status of each
 * thread's last synchronous command is kept per namespace in a small
 * thread-local table (rblk_ns_last_status).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "initiator/identify.h"
#include "initiator/mpath.h"
#include "protocol/names.h"

#define LAST_STATUS_SLOTS 8

static _Atomic uint64_t ns_uid_next = 1;
static __thread struct {
	uint64_t uid;
	uint16_t status;
} last_status[LAST_STATUS_SLOTS];
static __thread unsigned last_status_next;

uint64_t rblk_ns_uid_new(void)
{
	return atomic_fetch_add(&ns_uid_next, 1);
}

static void last_status_set(const struct rblk_ns *ns, uint16_t status)
{
	unsigned i;

	for (i = 0; i < LAST_STATUS_SLOTS; i++)
		if (last_status[i].uid == ns->uid)
			break;
	if (i == LAST_STATUS_SLOTS)
		i = last_status_next++ % LAST_STATUS_SLOTS;
	last_status[i].uid = ns->uid;
	last_status[i].status = status;
}

uint16_t rblk_ns_last_status(struct rblk_ns *ns)
{
	for (unsigned i = 0; ns && i < LAST_STATUS_SLOTS; i++)
		if (last_status[i].uid == ns->uid)
			return last_status[i].status;
	return 0;
}

int rblk_ns_open(struct rblk_ctrl *c, uint32_t nsid, struct rblk_ns **out)
{
	struct nvme_id_ns *id = NULL;
	struct rblk_ns_geom geom;
	struct rblk_ns *ns = NULL;
	uint16_t st;
	int ret;

	if (!c || !out || nsid == 0 || nsid == 0xFFFFFFFF)
		return -EINVAL;
	*out = NULL;
	if (c->discovery)
		return -EOPNOTSUPP;
	if (posix_memalign((void **)&id, 4096, sizeof(*id)))
		return -ENOMEM;
	ret = rblk_ctrl_identify_ns(c, nsid, id, &st);
	if (ret)
		goto out_free;
	if (st) {
		RBLK_ERR("Identify Namespace %u: %s (%#x)", nsid, rblk_nvme_status_str(st), st);
		ret = -EREMOTEIO;
		goto out_free;
	}
	ret = rblk_id_ns_geom(id, nsid, &geom);
	if (ret) {
		if (ret == -ENODEV)
			RBLK_ERR("namespace %u of %s is not active", nsid, c->subnqn);
		goto out_free;
	}
	ns = calloc(1, sizeof(*ns));
	if (!ns) {
		ret = -ENOMEM;
		goto out_free;
	}
	ns->ctrl = c;
	ns->nsid = nsid;
	ns->nsze = geom.nsze;
	ns->lba_shift = geom.lba_shift;
	ns->read_only = geom.read_only;
	ns->uid = rblk_ns_uid_new();
	ns->id = id;
	pthread_mutex_lock(&c->lock);
	ns->next = c->ns_list;
	c->ns_list = ns;
	pthread_mutex_unlock(&c->lock);
	RBLK_INFO("namespace %u: %llu blocks of %u bytes%s", nsid, (unsigned long long)ns->nsze,
		  1u << ns->lba_shift, ns->read_only ? ", read-only" : "");
	*out = ns;
	return 0;

out_free:
	free(id);
	return ret;
}

static void ns_free(struct rblk_ns *ns)
{
	free(ns->id);
	free(ns);
}

void rblk_ns_close(struct rblk_ns *ns)
{
	struct rblk_ctrl *c;
	struct rblk_ns **pp;

	/* A multipath head's namespace lives as long as the head. */
	if (!ns || ns->mpath)
		return;
	c = ns->ctrl;
	pthread_mutex_lock(&c->lock);
	for (pp = &c->ns_list; *pp; pp = &(*pp)->next) {
		if (*pp == ns) {
			*pp = ns->next;
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	ns_free(ns);
}

void rblk_ns_free_all(struct rblk_ctrl *c)
{
	while (c->ns_list) {
		struct rblk_ns *ns = c->ns_list;

		c->ns_list = ns->next;
		ns_free(ns);
	}
}

uint64_t rblk_ns_num_blocks(struct rblk_ns *ns)
{
	return ns->nsze;
}

uint32_t rblk_ns_id(struct rblk_ns *ns)
{
	return ns->nsid;
}

uint32_t rblk_ns_block_size(struct rblk_ns *ns)
{
	return 1u << ns->lba_shift;
}

bool rblk_ns_read_only(struct rblk_ns *ns)
{
	return ns->read_only;
}

const void *rblk_ns_identify(struct rblk_ns *ns)
{
	return ns->id;
}

struct sync_wait {
	bool done;
	uint16_t status;
	int err;
};

static void sync_cb(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct sync_wait *w = arg;

	w->status = status;
	w->err = err;
	w->done = true;
}

static void wait_fd(struct rblk_qpair *qp, int ms)
{
	struct pollfd pfd = { .fd = rblk_qpair_fd(qp), .events = POLLIN };

	poll(&pfd, 1, ms);
}

/* Runs @io to completion on a borrowed qpair (@io->ns set). */
static int sync_run(struct rblk_io *io)
{
	struct rblk_ns *ns = io->ns;
	struct sync_wait w = { 0 };
	struct rblk_qpair *qp;
	int ret = 0;

	if (!ns)
		return -EINVAL;
	/* A multipath head's namespace: one of the head's queue pairs (failover included). */
	qp = ns->mpath ? rblk_mpath_sync_qpair_get(ns->mpath, &ret)
		       : rblk_sync_qpair_get(ns->ctrl, &ret);
	if (!qp)
		return ret;
	while ((ret = rblk_submit(qp, io, sync_cb, &w)) == -EAGAIN) {
		if (rblk_poll(qp, 0) == 0)
			wait_fd(qp, 10);
	}
	while (!ret && !w.done) {
		int n = rblk_poll(qp, 0);

		/* Reconnects and the final loss wake the fd too: nothing waits forever. */
		if (!w.done && n <= 0)
			wait_fd(qp, 100);
	}
	if (ns->mpath)
		rblk_mpath_sync_qpair_put(ns->mpath, qp);
	else
		rblk_sync_qpair_put(ns->ctrl, qp);
	if (ret)
		return ret;
	last_status_set(ns, w.status);
	if (w.err)
		return w.err;
	return w.status ? -EREMOTEIO : 0;
}

static int sync_io(struct rblk_ns *ns, enum rblk_io_op op, void *buf, uint64_t lba, uint32_t nlb,
		   unsigned flags)
{
	struct rblk_io io = { .op = op, .ns = ns, .lba = lba, .nlb = nlb, .flags = flags, .buf = buf };

	return sync_run(&io);
}

int rblk_read(struct rblk_ns *ns, void *buf, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_READ, buf, lba, nlb, 0);
}

int rblk_write(struct rblk_ns *ns, const void *buf, uint64_t lba, uint32_t nlb, unsigned flags)
{
	/* The buffer is only read; struct rblk_io has one pointer for both directions. */
	return sync_io(ns, RBLK_OP_WRITE, (void *)(uintptr_t)buf, lba, nlb, flags);
}

int rblk_flush(struct rblk_ns *ns)
{
	return sync_io(ns, RBLK_OP_FLUSH, NULL, 0, 0, 0);
}

int rblk_write_zeroes(struct rblk_ns *ns, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_WRITE_ZEROES, NULL, lba, nlb, 0);
}

int rblk_deallocate(struct rblk_ns *ns, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_DEALLOCATE, NULL, lba, nlb, 0);
}

int rblk_compare(struct rblk_ns *ns, const void *buf, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_COMPARE, (void *)(uintptr_t)buf, lba, nlb, 0);
}

int rblk_compare_write(struct rblk_ns *ns, const void *expect, const void *data, uint64_t lba,
		       uint32_t nlb)
{
	struct iovec iov[2];
	struct rblk_io io = { .op = RBLK_OP_COMPARE_WRITE, .ns = ns, .lba = lba, .nlb = nlb,
			      .iov = iov, .iovcnt = 2 };

	if (!ns || !expect || !data)
		return -EINVAL;
	/* The request's data is the expected blocks, then the new ones. */
	iov[0] = (struct iovec){ .iov_base = (void *)(uintptr_t)expect,
				 .iov_len = (size_t)nlb << ns->lba_shift };
	iov[1] = (struct iovec){ .iov_base = (void *)(uintptr_t)data, .iov_len = iov[0].iov_len };
	return sync_run(&io);
}

int rblk_verify(struct rblk_ns *ns, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_VERIFY, NULL, lba, nlb, 0);
}

int rblk_copy(struct rblk_ns *ns, const struct rblk_copy_range *ranges, unsigned nr,
	      uint64_t dlba)
{
	return sync_io(ns, RBLK_OP_COPY, (void *)(uintptr_t)ranges, dlba, nr, 0);
}

int rblk_ns_cmd(struct rblk_ns *ns, const void *sqe, void *buf, uint32_t len, uint32_t *dw0,
		uint16_t *status)
{
	struct rblk_cmd cmd = { .data = buf, .len = len };
	struct rblk_io io = { .op = RBLK_OP_CMD, .ns = ns, .buf = &cmd };
	int ret;

	if (status)
		*status = 0;
	if (!ns || !sqe)
		return -EINVAL;
	memcpy(cmd.sqe, sqe, sizeof(cmd.sqe));
	ret = sync_run(&io);
	if (status && (!ret || ret == -EREMOTEIO))
		*status = rblk_ns_last_status(ns);
	if (dw0 && (!ret || ret == -EREMOTEIO))
		*dw0 = cmd.dw0;
	return ret;
}
