/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/reactor.c on a fake transport (its ops count what the
 * loop asks of them): the mailbox (run_on runs on the reactor's thread, in
 * order, exactly once, also when posted right before a stop), adaptive and
 * event polling sleep when idle and wake up for a message, busy polling never
 * sleeps; the transport's poll comes before its flush in every iteration, its
 * timers run when due and only while it has some, an armed source that finds
 * work keeps the reactor awake, its own fd's events reach it, and it is torn
 * down once, only when it has no queues left. The adaptive spin's decisions
 * are spin_ut.c's.
 *
 * Every verdict is a count of the reactor's events (its stats: iterations,
 * sleeps, messages run), never a duration: the test waits for a count to be
 * reached, and the wait's bound (HANG_GUARD_MS) only keeps a broken reactor
 * from hanging the run. On a loaded machine the waits take longer; what
 * they wait for does not change.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/util.h"
#include "target/reactor.h"
#include "ut.h"

#define HANG_GUARD_MS 10000

struct probe {
	_Atomic uint64_t runs;
	_Atomic int order_ok;
	_Atomic int last;
	pthread_t thread;
	int seq;
};

static void probe_fn(void *arg)
{
	struct probe *p = arg;

	p->thread = pthread_self();
	atomic_fetch_add(&p->runs, 1);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* A transport that counts what the loop asks of it. */
struct fake {
	struct rblk_reactor r;
	_Atomic uint64_t polls, flushes, ticks, arms, events, teardowns;
	_Atomic bool timers;           /* has_timers() */
	_Atomic bool busy;             /* busy(): queues still open */
	_Atomic unsigned arm_work;     /* arm() reports work this many more times */
	_Atomic int order_bad;         /* a flush without its poll first */
	bool polled;
	int efd;                       /* the transport's own wakeup source */
};

static struct fake *fake_of(struct rblk_reactor *r)
{
	return rblk_container_of(r, struct fake, r);
}

static unsigned f_poll(struct rblk_reactor *r)
{
	fake_of(r)->polled = true;
	atomic_fetch_add(&fake_of(r)->polls, 1);
	return 0;
}

static unsigned f_flush(struct rblk_reactor *r)
{
	struct fake *f = fake_of(r);

	if (!f->polled)
		atomic_fetch_add(&f->order_bad, 1);
	f->polled = false;
	atomic_fetch_add(&f->flushes, 1);
	return 0;
}

static bool f_has_timers(struct rblk_reactor *r)
{
	return atomic_load(&fake_of(r)->timers);
}

static uint64_t f_tick(struct rblk_reactor *r, uint64_t now_ms)
{
	atomic_fetch_add(&fake_of(r)->ticks, 1);
	return now_ms + 5;
}

static bool f_work_due(struct rblk_reactor *r)
{
	(void)r;
	return false;
}

static bool f_arm(struct rblk_reactor *r)
{
	struct fake *f = fake_of(r);
	unsigned w = atomic_load(&f->arm_work);

	atomic_fetch_add(&f->arms, 1);
	if (!w)
		return false;
	atomic_store(&f->arm_work, w - 1);
	return true;
}

static void f_event(struct rblk_reactor *r, void *tag)
{
	struct fake *f = fake_of(r);
	uint64_t v;

	if (tag == &f->efd && read(f->efd, &v, sizeof(v)) == sizeof(v))
		atomic_fetch_add(&f->events, 1);
}

static void f_take_events(struct rblk_reactor *r)
{
	(void)r;
}

static bool f_busy(struct rblk_reactor *r)
{
	return atomic_load(&fake_of(r)->busy);
}

static void f_teardown(struct rblk_reactor *r)
{
	atomic_fetch_add(&fake_of(r)->teardowns, 1);
}

static const struct rblk_reactor_ops fake_ops = {
	.poll = f_poll,
	.flush = f_flush,
	.has_timers = f_has_timers,
	.tick = f_tick,
	.work_due = f_work_due,
	.arm = f_arm,
	.event = f_event,
	.take_events = f_take_events,
	.busy = f_busy,
	.teardown = f_teardown,
};

static struct fake *start(enum rblk_poll_mode mode)
{
	struct fake *pg = calloc(1, sizeof(*pg));

	CU_ASSERT_PTR_NOT_NULL_FATAL(pg);
	pg->efd = -1;
	CU_ASSERT_EQUAL_FATAL(rblk_reactor_init(&pg->r, &fake_ops, 7, mode, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_reactor_start(&pg->r), 0);
	return pg;
}

static void destroy(struct fake *pg)
{
	rblk_reactor_fini(&pg->r);
	if (pg->efd >= 0)
		close(pg->efd);
	free(pg);
}

/* Waits for the event count *c to reach n. */
static bool reaches(_Atomic uint64_t *c, uint64_t n)
{
	for (unsigned i = 0; i < HANG_GUARD_MS && atomic_load(c) < n; i++)
		sleep_ms(1);
	return atomic_load(c) >= n;
}

static void test_run_on_runs_on_the_reactor_thread_in_order(void)
{
	struct fake *pg = start(RBLK_POLL_ADAPTIVE);
	static struct probe p[8];

	for (int i = 0; i < 8; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].seq = i + 1;
	}
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p[i]), 0);
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_TRUE(reaches(&p[i].runs, 1));
		CU_ASSERT_EQUAL(atomic_load(&p[i].runs), 1);
		CU_ASSERT_FALSE(pthread_equal(p[i].thread, pthread_self()));
		CU_ASSERT_TRUE(pthread_equal(p[i].thread, p[0].thread));
	}
	destroy(pg);
}

static void chain_fn(void *arg)
{
	struct probe *p = arg;

	/* Strictly increasing across calls means FIFO. */
	if (atomic_load(&p->last) + 1 == p->seq)
		atomic_fetch_add(&p->order_ok, 1);
	atomic_store(&p->last, p->seq);
	atomic_fetch_add(&p->runs, 1);
}

struct seq_arg {
	struct probe *shared;
	int seq;
};

static void seq_fn(void *arg)
{
	struct seq_arg *a = arg;

	a->shared->seq = a->seq;
	chain_fn(a->shared);
}

static void test_messages_before_stop_still_run_once(void)
{
	struct fake *pg = start(RBLK_POLL_EVENT);
	static struct seq_arg args[100];
	struct probe shared;

	memset(&shared, 0, sizeof(shared));
	for (int i = 0; i < 100; i++) {
		args[i].shared = &shared;
		args[i].seq = i + 1;
		CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, seq_fn, &args[i]), 0);
	}
	rblk_reactor_stop(&pg->r);
	CU_ASSERT_EQUAL(atomic_load(&shared.runs), 100);
	CU_ASSERT_EQUAL(atomic_load(&shared.order_ok), 100);
	destroy(pg);
}

/*
 * Asleep for good: not one iteration nor sleep more while nothing happens.
 * A reactor without timers sleeps with no timeout, so any count here is a
 * wakeup without a cause. The pause only gives one the time to show; load
 * makes it shorter in effect, and cannot make the counts move.
 */
static bool stays_asleep(struct fake *pg)
{
	uint64_t iterations = atomic_load(&pg->r.stats.iterations);
	uint64_t sleeps = atomic_load(&pg->r.stats.sleeps);

	sleep_ms(20);
	return atomic_load(&pg->r.stats.iterations) == iterations &&
	       atomic_load(&pg->r.stats.sleeps) == sleeps;
}

static void idle_sleeps(enum rblk_poll_mode mode)
{
	struct fake *pg = start(mode);
	uint64_t sleeps, iterations;
	struct probe p;

	/* No queues, nothing in flight: it goes to sleep, and stays asleep. */
	CU_ASSERT_TRUE_FATAL(reaches(&pg->r.stats.sleeps, 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.msgs), 0);
	/* A message wakes it: the message runs, and the reactor sleeps again, once. */
	memset(&p, 0, sizeof(p));
	p.seq = 1;
	sleeps = atomic_load(&pg->r.stats.sleeps);
	iterations = atomic_load(&pg->r.stats.iterations);
	CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p), 0);
	CU_ASSERT_TRUE(reaches(&pg->r.stats.msgs, 1));
	CU_ASSERT_EQUAL(atomic_load(&p.runs), 1);
	CU_ASSERT_TRUE(reaches(&pg->r.stats.sleeps, sleeps + 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), sleeps + 1);
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.msgs), 1);
	/*
	 * Event mode polls no more than the message needs: the iteration that
	 * runs it and the empty one that sends the reactor back to sleep. (The
	 * adaptive mode spins a while first, for as long as its clock says.)
	 */
	if (mode == RBLK_POLL_EVENT)
		CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.iterations), iterations + 2);
	destroy(pg);
}

static void test_adaptive_sleeps_when_idle(void)
{
	idle_sleeps(RBLK_POLL_ADAPTIVE);
}

static void test_event_sleeps_when_idle(void)
{
	idle_sleeps(RBLK_POLL_EVENT);
}

static void test_busy_never_sleeps(void)
{
	struct fake *pg = start(RBLK_POLL_BUSY);
	struct probe p;

	/* Thousands of empty iterations, and not one sleep among them. */
	CU_ASSERT_TRUE(reaches(&pg->r.stats.iterations, 10000));
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), 0);
	memset(&p, 0, sizeof(p));
	p.seq = 1;
	CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p), 0);
	CU_ASSERT_TRUE(reaches(&pg->r.stats.msgs, 1));
	CU_ASSERT_EQUAL(atomic_load(&p.runs), 1);
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), 0);
	destroy(pg);
}

/* Every iteration asks the transport to poll, then to flush, in that order. */
static void test_transport_poll_then_flush(void)
{
	struct fake *pg = start(RBLK_POLL_BUSY);

	CU_ASSERT_TRUE(reaches(&pg->r.stats.iterations, 1000));
	rblk_reactor_stop(&pg->r);
	CU_ASSERT_EQUAL(atomic_load(&pg->polls), atomic_load(&pg->r.stats.iterations));
	CU_ASSERT_EQUAL(atomic_load(&pg->flushes), atomic_load(&pg->r.stats.iterations));
	CU_ASSERT_EQUAL(atomic_load(&pg->order_bad), 0);
	destroy(pg);
}

/*
 * Timers: none, and the reactor sleeps without a timeout (no tick); some,
 * and it wakes for each deadline (5 ms apart here) without any message.
 */
static void test_timers_wake_only_when_there_are_some(void)
{
	struct fake *pg = start(RBLK_POLL_EVENT);
	struct probe p;

	CU_ASSERT_TRUE_FATAL(reaches(&pg->r.stats.sleeps, 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	CU_ASSERT_EQUAL(atomic_load(&pg->ticks), 0);
	/* On the reactor's thread, as a transport adds a queue. */
	memset(&p, 0, sizeof(p));
	atomic_store(&pg->timers, true);
	CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p), 0);
	CU_ASSERT_TRUE(reaches(&pg->ticks, 5));
	CU_ASSERT(atomic_load(&pg->r.stats.sleeps) >= 5);
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.msgs), 1);
	destroy(pg);
}

/* An armed source that finds work keeps the reactor awake: no sleep then. */
static void test_arm_finding_work_prevents_the_sleep(void)
{
	struct fake *pg = start(RBLK_POLL_EVENT);
	uint64_t sleeps, arms;
	struct probe p;

	CU_ASSERT_TRUE_FATAL(reaches(&pg->r.stats.sleeps, 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	sleeps = atomic_load(&pg->r.stats.sleeps);
	arms = atomic_load(&pg->arms);
	atomic_store(&pg->arm_work, 3);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p), 0);
	/* Three arms found work, the fourth did not: one sleep. */
	CU_ASSERT_TRUE(reaches(&pg->r.stats.sleeps, sleeps + 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	CU_ASSERT_EQUAL(atomic_load(&pg->arms), arms + 4);
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), sleeps + 1);
	destroy(pg);
}

/* The transport's own fd on the reactor's epoll set: its events reach ops->event. */
static void test_transport_event_reaches_it(void)
{
	struct fake *pg = start(RBLK_POLL_EVENT);
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t one = 1;

	CU_ASSERT_TRUE_FATAL(reaches(&pg->r.stats.sleeps, 1));
	pg->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ev.data.ptr = &pg->efd;
	CU_ASSERT_EQUAL_FATAL(epoll_ctl(pg->r.epfd, EPOLL_CTL_ADD, pg->efd, &ev), 0);
	for (uint64_t i = 1; i <= 3; i++) {
		CU_ASSERT_EQUAL(write(pg->efd, &one, sizeof(one)), (ssize_t)sizeof(one));
		CU_ASSERT_TRUE(reaches(&pg->events, i));
	}
	CU_ASSERT_EQUAL(atomic_load(&pg->events), 3);
	destroy(pg);
}

/* Torn down once at the stop, and not at all while the transport has queues. */
static void test_teardown_once_and_not_while_busy(void)
{
	struct fake *pg = start(RBLK_POLL_EVENT);

	rblk_reactor_stop(&pg->r);
	CU_ASSERT_EQUAL(atomic_load(&pg->teardowns), 1);
	destroy(pg);
	CU_ASSERT_TRUE(true);
	pg = start(RBLK_POLL_EVENT);
	atomic_store(&pg->busy, true);
	rblk_reactor_stop(&pg->r);
	CU_ASSERT_EQUAL(atomic_load(&pg->teardowns), 0);
	destroy(pg);
}

static const struct ut_case cases[] = {
	UT_CASE(test_run_on_runs_on_the_reactor_thread_in_order),
	UT_CASE(test_messages_before_stop_still_run_once),
	UT_CASE(test_adaptive_sleeps_when_idle),
	UT_CASE(test_event_sleeps_when_idle),
	UT_CASE(test_busy_never_sleeps),
	UT_CASE(test_transport_poll_then_flush),
	UT_CASE(test_timers_wake_only_when_there_are_some),
	UT_CASE(test_arm_finding_work_prevents_the_sleep),
	UT_CASE(test_transport_event_reaches_it),
	UT_CASE(test_teardown_once_and_not_while_busy),
	UT_END,
};

UT_MAIN("target/reactor", cases)
