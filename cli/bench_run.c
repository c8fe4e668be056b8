/* SPDX-License-Identifier: MIT */
/*
 * The `rblk bench` engine (see cli/bench_run.h). Each job thread owns
 * --qpairs queue pairs, a free list of --qd slots with registered buffers,
 * and its own histograms, so the I/O path takes no lock and allocates
 * nothing; the only shared state is a stop flag and per-thread byte counters
 * read with relaxed atomics by the sampling thread.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/bench_run.h"
#include "cli/progress.h"
#include "common/spin.h"

#define WINDOW_S 0.1		/* throughput sampling window for the peak */

static volatile sig_atomic_t interrupted;

void rblk_cli_bench_interrupt(void)
{
	interrupted = 1;
}

bool rblk_cli_bench_interrupted(void)
{
	return interrupted;
}

static const char *const rw_names[] = {
	[BENCH_READ] = "read",		 [BENCH_WRITE] = "write",
	[BENCH_RW] = "rw",		 [BENCH_RANDREAD] = "randread",
	[BENCH_RANDWRITE] = "randwrite", [BENCH_RANDRW] = "randrw",
};

const char *rblk_cli_bench_rw_str(enum bench_rw rw)
{
	return rw <= BENCH_RANDRW ? rw_names[rw] : "?";
}

int rblk_cli_bench_rw_parse(const char *s, enum bench_rw *out)
{
	for (unsigned i = 0; i <= BENCH_RANDRW; i++) {
		if (!strcmp(s, rw_names[i])) {
			*out = i;
			return 0;
		}
	}
	if (!strcmp(s, "readwrite")) {
		*out = BENCH_RW;
		return 0;
	}
	return -EINVAL;
}

bool rblk_cli_bench_rw_writes(enum bench_rw rw, unsigned rwmixread)
{
	switch (rw) {
	case BENCH_WRITE:
	case BENCH_RANDWRITE:
		return true;
	case BENCH_RW:
	case BENCH_RANDRW:
		return rwmixread < 100;
	default:
		return false;
	}
}

/* xorshift64*: offsets and the read/write mix. */
static inline uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

struct job;

struct slot {
	struct rblk_io io;
	struct job *job;
	struct rblk_qpair *qp;		/* the job's qpair this slot always uses */
	void *buf;
	bool heap;
	uint64_t t0, off;
	int dir;
};

struct job {
	pthread_t tid;
	uint64_t now;			/* this loop pass's time, when now_valid */
	bool now_valid;
	const struct bench_params *p;
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	struct rblk_qpair *qp[BENCH_QPAIRS_MAX];
	unsigned nqp;
	struct pollfd pfd[BENCH_QPAIRS_MAX];
	unsigned idx;
	struct slot *slots;
	unsigned *free, nfree;
	uint64_t rng;
	uint64_t lo, hi, cursor;	/* this job's region (sequential: its share) */
	uint32_t lbs;
	bool pass_done;
	struct bench_result r;		/* this job's part */
	uint64_t bytes_live;		/* read by the sampler (relaxed atomics) */
	uint64_t t_end;
	int setup_err;
	bool ready;
};

struct run {
	const struct bench_params *p;
	struct job *jobs;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;
	bool go;
	bool stop;		/* relaxed atomics */
};

static struct run *cur_run;

/*
 * Latency stamps come from one clock read per pass of the job loop that has
 * work, taken when first needed: a pass that reaps 8 I/Os and posts 8 more
 * reads the clock once (at the first callback), an empty pass not at all.
 * With an HPET clocksource every read of the precise clock is a system call,
 * and two per I/O were most of what the loop cost. A submission may be
 * stamped earlier than it was posted, by the time the callbacks before it
 * took (microseconds): latencies err long, never short.
 */
static inline uint64_t pass_now(struct job *j)
{
	if (!j->now_valid) {
		j->now = rblk_clock_ns();
		j->now_valid = true;
	}
	return j->now;
}

static bool stopping(void)
{
	return __atomic_load_n(&cur_run->stop, __ATOMIC_RELAXED) || interrupted;
}

static void fail(struct job *j, int err, uint16_t status, uint64_t off, const char *what)
{
	if (!j->r.err) {
		j->r.err = err;
		j->r.status = status;
		j->r.err_off = off;
		snprintf(j->r.err_what, sizeof(j->r.err_what), "%s", what);
	}
	__atomic_store_n(&cur_run->stop, true, __ATOMIC_RELAXED);
}

static void io_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct slot *s = arg;
	struct job *j = s->job;
	uint64_t lat = pass_now(j) - s->t0;

	(void)io;
	j->free[j->nfree++] = (unsigned)(s - j->slots);
	if (status || err) {
		fail(j, err ? err : -EREMOTEIO, status, s->off, s->dir == BENCH_DIR_READ ? "read" : "write");
		return;
	}
	rblk_hist_add(&j->r.lat[s->dir], lat);
	j->r.ios[s->dir]++;
	j->r.bytes[s->dir] += j->p->bs;
	__atomic_store_n(&j->bytes_live, j->bytes_live + j->p->bs, __ATOMIC_RELAXED);
	if (s->dir == BENCH_DIR_READ && j->p->verify) {
		uint32_t bad = rblk_cli_pattern_check(s->buf, s->off, j->p->bs, j->p->seed);

		j->r.verify_checked++;
		if (bad < j->p->bs && !j->r.verify_bad++)
			j->r.first_bad_off = s->off + bad;
	}
}

/* Picks the next I/O of this job; false when a one-pass job is done. */
static bool next_io(struct job *j, struct slot *s)
{
	const struct bench_params *p = j->p;
	bool random = p->rw >= BENCH_RANDREAD;
	uint64_t blocks = (j->hi - j->lo) / p->bs;

	switch (p->rw) {
	case BENCH_READ:
	case BENCH_RANDREAD:
		s->dir = BENCH_DIR_READ;
		break;
	case BENCH_WRITE:
	case BENCH_RANDWRITE:
		s->dir = BENCH_DIR_WRITE;
		break;
	default:
		s->dir = rnd(&j->rng) % 100 < p->rwmixread ? BENCH_DIR_READ : BENCH_DIR_WRITE;
		break;
	}
	if (p->one_pass)
		s->dir = BENCH_DIR_WRITE;
	if (random && !p->one_pass) {
		s->off = j->lo + rnd(&j->rng) % blocks * p->bs;
	} else {
		if (j->cursor + p->bs > j->hi) {
			if (p->one_pass)
				return false;
			j->cursor = j->lo;
		}
		s->off = j->cursor;
		j->cursor += p->bs;
	}
	return true;
}

static int submit_one(struct job *j)
{
	struct slot *s = &j->slots[j->free[j->nfree - 1]];
	int ret;

	if (!next_io(j, s)) {
		j->pass_done = true;
		return 0;
	}
	if (s->dir == BENCH_DIR_WRITE && j->p->verify)
		rblk_cli_pattern_fill(s->buf, s->off, j->p->bs, j->p->seed);
	memset(&s->io, 0, sizeof(s->io));
	s->io.op = s->dir == BENCH_DIR_READ ? RBLK_OP_READ : RBLK_OP_WRITE;
	s->io.ns = j->ns;
	s->io.lba = s->off / j->lbs;
	s->io.nlb = j->p->bs / j->lbs;
	s->io.buf = s->buf;
	s->t0 = pass_now(j);
	ret = rblk_submit(s->qp, &s->io, io_done, s);
	if (ret == -EAGAIN)
		return 0;	/* queue full: poll first */
	if (ret) {
		fail(j, ret, 0, s->off, "submit");
		return ret;
	}
	j->nfree--;
	return 1;
}

/* One pass over the job's qpairs (rblk_poll also posts what was queued on each); count or -errno. */
static int poll_qpairs(struct job *j, unsigned max)
{
	int found = 0;

	for (unsigned i = 0; i < j->nqp; i++) {
		int n = rblk_poll(j->qp[i], max);

		if (n < 0)
			return n;
		found += n;
	}
	return found;
}

/*
 * Arms the qpairs with I/O in flight and sleeps on their fds for up to 1 ms.
 * 0 after the sleep; 1 when a completion arrived while arming, or -errno
 * (poll again at once: the poll reports the error).
 */
static int sleep_qpairs(struct job *j)
{
	unsigned n = 0;

	for (unsigned i = 0; i < j->nqp; i++) {
		int ret;

		if (!rblk_qpair_inflight(j->qp[i]))
			continue;
		ret = rblk_qpair_prepare_sleep(j->qp[i]);
		if (ret)
			return ret;
		j->pfd[n++] = (struct pollfd){ .fd = rblk_qpair_fd(j->qp[i]), .events = POLLIN };
	}
	poll(j->pfd, n, 1);
	return 0;
}

static void job_loop(struct job *j)
{
	const unsigned qd = j->p->qd;
	struct rblk_spin spin = { 0 };

	for (;;) {
		int n;

		while (j->nfree && !j->pass_done && !stopping())
			if (submit_one(j) <= 0)
				break;
		if (j->nfree == qd && (j->pass_done || stopping()))
			break;
		/* completions are stamped after they are reaped, new I/Os with that time */
		j->now_valid = false;
		n = poll_qpairs(j, qd);
		if (n < 0) {
			fail(j, n, 0, 0, "poll");
			/* the library failed the queue: nothing more will complete */
			break;
		}
		if (n > 0) {
			rblk_spin_work(&spin, true);
			continue;
		}
		/*
		 * Spin a little after the last completion, then sleep on the
		 * qpairs' fds (common/spin.h: the window, its rare clock reads,
		 * and no spin at all while windows keep running out empty). A
		 * longer spin (1 ms, enough for a QD1 round trip in the VM)
		 * doubled the CPU per 128 KiB I/O in an A/B boot and slowed it:
		 * in a TCG VM the initiator shares two CPUs with the target and
		 * Soft-RoCE, and spinning takes theirs. An empty pass makes no
		 * system call (the qpairs are lazy: they are armed only before
		 * we sleep).
		 */
		if (j->p->busy_poll || rblk_spin_empty(&spin, false, NULL) == RBLK_SPIN_POLL)
			continue;
		if (sleep_qpairs(j) != 0)
			rblk_spin_work(&spin, false);
		else
			rblk_spin_slept(&spin);
	}
	__atomic_store_n(&j->t_end, rblk_clock_ns(), __ATOMIC_RELAXED);
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	struct run *run = cur_run;
	int ret = 0;

	while (!ret && j->nqp < j->p->qpairs) {
		ret = rblk_qpair_alloc(j->ctrl, &j->qp[j->nqp]);
		if (!ret)
			rblk_qpair_set_lazy_arm(j->qp[j->nqp++], true);	/* sleep_qpairs arms */
	}
	/* slots take the qpairs in turn, so each holds at most qd / nqp, rounded up */
	for (unsigned i = 0; !ret && i < j->p->qd; i++)
		j->slots[i].qp = j->qp[i % j->nqp];
	pthread_mutex_lock(&run->lock);
	j->setup_err = ret;
	j->ready = true;
	run->ready++;
	pthread_cond_broadcast(&run->cond);
	while (!run->go)
		pthread_cond_wait(&run->cond, &run->lock);
	pthread_mutex_unlock(&run->lock);
	if (!ret && !stopping())
		job_loop(j);
	else
		__atomic_store_n(&j->t_end, rblk_clock_ns(), __ATOMIC_RELAXED);
	return NULL;
}

static void job_free(struct job *j)
{
	for (unsigned i = 0; j->slots && i < j->p->qd; i++) {
		if (j->slots[i].heap)
			free(j->slots[i].buf);
		else if (j->slots[i].buf)
			rblk_buf_free(j->ctrl, j->slots[i].buf);
	}
	free(j->slots);
	free(j->free);
	for (unsigned i = 0; i < j->nqp; i++)
		rblk_qpair_free(j->qp[i]);
}

static int job_setup(struct job *j, const struct bench_params *p, struct rblk_ctrl *ctrl,
		     struct rblk_ns *ns, unsigned idx)
{
	uint64_t share;

	memset(j, 0, sizeof(*j));
	j->p = p;
	j->ctrl = ctrl;
	j->ns = ns;
	j->idx = idx;
	j->lbs = rblk_ns_block_size(ns);
	j->rng = 0x9e3779b97f4a7c15ULL * (idx + 1) ^ (uint64_t)time(NULL);
	rblk_hist_init(&j->r.lat[0]);
	rblk_hist_init(&j->r.lat[1]);
	/* sequential streams split the region; random ones share all of it */
	share = p->size / p->numjobs / p->bs * p->bs;
	if (p->rw >= BENCH_RANDREAD && !p->one_pass) {
		j->lo = p->start;
		j->hi = p->start + p->size / p->bs * p->bs;
	} else {
		j->lo = p->start + idx * share;
		j->hi = idx + 1 == p->numjobs ? p->start + p->size / p->bs * p->bs : j->lo + share;
	}
	j->cursor = j->lo;
	if (j->hi - j->lo < p->bs)
		return -EINVAL;
	j->slots = calloc(p->qd, sizeof(*j->slots));
	j->free = calloc(p->qd, sizeof(*j->free));
	if (!j->slots || !j->free)
		return -ENOMEM;
	for (unsigned i = 0; i < p->qd; i++) {
		struct slot *s = &j->slots[i];

		s->job = j;
		s->buf = rblk_buf_alloc(ctrl, p->bs);
		if (!s->buf) {
			if (posix_memalign(&s->buf, 4096, p->bs))
				return -ENOMEM;
			s->heap = true;
		}
		/* incompressible, so nothing on the way can cheat */
		for (uint32_t w = 0; w < p->bs / 8; w++)
			((uint64_t *)s->buf)[w] = rnd(&j->rng);
		j->free[j->nfree++] = i;
	}
	return 0;
}

static uint64_t live_bytes(struct run *run)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < run->p->numjobs; i++)
		sum += __atomic_load_n(&run->jobs[i].bytes_live, __ATOMIC_RELAXED);
	return sum;
}

static bool all_done(struct run *run)
{
	for (unsigned i = 0; i < run->p->numjobs; i++)
		if (!__atomic_load_n(&run->jobs[i].t_end, __ATOMIC_RELAXED))
			return false;
	return true;
}

static void sample_loop(struct run *run, uint64_t t0, struct bench_result *r)
{
	const struct bench_params *p = run->p;
	struct cli_progress prog;
	uint64_t last_b = 0, last_t = t0, last_print = t0;
	double window = p->time > 0 && p->time < 5 * WINDOW_S ? p->time / 5 : WINDOW_S;
	/*
	 * Completions come in bursts of up to a whole queue: a window that catches
	 * one burst of 32 x 1 MiB in 100 ms would report a rate nothing sustained.
	 * A window counts for the peak only once it holds two queues' worth of
	 * bytes; until then it keeps growing.
	 */
	uint64_t min_bytes = 2ULL * p->qd * p->numjobs * p->bs;

	rblk_cli_progress_init(&prog, p->progress, 0);
	for (;;) {
		struct timespec ts = { 0, (long)(window * 1e9 / 4) };
		uint64_t t = rblk_clock_ns(), b;

		if (!p->one_pass && (double)(t - t0) / 1e9 >= p->time)
			break;
		if (all_done(run) || stopping())
			break;
		nanosleep(&ts, NULL);
		t = rblk_clock_ns();
		if ((double)(t - last_t) / 1e9 < window)
			continue;
		b = live_bytes(run);
		if (b - last_b >= min_bytes) {
			double bps = (double)(b - last_b) / ((double)(t - last_t) / 1e9);

			if (bps > r->peak_bps)
				r->peak_bps = bps;
			last_b = b;
			last_t = t;
		}
		if (p->progress && t - last_print >= 1000000000ULL) {
			double el = (double)(t - t0) / 1e9;

			fprintf(stderr, "\r  [%s %5.1fs] %.1f MB/s, %.0f IOPS   ", p->label ? p->label : "",
				el, (double)b / el / 1e6, (double)b / p->bs / el);
			fflush(stderr);
			prog.drawn = 48;
			last_print = t;
		}
	}
	rblk_cli_progress_end(&prog);
}

int rblk_cli_bench_run(struct rblk_ctrl *ctrl, struct rblk_ns *ns, const struct bench_params *p,
		       struct bench_result *r)
{
	struct run run = { .p = p };
	unsigned started = 0;
	uint64_t t0, t_end = 0;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	rblk_hist_init(&r->lat[0]);
	rblk_hist_init(&r->lat[1]);
	if (!p->numjobs || !p->qd || !p->bs || p->size < p->bs || !p->qpairs || p->qpairs > BENCH_QPAIRS_MAX)
		return -EINVAL;
	run.jobs = calloc(p->numjobs, sizeof(*run.jobs));
	if (!run.jobs)
		return -ENOMEM;
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.cond, NULL);
	cur_run = &run;
	for (unsigned i = 0; i < p->numjobs && !ret; i++)
		ret = job_setup(&run.jobs[i], p, ctrl, ns, i);
	for (unsigned i = 0; i < p->numjobs && !ret; i++) {
		ret = -pthread_create(&run.jobs[i].tid, NULL, job_main, &run.jobs[i]);
		if (!ret)
			started++;
	}
	/* every thread has its queue pair before the clock starts */
	pthread_mutex_lock(&run.lock);
	while (run.ready < started)
		pthread_cond_wait(&run.cond, &run.lock);
	for (unsigned i = 0; i < started && !ret; i++)
		ret = run.jobs[i].setup_err;
	if (ret)
		run.stop = true;
	t0 = rblk_clock_ns();
	run.go = true;
	pthread_cond_broadcast(&run.cond);
	pthread_mutex_unlock(&run.lock);

	if (!ret)
		sample_loop(&run, t0, r);
	__atomic_store_n(&run.stop, true, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < started; i++)
		pthread_join(run.jobs[i].tid, NULL);

	for (unsigned i = 0; i < started; i++) {
		struct job *j = &run.jobs[i];

		for (int d = 0; d < 2; d++) {
			r->ios[d] += j->r.ios[d];
			r->bytes[d] += j->r.bytes[d];
			rblk_hist_merge(&r->lat[d], &j->r.lat[d]);
		}
		if (j->r.verify_bad && !r->verify_bad)
			r->first_bad_off = j->r.first_bad_off;
		r->verify_checked += j->r.verify_checked;
		r->verify_bad += j->r.verify_bad;
		if (j->r.err && !r->err) {
			r->err = j->r.err;
			r->status = j->r.status;
			r->err_off = j->r.err_off;
			memcpy(r->err_what, j->r.err_what, sizeof(r->err_what));
		}
		if (j->t_end > t_end)
			t_end = j->t_end;
	}
	r->seconds = t_end > t0 ? (double)(t_end - t0) / 1e9 : 0;
	/* a run shorter than a window has no peak of its own: the average stands in */
	if (r->seconds > 0 && (double)(r->bytes[0] + r->bytes[1]) / r->seconds > r->peak_bps)
		r->peak_bps = (double)(r->bytes[0] + r->bytes[1]) / r->seconds;
	for (unsigned i = 0; i < p->numjobs; i++)
		job_free(&run.jobs[i]);
	cur_run = NULL;
	pthread_cond_destroy(&run.cond);
	pthread_mutex_destroy(&run.lock);
	free(run.jobs);
	return ret;
}
