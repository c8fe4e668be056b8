/* SPDX-License-Identifier: MIT */
/*
 * Namespaces: the storage behind them (an embedder's provider, or the
 * built-in backends through the target's storage, target/storage.h), the LBA format, the
 * identifiers (given, or generated in names.c), and counter aggregation.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/core.h"

/* ------------------------------------------------------------------------ */

void rblk_tgt_ns_stats_add(struct rblk_tgt_ns_stats *dst, const struct rblk_tgt_ns_stats *src)
{
	dst->read_cmds += src->read_cmds;
	dst->write_cmds += src->write_cmds;
	dst->read_bytes += src->read_bytes;
	dst->write_bytes += src->write_bytes;
	dst->other_cmds += src->other_cmds;
	dst->errors += src->errors;
	dst->media_errors += src->media_errors;
	dst->busy_ns += src->busy_ns;
	dst->syncs += src->syncs;
	dst->sync_errors += src->sync_errors;
	dst->qos_waits += src->qos_waits;
}

/* Summed when read: each poll group writes only its own slot (core.h). */
void rblk_tgt_ns_stats_read(const struct rblk_tgt_ns *ns, struct rblk_tgt_ns_stats *out)
{
	for (unsigned i = 0; i < ns->ss->tgt->nr_pgs; i++) {
		const struct rblk_tgt_ns_pgstats *c = &ns->pgstats[i];

		out->read_cmds += rblk_stat_get(&c->read_cmds);
		out->write_cmds += rblk_stat_get(&c->write_cmds);
		out->read_bytes += rblk_stat_get(&c->read_bytes);
		out->write_bytes += rblk_stat_get(&c->write_bytes);
		out->other_cmds += rblk_stat_get(&c->other_cmds);
		out->errors += rblk_stat_get(&c->errors);
		out->media_errors += rblk_stat_get(&c->media_errors);
		out->busy_ns += rblk_stat_get(&c->busy_ns);
		out->qos_waits += rblk_stat_get(&c->qos_waits);
	}
	out->syncs += rblk_stat_get(&ns->syncs);
	out->sync_errors += rblk_stat_get(&ns->sync_errors);
}

void rblk_tgt_ns_lat_read(const struct rblk_tgt_ns *ns, struct rblk_tgt_ns_lat *out)
{
	for (unsigned i = 0; i < ns->ss->tgt->nr_pgs; i++) {
		const struct rblk_tgt_ns_pglat *c = &ns->pglat[i];

		for (unsigned d = 0; d < 2; d++) {
			for (unsigned b = 0; b < RBLK_LAT_BUCKETS; b++)
				out->lat[d][b] += rblk_stat_get(&c->lat[d][b]);
			out->lat_sum_ns[d] += rblk_stat_get(&c->lat_sum_ns[d]);
		}
		for (unsigned t = 0; t < RBLK_TGT_SCT_NR; t++)
			out->errors_sct[t] += rblk_stat_get(&c->errors_sct[t]);
	}
}

uint64_t rblk_tgt_ns_inflight(const struct rblk_tgt_ns *ns)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < ns->ss->tgt->nr_pgs; i++)
		n += atomic_load_explicit(&ns->pgstats[i].inflight, memory_order_acquire);
	return n;
}

void rblk_provider_init(struct rblk_provider *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
}

/* Whether the provider's ops table (sized: it may predate a member) has @member. */
#define provider_has(p, member)                                                          \
	((p)->ops->size >= offsetof(struct rblk_provider_ops, member) +                  \
				   sizeof((p)->ops->member) &&                           \
	 (p)->ops->member)

/* The embedder's provider, checked as the target will rely on it. */
static int provider_check(const struct rblk_provider *p, const char *label)
{
	if (p->size < offsetof(struct rblk_provider, discard_zeroes) + sizeof(p->discard_zeroes) ||
	    !p->ops || p->ops->size < offsetof(struct rblk_provider_ops, submit) + sizeof(p->ops->submit) ||
	    !p->ops->submit) {
		RBLK_ERR("namespace %s: the provider has no ops or no submit callback "
			 "(use rblk_provider_init())", label);
		return -EINVAL;
	}
	return 0;
}

int rblk_tgt_ns_create(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts, uint32_t nsid,
		       struct rblk_tgt_ns **out)
{
	const struct rblk_provider *ext = opts->size > offsetof(struct rblk_ns_opts, provider)
						  ? opts->provider : NULL;
	const char *path = opts->path;
	struct rblk_tgt_ns *ns;
	unsigned lbads;
	int ret;

	if (!ext && (!path || !*path))
		return -EINVAL;
	if (!path || !*path)
		path = "provider";
	if (ext && (ret = provider_check(ext, path)))
		return ret;

	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->ss = ss;
	ns->nsid = nsid;
	ns->pgstats = aligned_alloc(_Alignof(struct rblk_tgt_ns_pgstats),
				    ss->tgt->nr_pgs * sizeof(*ns->pgstats));
	if (!ns->pgstats) {
		ret = -ENOMEM;
		goto out_free;
	}
	memset(ns->pgstats, 0, ss->tgt->nr_pgs * sizeof(*ns->pgstats));
	ns->pglat = aligned_alloc(_Alignof(struct rblk_tgt_ns_pglat),
				  ss->tgt->nr_pgs * sizeof(*ns->pglat));
	if (!ns->pglat) {
		ret = -ENOMEM;
		goto out_free;
	}
	memset(ns->pglat, 0, ss->tgt->nr_pgs * sizeof(*ns->pglat));
	ret = rblk_range_lock_init(ns, ss->tgt->nr_pgs);
	if (!ret)
		ret = rblk_qos_init(ns, ss->tgt->nr_pgs);
	if (ret)
		goto out_free;
	ns->path = strdup(path);
	if (!ns->path) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (ext) {
		rblk_provider_init(&ns->prov);
		memcpy(&ns->prov, ext, ext->size < sizeof(ns->prov) ? ext->size : sizeof(ns->prov));
		ns->prov.size = sizeof(ns->prov);
	} else {
		ret = ss->tgt->storage_ops->open(ss->tgt->storage, opts, &ns->prov);
		if (ret)
			goto out_free_path;
		ns->by_path = true;
	}
	ns->eng_slot = rblk_tgt_engine_slot(ss->tgt, &ns->prov);
	if (ns->eng_slot < -1) {
		ret = ns->eng_slot;
		goto out_close;
	}
	/* The Linux host accepts LBADS 9..12 only (docs/interop.md §10.1). */
	lbads = ns->prov.block_size ? (unsigned)__builtin_ctz(ns->prov.block_size) : 0;
	if (lbads < 9 || lbads > 12 || ns->prov.block_size != 1u << lbads) {
		RBLK_ERR("namespace %s: block size %u not in 512..4096", path, ns->prov.block_size);
		ret = -EINVAL;
		goto out_close;
	}
	ns->lbads = lbads;
	if (ns->prov.physical_block_size % ns->prov.block_size ||
	    ns->prov.optimal_io_size % ns->prov.block_size ||
	    ns->prov.discard_granularity % ns->prov.block_size) {
		RBLK_ERR("namespace %s: I/O hints (physical block %u, optimal I/O %u, discard "
			 "granularity %u) must be multiples of the %u-byte block", path,
			 ns->prov.physical_block_size, ns->prov.optimal_io_size,
			 ns->prov.discard_granularity, ns->prov.block_size);
		ret = -EINVAL;
		goto out_close;
	}
	ns->nlb = ns->prov.num_blocks;
	if (!ns->nlb) {
		/* NCAP 0 would hide it from the host; say so now instead. */
		RBLK_ERR("namespace %s: empty (size smaller than one block)", path);
		ret = -EINVAL;
		goto out_close;
	}
	if (ns->nlb > (UINT64_MAX >> lbads)) {
		RBLK_ERR("namespace %s: %llu blocks do not fit in 64-bit byte offsets", path,
			 (unsigned long long)ns->nlb);
		ret = -EINVAL;
		goto out_close;
	}
	ns->read_only = opts->read_only || ns->prov.read_only;
	ns->vwc = ns->prov.volatile_cache;
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
	if (opts->size > offsetof(struct rblk_ns_opts, qos) && opts->qos &&
	    (ret = rblk_tgt_ns_set_qos(ns, opts->qos)))
		goto out_close;
	atomic_init(&ns->refs, 1);
	*out = ns;
	return 0;

out_close:
	/* An embedder's provider stays the embedder's when the namespace is refused. */
	if (!ext && ns->prov.ops->close)
		ns->prov.ops->close(ns->prov.ctx);
out_free_path:
	free(ns->path);
out_free:
	rblk_qos_fini(ns);
	rblk_range_lock_fini(ns);
	free(ns->pglat);
	free(ns->pgstats);
	free(ns);
	return ret;
}

int rblk_tgt_ns_sync(struct rblk_tgt_ns *ns, const char *why)
{
	int ret;

	/* Nothing was written through us. */
	if (ns->read_only)
		return 0;
	/* A provider without sync() makes its writes durable by itself or at close(). */
	if (!provider_has(&ns->prov, sync))
		return 0;
	ret = ns->prov.ops->sync(ns->prov.ctx);
	if (ret == -EOPNOTSUPP)
		return 0;
	if (ret) {
		rblk_stat_add(&ns->sync_errors, 1);
		RBLK_ERR("subsystem %s: namespace %u (%s): datasync at %s failed: %s: "
			 "completed writes may not be durable", ns->ss->nqn, ns->nsid, ns->path,
			 why, strerror(-ret));
		return ret;
	}
	rblk_stat_add(&ns->syncs, 1);
	return 0;
}

/*
 * On the backend's thread (librbd's): the storage now holds @bytes. nlb is
 * read without locks by the I/O path's range check and Identify; the event
 * itself is handed to each controller's admin queue thread by
 * rblk_subsys_ns_changed (the path a reload's added or removed namespace
 * takes), which only takes short mutexes here. A shrink races commands
 * already past the range check: the backend refuses those (-ERANGE or
 * librbd's -EINVAL), as it must.
 */
static void ns_resized(void *arg, uint64_t num_blocks)
{
	rblk_tgt_ns_set_nlb(arg, num_blocks);
}

void rblk_tgt_ns_set_nlb(struct rblk_tgt_ns *ns, uint64_t nlb)
{
	uint64_t old = __atomic_exchange_n(&ns->nlb, nlb, __ATOMIC_RELAXED);

	if (old == nlb)
		return;
	RBLK_NOTICE("subsystem %s: namespace %u (%s) resized from %llu to %llu blocks",
		    ns->ss->nqn, ns->nsid, ns->path, (unsigned long long)old,
		    (unsigned long long)nlb);
	rblk_subsys_ns_changed(ns->ss, ns->nsid);
}

int rblk_tgt_ns_watch_size(struct rblk_tgt_ns *ns)
{
	int ret = -EOPNOTSUPP;

	if (provider_has(&ns->prov, watch_size))
		ret = ns->prov.ops->watch_size(ns->prov.ctx, ns_resized, ns);
	if (ret == -EOPNOTSUPP)
		return 0;
	if (ret)
		RBLK_WARN("subsystem %s: namespace %u (%s): cannot follow its size: %s",
			  ns->ss->nqn, ns->nsid, ns->path, strerror(-ret));
	return ret;
}

void rblk_tgt_ns_destroy(struct rblk_tgt_ns *ns)
{
	if (!ns)
		return;
	/* Before close(): no reload may call the provider once it is closing. */
	rblk_tgt_resv_quiesce(ns);
	if (ns->prov.ops->close)
		ns->prov.ops->close(ns->prov.ctx);
	/* After close(): no provider watch calls back any more. */
	rblk_tgt_resv_destroy(ns);
	free(ns->path);
	rblk_qos_fini(ns);
	rblk_range_lock_fini(ns);
	free(ns->pglat);
	free(ns->pgstats);
	free(ns);
}
