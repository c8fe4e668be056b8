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
 *
 * Engines (optional): a provider whose ios go through per-thread state, such
 * as an io_uring ring, names a struct rblk_provider_engine. Each poll-group
 * thread attaches to the engine once, on that thread, before its first io
 * of such a namespace; every namespace naming the same engine shares that
 * thread's context (one ring per thread for all files, as the built-in
 * backends do). submit() finds it in io->thread, the target's loop reaps
 * completions with poll() and rings the doorbell with flush() once per
 * iteration, and sleeps on wait_fd() when idle. The built-in backends are a
 * provider with such an engine; nothing else reaches the core.
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
	/*
	 * Only when can_compare_write: atomically, if the range holds exactly
	 * cmp_iov's bytes, write iov's; else write nothing and complete with
	 * -EILSEQ. Atomic against every other write to the range, however it
	 * reaches the storage (librbd's rbd_aio_compare_and_write, which the
	 * cluster makes atomic across gateways, is the model).
	 */
	RBLK_PROVIDER_COMPARE_WRITE,
};

/* WRITE and WRITE_ZEROES: durable before completion (NVMe FUA). */
#define RBLK_PROVIDER_FUA (1u << 0)

/* Bytes of io->priv an engine's provider may ask for (io_priv_size). */
#define RBLK_PROVIDER_IO_PRIV_MAX 256

/* One command for the provider. Owned by the target; valid until completed. */
struct rblk_provider_io {
	enum rblk_provider_op op;
	uint32_t flags;             /* RBLK_PROVIDER_FUA */
	uint64_t offset;            /* bytes; a multiple of the block size */
	uint64_t len;               /* bytes; a multiple of the block size; 0 for FLUSH */
	const struct iovec *iov;    /* READ / WRITE: buffers totalling len bytes */
	int iovcnt;
	void *user[2];              /* the provider's, from submit to completion */
	/* Providers with an engine only (NULL / -1 otherwise): */
	void *thread;               /* the engine's context on the submitting thread */
	/*
	 * The buffer registered with that context (register_buffers) that
	 * holds iov[0] when iovcnt is 1, or -1: an io_uring fixed buffer.
	 */
	int buf_index;
	void *priv;                 /* io_priv_size bytes, 16-aligned, the provider's */
	/* COMPARE_WRITE: the bytes the range must hold, len in all (iov: to write). */
	const struct iovec *cmp_iov;
	int cmp_iovcnt;
};

/*
 * A provider engine: per-thread state shared by the namespaces whose
 * provider names it (struct rblk_provider's engine), driven by the target's
 * loop on each poll-group thread. The loop's order per iteration: poll()
 * (completions), the commands it made ready (their submits), flush(). Every
 * callback but attach() gets the context attach() made, on its thread.
 */
struct rblk_provider_engine {
	size_t size;                /* sizeof(struct rblk_provider_engine) */
	const char *name;           /* for logs ("uring") */
	size_t io_priv_size;        /* bytes of io->priv per io; <= RBLK_PROVIDER_IO_PRIV_MAX */
	/* Required. The calling thread's context: 0 and *thread, or -errno. */
	int (*attach)(const struct rblk_provider_engine *engine, void **thread);
	/* Required. Nothing is in flight any more; free the context. */
	void (*detach)(void *thread);
	/*
	 * Required. Finishes up to max ios whose work is done, calling
	 * rblk_provider_complete() for each; may start ios that waited for
	 * room. Count (0: nothing) or -errno.
	 */
	int (*poll)(void *thread, unsigned max);
	/* Optional. Hands the iteration's submissions over, in one system call. */
	int (*flush)(void *thread);
	/*
	 * Required. Ios in flight; *local gets those that finish within
	 * microseconds of this host's work (a disk, RAM), which the loop spins
	 * for rather than sleeping; a remote service's (a network round trip)
	 * wake it through wait_fd().
	 */
	unsigned (*inflight)(void *thread, unsigned *local);
	/*
	 * Optional. A non-blocking eventfd that becomes readable when poll()
	 * has work; the loop reads it to reset it. -errno or NULL: the loop
	 * never sleeps while ios are in flight.
	 */
	int (*wait_fd)(void *thread);
	/*
	 * Optional. on false: the loop is awake and polls anyway, so
	 * completions need not signal the fd; true: it is about to sleep (it
	 * polls once more afterwards). -EOPNOTSUPP (or NULL): the fd always
	 * signals.
	 */
	int (*notify)(void *thread, bool on);
	/*
	 * Optional. The thread's I/O buffers, which later ios' iov point
	 * into (io->buf_index names one): register them with the kernel
	 * (io_uring fixed buffers). Nothing is in flight. 0 or -errno (the ios
	 * then carry buf_index -1).
	 */
	int (*register_buffers)(void *thread, const struct iovec *iov, unsigned n);
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
	/*
	 * Optional. Makes completed writes durable, blocking: a host's
	 * controller shutdown (CC.SHN), on a thread that may wait. 0 or -errno.
	 */
	int (*sync)(void *ctx);
	/*
	 * Optional. The storage can change size under the namespace (an RBD
	 * image resized elsewhere): call fn(arg, num_blocks) from any thread
	 * (short, non-blocking) whenever it does, until close(). 0, or
	 * -EOPNOTSUPP when it cannot tell, or -errno.
	 */
	int (*watch_size)(void *ctx, void (*fn)(void *arg, uint64_t num_blocks), void *arg);
	/*
	 * Optional, resv_load and resv_store together (resv_watch besides):
	 * the provider keeps the namespace's reservation state itself, so that
	 * every gateway exporting the same storage presents one reservation
	 * (an RBD image's state in a RADOS object, say). Without them the
	 * target keeps the state in memory, and in a file of its state
	 * directory while a host has Persist Through Power Loss on.
	 *
	 * The state is an opaque blob of at most RBLK_PROVIDER_RESV_MAX bytes,
	 * written and read whole. Both block and run off the poll groups.
	 *
	 * resv_load: copy the stored blob into buf (len bytes) and its size
	 * into *out_len: 0; -ENOENT when nothing is stored yet (no
	 * reservation); any other -errno makes the namespace's creation fail,
	 * since guessing an empty state would let a fenced host write again.
	 * Later (a load after fn, below) it leaves the state stale: the
	 * reservation commands and the I/O it would judge fail (Namespace Not
	 * Ready) until a load works; the target retries every second. A
	 * provider that cannot vouch for the state (its watch broken, so
	 * changes may have been missed) should fail the load too.
	 *
	 * resv_store: replace the stored blob; the host's command completes
	 * once it returns 0, so the blob must be durable (and visible to the
	 * other gateways) by then. -EAGAIN: the stored blob changed since this
	 * provider last loaded it (another gateway's change won a race): the
	 * target loads it again and judges the command anew. Any other -errno
	 * fails the command with Internal Error; the write may have landed, so
	 * the state is stale until the target loads it again.
	 *
	 * resv_watch: call fn(arg) from any thread (short, non-blocking) each
	 * time another holder of the storage changes the blob, until close():
	 * the target then loads it. 0, or -EOPNOTSUPP (changes made elsewhere
	 * are then seen at the next command that changes the state).
	 *
	 * A provider built before these members has none of them (size).
	 */
	int (*resv_load)(void *ctx, void *buf, size_t len, size_t *out_len);
	int (*resv_store)(void *ctx, const void *buf, size_t len);
	int (*resv_watch)(void *ctx, void (*fn)(void *arg), void *arg);
};

/* The largest reservation state blob a provider's resv_store is given. */
#define RBLK_PROVIDER_RESV_MAX 1600u

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
	 * reaches the provider's sync() when it has one; one without has the
	 * host's FLUSH commands, and flushes in close().
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
	/* The per-thread engine its ios go through, or NULL (none). */
	const struct rblk_provider_engine *engine;
	/*
	 * COMPARE_WRITE reaches submit() for a host's fused Compare and Write.
	 * false: the target reads, compares and writes itself, under its own
	 * range lock, which is atomic against the writes of this target only
	 * (a second gateway on the same storage needs the provider's).
	 * A provider built before this member has it false (size).
	 */
	bool can_compare_write;
	/*
	 * With can_compare_write: the most bytes one COMPARE_WRITE covers, a
	 * power of two no range may cross a multiple of (librbd: one 512-byte
	 * sector); 0 = any range. A host's Compare and Write beyond it fails
	 * with Invalid Field (the core's own lock would not be atomic across
	 * gateways), and Identify Namespace reports it as NACWU.
	 */
	uint32_t compare_write_unit;
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
 *   -EILSEQ       COMPARE_WRITE: the range differs (Compare Failure)
 *   -ENOMEM, -EAGAIN, -EBUSY, -EINTR   Internal Error, retryable
 *   anything else Internal Error, not retryable
 */
void rblk_provider_complete(struct rblk_provider_io *io, int res) RBLK_EXPORT;

#ifdef __cplusplus
}
#endif
#endif
