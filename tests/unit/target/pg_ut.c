/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/pg.c: poll group registration, grace periods (a waiter
 * returns only once every online group passed a quiescent state or went
 * offline), and namespace removal against the lock-free I/O lookup (the
 * namespace stays until the grace period is over and the commands that
 * found it have completed). The "still waiting" checks give the waiter a
 * moment to finish wrongly; they can pass by luck on a broken build, never
 * fail on a correct one.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"

#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_tgt_pg other; /* a second poll group, driven by the test */

static void setup(void)
{
	struct rblk_target_opts o;

	rblk_target_opts_init(&o);
	o.num_poll_groups = 2;
	env = tt_env_create(&o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_EQUAL_FATAL(rblk_tgt_pg_register(env->tgt, &other, 1), 0);
}

static void teardown(void)
{
	rblk_tgt_pg_unregister(env->tgt, &other);
	tt_env_destroy(env);
	env = NULL;
}

struct waiter {
	pthread_t th;
	struct rblk_subsystem *ss; /* NULL: rblk_tgt_synchronize() only */
	int ret;
	atomic_bool done;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	if (w->ss)
		w->ret = rblk_subsys_remove_ns(w->ss, 1);
	else
		rblk_tgt_synchronize(env->tgt);
	atomic_store(&w->done, true);
	return NULL;
}

static void start(struct waiter *w, struct rblk_subsystem *ss)
{
	w->ss = ss;
	atomic_store(&w->done, false);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&w->th, NULL, wait_thread, w), 0);
}

/* The waiter has not returned after a moment (it must not be able to). */
static bool still_waiting(struct waiter *w)
{
	usleep(30000);
	return !atomic_load(&w->done);
}

static void finish(struct waiter *w)
{
	pthread_join(w->th, NULL);
	CU_ASSERT_TRUE(atomic_load(&w->done));
}

static void test_register(void)
{
	struct rblk_tgt_pg pg;

	setup();
	CU_ASSERT_EQUAL(env->tgt->nr_pgs, 2);
	CU_ASSERT_EQUAL(rblk_tgt_pg_register(env->tgt, &pg, 2), -ERANGE);
	CU_ASSERT_EQUAL(rblk_tgt_pg_register(env->tgt, &pg, 1), -EEXIST);
	CU_ASSERT_EQUAL(other.id, 1);
	/* Registered offline: nobody waits for a group that has not polled yet. */
	CU_ASSERT_TRUE(atomic_load(&other.qs) & 1);
	rblk_tgt_pg_unregister(env->tgt, &other);
	CU_ASSERT_PTR_NULL(env->tgt->pgs[1]);
	CU_ASSERT_EQUAL(rblk_tgt_pg_register(env->tgt, &other, 1), 0);
	teardown();
}

static void test_grace_period(void)
{
	struct waiter w;
	uint64_t qs;

	setup();
	/* Every group offline: over at once. */
	rblk_tgt_synchronize(env->tgt);

	/* One group online: the waiter needs its next quiescent state. */
	rblk_tgt_pg_quiescent(&other);
	qs = atomic_load(&other.qs);
	CU_ASSERT_FALSE(qs & 1);
	start(&w, NULL);
	CU_ASSERT_TRUE(still_waiting(&w));
	rblk_tgt_pg_quiescent(&other);
	CU_ASSERT_EQUAL(atomic_load(&other.qs), qs + 2);
	finish(&w);

	/* Going offline (to sleep) ends it too. */
	start(&w, NULL);
	CU_ASSERT_TRUE(still_waiting(&w));
	rblk_tgt_pg_offline(&other);
	finish(&w);

	/* So does a group that goes away. */
	rblk_tgt_pg_quiescent(&other);
	start(&w, NULL);
	CU_ASSERT_TRUE(still_waiting(&w));
	rblk_tgt_pg_unregister(env->tgt, &other);
	finish(&w);
	CU_ASSERT_EQUAL(rblk_tgt_pg_register(env->tgt, &other, 1), 0);
	teardown();
}

static void test_remove_waits_for_io_lookup(void)
{
	struct rblk_subsystem *ss;
	struct rblk_tgt_ns *ns;
	struct rblk_tgt_ns_stats st = { 0 };
	struct waiter w;

	setup();
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);

	/* Group 1 is in an iteration and finds the namespace: counted in its slot only. */
	rblk_tgt_pg_quiescent(&other);
	ns = rblk_subsys_io_ns(ss, 1, &other);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	CU_ASSERT_PTR_NULL(rblk_subsys_io_ns(ss, 2, &other));
	CU_ASSERT_PTR_NULL(rblk_subsys_io_ns(ss, 0, &other));
	CU_ASSERT_EQUAL(ns->pgstats[1].inflight, 1);
	CU_ASSERT_EQUAL(ns->pgstats[0].inflight, 0);
	CU_ASSERT_EQUAL(atomic_load(&ns->refs), 1);
	rblk_stat_inc(&ns->pgstats[1].read_cmds, 3);
	rblk_stat_inc(&ns->pgstats[0].read_cmds, 4);
	rblk_tgt_ns_stats_read(ns, &st);
	CU_ASSERT_EQUAL(st.read_cmds, 7);

	start(&w, ss);
	CU_ASSERT_TRUE(still_waiting(&w));
	/* Unpublished already: a lookup in the next iteration finds nothing. */
	rblk_tgt_pg_quiescent(&other);
	CU_ASSERT_PTR_NULL(rblk_subsys_io_ns(ss, 1, &other));
	/* The grace period is over, but the command that found it is in flight. */
	CU_ASSERT_TRUE(still_waiting(&w));
	rblk_tgt_ns_io_put(ns, &other);
	finish(&w);
	CU_ASSERT_EQUAL(w.ret, 0);
	/* The counters moved to the subsystem's retired sum. */
	CU_ASSERT_EQUAL(ss->retired.read_cmds, 7);
	teardown();
}

/* Each group's histogram slot is its own; a read sums them all. */
static void test_latency_summed_over_groups(void)
{
	struct rblk_tgt_ns_lat lat = { 0 };
	struct rblk_subsystem *ss;
	struct rblk_tgt_ns *ns;
	char *json = NULL;

	setup();
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	ns = ss->ns[0];
	rblk_stat_inc(&ns->pglat[0].lat[0][rblk_lat_bucket(20000)], 2);  /* <= 25 us */
	rblk_stat_inc(&ns->pglat[1].lat[0][rblk_lat_bucket(25000)], 3);  /* the same bucket */
	rblk_stat_inc(&ns->pglat[1].lat[1][rblk_lat_bucket(3000000)], 1); /* <= 5 ms */
	rblk_stat_inc(&ns->pglat[0].lat_sum_ns[0], 40000);
	rblk_stat_inc(&ns->pglat[1].lat_sum_ns[0], 75000);
	rblk_stat_inc(&ns->pglat[1].errors_sct[RBLK_TGT_SCT_PATH], 1);
	rblk_tgt_ns_lat_read(ns, &lat);
	CU_ASSERT_EQUAL(lat.lat[0][1], 5);
	CU_ASSERT_EQUAL(lat.lat[1][8], 1);
	CU_ASSERT_EQUAL(lat.lat_sum_ns[0], 115000);
	CU_ASSERT_EQUAL(lat.errors_sct[RBLK_TGT_SCT_PATH], 1);
	/* The statistics document carries them, per bucket, with the bounds. */
	CU_ASSERT_EQUAL_FATAL(rblk_target_stats_json(env->tgt, &json), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"sum_ns\":115000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"path\":1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"latency_bounds_ns\":["));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "10000000000"));
	free(json);
	teardown();
}

static void test_bucket_bounds(void)
{
	CU_ASSERT_EQUAL(rblk_lat_bucket(0), 0);
	CU_ASSERT_EQUAL(rblk_lat_bucket(10000), 0);
	CU_ASSERT_EQUAL(rblk_lat_bucket(10001), 1);
	CU_ASSERT_EQUAL(rblk_lat_bucket(1000000), 6);
	CU_ASSERT_EQUAL(rblk_lat_bucket(10000000000ull), RBLK_LAT_BOUNDS - 1);
	CU_ASSERT_EQUAL(rblk_lat_bucket(10000000001ull), RBLK_LAT_BOUNDS);
	CU_ASSERT_EQUAL(rblk_lat_bucket(UINT64_MAX), RBLK_LAT_BOUNDS);
	for (unsigned i = 1; i < RBLK_LAT_BOUNDS; i++)
		CU_ASSERT(rblk_lat_bound_ns[i] > rblk_lat_bound_ns[i - 1]);
}

/* Busy time: awake time since the start; it stands still while the group sleeps. */
static void test_busy_time(void)
{
	uint64_t b1, b2, b3;

	setup();
	CU_ASSERT_EQUAL(rblk_tgt_pg_busy_ns(&other), 0); /* not started */
	atomic_store(&other.start_ns, rblk_clock_ns() - 1000000000ull);
	b1 = rblk_tgt_pg_busy_ns(&other);
	CU_ASSERT(b1 >= 1000000000ull);
	rblk_tgt_pg_sleep_begin(&other);
	b1 = rblk_tgt_pg_busy_ns(&other);
	usleep(20000);
	b2 = rblk_tgt_pg_busy_ns(&other);
	CU_ASSERT_EQUAL(b2, b1);
	rblk_tgt_pg_sleep_end(&other);
	b3 = rblk_tgt_pg_busy_ns(&other);
	CU_ASSERT(b3 >= b2);
	CU_ASSERT(atomic_load(&other.sleep_ns) >= 20000000ull);
	/* Never more than the time since the start minus the sleep. */
	CU_ASSERT(b3 <= rblk_clock_ns() - atomic_load(&other.start_ns) - 20000000ull);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_latency_summed_over_groups),
	UT_CASE(test_bucket_bounds),
	UT_CASE(test_busy_time),
	UT_CASE(test_register),
	UT_CASE(test_grace_period),
	UT_CASE(test_remove_waits_for_io_lookup),
	UT_END,
};

UT_MAIN("target/pg", cases)
