/* SPDX-License-Identifier: MIT */
/*
 * Tests for the namespace-provider seam (include/rblk/provider.h, target/io.c,
 * target/ns.c): an embedder's RAM provider behind a namespace, completing
 * inside submit() or from a thread of its own; what reaches the provider and
 * what the target does instead (Flush without a volatile cache, Write Zeroes
 * emulated with writes, deallocation without discard); errors becoming NVMe
 * statuses; bad providers refused; close() exactly once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test_transport.h"
#include "ut.h"

#define NS_BLOCKS 8192 /* 4 MiB of 512-byte blocks */

struct ram {
	uint8_t *mem;
	unsigned ops[5];        /* submits per op */
	unsigned fua;           /* writes with RBLK_PROVIDER_FUA */
	unsigned closes;
	int fail_op;            /* -1, or this op completes with fail_res */
	int fail_res;
	int refuse_res;         /* != 0: submit() refuses with it */
	bool threaded;          /* complete from the worker thread */

	/* The worker: a one-slot-at-a-time queue of ios to complete. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rblk_provider_io *q[64];
	unsigned nq;
	bool stop;
};

static struct tt_env *env;
static struct tt_queue *aq, *iq;
static struct ram ram;

static int do_io(struct ram *r, struct rblk_provider_io *io)
{
	uint8_t *p = r->mem + io->offset;

	if ((int)io->op == r->fail_op)
		return r->fail_res;
	for (int i = 0; i < io->iovcnt; i++) {
		if (io->op == RBLK_PROVIDER_READ)
			memcpy(io->iov[i].iov_base, p, io->iov[i].iov_len);
		else if (io->op == RBLK_PROVIDER_WRITE)
			memcpy(p, io->iov[i].iov_base, io->iov[i].iov_len);
		p += io->iov[i].iov_len;
	}
	if (io->op == RBLK_PROVIDER_WRITE_ZEROES || io->op == RBLK_PROVIDER_DISCARD)
		memset(p, 0, io->len);
	return 0;
}

static void *worker(void *arg)
{
	struct ram *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stop || r->nq) {
		while (r->nq) {
			struct rblk_provider_io *io = r->q[--r->nq];

			pthread_mutex_unlock(&r->lock);
			rblk_provider_complete(io, do_io(r, io));
			pthread_mutex_lock(&r->lock);
		}
		if (!r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static int ram_submit(void *ctx, struct rblk_provider_io *io)
{
	struct ram *r = ctx;

	r->ops[io->op]++;
	if (io->op == RBLK_PROVIDER_WRITE && (io->flags & RBLK_PROVIDER_FUA))
		r->fua++;
	if (r->refuse_res)
		return r->refuse_res;
	if (!r->threaded) {
		rblk_provider_complete(io, do_io(r, io));
		return 0;
	}
	pthread_mutex_lock(&r->lock);
	r->q[r->nq++] = io;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static void ram_close(void *ctx)
{
	((struct ram *)ctx)->closes++;
}

static const struct rblk_provider_ops ram_ops = {
	.size = sizeof(ram_ops),
	.submit = ram_submit,
	.close = ram_close,
};

static void provider_fill(struct rblk_provider *p, bool caps)
{
	rblk_provider_init(p);
	p->ops = &ram_ops;
	p->ctx = &ram;
	p->block_size = 512;
	p->num_blocks = NS_BLOCKS;
	p->volatile_cache = caps;
	p->can_write_zeroes = caps;
	p->can_discard = caps;
	p->discard_zeroes = caps;
}

/* A subsystem whose namespace 1 is the RAM provider; admin and I/O queue up. */
static void setup(bool caps, bool threaded)
{
	struct rblk_subsystem_opts so;
	struct rblk_subsystem *ss;
	struct rblk_provider p;
	struct rblk_ns_opts no;
	uint32_t nsid = 0;
	uint16_t cntlid;

	memset(&ram, 0, sizeof(ram));
	ram.mem = calloc(NS_BLOCKS, 512);
	ram.fail_op = -1;
	ram.threaded = threaded;
	pthread_mutex_init(&ram.lock, NULL);
	pthread_cond_init(&ram.cond, NULL);
	if (threaded)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&ram.thread, NULL, worker, &ram), 0);
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN;
	so.allow_any_host = true;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &ss), 0);
	provider_fill(&p, caps);
	rblk_ns_opts_init(&no);
	no.provider = &p;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, &nsid), 0);
	CU_ASSERT_EQUAL(nsid, 1);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
}

static void teardown(void)
{
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	tt_env_destroy(env);
	/* The namespace went with the target: its provider was closed once. */
	CU_ASSERT_EQUAL(ram.closes, 1);
	if (ram.threaded) {
		pthread_mutex_lock(&ram.lock);
		ram.stop = true;
		pthread_cond_signal(&ram.cond);
		pthread_mutex_unlock(&ram.lock);
		pthread_join(ram.thread, NULL);
	}
	pthread_cond_destroy(&ram.cond);
	pthread_mutex_destroy(&ram.lock);
	free(ram.mem);
}

static uint8_t *pattern(size_t len, uint8_t seed)
{
	uint8_t *p = aligned_alloc(4096, len);

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 13 + (i >> 9));
	return p;
}

static bool zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static uint16_t dsm_dealloc(uint64_t slba, uint32_t nlb)
{
	struct nvme_dsm_cmd c;
	uint8_t buf[4096] = { 0 };
	struct nvme_dsm_range *r = (struct nvme_dsm_range *)buf;

	tt_sqe((struct nvme_sqe *)&c, NVME_IO_DSM, 0x77, 1);
	c.attributes = rblk_cpu_to_le32(NVME_DSM_AD);
	r->slba = rblk_cpu_to_le64(slba);
	r->nlb = rblk_cpu_to_le32(nlb);
	return tt_cmd(iq, (struct nvme_sqe *)&c, buf, sizeof(buf), NULL, NULL, 0);
}

static uint16_t write_zeroes(uint64_t slba, uint32_t nlb)
{
	struct nvme_rw_cmd c;

	tt_rw_sqe(&c, NVME_IO_WRITE_ZEROES, 9, 1, slba, nlb);
	return tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 0, NULL, NULL, 0);
}

static uint16_t flush(void)
{
	struct nvme_sqe c;

	tt_sqe(&c, NVME_IO_FLUSH, 5, 1);
	return tt_cmd(iq, &c, NULL, 0, NULL, NULL, 0);
}

/* ------------------------------------------------------------------------ */

static void read_write(bool threaded)
{
	uint8_t *w = pattern(65536, 5), *r = aligned_alloc(4096, 65536);

	setup(true, threaded);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 100, 128, 0, w, 65536), 0);
	/* The bytes are in the provider's memory, at the LBA's offset. */
	CU_ASSERT_EQUAL(memcmp(ram.mem + 100 * 512, w, 65536), 0);
	memset(r, 0, 65536);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 100, 128, 0, r, 65536), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 65536), 0);
	/* Several buffers per command reach the provider as an iovec. */
	env->iov_split = 4096;
	memset(r, 0, 65536);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 100, 128, 0, r, 65536), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 65536), 0);
	env->iov_split = 0;
	/* The last block; one past the end never reaches the provider. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, NS_BLOCKS - 1, 1, 0, w, 512), 0);
	ram.ops[RBLK_PROVIDER_WRITE] = 0;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, NS_BLOCKS - 1, 2, 0, w, 1024)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_WRITE], 0);
	teardown();
	free(w);
	free(r);
}

static void test_inline_completion(void)
{
	read_write(false);
}

static void test_completion_from_another_thread(void)
{
	read_write(true);
}

static void test_flush_and_fua(void)
{
	uint8_t *w = pattern(4096, 1);

	/* Volatile cache: Flush reaches the provider; cache off makes writes FUA. */
	setup(true, false);
	CU_ASSERT_EQUAL(flush(), 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_FLUSH], 1);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, w, 4096), 0);
	CU_ASSERT_EQUAL(ram.fua, 0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_VOLATILE_WC, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, w, 4096), 0);
	CU_ASSERT_EQUAL(ram.fua, 1);
	teardown();
	/* None: Flush completes without reaching it. */
	setup(false, false);
	CU_ASSERT_EQUAL(flush(), 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_FLUSH], 0);
	teardown();
	free(w);
}

static void test_write_zeroes(void)
{
	const size_t len = 3u << 20; /* 3 MiB: more than one emulated write */
	uint8_t *w = pattern(len, 7), *r = aligned_alloc(4096, len);

	/* A provider that zeroes gets WRITE_ZEROES. */
	setup(true, false);
	memset(ram.mem, 0xAB, NS_BLOCKS * 512);
	CU_ASSERT_EQUAL(write_zeroes(8, 16), 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_WRITE_ZEROES], 1);
	CU_ASSERT_TRUE(zero(ram.mem + 8 * 512, 16 * 512));
	CU_ASSERT_EQUAL(ram.mem[7 * 512 + 511], 0xAB);
	CU_ASSERT_EQUAL(ram.mem[24 * 512], 0xAB);
	teardown();

	/* One that cannot gets WRITEs of zeroes, in order, covering the range exactly. */
	setup(false, true);
	memset(ram.mem, 0xAB, NS_BLOCKS * 512);
	CU_ASSERT_EQUAL(write_zeroes(1, (uint32_t)(len / 512)), 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_WRITE_ZEROES], 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_WRITE], 3);
	CU_ASSERT_TRUE(zero(ram.mem + 512, len));
	CU_ASSERT_EQUAL(ram.mem[0], 0xAB);
	CU_ASSERT_EQUAL(ram.mem[512 + len], 0xAB);
	/* A failing write stops the emulation with the write's status. */
	ram.fail_op = RBLK_PROVIDER_WRITE;
	ram.fail_res = -EIO;
	CU_ASSERT_EQUAL(TT_SC(write_zeroes(0, 8)), NVME_SC_WRITE_FAULT);
	teardown();
	free(w);
	free(r);
}

static void test_deallocate(void)
{
	uint8_t id[4096];

	/* No discard: accepted as a hint, the data stays, DLFEAT says nothing. */
	setup(false, false);
	memset(ram.mem, 0xCD, NS_BLOCKS * 512);
	CU_ASSERT_EQUAL(dsm_dealloc(16, 32), 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_DISCARD], 0);
	CU_ASSERT_EQUAL(ram.mem[16 * 512], 0xCD);
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, id), 0);
	CU_ASSERT_EQUAL(((struct nvme_id_ns *)id)->dlfeat, 0);
	teardown();
	/* Discard that zeroes: it reaches the provider and DLFEAT says zeroes. */
	setup(true, false);
	memset(ram.mem, 0xCD, NS_BLOCKS * 512);
	CU_ASSERT_EQUAL(dsm_dealloc(16, 32), 0);
	CU_ASSERT_EQUAL(ram.ops[RBLK_PROVIDER_DISCARD], 1);
	CU_ASSERT_TRUE(zero(ram.mem + 16 * 512, 32 * 512));
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, id), 0);
	CU_ASSERT_NOT_EQUAL(((struct nvme_id_ns *)id)->dlfeat, 0);
	teardown();
}

/*
 * The embedder resizes its provider: Identify, the LBA range check and the
 * Changed Namespace List follow; built-in namespaces refuse (their storage
 * decides their size).
 */
static void test_resize(void)
{
	struct rblk_subsystem *ss;
	struct rblk_ns_opts no;
	uint32_t list[1024], nsid = 2;
	uint8_t id[4096], *buf = calloc(1, 512);

	setup(false, false);
	ss = rblk_target_find_subsystem(env->tgt, TT_SUBNQN);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	/* The namespace's own addition is in the list: read it away. */
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);

	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, 1, NS_BLOCKS / 2), 0);
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, id), 0);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_id_ns *)id)->nsze), NS_BLOCKS / 2);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, NS_BLOCKS / 2, 1, 0, buf, 512)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, NS_BLOCKS / 2 - 1, 1, 0, buf, 512), 0);
	memset(list, 0xAB, sizeof(list));
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 1);
	CU_ASSERT_EQUAL(list[1], 0);
	/* The same size again changes nothing: no entry. */
	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, 1, NS_BLOCKS / 2), 0);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);
	CU_ASSERT_EQUAL(list[0], 0);
	/* Back to full size: the last block is there again. */
	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, 1, NS_BLOCKS), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, NS_BLOCKS - 1, 1, 0, buf, 512), 0);

	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, 1, UINT64_MAX), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, 9, 8), -ENOENT);
	rblk_ns_opts_init(&no);
	no.path = "mem:64K";
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, &nsid), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_resize_namespace(ss, nsid, 256), -EOPNOTSUPP);
	free(buf);
	teardown();
}

/* The I/O hints reach Identify Namespace as the kernel target reports a block device's. */
static void test_io_hints(void)
{
	struct rblk_subsystem_opts so;
	struct rblk_subsystem *ss;
	struct rblk_provider p;
	struct rblk_ns_opts no;
	struct nvme_id_ns *id = calloc(1, sizeof(*id));
	uint16_t cntlid;

	memset(&ram, 0, sizeof(ram));
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN;
	so.allow_any_host = true;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &ss), 0);
	rblk_ns_opts_init(&no);
	no.provider = &p;
	/* Not multiples of the block: refused. */
	provider_fill(&p, true);
	p.physical_block_size = 1000;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), -EINVAL);
	/* nsid 1 without hints, nsid 2 with: 4 KiB physical, 64 KiB optimal, 8 KiB discard. */
	provider_fill(&p, true);
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	p.physical_block_size = 4096;
	p.optimal_io_size = 65536;
	p.discard_granularity = 8192;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);

	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_NS, 1, 0, id), 0);
	CU_ASSERT_EQUAL(id->nsfeat & (NVME_NS_FEAT_ATOMICS | NVME_NS_FEAT_IO_OPT), 0);
	CU_ASSERT_EQUAL(id->npwg, 0);
	CU_ASSERT_EQUAL(id->nows, 0);
	CU_ASSERT_EQUAL(tt_identify(aq, NVME_ID_CNS_NS, 2, 0, id), 0);
	CU_ASSERT_EQUAL(id->nsfeat & (NVME_NS_FEAT_ATOMICS | NVME_NS_FEAT_IO_OPT),
			NVME_NS_FEAT_ATOMICS | NVME_NS_FEAT_IO_OPT);
	/* 0's based block counts of 512 bytes. */
	CU_ASSERT_EQUAL(rblk_le16(id->npwg), 7);
	CU_ASSERT_EQUAL(rblk_le16(id->npwa), 7);
	CU_ASSERT_EQUAL(rblk_le16(id->nawupf), 7);
	CU_ASSERT_EQUAL(rblk_le16(id->nawun), 7);
	CU_ASSERT_EQUAL(rblk_le16(id->nacwu), 7);
	CU_ASSERT_EQUAL(rblk_le16(id->npdg), 15);
	CU_ASSERT_EQUAL(rblk_le16(id->npda), 15);
	CU_ASSERT_EQUAL(rblk_le16(id->nows), 127);
	tt_queue_destroy(aq);
	aq = NULL;
	tt_env_destroy(env);
	CU_ASSERT_EQUAL(ram.closes, 2);
	free(id);
}

static void test_errors(void)
{
	uint8_t *buf = pattern(4096, 3);

	setup(true, true);
	/* Completed with an error from the worker thread. */
	ram.fail_op = RBLK_PROVIDER_READ;
	ram.fail_res = -EIO;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 8, 0, buf, 4096)), NVME_SC_READ_ERROR);
	ram.fail_res = -EOPNOTSUPP;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 8, 0, buf, 4096)),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	/* A network backend's timeout may pass: the host may retry. */
	ram.fail_res = -ETIMEDOUT;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 8, 0, buf, 4096)), NVME_SC_INTERNAL);
	/* A fenced (blocklisted) Ceph client will not recover: DNR. */
	ram.fail_res = -ESHUTDOWN;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 8, 0, buf, 4096)),
			NVME_SC_INTERNAL | NVME_SC_DNR);
	ram.fail_op = -1;
	/* Refused at submit: nothing started, the command fails. */
	ram.refuse_res = -ENOSPC;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, buf, 4096)),
			NVME_SC_CAP_EXCEEDED | NVME_SC_DNR);
	ram.refuse_res = -EAGAIN;
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, buf, 4096)), NVME_SC_INTERNAL);
	ram.refuse_res = 0;
	/* And the namespace still works. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, buf, 4096), 0);
	teardown();
	free(buf);
}

static void test_bad_providers(void)
{
	static const struct rblk_provider_ops no_submit = { .size = sizeof(no_submit) };
	struct rblk_subsystem_opts so;
	struct rblk_subsystem *ss;
	struct rblk_provider p;
	struct rblk_ns_opts no;

	memset(&ram, 0, sizeof(ram));
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &ss), 0);
	rblk_ns_opts_init(&no);
	no.provider = &p;

	provider_fill(&p, true);
	p.ops = &no_submit;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), -EINVAL);
	provider_fill(&p, true);
	p.ops = NULL;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), -EINVAL);
	provider_fill(&p, true);
	p.block_size = 520;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), -EINVAL);
	p.block_size = 8192;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), -EINVAL);
	provider_fill(&p, true);
	p.num_blocks = 0;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), -EINVAL);
	/* A refused provider stays the embedder's: never closed. */
	CU_ASSERT_EQUAL(ram.closes, 0);
	/* A good one, removed: closed exactly once. */
	provider_fill(&p, true);
	p.block_size = 4096;
	p.num_blocks = 16;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 1), 0);
	CU_ASSERT_EQUAL(ram.closes, 1);
	tt_env_destroy(env);
	CU_ASSERT_EQUAL(ram.closes, 1);
}

static const struct ut_case cases[] = {
	UT_CASE(test_resize),
	UT_CASE(test_inline_completion),
	UT_CASE(test_completion_from_another_thread),
	UT_CASE(test_flush_and_fua),
	UT_CASE(test_write_zeroes),
	UT_CASE(test_deallocate),
	UT_CASE(test_io_hints),
	UT_CASE(test_errors),
	UT_CASE(test_bad_providers),
	UT_END,
};

UT_MAIN("target/provider", cases)
