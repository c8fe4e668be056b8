/* SPDX-License-Identifier: MIT */
/*
 * Configuration checks of rblk-target (see config.h). The value rules shared
 * by the JSON parser and the daemon's flags: NQN syntax, poll-mode names. Then
 * the checks that need the whole picture: duplicates and the references
 * between hosts, subsystems and ports.
 *
 * Ports export what they link (ports[].subsystems), as nvmet's do, so a
 * subsystem no port links is reachable nowhere: validation says so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/nqn.h"
#include "daemon/config.h"

/* -------------------------------------------------------- value rules */

/*
 * The library's NQN policy (as nvmet/nvmetcli), and its once-per-name
 * warning: the library warns too when the name reaches it, so a name is
 * reported once whichever sees it first.
 */
bool rblk_cfg_nqn_valid(const char *nqn, const char *where, char *why, size_t len)
{
	return rblk_nqn_check(nqn, where, why, len) == 0;
}

static const char *const poll_modes[] = {
	[RBLK_POLL_ADAPTIVE] = "adaptive",
	[RBLK_POLL_BUSY] = "busy",
	[RBLK_POLL_EVENT] = "event",
};

const char *rblk_cfg_poll_mode_str(enum rblk_poll_mode m)
{
	return (unsigned)m < 3 ? poll_modes[m] : "?";
}

int rblk_cfg_poll_mode_parse(const char *s, enum rblk_poll_mode *out)
{
	for (unsigned i = 0; i < 3; i++) {
		if (strcmp(s, poll_modes[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	if (strcmp(s, "poll") == 0) { /* accepted as another name for busy */
		*out = RBLK_POLL_BUSY;
		return 0;
	}
	return -EINVAL;
}

/* ---------------------------------------------------------- validation */

struct vctx {
	enum rblk_cfg_mode mode;
	unsigned errors;
};

/* Child location for messages: objects made from flags have no key path. */
static void where_child(char *buf, size_t len, const char *parent, const char *suffix)
{
	if (parent[0] == '-')
		snprintf(buf, len, "%s", parent);
	else
		snprintf(buf, len, "%s%s", parent, suffix);
}

void rblk_cfg_error(enum rblk_cfg_mode mode, unsigned *count, const char *skipped,
		    const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(*count)++;
	if (mode == RBLK_CFG_BEST_EFFORT)
		RBLK_ERR("%s; %s skipped", msg, skipped);
	else
		RBLK_ERR("%s", msg);
}

#define verr(v, skipped, ...) rblk_cfg_error((v)->mode, &(v)->errors, (skipped), __VA_ARGS__)

/* Returns true when the namespace must be dropped. */
static bool check_ns(struct vctx *v, struct rblk_cfg_subsys *ss, size_t i)
{
	struct rblk_cfg_ns *ns = &ss->ns[i];
	char w[320];

	if (ns->nsid == 0 || ns->nsid > RBLK_CFG_NSID_MAX) {
		where_child(w, sizeof(w), ns->where, ".nsid");
		verr(v, "namespace", "%s: %u is not a valid namespace id (1..%u)", w, ns->nsid,
		     RBLK_CFG_NSID_MAX);
		return true;
	}
	for (size_t j = 0; j < i; j++) {
		if (ss->ns[j].nsid == ns->nsid) {
			where_child(w, sizeof(w), ns->where, ".nsid");
			verr(v, "namespace", "%s: %u is already used by %s", w, ns->nsid,
			     ss->ns[j].where);
			return true;
		}
	}
	if (ns->enable && (!ns->path || !ns->path[0])) {
		where_child(w, sizeof(w), ns->where, ".device.path");
		verr(v, "namespace", "%s: missing; an enabled namespace needs a file or block device",
		     w);
		return true;
	}
	if (ns->rbd_cache && (!ns->path || strncmp(ns->path, "rbd:", 4))) {
		where_child(w, sizeof(w), ns->where, ".x-rblk.rbd_cache");
		verr(v, "namespace", "%s: librbd's cache is for rbd: namespaces only, not %s", w,
		     ns->path ? ns->path : "(no path)");
		return true;
	}
	for (size_t j = 0; j < i; j++) {
		const struct rblk_cfg_ns *o = &ss->ns[j];

		if (ns->has_uuid && o->has_uuid && !memcmp(ns->uuid, o->uuid, 16)) {
			where_child(w, sizeof(w), ns->where, ".device.uuid");
			verr(v, "namespace", "%s: same UUID as %s; namespace identifiers must be unique",
			     w, o->where);
			return true;
		}
		if (ns->has_nguid && o->has_nguid && !memcmp(ns->nguid, o->nguid, 16)) {
			where_child(w, sizeof(w), ns->where, ".device.nguid");
			verr(v, "namespace",
			     "%s: same NGUID as %s; namespace identifiers must be unique", w, o->where);
			return true;
		}
	}
	return false;
}

/* Returns true when the subsystem must be dropped. */
static bool check_subsys(struct vctx *v, struct rblk_config *cfg, size_t i)
{
	struct rblk_cfg_subsys *ss = &cfg->subsys[i];
	char w[320], why[160];

	where_child(w, sizeof(w), ss->where, ".nqn");
	if (!rblk_cfg_nqn_valid(ss->nqn, w, why, sizeof(why))) {
		verr(v, "subsystem", "%s: \"%s\" is not a valid NQN: it %s", w, ss->nqn, why);
		return true;
	}
	if (rblk_nqn_is_discovery(ss->nqn)) {
		verr(v, "subsystem", "%s: \"%s\" is the discovery subsystem, which rblk provides itself",
		     w, ss->nqn);
		return true;
	}
	for (size_t j = 0; j < i; j++) {
		if (strcmp(cfg->subsys[j].nqn, ss->nqn) == 0) {
			verr(v, "subsystem", "%s: \"%s\" is already defined by %s", w, ss->nqn,
			     cfg->subsys[j].where);
			return true;
		}
	}
	for (size_t h = 0; h < ss->nr_hosts;) {
		char hw[320], suffix[48];

		snprintf(suffix, sizeof(suffix), ".allowed_hosts[%zu]", h);
		where_child(hw, sizeof(hw), ss->where, suffix);
		if (!rblk_cfg_strv_has(cfg->hosts, cfg->nr_hosts, ss->hosts[h])) {
			verr(v, "allowed host",
			     "%s: \"%s\" is not in \"hosts\" (like nvmetcli, list each host there first)",
			     hw, ss->hosts[h]);
		} else if (rblk_cfg_strv_has(ss->hosts, h, ss->hosts[h])) {
			verr(v, "allowed host", "%s: \"%s\" is listed twice", hw, ss->hosts[h]);
		} else {
			h++;
			continue;
		}
		if (v->mode == RBLK_CFG_STRICT)
			h++;
		else
			rblk_cfg_subsys_del_host(ss, h);
	}
	if (ss->allow_any_host && ss->nr_hosts) {
		where_child(w, sizeof(w), ss->where, ".attr.allow_any_host");
		/* Kernel nvmet refuses the combination too; picking one would either
		 * lock the listed hosts' peers out or open the subsystem to all. */
		verr(v, "allow_any_host",
		     "%s: 1 conflicts with allowed_hosts (%zu host%s); use one or the other", w,
		     ss->nr_hosts, ss->nr_hosts == 1 ? "" : "s");
		if (v->mode == RBLK_CFG_BEST_EFFORT)
			ss->allow_any_host = false;
	}
	for (size_t n = 0; n < ss->nr_ns;) {
		if (check_ns(v, ss, n) && v->mode == RBLK_CFG_BEST_EFFORT)
			rblk_cfg_subsys_del_ns(ss, n);
		else
			n++;
	}
	return false;
}

bool rblk_cfg_port_same_listen(const struct rblk_cfg_port *a, const struct rblk_cfg_port *b)
{
	uint8_t x[16], y[16];

	if (a->trsvcid != b->trsvcid || a->ipv6 != b->ipv6)
		return false;
	/* Compare binary forms so "::1" and "0::1" are the same address. */
	if (inet_pton(a->ipv6 ? AF_INET6 : AF_INET, a->traddr, x) != 1 ||
	    inet_pton(b->ipv6 ? AF_INET6 : AF_INET, b->traddr, y) != 1)
		return strcmp(a->traddr, b->traddr) == 0;
	return memcmp(x, y, a->ipv6 ? 16 : 4) == 0;
}

static bool check_port(struct vctx *v, struct rblk_config *cfg, size_t i)
{
	struct rblk_cfg_port *p = &cfg->ports[i];
	char w[320];

	for (size_t j = 0; j < i; j++) {
		if (cfg->ports[j].portid == p->portid) {
			where_child(w, sizeof(w), p->where, ".portid");
			verr(v, "port", "%s: %u is already used by %s", w, p->portid,
			     cfg->ports[j].where);
			return true;
		}
		if (rblk_cfg_port_same_listen(&cfg->ports[j], p)) {
			where_child(w, sizeof(w), p->where, ".addr");
			verr(v, "port", "%s: %s port %u is already served by %s", w, p->traddr,
			     p->trsvcid, cfg->ports[j].where);
			return true;
		}
	}
	for (size_t s = 0; s < p->nr_subsys;) {
		char suffix[48];

		snprintf(suffix, sizeof(suffix), ".subsystems[%zu]", s);
		where_child(w, sizeof(w), p->where, suffix);
		if (!rblk_config_find_subsys(cfg, p->subsys[s])) {
			verr(v, "port link", "%s: \"%s\" is not a subsystem in \"subsystems\"", w,
			     p->subsys[s]);
			if (v->mode == RBLK_CFG_BEST_EFFORT) {
				rblk_cfg_port_del_link(p, s);
				continue;
			}
		}
		s++;
	}
	return false;
}

static void warn_semantics(const struct rblk_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		const struct rblk_cfg_subsys *ss = &cfg->subsys[i];
		size_t linked = 0;

		if (!ss->allow_any_host && ss->nr_hosts == 0)
			RBLK_WARN("%s (%s): no host may connect (allowed_hosts is empty and "
				  "allow_any_host is 0)", ss->where, ss->nqn);
		for (size_t p = 0; p < cfg->nr_ports; p++)
			linked += rblk_cfg_strv_has(cfg->ports[p].subsys, cfg->ports[p].nr_subsys, ss->nqn);
		if (cfg->nr_ports && !linked)
			RBLK_WARN("%s (%s) is not linked to any port (ports[].subsystems): no host "
				  "can reach it", ss->where, ss->nqn);
	}
}

static void fill_ids(struct rblk_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		struct rblk_cfg_subsys *ss = &cfg->subsys[i];

		for (size_t n = 0; n < ss->nr_ns; n++) {
			struct rblk_cfg_ns *ns = &ss->ns[n];
			uint8_t uuid[16], nguid[16];

			rblk_ns_gen_ids(ss->nqn, ns->nsid, uuid, nguid);
			if (!ns->has_uuid) {
				memcpy(ns->uuid, uuid, 16);
				ns->has_uuid = ns->uuid_generated = true;
			}
			if (!ns->has_nguid) {
				memcpy(ns->nguid, nguid, 16);
				ns->has_nguid = ns->nguid_generated = true;
			}
		}
	}
}

int rblk_config_validate(struct rblk_config *cfg, enum rblk_cfg_mode mode, unsigned *nerrors)
{
	struct vctx v = { .mode = mode };
	unsigned bad_auth;

	for (size_t i = 0; i < cfg->nr_hosts;) {
		if (rblk_cfg_strv_has(cfg->hosts, i, cfg->hosts[i])) {
			verr(&v, "host", "hosts[%zu].nqn: \"%s\" is listed twice", i, cfg->hosts[i]);
			if (mode == RBLK_CFG_BEST_EFFORT) {
				rblk_config_del_host(cfg, i);
				continue;
			}
		}
		i++;
	}
	for (size_t i = 0; i < cfg->nr_subsys;) {
		if (check_subsys(&v, cfg, i) && mode == RBLK_CFG_BEST_EFFORT)
			rblk_config_del_subsys(cfg, i);
		else
			i++;
	}
	for (size_t i = 0; i < cfg->nr_ports;) {
		if (check_port(&v, cfg, i) && mode == RBLK_CFG_BEST_EFFORT)
			rblk_config_del_port(cfg, i);
		else
			i++;
	}
	/* Unusable DH-HMAC-CHAP settings refuse the configuration in every mode. */
	bad_auth = rblk_config_check_auth(cfg, &v.errors);
	if (nerrors)
		*nerrors = v.errors;
	if (bad_auth || (v.errors && mode == RBLK_CFG_STRICT))
		return -EINVAL;
	warn_semantics(cfg);
	rblk_cfg_mpath_warn(cfg);
	fill_ids(cfg);
	return 0;
}
