/* SPDX-License-Identifier: MIT */
/*
 * Subsystems: identity (NQN, serial, model), the allowed-host list, the
 * controllers bound to them (cntlid allocation in cntlid_min..cntlid_max,
 * by default 1..0xFFEF like nvmet), and the namespace table. Management
 * reads the table under a read lock and leaves with a reference; the I/O
 * path reads it with no lock and counts its commands in its own poll group's
 * slot (rblk_subsys_io_ns, target/pg.c). Removal unpublishes the entry, waits
 * for a grace period, then for both kinds of users to drain before the
 * backing store is closed.
 * The NQN policy for configured names is in names.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "protocol/nqn.h"
#include "target/core.h"

#define RBLK_NS_MAX_LIMIT 65536

/* ------------------------------------------------------------------------ */
/* Subsystems.                                                               */

static bool printable(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

int rblk_subsys_create(struct rblk_target *tgt, const struct rblk_subsystem_opts *opts,
		       enum rblk_subsys_type type, struct rblk_subsystem **out)
{
	struct rblk_subsystem *ss;
	uint32_t max_ns = opts->max_namespaces ? opts->max_namespaces : RBLK_NS_MAX_DEFAULT;
	uint16_t cntlid_min = opts->cntlid_min ? opts->cntlid_min : NVMF_CNTLID_MIN;
	uint16_t cntlid_max = opts->cntlid_max ? opts->cntlid_max : NVMF_CNTLID_MAX;
	char why[160];
	int ret;

	if (rblk_nqn_policy_check(opts->nqn, why, sizeof(why))) {
		RBLK_ERR("subsystem NQN \"%s\" %s", opts->nqn ? opts->nqn : "(null)", why);
		return -EINVAL;
	}
	if (rblk_nqn_is_discovery(opts->nqn) != (type == RBLK_SUBSYS_DISCOVERY)) {
		RBLK_ERR("subsystem NQN \"%s\": %s", opts->nqn,
			 type == RBLK_SUBSYS_DISCOVERY ? "not the discovery NQN"
						       : "reserved for the discovery subsystem");
		return -EINVAL;
	}
	if (opts->serial && !printable(opts->serial, 20)) {
		RBLK_ERR("subsystem %s: serial must be 1..20 printable ASCII characters", opts->nqn);
		return -EINVAL;
	}
	if (opts->model && !printable(opts->model, 40)) {
		RBLK_ERR("subsystem %s: model must be 1..40 printable ASCII characters", opts->nqn);
		return -EINVAL;
	}
	if (cntlid_min > cntlid_max || cntlid_max > NVMF_CNTLID_MAX) {
		RBLK_ERR("subsystem %s: controller IDs %u..%u: must be within %u..%u, min <= max",
			 opts->nqn, cntlid_min, cntlid_max, NVMF_CNTLID_MIN, NVMF_CNTLID_MAX);
		return -EINVAL;
	}
	if (max_ns > RBLK_NS_MAX_LIMIT) {
		RBLK_ERR("subsystem %s: max_namespaces %u above %u", opts->nqn, max_ns,
			 RBLK_NS_MAX_LIMIT);
		return -EINVAL;
	}
	if (type == RBLK_SUBSYS_DISCOVERY)
		max_ns = 0;
	else
		rblk_tgt_nqn_warn_form("subsystem", opts->nqn);

	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	ss->tgt = tgt;
	ss->type = type;
	snprintf(ss->nqn, sizeof(ss->nqn), "%s", opts->nqn);
	if (opts->serial)
		snprintf(ss->serial, sizeof(ss->serial), "%s", opts->serial);
	else
		rblk_gen_serial(opts->nqn, ss->serial);
	snprintf(ss->model, sizeof(ss->model), "%s",
		 opts->model ? opts->model : type == RBLK_SUBSYS_DISCOVERY ? "rblk discovery" : "rblk");
	ss->max_nsid = max_ns;
	ss->allow_any_host = opts->allow_any_host || type == RBLK_SUBSYS_DISCOVERY;
	ss->cntlid_min = cntlid_min;
	ss->cntlid_max = cntlid_max;
	ss->next_cntlid = cntlid_min;
	if (max_ns) {
		ss->ns = calloc(max_ns, sizeof(*ss->ns));
		if (!ss->ns) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	ret = -pthread_mutex_init(&ss->lock, NULL);
	if (ret)
		goto out_free_ns;
	ret = -pthread_rwlock_init(&ss->ns_lock, NULL);
	if (ret)
		goto out_mutex;
	*out = ss;
	return 0;

out_mutex:
	pthread_mutex_destroy(&ss->lock);
out_free_ns:
	free(ss->ns);
out_free:
	free(ss);
	return ret;
}

void rblk_subsys_destroy(struct rblk_subsystem *ss)
{
	unsigned waited = 0;

	pthread_mutex_lock(&ss->lock);
	ss->removing = true;
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		rblk_tgt_ctrl_fatal(c, "subsystem removed");
	pthread_mutex_unlock(&ss->lock);

	/* The transport tears the queues down; the last one frees the controller. */
	for (;;) {
		unsigned n;

		pthread_mutex_lock(&ss->lock);
		n = ss->nr_ctrls;
		pthread_mutex_unlock(&ss->lock);
		if (!n)
			break;
		if (++waited % 5000 == 0)
			RBLK_WARN("subsystem %s: still waiting for %u controller(s) to go",
				  ss->nqn, n);
		rblk_tgt_idle_wait(ss->tgt, 1000);
	}

	for (uint32_t i = 0; i < ss->max_nsid; i++)
		if (ss->ns[i])
			rblk_subsys_remove_ns(ss, i + 1);
	for (unsigned i = 0; i < ss->nr_hosts; i++) {
		free(ss->hosts[i].nqn);
		rblk_tgt_auth_cfg_free(ss->hosts[i].auth);
	}
	free(ss->hosts);
	pthread_rwlock_destroy(&ss->ns_lock);
	pthread_mutex_destroy(&ss->lock);
	free(ss->ns);
	free(ss);
}

struct rblk_subsystem *rblk_subsys_find_locked(struct rblk_target *tgt, const char *nqn)
{
	if (rblk_nqn_is_discovery(nqn))
		return tgt->disc;
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next)
		if (!strcmp(ss->nqn, nqn))
			return ss;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Hosts.                                                                    */

/* The host's entry (allowed or only with settings), or -1. */
static int host_index(struct rblk_subsystem *ss, const char *hostnqn)
{
	for (unsigned i = 0; i < ss->nr_hosts; i++)
		if (!strcmp(ss->hosts[i].nqn, hostnqn))
			return (int)i;
	return -1;
}

static bool host_listed(struct rblk_subsystem *ss, const char *hostnqn)
{
	int i = host_index(ss, hostnqn);

	return i >= 0 && ss->hosts[i].allowed;
}

static void host_drop(struct rblk_subsystem *ss, int i)
{
	free(ss->hosts[i].nqn);
	rblk_tgt_auth_cfg_free(ss->hosts[i].auth);
	ss->hosts[i] = ss->hosts[--ss->nr_hosts];
}

/* A new entry for @hostnqn (not allowed, no settings yet); its index or -ENOMEM. */
static int host_new(struct rblk_subsystem *ss, const char *hostnqn)
{
	struct rblk_tgt_host *hosts;
	char *dup = strdup(hostnqn);

	hosts = dup ? realloc(ss->hosts, (ss->nr_hosts + 1) * sizeof(*hosts)) : NULL;
	if (!hosts) {
		free(dup);
		return -ENOMEM;
	}
	hosts[ss->nr_hosts] = (struct rblk_tgt_host){ .nqn = dup };
	ss->hosts = hosts;
	return (int)ss->nr_hosts++;
}

/* ss->lock held (lock order ss -> ctrl, as the port unlink). */
static void revoke_locked(struct rblk_subsystem *ss)
{
	if (ss->allow_any_host)
		return;
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		if (!host_listed(ss, c->hostnqn))
			rblk_tgt_ctrl_fatal(c, "the host is no longer allowed on the subsystem");
}

bool rblk_subsys_host_allowed(struct rblk_subsystem *ss, const char *hostnqn)
{
	bool ok;

	pthread_mutex_lock(&ss->lock);
	ok = ss->allow_any_host || host_listed(ss, hostnqn);
	pthread_mutex_unlock(&ss->lock);
	return ok;
}

int rblk_subsys_add_host(struct rblk_subsystem *ss, const char *hostnqn)
{
	char why[160];
	int i, ret = 0;

	if (rblk_nqn_policy_check(hostnqn, why, sizeof(why))) {
		RBLK_ERR("subsystem %s: host NQN \"%s\" %s", ss->nqn, hostnqn ? hostnqn : "(null)",
			 why);
		return -EINVAL;
	}
	rblk_tgt_nqn_warn_form("allowed host", hostnqn);
	pthread_mutex_lock(&ss->lock);
	i = host_index(ss, hostnqn);
	if (i >= 0 && ss->hosts[i].allowed)
		ret = -EEXIST;
	else if (i < 0 && (i = host_new(ss, hostnqn)) < 0)
		ret = i;
	else
		ss->hosts[i].allowed = true;	/* with the settings it may already have */
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

int rblk_subsys_remove_host(struct rblk_subsystem *ss, const char *hostnqn)
{
	int i, ret = 0;

	if (!hostnqn)
		return -EINVAL;
	pthread_mutex_lock(&ss->lock);
	i = host_index(ss, hostnqn);
	if (i < 0 || !ss->hosts[i].allowed) {
		ret = -ENOENT;
	} else {
		/*
		 * Its settings stay (rblk_subsystem_set_host_auth(NULL) removes
		 * them): under allow_any_host the host must still authenticate.
		 */
		ss->hosts[i].allowed = false;
		if (!ss->hosts[i].auth)
			host_drop(ss, i);
		revoke_locked(ss);
	}
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

int rblk_subsys_set_host_auth(struct rblk_subsystem *ss, const char *hostnqn,
			      struct rblk_tgt_auth_cfg *cfg)
{
	struct rblk_tgt_host *h;
	int i, ret = 0;

	pthread_mutex_lock(&ss->lock);
	i = host_index(ss, hostnqn);
	if (i < 0 && cfg && (i = host_new(ss, hostnqn)) < 0) {
		ret = i;
		goto out;
	}
	/* The same configuration again (a reload that changed nothing): nobody is failed. */
	if (i < 0 || rblk_tgt_auth_cfg_equal(ss->hosts[i].auth, cfg))
		goto out;
	h = &ss->hosts[i];
	rblk_tgt_auth_cfg_free(h->auth);
	h->auth = cfg;
	cfg = NULL;
	/*
	 * Controllers snapshot the keys at Connect: one authenticated with the
	 * old key (or with none) would otherwise keep its access. Failing them
	 * makes the host reconnect and authenticate with what is configured now.
	 */
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		if (!strcmp(c->hostnqn, hostnqn))
			rblk_tgt_ctrl_fatal(c, "the host's authentication key changed");
	RBLK_NOTICE("subsystem %s host %s: DH-HMAC-CHAP %s", ss->nqn, hostnqn,
		    h->auth ? "key set" : "key removed");
	/* Settings gone from a host that is not on the list: nothing left to keep. */
	if (!h->auth && !h->allowed)
		host_drop(ss, i);
out:
	pthread_mutex_unlock(&ss->lock);
	rblk_tgt_auth_cfg_free(cfg);
	return ret;
}

int rblk_subsys_host_keys(struct rblk_subsystem *ss, const char *hostnqn,
			  struct rblk_tgt_auth_keys **out)
{
	int i, ret = 0;

	*out = NULL;
	pthread_mutex_lock(&ss->lock);
	i = host_index(ss, hostnqn);
	/* Under the lock: a key changing now fails the controller being set up. */
	if (i >= 0 && ss->hosts[i].auth)
		ret = rblk_tgt_auth_keys_create(ss->hosts[i].auth, hostnqn, ss->nqn, out);
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

void rblk_subsys_set_allow_any(struct rblk_subsystem *ss, bool allow)
{
	pthread_mutex_lock(&ss->lock);
	ss->allow_any_host = allow || ss->type == RBLK_SUBSYS_DISCOVERY;
	revoke_locked(ss);
	pthread_mutex_unlock(&ss->lock);
}

unsigned rblk_tgt_host_ctrls_locked(struct rblk_target *tgt, const char *hostnqn)
{
	struct rblk_subsystem *lists[] = { tgt->disc, tgt->subsys };
	unsigned n = 0;

	for (unsigned l = 0; l < 2; l++) {
		for (struct rblk_subsystem *ss = lists[l]; ss; ss = l ? ss->next : NULL) {
			pthread_mutex_lock(&ss->lock);
			for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
				n += !__atomic_load_n(&c->fatal, __ATOMIC_RELAXED) &&
				     !strcmp(c->hostnqn, hostnqn);
			pthread_mutex_unlock(&ss->lock);
		}
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* Controllers.                                                              */

static bool cntlid_used(struct rblk_subsystem *ss, uint16_t id)
{
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		if (c->cntlid == id)
			return true;
	return false;
}

/* The cntlid after @id in the subsystem's range, wrapping. */
static uint16_t next_in_range(const struct rblk_subsystem *ss, uint16_t id)
{
	return id >= ss->cntlid_max ? ss->cntlid_min : (uint16_t)(id + 1);
}

int rblk_subsys_add_ctrl(struct rblk_subsystem *ss, struct rblk_tgt_ctrl *ctrl)
{
	const unsigned range = (unsigned)ss->cntlid_max - ss->cntlid_min + 1;
	int ret = 0;

	pthread_mutex_lock(&ss->lock);
	if (ss->removing) {
		ret = -ENODEV;
		goto out;
	}
	if (ss->nr_ctrls >= range) {
		ret = -EBUSY;
		goto out;
	}
	/* Cyclic, so a reconnecting host does not get its old cntlid back at once. */
	while (cntlid_used(ss, ss->next_cntlid))
		ss->next_cntlid = next_in_range(ss, ss->next_cntlid);
	ctrl->cntlid = ss->next_cntlid;
	ss->next_cntlid = next_in_range(ss, ss->next_cntlid);
	ctrl->next = ss->ctrls;
	ss->ctrls = ctrl;
	ss->nr_ctrls++;
out:
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

void rblk_subsys_remove_ctrl(struct rblk_subsystem *ss, struct rblk_tgt_ctrl *ctrl)
{
	pthread_mutex_lock(&ss->lock);
	for (struct rblk_tgt_ctrl **p = &ss->ctrls; *p; p = &(*p)->next) {
		if (*p == ctrl) {
			*p = ctrl->next;
			ss->nr_ctrls--;
			break;
		}
	}
	pthread_mutex_unlock(&ss->lock);
}

struct rblk_tgt_ctrl *rblk_subsys_get_ctrl(struct rblk_subsystem *ss, uint16_t cntlid,
				       const char *hostnqn)
{
	struct rblk_tgt_ctrl *found = NULL;

	pthread_mutex_lock(&ss->lock);
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next) {
		int r;

		if (c->cntlid != cntlid || strcmp(c->hostnqn, hostnqn))
			continue;
		/* Skip one whose last reference is already gone. */
		r = atomic_load(&c->refs);
		while (r > 0 && !atomic_compare_exchange_weak(&c->refs, &r, r + 1))
			;
		if (r > 0)
			found = c;
		break;
	}
	pthread_mutex_unlock(&ss->lock);
	return found;
}

/* ------------------------------------------------------------------------ */
/* Namespaces.                                                               */

struct rblk_tgt_ns *rblk_subsys_get_ns(struct rblk_subsystem *ss, uint32_t nsid)
{
	struct rblk_tgt_ns *ns;

	if (!nsid || nsid > ss->max_nsid)
		return NULL;
	pthread_rwlock_rdlock(&ss->ns_lock);
	ns = ss->ns[nsid - 1];
	if (ns)
		rblk_tgt_ns_get(ns);
	pthread_rwlock_unlock(&ss->ns_lock);
	return ns;
}

unsigned rblk_subsys_active_list(struct rblk_subsystem *ss, uint32_t after, uint32_t *out,
				 unsigned max)
{
	unsigned n = 0;

	pthread_rwlock_rdlock(&ss->ns_lock);
	for (uint32_t i = after; i < ss->max_nsid && n < max; i++)
		if (ss->ns[i])
			out[n++] = i + 1;
	pthread_rwlock_unlock(&ss->ns_lock);
	return n;
}

bool rblk_subsys_any_vwc(struct rblk_subsystem *ss)
{
	bool vwc = false;

	pthread_rwlock_rdlock(&ss->ns_lock);
	for (uint32_t i = 0; i < ss->max_nsid && !vwc; i++)
		vwc = ss->ns[i] && ss->ns[i]->vwc;
	pthread_rwlock_unlock(&ss->ns_lock);
	return vwc;
}

void rblk_subsys_ns_changed(struct rblk_subsystem *ss, uint32_t nsid)
{
	/* ss->lock keeps every listed controller's memory alive (lock order ss -> ctrl). */
	pthread_mutex_lock(&ss->lock);
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		rblk_tgt_ctrl_ns_changed(c, nsid);
	pthread_mutex_unlock(&ss->lock);
}

int rblk_subsys_add_ns(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts,
		       uint32_t *nsid_out)
{
	struct rblk_tgt_ns *ns;
	uint32_t nsid = opts->nsid;
	int ret;

	if (ss->type != RBLK_SUBSYS_NVM)
		return -EINVAL;
	if (nsid > ss->max_nsid) {
		RBLK_ERR("subsystem %s: nsid %u above max_namespaces %u", ss->nqn, nsid,
			 ss->max_nsid);
		return -EINVAL;
	}
	if (opts->anagrpid > RBLK_ANA_MAX_GROUPS) {
		RBLK_ERR("subsystem %s: ANA group %u above %u", ss->nqn, opts->anagrpid,
			 RBLK_ANA_MAX_GROUPS);
		return -EINVAL;
	}
	/* Open outside the table lock: it can take a while (probes, O_DIRECT). */
	ret = rblk_tgt_ns_create(ss, opts, nsid, &ns);
	if (ret)
		return ret;

	pthread_rwlock_wrlock(&ss->ns_lock);
	if (!nsid) {
		for (uint32_t i = 0; i < ss->max_nsid; i++) {
			if (!ss->ns[i]) {
				nsid = i + 1;
				break;
			}
		}
		ret = nsid ? 0 : -ENOSPC;
	} else if (ss->ns[nsid - 1]) {
		ret = -EEXIST;
	}
	if (!ret) {
		ns->nsid = nsid;
		ns->anagrpid = opts->anagrpid ? opts->anagrpid : RBLK_ANA_DEFAULT_GRPID;
		if (!opts->has_uuid)
			rblk_gen_uuid(ss->nqn, nsid, ns->uuid);
		if (!opts->has_nguid)
			rblk_gen_nguid(ss->nqn, nsid, ns->nguid);
		/*
		 * The reservation as it persisted, before any host can reach
		 * the namespace (a small file or the provider's blob).
		 */
		ret = rblk_tgt_resv_create(ns);
	}
	if (!ret) {
		/* Release: a lock-free reader that finds ns sees it whole. */
		__atomic_store_n(&ss->ns[nsid - 1], ns, __ATOMIC_RELEASE);
		ss->nr_ns++;
	}
	pthread_rwlock_unlock(&ss->ns_lock);
	if (ret) {
		RBLK_ERR("subsystem %s: cannot add namespace %u: %s", ss->nqn, nsid,
			 ret == -EEXIST ? "nsid in use" : ret == -ENOSPC ? "no free nsid"
							: "no reservation state");
		rblk_tgt_ns_destroy(ns);
		return ret;
	}
	RBLK_NOTICE("subsystem %s: namespace %u: %s, %llu blocks of %u bytes%s", ss->nqn, nsid,
		    ns->path, (unsigned long long)ns->nlb, 1u << ns->lbads,
		    ns->read_only ? ", read-only" : "");
	/* A namespace that cannot follow its size still serves the size it has. */
	(void)rblk_tgt_ns_watch_size(ns);
	rblk_subsys_ns_changed(ss, nsid);
	if (nsid_out)
		*nsid_out = nsid;
	return 0;
}

int rblk_subsys_remove_ns(struct rblk_subsystem *ss, uint32_t nsid)
{
	struct rblk_tgt_ns *ns = NULL;
	unsigned spins = 0;

	if (!nsid || nsid > ss->max_nsid)
		return -ENOENT;
	pthread_rwlock_wrlock(&ss->ns_lock);
	ns = ss->ns[nsid - 1];
	if (ns) {
		__atomic_store_n(&ss->ns[nsid - 1], NULL, __ATOMIC_RELAXED);
		ss->nr_ns--;
	}
	pthread_rwlock_unlock(&ss->ns_lock);
	if (!ns)
		return -ENOENT;
	rblk_subsys_ns_changed(ss, nsid);

	/*
	 * After the grace period no poll group can find the namespace any more;
	 * then wait for the commands that did (in flight) and for management's
	 * references (the table's is dropped here).
	 */
	rblk_tgt_synchronize(ss->tgt);
	rblk_tgt_ns_put(ns);
	/* Commands waiting for QoS credit go now instead of draining at the limit. */
	rblk_qos_set(ns, (const uint64_t[RBLK_QOS_NR]){ 0 });
	for (;;) {
		uint64_t inflight = rblk_tgt_ns_inflight(ns);
		unsigned refs = atomic_load_explicit(&ns->refs, memory_order_acquire);

		if (!inflight && !refs)
			break;
		if (++spins % 10000 == 0)
			RBLK_WARN("subsystem %s: namespace %u still has %llu command(s) in flight "
				  "and %u other user(s)", ss->nqn, nsid,
				  (unsigned long long)inflight, refs);
		rblk_tgt_idle_wait(ss->tgt, 100);
	}
	/*
	 * Nothing is in flight now: make what the host was told is written
	 * durable before the file closes (removal, subsystem or target destroy,
	 * which is rblk-target's SIGTERM path). Buffered files would otherwise
	 * leave it to writeback, and a crash after exit could lose it.
	 */
	rblk_tgt_ns_sync(ns, "close");
	pthread_mutex_lock(&ss->lock);
	rblk_tgt_ns_stats_read(ns, &ss->retired);
	pthread_mutex_unlock(&ss->lock);
	RBLK_NOTICE("subsystem %s: namespace %u removed", ss->nqn, nsid);
	rblk_tgt_ns_destroy(ns);
	return 0;
}

void rblk_subsys_stats(struct rblk_subsystem *ss, struct rblk_tgt_ns_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&ss->lock);
	rblk_tgt_ns_stats_add(out, &ss->retired);
	pthread_mutex_unlock(&ss->lock);
	pthread_rwlock_rdlock(&ss->ns_lock);
	for (uint32_t i = 0; i < ss->max_nsid; i++)
		if (ss->ns[i])
			rblk_tgt_ns_stats_read(ss->ns[i], out);
	pthread_rwlock_unlock(&ss->ns_lock);
}
