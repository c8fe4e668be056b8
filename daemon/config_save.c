/* SPDX-License-Identifier: MIT */
/*
 * The configuration model -> nvmetcli JSON, written the way `nvmetcli save`
 * writes it: keys sorted, configfs attributes as strings, integers for
 * nsid/enable/portid, two-space indent, and the file replaced atomically
 * (temporary file with mode 0600, fsync, rename, fsync of the directory),
 * so `nvmetcli restore` can read what rblk saves and a crash never leaves a
 * half-written config. Generated namespace UUID/NGUIDs are written out so
 * the identifiers stay the same after the file is edited and reloaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/fdio.h"
#include "common/log.h"
#include "common/uuid.h"
#include "daemon/config.h"

static const char *const treq_names[] = { "not specified", "required", "not required" };

/* json-c takes ownership of @val; on failure it is freed and -ENOMEM returned. */
static int put(struct json_object *obj, const char *key, struct json_object *val)
{
	if (!val || json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int put_str(struct json_object *obj, const char *key, const char *s)
{
	return put(obj, key, json_object_new_string(s));
}

static int put_u32_str(struct json_object *obj, const char *key, uint32_t v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", v);
	return put_str(obj, key, buf);
}

static int append(struct json_object *arr, struct json_object *val)
{
	if (!val || json_object_array_add(arr, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *strv_json(char *const *v, size_t n)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < n; i++) {
		if (append(arr, json_object_new_string(v[i]))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/* x-rblk.qos: every limit, sorted, 0 for none. */
static struct json_object *qos_json(const struct rblk_cfg_qos *q)
{
	struct json_object *o = json_object_new_object();

	if (!o || put(o, "r_mbytes_per_sec", json_object_new_int64(q->r_mbytes_per_sec)) ||
	    put(o, "rw_ios_per_sec", json_object_new_int64(q->rw_ios_per_sec)) ||
	    put(o, "rw_mbytes_per_sec", json_object_new_int64(q->rw_mbytes_per_sec)) ||
	    put(o, "w_mbytes_per_sec", json_object_new_int64(q->w_mbytes_per_sec))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *ns_json(const struct rblk_cfg_ns *ns)
{
	struct json_object *o = json_object_new_object(), *dev = json_object_new_object();
	struct json_object *x = json_object_new_object();
	char id[37];
	int ret;

	if (!o || !dev || !x || rblk_cfg_mpath_save_ns(o, ns))
		goto fail;
	rblk_uuid_format(ns->nguid, id);
	if (put_str(dev, "nguid", ns->has_nguid ? id : "00000000-0000-0000-0000-000000000000") ||
	    put_str(dev, "path", ns->path ? ns->path : ""))
		goto fail;
	rblk_uuid_format(ns->uuid, id);
	if (ns->has_uuid && put_str(dev, "uuid", id))
		goto fail;
	ret = put(o, "device", dev);
	dev = NULL;
	if (ret || put(o, "enable", json_object_new_int(ns->enable)) ||
	    put(o, "nsid", json_object_new_int64(ns->nsid)))
		goto fail;
	/* rblk's own keys, sorted too; nvmetcli ignores groups it does not know. */
	if (ns->backend && put_str(x, "backend", ns->backend))
		goto fail;
	if (ns->block_size && put(x, "block_size", json_object_new_int64(ns->block_size)))
		goto fail;
	if (ns->has_eui64) {
		char hex[17];

		for (int i = 0; i < 8; i++)
			snprintf(hex + 2 * i, 3, "%02x", ns->eui64[i]);
		if (put_str(x, "eui64", hex))
			goto fail;
	}
	if (rblk_cfg_qos_any(&ns->qos) && put(x, "qos", qos_json(&ns->qos)))
		goto fail;
	if (ns->rbd_cache && put(x, "rbd_cache", json_object_new_boolean(true)))
		goto fail;
	if (ns->read_only && put(x, "read_only", json_object_new_boolean(true)))
		goto fail;
	if (json_object_object_length(x)) {
		ret = put(o, "x-rblk", x);
		x = NULL;
		if (ret)
			goto fail;
	}
	json_object_put(x);
	return o;
fail:
	json_object_put(x);
	json_object_put(dev);
	json_object_put(o);
	return NULL;
}

static struct json_object *subsys_json(const struct rblk_cfg_subsys *ss)
{
	struct json_object *o = json_object_new_object(), *attr = json_object_new_object();
	struct json_object *nss = json_object_new_array();
	int ret;

	if (!o || !attr || !nss)
		goto fail;
	if (put_str(attr, "allow_any_host", ss->allow_any_host ? "1" : "0") ||
	    rblk_cfg_mpath_save_attr(attr, ss) ||
	    (ss->model && put_str(attr, "model", ss->model)) ||
	    (ss->serial && put_str(attr, "serial", ss->serial)))
		goto fail;
	for (size_t i = 0; i < ss->nr_ns; i++)
		if (append(nss, ns_json(&ss->ns[i])))
			goto fail;
	if (put(o, "allowed_hosts", strv_json(ss->hosts, ss->nr_hosts)))
		goto fail;
	ret = put(o, "attr", attr);
	attr = NULL;
	if (ret)
		goto fail;
	ret = put(o, "namespaces", nss);
	nss = NULL;
	if (ret || put_str(o, "nqn", ss->nqn))
		goto fail;
	if (ss->max_namespaces) {
		struct json_object *x = json_object_new_object();

		if (!x || put(x, "max_namespaces", json_object_new_int64(ss->max_namespaces)) ||
		    put(o, "x-rblk", x)) {
			json_object_put(x);
			goto fail;
		}
	}
	return o;
fail:
	json_object_put(nss);
	json_object_put(attr);
	json_object_put(o);
	return NULL;
}

static struct json_object *port_json(const struct rblk_cfg_port *p)
{
	struct json_object *o = json_object_new_object(), *addr = json_object_new_object();
	int ret;

	if (!o || !addr)
		goto fail;
	if (put_str(addr, "adrfam", p->ipv6 ? "ipv6" : "ipv4") ||
	    put_str(addr, "traddr", p->traddr) ||
	    put_str(addr, "treq", treq_names[p->treq < 3 ? p->treq : 0]) ||
	    put_u32_str(addr, "trsvcid", p->trsvcid) || put_str(addr, "trtype", "rdma"))
		goto fail;
	ret = put(o, "addr", addr);
	addr = NULL;
	if (ret || rblk_cfg_mpath_save_port(o, p))
		goto fail;
	if (p->inline_data_size >= 0) {
		struct json_object *param = json_object_new_object();

		if (!param || put_u32_str(param, "inline_data_size", p->inline_data_size) ||
		    put(o, "param", param)) {
			json_object_put(param);
			goto fail;
		}
	}
	if (put(o, "portid", json_object_new_int(p->portid)) ||
	    put(o, "referrals", json_object_new_array()) ||
	    put(o, "subsystems", strv_json(p->subsys, p->nr_subsys)))
		goto fail;
	return o;
fail:
	json_object_put(addr);
	json_object_put(o);
	return NULL;
}

static struct json_object *tgt_json(const struct rblk_cfg_tgt *t)
{
	struct json_object *x = json_object_new_object();

	if (!x)
		return NULL;
	/* Sorted by key, as everything else. */
	if ((t->backend && put_str(x, "backend", t->backend)) ||
	    (t->connect_timeout_ms &&
	     put(x, "connect_timeout_ms", json_object_new_int64(t->connect_timeout_ms))) ||
	    (t->has_in_capsule_data_size &&
	     put(x, "in_capsule_data_size", json_object_new_int64(t->in_capsule_data_size))) ||
	    (t->io_unit_size && put(x, "io_unit_size", json_object_new_int64(t->io_unit_size))) ||
	    (t->max_admin_queue_depth &&
	     put(x, "max_aq_depth", json_object_new_int64(t->max_admin_queue_depth))) ||
	    (t->max_ctrls_per_host &&
	     put(x, "max_ctrls_per_host", json_object_new_int64(t->max_ctrls_per_host))) ||
	    (t->max_io_queues &&
	     put(x, "max_io_qpairs_per_ctrlr", json_object_new_int64(t->max_io_queues))) ||
	    (t->max_io_size && put(x, "max_io_size", json_object_new_int64(t->max_io_size))) ||
	    (t->max_pending_per_addr &&
	     put(x, "max_pending_per_addr", json_object_new_int64(t->max_pending_per_addr))) ||
	    (t->max_pending_queues &&
	     put(x, "max_pending_queues", json_object_new_int64(t->max_pending_queues))) ||
	    (t->max_queue_depth &&
	     put(x, "max_queue_depth", json_object_new_int64(t->max_queue_depth))) ||
	    (t->max_queues && put(x, "max_queues", json_object_new_int64(t->max_queues))) ||
	    (t->num_shared_buffers &&
	     put(x, "num_shared_buffers", json_object_new_int64(t->num_shared_buffers))) ||
	    (t->num_poll_groups && put(x, "poll_groups", json_object_new_int64(t->num_poll_groups))) ||
	    (t->has_srq_depth && put(x, "srq_depth", json_object_new_int64(t->srq_depth))) ||
	    (t->has_poll_mode && put_str(x, "poll_mode", rblk_cfg_poll_mode_str(t->poll_mode))) ||
	    (t->rbd_conf && put_str(x, "rbd_conf", t->rbd_conf)) ||
	    (t->rbd_id && put_str(x, "rbd_id", t->rbd_id)) ||
	    (t->rbd_keyring && put_str(x, "rbd_keyring", t->rbd_keyring)) ||
	    (t->rpc_socket && put_str(x, "rpc_socket", t->rpc_socket)) ||
	    (t->metrics && put_str(x, "metrics", t->metrics)) ||
	    (t->state_dir && put_str(x, "state_dir", t->state_dir))) {
		json_object_put(x);
		return NULL;
	}
	return x;
}

/*
 * json-c prints an empty array as "[" newline indent "]"; nvmetcli (Python's
 * json.dumps) prints "[]". Raw newlines only occur between tokens (strings
 * escape theirs), so collapsing them in place is safe.
 */
static void collapse_empty(char *s)
{
	char *w = s;

	for (char *r = s; *r;) {
		if (*r == '[' || *r == '{') {
			char *q = r + 1;

			while (*q == '\n' || *q == ' ')
				q++;
			if (q > r + 1 && *q == (*r == '[' ? ']' : '}')) {
				*w++ = *r;
				*w++ = *q;
				r = q + 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* nvmetcli's host "dhchap" object: every attribute, "" for unset, as configfs shows them. */
static struct json_object *dhchap_json(const struct rblk_cfg_auth *a)
{
	struct json_object *o = json_object_new_object();

	if (!o || put_str(o, "key", a->key ? a->key : "") ||
	    put_str(o, "ctrl_key", a->ctrl_key ? a->ctrl_key : "") ||
	    put_str(o, "hash", a->hash ? a->hash : "hmac(sha256)") ||
	    put_str(o, "dhgroup", a->dhgroup ? a->dhgroup : "null")) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int rblk_config_to_json(const struct rblk_config *cfg, char **out)
{
	struct json_object *root = json_object_new_object(), *hosts = json_object_new_array();
	struct json_object *ports = json_object_new_array(), *subs = json_object_new_array();
	struct json_object *x = tgt_json(&cfg->tgt);
	const char *text;
	int ret = -ENOMEM;

	if (!root || !hosts || !ports || !subs || !x)
		goto out;
	for (size_t i = 0; i < cfg->nr_hosts; i++) {
		struct json_object *h = json_object_new_object();

		const struct rblk_cfg_auth *a = rblk_config_find_auth(cfg, cfg->hosts[i]);

		if (!h || put_str(h, "nqn", cfg->hosts[i]) || (a && put(h, "dhchap", dhchap_json(a))) ||
		    append(hosts, h)) {
			json_object_put(h);
			goto out;
		}
	}
	for (size_t i = 0; i < cfg->nr_ports; i++)
		if (append(ports, port_json(&cfg->ports[i])))
			goto out;
	for (size_t i = 0; i < cfg->nr_subsys; i++)
		if (append(subs, subsys_json(&cfg->subsys[i])))
			goto out;
	ret = put(root, "hosts", hosts);
	hosts = NULL;
	if (!ret) {
		ret = put(root, "ports", ports);
		ports = NULL;
	}
	if (!ret) {
		ret = put(root, "subsystems", subs);
		subs = NULL;
	}
	if (!ret && json_object_object_length(x)) {
		ret = put(root, "x-rblk", x);
		x = NULL;
	}
	if (ret)
		goto out;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = -ENOMEM;
	if (text && asprintf(out, "%s\n", text) >= 0) {
		collapse_empty(*out);
		ret = 0;
	}
out:
	json_object_put(x);
	json_object_put(subs);
	json_object_put(ports);
	json_object_put(hosts);
	json_object_put(root);
	return ret;
}

int rblk_config_save(const struct rblk_config *cfg, const char *path)
{
	char *text = NULL, *tmp = NULL, *dircopy = NULL;
	int fd = -1, dfd, ret;

	ret = rblk_config_to_json(cfg, &text);
	if (ret)
		return ret;
	if (asprintf(&tmp, "%s.tmp", path) < 0 || !(dircopy = strdup(path))) {
		ret = -ENOMEM;
		goto out;
	}
	/* The config names the hosts allowed in: keep it private, like nvmetcli. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = -errno;
		RBLK_ERR("%s: cannot create: %s", tmp, strerror(-ret));
		goto out;
	}
	if (fchmod(fd, 0600) < 0 || (ret = rblk_write_all(fd, text, strlen(text))) ||
	    fsync(fd) < 0) {
		ret = ret ? ret : -errno;
		RBLK_ERR("%s: cannot write: %s", tmp, strerror(-ret));
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		ret = -errno;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		RBLK_ERR("%s: cannot rename to %s: %s", tmp, path, strerror(-ret));
		goto out_unlink;
	}
	/* The rename itself is durable only once the directory is synced. */
	dfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	ret = 0;
	goto out;
out_unlink:
	unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(dircopy);
	free(tmp);
	free(text);
	return ret;
}
