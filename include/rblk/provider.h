/* SPDX-License-Identifier: MIT */
/*
 * Namespace providers: put your own storage behind an rblk namespace.
 *
 * A provider is a block device the embedder implements: a size, a block size,
 * what it can do, and one asynchronous submit callback. rblk-target's own
 * backends (files and block devices through io_uring or libaio, RAM, null)
 * are providers behind this same seam.
 *
 * The target validates every command before the provider sees it: the
 * namespace exists, the LBA range is inside num_blocks, transfers fit the
 * negotiated maximum, writes never reach a read-only namespace, and the data
 * of a write has arrived in full. The provider only moves bytes.
 *
 *	static int ram_submit(void *ctx, struct rblk_provider_io *io)
 *	{
 *		switch (io->op) {
 *		case RBLK_PROVIDER_READ:  copy ctx + io->offset into io->iov; break;
 *		case RBLK_PROVIDER_WRITE: copy io->iov to ctx + io->offset; break;
 *		default: break;  // flush, write zeroes, discard
 *		}
 *		rblk_provider_complete(io, 0);
 *		return 0;
 *	}
 *	static const struct rblk_provider_ops ram_ops = {
 *		.size = sizeof(ram_ops), .submit = ram_submit,
 *	};
 *	struct rblk_provider p;
 *	rblk_provider_init(&p);
 *	p.ops = &ram_ops; p.ctx = ram; p.block_size = 512; p.num_blocks = n;
 *	nopts.provider = &p;                       // struct rblk_ns_opts
 *	rblk_subsystem_add_namespace(ss, &nopts, &nsid);
 *
 * Threads: submit() runs on a poll-group thread of the target (the embedder's
 * own thread with RBLK_THREADS_EMBEDDER), possibly on several at once for
 * one namespace, and must not block: start the work and return. The
 * completion, rblk_provider_complete(), may be called from any thread,
 * including from inside submit(); the target finishes the command on the
 * thread that submitted it.
 *
 * Memory: for READ and WRITE, io->iov points straight into the target's
 * registered RDMA buffer pool: data read into it goes to the host with one
 * RDMA WRITE, and written data was pulled there by RDMA READ. There is no
 * copy between the wire and the provider; a provider that does its own DMA
 * (io_uring with fixed buffers, SPDK-style drivers) may use the memory
 * directly until it completes the io, and never after.
 */
#ifndef RBLK_PROVIDER_H
#define RBLK_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rblk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rblk_provider_op {
	RBLK_PROVIDER_READ = 0,
	RBLK_PROVIDER_WRITE,
	RBLK_PROVIDER_FLUSH,        /* make completed writes durable (only when volatile_cache) */
	RBLK_PROVIDER_WRITE_ZEROES, /* the range reads back as zeroes afterwards */
	RBLK_PROVIDER_DISCARD,      /* the range is no longer needed (NVMe deallocate) */
};

/* WRITE and WRITE_ZEROES: durable before completion (NVMe FUA). */
#define RBLK_PROVIDER_FUA (1u << 0)

/* One command for the provider. Owned by the target; valid until completed. */
struct rblk_provider_io {
	enum rblk_provider_op op;
	uint32_t flags;             /* RBLK_PROVIDER_FUA */
	uint64_t offset;            /* bytes; a multiple of the block size */
	uint64_t len;               /* bytes; a multiple of the block size; 0 for FLUSH */
	const struct iovec *iov;    /* READ / WRITE: buffers totalling len bytes */
	int iovcnt;
	void *user[2];              /* the provider's, from submit to completion */
};

struct rblk_provider_ops {
	size_t size;                /* sizeof(struct rblk_provider_ops) */
	/*
	 * Required. Start io and return 0: rblk_provider_complete() follows,
	 * exactly once, from any thread (possibly before submit returns). Or
	 * return -errno: nothing was started, no completion follows, and the
	 * command fails as if completed with that -errno.
	 */
	int (*submit)(void *ctx, struct rblk_provider_io *io);
	/*
	 * Optional. The namespace was removed (or the target destroyed) and no
	 * io of it is outstanding: make completed writes durable if
	 * volatile_cache, then release ctx. Called from the thread that
	 * removed it, which may block here.
	 */
	void (*close)(void *ctx);
};

struct rblk_provider {
	size_t size;                /* sizeof(struct rblk_provider): set by rblk_provider_init() */
	const struct rblk_provider_ops *ops;
	void *ctx;                  /* passed to every op */
	uint32_t block_size;        /* logical block size: 512, 1024, 2048 or 4096 */
	uint64_t num_blocks;        /* capacity in blocks; at least 1 */
	bool read_only;             /* the host sees it write-protected */
	/*
	 * Writes may sit in a volatile cache: the host is told so (NVMe VWC)
	 * and sends FLUSH, which reaches submit(); with the host's cache turned
	 * off every write carries RBLK_PROVIDER_FUA. false: completed writes are
	 * durable and FLUSH completes without reaching the provider (a host may
	 * still set FUA on a write). A host's controller shutdown (CC.SHN)
	 * syncs the built-in backends but does not reach a provider (submit()
	 * belongs to the poll-group threads): a provider with a volatile
	 * cache has the host's FLUSH commands, and flushes in close().
	 */
	bool volatile_cache;
	/*
	 * WRITE_ZEROES reaches submit(). false: the target writes zeroes with
	 * WRITE ios (up to 1 MiB each) instead.
	 */
	bool can_write_zeroes;
	/*
	 * DISCARD reaches submit(). false: deallocation is accepted as the
	 * hint it is and completes without reaching the provider.
	 */
	bool can_discard;
	bool discard_zeroes;        /* discarded blocks read back as zeroes (NVMe DLFEAT) */
	/*
	 * How the storage likes to be written, in bytes, for the host's queue
	 * limits (Identify Namespace NPWG/NPWA, NPDG/NPDA, NOWS, NAWUN/NAWUPF/
	 * NACWU, as the kernel target reports a block device's). 0 in
	 * physical_block_size: no hints at all (files and RAM, as the kernel
	 * target). Multiples of block_size; optimal_io_size and
	 * discard_granularity may be 0 (none).
	 */
	uint32_t physical_block_size;
	uint32_t optimal_io_size;
	uint32_t discard_granularity;
};

/* Zeroes p and sets its size. */
void rblk_provider_init(struct rblk_provider *p) RBLK_EXPORT;

/*
 * Finishes io with 0 or -errno. Any thread; exactly once per io that
 * submit() accepted. The -errno becomes the NVMe status the host sees:
 *   -EIO          Unrecovered Read Error / Write Fault (the host retries)
 *   -ENOSPC, -EDQUOT  Capacity Exceeded
 *   -EROFS, -EPERM    Namespace Write Protected
 *   -EOPNOTSUPP   Invalid Opcode
 *   -ENOMEM, -EAGAIN, -EBUSY, -EINTR   Internal Error, retryable
 *   anything else Internal Error, not retryable
 */
void rblk_provider_complete(struct rblk_provider_io *io, int res) RBLK_EXPORT;

#ifdef __cplusplus
}
#endif
#endif
