/* SPDX-License-Identifier: MIT */
/*
 * The rbd engine's reservation store (rbd_resv.c): an image's NVMe
 * reservation state in one RADOS object next to the image, shared by every
 * gateway that exports it. The contract is the provider's resv_load,
 * resv_store and resv_watch (include/rblk/provider.h). Every call but
 * close blocks on the cluster: never on a queue's thread.
 */
#ifndef RBLK_BACKEND_RBD_RESV_H
#define RBLK_BACKEND_RBD_RESV_H

#include <rados/librados.h>
#include <stddef.h>

struct rblk_rbd_resv;

/*
 * The store of the image with id image_id, in io's pool and namespace (io
 * stays the caller's and must outlive it). label names it in logs. No
 * cluster access yet. 0 or -errno.
 */
int rblk_rbd_resv_create(rados_ioctx_t io, const char *image_id, const char *label,
			 struct rblk_rbd_resv **out);
/* Stops the watch and waits for its callbacks; rs may be NULL. */
void rblk_rbd_resv_destroy(struct rblk_rbd_resv *rs);
/* The blob into buf: 0 with *out_len; -ENOENT: none (or empty); -ENOTCONN: watch down. */
int rblk_rbd_resv_load(struct rblk_rbd_resv *rs, void *buf, size_t len, size_t *out_len);
/* Replaces the blob: 0, -EAGAIN when it changed since the last load, or -errno. */
int rblk_rbd_resv_store(struct rblk_rbd_resv *rs, const void *buf, size_t len);
/* Calls fn(arg) when another gateway changed it, until destroy. 0 or -errno. */
int rblk_rbd_resv_watch(struct rblk_rbd_resv *rs, void (*fn)(void *arg), void *arg);

#endif
