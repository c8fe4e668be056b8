/* SPDX-License-Identifier: MIT */
/*
 * The management methods that change the target (rpc_nvmf.h), and the
 * method table. Each one reads its parameters (SPDK's names; a message
 * naming the parameter for anything wrong), makes the change on a copy of
 * the running configuration, validates the copy in strict mode as a
 * configuration file is validated, and hands it to rblk_tgt_live_apply():
 * the target gets exactly the steps a SIGHUP reload with that file would
 * make, and --save gets the file.
 *
 * Where rblk's model is not SPDK's: a namespace is a path (no bdevs); a
 * listener is an nvmet port that subsystems are linked to, so adding a
 * subsystem's listener links it to the port with that address (opened
 * first if new) and removing it unlinks it (the port stays open, since
 * closing a listener needs a restart); ANA states belong to a port, as in
 * nvmet, so setting one on a listener sets it for every subsystem linked
 * there; hosts and their DH-HMAC-CHAP secrets are target-wide (rblk_host_set_auth
 * changes them for a host that stays allowed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "common/log.h"
#include "common/uuid.h"
#include "daemon/rpc_nvmf.h"

/* ------------------------------------------------------------ helpers */

/* Validates @next and makes it the running configuration; frees it in every case. */
static int commit(struct rblk_tgt_live *l, struct rblk_config *next, struct rblk_rpc_err *e)
{
	char why[400];
	unsigned nerr = 0;
	int ret;

	ret = rblk_config_validate(next, RBLK_CFG_STRICT, &nerr);
	if (ret) {
		rblk_config_free(next);
		if (ret == -ENOMEM)
			return rblk_rpc_fail_errno(e, ret, "out of memory");
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s", *rblk_rpc_log_captured()
				     ? rblk_rpc_log_captured() : "refused by the configuration checks");
	}
	ret = rblk_tgt_live_apply(l, next, RBLK_LIVE_REQUEST, NULL, NULL, why, sizeof(why));
	if (ret)
		return rblk_rpc_fail_errno(e, ret, "%s", why);
	return 0;
}

/* A copy of the running configuration to change, and the subsystem @nqn in it. */
static int begin(struct rblk_tgt_live *l, const char *nqn, struct rblk_config **next,
		 struct rblk_cfg_subsys **ss, struct rblk_rpc_err *e)
{
	int ret;

	if (nqn && !rblk_config_find_subsys(l->running, nqn))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: no subsystem \"%.223s\"", nqn);
	ret = rblk_config_dup(l->running, next);
	if (ret)
		return rblk_rpc_fail_errno(e, ret, "out of memory");
	if (ss)
		*ss = nqn ? rblk_config_find_subsys(*next, nqn) : NULL;
	return 0;
}

static int fail_nomem(struct rblk_config *next, struct rblk_rpc_err *e)
{
	rblk_config_free(next);
	return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
}

static int get_nqn(struct json_object *params, const char **nqn, struct rblk_rpc_err *e)
{
	return rblk_rpc_param_str(params, "nqn", true, nqn, NULL, e);
}

static ssize_t find_str(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

/* ------------------------------------------------------------ subsystems */

static int create_subsystem(void *ctx, struct json_object *p, struct json_object **result,
			    struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "serial_number", "model_number",
		"allow_any_host", "max_namespaces", "min_cntlid", "max_cntlid", "ana_reporting",
		"tgt_name", "passthrough", "enable_nssr", NULL };
	struct rblk_tgt_live *l = ctx;
	const char *nqn, *serial = NULL, *model = NULL;
	uint32_t max_ns = 0, min_cntlid = 0, max_cntlid = 0;
	bool any = false;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	char why[160];

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_create_subsystem", known, e) || get_nqn(p, &nqn, e) ||
	    rblk_rpc_param_str(p, "serial_number", false, &serial, NULL, e) ||
	    rblk_rpc_param_str(p, "model_number", false, &model, NULL, e) ||
	    rblk_rpc_param_bool(p, "allow_any_host", false, &any, NULL, e) ||
	    rblk_rpc_param_u32(p, "max_namespaces", false, 0, RBLK_CFG_NSID_MAX, &max_ns, NULL, e) ||
	    rblk_rpc_param_u32(p, "min_cntlid", false, 1, 0xffef, &min_cntlid, NULL, e) ||
	    rblk_rpc_param_u32(p, "max_cntlid", false, 1, 0xffef, &max_cntlid, NULL, e) ||
	    rblk_rpc_param_off(p, "passthrough", "rblk has no NVMe passthrough", e) ||
	    rblk_rpc_param_off(p, "enable_nssr", "rblk has no NVM subsystem reset", e))
		return e->code;
	if (!rblk_cfg_nqn_valid(nqn, "nqn", why, sizeof(why)))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: \"%.223s\" is not a valid NQN: "
				     "it %s", nqn, why);
	if (rblk_config_find_subsys(l->running, nqn))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: subsystem \"%.223s\" exists",
				     nqn);
	if (begin(l, NULL, &next, NULL, e))
		return e->code;
	if (rblk_config_add_subsys(next, "nvmf_create_subsystem", nqn, &ss) ||
	    (serial && !(ss->serial = strdup(serial))) || (model && !(ss->model = strdup(model))))
		return fail_nomem(next, e);
	ss->allow_any_host = any;
	ss->max_namespaces = max_ns;
	ss->cntlid_min = (uint16_t)min_cntlid;
	ss->cntlid_max = (uint16_t)max_cntlid;
	return commit(l, next, e);
}

static int delete_subsystem(void *ctx, struct json_object *p, struct json_object **result,
			    struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_config *next;
	const char *nqn;

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_delete_subsystem", known, e) || get_nqn(p, &nqn, e) ||
	    begin(l, nqn, &next, NULL, e))
		return e->code;
	/* Its port links go with it, as nvmet's symlinks must go before the subsystem. */
	for (size_t i = 0; i < next->nr_ports; i++) {
		struct rblk_cfg_port *port = &next->ports[i];
		ssize_t k = find_str(port->subsys, port->nr_subsys, nqn);

		if (k >= 0)
			rblk_cfg_port_del_link(port, (size_t)k);
	}
	for (size_t i = 0; i < next->nr_subsys; i++)
		if (strcmp(next->subsys[i].nqn, nqn) == 0) {
			rblk_config_del_subsys(next, i);
			break;
		}
	return commit(l, next, e);
}

/* ------------------------------------------------------------ listeners */

struct listen {
	bool ipv6;
	char traddr[64];
	uint16_t trsvcid;
};

static int get_trsvcid(struct json_object *a, uint16_t *out, struct rblk_rpc_err *e)
{
	struct json_object *v;
	const char *s;
	char *end;
	unsigned long n;

	*out = 4420;
	if (!json_object_object_get_ex(a, "trsvcid", &v) || json_object_is_type(v, json_type_null))
		return 0;
	/* SPDK writes it as a string; a number is taken too. */
	if (json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);

		if (i < 1 || i > 65535)
			goto bad;
		*out = (uint16_t)i;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		goto bad;
	s = json_object_get_string(v);
	errno = 0;
	n = strtoul(s, &end, 10);
	if (!*s || *end || errno || n < 1 || n > 65535 || *s == '-' || *s == '+')
		goto bad;
	*out = (uint16_t)n;
	return 0;
bad:
	return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS,
			     "listen_address.trsvcid: %.40s is not a port number (1..65535)",
			     json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

static int get_listen(struct json_object *p, struct listen *out, struct rblk_rpc_err *e)
{
	static const char *const known[] = { "trtype", "adrfam", "traddr", "trsvcid", NULL };
	const char *trtype, *adrfam = NULL, *traddr;
	struct json_object *a;
	uint8_t bin[16];

	if (rblk_rpc_param_obj(p, "listen_address", true, &a, e) ||
	    rblk_rpc_param_only(a, "listen_address", known, e) ||
	    rblk_rpc_param_str(a, "listen_address.trtype", true, &trtype, NULL, e) ||
	    rblk_rpc_param_str(a, "listen_address.adrfam", false, &adrfam, NULL, e) ||
	    rblk_rpc_param_str(a, "listen_address.traddr", true, &traddr, NULL, e) ||
	    get_trsvcid(a, &out->trsvcid, e))
		return e->code;
	if (strcasecmp(trtype, "rdma"))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "listen_address.trtype: \"%.40s\": "
				     "rblk serves RDMA only", trtype);
	if (adrfam && strcasecmp(adrfam, "ipv4") && strcasecmp(adrfam, "ipv6"))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "listen_address.adrfam: \"%.40s\" is "
				     "not IPv4 or IPv6", adrfam);
	out->ipv6 = adrfam ? strcasecmp(adrfam, "ipv6") == 0 : strchr(traddr, ':') != NULL;
	if (strlen(traddr) >= sizeof(out->traddr) ||
	    inet_pton(out->ipv6 ? AF_INET6 : AF_INET, traddr, bin) != 1)
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "listen_address.traddr: \"%.64s\" is "
				     "not an %s address literal", traddr, out->ipv6 ? "IPv6" : "IPv4");
	snprintf(out->traddr, sizeof(out->traddr), "%s", traddr);
	return 0;
}

static struct rblk_cfg_port *find_port(const struct rblk_config *cfg, const struct listen *l)
{
	struct rblk_cfg_port key = { .ipv6 = l->ipv6, .traddr = (char *)l->traddr,
				     .trsvcid = l->trsvcid };

	for (size_t i = 0; i < cfg->nr_ports; i++)
		if (rblk_cfg_port_same_listen(&cfg->ports[i], &key))
			return &cfg->ports[i];
	return NULL;
}

static uint16_t free_portid(const struct rblk_config *cfg)
{
	for (uint32_t id = 1; id <= 0xffff; id++) {
		size_t i;

		for (i = 0; i < cfg->nr_ports && cfg->ports[i].portid != id; i++)
			;
		if (i == cfg->nr_ports)
			return (uint16_t)id;
	}
	return 0;
}

/* SPDK's names ("non_optimized") and nvmet's ("non-optimized", "change", ...). */
static int parse_ana_state(const char *s, enum rblk_ana_state *out)
{
	char name[32];

	if (strlen(s) >= sizeof(name))
		return -EINVAL;
	for (size_t i = 0; i <= strlen(s); i++)
		name[i] = s[i] == '_' ? '-' : (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
	return rblk_ana_state_from_name(name, out);
}


/* The state on the port for every group @ss's namespaces are in, and group 1. */
static void set_subsys_groups(struct rblk_cfg_port *port, const struct rblk_cfg_subsys *ss,
			      enum rblk_ana_state state)
{
	port->ana[RBLK_ANA_DEFAULT_GRPID] = (struct rblk_cfg_ana){ .set = true, .state = state };
	for (size_t i = 0; i < ss->nr_ns; i++)
		port->ana[ss->ns[i].ana_grpid] = (struct rblk_cfg_ana){ .set = true, .state = state };
}

static int get_ana_state(struct json_object *p, bool required, enum rblk_ana_state *state,
			 bool *present, struct rblk_rpc_err *e)
{
	const char *name;
	bool has = false;

	if (rblk_rpc_param_str(p, "ana_state", required, &name, &has, e))
		return e->code;
	if (present)
		*present = has;
	if (has && parse_ana_state(name, state))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "ana_state: \"%.40s\" is not "
				     "optimized, non_optimized, inaccessible, persistent_loss or "
				     "change", name);
	return 0;
}

static int add_listener(void *ctx, struct json_object *p, struct json_object **result,
			struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "listen_address", "tgt_name", "secure_channel",
		"ana_state", NULL };
	struct rblk_tgt_live *l = ctx;
	enum rblk_ana_state state;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	struct rblk_cfg_port *port;
	bool has_state = false;
	struct listen a;
	const char *nqn;

	(void)result;
	/* SPDK's secure channel is TLS over TCP; RDMA has none to offer. */
	if (rblk_rpc_param_only(p, "nvmf_subsystem_add_listener", known, e) ||
	    get_nqn(p, &nqn, e) || get_listen(p, &a, e) ||
	    rblk_rpc_param_off(p, "secure_channel", "rblk has no secure channel on RDMA", e) ||
	    get_ana_state(p, false, &state, &has_state, e) || begin(l, nqn, &next, &ss, e))
		return e->code;
	port = find_port(next, &a);
	if (port && find_str(port->subsys, port->nr_subsys, nqn) >= 0) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "listen_address: %s port %u is "
				     "already a listener of %.223s", a.traddr, a.trsvcid, nqn);
	}
	if (!port) {
		if (rblk_config_add_port(next, "nvmf_subsystem_add_listener", &port) ||
		    !(port->traddr = strdup(a.traddr)))
			return fail_nomem(next, e);
		port->ipv6 = a.ipv6;
		port->trsvcid = a.trsvcid;
		port->portid = free_portid(next);
	}
	if (rblk_cfg_port_link(port, nqn))
		return fail_nomem(next, e);
	/* SPDK's initial state of the new listener: the port's, for this subsystem's groups. */
	if (has_state)
		set_subsys_groups(port, ss, state);
	return commit(l, next, e);
}

static int remove_listener(void *ctx, struct json_object *p, struct json_object **result,
			   struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "listen_address", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_config *next;
	struct rblk_cfg_port *port;
	struct listen a;
	const char *nqn;
	ssize_t k = -1;

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_subsystem_remove_listener", known, e) ||
	    get_nqn(p, &nqn, e) || get_listen(p, &a, e) || begin(l, nqn, &next, NULL, e))
		return e->code;
	port = find_port(next, &a);
	if (port)
		k = find_str(port->subsys, port->nr_subsys, nqn);
	if (k < 0) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "listen_address: %s port %u is not a "
				     "listener of %.223s", a.traddr, a.trsvcid, nqn);
	}
	/* Unlinked, as nvmet: its hosts there are disconnected; the port stays open. */
	rblk_cfg_port_del_link(port, (size_t)k);
	return commit(l, next, e);
}

static int set_ana_state(void *ctx, struct json_object *p, struct json_object **result,
			 struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "listen_address", "ana_state", "anagrpid",
		"tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	enum rblk_ana_state state;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	struct rblk_cfg_port *port;
	uint32_t grpid = 0;
	bool has_grpid = false;
	struct listen a;
	const char *nqn;

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_subsystem_listener_set_ana_state", known, e) ||
	    get_nqn(p, &nqn, e) || get_listen(p, &a, e) || get_ana_state(p, true, &state, NULL, e) ||
	    rblk_rpc_param_u32(p, "anagrpid", false, 1, RBLK_ANA_MAX_GROUPS, &grpid, &has_grpid, e))
		return e->code;
	if (begin(l, nqn, &next, &ss, e))
		return e->code;
	port = find_port(next, &a);
	if (!port || find_str(port->subsys, port->nr_subsys, nqn) < 0) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "listen_address: %s port %u is not a "
				     "listener of %.223s", a.traddr, a.trsvcid, nqn);
	}
	/* Without anagrpid, as SPDK: every group the subsystem's namespaces are in. */
	if (has_grpid)
		port->ana[grpid] = (struct rblk_cfg_ana){ .set = true, .state = state };
	else
		set_subsys_groups(port, ss, state);
	return commit(l, next, e);
}

/* ------------------------------------------------------------ namespaces */

static bool hex_bytes(const char *s, size_t bytes, uint8_t *out)
{
	static const char hex[] = "0123456789abcdef";

	if (strlen(s) != 2 * bytes)
		return false;
	for (size_t i = 0; i < 2 * bytes; i++) {
		const char *d = s[i] ? strchr(hex, s[i] | 0x20) : NULL;

		if (!d)
			return false;
		out[i / 2] = (uint8_t)((i & 1) ? (out[i / 2] << 4) | (d - hex) : (d - hex));
	}
	return true;
}

/* uuid and nguid: a UUID or 32 hex digits (SPDK writes NGUIDs so); eui64: 16 hex digits. */
static int get_id(struct json_object *o, const char *key, size_t bytes, bool *has, uint8_t *out,
		  struct rblk_rpc_err *e)
{
	bool present = false;
	const char *s;

	if (rblk_rpc_param_str(o, key, false, &s, &present, e))
		return e->code;
	if (!present)
		return 0;
	if (bytes == 16 ? rblk_uuid_parse(s, out) != 0 : !hex_bytes(s, bytes, out))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s: \"%.64s\" is not %s", key, s,
				     bytes == 16 ? "a UUID (8-4-4-4-12 or 32 hex digits)"
						 : "16 hex digits");
	*has = true;
	return 0;
}

static uint32_t free_nsid(const struct rblk_cfg_subsys *ss)
{
	for (uint32_t id = 1; id <= RBLK_CFG_NSID_MAX; id++)
		if (!rblk_cfg_subsys_find_ns(ss, id))
			return id;
	return 0;
}

static int add_ns(void *ctx, struct json_object *p, struct json_object **result,
		  struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "namespace", "tgt_name", NULL };
	static const char *const ns_known[] = { "path", "nsid", "uuid", "nguid", "eui64",
		"anagrpid", "read_only", "block_size", "rbd_cache", "bdev_name", "no_auto_visible",
		"hide_metadata", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_cfg_ns tmp = { .ana_grpid = 1 }, *ns;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	struct json_object *o;
	const char *nqn, *path, *bdev;
	bool has_bdev = false;
	char why[256];
	int ret;

	if (rblk_rpc_param_only(p, "nvmf_subsystem_add_ns", known, e) || get_nqn(p, &nqn, e) ||
	    rblk_rpc_param_obj(p, "namespace", true, &o, e) ||
	    rblk_rpc_param_only(o, "namespace", ns_known, e) ||
	    rblk_rpc_param_str(o, "namespace.bdev_name", false, &bdev, &has_bdev, e) ||
	    rblk_rpc_param_off(o, "namespace.no_auto_visible", "rblk has no per-host namespace "
			       "visibility: every allowed host sees every namespace", e) ||
	    rblk_rpc_param_off(o, "namespace.hide_metadata", "rblk namespaces have no metadata",
			       e))
		return e->code;
	if (has_bdev)
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "namespace.bdev_name: rblk has no "
				     "bdevs; give namespace.path (a file, a block device, mem:SIZE "
				     "or rbd:POOL/IMAGE)");
	if (rblk_rpc_param_str(o, "namespace.path", true, &path, NULL, e) ||
	    rblk_rpc_param_u32(o, "namespace.nsid", false, 0, RBLK_CFG_NSID_MAX, &tmp.nsid, NULL,
			       e) ||
	    get_id(o, "namespace.uuid", 16, &tmp.has_uuid, tmp.uuid, e) ||
	    get_id(o, "namespace.nguid", 16, &tmp.has_nguid, tmp.nguid, e) ||
	    get_id(o, "namespace.eui64", 8, &tmp.has_eui64, tmp.eui64, e) ||
	    rblk_rpc_param_u32(o, "namespace.anagrpid", false, 1, RBLK_ANA_MAX_GROUPS,
			       &tmp.ana_grpid, NULL, e) ||
	    rblk_rpc_param_bool(o, "namespace.read_only", false, &tmp.read_only, NULL, e) ||
	    rblk_rpc_param_u32(o, "namespace.block_size", false, 0, 4096, &tmp.block_size, NULL, e) ||
	    rblk_rpc_param_bool(o, "namespace.rbd_cache", false, &tmp.rbd_cache, NULL, e))
		return e->code;
	/* What a start would refuse, with the reason, before anything changes. */
	ret = rblk_ns_path_check(path, tmp.read_only, tmp.block_size, why, sizeof(why));
	if (ret)
		return rblk_rpc_fail_errno(e, ret == -ENOMEM ? ret : -EINVAL, "namespace.path: %s",
					   why);
	if (begin(l, nqn, &next, &ss, e))
		return e->code;
	if (tmp.nsid && rblk_cfg_subsys_find_ns(ss, tmp.nsid)) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "namespace.nsid: %u is in use in "
				     "%.223s", tmp.nsid, nqn);
	}
	if (!tmp.nsid && !(tmp.nsid = free_nsid(ss))) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%.223s has no free NSID", nqn);
	}
	if (rblk_cfg_subsys_add_ns(ss, "nvmf_subsystem_add_ns.namespace", &ns))
		return fail_nomem(next, e);
	tmp.where = ns->where;
	tmp.enable = true;
	*ns = tmp;
	if (!(ns->path = strdup(path)))
		return fail_nomem(next, e);
	ret = commit(l, next, e);
	if (!ret)
		*result = json_object_new_int64(tmp.nsid); /* SPDK answers with the NSID */
	return ret;
}

static int remove_ns(void *ctx, struct json_object *p, struct json_object **result,
		     struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "nsid", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	const char *nqn;
	uint32_t nsid;

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_subsystem_remove_ns", known, e) || get_nqn(p, &nqn, e) ||
	    rblk_rpc_param_u32(p, "nsid", true, 1, RBLK_CFG_NSID_MAX, &nsid, NULL, e) ||
	    begin(l, nqn, &next, &ss, e))
		return e->code;
	for (size_t i = 0; i < ss->nr_ns; i++)
		if (ss->ns[i].nsid == nsid) {
			rblk_cfg_subsys_del_ns(ss, i);
			return commit(l, next, e);
		}
	rblk_config_free(next);
	return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nsid: %.223s has no namespace %u", nqn,
			     nsid);
}

/*
 * SPDK's bdev_set_qos_limit, on a namespace named by subsystem and NSID:
 * the limits given change, the others keep their value; 0 lifts one.
 */
static int set_qos_limit(void *ctx, struct json_object *p, struct json_object **result,
			 struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "nsid", "rw_ios_per_sec", "rw_mbytes_per_sec",
		"r_mbytes_per_sec", "w_mbytes_per_sec", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_cfg_subsys *ss;
	struct rblk_cfg_qos q;
	struct rblk_cfg_ns *ns;
	struct rblk_config *next;
	bool given[4] = { false };
	const char *nqn;
	uint32_t nsid;

	(void)result;
	memset(&q, 0, sizeof(q));
	if (rblk_rpc_param_only(p, "rblk_ns_set_qos_limit", known, e) || get_nqn(p, &nqn, e) ||
	    rblk_rpc_param_u32(p, "nsid", true, 1, RBLK_CFG_NSID_MAX, &nsid, NULL, e) ||
	    rblk_rpc_param_u32(p, "rw_ios_per_sec", false, 0, RBLK_NS_QOS_MAX_IOS_PER_SEC,
			       &q.rw_ios_per_sec, &given[0], e) ||
	    rblk_rpc_param_u32(p, "rw_mbytes_per_sec", false, 0, RBLK_NS_QOS_MAX_MBYTES_PER_SEC,
			       &q.rw_mbytes_per_sec, &given[1], e) ||
	    rblk_rpc_param_u32(p, "r_mbytes_per_sec", false, 0, RBLK_NS_QOS_MAX_MBYTES_PER_SEC,
			       &q.r_mbytes_per_sec, &given[2], e) ||
	    rblk_rpc_param_u32(p, "w_mbytes_per_sec", false, 0, RBLK_NS_QOS_MAX_MBYTES_PER_SEC,
			       &q.w_mbytes_per_sec, &given[3], e))
		return e->code;
	if (!given[0] && !given[1] && !given[2] && !given[3])
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "give at least one of "
				     "rw_ios_per_sec, rw_mbytes_per_sec, r_mbytes_per_sec, "
				     "w_mbytes_per_sec (0 lifts a limit)");
	if (begin(l, nqn, &next, &ss, e))
		return e->code;
	ns = rblk_cfg_subsys_find_ns(ss, nsid);
	if (!ns || !ns->enable) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nsid: %.223s has no namespace %u",
				     nqn, nsid);
	}
	if (given[0])
		ns->qos.rw_ios_per_sec = q.rw_ios_per_sec;
	if (given[1])
		ns->qos.rw_mbytes_per_sec = q.rw_mbytes_per_sec;
	if (given[2])
		ns->qos.r_mbytes_per_sec = q.r_mbytes_per_sec;
	if (given[3])
		ns->qos.w_mbytes_per_sec = q.w_mbytes_per_sec;
	return commit(l, next, e);
}

/* ------------------------------------------------------------ hosts */

static int set_auth(struct rblk_config *next, struct json_object *p, const char *host,
		    const char *where, struct rblk_rpc_err *e)
{
	static const struct {
		const char *key;
		enum rblk_cfg_auth_field f;
	} fields[] = {
		{ "dhchap_key", RBLK_CFG_AUTH_KEY },
		{ "dhchap_ctrlr_key", RBLK_CFG_AUTH_CTRL_KEY },
		{ "dhchap_hash", RBLK_CFG_AUTH_HASH },
		{ "dhchap_dhgroup", RBLK_CFG_AUTH_DHGROUP },
	};
	const char *v[4] = { NULL };
	struct rblk_cfg_auth *a;
	bool any = false;

	for (size_t i = 0; i < 4; i++) {
		bool present = false;

		if (rblk_rpc_param_str(p, fields[i].key, false, &v[i], &present, e))
			return e->code;
		any |= present;
	}
	if (!any)
		return 0;
	if (!v[0])
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "dhchap_key: required with the "
				     "other dhchap_ parameters");
	/* The host's settings, replaced whole: every subsystem it reaches authenticates it. */
	if (rblk_config_set_auth(next, where, host, &a))
		return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < 4; i++)
		if (rblk_cfg_auth_set(a, fields[i].f, v[i]))
			return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
	return 0;
}

static int add_host(void *ctx, struct json_object *p, struct json_object **result,
		    struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "host", "dhchap_key", "dhchap_ctrlr_key",
		"dhchap_hash", "dhchap_dhgroup", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	const char *nqn, *host;
	char why[160];

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_subsystem_add_host", known, e) || get_nqn(p, &nqn, e) ||
	    rblk_rpc_param_str(p, "host", true, &host, NULL, e))
		return e->code;
	if (!rblk_cfg_nqn_valid(host, "host", why, sizeof(why)))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "host: \"%.223s\" is not a valid "
				     "NQN: it %s", host, why);
	if (begin(l, nqn, &next, &ss, e))
		return e->code;
	if (ss->allow_any_host) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "nqn: %.223s allows any host; turn "
				     "that off (nvmf_subsystem_allow_any_host) to list hosts", nqn);
	}
	if (find_str(ss->hosts, ss->nr_hosts, host) >= 0) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "host: %.223s is already allowed on "
				     "%.223s", host, nqn);
	}
	if (set_auth(next, p, host, "nvmf_subsystem_add_host.dhchap_key", e)) {
		rblk_config_free(next);
		return e->code;
	}
	if ((!rblk_cfg_strv_has(next->hosts, next->nr_hosts, host) &&
	     rblk_config_add_host(next, host)) || rblk_cfg_subsys_allow_host(ss, host))
		return fail_nomem(next, e);
	return commit(l, next, e);
}

static int remove_host(void *ctx, struct json_object *p, struct json_object **result,
		       struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "host", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	const char *nqn, *host;
	ssize_t k;

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_subsystem_remove_host", known, e) ||
	    get_nqn(p, &nqn, e) || rblk_rpc_param_str(p, "host", true, &host, NULL, e) ||
	    begin(l, nqn, &next, &ss, e))
		return e->code;
	k = find_str(ss->hosts, ss->nr_hosts, host);
	if (k < 0) {
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "host: %.223s is not allowed on "
				     "%.223s", host, nqn);
	}
	/* The target fails the host's controllers on this subsystem (a reload's DISALLOW_HOST). */
	rblk_cfg_subsys_del_host(ss, (size_t)k);
	return commit(l, next, e);
}

static int allow_any_host(void *ctx, struct json_object *p, struct json_object **result,
			  struct rblk_rpc_err *e)
{
	static const char *const known[] = { "nqn", "allow_any_host", "tgt_name", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_cfg_subsys *ss;
	struct rblk_config *next;
	const char *nqn;
	bool any;

	(void)result;
	if (rblk_rpc_param_only(p, "nvmf_subsystem_allow_any_host", known, e) ||
	    get_nqn(p, &nqn, e) || rblk_rpc_param_bool(p, "allow_any_host", true, &any, NULL, e) ||
	    begin(l, nqn, &next, &ss, e))
		return e->code;
	if (any && ss->nr_hosts) {
		size_t n = ss->nr_hosts;

		/* nvmet refuses the mix too: either the list or anyone. */
		rblk_config_free(next);
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "allow_any_host: %.223s lists %zu "
				     "allowed host%s; remove them first", nqn, n, n == 1 ? "" : "s");
	}
	ss->allow_any_host = any;
	return commit(l, next, e);
}

/*
 * rblk's own: a host's DH-HMAC-CHAP settings changed (or, with no
 * dhchap_key, removed) while it stays allowed. The target fails the host's
 * live controllers, which must authenticate again under the new settings.
 */
static int host_set_auth(void *ctx, struct json_object *p, struct json_object **result,
			 struct rblk_rpc_err *e)
{
	static const char *const known[] = { "host", "dhchap_key", "dhchap_ctrlr_key",
		"dhchap_hash", "dhchap_dhgroup", NULL };
	struct rblk_tgt_live *l = ctx;
	struct rblk_config *next;
	const char *host, *key = NULL;
	bool has_key = false;
	char why[160];

	(void)result;
	if (rblk_rpc_param_only(p, "rblk_host_set_auth", known, e) ||
	    rblk_rpc_param_str(p, "host", true, &host, NULL, e) ||
	    rblk_rpc_param_str(p, "dhchap_key", false, &key, &has_key, e))
		return e->code;
	if (!rblk_cfg_nqn_valid(host, "host", why, sizeof(why)))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "host: \"%.223s\" is not a valid "
				     "NQN: it %s", host, why);
	if (!has_key && !rblk_config_find_auth(l->running, host))
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "host: %.223s has no DH-HMAC-CHAP "
				     "settings to remove", host);
	if (begin(l, NULL, &next, NULL, e))
		return e->code;
	if (!has_key) {
		rblk_config_del_auth(next, host);
		return commit(l, next, e);
	}
	if (set_auth(next, p, host, "rblk_host_set_auth.dhchap_key", e)) {
		rblk_config_free(next);
		return e->code;
	}
	/* Saved as nvmetcli saves it: in the host's "hosts" entry. */
	if (!rblk_cfg_strv_has(next->hosts, next->nr_hosts, host) && rblk_config_add_host(next, host))
		return fail_nomem(next, e);
	return commit(l, next, e);
}

/* ------------------------------------------------------------ save */

static int save_config(void *ctx, struct json_object *p, struct json_object **result,
		       struct rblk_rpc_err *e)
{
	static const char *const known[] = { "path", NULL };
	struct rblk_tgt_live *l = ctx;
	const char *path = l->save_path;
	struct json_object *r;
	int ret;

	if (rblk_rpc_param_only(p, "rblk_save_config", known, e) ||
	    rblk_rpc_param_str(p, "path", false, &path, NULL, e))
		return e->code;
	if (!path || !*path)
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "path: required (rblk-target was "
				     "started without --save)");
	ret = rblk_config_save(l->running, path);
	if (ret)
		return rblk_rpc_fail_errno(e, ret, "%s: cannot save: %s", path, strerror(-ret));
	RBLK_NOTICE("rpc: saved the configuration to %s", path);
	if (!(r = json_object_new_object()))
		return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
	json_object_object_add(r, "path", json_object_new_string(path));
	*result = r;
	return 0;
}

const struct rblk_rpc_method rblk_rpc_nvmf_methods[] = {
	{ "nvmf_get_subsystems", rblk_rpc_get_subsystems },
	{ "nvmf_create_subsystem", create_subsystem },
	{ "nvmf_delete_subsystem", delete_subsystem },
	{ "nvmf_subsystem_add_listener", add_listener },
	{ "nvmf_subsystem_remove_listener", remove_listener },
	{ "nvmf_subsystem_listener_set_ana_state", set_ana_state },
	{ "nvmf_subsystem_add_ns", add_ns },
	{ "nvmf_subsystem_remove_ns", remove_ns },
	{ "nvmf_subsystem_add_host", add_host },
	{ "nvmf_subsystem_remove_host", remove_host },
	{ "nvmf_subsystem_allow_any_host", allow_any_host },
	{ "nvmf_subsystem_get_controllers", rblk_rpc_get_controllers },
	{ "nvmf_subsystem_get_qpairs", rblk_rpc_get_qpairs },
	{ "nvmf_get_stats", rblk_rpc_get_stats },
	{ "rblk_ns_get_stats", rblk_rpc_ns_get_stats },
	{ "rblk_host_set_auth", host_set_auth },
	{ "rblk_ns_set_qos_limit", set_qos_limit },
	{ "rblk_save_config", save_config },
};

const size_t rblk_rpc_nvmf_nr_methods =
	sizeof(rblk_rpc_nvmf_methods) / sizeof(rblk_rpc_nvmf_methods[0]);
