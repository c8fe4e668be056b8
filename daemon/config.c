/* SPDX-License-Identifier: MIT */
/*
 * The configuration model of rblk-target (see config.h): building it,
 * removing from it, copying and merging it, and turning its target-wide
 * options into struct rblk_target_opts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "daemon/config.h"

/* ---------------------------------------------------------------- model */

int rblk_config_new(struct rblk_config **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void ns_clear(struct rblk_cfg_ns *ns)
{
	free(ns->where);
	free(ns->path);
	free(ns->backend);
}

static void subsys_clear(struct rblk_cfg_subsys *ss)
{
	free(ss->where);
	free(ss->nqn);
	free(ss->serial);
	free(ss->model);
	strv_free(ss->hosts, ss->nr_hosts);
	for (size_t i = 0; i < ss->nr_ns; i++)
		ns_clear(&ss->ns[i]);
	free(ss->ns);
}

static void port_clear(struct rblk_cfg_port *p)
{
	free(p->where);
	free(p->traddr);
	strv_free(p->subsys, p->nr_subsys);
}

static void tgt_strs_free(struct rblk_cfg_tgt *t)
{
	free(t->backend);
	free(t->rbd_conf);
	free(t->rbd_id);
	free(t->rbd_keyring);
	free(t->rpc_socket);
	free(t->metrics);
	free(t->state_dir);
	t->backend = t->rbd_conf = t->rbd_id = t->rbd_keyring = t->rpc_socket = NULL;
	t->metrics = t->state_dir = NULL;
}

void rblk_config_free(struct rblk_config *cfg)
{
	if (!cfg)
		return;
	strv_free(cfg->hosts, cfg->nr_hosts);
	rblk_config_free_auth(cfg);
	for (size_t i = 0; i < cfg->nr_subsys; i++)
		subsys_clear(&cfg->subsys[i]);
	free(cfg->subsys);
	for (size_t i = 0; i < cfg->nr_ports; i++)
		port_clear(&cfg->ports[i]);
	free(cfg->ports);
	tgt_strs_free(&cfg->tgt);
	free(cfg);
}

/* Grows *arr by one zeroed element of @size; returns it or NULL. */
static void *push(void *arr_ptr, size_t *nr, size_t size)
{
	void **arr = arr_ptr;
	char *n = realloc(*arr, (*nr + 1) * size);

	if (!n)
		return NULL;
	*arr = n;
	memset(n + *nr * size, 0, size);
	return n + (*nr)++ * size;
}

static int strv_add(char ***v, size_t *n, const char *s)
{
	char *dup = strdup(s);
	char **slot;

	if (!dup)
		return -ENOMEM;
	slot = push(v, n, sizeof(char *));
	if (!slot) {
		free(dup);
		return -ENOMEM;
	}
	*slot = dup;
	return 0;
}

static bool strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void strv_del(char **v, size_t *n, size_t i)
{
	free(v[i]);
	memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
	(*n)--;
}

int rblk_config_add_host(struct rblk_config *cfg, const char *nqn)
{
	return strv_add(&cfg->hosts, &cfg->nr_hosts, nqn);
}

int rblk_config_add_subsys(struct rblk_config *cfg, const char *where, const char *nqn,
			   struct rblk_cfg_subsys **out)
{
	char *w = strdup(where), *n = strdup(nqn);
	struct rblk_cfg_subsys *ss;

	if (!w || !n)
		goto nomem;
	ss = push(&cfg->subsys, &cfg->nr_subsys, sizeof(*ss));
	if (!ss)
		goto nomem;
	ss->where = w;
	ss->nqn = n;
	*out = ss;
	return 0;
nomem:
	free(w);
	free(n);
	return -ENOMEM;
}

int rblk_cfg_subsys_add_ns(struct rblk_cfg_subsys *ss, const char *where, struct rblk_cfg_ns **out)
{
	char *w = strdup(where);
	struct rblk_cfg_ns *ns;

	if (!w)
		return -ENOMEM;
	ns = push(&ss->ns, &ss->nr_ns, sizeof(*ns));
	if (!ns) {
		free(w);
		return -ENOMEM;
	}
	ns->where = w;
	ns->enable = true;
	ns->ana_grpid = 1; /* nvmet's default group */
	*out = ns;
	return 0;
}

int rblk_cfg_subsys_allow_host(struct rblk_cfg_subsys *ss, const char *hostnqn)
{
	return strv_add(&ss->hosts, &ss->nr_hosts, hostnqn);
}

int rblk_config_add_port(struct rblk_config *cfg, const char *where, struct rblk_cfg_port **out)
{
	char *w = strdup(where);
	struct rblk_cfg_port *p;

	if (!w)
		return -ENOMEM;
	p = push(&cfg->ports, &cfg->nr_ports, sizeof(*p));
	if (!p) {
		free(w);
		return -ENOMEM;
	}
	p->where = w;
	p->trsvcid = 4420;
	p->inline_data_size = -1;
	*out = p;
	return 0;
}

int rblk_cfg_port_link(struct rblk_cfg_port *port, const char *nqn)
{
	return strv_add(&port->subsys, &port->nr_subsys, nqn);
}

struct rblk_cfg_subsys *rblk_config_find_subsys(const struct rblk_config *cfg, const char *nqn)
{
	for (size_t i = 0; i < cfg->nr_subsys; i++)
		if (strcmp(cfg->subsys[i].nqn, nqn) == 0)
			return &cfg->subsys[i];
	return NULL;
}

struct rblk_cfg_ns *rblk_cfg_subsys_find_ns(const struct rblk_cfg_subsys *ss, uint32_t nsid)
{
	for (size_t i = 0; i < ss->nr_ns; i++)
		if (ss->ns[i].nsid == nsid)
			return &ss->ns[i];
	return NULL;
}

/* Removes element @i of an array of @nr elements of @size after clearing it. */
static void del_at(void *arr, size_t *nr, size_t size, size_t i)
{
	char *a = arr;

	memmove(a + i * size, a + (i + 1) * size, (*nr - i - 1) * size);
	(*nr)--;
}

void rblk_config_del_host(struct rblk_config *cfg, size_t i)
{
	strv_del(cfg->hosts, &cfg->nr_hosts, i);
}

void rblk_config_del_subsys(struct rblk_config *cfg, size_t i)
{
	subsys_clear(&cfg->subsys[i]);
	del_at(cfg->subsys, &cfg->nr_subsys, sizeof(cfg->subsys[0]), i);
}

void rblk_cfg_subsys_del_ns(struct rblk_cfg_subsys *ss, size_t i)
{
	ns_clear(&ss->ns[i]);
	del_at(ss->ns, &ss->nr_ns, sizeof(ss->ns[0]), i);
}

void rblk_cfg_subsys_del_host(struct rblk_cfg_subsys *ss, size_t i)
{
	strv_del(ss->hosts, &ss->nr_hosts, i);
}

void rblk_config_del_port(struct rblk_config *cfg, size_t i)
{
	port_clear(&cfg->ports[i]);
	del_at(cfg->ports, &cfg->nr_ports, sizeof(cfg->ports[0]), i);
}

void rblk_cfg_port_del_link(struct rblk_cfg_port *port, size_t i)
{
	strv_del(port->subsys, &port->nr_subsys, i);
}

bool rblk_cfg_strv_has(char *const *v, size_t n, const char *s)
{
	return strv_has(v, n, s);
}

/* ------------------------------------------------------------- copying */

static int str_dup(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static int strv_dup(char ***dst, size_t *ndst, char *const *src, size_t n)
{
	*dst = NULL;
	*ndst = 0;
	for (size_t i = 0; i < n; i++)
		if (strv_add(dst, ndst, src[i]))
			return -ENOMEM;
	return 0;
}

static int ns_copy(struct rblk_cfg_ns *d, const struct rblk_cfg_ns *s)
{
	*d = *s;
	d->where = d->path = d->backend = NULL;
	if (str_dup(&d->where, s->where) || str_dup(&d->path, s->path) ||
	    str_dup(&d->backend, s->backend))
		return -ENOMEM;
	return 0;
}

static int subsys_copy(struct rblk_cfg_subsys *d, const struct rblk_cfg_subsys *s)
{
	memset(d, 0, sizeof(*d));
	d->allow_any_host = s->allow_any_host;
	d->max_namespaces = s->max_namespaces;
	d->cntlid_min = s->cntlid_min;
	d->cntlid_max = s->cntlid_max;
	if (str_dup(&d->where, s->where) || str_dup(&d->nqn, s->nqn) ||
	    str_dup(&d->serial, s->serial) || str_dup(&d->model, s->model) ||
	    strv_dup(&d->hosts, &d->nr_hosts, s->hosts, s->nr_hosts))
		return -ENOMEM;
	if (s->nr_ns) {
		d->ns = calloc(s->nr_ns, sizeof(*d->ns));
		if (!d->ns)
			return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_ns; i++) {
		d->nr_ns++;
		if (ns_copy(&d->ns[i], &s->ns[i]))
			return -ENOMEM;
	}
	return 0;
}

static int port_copy(struct rblk_cfg_port *d, const struct rblk_cfg_port *s)
{
	*d = *s;
	d->where = d->traddr = NULL;
	d->subsys = NULL;
	d->nr_subsys = 0;
	if (str_dup(&d->where, s->where) || str_dup(&d->traddr, s->traddr) ||
	    strv_dup(&d->subsys, &d->nr_subsys, s->subsys, s->nr_subsys))
		return -ENOMEM;
	return 0;
}

int rblk_config_add_port_copy(struct rblk_config *cfg, const struct rblk_cfg_port *src)
{
	struct rblk_cfg_port *p = push(&cfg->ports, &cfg->nr_ports, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (port_copy(p, src)) {
		port_clear(p);
		cfg->nr_ports--;
		return -ENOMEM;
	}
	return 0;
}

/* Copies t's strings into d (whose string fields are not owned yet). */
static int tgt_strs_dup(struct rblk_cfg_tgt *d, const struct rblk_cfg_tgt *t)
{
	d->backend = d->rbd_conf = d->rbd_id = d->rbd_keyring = d->rpc_socket = NULL;
	d->metrics = d->state_dir = NULL;
	if (str_dup(&d->backend, t->backend) || str_dup(&d->rbd_conf, t->rbd_conf) ||
	    str_dup(&d->rbd_id, t->rbd_id) || str_dup(&d->rbd_keyring, t->rbd_keyring) ||
	    str_dup(&d->rpc_socket, t->rpc_socket) || str_dup(&d->metrics, t->metrics) ||
	    str_dup(&d->state_dir, t->state_dir)) {
		tgt_strs_free(d);
		return -ENOMEM;
	}
	return 0;
}

int rblk_config_set_tgt(struct rblk_config *cfg, const struct rblk_cfg_tgt *t)
{
	struct rblk_cfg_tgt n = *t;

	if (tgt_strs_dup(&n, t))
		return -ENOMEM;
	tgt_strs_free(&cfg->tgt);
	cfg->tgt = n;
	return 0;
}

int rblk_config_dup(const struct rblk_config *cfg, struct rblk_config **out)
{
	struct rblk_config *c;

	if (rblk_config_new(&c))
		return -ENOMEM;
	c->tgt = cfg->tgt;
	if (tgt_strs_dup(&c->tgt, &cfg->tgt) ||
	    strv_dup(&c->hosts, &c->nr_hosts, cfg->hosts, cfg->nr_hosts) ||
	    rblk_config_dup_auth(c, cfg))
		goto nomem;
	if (cfg->nr_subsys && !(c->subsys = calloc(cfg->nr_subsys, sizeof(*c->subsys))))
		goto nomem;
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		c->nr_subsys++;
		if (subsys_copy(&c->subsys[i], &cfg->subsys[i]))
			goto nomem;
	}
	if (cfg->nr_ports && !(c->ports = calloc(cfg->nr_ports, sizeof(*c->ports))))
		goto nomem;
	for (size_t i = 0; i < cfg->nr_ports; i++) {
		c->nr_ports++;
		if (port_copy(&c->ports[i], &cfg->ports[i]))
			goto nomem;
	}
	*out = c;
	return 0;
nomem:
	rblk_config_free(c);
	return -ENOMEM;
}

int rblk_config_link_all(struct rblk_config *cfg, size_t first_port, size_t first_subsys)
{
	for (size_t p = 0; p < cfg->nr_ports; p++) {
		struct rblk_cfg_port *port = &cfg->ports[p];

		for (size_t i = p < first_port ? first_subsys : 0; i < cfg->nr_subsys; i++) {
			const char *nqn = cfg->subsys[i].nqn;

			if (!strv_has(port->subsys, port->nr_subsys, nqn) &&
			    rblk_cfg_port_link(port, nqn))
				return -ENOMEM;
		}
	}
	return 0;
}

static bool portid_used(const struct rblk_config *cfg, size_t upto, uint16_t id)
{
	for (size_t i = 0; i < upto; i++)
		if (cfg->ports[i].portid == id)
			return true;
	return false;
}

void rblk_config_renumber_ports(struct rblk_config *cfg, size_t first_port)
{
	for (size_t i = first_port; i < cfg->nr_ports; i++) {
		uint16_t id = 1;

		if (!portid_used(cfg, i, cfg->ports[i].portid))
			continue;
		/* Free among all ports, the later flag ports included. */
		while (portid_used(cfg, cfg->nr_ports, id) && id < UINT16_MAX)
			id++;
		cfg->ports[i].portid = id;
	}
}

int rblk_config_merge(struct rblk_config *dst, struct rblk_config *src)
{
	struct rblk_cfg_tgt *d = &dst->tgt, *s = &src->tgt;
	int ret = -ENOMEM;

	for (size_t i = 0; i < src->nr_hosts; i++)
		if (!strv_has(dst->hosts, dst->nr_hosts, src->hosts[i]) &&
		    rblk_config_add_host(dst, src->hosts[i]))
			goto out;
	/* A host's settings in @src (the flags) replace the file's. */
	if (rblk_config_dup_auth(dst, src))
		goto out;
	for (size_t i = 0; i < src->nr_subsys; i++) {
		struct rblk_cfg_subsys *ss = push(&dst->subsys, &dst->nr_subsys, sizeof(*ss));

		if (!ss)
			goto out;
		*ss = src->subsys[i]; /* moved: ownership passes to dst */
		memset(&src->subsys[i], 0, sizeof(src->subsys[i]));
	}
	for (size_t i = 0; i < src->nr_ports; i++) {
		struct rblk_cfg_port *p = push(&dst->ports, &dst->nr_ports, sizeof(*p));

		if (!p)
			goto out;
		*p = src->ports[i];
		memset(&src->ports[i], 0, sizeof(src->ports[i]));
	}
#define OVERRIDE(f) do { if (s->f) d->f = s->f; } while (0)
	OVERRIDE(num_poll_groups);
	OVERRIDE(max_queue_depth);
	OVERRIDE(max_admin_queue_depth);
	OVERRIDE(max_io_queues);
	OVERRIDE(max_io_size);
	OVERRIDE(io_unit_size);
	OVERRIDE(num_shared_buffers);
	OVERRIDE(connect_timeout_ms);
	OVERRIDE(max_pending_queues);
	OVERRIDE(max_pending_per_addr);
	OVERRIDE(max_ctrls_per_host);
	OVERRIDE(max_queues);
#undef OVERRIDE
	if (s->has_in_capsule_data_size) {
		d->has_in_capsule_data_size = true;
		d->in_capsule_data_size = s->in_capsule_data_size;
	}
	if (s->has_srq_depth) {
		d->has_srq_depth = true;
		d->srq_depth = s->srq_depth;
	}
	if (s->has_poll_mode) {
		d->has_poll_mode = true;
		d->poll_mode = s->poll_mode;
	}
#define OVERRIDE_STR(f)                  \
	if (s->f) {                      \
		free(d->f);              \
		d->f = s->f;             \
		s->f = NULL;             \
	}
	OVERRIDE_STR(backend);
	OVERRIDE_STR(rbd_conf);
	OVERRIDE_STR(rbd_id);
	OVERRIDE_STR(rbd_keyring);
	OVERRIDE_STR(rpc_socket);
	OVERRIDE_STR(metrics);
	OVERRIDE_STR(state_dir);
#undef OVERRIDE_STR
	ret = 0;
out:
	rblk_config_free(src);
	return ret;
}

void rblk_config_target_opts(const struct rblk_config *cfg, struct rblk_target_opts *o)
{
	const struct rblk_cfg_tgt *t = &cfg->tgt;
	uint32_t inline_max = 0;
	bool inline_set = false;

	rblk_target_opts_init(o);
	if (t->num_poll_groups)
		o->num_poll_groups = t->num_poll_groups;
#define SET(f) do { if (t->f) o->f = t->f; } while (0)
	SET(max_queue_depth);
	SET(max_admin_queue_depth);
	SET(max_io_queues);
	SET(max_io_size);
	SET(io_unit_size);
	SET(num_shared_buffers);
	SET(connect_timeout_ms);
	SET(max_pending_queues);
	SET(max_pending_per_addr);
	SET(max_ctrls_per_host);
	SET(max_queues);
#undef SET
	/* nvmetcli keeps the in-capsule size per port (param.inline_data_size);
	 * the rblk target has one value, so the largest port setting wins unless
	 * x-rblk.in_capsule_data_size says otherwise. */
	for (size_t i = 0; i < cfg->nr_ports; i++) {
		if (cfg->ports[i].inline_data_size >= 0) {
			inline_set = true;
			if ((uint32_t)cfg->ports[i].inline_data_size > inline_max)
				inline_max = cfg->ports[i].inline_data_size;
		}
	}
	if (t->has_srq_depth)
		o->srq_depth = t->srq_depth;
	if (t->has_in_capsule_data_size)
		o->in_capsule_data_size = t->in_capsule_data_size;
	else if (inline_set)
		o->in_capsule_data_size = inline_max;
	if (t->has_poll_mode)
		o->poll_mode = t->poll_mode;
	if (t->backend)
		o->backend = t->backend;
	o->rbd_conf = t->rbd_conf;
	o->rbd_id = t->rbd_id;
	o->rbd_keyring = t->rbd_keyring;
	/* What the metrics endpoint shows; the clock read per busy iteration only then. */
	o->latency_stats = t->metrics != NULL;
	if (t->state_dir)
		o->state_dir = t->state_dir;
}


bool rblk_cfg_qos_any(const struct rblk_cfg_qos *q)
{
	return q->rw_ios_per_sec || q->rw_mbytes_per_sec || q->r_mbytes_per_sec ||
	       q->w_mbytes_per_sec;
}

void rblk_cfg_qos_to_opts(const struct rblk_cfg_qos *q, struct rblk_ns_qos *out)
{
	rblk_ns_qos_init(out);
	out->rw_ios_per_sec = q->rw_ios_per_sec;
	out->rw_mbytes_per_sec = q->rw_mbytes_per_sec;
	out->r_mbytes_per_sec = q->r_mbytes_per_sec;
	out->w_mbytes_per_sec = q->w_mbytes_per_sec;
}
