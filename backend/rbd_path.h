/* SPDX-License-Identifier: MIT */
/*
 * Parsing of an RBD namespace path, "rbd:POOL/IMAGE" or
 * "rbd:POOL/NAMESPACE/IMAGE". Apart from the engine so that it builds (and is
 * tested, and checked before start) without librbd.
 */
#ifndef RBLK_BACKEND_RBD_PATH_H
#define RBLK_BACKEND_RBD_PATH_H

#include <stdbool.h>

#define RBLK_RBD_PREFIX "rbd:"
/* Ceph's own limits are smaller (pool names 127, image names 95 bytes in
 * practice); this only bounds our copies. */
#define RBLK_RBD_NAME_MAX 256

struct rblk_rbd_path {
	char pool[RBLK_RBD_NAME_MAX];
	char ns[RBLK_RBD_NAME_MAX];     /* "" = the pool's default namespace */
	char image[RBLK_RBD_NAME_MAX];
};

/* Whether path names an RBD image (starts with "rbd:"). */
bool rblk_rbd_path_is(const char *path);

/*
 * Splits "rbd:POOL/IMAGE" or "rbd:POOL/NAMESPACE/IMAGE" (the "rbd:" prefix is
 * optional here). 0, or -EINVAL for an empty or over-long component, more
 * than three components, or an '@' (snapshots are not served yet).
 */
int rblk_rbd_path_parse(const char *path, struct rblk_rbd_path *out);

#endif
