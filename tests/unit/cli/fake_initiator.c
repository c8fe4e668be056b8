/* SPDX-License-Identifier: MIT */
/*
 * A fake of the initiator library (include/rblk/initiator.h) for the CLI
 * tests: no RDMA, no threads, one made-up world.
 *
 *   traddr 192.0.2.99            unreachable (-EHOSTUNREACH)
 *   traddr 192.0.2.98            times out (-ETIMEDOUT)
 *   any other traddr             a target with:
 *     nqn.2014-08.org.nvmexpress.discovery   discovery, two log entries
 *     nqn.2024-01.io.rblk:fake               ns 1: 2048 x 512 B, ns 2: 256 x 4 KiB,
 *                                            ns 3: 64 x 512 B read-only
 *     nqn.2024-01.io.rblk:refused            Connect fails: Invalid Host (DNR)
 *     nqn.2024-01.io.rblk:auth               as :fake, but requires DH-HMAC-CHAP with the
 *                                            host secret FAKE_SECRET (-EACCES otherwise) and,
 *                                            when one is given, the controller secret
 *                                            FAKE_CTRL_SECRET
 *     anything else                          Connect fails: Invalid Parameters (DNR)
 *
 * Namespace data lives in memory, or in $RBLK_FAKE_DIR/nsN.img when that is
 * set (so `rblk-fake write` then `rblk-fake read` round-trip between
 * processes). A controller has the I/O queues asked for (the library's
 * default: one per online CPU), at most $RBLK_FAKE_IO_QUEUES (default 64,
 * the library's cap): as in the library, rblk_qpair_alloc() owns one and
 * fails with -EBUSY when none is left, and the synchronous calls need a free one too. Asynchronous I/O completes at the next rblk_poll(); an eventfd
 * stands in for the completion channel. $RBLK_FAKE_FAIL_LBA makes any I/O
 * touching that LBA fail with Unrecovered Read Error / Write Fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rblk/initiator.h>

#include "protocol/names.h"
#include "protocol/le.h"
#include "protocol/nvme.h"
#include "protocol/nvme_status.h"
#include "protocol/nvmf.h"

#define FAKE_NQN "nqn.2024-01.io.rblk:fake"
#define FAKE_REFUSED "nqn.2024-01.io.rblk:refused"
#define FAKE_AUTH "nqn.2024-01.io.rblk:auth"
/* What tests/unit/cli/main_test.sh passes (keys 01..20 and 101..148 with their CRCs). */
#define FAKE_SECRET "DHHC-1:00:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAl7OaH:"
#define FAKE_CTRL_SECRET "DHHC-1:02:ZWZnaGlqa2xtbm9wcXJzdHV2d3h5ent8fX5/gIGCg4SFhoeIiYqLjI2Oj5CRkpOUeJdF8g==:"
#define NR_NS 3

struct rblk_ns {
	struct rblk_ctrl *ctrl;
	uint32_t nsid;
	struct nvme_id_ns id;
};

struct fake_ns {
	uint64_t blocks;
	uint32_t bs;
	bool ro;
	uint8_t *mem;
	int fd;
};

struct rblk_ctrl {
	struct nvme_id_ctrl id;
	struct fake_ns ns[NR_NS];
	int nqpairs;
	int nq;			/* I/O queues granted */
};

struct rblk_qpair {
	struct rblk_ctrl *ctrl;
	int efd;
	unsigned depth;
	unsigned n;
	struct {
		struct rblk_io *io;
		rblk_io_cb cb;
		void *arg;
		uint16_t status;
	} q[1024];
};

static __thread uint16_t last_status;

int rblk_hostnqn_generate(char *buf, size_t len)
{
	snprintf(buf, len, "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-00000000fa6e");
	return 0;
}

int rblk_host_id_load(const char *hostnqn, const char *hostid, struct rblk_host_id *out)
{
	memset(out, 0, sizeof(*out));
	(void)hostid;
	if (hostnqn)
		snprintf(out->hostnqn, sizeof(out->hostnqn), "%s", hostnqn);
	else
		rblk_hostnqn_generate(out->hostnqn, sizeof(out->hostnqn));
	return 0;
}

void rblk_connect_opts_init(struct rblk_connect_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->trsvcid = "4420";
	opts->queue_size = 128;
	opts->keep_alive_tmo = 5;
	opts->reconnect_delay = 10;
	opts->ctrl_loss_tmo = 600;
	opts->connect_timeout_ms = 3000;
	opts->io_timeout_ms = 30000;
}

const char *rblk_status_str(uint16_t status)
{
	return rblk_nvme_status_str(status);
}

static int reach(const struct rblk_connect_opts *o)
{
	if (!o->traddr)
		return -EINVAL;
	if (!strcmp(o->traddr, "192.0.2.99"))
		return -EHOSTUNREACH;
	if (!strcmp(o->traddr, "192.0.2.98"))
		return -ETIMEDOUT;
	return 0;
}

static void pad(char *dst, size_t len, const char *src)
{
	memset(dst, ' ', len);
	memcpy(dst, src, strlen(src) < len ? strlen(src) : len);
}

static int ns_setup(struct fake_ns *n, unsigned idx)
{
	static const struct { uint64_t blocks; uint32_t bs; bool ro; } shape[NR_NS] = {
		{ 2048, 512, false }, { 256, 4096, false }, { 64, 512, true },
	};
	const char *dir = getenv("RBLK_FAKE_DIR");
	size_t bytes;

	n->blocks = shape[idx].blocks;
	n->bs = shape[idx].bs;
	n->ro = shape[idx].ro;
	n->fd = -1;
	bytes = n->blocks * n->bs;
	if (dir) {
		char path[512];

		snprintf(path, sizeof(path), "%s/ns%u.img", dir, idx + 1);
		n->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (n->fd < 0 || ftruncate(n->fd, (off_t)bytes))
			return -errno;
		return 0;
	}
	n->mem = calloc(1, bytes);
	return n->mem ? 0 : -ENOMEM;
}

/* The target's cap on I/O queues. */
static unsigned io_queues_max(void)
{
	const char *s = getenv("RBLK_FAKE_IO_QUEUES");

	return s ? (unsigned)atoi(s) : 64;
}

int rblk_connect(const struct rblk_connect_opts *opts, struct rblk_ctrl **out, uint16_t *status)
{
	struct rblk_ctrl *c;
	unsigned want;
	int ret = reach(opts);

	*out = NULL;
	if (ret)
		return ret;
	if (!opts->subnqn)
		return -EINVAL;
	if (!strcmp(opts->subnqn, FAKE_AUTH)) {
		/* The library's rule: the connect fails with -EACCES unless both ends agree. */
		if (!opts->dhchap_secret || strcmp(opts->dhchap_secret, FAKE_SECRET) ||
		    (opts->dhchap_ctrl_secret && strcmp(opts->dhchap_ctrl_secret, FAKE_CTRL_SECRET)))
			return -EACCES;
	} else if (!strcmp(opts->subnqn, FAKE_REFUSED) || strcmp(opts->subnqn, FAKE_NQN)) {
		if (status)
			*status = NVME_SC_DNR | (!strcmp(opts->subnqn, FAKE_REFUSED) ?
							 NVME_SC_CONNECT_INVALID_HOST :
							 NVME_SC_CONNECT_INVALID_PARAM);
		return -EREMOTEIO;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	want = opts->nr_io_queues ? opts->nr_io_queues : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	c->nq = (int)(want < io_queues_max() ? want : io_queues_max());
	c->id.vid = htole16(0x1b36);
	pad(c->id.sn, sizeof(c->id.sn), "FAKE0001");
	pad(c->id.mn, sizeof(c->id.mn), "rblk fake controller");
	pad(c->id.fr, sizeof(c->id.fr), "0.1.0");
	c->id.cntlid = htole16(1);
	c->id.ver = htole32(0x10400);
	c->id.mdts = 5;
	c->id.nn = htole32(NR_NS);
	c->id.oncs = htole16(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	c->id.vwc = 1;
	c->id.sgls = htole32(0x100005);
	c->id.ioccsz = htole32(516);
	c->id.iorcsz = htole32(1);
	c->id.msdbd = 1;
	c->id.kas = htole16(50);
	c->id.tnvmcap[0] = 0x00;
	c->id.tnvmcap[1] = 0x10;	/* 4096 */
	snprintf(c->id.subnqn, sizeof(c->id.subnqn), "%s", opts->subnqn);
	for (unsigned i = 0; i < NR_NS; i++) {
		ret = ns_setup(&c->ns[i], i);
		if (ret) {
			rblk_disconnect(c);
			return ret;
		}
	}
	*out = c;
	return 0;
}

void rblk_disconnect(struct rblk_ctrl *ctrl)
{
	if (!ctrl)
		return;
	for (unsigned i = 0; i < NR_NS; i++) {
		free(ctrl->ns[i].mem);
		if (ctrl->ns[i].fd >= 0)
			close(ctrl->ns[i].fd);
	}
	free(ctrl);
}

const void *rblk_ctrl_identify(struct rblk_ctrl *ctrl) { return &ctrl->id; }
uint16_t rblk_ctrl_cntlid(struct rblk_ctrl *ctrl) { (void)ctrl; return 1; }
uint32_t rblk_ctrl_max_xfer(struct rblk_ctrl *ctrl) { (void)ctrl; return 128 * 1024; }
uint32_t rblk_ctrl_num_io_queues(struct rblk_ctrl *ctrl) { return (uint32_t)ctrl->nq; }
uint32_t rblk_ctrl_io_queue_size(struct rblk_ctrl *ctrl) { (void)ctrl; return 128; }
enum rblk_ctrl_state rblk_ctrl_state(struct rblk_ctrl *ctrl) { (void)ctrl; return RBLK_CTRL_LIVE; }

const char *rblk_ctrl_state_str(enum rblk_ctrl_state st)
{
	static const char *const s[] = { "live", "reconnecting", "deleting", "lost" };

	return st <= RBLK_CTRL_LOST ? s[st] : "?";
}

int rblk_ctrl_list_ns(struct rblk_ctrl *ctrl, uint32_t *nsids, unsigned max)
{
	unsigned n = 0;

	(void)ctrl;
	for (uint32_t i = 1; i <= NR_NS && n < max; i++)
		nsids[n++] = i;
	return (int)n;
}

int rblk_ctrl_admin_cmd(struct rblk_ctrl *ctrl, void *sqe, void *buf, uint32_t len, uint32_t *dw0,
			uint16_t *status)
{
	(void)ctrl; (void)sqe; (void)buf; (void)len; (void)dw0;
	if (status)
		*status = NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	return -EREMOTEIO;
}

int rblk_ctrl_get_log(struct rblk_ctrl *ctrl, uint8_t lid, uint32_t nsid, uint64_t offset, void *buf,
		      uint32_t len, uint16_t *status)
{
	(void)ctrl; (void)lid; (void)nsid; (void)offset;
	memset(buf, 0, len);
	if (status)
		*status = 0;
	return 0;
}

int rblk_discover(const struct rblk_connect_opts *opts, struct rblk_disc_entry **entries,
		  unsigned *n, uint64_t *genctr, uint16_t *status)
{
	struct rblk_disc_entry *e;
	int ret = reach(opts);

	if (ret)
		return ret;
	if (opts->subnqn && strcmp(opts->subnqn, RBLK_DISCOVERY_NQN)) {
		if (status)
			*status = NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
		return -EREMOTEIO;
	}
	e = calloc(2, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		e[i].trtype = NVMF_TRTYPE_RDMA;
		e[i].adrfam = NVMF_ADRFAM_IPV4;
		e[i].treq = NVMF_TREQ_NOT_SPECIFIED;
		e[i].portid = 1;
		e[i].cntlid = 0xffff;
		e[i].asqsz = 32;
		snprintf(e[i].trsvcid, sizeof(e[i].trsvcid), "4420");
		snprintf(e[i].traddr, sizeof(e[i].traddr), "%s", opts->traddr);
		e[i].rdma_qptype = NVMF_RDMA_QPTYPE_CONNECTED;
		e[i].rdma_prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
		e[i].rdma_cms = NVMF_RDMA_CMS_RDMA_CM;
	}
	e[0].subtype = NVMF_SUBTYPE_CURRENT_DISCOVERY;
	e[0].eflags = NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD;
	snprintf(e[0].subnqn, sizeof(e[0].subnqn), "%s", RBLK_DISCOVERY_NQN);
	e[1].subtype = NVMF_SUBTYPE_NVME;
	snprintf(e[1].subnqn, sizeof(e[1].subnqn), "%s", FAKE_NQN);
	*entries = e;
	*n = 2;
	*genctr = 7;
	return 0;
}

int rblk_ns_open(struct rblk_ctrl *ctrl, uint32_t nsid, struct rblk_ns **out)
{
	struct rblk_ns *ns;
	struct fake_ns *f;

	if (nsid < 1 || nsid > NR_NS)
		return -ENOENT;
	f = &ctrl->ns[nsid - 1];
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->ctrl = ctrl;
	ns->nsid = nsid;
	ns->id.nsze = ns->id.ncap = htole64(f->blocks);
	ns->id.nuse = htole64(f->blocks / 2);
	ns->id.nlbaf = 1;
	ns->id.flbas = f->bs == 4096 ? 1 : 0;
	ns->id.lbaf[0].ds = 9;
	ns->id.lbaf[1].ds = 12;
	ns->id.nguid[0] = 0xab;
	ns->id.nguid[15] = (uint8_t)nsid;
	ns->id.nsattr = f->ro ? NVME_NS_NSATTR_WP : 0;
	*out = ns;
	return 0;
}

void rblk_ns_close(struct rblk_ns *ns) { free(ns); }
uint64_t rblk_ns_num_blocks(struct rblk_ns *ns) { return ns->ctrl->ns[ns->nsid - 1].blocks; }
uint32_t rblk_ns_block_size(struct rblk_ns *ns) { return ns->ctrl->ns[ns->nsid - 1].bs; }
bool rblk_ns_read_only(struct rblk_ns *ns) { return ns->ctrl->ns[ns->nsid - 1].ro; }
const void *rblk_ns_identify(struct rblk_ns *ns) { return &ns->id; }
uint16_t rblk_ns_last_status(struct rblk_ns *ns) { (void)ns; return last_status; }

static bool fail_lba(uint64_t lba, uint32_t nlb)
{
	const char *s = getenv("RBLK_FAKE_FAIL_LBA");
	uint64_t bad;

	if (!s)
		return false;
	bad = strtoull(s, NULL, 0);
	return bad >= lba && bad < lba + nlb;
}

/* Runs one command against the namespace data: the NVMe status. */
static uint16_t execute(struct rblk_ns *ns, enum rblk_io_op op, void *buf, uint64_t lba, uint32_t nlb)
{
	struct fake_ns *f = &ns->ctrl->ns[ns->nsid - 1];
	size_t off = lba * f->bs, len = (size_t)nlb * f->bs;

	if (op == RBLK_OP_FLUSH)
		return 0;
	if (lba > f->blocks || nlb > f->blocks - lba)
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	if (op != RBLK_OP_READ && f->ro)
		return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
	if (fail_lba(lba, nlb))
		return op == RBLK_OP_READ ? NVME_SC_READ_ERROR : NVME_SC_WRITE_FAULT;
	switch (op) {
	case RBLK_OP_READ:
		if (f->fd >= 0)
			return pread(f->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : NVME_SC_INTERNAL;
		memcpy(buf, f->mem + off, len);
		return 0;
	case RBLK_OP_WRITE:
		if (f->fd >= 0)
			return pwrite(f->fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : NVME_SC_INTERNAL;
		memcpy(f->mem + off, buf, len);
		return 0;
	case RBLK_OP_WRITE_ZEROES:
	case RBLK_OP_DEALLOCATE: {
		uint8_t *z = calloc(1, len ? len : 1);
		uint16_t st = 0;

		if (!z)
			return NVME_SC_INTERNAL;
		if (f->fd >= 0)
			st = pwrite(f->fd, z, len, (off_t)off) == (ssize_t)len ? 0 : NVME_SC_INTERNAL;
		else
			memset(f->mem + off, 0, len);
		free(z);
		return st;
	}
	default:
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

/* The synchronous calls borrow a free I/O queue, as the library's do. */
static int sync_io(struct rblk_ns *ns, enum rblk_io_op op, void *buf, uint64_t lba, uint32_t nlb)
{
	uint16_t st;

	if (ns->ctrl->nqpairs >= ns->ctrl->nq)
		return -EBUSY;
	st = execute(ns, op, buf, lba, nlb);
	last_status = st;
	return st ? -EREMOTEIO : 0;
}

int rblk_read(struct rblk_ns *ns, void *buf, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_READ, buf, lba, nlb);
}

int rblk_write(struct rblk_ns *ns, const void *buf, uint64_t lba, uint32_t nlb, unsigned flags)
{
	(void)flags;
	return sync_io(ns, RBLK_OP_WRITE, (void *)buf, lba, nlb);
}

int rblk_flush(struct rblk_ns *ns) { return sync_io(ns, RBLK_OP_FLUSH, NULL, 0, 0); }

int rblk_write_zeroes(struct rblk_ns *ns, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_WRITE_ZEROES, NULL, lba, nlb);
}

int rblk_deallocate(struct rblk_ns *ns, uint64_t lba, uint32_t nlb)
{
	return sync_io(ns, RBLK_OP_DEALLOCATE, NULL, lba, nlb);
}

/* Compare, Compare and Write, Verify and Copy, made of reads and writes. */
static uint16_t compare(struct rblk_ns *ns, const void *expect, uint64_t lba, uint32_t nlb)
{
	size_t len = (size_t)nlb * ns->ctrl->ns[ns->nsid - 1].bs;
	uint8_t *tmp = malloc(len ? len : 1);
	uint16_t st;

	if (!tmp)
		return NVME_SC_INTERNAL;
	st = execute(ns, RBLK_OP_READ, tmp, lba, nlb);
	if (!st && expect && memcmp(tmp, expect, len))
		st = NVME_SC_COMPARE_FAILED | NVME_SC_DNR;
	free(tmp);
	return st;
}

static int sync_status(struct rblk_ns *ns, uint16_t st)
{
	(void)ns;
	last_status = st;
	return st ? -EREMOTEIO : 0;
}

int rblk_compare(struct rblk_ns *ns, const void *buf, uint64_t lba, uint32_t nlb)
{
	return sync_status(ns, compare(ns, buf, lba, nlb));
}

int rblk_compare_write(struct rblk_ns *ns, const void *expect, const void *data, uint64_t lba,
		       uint32_t nlb)
{
	uint16_t st = compare(ns, expect, lba, nlb);

	if (!st)
		st = execute(ns, RBLK_OP_WRITE, (void *)data, lba, nlb);
	return sync_status(ns, st);
}

int rblk_verify(struct rblk_ns *ns, uint64_t lba, uint32_t nlb)
{
	return sync_status(ns, compare(ns, NULL, lba, nlb));
}

int rblk_copy(struct rblk_ns *ns, const struct rblk_copy_range *r, unsigned nr, uint64_t dlba)
{
	uint32_t bs = ns->ctrl->ns[ns->nsid - 1].bs;
	uint16_t st = 0;

	for (unsigned i = 0; i < nr && !st; i++) {
		uint8_t *tmp = malloc((size_t)r[i].nlb * bs);

		st = tmp ? execute(ns, RBLK_OP_READ, tmp, r[i].slba, r[i].nlb) : NVME_SC_INTERNAL;
		if (!st)
			st = execute(ns, RBLK_OP_WRITE, tmp, dlba, r[i].nlb);
		dlba += r[i].nlb;
		free(tmp);
	}
	return sync_status(ns, st);
}

/*
 * Reservations of one host: registered with a key, holding a type or not,
 * kept in $RBLK_FAKE_DIR/resvN when set (so calls of separate processes see
 * each other's), else in memory.
 */
struct fake_resv {
	uint32_t gen;
	bool registered;
	uint8_t rtype;
	uint8_t ptpl;
	uint64_t key;
};

static struct fake_resv fake_resv_mem[NR_NS];

static void resv_io(uint32_t nsid, struct fake_resv *r, bool save)
{
	const char *dir = getenv("RBLK_FAKE_DIR");
	char path[512];
	FILE *f;

	if (!dir) {
		if (save)
			fake_resv_mem[nsid - 1] = *r;
		else
			*r = fake_resv_mem[nsid - 1];
		return;
	}
	snprintf(path, sizeof(path), "%s/resv%u", dir, nsid);
	if (!save)
		memset(r, 0, sizeof(*r));
	f = fopen(path, save ? "wb" : "rb");
	if (!f)
		return;
	if (save)
		fwrite(r, sizeof(*r), 1, f);
	else if (fread(r, sizeof(*r), 1, f) != 1)
		memset(r, 0, sizeof(*r));
	fclose(f);
}

static uint16_t resv_cmd(struct rblk_ns *ns, const struct nvme_sqe *sqe, uint8_t *buf, uint32_t len)
{
	uint32_t cdw10 = rblk_le32(sqe->cdw10), act = cdw10 & 7;
	bool iekey = cdw10 & 8;
	uint64_t crkey = len >= 8 ? rblk_get_le64(buf) : 0;
	uint64_t nkey = len >= 16 ? rblk_get_le64(buf + 8) : 0;
	struct fake_resv r;

	resv_io(ns->nsid, &r, false);
	switch (sqe->opc) {
	case NVME_IO_RESV_REGISTER:
		if (act == 0) {
			if (r.registered && r.key != nkey)
				return NVME_SC_RESERVATION_CONFLICT;
			r.registered = true;
			r.key = nkey;
		} else if (!r.registered || (!iekey && r.key != crkey)) {
			return NVME_SC_RESERVATION_CONFLICT;
		} else if (act == 1) {
			r = (struct fake_resv){ .gen = r.gen };
		} else {
			r.key = nkey;
		}
		if ((cdw10 >> 30) == 3)
			r.ptpl = 1;
		if ((cdw10 >> 30) == 2)
			r.ptpl = 0;
		r.gen++;
		break;
	case NVME_IO_RESV_ACQUIRE:
		if (!r.registered || (!iekey && r.key != crkey))
			return NVME_SC_RESERVATION_CONFLICT;
		r.rtype = (uint8_t)(cdw10 >> 8);
		break;
	case NVME_IO_RESV_RELEASE:
		if (!r.registered || (!iekey && r.key != crkey))
			return NVME_SC_RESERVATION_CONFLICT;
		r.rtype = 0;
		if (act == 1)
			r = (struct fake_resv){ .gen = r.gen + 1 };
		break;
	case NVME_IO_RESV_REPORT: {
		bool eds = rblk_le32(sqe->cdw11) & 1;
		uint32_t hdr = eds ? 64 : 24;

		memset(buf, 0, len);
		rblk_put_le32(buf, r.gen);
		buf[4] = r.rtype;
		rblk_put_le16(buf + 5, r.registered ? 1 : 0);
		buf[9] = r.ptpl;
		if (r.registered && len >= hdr + (eds ? 64 : 24)) {
			uint8_t *e = buf + hdr;

			rblk_put_le16(e, 1);
			e[2] = r.rtype ? 1 : 0;
			memset(e + (eds ? 16 : 8), 0xAB, eds ? 16 : 8);
			rblk_put_le64(e + (eds ? 8 : 16), r.key);
		}
		return 0;
	}
	default:
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	resv_io(ns->nsid, &r, true);
	return 0;
}

int rblk_ns_cmd(struct rblk_ns *ns, const void *sqe, void *buf, uint32_t len, uint32_t *dw0,
		uint16_t *status)
{
	uint16_t st = resv_cmd(ns, sqe, buf, len);

	if (dw0)
		*dw0 = 0;
	if (status)
		*status = st;
	return sync_status(ns, st);
}

void *rblk_buf_alloc(struct rblk_ctrl *ctrl, size_t len)
{
	void *p = NULL;

	(void)ctrl;
	return posix_memalign(&p, 4096, len ? len : 1) ? NULL : p;
}

void rblk_buf_free(struct rblk_ctrl *ctrl, void *buf) { (void)ctrl; free(buf); }
int rblk_mem_register(struct rblk_ctrl *ctrl, void *addr, size_t len) { (void)ctrl; (void)addr; (void)len; return 0; }
int rblk_mem_unregister(struct rblk_ctrl *ctrl, void *addr) { (void)ctrl; (void)addr; return 0; }

int rblk_qpair_alloc(struct rblk_ctrl *ctrl, struct rblk_qpair **out)
{
	struct rblk_qpair *qp;

	if (ctrl->nqpairs >= ctrl->nq)
		return -EBUSY;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->ctrl = ctrl;
	qp->depth = 128;
	qp->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (qp->efd < 0) {
		free(qp);
		return -errno;
	}
	ctrl->nqpairs++;
	*out = qp;
	return 0;
}

void rblk_qpair_free(struct rblk_qpair *qp)
{
	if (!qp)
		return;
	qp->ctrl->nqpairs--;
	close(qp->efd);
	free(qp);
}

unsigned rblk_qpair_depth(struct rblk_qpair *qp) { return qp->depth; }
int rblk_qpair_fd(struct rblk_qpair *qp) { return qp->efd; }
unsigned rblk_qpair_inflight(struct rblk_qpair *qp) { return qp->n; }
/* Requests complete at once here: whatever is in flight is waiting for rblk_poll(). */
void rblk_qpair_set_lazy_arm(struct rblk_qpair *qp, bool lazy) { (void)qp; (void)lazy; }
int rblk_qpair_prepare_sleep(struct rblk_qpair *qp) { return qp->n ? 1 : 0; }
int rblk_qpair_flush(struct rblk_qpair *qp) { (void)qp; return 0; }

int rblk_submit(struct rblk_qpair *qp, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	uint64_t one = 1;
	void *buf = io->buf;

	if (qp->n >= qp->depth)
		return -EAGAIN;
	if (!buf && io->iov && io->iovcnt == 1)
		buf = io->iov[0].iov_base;
	qp->q[qp->n].io = io;
	qp->q[qp->n].cb = cb;
	qp->q[qp->n].arg = arg;
	qp->q[qp->n].status = execute(io->ns, io->op, buf, io->lba, io->nlb);
	qp->n++;
	if (write(qp->efd, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

int rblk_poll(struct rblk_qpair *qp, unsigned max)
{
	unsigned n = qp->n < max ? qp->n : max;
	uint64_t v;

	if (read(qp->efd, &v, sizeof(v)) < 0) {
		/* nothing pending */
	}
	/* callbacks may submit again: take the completed ones out first */
	for (unsigned i = 0; i < n; i++) {
		struct rblk_io *io = qp->q[0].io;
		rblk_io_cb cb = qp->q[0].cb;
		void *arg = qp->q[0].arg;
		uint16_t st = qp->q[0].status;

		memmove(&qp->q[0], &qp->q[1], (qp->n - 1) * sizeof(qp->q[0]));
		qp->n--;
		cb(io, st, 0, arg);
	}
	if (qp->n) {
		v = 1;
		if (write(qp->efd, &v, sizeof(v)) < 0)
			return -errno;
	}
	return (int)n;
}

/*
 * Multipath: the fake world has one target behind every address, so a head
 * is its first path's controller; the other paths report as its copies.
 */
struct rblk_mpath {
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	unsigned npaths;
	char traddr[RBLK_MPATH_MAX_PATHS][64], trsvcid[RBLK_MPATH_MAX_PATHS][8];
};

void rblk_mpath_opts_init(struct rblk_mpath_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->no_path_tmo = -2;
	opts->ana_poll_ms = 1000;
}

int rblk_mpath_connect(const struct rblk_mpath_opts *opts, struct rblk_mpath **out, uint16_t *status)
{
	struct rblk_mpath *mp;
	int ret;

	if (!opts->npaths || opts->npaths > RBLK_MPATH_MAX_PATHS)
		return -EINVAL;
	mp = calloc(1, sizeof(*mp));
	if (!mp)
		return -ENOMEM;
	ret = rblk_connect(&opts->paths[0], &mp->ctrl, status);
	if (!ret)
		ret = rblk_ns_open(mp->ctrl, opts->nsid ? opts->nsid : 1, &mp->ns);
	if (ret) {
		if (mp->ctrl)
			rblk_disconnect(mp->ctrl);
		free(mp);
		return ret;
	}
	mp->npaths = opts->npaths;
	for (unsigned i = 0; i < mp->npaths; i++) {
		snprintf(mp->traddr[i], sizeof(mp->traddr[i]), "%s", opts->paths[i].traddr);
		snprintf(mp->trsvcid[i], sizeof(mp->trsvcid[i]), "%s",
			 opts->paths[i].trsvcid ? opts->paths[i].trsvcid : "4420");
	}
	*out = mp;
	return 0;
}

void rblk_mpath_disconnect(struct rblk_mpath *mp)
{
	rblk_ns_close(mp->ns);
	rblk_disconnect(mp->ctrl);
	free(mp);
}

struct rblk_ns *rblk_mpath_ns(struct rblk_mpath *mp) { return mp->ns; }
int rblk_mpath_qpair_alloc(struct rblk_mpath *mp, struct rblk_qpair **out) { return rblk_qpair_alloc(mp->ctrl, out); }
unsigned rblk_mpath_num_paths(struct rblk_mpath *mp) { return mp->npaths; }
struct rblk_ctrl *rblk_mpath_path_ctrl(struct rblk_mpath *mp, unsigned i) { return i < mp->npaths ? mp->ctrl : NULL; }
uint32_t rblk_ns_id(struct rblk_ns *ns) { return ns->nsid; }

int rblk_mpath_path_info(struct rblk_mpath *mp, unsigned i, struct rblk_mpath_path_info *out)
{
	if (i >= mp->npaths)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->traddr = mp->traddr[i];
	out->trsvcid = mp->trsvcid[i];
	out->connected = true;
	out->state = RBLK_CTRL_LIVE;
	out->cntlid = 1;
	out->ana = RBLK_ANA_OPTIMIZED;
	return 0;
}

const char *rblk_ana_state_str(enum rblk_ana_state st)
{
	return st == RBLK_ANA_OPTIMIZED ? "optimized" : "other";
}
