/* SPDX-License-Identifier: MIT */
/*
 * Where a namespace's reservation state is kept when it must outlive the
 * process: the provider's own store (rblk_provider_ops resv_load/store/
 * watch: an RBD image's state in the cluster, shared by gateways), else a
 * file in the state directory while PTPL is on, one per namespace, named
 * by its NGUID (stable across restarts and renumbering).
 *
 * The blob (file contents, provider object), little-endian:
 *   0   "RBLKRSV1"
 *   8   generation (4)    12 type (1)   13 PTPL (1)   14 registrants (2)
 *   16  holder host ID (16)
 *   32  registrants: host ID (16), key (8) each
 *   end CRC-32 of everything before it (4)
 *
 * The file is replaced atomically: written to a temporary name, fsync'd,
 * renamed over, and the directory fsync'd; only then does the command that
 * changed it complete. A power cut leaves the old state or the new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "protocol/le.h"
#include "target/core.h"

static const char blob_magic[8] = { 'R', 'B', 'L', 'K', 'R', 'S', 'V', '1' };
#define BLOB_HDR 32u
#define BLOB_REG 24u

static uint32_t crc32_le(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

size_t rblk_resv_encode(const struct rblk_resv_state *s, void *buf)
{
	uint8_t *b = buf;
	size_t off = BLOB_HDR;

	memcpy(b, blob_magic, sizeof(blob_magic));
	put_le(b + 8, s->gen, 4);
	b[12] = s->rtype;
	b[13] = s->ptpl;
	put_le(b + 14, s->nr, 2);
	memcpy(b + 16, s->holder, 16);
	for (unsigned i = 0; i < s->nr; i++, off += BLOB_REG) {
		memcpy(b + off, s->regs[i].hostid, 16);
		put_le(b + off + 16, s->regs[i].rkey, 8);
	}
	put_le(b + off, crc32_le(b, off), 4);
	return off + 4;
}

int rblk_resv_decode(const void *buf, size_t len, struct rblk_resv_state *s)
{
	const uint8_t *b = buf;
	unsigned nr;

	if (len < BLOB_HDR + 4 || memcmp(b, blob_magic, sizeof(blob_magic)))
		return -EINVAL;
	nr = (unsigned)get_le(b + 14, 2);
	if (nr > RBLK_RESV_MAX_REGS || len != BLOB_HDR + nr * BLOB_REG + 4 ||
	    get_le(b + len - 4, 4) != crc32_le(b, len - 4) || b[12] > NVME_RESV_EA_AR || b[13] > 1)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->gen = (uint32_t)get_le(b + 8, 4);
	s->rtype = b[12];
	s->ptpl = b[13];
	memcpy(s->holder, b + 16, 16);
	s->nr = nr;
	for (unsigned i = 0; i < nr; i++) {
		memcpy(s->regs[i].hostid, b + BLOB_HDR + i * BLOB_REG, 16);
		s->regs[i].rkey = get_le(b + BLOB_HDR + i * BLOB_REG + 16, 8);
	}
	return 0;
}

char *rblk_resv_file_path(const char *state_dir, const uint8_t nguid[16])
{
	size_t len = strlen(state_dir) + sizeof("/resv-") + 32;
	char *p = malloc(len);
	int off;

	if (!p)
		return NULL;
	off = snprintf(p, len, "%s/resv-", state_dir);
	for (unsigned i = 0; i < 16; i++)
		off += snprintf(p + off, len - (size_t)off, "%02x", nguid[i]);
	return p;
}

/* ------------------------------------------------------------------------ */
/* The file.                                                                 */

static int fsync_dir_of(const char *file)
{
	char *dir = strdup(file), *slash;
	int fd, ret = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	fd = open(slash ? (*dir ? dir : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return ret;
}

static int mkdir_of(const char *file)
{
	char *dir = strdup(file), *slash;
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0700) && errno != EEXIST)
			ret = -errno;
	}
	free(dir);
	return ret;
}

static int file_write(const char *file, const void *buf, size_t len)
{
	size_t tlen = strlen(file) + 5;
	char *tmp = malloc(tlen);
	int fd, ret;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, tlen, "%s.tmp", file);
	ret = mkdir_of(file);
	if (ret)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (write(fd, buf, len) != (ssize_t)len)
		ret = errno ? -errno : -EIO;
	else if (fsync(fd))
		ret = -errno;
	close(fd);
	if (!ret && rename(tmp, file))
		ret = -errno;
	if (ret)
		unlink(tmp);
	else
		ret = fsync_dir_of(file);
out:
	free(tmp);
	return ret;
}

static int file_remove(const char *file)
{
	if (unlink(file)) {
		if (errno == ENOENT)
			return 0;
		return -errno;
	}
	return fsync_dir_of(file);
}

static int file_read(const char *file, struct rblk_resv_state *st)
{
	uint8_t buf[RBLK_RESV_BLOB_MAX + 1];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	return rblk_resv_decode(buf, (size_t)n, st);
}

/* ------------------------------------------------------------------------ */

int rblk_resv_store_load(struct rblk_tgt_resv *r, struct rblk_resv_state *st)
{
	const struct rblk_provider *p = &r->ns->prov;

	if (r->provider_store) {
		uint8_t buf[RBLK_RESV_BLOB_MAX];
		size_t len = 0;
		int ret = p->ops->resv_load(p->ctx, buf, sizeof(buf), &len);

		if (ret)
			return ret;
		if (len > sizeof(buf))
			return -EINVAL;
		return rblk_resv_decode(buf, len, st);
	}
	if (!r->file)
		return -ENOENT;
	return file_read(r->file, st);
}

int rblk_resv_store_save(struct rblk_tgt_resv *r, const struct rblk_resv_state *st)
{
	const struct rblk_provider *p = &r->ns->prov;
	uint8_t buf[RBLK_RESV_BLOB_MAX];
	size_t len = rblk_resv_encode(st, buf);

	if (r->provider_store)
		return p->ops->resv_store(p->ctx, buf, len);
	if (!r->file)
		return -EOPNOTSUPP;
	/* Without PTPL the state lives in memory only: no file to find after a restart. */
	if (!st->ptpl)
		return file_remove(r->file);
	return file_write(r->file, buf, len);
}
