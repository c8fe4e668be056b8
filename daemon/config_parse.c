/* SPDX-License-Identifier: MIT */
/*
 * nvmetcli JSON -> the configuration model (config.h).
 *
 * nvmetcli writes configfs attributes as strings ("allow_any_host": "1"),
 * hand-written files use numbers and booleans; both are accepted. Every
 * message names the key path, the value as written and why it is refused.
 * An invalid entry is dropped (and the load fails in strict mode); keys rblk
 * does not implement are warned about, unless they hold the kernel's
 * default, so a file from `nvmetcli save` loads without noise. Our own
 * extensions live under "x-rblk" keys, which nvmetcli ignores.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/fdio.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/uuid.h"
#include "daemon/config.h"
#include "daemon/config_json.h"
#include "daemon/metrics.h"

#define CONFIG_MAX_BYTES (16u << 20)

#define perr(c, skipped, ...) rblk_cfg_error((c)->mode, &(c)->errors, (skipped), __VA_ARGS__)

/* ------------------------------------------------------------ sections */

static const char *const backends[] = { "uring", "aio", NULL };

static bool get_backend(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
			const char *skipped, char **out)
{
	const char *s;

	if (!rblk_cj_get_str(c, path, v, skipped, &s))
		return false;
	if (!rblk_cj_key_is(s, backends)) {
		perr(c, skipped, "%s: %s is not a backend (\"uring\" or \"aio\")", path, rblk_cj_jstr(v));
		return false;
	}
	free(*out);
	*out = strdup(s);
	return *out != NULL;
}

/*
 * hosts[i].dhchap: the kernel's configfs host attributes. nvmetcli writes
 * every one, "" when unset, so "" means "not set" here too; an object
 * without a key sets nothing. Values are checked by rblk_config_validate().
 */
static int parse_dhchap(struct rblk_cj_ctx *c, const char *path, struct json_object *o,
			const char *nqn, struct rblk_config *cfg)
{
	static const struct {
		const char *name;
		enum rblk_cfg_auth_field f;
	} fields[] = {
		{ "key", RBLK_CFG_AUTH_KEY },
		{ "ctrl_key", RBLK_CFG_AUTH_CTRL_KEY },
		{ "hash", RBLK_CFG_AUTH_HASH },
		{ "dhgroup", RBLK_CFG_AUTH_DHGROUP },
	};
	const char *vals[4] = { NULL };
	struct rblk_cfg_auth *a;
	bool bad = false;
	char p[128];

	if (!rblk_cj_get_obj(c, path, o, "host"))
		return 0;
	json_object_object_foreach(o, key, v) {
		size_t i;

		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		for (i = 0; i < 4 && strcmp(key, fields[i].name); i++)
			;
		if (i == 4) {
			rblk_cj_other_key(path, key, v, NULL);
			continue;
		}
		/* A secret is never echoed: the message says only what is wrong. */
		if (!json_object_is_type(v, json_type_string)) {
			perr(c, "host", "%s: not a string", p);
			bad = true;
			continue;
		}
		if (*json_object_get_string(v))
			vals[i] = json_object_get_string(v);
	}
	/*
	 * Unauthenticated, as in the kernel, when no key is set. A value of the
	 * wrong type keeps the entry (without that value) so that validation
	 * refuses it: dropping it would let the host in unauthenticated.
	 */
	if (!vals[0] && !vals[1] && !bad)
		return 0;
	if (rblk_config_set_auth(cfg, path, nqn, &a))
		return -ENOMEM;
	for (size_t i = 0; i < 4; i++)
		if (rblk_cfg_auth_set(a, fields[i].f, vals[i]))
			return -ENOMEM;
	return 0;
}

static int parse_hosts(struct rblk_cj_ctx *c, struct json_object *arr, struct rblk_config *cfg)
{

	if (!rblk_cj_get_arr(c, "hosts", arr, "hosts section"))
		return 0;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *h = json_object_array_get_idx(arr, i), *v;
		char path[64], p2[80], why[160];
		const char *nqn;

		rblk_cj_path(path, sizeof(path), "hosts[%zu]", i);
		rblk_cj_path(p2, sizeof(p2), "%s.nqn", path);
		if (!rblk_cj_get_obj(c, path, h, "host"))
			continue;
		if (!json_object_object_get_ex(h, "nqn", &v)) {
			perr(c, "host", "%s: missing", p2);
			continue;
		}
		if (!rblk_cj_get_str(c, p2, v, "host", &nqn))
			continue;
		if (!rblk_cfg_nqn_valid(nqn, p2, why, sizeof(why))) {
			perr(c, "host", "%s: \"%s\" is not a valid NQN: it %s", p2, nqn, why);
			continue;
		}
		json_object_object_foreach(h, key, val) {
			if (strcmp(key, "nqn") == 0)
				continue;
			if (strcmp(key, "dhchap") == 0) {
				rblk_cj_path(p2, sizeof(p2), "%s.dhchap", path);
				if (parse_dhchap(c, p2, val, nqn, cfg))
					return -ENOMEM;
				continue;
			}
			rblk_cj_other_key(path, key, val, NULL);
		}
		if (rblk_config_add_host(cfg, nqn))
			return -ENOMEM;
	}
	return 0;
}

/* x-rblk.qos: SPDK's limit names, each 0 (none) up to the target's maximum. */
static bool parse_ns_qos(struct rblk_cj_ctx *c, const char *path, struct json_object *x,
			 struct rblk_cfg_ns *ns)
{
	struct {
		const char *key;
		uint32_t *out;
		uint32_t max;
	} keys[] = {
		{ "rw_ios_per_sec", &ns->qos.rw_ios_per_sec, RBLK_NS_QOS_MAX_IOS_PER_SEC },
		{ "rw_mbytes_per_sec", &ns->qos.rw_mbytes_per_sec, RBLK_NS_QOS_MAX_MBYTES_PER_SEC },
		{ "r_mbytes_per_sec", &ns->qos.r_mbytes_per_sec, RBLK_NS_QOS_MAX_MBYTES_PER_SEC },
		{ "w_mbytes_per_sec", &ns->qos.w_mbytes_per_sec, RBLK_NS_QOS_MAX_MBYTES_PER_SEC },
	};
	char p[300], what[64];
	bool ok = true;

	if (!rblk_cj_get_obj(c, path, x, "namespace"))
		return false;
	json_object_object_foreach(x, key, v) {
		size_t i;

		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(key, keys[i].key) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0])) {
			perr(c, "namespace", "%s: unknown QoS limit (rw_ios_per_sec, "
			     "rw_mbytes_per_sec, r_mbytes_per_sec, w_mbytes_per_sec)", p);
			ok = false;
			continue;
		}
		snprintf(what, sizeof(what), "a limit (0: none, up to %u)", keys[i].max);
		ok &= rblk_cj_get_u32(c, p, v, 0, keys[i].max, what, "namespace", keys[i].out);
	}
	return ok;
}

static bool parse_ns_xrblk(struct rblk_cj_ctx *c, const char *path, struct json_object *x,
			   struct rblk_cfg_ns *ns)
{
	char p[256];
	bool ok = true;

	if (!rblk_cj_get_obj(c, path, x, "namespace"))
		return false;
	json_object_object_foreach(x, key, v) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "read_only") == 0) {
			ok &= rblk_cj_get_bool(c, p, v, "namespace", &ns->read_only);
		} else if (strcmp(key, "rbd_cache") == 0) {
			ok &= rblk_cj_get_bool(c, p, v, "namespace", &ns->rbd_cache);
		} else if (strcmp(key, "qos") == 0) {
			ok &= parse_ns_qos(c, p, v, ns);
		} else if (strcmp(key, "backend") == 0) {
			ok &= get_backend(c, p, v, "namespace", &ns->backend);
		} else if (strcmp(key, "block_size") == 0) {
			uint32_t bs;

			/* The target's rule (target/ns.c): the Linux host takes LBADS 9..12 only. */
			if (!rblk_cj_get_u32(c, p, v, 512, 4096, "a block size (512..4096, a power of 2)",
				     "namespace", &bs))
				ok = false;
			else if (bs & (bs - 1)) {
				perr(c, "namespace", "%s: %u is not a block size (512..4096, a power of 2)",
				     p, bs);
				ok = false;
			} else
				ns->block_size = bs;
		} else if (strcmp(key, "eui64") == 0) {
			const char *s;
			uint8_t u[16];
			char hex[40];

			if (!rblk_cj_get_str(c, p, v, "namespace", &s)) {
				ok = false;
				continue;
			}
			/* 16 hex digits: reuse the UUID parser on a zero-padded 32-digit form. */
			snprintf(hex, sizeof(hex), "%s0000000000000000", s);
			if (strlen(s) != 16 || rblk_uuid_parse(hex, u)) {
				perr(c, "namespace", "%s: %s is not an EUI-64 (16 hex digits)", p, rblk_cj_jstr(v));
				ok = false;
				continue;
			}
			memcpy(ns->eui64, u, 8);
			ns->has_eui64 = true;
		} else {
			RBLK_WARN("%s: unknown key, ignored", p);
		}
	}
	return ok;
}

static bool parse_ns(struct rblk_cj_ctx *c, const char *path, struct json_object *n,
		     struct rblk_cfg_ns *ns)
{
	static const struct rblk_cj_known ns_keys[] = {
		{ "resv", NULL, "reservations are not supported" },
		{ NULL, NULL, NULL },
	};
	struct json_object *v;
	char p[256];
	bool ok = true;

	if (!json_object_object_get_ex(n, "nsid", &v)) {
		perr(c, "namespace", "%s.nsid: missing", path);
		return false;
	}
	rblk_cj_path(p, sizeof(p), "%s.nsid", path);
	if (!rblk_cj_get_u32(c, p, v, 1, RBLK_CFG_NSID_MAX,
		     "a valid namespace id (1..4294967294)", "namespace", &ns->nsid))
		return false;
	json_object_object_foreach(n, key, val) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "nsid") == 0)
			continue;
		if (strcmp(key, "enable") == 0) {
			ok &= rblk_cj_get_bool(c, p, val, "namespace", &ns->enable);
		} else if (strcmp(key, "device") == 0) {
			if (!rblk_cj_get_obj(c, p, val, "namespace")) {
				ok = false;
				continue;
			}
			json_object_object_foreach(val, dk, dv) {
				char dp[300];
				const char *s;

				rblk_cj_path(dp, sizeof(dp), "%s.%s", p, dk);
				if (strcmp(dk, "path") == 0) {
					if (!rblk_cj_get_str(c, dp, dv, "namespace", &s)) {
						ok = false;
					} else if (s[0] && !(ns->path = strdup(s))) {
						return false;
					}
				} else if (strcmp(dk, "uuid") == 0) {
					ok &= rblk_cj_get_uuid(c, dp, dv, "namespace", &ns->has_uuid, ns->uuid);
				} else if (strcmp(dk, "nguid") == 0) {
					ok &= rblk_cj_get_uuid(c, dp, dv, "namespace", &ns->has_nguid, ns->nguid);
				} else {
					rblk_cj_other_key(p, dk, dv, NULL);
				}
			}
		} else if (strcmp(key, "x-rblk") == 0) {
			ok &= parse_ns_xrblk(c, p, val, ns);
		} else if (rblk_cfg_mpath_parse_ns_key(c, p, n, key, val, ns, &ok)) {
			continue; /* config_mpath.c */
		} else {
			rblk_cj_other_key(path, key, val, ns_keys);
		}
	}
	return ok;
}

static bool check_text(struct rblk_cj_ctx *c, const char *path, const char *s, size_t max,
		       const char *what)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] > 0x7e) {
			perr(c, "attribute", "%s: \"%s\" is not a valid %s (printable ASCII only)",
			     path, s, what);
			return false;
		}
	}
	if (n == 0 || n > max) {
		perr(c, "attribute", "%s: \"%s\" is not a valid %s (1..%zu characters)", path, s,
		     what, max);
		return false;
	}
	return true;
}

static int parse_attr(struct rblk_cj_ctx *c, const char *path, struct json_object *a,
		      struct rblk_cfg_subsys *ss)
{
	/* Kernel nvmet defaults (configfs-nvmet ABI); "firmware" is the kernel release. */
	static const struct rblk_cj_known attr_keys[] = {
		{ "version", NULL, "rblk reports NVMe 1.3" },
		{ "qid_max", "128", "the queue limit is x-rblk.max_io_qpairs_per_ctrlr" },
		{ "ieee_oui", "0x000000", "IEEE OUI is not configurable" },
		{ "firmware", NULL, "rblk reports its own version" },
		{ "pi_enable", "0", "protection information is not supported" },
		{ NULL, NULL, NULL },
	};
	char p[256];
	const char *s;

	if (!rblk_cj_get_obj(c, path, a, "attributes"))
		return 0;
	json_object_object_foreach(a, key, v) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "allow_any_host") == 0) {
			rblk_cj_get_bool(c, p, v, "attribute", &ss->allow_any_host);
		} else if (strcmp(key, "serial") == 0 || strcmp(key, "model") == 0) {
			bool serial = key[0] == 's';
			char **dst = serial ? &ss->serial : &ss->model;

			if (!rblk_cj_get_str(c, p, v, "attribute", &s) ||
			    !check_text(c, p, s, serial ? 20 : 40, serial ? "serial number" : "model"))
				continue;
			free(*dst);
			if (!(*dst = strdup(s)))
				return -ENOMEM;
		} else if (!rblk_cfg_mpath_parse_attr(c, p, key, v, ss)) {
			rblk_cj_other_key(path, key, v, attr_keys);
		}
	}
	rblk_cfg_mpath_check_attr(c, path, ss);
	return 0;
}

static int parse_namespaces(struct rblk_cj_ctx *c, const char *path, struct json_object *arr,
			    struct rblk_cfg_subsys *ss)
{
	if (!rblk_cj_get_arr(c, path, arr, "namespaces"))
		return 0;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *n = json_object_array_get_idx(arr, i);
		struct rblk_cfg_ns *ns;
		char p[160];
		int ret;

		rblk_cj_path(p, sizeof(p), "%s[%zu]", path, i);
		if (!rblk_cj_get_obj(c, p, n, "namespace"))
			continue;
		ret = rblk_cfg_subsys_add_ns(ss, p, &ns);
		if (ret)
			return ret;
		ns->enable = true; /* nvmetcli: a namespace without "enable" stays as created */
		if (!parse_ns(c, p, n, ns))
			rblk_cfg_subsys_del_ns(ss, ss->nr_ns - 1);
	}
	return 0;
}

static int parse_subsys(struct rblk_cj_ctx *c, size_t idx, struct json_object *s,
			struct rblk_config *cfg)
{
	struct rblk_cfg_subsys *ss;
	struct json_object *v;
	const char *nqn;
	char path[64], p[128];
	int ret;

	rblk_cj_path(path, sizeof(path), "subsystems[%zu]", idx);
	if (!rblk_cj_get_obj(c, path, s, "subsystem"))
		return 0;
	rblk_cj_path(p, sizeof(p), "%s.nqn", path);
	if (!json_object_object_get_ex(s, "nqn", &v)) {
		perr(c, "subsystem", "%s: missing", p);
		return 0;
	}
	if (!rblk_cj_get_str(c, p, v, "subsystem", &nqn))
		return 0;
	ret = rblk_config_add_subsys(cfg, path, nqn, &ss);
	if (ret)
		return ret;
	json_object_object_foreach(s, key, val) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "nqn") == 0) {
			continue;
		} else if (strcmp(key, "attr") == 0) {
			ret = parse_attr(c, p, val, ss);
		} else if (strcmp(key, "namespaces") == 0) {
			ret = parse_namespaces(c, p, val, ss);
		} else if (strcmp(key, "allowed_hosts") == 0) {
			if (!rblk_cj_get_arr(c, p, val, "allowed_hosts"))
				continue;
			for (size_t i = 0; i < json_object_array_length(val) && !ret; i++) {
				struct json_object *h = json_object_array_get_idx(val, i);
				char hp[160];
				const char *hn;

				rblk_cj_path(hp, sizeof(hp), "%s[%zu]", p, i);
				if (rblk_cj_get_str(c, hp, h, "allowed host", &hn))
					ret = rblk_cfg_subsys_allow_host(ss, hn);
			}
		} else if (strcmp(key, "x-rblk") == 0) {
			if (!rblk_cj_get_obj(c, p, val, "x-rblk"))
				continue;
			json_object_object_foreach(val, xk, xv) {
				char xp[200];

				rblk_cj_path(xp, sizeof(xp), "%s.%s", p, xk);
				if (strcmp(xk, "max_namespaces") == 0)
					rblk_cj_get_u32(c, xp, xv, 1, RBLK_CFG_NSID_MAX, "a namespace count",
						"x-rblk option", &ss->max_namespaces);
				else
					RBLK_WARN("%s: unknown key, ignored", xp);
			}
		} else if (strcmp(key, "passthru") == 0) {
			if (!rblk_cj_value_is(val, "[]"))
				RBLK_WARN("%s: ignored: NVMe passthru subsystems are not supported", p);
		} else {
			rblk_cj_other_key(path, key, val, NULL);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static bool parse_addr(struct rblk_cj_ctx *c, const char *path, struct json_object *a,
		       struct rblk_cfg_port *port)
{
	static const struct rblk_cj_known addr_keys[] = {
		{ "tsas", NULL, "transport-specific address subtype" },
		{ NULL, NULL, NULL },
	};
	static const char *const treqs[] = { "not specified", "required", "not required", NULL };
	struct json_object *v;
	const char *trtype = NULL, *adrfam = "", *traddr = NULL, *s;
	char p[256];
	uint8_t bin[16];

	if (!rblk_cj_get_obj(c, path, a, "port"))
		return false;
	rblk_cj_path(p, sizeof(p), "%s.trtype", path);
	if (!json_object_object_get_ex(a, "trtype", &v)) {
		perr(c, "port", "%s: missing (rblk-target serves \"rdma\")", p);
		return false;
	}
	if (!rblk_cj_get_str(c, p, v, "port", &trtype))
		return false;
	if (strcmp(trtype, "rdma") != 0) {
		perr(c, "port", "%s: \"%s\" is not served by rblk-target (only \"rdma\" is)", p,
		     trtype);
		return false;
	}
	json_object_object_foreach(a, key, val) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "trtype") == 0) {
			continue;
		} else if (strcmp(key, "adrfam") == 0) {
			if (!rblk_cj_get_str(c, p, val, "port", &adrfam))
				return false;
			if (adrfam[0] && strcmp(adrfam, "ipv4") && strcmp(adrfam, "ipv6")) {
				perr(c, "port", "%s: \"%s\" is not served by rblk-target (\"ipv4\" or \"ipv6\")",
				     p, adrfam);
				return false;
			}
		} else if (strcmp(key, "traddr") == 0) {
			if (!rblk_cj_get_str(c, p, val, "port", &traddr))
				return false;
		} else if (strcmp(key, "trsvcid") == 0) {
			uint32_t port_no;
			uint16_t svc;
			char why[96];

			/* nvmetcli writes it as a string: the port rule of every rblk program. */
			if (json_object_get_type(val) == json_type_string) {
				if (rblk_port_parse(json_object_get_string(val), &svc, why, sizeof(why))) {
					perr(c, "port", "%s: %s %s", p, rblk_cj_jstr(val), why);
					return false;
				}
				port_no = svc;
			} else if (!rblk_cj_get_u32(c, p, val, 1, 65535, RBLK_PORT_RULE, "port", &port_no)) {
				return false;
			}
			port->trsvcid = port_no;
		} else if (strcmp(key, "treq") == 0) {
			if (!rblk_cj_get_str(c, p, val, "port", &s))
				return false;
			for (port->treq = 0; treqs[port->treq] && strcmp(treqs[port->treq], s);)
				port->treq++;
			if (!treqs[port->treq]) {
				perr(c, "port", "%s: \"%s\" is not a treq value (\"not specified\", "
				     "\"required\" or \"not required\")", p, s);
				return false;
			}
		} else {
			rblk_cj_other_key(path, key, val, addr_keys);
		}
	}
	rblk_cj_path(p, sizeof(p), "%s.traddr", path);
	if (!traddr || !traddr[0]) {
		perr(c, "port", "%s: missing (an IPv4 or IPv6 address; 0.0.0.0 or :: for all)", p);
		return false;
	}
	if (!adrfam[0])
		adrfam = strchr(traddr, ':') ? "ipv6" : "ipv4";
	port->ipv6 = strcmp(adrfam, "ipv6") == 0;
	if (inet_pton(port->ipv6 ? AF_INET6 : AF_INET, traddr, bin) != 1) {
		perr(c, "port", "%s: \"%s\" is not an %s address", p, traddr,
		     port->ipv6 ? "IPv6" : "IPv4");
		return false;
	}
	port->traddr = strdup(traddr);
	return port->traddr != NULL;
}

static bool parse_param(struct rblk_cj_ctx *c, const char *path, struct json_object *a,
			struct rblk_cfg_port *port)
{
	static const struct rblk_cj_known param_keys[] = {
		{ "pi_enable", "0", "protection information is not supported" },
		{ "max_queue_size", "-1", "the queue depth is x-rblk.max_queue_depth" },
		{ NULL, NULL, NULL },
	};
	char p[256];

	if (!rblk_cj_get_obj(c, path, a, "port"))
		return false;
	json_object_object_foreach(a, key, v) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "inline_data_size") == 0) {
			uint32_t n;

			if (rblk_cj_value_is(v, "-1")) /* the kernel's "use the default" */
				continue;
			if (!rblk_cj_get_u32(c, p, v, 0, 1u << 20, "an in-capsule data size (-1, 0..1048576)",
				     "port", &n))
				return false;
			port->inline_data_size = n;
		} else {
			rblk_cj_other_key(path, key, v, param_keys);
		}
	}
	return true;
}

static bool parse_port(struct rblk_cj_ctx *c, const char *path, struct json_object *o,
		       struct rblk_cfg_port *port)
{
	static const struct rblk_cj_known port_keys[] = {
		{ "referrals", "[]", "rblk's discovery log has no referrals" },
		{ NULL, NULL, NULL },
	};
	struct json_object *v;
	char p[256];
	uint32_t portid;

	rblk_cj_path(p, sizeof(p), "%s.portid", path);
	if (!json_object_object_get_ex(o, "portid", &v)) {
		perr(c, "port", "%s: missing", p);
		return false;
	}
	if (!rblk_cj_get_u32(c, p, v, 1, 65535, "a port id (1..65535)", "port", &portid))
		return false;
	port->portid = portid;
	rblk_cj_path(p, sizeof(p), "%s.addr", path);
	if (!json_object_object_get_ex(o, "addr", &v)) {
		perr(c, "port", "%s: missing", p);
		return false;
	}
	if (!parse_addr(c, p, v, port))
		return false;
	json_object_object_foreach(o, key, val) {
		rblk_cj_path(p, sizeof(p), "%s.%s", path, key);
		if (strcmp(key, "portid") == 0 || strcmp(key, "addr") == 0) {
			continue;
		} else if (strcmp(key, "param") == 0) {
			if (!parse_param(c, p, val, port))
				return false;
		} else if (strcmp(key, "subsystems") == 0) {
			if (!rblk_cj_get_arr(c, p, val, "port"))
				return false;
			for (size_t i = 0; i < json_object_array_length(val); i++) {
				struct json_object *s = json_object_array_get_idx(val, i);
				char sp[300];
				const char *nqn;

				rblk_cj_path(sp, sizeof(sp), "%s[%zu]", p, i);
				if (!rblk_cj_get_str(c, sp, s, "port link", &nqn))
					continue;
				if (rblk_cfg_port_link(port, nqn))
					return false;
			}
		} else if (strcmp(key, "ana_groups") == 0) {
			if (!rblk_cfg_mpath_parse_port_ana(c, p, val, port))
				return false;
		} else {
			rblk_cj_other_key(path, key, val, port_keys);
		}
	}
	return true;
}

static int parse_ports(struct rblk_cj_ctx *c, struct json_object *arr, struct rblk_config *cfg)
{
	if (!rblk_cj_get_arr(c, "ports", arr, "ports section"))
		return 0;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct rblk_cfg_port *port;
		char path[64];
		int ret;

		rblk_cj_path(path, sizeof(path), "ports[%zu]", i);
		if (!rblk_cj_get_obj(c, path, o, "port"))
			continue;
		ret = rblk_config_add_port(cfg, path, &port);
		if (ret)
			return ret;
		if (!parse_port(c, path, o, port))
			rblk_config_del_port(cfg, cfg->nr_ports - 1);
	}
	return 0;
}

/* Top-level "x-rblk": target-wide options (SPDK's transport option names). */
static int parse_tgt(struct rblk_cj_ctx *c, struct json_object *x, struct rblk_cfg_tgt *t)
{
	static const struct {
		const char *key;
		size_t off;
		uint32_t min, max;
	} nums[] = {
		/*
		 * The plain ranges of the target's rules (rblk/target.h); the
		 * relations between options are checked before start.
		 */
		{ "poll_groups", offsetof(struct rblk_cfg_tgt, num_poll_groups), 1,
		  RBLK_TARGET_POLL_GROUPS_MAX },
		{ "max_queue_depth", offsetof(struct rblk_cfg_tgt, max_queue_depth), 2,
		  RBLK_TARGET_QUEUE_DEPTH_MAX },
		{ "max_aq_depth", offsetof(struct rblk_cfg_tgt, max_admin_queue_depth), 2, 32 },
		{ "max_io_qpairs_per_ctrlr", offsetof(struct rblk_cfg_tgt, max_io_queues), 1, 65534 },
		{ "max_io_size", offsetof(struct rblk_cfg_tgt, max_io_size), 8192, RBLK_TARGET_IO_SIZE_MAX },
		{ "io_unit_size", offsetof(struct rblk_cfg_tgt, io_unit_size), 4096, RBLK_TARGET_IO_SIZE_MAX },
		{ "num_shared_buffers", offsetof(struct rblk_cfg_tgt, num_shared_buffers), 1,
		  RBLK_TARGET_SHARED_BUFFERS_MAX },
		/* Admission control: rblk's own names, as struct rblk_target_opts. */
		{ "connect_timeout_ms", offsetof(struct rblk_cfg_tgt, connect_timeout_ms),
		  RBLK_TARGET_CONNECT_TIMEOUT_MS_MIN, RBLK_TARGET_CONNECT_TIMEOUT_MS_MAX },
		{ "max_pending_queues", offsetof(struct rblk_cfg_tgt, max_pending_queues), 1,
		  RBLK_TARGET_PENDING_MAX },
		{ "max_pending_per_addr", offsetof(struct rblk_cfg_tgt, max_pending_per_addr), 1,
		  RBLK_TARGET_PENDING_MAX },
		{ "max_ctrls_per_host", offsetof(struct rblk_cfg_tgt, max_ctrls_per_host), 1,
		  RBLK_TARGET_CTRLS_PER_HOST_MAX },
		{ "max_queues", offsetof(struct rblk_cfg_tgt, max_queues), 2,
		  RBLK_TARGET_QUEUES_MAX },
	};
	char p[128], what[96];

	if (!rblk_cj_get_obj(c, "x-rblk", x, "x-rblk section"))
		return 0;
	json_object_object_foreach(x, key, v) {
		bool done = false;
		const char *s;

		rblk_cj_path(p, sizeof(p), "x-rblk.%s", key);
		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
			if (strcmp(key, nums[i].key))
				continue;
			snprintf(what, sizeof(what), "a valid %s (%u..%u)", key, nums[i].min,
				 nums[i].max);
			rblk_cj_get_u32(c, p, v, nums[i].min, nums[i].max, what, "x-rblk option",
				(uint32_t *)((char *)t + nums[i].off));
			done = true;
		}
		if (done)
			continue;
		if (strcmp(key, "in_capsule_data_size") == 0) {
			t->has_in_capsule_data_size =
				rblk_cj_get_u32(c, p, v, 0, 1u << 20, "a valid in_capsule_data_size (0..1048576)",
					"x-rblk option", &t->in_capsule_data_size);
		} else if (strcmp(key, "srq_depth") == 0) {
			/* 0 (none) or the target's range: checked with the other options. */
			t->has_srq_depth = rblk_cj_get_u32(c, p, v, 0, RBLK_TARGET_SRQ_DEPTH_MAX,
							   "a valid srq_depth (0, 16..65536)",
							   "x-rblk option", &t->srq_depth);
		} else if (strcmp(key, "poll_mode") == 0) {
			if (!rblk_cj_get_str(c, p, v, "x-rblk option", &s))
				continue;
			if (rblk_cfg_poll_mode_parse(s, &t->poll_mode))
				perr(c, "x-rblk option",
				     "%s: %s is not a poll mode (\"adaptive\", \"busy\" or \"event\")", p,
				     rblk_cj_jstr(v));
			else
				t->has_poll_mode = true;
		} else if (strcmp(key, "metrics") == 0) {
			if (!rblk_cj_get_str(c, p, v, "x-rblk option", &s))
				continue;
			if (rblk_metrics_addr_parse(s, NULL)) {
				perr(c, "x-rblk option", "%s: %s is not ADDR:PORT (an IPv4 address or "
				     "[IPv6] address, and a port)", p, rblk_cj_jstr(v));
				continue;
			}
			free(t->metrics);
			if (!(t->metrics = strdup(s)))
				return -ENOMEM;
		} else if (strcmp(key, "backend") == 0) {
			get_backend(c, p, v, "x-rblk option", &t->backend);
		} else if (strcmp(key, "state_dir") == 0) {
			if (!rblk_cj_get_str(c, p, v, "x-rblk option", &s))
				continue;
			free(t->state_dir);
			if (!(t->state_dir = strdup(s)))
				return -ENOMEM;
		} else if (strcmp(key, "rbd_conf") == 0 || strcmp(key, "rbd_id") == 0 ||
			   strcmp(key, "rbd_keyring") == 0 || strcmp(key, "rpc_socket") == 0) {
			char **dst = key[1] == 'p' ? &t->rpc_socket
				     : key[4] == 'c' ? &t->rbd_conf
				     : key[4] == 'i' ? &t->rbd_id : &t->rbd_keyring;

			if (!rblk_cj_get_str(c, p, v, "x-rblk option", &s))
				continue;
			if (!*s) {
				perr(c, "x-rblk option", "%s: empty", p);
				continue;
			}
			free(*dst);
			if (!(*dst = strdup(s)))
				return -ENOMEM;
		} else {
			RBLK_WARN("%s: unknown key, ignored", p);
		}
	}
	return 0;
}

int rblk_config_parse(const char *json, const char *source, enum rblk_cfg_mode mode,
		      struct rblk_config **out, unsigned *nerrors)
{
	struct rblk_cj_ctx c = { .mode = mode };
	struct rblk_config *cfg = NULL;
	struct json_object *root, *v;
	unsigned verrors = 0;
	int ret;

	if (nerrors)
		*nerrors = 0;
	root = rblk_cj_parse_text(json, source);
	if (!root) {
		if (nerrors)
			*nerrors = 1;
		return -EBADMSG;
	}
	if (!json_object_is_type(root, json_type_object)) {
		RBLK_ERR("%s: the top level is not a JSON object", source);
		c.errors++;
		ret = -EBADMSG;
		goto out;
	}
	ret = rblk_config_new(&cfg);
	if (ret)
		goto out;
	/* nvmetcli's restore order: hosts, subsystems, ports. */
	if (json_object_object_get_ex(root, "hosts", &v) && (ret = parse_hosts(&c, v, cfg)))
		goto out;
	if (json_object_object_get_ex(root, "subsystems", &v) && rblk_cj_get_arr(&c, "subsystems", v, "subsystems section")) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if ((ret = parse_subsys(&c, i, json_object_array_get_idx(v, i), cfg)))
				goto out;
	}
	if (json_object_object_get_ex(root, "ports", &v) && (ret = parse_ports(&c, v, cfg)))
		goto out;
	if (json_object_object_get_ex(root, "x-rblk", &v) && (ret = parse_tgt(&c, v, &cfg->tgt)))
		goto out;
	json_object_object_foreach(root, key, val) {
		static const char *const top[] = { "hosts", "subsystems", "ports", "x-rblk", NULL };

		if (!rblk_cj_key_is(key, top))
			RBLK_WARN("%s: unknown key, ignored", key);
		(void)val;
	}
	/* Cross-checks run even after errors so one pass reports everything. */
	ret = rblk_config_validate(cfg, mode, &verrors);
	c.errors += verrors;
	if (ret == 0 && c.errors && mode == RBLK_CFG_STRICT)
		ret = -EINVAL;
out:
	json_object_put(root);
	if (nerrors)
		*nerrors = c.errors;
	if (ret) {
		rblk_config_free(cfg);
		return ret;
	}
	*out = cfg;
	return 0;
}

int rblk_config_load(const char *path, enum rblk_cfg_mode mode, struct rblk_config **out,
		     unsigned *nerrors)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, ret;

	if (nerrors)
		*nerrors = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		RBLK_ERR("%s: cannot open: %s", path, strerror(-ret));
		goto fail;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX_BYTES) {
		ret = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		RBLK_ERR("%s: not a regular file of at most %u bytes", path, CONFIG_MAX_BYTES);
		goto fail_close;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto fail_close;
	}
	n = rblk_read_all(fd, buf, st.st_size);
	if (n != st.st_size) {
		ret = n < 0 ? (int)n : -EIO;
		RBLK_ERR("%s: cannot read: %s", path, strerror(-ret));
		goto fail_free;
	}
	got = (size_t)n;
	buf[got] = '\0';
	if (strlen(buf) != got) {
		RBLK_ERR("%s: contains a NUL byte; not a JSON text file", path);
		ret = -EINVAL;
		goto fail_free;
	}
	close(fd);
	ret = rblk_config_parse(buf, path, mode, out, nerrors);
	free(buf);
	return ret;

fail_free:
	free(buf);
fail_close:
	close(fd);
fail:
	if (nerrors)
		*nerrors = 1;
	return ret;
}
