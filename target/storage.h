/* SPDX-License-Identifier: MIT */
/*
 * The contract between the target core and the storage that namespaces name
 * by path ("/dev/sdb", "mem:1G", "rbd:pool/img"): the built-in backends
 * (backend/provider.c), given to rblk_tgt_create() next to the fabric. The
 * storage turns a path into a struct rblk_provider (include/rblk/
 * provider.h), the one seam between the core and storage: from there on the
 * core treats it exactly as an embedder's provider, and runs its engine's
 * per-thread state on the poll groups (target/pg_engine.c). The core
 * includes nothing of backend/.
 */
#ifndef RBLK_TARGET_STORAGE_H
#define RBLK_TARGET_STORAGE_H

#include <stddef.h>

#include <rblk/provider.h>
#include <rblk/target.h>

struct rblk_storage;

struct rblk_storage_ops {
	const char *name;                /* for logs: "built-in backends" */
	/*
	 * At rblk_target_create(): takes what the options ask of storage
	 * (opts->backend: "uring", "aio" or NULL for the host's best; the
	 * queue depth; the Ceph client). 0, or -errno with the reason in why.
	 */
	int (*create)(const struct rblk_target_opts *opts, struct rblk_storage **out, char *why,
		      size_t len);
	/* After the last namespace closed. */
	void (*destroy)(struct rblk_storage *s);
	/* The kernel I/O engine files and block devices go through ("uring"). */
	const char *(*engine_name)(const struct rblk_storage *s);
	/*
	 * The provider engine its namespaces' providers name, or NULL: every
	 * poll group attaches to it when its thread starts (an io_uring ring
	 * that fails to set up fails the start, not the first I/O).
	 */
	const struct rblk_provider_engine *(*engine)(struct rblk_storage *s);
	/*
	 * Opens opts->path as a provider for a namespace (opts->backend, when
	 * set, must be the storage's engine). 0, or -errno after logging why.
	 * The provider's close() releases it.
	 */
	int (*open)(struct rblk_storage *s, const struct rblk_ns_opts *opts,
		    struct rblk_provider *out);
};

/* The built-in backends (backend/provider.c). */
extern const struct rblk_storage_ops rblk_backend_storage;

#endif
