/* SPDX-License-Identifier: MIT */
/*
 * The rules on a namespace's path that need no target: the size of a
 * "mem:SIZE" / "null:SIZE" namespace, the form of an "rbd:POOL/IMAGE" one,
 * and whether a file or block device would open (provider.c opens it for
 * real with the same rules). Apart from provider.c so that a program's
 * start-up check (rblk-target's, through the public rblk_ns_path_check())
 * links it without the target.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rblk/target.h>

#include "backend/backend.h"
#include "backend/provider.h"
#include "backend/rbd_path.h"
#include "common/parse.h"

int rblk_backend_mem_size(const char *s, uint64_t *out, char *why, size_t len)
{
	uint64_t v;
	int ret = rblk_size_parse(s, &v, why, len);

	if (ret)
		return ret;
	/* A namespace of no blocks is one no host can use. */
	if (!v) {
		snprintf(why, len, "must not be 0");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int rblk_ns_path_check(const char *path, bool read_only, uint32_t block_size, char *why,
		       size_t len)
{
	uint64_t bytes;

	/* What ns.c accepts: the Linux host takes LBADS 9..12 only. */
	if (block_size && (block_size < 512 || block_size > 4096 || (block_size & (block_size - 1)))) {
		snprintf(why, len, "block size %u: must be 0 (detect) or a power of two in 512..4096",
			 block_size);
		return -EINVAL;
	}
	if (path && (!strncmp(path, "mem:", 4) || !strncmp(path, "null:", 5))) {
		char rule[160];

		if (rblk_backend_mem_size(strchr(path, ':') + 1, &bytes, rule, sizeof(rule))) {
			snprintf(why, len, "%s: the size %s", path, rule);
			return -EINVAL;
		}
		return 0;
	}
	if (rblk_rbd_path_is(path)) {
		struct rblk_rbd_path rp;

		if (rblk_rbd_path_parse(path, &rp)) {
			snprintf(why, len, "%s: must be rbd:POOL/IMAGE or rbd:POOL/NAMESPACE/IMAGE "
				 "(no @snapshot)", path);
			return -EINVAL;
		}
		if (!rblk_backend_built("rbd")) {
			snprintf(why, len, "%s: this build has no RBD support (librbd-dev)", path);
			return -EOPNOTSUPP;
		}
		/* Whether the image opens needs the cluster: the open will say. */
		return 0;
	}
	return rblk_bdev_path_check(path, read_only, why, len);
}
