/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/target.c: option defaults and validation, sized option
 * structs, listeners, start/run/stop through the transport entry points, and
 * the statistics JSON.
 */
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_transport.h"
#include "ut.h"

static void test_opts_defaults_and_validation(void)
{
	struct rblk_target_opts o;
	struct rblk_target *tgt;

	rblk_target_opts_init(&o);
	CU_ASSERT_EQUAL(o.size, sizeof(o));
	CU_ASSERT_EQUAL(o.max_queue_depth, 128);
	CU_ASSERT_EQUAL(o.max_admin_queue_depth, 32);
	CU_ASSERT_EQUAL(o.max_io_queues, 64);
	CU_ASSERT_EQUAL(o.in_capsule_data_size, 8192);
	CU_ASSERT_EQUAL(o.max_io_size, 1u << 20);
	CU_ASSERT_EQUAL(o.kato_check_ms, 100);

	o.max_io_size = 4096;
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	rblk_target_opts_init(&o);
	o.io_unit_size = 4096; /* 256 units per I/O > RBLK_REQ_MAX_IOV */
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	/* A pool that cannot hold one largest transfer would wait forever. */
	rblk_target_opts_init(&o);
	o.num_shared_buffers = 7; /* 1 MiB needs 8 units of 128 KiB */
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	o.num_shared_buffers = 8;
	CU_ASSERT_EQUAL_FATAL(tt_target_create(&o, &tgt), 0);
	rblk_target_destroy(tgt);
	rblk_target_opts_init(&o);
	o.max_queue_depth = 4; /* the pool's default size */
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	rblk_target_opts_init(&o);
	o.max_admin_queue_depth = 64;
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	rblk_target_opts_init(&o);
	o.in_capsule_data_size = 100;
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	rblk_target_opts_init(&o);
	o.backend = "spdk";
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	CU_ASSERT_EQUAL(tt_target_create(NULL, NULL), -EINVAL);

	/* An older, shorter struct: the fields it lacks keep their defaults. */
	rblk_target_opts_init(&o);
	o.max_queue_depth = 64;
	o.size = offsetof(struct rblk_target_opts, max_admin_queue_depth);
	CU_ASSERT_EQUAL_FATAL(tt_target_create(&o, &tgt), 0);
	CU_ASSERT_EQUAL(tgt->opts.max_queue_depth, 64);
	CU_ASSERT_EQUAL(tgt->opts.max_io_size, 1u << 20);
	CU_ASSERT(!strcmp(tgt->backend, "uring") || !strcmp(tgt->backend, "aio"));
	rblk_target_destroy(tgt);
	rblk_target_destroy(NULL);
}

static void test_listen(void)
{
	struct tt_env *env = tt_env_create(NULL, 0);
	struct rblk_listen_opts o;

	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_listen_opts_init(&o);
	CU_ASSERT_EQUAL(o.trsvcid, 4420);
	CU_ASSERT_TRUE(o.require_rdma);
	/* nvmet's default TREQ: SQ flow control disable supported (docs/interop.md §14.4). */
	CU_ASSERT_EQUAL(o.treq, NVMF_TREQ_DISABLE_SQFLOW);
	CU_ASSERT_EQUAL(o.treq, 0x04);
	o.traddr = "10.99.0.300";
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), -EINVAL);
	o.traddr = "localhost"; /* numeric only: no resolver on a storage path */
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), -EINVAL);
	o.traddr = "10.99.0.1";
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), 0);
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), -EEXIST);
	o.traddr = "[fe80::1]";
	o.trsvcid = 0;
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), 0);
	o.traddr = "::";
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), 0);
	CU_ASSERT_EQUAL(env->tgt->transport->listens, 3);
	CU_ASSERT_EQUAL_FATAL(env->tgt->nr_listeners, 3);
	CU_ASSERT_STRING_EQUAL(env->tgt->listeners[1]->traddr, "fe80::1");
	CU_ASSERT_STRING_EQUAL(env->tgt->listeners[1]->trsvcid, "4420");
	CU_ASSERT_EQUAL(env->tgt->listeners[1]->adrfam, NVMF_ADRFAM_IPV6);
	CU_ASSERT_FALSE(env->tgt->listeners[1]->any);
	CU_ASSERT_TRUE(env->tgt->listeners[2]->any);
	CU_ASSERT_EQUAL(env->tgt->listeners[0]->portid, 1);
	CU_ASSERT_EQUAL(env->tgt->listeners[0]->treq, NVMF_TREQ_DISABLE_SQFLOW);
	CU_ASSERT_EQUAL(env->tgt->listeners[2]->portid, 3);
	/* The transport's refusal is the caller's answer, and nothing is recorded. */
	env->tgt->transport->listen_result = -EADDRNOTAVAIL;
	o.traddr = "10.99.0.9";
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(env->tgt->nr_listeners, 3);
	tt_env_destroy(env);
}

/* Per-port subsystem links: the API's checks and the listener's state. */
static void test_port_links(void)
{
	struct tt_env *env = tt_env_create(NULL, 0);
	struct rblk_listen_opts o;
	struct rblk_listener *open, *linked;
	struct rblk_subsystem *ss;
	struct json_object *root, *ls, *v;
	char *json = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN2, NULL, NULL));
	rblk_listen_opts_init(&o);
	CU_ASSERT_FALSE(o.linked_only); /* the library's default: every subsystem */
	o.traddr = "10.99.0.1";
	o.portid = 3;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	o.traddr = "10.99.0.2";
	CU_ASSERT_EQUAL(rblk_target_listen(env->tgt, &o), -EEXIST); /* portid 3 is taken */
	o.linked_only = true;
	o.portid = 4;
	CU_ASSERT_EQUAL_FATAL(rblk_target_listen(env->tgt, &o), 0);
	open = env->tgt->listeners[0];
	linked = env->tgt->listeners[1];
	CU_ASSERT_TRUE(linked->linked_only);
	CU_ASSERT_TRUE(rblk_listener_exports_locked(open, ss));
	CU_ASSERT_FALSE(rblk_listener_exports_locked(linked, ss));
	CU_ASSERT_TRUE(rblk_listener_exports_locked(linked, env->tgt->disc));
	CU_ASSERT_TRUE(rblk_listener_exports_locked(NULL, ss));

	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 4, TT_SUBNQN), 0);
	CU_ASSERT_TRUE(rblk_listener_exports_locked(linked, ss));
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 4, TT_SUBNQN), -EEXIST);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 3, TT_SUBNQN), -EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 9, TT_SUBNQN), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 4, "nqn.2024-01.org.example:no"),
			-ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 4, NVME_DISC_SUBSYS_NAME), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 4, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(NULL, 4, TT_SUBNQN), -EINVAL);
	CU_ASSERT_EQUAL(rblk_target_port_add_subsystem(env->tgt, 4, TT_SUBNQN2), 0);
	CU_ASSERT_EQUAL(linked->nr_subsys, 2);

	/* Statistics show each port's links. */
	CU_ASSERT_EQUAL_FATAL(rblk_target_stats_json(env->tgt, &json), 0);
	root = json_tokener_parse(json);
	CU_ASSERT_FATAL(json_object_object_get_ex(root, "listeners", &ls));
	CU_ASSERT_FATAL(json_object_object_get_ex(json_object_array_get_idx(ls, 0), "subsystems",
						  &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "all");
	CU_ASSERT_FATAL(json_object_object_get_ex(json_object_array_get_idx(ls, 1), "subsystems",
						  &v));
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(v), 2);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 0)), TT_SUBNQN);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 1)), TT_SUBNQN2);
	json_object_put(root);
	free(json);

	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 4, TT_SUBNQN), 0);
	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 4, TT_SUBNQN), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 3, TT_SUBNQN), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_port_remove_subsystem(env->tgt, 9, TT_SUBNQN2), -ENOENT);
	CU_ASSERT_FALSE(rblk_listener_exports_locked(linked, ss));
	CU_ASSERT_EQUAL(linked->nr_subsys, 1);
	CU_ASSERT_PTR_EQUAL(linked->subsys[0], rblk_target_find_subsystem(env->tgt, TT_SUBNQN2));
	/* Removing a subsystem removes its links. */
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, TT_SUBNQN2), 0);
	CU_ASSERT_EQUAL(linked->nr_subsys, 0);
	tt_env_destroy(env);
}

static void *run_thread(void *arg)
{
	return (void *)(intptr_t)rblk_target_run(arg);
}

static void test_start_run_stop(void)
{
	struct tt_env *env = tt_env_create(NULL, 0);
	struct rblk_transport *t;
	pthread_t th;
	void *ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	t = env->tgt->transport;
	CU_ASSERT_EQUAL(rblk_target_start(env->tgt), 0);
	CU_ASSERT_TRUE(t->started);
	CU_ASSERT_EQUAL(rblk_target_start(env->tgt), 0);
	pthread_create(&th, NULL, run_thread, env->tgt);
	usleep(10000);
	CU_ASSERT_EQUAL(t->stops, 0);
	rblk_target_stop(env->tgt);
	pthread_join(th, &ret);
	CU_ASSERT_EQUAL((intptr_t)ret, 0);
	CU_ASSERT_EQUAL(t->stops, 1);
	CU_ASSERT_FALSE(t->started);
	/* A stop before run makes run return at once. */
	rblk_target_stop(env->tgt);
	CU_ASSERT_EQUAL(rblk_target_run(env->tgt), 0);
	CU_ASSERT_EQUAL(t->stops, 2);
	tt_env_destroy(env);
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	CU_ASSERT_TRUE(json_object_object_get_ex(o, k, &v));
	return v;
}

static void test_stats_json(void)
{
	struct tt_env *env = tt_env_create(NULL, 0);
	struct json_object *root, *ctrls, *c, *queues, *nss, *ns;
	struct tt_queue *aq, *iq;
	uint8_t *b = aligned_alloc(4096, 4096);
	uint16_t cntlid;
	char *s = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL));
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 31, cntlid, 0, 0, NULL), 0);
	memset(b, 1, 4096);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 8, 0, b, 4096), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 8, 8, 0, b, 4096), 0);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 2, 0, 8, 0, b, 4096)),
			NVME_SC_INVALID_NS | NVME_SC_DNR);

	CU_ASSERT_EQUAL_FATAL(rblk_target_stats_json(env->tgt, &s), 0);
	root = json_tokener_parse(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	ctrls = get(root, "controllers");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(ctrls), 1);
	c = json_object_array_get_idx(ctrls, 0);
	CU_ASSERT_EQUAL(json_object_get_int(get(c, "cntlid")), cntlid);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(get(c, "hostnqn")), TT_HOSTNQN);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(get(c, "subsystem")), TT_SUBNQN);
	queues = get(c, "queues");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(queues), 2);
	CU_ASSERT_EQUAL(json_object_get_int(get(json_object_array_get_idx(queues, 0), "qid")), 0);
	CU_ASSERT_EQUAL(json_object_get_int(get(json_object_array_get_idx(queues, 0), "depth")), 32);
	CU_ASSERT_EQUAL(json_object_get_int(get(json_object_array_get_idx(queues, 1), "qid")), 1);
	CU_ASSERT_EQUAL(json_object_get_int(get(json_object_array_get_idx(queues, 1), "completed")),
			4);
	CU_ASSERT_EQUAL(json_object_get_int(get(json_object_array_get_idx(queues, 1), "errors")), 1);
	nss = get(root, "namespaces");
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(nss), 1);
	ns = json_object_array_get_idx(nss, 0);
	CU_ASSERT_EQUAL(json_object_get_int(get(ns, "nsid")), 1);
	CU_ASSERT_EQUAL(json_object_get_int(get(ns, "write_cmds")), 2);
	CU_ASSERT_EQUAL(json_object_get_int(get(ns, "write_bytes")), 8192);
	CU_ASSERT_EQUAL(json_object_get_int(get(ns, "blocks")), 128);
	CU_ASSERT_EQUAL(json_object_array_length(get(root, "subsystems")), 1);
	json_object_put(root);
	free(s);

	/* The transport's admission counters, as its admit_stats() reports them. */
	env->tgt->transport->admit = (struct rblk_fabric_admit_stats){
		.connections = 40, .pending = 3, .evicting = 2, .evicted = 17,
		.refused_queues = 5, .refused_pending = 6, .refused_pending_addr = 7,
	};
	CU_ASSERT_EQUAL_FATAL(rblk_target_stats_json(env->tgt, &s), 0);
	root = json_tokener_parse(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	{
		struct json_object *adm = get(root, "admission"), *ref;

		CU_ASSERT_PTR_NOT_NULL_FATAL(adm);
		CU_ASSERT_EQUAL(json_object_get_int(get(adm, "connections")), 40);
		CU_ASSERT_EQUAL(json_object_get_int(get(adm, "pending")), 3);
		CU_ASSERT_EQUAL(json_object_get_int(get(adm, "evicting")), 2);
		CU_ASSERT_EQUAL(json_object_get_int(get(adm, "evicted")), 17);
		ref = get(adm, "refused");
		CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
		CU_ASSERT_EQUAL(json_object_get_int(get(ref, "max_queues")), 5);
		CU_ASSERT_EQUAL(json_object_get_int(get(ref, "max_pending_queues")), 6);
		CU_ASSERT_EQUAL(json_object_get_int(get(ref, "max_pending_per_addr")), 7);
	}
	json_object_put(root);
	free(s);
	free(b);
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	tt_env_destroy(env);
}

static const struct ut_case cases[] = {
	UT_CASE(test_opts_defaults_and_validation),
	UT_CASE(test_listen),
	UT_CASE(test_port_links),
	UT_CASE(test_start_run_stop),
	UT_CASE(test_stats_json),
	UT_END,
};

UT_MAIN("target/target", cases)
