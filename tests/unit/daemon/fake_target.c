/* SPDX-License-Identifier: MIT */
/* See fake_target.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_target.h"

#define MAX_SS 32
#define MAX_NS 64
#define MAX_HOSTS 16

struct rblk_subsystem {
	bool used;
	char nqn[256];
	bool any;
	uint32_t nsid[MAX_NS];
	int nr_ns;
	char hosts[MAX_HOSTS][256];
	int nr_hosts;
};

struct rblk_target {
	struct rblk_subsystem ss[MAX_SS];
	int listeners;
	bool started;
};

char fake_log[16384];
static struct rblk_target the_target;
static char fail_prefix[128];
static int fail_err;
static const char *stats_json;

void fake_reset(void)
{
	memset(&the_target, 0, sizeof(the_target));
	fake_log[0] = '\0';
	fail_prefix[0] = '\0';
	stats_json = NULL;
}

void fake_set_stats(const char *json)
{
	stats_json = json;
}

void fake_fail(const char *prefix, int err)
{
	snprintf(fail_prefix, sizeof(fail_prefix), "%s", prefix);
	fail_err = err;
}

struct rblk_target *fake_target(void)
{
	return &the_target;
}

/* Logs the call; returns the armed error when it matches. */
static int record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int record(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	size_t len = strlen(fake_log);

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(fake_log + len, sizeof(fake_log) - len, "%s\n", line);
	if (fail_prefix[0] && strncmp(line, fail_prefix, strlen(fail_prefix)) == 0) {
		fail_prefix[0] = '\0';
		return fail_err;
	}
	return 0;
}

int fake_nr_ns(const char *nqn)
{
	struct rblk_subsystem *ss = rblk_target_find_subsystem(&the_target, nqn);

	return ss ? ss->nr_ns : -1;
}

int fake_nr_listeners(void)
{
	return the_target.listeners;
}

void rblk_target_opts_init(struct rblk_target_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->max_queue_depth = 128;
	o->max_admin_queue_depth = 32;
	o->max_io_queues = 64;
	o->in_capsule_data_size = 8192;
	o->max_io_size = 131072;
	o->io_unit_size = 131072;
	o->kato_check_ms = 100;
	/* As the library: the admission defaults are filled in, not left 0. */
	o->connect_timeout_ms = 10000;
	o->max_pending_queues = 256;
	o->max_pending_per_addr = 32;
	o->max_ctrls_per_host = 64;
	o->max_queues = 4096;
}

/*
 * The library's own rules (target/opts.c), so that --check refuses what a
 * start would. Declared here: target/core.h defines the structs this file fakes.
 */
int rblk_tgt_opts_check(const struct rblk_target_opts *o, const char **field, char *why,
			size_t len);

int rblk_target_opts_check(const struct rblk_target_opts *o, const char **field, char *why,
			   size_t len)
{
	return rblk_tgt_opts_check(o, field, why, len);
}

void rblk_subsystem_opts_init(struct rblk_subsystem_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

void rblk_ns_opts_init(struct rblk_ns_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

void rblk_listen_opts_init(struct rblk_listen_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->treq = 0x04; /* as the library: SQ flow control disable supported */
	o->require_rdma = true;
}

int rblk_target_create(const struct rblk_target_opts *o, struct rblk_target **out)
{
	int ret = record("create groups=%u qd=%u icd=%u mode=%d backend=%s", o->num_poll_groups,
			 o->max_queue_depth, o->in_capsule_data_size, o->poll_mode,
			 o->backend ? o->backend : "auto");

	const char *env = getenv("RBLK_FAKE_FAIL");

	if (ret)
		return ret;
	fake_reset();
	/* "PREFIX:ERRNO" arms a failure for the daemon test (rblk-target-fake). */
	if (env && strchr(env, ':')) {
		char prefix[128];

		snprintf(prefix, sizeof(prefix), "%.*s", (int)(strchr(env, ':') - env), env);
		fake_fail(prefix, -atoi(strchr(env, ':') + 1));
	}
	*out = &the_target;
	return 0;
}

void rblk_target_destroy(struct rblk_target *tgt)
{
	record("destroy");
}

int rblk_target_add_subsystem(struct rblk_target *tgt, const struct rblk_subsystem_opts *o,
			      struct rblk_subsystem **out)
{
	char range[32] = "";
	int ret;

	if (o->cntlid_min || o->cntlid_max)
		snprintf(range, sizeof(range), " cntlid=%u-%u", o->cntlid_min, o->cntlid_max);
	ret = record("add_subsys %s any=%d serial=%s model=%s%s", o->nqn, o->allow_any_host,
		     o->serial ? o->serial : "-", o->model ? o->model : "-", range);

	if (ret)
		return ret;
	if (rblk_target_find_subsystem(tgt, o->nqn))
		return -EEXIST;
	for (int i = 0; i < MAX_SS; i++) {
		if (!tgt->ss[i].used) {
			memset(&tgt->ss[i], 0, sizeof(tgt->ss[i]));
			tgt->ss[i].used = true;
			snprintf(tgt->ss[i].nqn, sizeof(tgt->ss[i].nqn), "%s", o->nqn);
			tgt->ss[i].any = o->allow_any_host;
			*out = &tgt->ss[i];
			return 0;
		}
	}
	return -ENOSPC;
}

int rblk_target_remove_subsystem(struct rblk_target *tgt, const char *nqn)
{
	struct rblk_subsystem *ss;
	int ret = record("del_subsys %s", nqn);

	if (ret)
		return ret;
	ss = rblk_target_find_subsystem(tgt, nqn);
	if (!ss)
		return -ENOENT;
	ss->used = false;
	return 0;
}

struct rblk_subsystem *rblk_target_find_subsystem(struct rblk_target *tgt, const char *nqn)
{
	for (int i = 0; i < MAX_SS; i++)
		if (tgt->ss[i].used && strcmp(tgt->ss[i].nqn, nqn) == 0)
			return &tgt->ss[i];
	return NULL;
}

int rblk_subsystem_allow_host(struct rblk_subsystem *ss, const char *hostnqn)
{
	int ret = record("allow_host %s %s", ss->nqn, hostnqn);

	if (ret)
		return ret;
	if (ss->nr_hosts == MAX_HOSTS)
		return -ENOSPC;
	snprintf(ss->hosts[ss->nr_hosts++], 256, "%s", hostnqn);
	return 0;
}

void rblk_host_auth_init(struct rblk_host_auth *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
}

/* Logged without the secrets' text: only whether each is there. */
int rblk_subsystem_set_host_auth(struct rblk_subsystem *ss, const char *hostnqn,
				 const struct rblk_host_auth *a)
{
	if (!a)
		return record("host_auth %s %s none", ss->nqn, hostnqn);
	return record("host_auth %s %s key=%d ctrl_key=%d hash=%s dhgroup=%s", ss->nqn, hostnqn,
		      a->key != NULL, a->ctrl_key != NULL, a->hash ? a->hash : "-",
		      a->dhgroup ? a->dhgroup : "-");
}

int rblk_subsystem_disallow_host(struct rblk_subsystem *ss, const char *hostnqn)
{
	int ret = record("disallow_host %s %s", ss->nqn, hostnqn);

	if (ret)
		return ret;
	for (int i = 0; i < ss->nr_hosts; i++) {
		if (strcmp(ss->hosts[i], hostnqn) == 0) {
			memmove(ss->hosts[i], ss->hosts[i + 1], (ss->nr_hosts - i - 1) * 256);
			ss->nr_hosts--;
			return 0;
		}
	}
	return -ENOENT;
}

int rblk_subsystem_set_allow_any_host(struct rblk_subsystem *ss, bool allow)
{
	int ret = record("any_host %s %d", ss->nqn, allow);

	if (!ret)
		ss->any = allow;
	return ret;
}

int rblk_subsystem_add_namespace(struct rblk_subsystem *ss, const struct rblk_ns_opts *o,
				 uint32_t *nsid)
{
	char uuid[40] = "-", grp[24] = "", qos[100] = "";
	int ret;

	if (o->has_uuid)
		snprintf(uuid, sizeof(uuid), "%02x%02x", o->uuid[0], o->uuid[1]);
	if (o->anagrpid > 1)
		snprintf(grp, sizeof(grp), " grp=%u", o->anagrpid);
	if (o->qos)
		snprintf(qos, sizeof(qos), " qos=%llu/%llu/%llu/%llu",
			 (unsigned long long)o->qos->rw_ios_per_sec,
			 (unsigned long long)o->qos->rw_mbytes_per_sec,
			 (unsigned long long)o->qos->r_mbytes_per_sec,
			 (unsigned long long)o->qos->w_mbytes_per_sec);
	ret = record("add_ns %s %u %s ro=%d bs=%u backend=%s uuid=%s%s%s", ss->nqn, o->nsid,
		     o->path, o->read_only, o->block_size, o->backend ? o->backend : "-", uuid, grp,
		     qos);
	if (ret)
		return ret;
	for (int i = 0; i < ss->nr_ns; i++)
		if (ss->nsid[i] == o->nsid)
			return -EEXIST;
	if (ss->nr_ns == MAX_NS)
		return -ENOSPC;
	ss->nsid[ss->nr_ns++] = o->nsid;
	*nsid = o->nsid;
	return 0;
}

int rblk_subsystem_remove_namespace(struct rblk_subsystem *ss, uint32_t nsid)
{
	int ret = record("del_ns %s %u", ss->nqn, nsid);

	if (ret)
		return ret;
	for (int i = 0; i < ss->nr_ns; i++) {
		if (ss->nsid[i] == nsid) {
			ss->nsid[i] = ss->nsid[--ss->nr_ns];
			return 0;
		}
	}
	return -ENOENT;
}

int rblk_target_listen(struct rblk_target *tgt, const struct rblk_listen_opts *o)
{
	int ret = record("listen %s %u portid=%u treq=%u rdma=%d linked_only=%d", o->traddr,
			 o->trsvcid, o->portid, o->treq, o->require_rdma, o->linked_only);

	if (!ret)
		tgt->listeners++;
	return ret;
}

/* Links are only recorded; an unknown subsystem is -ENOENT as in the library. */
int rblk_target_port_add_subsystem(struct rblk_target *tgt, uint16_t portid, const char *nqn)
{
	int ret = record("link %u %s", portid, nqn);

	if (ret)
		return ret;
	return rblk_target_find_subsystem(tgt, nqn) ? 0 : -ENOENT;
}

int rblk_target_port_remove_subsystem(struct rblk_target *tgt, uint16_t portid, const char *nqn)
{
	int ret = record("unlink %u %s", portid, nqn);

	if (ret)
		return ret;
	return rblk_target_find_subsystem(tgt, nqn) ? 0 : -ENOENT;
}

/* ANA calls are only recorded (states by nvmet's names). */
static const char *state_name(enum rblk_ana_state s)
{
	switch (s) {
	case RBLK_ANA_OPTIMIZED:
		return "optimized";
	case RBLK_ANA_NON_OPTIMIZED:
		return "non-optimized";
	case RBLK_ANA_INACCESSIBLE:
		return "inaccessible";
	case RBLK_ANA_PERSISTENT_LOSS:
		return "persistent-loss";
	case RBLK_ANA_CHANGE:
		return "change";
	}
	return "?";
}

int rblk_target_port_set_ana_state(struct rblk_target *tgt, uint16_t portid, uint32_t grpid,
				   enum rblk_ana_state state)
{
	(void)tgt;
	return record("ana_state %u %u %s", portid, grpid, state_name(state));
}

int rblk_target_port_get_ana_state(struct rblk_target *tgt, uint16_t portid, uint32_t grpid,
				   enum rblk_ana_state *state)
{
	(void)tgt;
	*state = grpid == 1 ? RBLK_ANA_OPTIMIZED : RBLK_ANA_INACCESSIBLE;
	return record("get_ana_state %u %u", portid, grpid);
}

int rblk_target_port_remove_ana_group(struct rblk_target *tgt, uint16_t portid, uint32_t grpid)
{
	(void)tgt;
	return record("ana_group_del %u %u", portid, grpid);
}

int rblk_subsystem_set_ns_ana_grpid(struct rblk_subsystem *ss, uint32_t nsid, uint32_t grpid)
{
	return record("ns_ana_grpid %s %u %u", ss->nqn, nsid, grpid);
}

void rblk_ns_qos_init(struct rblk_ns_qos *qos)
{
	memset(qos, 0, sizeof(*qos));
	qos->size = sizeof(*qos);
}

int rblk_subsystem_set_ns_qos(struct rblk_subsystem *ss, uint32_t nsid,
			      const struct rblk_ns_qos *q)
{
	return record("ns_qos %s %u %llu/%llu/%llu/%llu", ss->nqn, nsid,
		      (unsigned long long)q->rw_ios_per_sec, (unsigned long long)q->rw_mbytes_per_sec,
		      (unsigned long long)q->r_mbytes_per_sec, (unsigned long long)q->w_mbytes_per_sec);
}

int rblk_target_start(struct rblk_target *tgt)
{
	int ret = record("start");

	if (!ret)
		tgt->started = true;
	return ret;
}

int rblk_target_run(struct rblk_target *tgt)
{
	return record("run");
}

void rblk_target_stop(struct rblk_target *tgt)
{
	tgt->started = false;
}

int rblk_target_stats_json(struct rblk_target *tgt, char **out)
{
	*out = strdup(stats_json ? stats_json : "{\"controllers\": []}");
	return *out ? 0 : -ENOMEM;
}
