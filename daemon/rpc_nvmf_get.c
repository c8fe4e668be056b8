/* SPDX-License-Identifier: MIT */
/*
 * The management methods that only report (rpc_nvmf.h): the subsystems as
 * configured, in SPDK's nvmf_get_subsystems shape, and what the target's
 * statistics say about controllers and queues. The statistics come from
 * rblk_target_stats_json(), the one view of live state the public API
 * gives, so the shapes hold what rblk knows: no host ID, no poll-group
 * thread name.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "common/uuid.h"
#include "daemon/rpc_nvmf.h"

#define DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"

struct json_object *rblk_rpc_listen_json(const struct rblk_cfg_port *p)
{
	struct json_object *a = json_object_new_object();
	char svc[8];

	if (!a)
		return NULL;
	snprintf(svc, sizeof(svc), "%u", p->trsvcid);
	json_object_object_add(a, "trtype", json_object_new_string("RDMA"));
	json_object_object_add(a, "adrfam", json_object_new_string(p->ipv6 ? "IPv6" : "IPv4"));
	json_object_object_add(a, "traddr", json_object_new_string(p->traddr));
	json_object_object_add(a, "trsvcid", json_object_new_string(svc));
	return a;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v ? v : ""));
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

/* The live statistics document, parsed; NULL with @e set. */
static struct json_object *stats(struct rblk_tgt_live *l, struct rblk_rpc_err *e)
{
	struct json_object *o;
	char *text = NULL;
	int ret;

	ret = rblk_target_stats_json(l->tgt, &text);
	if (ret) {
		rblk_rpc_fail_errno(e, ret, "statistics: %s", strerror(-ret));
		return NULL;
	}
	o = json_tokener_parse(text);
	free(text);
	if (!o)
		rblk_rpc_fail_errno(e, -EIO, "statistics: not JSON");
	return o;
}

static struct json_object *stats_array(struct json_object *st, const char *key)
{
	struct json_object *a;

	if (!json_object_object_get_ex(st, key, &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
}

/* The serial the target generated for a subsystem that does not set one. */
static const char *live_serial(struct json_object *st, const char *nqn)
{
	struct json_object *subs = stats_array(st, "subsystems"), *v;

	for (size_t i = 0; subs && i < json_object_array_length(subs); i++) {
		struct json_object *s = json_object_array_get_idx(subs, i);

		if (json_object_object_get_ex(s, "nqn", &v) &&
		    strcmp(json_object_get_string(v), nqn) == 0 &&
		    json_object_object_get_ex(s, "serial", &v))
			return json_object_get_string(v);
	}
	return NULL;
}

static struct json_object *ns_json(const struct rblk_cfg_ns *ns)
{
	struct json_object *o = json_object_new_object(), *q;
	char id[RBLK_UUID_STRLEN];

	add_int(o, "nsid", ns->nsid);
	/* SPDK's bdev_name and name: the path is what names a namespace here. */
	add_str(o, "bdev_name", ns->path);
	add_str(o, "name", ns->path);
	add_str(o, "path", ns->path);
	add_str(o, "uuid", rblk_uuid_format(ns->uuid, id));
	add_str(o, "nguid", rblk_uuid_format(ns->nguid, id));
	add_int(o, "anagrpid", ns->ana_grpid);
	json_object_object_add(o, "read_only", json_object_new_boolean(ns->read_only));
	json_object_object_add(o, "enable", json_object_new_boolean(ns->enable));
	/* As SPDK's bdev_get_bdevs shows a bdev's limits (0: none). */
	q = json_object_new_object();
	add_int(q, "rw_ios_per_sec", ns->qos.rw_ios_per_sec);
	add_int(q, "rw_mbytes_per_sec", ns->qos.rw_mbytes_per_sec);
	add_int(q, "r_mbytes_per_sec", ns->qos.r_mbytes_per_sec);
	add_int(q, "w_mbytes_per_sec", ns->qos.w_mbytes_per_sec);
	json_object_object_add(o, "assigned_rate_limits", q);
	return o;
}

static struct json_object *subsys_json(const struct rblk_config *cfg,
				       const struct rblk_cfg_subsys *ss, struct json_object *st)
{
	struct json_object *o = json_object_new_object();
	struct json_object *la = json_object_new_array(), *hosts = json_object_new_array();
	struct json_object *nss = json_object_new_array();
	const char *serial = ss->serial ? ss->serial : live_serial(st, ss->nqn);

	add_str(o, "nqn", ss->nqn);
	add_str(o, "subtype", "NVMe");
	for (size_t i = 0; i < cfg->nr_ports; i++)
		if (rblk_cfg_strv_has(cfg->ports[i].subsys, cfg->ports[i].nr_subsys, ss->nqn))
			json_object_array_add(la, rblk_rpc_listen_json(&cfg->ports[i]));
	json_object_object_add(o, "listen_addresses", la);
	json_object_object_add(o, "allow_any_host", json_object_new_boolean(ss->allow_any_host));
	for (size_t i = 0; i < ss->nr_hosts; i++) {
		struct json_object *h = json_object_new_object();

		add_str(h, "nqn", ss->hosts[i]);
		json_object_array_add(hosts, h);
	}
	json_object_object_add(o, "hosts", hosts);
	add_str(o, "serial_number", serial);
	add_str(o, "model_number", ss->model ? ss->model : "rblk");
	add_int(o, "max_namespaces", ss->max_namespaces ? ss->max_namespaces : 1024);
	add_int(o, "min_cntlid", ss->cntlid_min ? ss->cntlid_min : 1);
	add_int(o, "max_cntlid", ss->cntlid_max ? ss->cntlid_max : 0xffef);
	for (size_t i = 0; i < ss->nr_ns; i++)
		json_object_array_add(nss, ns_json(&ss->ns[i]));
	json_object_object_add(o, "namespaces", nss);
	return o;
}

/* SPDK lists the discovery subsystem first, on every listener. */
static struct json_object *discovery_json(const struct rblk_config *cfg)
{
	struct json_object *o = json_object_new_object(), *la = json_object_new_array();

	add_str(o, "nqn", DISCOVERY_NQN);
	add_str(o, "subtype", "Discovery");
	for (size_t i = 0; i < cfg->nr_ports; i++)
		json_object_array_add(la, rblk_rpc_listen_json(&cfg->ports[i]));
	json_object_object_add(o, "listen_addresses", la);
	json_object_object_add(o, "allow_any_host", json_object_new_boolean(1));
	json_object_object_add(o, "hosts", json_object_new_array());
	return o;
}

int rblk_rpc_get_subsystems(void *ctx, struct json_object *p, struct json_object **result,
			    struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	const struct rblk_config *cfg = l->running;
	struct json_object *a, *st;
	const char *nqn = NULL;

	if (rblk_rpc_param_only(p, "nvmf_get_subsystems", known, e) ||
	    rblk_rpc_param_str(p, "nqn", false, &nqn, NULL, e))
		return e->code;
	if (nqn && strcmp(nqn, DISCOVERY_NQN) && !rblk_config_find_subsys(cfg, nqn))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: no subsystem \"%.223s\"", nqn);
	if (!(st = stats(l, e)))
		return e->code;
	a = json_object_new_array();
	if (!nqn || strcmp(nqn, DISCOVERY_NQN) == 0)
		json_object_array_add(a, discovery_json(cfg));
	for (size_t i = 0; i < cfg->nr_subsys; i++)
		if (!nqn || strcmp(nqn, cfg->subsys[i].nqn) == 0)
			json_object_array_add(a, subsys_json(cfg, &cfg->subsys[i], st));
	json_object_put(st);
	*result = a;
	return 0;
}

/* The controllers of subsystem @nqn in the statistics, one callback each. */
static int each_ctrl(struct rblk_tgt_live *l, struct json_object *p, const char *method,
		     struct json_object *out,
		     void (*fn)(struct json_object *ctrl, struct json_object *out),
		     struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "tgt_name", NULL };
	struct json_object *st, *ctrls, *v;
	const char *nqn;

	if (rblk_rpc_param_only(p, method, known, e) ||
	    rblk_rpc_param_str(p, "nqn", true, &nqn, NULL, e))
		return e->code;
	if (!rblk_config_find_subsys(l->running, nqn))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: no subsystem \"%.223s\"", nqn);
	if (!(st = stats(l, e)))
		return e->code;
	ctrls = stats_array(st, "controllers");
	for (size_t i = 0; ctrls && i < json_object_array_length(ctrls); i++) {
		struct json_object *c = json_object_array_get_idx(ctrls, i);

		if (json_object_object_get_ex(c, "subsystem", &v) &&
		    strcmp(json_object_get_string(v), nqn) == 0)
			fn(c, out);
	}
	json_object_put(st);
	return 0;
}

static void copy_key(struct json_object *dst, struct json_object *src, const char *key)
{
	struct json_object *v;

	if (json_object_object_get_ex(src, key, &v))
		json_object_object_add(dst, key, json_object_get(v));
}

static void ctrl_entry(struct json_object *c, struct json_object *out)
{
	struct json_object *o = json_object_new_object(), *queues;
	size_t nq = 0;

	if (json_object_object_get_ex(c, "queues", &queues))
		nq = json_object_array_length(queues);
	copy_key(o, c, "cntlid");
	copy_key(o, c, "hostnqn");
	/* The admin queue is not an I/O qpair. */
	add_int(o, "num_io_qpairs", nq ? (int64_t)nq - 1 : 0);
	copy_key(o, c, "kato_ms");
	copy_key(o, c, "ready");
	copy_key(o, c, "failed");
	json_object_array_add(out, o);
}

static void qpair_entries(struct json_object *c, struct json_object *out)
{
	struct json_object *queues;

	if (!json_object_object_get_ex(c, "queues", &queues))
		return;
	for (size_t i = 0; i < json_object_array_length(queues); i++) {
		struct json_object *q = json_object_array_get_idx(queues, i);
		struct json_object *o = json_object_new_object();

		copy_key(o, c, "cntlid");
		copy_key(o, q, "qid");
		add_str(o, "state", "active");
		copy_key(o, c, "hostnqn");
		copy_key(o, q, "depth");
		copy_key(o, q, "completed");
		copy_key(o, q, "errors");
		json_object_array_add(out, o);
	}
}

int rblk_rpc_get_controllers(void *ctx, struct json_object *p, struct json_object **result,
			     struct rblk_rpc_err *e)
{
	struct json_object *a = json_object_new_array();

	if (!a)
		return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
	if (each_ctrl(ctx, p, "nvmf_subsystem_get_controllers", a, ctrl_entry, e)) {
		json_object_put(a);
		return e->code;
	}
	*result = a;
	return 0;
}

int rblk_rpc_get_qpairs(void *ctx, struct json_object *p, struct json_object **result,
			struct rblk_rpc_err *e)
{
	struct json_object *a = json_object_new_array();

	if (!a)
		return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
	if (each_ctrl(ctx, p, "nvmf_subsystem_get_qpairs", a, qpair_entries, e)) {
		json_object_put(a);
		return e->code;
	}
	*result = a;
	return 0;
}

int rblk_rpc_get_stats(void *ctx, struct json_object *p, struct json_object **result,
		       struct rblk_rpc_err *e)
{
	static const char *const known[] = { "tgt_name", NULL };
	struct json_object *st;

	if (rblk_rpc_param_only(p, "nvmf_get_stats", known, e) || !(st = stats(ctx, e)))
		return e->code;
	/* rblk's own document (docs/rpc.md): per listener, subsystem, controller, namespace. */
	*result = st;
	return 0;
}

/*
 * One namespace's figures (the document's namespace object, with the
 * latency buckets' bounds so that the histograms read on their own).
 */
int rblk_rpc_ns_get_stats(void *ctx, struct json_object *p, struct json_object **result,
			  struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "nsid", NULL };
	struct rblk_tgt_live *l = ctx;
	struct json_object *st, *nss, *v, *found = NULL;
	const char *nqn;
	uint32_t nsid;

	if (rblk_rpc_param_only(p, "rblk_ns_get_stats", known, e) ||
	    rblk_rpc_param_str(p, "nqn", true, &nqn, NULL, e) ||
	    rblk_rpc_param_u32(p, "nsid", true, 1, RBLK_CFG_NSID_MAX, &nsid, NULL, e))
		return e->code;
	if (!rblk_config_find_subsys(l->running, nqn))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: no subsystem \"%.223s\"", nqn);
	if (!(st = stats(l, e)))
		return e->code;
	nss = stats_array(st, "namespaces");
	for (size_t i = 0; nss && i < json_object_array_length(nss) && !found; i++) {
		struct json_object *ns = json_object_array_get_idx(nss, i);

		if (json_object_object_get_ex(ns, "subsystem", &v) &&
		    strcmp(json_object_get_string(v), nqn) == 0 &&
		    json_object_object_get_ex(ns, "nsid", &v) &&
		    json_object_get_uint64(v) == nsid)
			found = json_object_get(ns);
	}
	if (found)
		copy_key(found, st, "latency_bounds_ns");
	json_object_put(st);
	if (!found)
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS,
				     "nsid: no namespace %u in \"%.223s\"", nsid, nqn);
	*result = found;
	return 0;
}
