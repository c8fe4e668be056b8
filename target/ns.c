/* SPDX-License-Identifier: MIT */
/*
 * Namespaces: opening the backing store ("mem:SIZE" / "null:SIZE" or a file /
 * block device through the target's engine), the LBA format, the stable
 * generated identifiers (serial, UUID, NGUID: hashes of the subsystem NQN and
 * nsid, so a restart or a reload exports the same identity and two
 * subsystems never collide), and counter aggregation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/core.h"

/* ------------------------------------------------------------------------ */
/* Stable identifiers: FNV-1a over the input, then a splitmix64 finaliser.  */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t hash64(uint64_t seed, const char *s, uint32_t nsid)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ ((nsid >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	return mix64(h);
}

static void hash128(uint64_t seed, const char *nqn, uint32_t nsid, uint8_t out[16])
{
	uint64_t a = hash64(seed, nqn, nsid);
	uint64_t b = hash64(seed ^ 0x9e3779b97f4a7c15ull, nqn, nsid);

	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(a >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(b >> (56 - 8 * i));
	}
}

void rblk_gen_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16])
{
	hash128(0x75756964 /* "uuid" */, nqn, nsid, uuid);
	/* RFC 9562 version 8 (custom, name-derived) and the RFC variant. */
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

void rblk_gen_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16])
{
	hash128(0x6e677569 /* "ngui" */, nqn, nsid, nguid);
}

void rblk_gen_serial(const char *nqn, char serial[21])
{
	/* 16 hex digits: unique enough, and what nvmet's random serial looks like. */
	snprintf(serial, 21, "%016llx",
		 (unsigned long long)hash64(0x73657269 /* "seri" */, nqn, 0));
}

/* ------------------------------------------------------------------------ */

void rblk_tgt_ns_stats_add(struct rblk_tgt_ns_stats *dst, struct rblk_tgt_ns_stats *src)
{
	rblk_stat_add(&dst->read_cmds, rblk_stat_get(&src->read_cmds));
	rblk_stat_add(&dst->write_cmds, rblk_stat_get(&src->write_cmds));
	rblk_stat_add(&dst->read_bytes, rblk_stat_get(&src->read_bytes));
	rblk_stat_add(&dst->write_bytes, rblk_stat_get(&src->write_bytes));
	rblk_stat_add(&dst->other_cmds, rblk_stat_get(&src->other_cmds));
	rblk_stat_add(&dst->errors, rblk_stat_get(&src->errors));
	rblk_stat_add(&dst->media_errors, rblk_stat_get(&src->media_errors));
	rblk_stat_add(&dst->busy_ns, rblk_stat_get(&src->busy_ns));
}

/* "64M", "1g", "4096", "2GiB" -> bytes. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end || !v || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int rblk_tgt_ns_create(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts, uint32_t nsid,
		   struct rblk_tgt_ns **out)
{
	struct rblk_target *tgt = ss->tgt;
	struct rblk_bdev_opts bo = { .size = sizeof(bo) };
	struct rblk_tgt_ns *ns;
	const char *path = opts->path;
	int ret;

	if (!path || !*path)
		return -EINVAL;
	bo.read_only = opts->read_only;
	bo.block_size = opts->block_size;
	bo.direct = RBLK_DIRECT_AUTO;
	if (!strncmp(path, "mem:", 4) || !strncmp(path, "null:", 5)) {
		bo.engine = path[0] == 'm' ? "mem" : "null";
		bo.path = path;
		ret = parse_size(strchr(path, ':') + 1, &bo.capacity);
		if (ret) {
			RBLK_ERR("namespace %s: size must be a number with an optional K/M/G/T suffix",
				 path);
			return ret;
		}
	} else {
		/* The poll groups' queues serve one engine: the target's. */
		if (opts->backend && strcmp(opts->backend, tgt->backend)) {
			RBLK_ERR("namespace %s: backend \"%s\" differs from the target's \"%s\"",
				 path, opts->backend, tgt->backend);
			return -EINVAL;
		}
		bo.engine = tgt->backend;
		bo.path = path;
	}

	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->ss = ss;
	ns->nsid = nsid;
	ns->path = strdup(path);
	if (!ns->path) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = rblk_bdev_open(&bo, &ns->bdev);
	if (ret) {
		RBLK_ERR("namespace %s: cannot open: %s", path, strerror(-ret));
		goto out_free_path;
	}
	/* The Linux host accepts LBADS 9..12 only (docs/interop.md §10.1). */
	if (ns->bdev->lba_shift < 9 || ns->bdev->lba_shift > 12) {
		RBLK_ERR("namespace %s: block size %u not in 512..4096", path,
			 rblk_bdev_block_size(ns->bdev));
		ret = -EINVAL;
		goto out_close;
	}
	ns->lbads = ns->bdev->lba_shift;
	ns->nlb = ns->bdev->size >> ns->lbads;
	if (!ns->nlb) {
		/* NCAP 0 would hide it from the host; say so now instead. */
		RBLK_ERR("namespace %s: empty (size smaller than one block)", path);
		ret = -EINVAL;
		goto out_close;
	}
	ns->read_only = opts->read_only || ns->bdev->read_only;
	ns->vwc = ns->bdev->caps.write_cache;
	if (opts->has_uuid)
		memcpy(ns->uuid, opts->uuid, sizeof(ns->uuid));
	if (opts->has_nguid)
		memcpy(ns->nguid, opts->nguid, sizeof(ns->nguid));
	if (opts->has_eui64) {
		memcpy(ns->eui64, opts->eui64, sizeof(ns->eui64));
		ns->has_eui64 = true;
	}
	if (nsid) {
		if (!opts->has_uuid)
			rblk_gen_uuid(ss->nqn, nsid, ns->uuid);
		if (!opts->has_nguid)
			rblk_gen_nguid(ss->nqn, nsid, ns->nguid);
	}
	atomic_init(&ns->refs, 1);
	*out = ns;
	return 0;

out_close:
	rblk_bdev_close(ns->bdev);
out_free_path:
	free(ns->path);
out_free:
	free(ns);
	return ret;
}

void rblk_tgt_ns_destroy(struct rblk_tgt_ns *ns)
{
	if (!ns)
		return;
	rblk_bdev_close(ns->bdev);
	free(ns->path);
	free(ns);
}
