/* SPDX-License-Identifier: MIT */
/*
 * The configuration keys that let rblk-target be one path of several to an
 * NVM subsystem (docs/ana.md), in nvmetcli's JSON:
 *
 *   ports[].ana_groups[]    { "grpid": G, "ana": { "state": "optimized" } }:
 *                           the port's state of group G (nvmet's
 *                           ports/N/ana_groups/G/ana_state)
 *   namespaces[].ana_grpid  the namespace's group (nvmetcli also writes it
 *                           as "ana": { "grpid": "G" }; both are read)
 *   attr.cntlid_min/max     the subsystem's controller ID range, so two
 *                           targets exporting one subsystem never hand a
 *                           host the same CNTLID
 *
 * Parsing, saving, the reload diff and the apply step for these keys; the
 * rest of each step is in config_parse.c, config_save.c and config_diff.c,
 * which call in here. Every ANA change is live, as in nvmet: a state or a
 * namespace's group changes under connected hosts, which get an ANA change
 * AEN. A changed controller ID range recreates the subsystem (config_diff.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "common/log.h"
#include "daemon/config.h"
#include "daemon/config_json.h"
#include "protocol/nvmf.h"

#define perr(c, skipped, ...) rblk_cfg_error((c)->mode, &(c)->errors, (skipped), __VA_ARGS__)

/* The state a port gives group @g when the file says nothing: nvmet's defaults. */
static bool port_has(const struct rblk_cfg_port *p, uint32_t g, enum rblk_ana_state *st)
{
	if (p->ana[g].set) {
		*st = p->ana[g].state;
		return true;
	}
	*st = g == RBLK_ANA_DEFAULT_GRPID ? RBLK_ANA_OPTIMIZED : RBLK_ANA_INACCESSIBLE;
	return g == RBLK_ANA_DEFAULT_GRPID;
}

/* ------------------------------------------------------------------ parse */

static bool get_grpid(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		      const char *skipped, uint32_t *out)
{
	char what[64];

	snprintf(what, sizeof(what), "an ANA group id (1..%u)", RBLK_ANA_MAX_GROUPS);
	return rblk_cj_get_u32(c, path, v, 1, RBLK_ANA_MAX_GROUPS, what, skipped, out);
}

bool rblk_cfg_mpath_parse_ns_key(struct rblk_cj_ctx *c, const char *path, struct json_object *n,
				 const char *key, struct json_object *v, struct rblk_cfg_ns *ns,
				 bool *ok)
{
	struct json_object *g;

	if (strcmp(key, "ana_grpid") == 0) {
		*ok &= get_grpid(c, path, v, "namespace", &ns->ana_grpid);
		return true;
	}
	if (strcmp(key, "ana") != 0)
		return false;
	/*
	 * nvmetcli's attribute group, written next to "ana_grpid"; its restore
	 * applies "ana_grpid" last, so that one wins when both are there.
	 */
	if (!rblk_cj_get_obj(c, path, v, "namespace")) {
		*ok = false;
		return true;
	}
	json_object_object_foreach(v, k, val)
		if (strcmp(k, "grpid") != 0)
			rblk_cj_other_key(path, k, val, NULL);
	if (json_object_object_get_ex(v, "grpid", &g)) {
		uint32_t grpid;
		char gp[300];

		rblk_cj_path(gp, sizeof(gp), "%s.grpid", path);
		if (!get_grpid(c, gp, g, "namespace", &grpid))
			*ok = false;
		else if (!json_object_object_get_ex(n, "ana_grpid", NULL))
			ns->ana_grpid = grpid;
	}
	return true;
}

bool rblk_cfg_mpath_parse_attr(struct rblk_cj_ctx *c, const char *path, const char *key,
			       struct json_object *v, struct rblk_cfg_subsys *ss)
{
	char what[64];
	uint32_t n;

	if (strcmp(key, "cntlid_min") && strcmp(key, "cntlid_max"))
		return false;
	snprintf(what, sizeof(what), "a controller id (%u..%u)", NVMF_CNTLID_MIN, NVMF_CNTLID_MAX);
	if (!rblk_cj_get_u32(c, path, v, NVMF_CNTLID_MIN, NVMF_CNTLID_MAX, what, "attribute", &n))
		return true;
	/* nvmet's defaults are stored as "not set", so saving keeps files unchanged. */
	if (strcmp(key, "cntlid_min") == 0)
		ss->cntlid_min = n == NVMF_CNTLID_MIN ? 0 : (uint16_t)n;
	else
		ss->cntlid_max = n == NVMF_CNTLID_MAX ? 0 : (uint16_t)n;
	return true;
}

void rblk_cfg_mpath_check_attr(struct rblk_cj_ctx *c, const char *path,
			       struct rblk_cfg_subsys *ss)
{
	unsigned lo = ss->cntlid_min ? ss->cntlid_min : NVMF_CNTLID_MIN;
	unsigned hi = ss->cntlid_max ? ss->cntlid_max : NVMF_CNTLID_MAX;

	if (lo <= hi)
		return;
	perr(c, "attribute", "%s.cntlid_min: %u is above cntlid_max %u", path, lo, hi);
	ss->cntlid_min = ss->cntlid_max = 0;
}

bool rblk_cfg_mpath_parse_port_ana(struct rblk_cj_ctx *c, const char *path,
				   struct json_object *v, struct rblk_cfg_port *port)
{
	if (!rblk_cj_get_arr(c, path, v, "port"))
		return false;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *g = json_object_array_get_idx(v, i), *x, *st;
		char gp[300], p[340];
		enum rblk_ana_state state;
		uint32_t grpid;
		const char *s;

		rblk_cj_path(gp, sizeof(gp), "%s[%zu]", path, i);
		rblk_cj_path(p, sizeof(p), "%s.grpid", gp);
		if (!rblk_cj_get_obj(c, gp, g, "port"))
			return false;
		if (!json_object_object_get_ex(g, "grpid", &x)) {
			perr(c, "port", "%s: missing", p);
			return false;
		}
		if (!get_grpid(c, p, x, "port", &grpid))
			return false;
		if (port->ana[grpid].set) {
			perr(c, "port", "%s: group %u is listed twice", p, grpid);
			return false;
		}
		/* Without a state, nvmet's for a new group (group 1: optimized). */
		port_has(port, grpid, &state);
		json_object_object_foreach(g, k, val) {
			rblk_cj_path(p, sizeof(p), "%s.%s", gp, k);
			if (strcmp(k, "grpid") == 0)
				continue;
			if (strcmp(k, "ana") != 0 || !rblk_cj_get_obj(c, p, val, "port")) {
				if (strcmp(k, "ana") == 0)
					return false;
				rblk_cj_other_key(gp, k, val, NULL);
				continue;
			}
			if (!json_object_object_get_ex(val, "state", &st))
				continue;
			rblk_cj_path(p, sizeof(p), "%s.ana.state", gp);
			if (!rblk_cj_get_str(c, p, st, "port", &s))
				return false;
			if (rblk_ana_state_from_name(s, &state)) {
				perr(c, "port", "%s: \"%s\" is not an ANA state (\"optimized\", "
				     "\"non-optimized\", \"inaccessible\", \"persistent-loss\" or "
				     "\"change\")", p, s);
				return false;
			}
		}
		port->ana[grpid].set = true;
		port->ana[grpid].state = state;
	}
	return true;
}

void rblk_cfg_mpath_warn(const struct rblk_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		for (size_t j = 0; j < cfg->subsys[i].nr_ns; j++) {
			const struct rblk_cfg_ns *ns = &cfg->subsys[i].ns[j];
			enum rblk_ana_state st;
			bool reachable = false;

			for (size_t p = 0; p < cfg->nr_ports && !reachable; p++)
				reachable = port_has(&cfg->ports[p], ns->ana_grpid, &st) &&
					    st != RBLK_ANA_INACCESSIBLE &&
					    st != RBLK_ANA_PERSISTENT_LOSS;
			if (!reachable && cfg->nr_ports)
				RBLK_WARN("%s: ANA group %u is accessible on no port (ports[]."
					  "ana_groups): hosts see the namespace but cannot use it",
					  ns->where, ns->ana_grpid);
		}
	}
}

/* ------------------------------------------------------------------- save */

/* json-c takes @val; on failure it is freed. */
static int put(struct json_object *obj, const char *key, struct json_object *val)
{
	if (!val || json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

int rblk_cfg_mpath_save_ns(struct json_object *o, const struct rblk_cfg_ns *ns)
{
	/* As `nvmetcli save`: always there, an integer. */
	return put(o, "ana_grpid", json_object_new_int64(ns->ana_grpid ? ns->ana_grpid : 1));
}

int rblk_cfg_mpath_save_attr(struct json_object *attr, const struct rblk_cfg_subsys *ss)
{
	char buf[8];

	/* Attributes are strings; written only when not nvmet's default. */
	snprintf(buf, sizeof(buf), "%u", ss->cntlid_max);
	if (ss->cntlid_max && put(attr, "cntlid_max", json_object_new_string(buf)))
		return -ENOMEM;
	snprintf(buf, sizeof(buf), "%u", ss->cntlid_min);
	if (ss->cntlid_min && put(attr, "cntlid_min", json_object_new_string(buf)))
		return -ENOMEM;
	return 0;
}

int rblk_cfg_mpath_save_port(struct json_object *o, const struct rblk_cfg_port *p)
{
	struct json_object *arr = json_object_new_array();

	if (!arr)
		return -ENOMEM;
	/* As `nvmetcli save`: group 1 always, then every group the port has. */
	for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++) {
		struct json_object *grp, *ana;
		enum rblk_ana_state st;

		if (!port_has(p, g, &st))
			continue;
		grp = json_object_new_object();
		ana = json_object_new_object();
		if (!grp || !ana || put(ana, "state", json_object_new_string(rblk_ana_state_name(st))) ||
		    put(grp, "ana", ana)) {
			json_object_put(ana);
			json_object_put(grp);
			json_object_put(arr);
			return -ENOMEM;
		}
		if (put(grp, "grpid", json_object_new_int64(g)) || json_object_array_add(arr, grp)) {
			json_object_put(grp);
			json_object_put(arr);
			return -ENOMEM;
		}
	}
	return put(o, "ana_groups", arr);
}

/* ------------------------------------------------------------ diff, apply */

static bool accessible(enum rblk_ana_state st)
{
	return st == RBLK_ANA_OPTIMIZED || st == RBLK_ANA_NON_OPTIMIZED;
}

int rblk_cfg_mpath_diff_port(struct rblk_config_diff *d, const struct rblk_cfg_port *old,
			     const struct rblk_cfg_port *new)
{
	for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++) {
		enum rblk_ana_state ost = RBLK_ANA_INACCESSIBLE, nst;
		bool had = old ? port_has(old, g, &ost) : g == RBLK_ANA_DEFAULT_GRPID;
		bool has = port_has(new, g, &nst);
		struct rblk_cfg_op *op = NULL;

		/* A new listener starts with the library's defaults (group 1 optimized). */
		if (!old && g == RBLK_ANA_DEFAULT_GRPID)
			ost = RBLK_ANA_OPTIMIZED;
		if (has && (!had || ost != nst))
			op = rblk_cfg_diff_push(d, accessible(nst) ? RBLK_CFG_OP_ANA_STATE_ON
								   : RBLK_CFG_OP_ANA_STATE_OFF, NULL);
		else if (had && !has)
			op = rblk_cfg_diff_push(d, RBLK_CFG_OP_ANA_GROUP_DEL, NULL);
		else
			continue;
		if (!op)
			return -ENOMEM;
		op->port = new;
		op->grpid = g;
		op->ana_state = nst;
	}
	return 0;
}

int rblk_cfg_mpath_apply(struct rblk_target *tgt, const struct rblk_cfg_op *op)
{
	struct rblk_subsystem *ss;

	switch (op->type) {
	case RBLK_CFG_OP_ANA_STATE_ON:
	case RBLK_CFG_OP_ANA_STATE_OFF:
		return rblk_target_port_set_ana_state(tgt, op->port->portid, op->grpid,
						      op->ana_state);
	case RBLK_CFG_OP_ANA_GROUP_DEL:
		return rblk_target_port_remove_ana_group(tgt, op->port->portid, op->grpid);
	case RBLK_CFG_OP_NS_ANA_GRPID:
		ss = rblk_target_find_subsystem(tgt, op->ss->nqn);
		return ss ? rblk_subsystem_set_ns_ana_grpid(ss, op->ns->nsid, op->ns->ana_grpid)
			  : -ENOENT;
	default:
		return -EINVAL;
	}
}

void rblk_cfg_mpath_describe(const struct rblk_cfg_op *op, char *buf, size_t len)
{
	switch (op->type) {
	case RBLK_CFG_OP_ANA_STATE_ON:
	case RBLK_CFG_OP_ANA_STATE_OFF:
		snprintf(buf, len, "port %u: ANA group %u %s", op->port->portid, op->grpid,
			 rblk_ana_state_name(op->ana_state));
		break;
	case RBLK_CFG_OP_ANA_GROUP_DEL:
		snprintf(buf, len, "port %u: remove ANA group %u (inaccessible there)",
			 op->port->portid, op->grpid);
		break;
	case RBLK_CFG_OP_NS_ANA_GRPID:
		snprintf(buf, len, "%s: namespace %u moves to ANA group %u", op->ss->nqn,
			 op->ns->nsid, op->ns->ana_grpid);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
}
