/* SPDX-License-Identifier: MIT */
/* Splitting "rbd:POOL[/NAMESPACE]/IMAGE" into its names. */
#include <errno.h>
#include <string.h>

#include "backend/rbd_path.h"

bool rblk_rbd_path_is(const char *path)
{
	return path && !strncmp(path, RBLK_RBD_PREFIX, strlen(RBLK_RBD_PREFIX));
}

/* Copies [s, s+n) into dst: a non-empty name that fits. */
static int name_copy(char *dst, const char *s, size_t n)
{
	if (n == 0 || n >= RBLK_RBD_NAME_MAX)
		return -EINVAL;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

int rblk_rbd_path_parse(const char *path, struct rblk_rbd_path *out)
{
	const char *parts[3];
	size_t lens[3];
	unsigned n = 0;
	const char *s;
	int r;

	if (!path)
		return -EINVAL;
	if (rblk_rbd_path_is(path))
		path += strlen(RBLK_RBD_PREFIX);
	/* "pool/image@snap" would open the head image read-write: refuse it. */
	if (strchr(path, '@'))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (s = path;; s++) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);

		if (n == 3)
			return -EINVAL;
		parts[n] = s;
		lens[n++] = len;
		if (!slash)
			break;
		s = slash;
	}
	if (n < 2)
		return -EINVAL;
	r = name_copy(out->pool, parts[0], lens[0]);
	if (!r && n == 3)
		r = name_copy(out->ns, parts[1], lens[1]);
	if (!r)
		r = name_copy(out->image, parts[n - 1], lens[n - 1]);
	return r;
}
