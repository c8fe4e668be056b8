/* SPDX-License-Identifier: MIT */
/*
 * target_cpu: rblk-target's CPU cost per I/O on this machine's CPU, with the
 * RDMA device replaced by an in-process fabric (bench/fabric/). The target
 * is the real library (rblk_target_create, subsystem, null: or mem:
 * namespace, listen, start): its listener and CM thread, queue set-up, poll
 * groups, request state machine, WR chains, SRQ and core all run unchanged.
 * A host inside the fabric (host.c) brings a controller up and then keeps
 * QD commands in flight on one I/O queue per poll group, answering each
 * response with the next command inside the poll group's own thread. See
 * usage() for the method and the figures.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rblk/target.h>

#include "bench/target_cpu/host.h"
#include "bench/target_cpu/target_cpu.h"
#include "transport/addr.h"

#define SUBNQN "nqn.2014-08.org.rblk:target-cpu"
#define TRADDR "192.0.2.1"
#define IO_QUEUE_DEPTH 128
#define LONG_CALL_S 20e-6

struct wl_def {
	const char *name;
	bool write;
	uint32_t bs;
	unsigned qd;
};

static const struct wl_def workloads[] = {
	{ "randread-4k-qd32", false, 4096, 32 },
	{ "randwrite-4k-qd32", true, 4096, 32 },
	{ "read-128k-qd8", false, 131072, 8 },
};

struct opts {
	unsigned npg;
	const struct wl_def *wl;
	unsigned qd;
	double seconds;
	double warmup;
	unsigned reps;
	const char *json;
	bool verify;
	bool latency_stats;
	bool verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: target_cpu --workload W [--poll-groups N] [--seconds S] [--reps R] [--qd D]\n"
"                  [--warmup S] [--json FILE] [--verify] [--latency-stats] [--verbose]\n"
"\n"
"rblk-target's CPU cost per I/O on this CPU: the target library's real code\n"
"(listener and CM thread, queue set-up, poll groups in busy polling, request\n"
"state machine, WR chains, shared receive queue, core, null: backend) over an\n"
"in-process fabric that implements transport/rdma.h in memory.\n"
"\n"
"Workloads (random LBAs from a per-queue xorshift, aligned to the I/O size):\n"
"  randread-4k-qd32    4 KiB reads, keyed SGL: data by RDMA WRITE before the response\n"
"  randwrite-4k-qd32   4 KiB writes, in the capsule when the target's IOCCSZ leaves\n"
"                      room (as the Linux host does), else keyed SGL + RDMA READ\n"
"  read-128k-qd8       128 KiB reads at random 128 KiB-aligned offsets\n"
"\n"
"Method. A host inside the fabric connects one controller as the Linux host\n"
"does (CM private data, Fabrics Connect, CC.EN, CSTS.RDY, Identify) with N I/O\n"
"queues; the target places queues round robin, so each of the N poll groups\n"
"gets one. Then each queue runs a closed loop inside its poll group's thread:\n"
"when the target flushes its response chain, the fabric copies RDMA WRITE/READ\n"
"data at once, hands the CQE to the host, which checks status and CID and\n"
"writes the next capsule into the next posted receive (a receive completion);\n"
"signaled WRs complete on the send CQ. QD stays constant. After --warmup\n"
"seconds, R windows of S seconds each are measured back to back.\n"
"\n"
"Per window and poll group thread: CPU time (pthread_getcpuclockid, read by\n"
"the main thread at the window's edges), I/Os completed, and time inside the\n"
"fabric: the TSC read at entry and exit of every fabric function the target\n"
"calls (CQ poll, QP/SRQ queue and flush; the host's work runs inside the send\n"
"flush and is counted there), converted with a TSC rate calibrated against\n"
"CLOCK_MONOTONIC. A fabric call longer than 20 us during which the thread\n"
"was switched out (getrusage) is left out of fabric time and counted apart\n"
"(preempted_calls): its TSC time includes other threads' time.\n"
"\n"
"Figures (sums over the poll groups of one window):\n"
"  iops               I/Os / wall time of the window\n"
"  ns_per_io          (thread CPU - fabric time) / I/Os: the target's own CPU\n"
"                     per I/O, including the timer reads outside the fabric\n"
"                     windows (printed: their cost per call x fabric_calls_per_io)\n"
"  fabric_ns_per_io   fabric time / I/Os (memcpy of the data, the host)\n"
"  cpu_ns_per_io      thread CPU / I/Os (both)\n"
"  iops_per_core      1e9 / ns_per_io: what one core running only the target's\n"
"                     code would complete, were the fabric free\n"
"  util               thread CPU / (wall x groups): about 1 in busy polling;\n"
"                     lower when other work took the CPUs\n"
"  scaling            (with N > 1, which also runs a 1-group case first, on a\n"
"                     fresh target) median IOPS at N / (N x median IOPS at 1)\n"
"With --reps R each window is printed and then the median of each figure.\n"
"\n"
"  --poll-groups N   poll groups, one I/O queue each (default 1)\n"
"  --seconds S       window length (default 3)\n"
"  --reps R          windows (default 1)\n"
"  --warmup S        unmeasured seconds before the first window (default 1)\n"
"  --qd D            outstanding commands per queue (default: the workload's)\n"
"  --json FILE       every figure, every group and the configuration\n"
"  --latency-stats   keep the per-namespace latency histograms (what rblk-target\n"
"                    does with --metrics): one precise clock read per busy iteration\n"
"  --verify          mem: namespace instead of null:, half the I/Os writes that\n"
"                    stamp each block with its LBA, reads check the stamps; fails\n"
"                    unless written data was read back (the fabric's copies are real)\n"
"Exits 1 on any error (a failed CQE, a set-up step, no progress), naming it.\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "poll-groups", required_argument, NULL, 'g' },
		{ "workload", required_argument, NULL, 'w' },
		{ "seconds", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "qd", required_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "verify", no_argument, NULL, 'V' },
		{ "latency-stats", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->npg = 1;
	o->seconds = 3;
	o->warmup = 1;
	o->reps = 1;
	while ((c = getopt_long(argc, argv, "g:w:s:r:W:q:j:VLvh", lo, NULL)) != -1) {
		switch (c) {
		case 'g':
			o->npg = (unsigned)atoi(optarg);
			break;
		case 'w':
			for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
				if (!strcmp(optarg, workloads[i].name))
					o->wl = &workloads[i];
			if (!o->wl) {
				fprintf(stderr, "target_cpu: unknown workload \"%s\"\n", optarg);
				return -1;
			}
			break;
		case 's':
			o->seconds = atof(optarg);
			break;
		case 'r':
			o->reps = (unsigned)atoi(optarg);
			break;
		case 'W':
			o->warmup = atof(optarg);
			break;
		case 'q':
			o->qd = (unsigned)atoi(optarg);
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'V':
			o->verify = true;
			break;
		case 'L':
			o->latency_stats = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (!o->wl) {
		fprintf(stderr, "target_cpu: --workload is required\n");
		return -1;
	}
	if (!o->qd)
		o->qd = o->wl->qd;
	if (o->npg < 1 || o->npg > TC_MAX_GROUPS || o->reps < 1 || o->reps > TC_MAX_REPS ||
	    o->seconds <= 0 || o->seconds > 600 || o->warmup < 0 || o->warmup > 600 || o->qd < 1 ||
	    o->qd >= IO_QUEUE_DEPTH) {
		fprintf(stderr, "target_cpu: poll groups 1..%d, reps 1..%d, seconds (0, 600], "
			"warmup [0, 600], qd 1..%d\n", TC_MAX_GROUPS, TC_MAX_REPS,
			IO_QUEUE_DEPTH - 1);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */

static void on_alarm(int sig)
{
	static const char msg[] = "target_cpu: time limit reached, giving up\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(2);
}

static bool verbose;

static void log_fn(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level <= RBLK_LOG_WARN || verbose)
		fprintf(stderr, "rblk: %s\n", msg);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec d = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&d, &d) && errno == EINTR)
		;
}

/*
 * The cost of timing one fabric call (ns): in all, and the part outside the
 * timed window, which lands in the caller's time (ns_per_io).
 */
static void timer_cost_ns(double tps, double *all, double *outside)
{
	struct fab_thread *self = fab_thread_self();
	uint64_t calls = atomic_load(&self->calls), ticks = atomic_load(&self->ticks);

	/* The fastest of 50 batches: another thread's time must not count. */
	*all = *outside = 1e9;
	for (int b = 0; b < 50; b++) {
		uint64_t t0 = atomic_load(&self->ticks);
		double w = now_s(), inside;

		for (int i = 0; i < 10000; i++)
			fab_leave(fab_ticks());
		w = (now_s() - w) * 1e9 / 1e4;
		inside = (double)(atomic_load(&self->ticks) - t0) * 1e9 / tps / 1e4;
		if (w < *all) {
			*all = w;
			*outside = w > inside ? w - inside : 0;
		}
	}
	atomic_store(&self->calls, calls);
	atomic_store(&self->ticks, ticks);
}

struct run {
	const struct opts *o;
	double tps;                   /* TSC ticks per second */
	struct tc_config *cfg;
	char err[512];
};

struct snap {
	double t;
	struct {
		uint64_t ios, ticks, calls, preempted, preempted_ticks;
		double cpu_ns;
	} g[TC_MAX_GROUPS];
};

static int take(struct host_ctrl *hc, struct fab_thread **th, unsigned n, struct snap *s,
		char *err, size_t len)
{
	for (unsigned i = 0; i < n; i++) {
		struct host_qstats qs;
		struct timespec ts;
		clockid_t cid;
		int ret = -pthread_getcpuclockid(th[i]->tid, &cid);

		if (!ret && clock_gettime(cid, &ts))
			ret = -errno;
		if (ret) {
			snprintf(err, len, "CPU clock of poll group thread %u: %s", i, strerror(-ret));
			return ret;
		}
		host_queue_stats(hc, i, &qs);
		s->g[i].ios = qs.done;
		s->g[i].ticks = atomic_load_explicit(&th[i]->ticks, memory_order_relaxed);
		s->g[i].calls = atomic_load_explicit(&th[i]->calls, memory_order_relaxed);
		s->g[i].preempted = atomic_load_explicit(&th[i]->preempted, memory_order_relaxed);
		s->g[i].preempted_ticks =
			atomic_load_explicit(&th[i]->preempted_ticks, memory_order_relaxed);
		s->g[i].cpu_ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
	}
	s->t = now_s();
	return 0;
}

static int target_up(const struct opts *o, struct rblk_target **out, char *err, size_t len)
{
	struct rblk_target_opts to;
	struct rblk_subsystem_opts so;
	struct rblk_ns_opts no;
	struct rblk_listen_opts lo;
	struct rblk_subsystem *ss;
	struct rblk_target *tgt;
	uint32_t nsid;
	int ret;

	rblk_target_opts_init(&to);
	to.num_poll_groups = o->npg;
	to.poll_mode = RBLK_POLL_BUSY;
	to.max_queue_depth = IO_QUEUE_DEPTH;
	to.latency_stats = o->latency_stats;
	ret = rblk_target_create(&to, &tgt);
	if (ret) {
		snprintf(err, len, "rblk_target_create: %s", strerror(-ret));
		return ret;
	}
	*out = tgt;
	rblk_subsystem_opts_init(&so);
	so.nqn = SUBNQN;
	so.allow_any_host = true;
	ret = rblk_target_add_subsystem(tgt, &so, &ss);
	if (ret) {
		snprintf(err, len, "adding the subsystem: %s", strerror(-ret));
		return ret;
	}
	rblk_ns_opts_init(&no);
	no.path = o->verify ? "mem:64M" : "null:1T";
	ret = rblk_subsystem_add_namespace(ss, &no, &nsid);
	if (ret) {
		snprintf(err, len, "namespace %s: %s", no.path, strerror(-ret));
		return ret;
	}
	rblk_listen_opts_init(&lo);
	lo.traddr = TRADDR;
	lo.trsvcid = 4420;
	ret = rblk_target_listen(tgt, &lo);
	if (ret) {
		snprintf(err, len, "listen on %s: %s", TRADDR, strerror(-ret));
		return ret;
	}
	ret = rblk_target_start(tgt);
	if (ret)
		snprintf(err, len, "rblk_target_start: %s", strerror(-ret));
	return ret;
}

/* The poll group threads serving the I/O queues: one each, all different. */
static int placement(struct host_ctrl *hc, unsigned n, struct fab_thread **th, char *err,
		     size_t len)
{
	for (unsigned i = 0; i < n; i++) {
		th[i] = host_queue_thread(hc, i);
		if (!th[i] || !th[i]->known) {
			snprintf(err, len, "I/O queue %u: its poll group thread is unknown", i + 1);
			return -ESRCH;
		}
		for (unsigned j = 0; j < i; j++) {
			if (th[j] == th[i]) {
				snprintf(err, len, "I/O queues %u and %u share a poll group: the "
					 "target did not place them round robin", j + 1, i + 1);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int measure(struct run *r, struct host_ctrl *hc, struct fab_thread **th,
		   struct tc_case *c)
{
	const struct opts *o = r->o;
	struct snap a, b;
	int ret;

	sleep_s(o->warmup);
	ret = take(hc, th, c->npg, &a, r->err, sizeof(r->err));
	for (unsigned rep = 0; !ret && rep < o->reps; rep++) {
		struct tc_fig *f = &c->rep[rep];
		char label[48];

		sleep_s(o->seconds);
		ret = take(hc, th, c->npg, &b, r->err, sizeof(r->err));
		if (ret)
			break;
		if (fab_failure()) {
			snprintf(r->err, sizeof(r->err), "%s", fab_failure());
			return -EIO;
		}
		memset(f, 0, sizeof(*f));
		f->wall_s = b.t - a.t;
		f->ngroups = c->npg;
		for (unsigned g = 0; g < c->npg; g++) {
			f->g[g].ios = b.g[g].ios - a.g[g].ios;
			f->g[g].cpu_ns = b.g[g].cpu_ns - a.g[g].cpu_ns;
			f->g[g].fabric_ticks = b.g[g].ticks - a.g[g].ticks;
			f->g[g].fabric_calls = b.g[g].calls - a.g[g].calls;
			f->g[g].preempted = b.g[g].preempted - a.g[g].preempted;
			f->g[g].preempted_ticks = b.g[g].preempted_ticks - a.g[g].preempted_ticks;
			if (!f->g[g].ios) {
				snprintf(r->err, sizeof(r->err), "poll group thread %u completed no "
					 "I/O in %.1f s", g, f->wall_s);
				return -ETIMEDOUT;
			}
		}
		tc_fig_derive(f, r->tps / 1e9);
		c->nreps++;
		snprintf(label, sizeof(label), "groups %u rep %u:", c->npg, rep + 1);
		tc_print_fig(stdout, label, f);
		fflush(stdout);
		a = b;
	}
	return ret;
}

static int run_case(struct run *r, unsigned npg, struct tc_case *c)
{
	struct opts o = *r->o;
	struct fab_thread *th[TC_MAX_GROUPS];
	struct rblk_target *tgt = NULL;
	struct host_ctrl *hc = NULL;
	struct sockaddr_storage dst;
	struct host_wl wl;
	int ret;

	o.npg = npg;
	c->npg = npg;
	ret = target_up(&o, &tgt, r->err, sizeof(r->err));
	if (!ret) {
		rblk_addr_parse(TRADDR, 4420, &dst);
		ret = host_ctrl_connect((struct sockaddr *)&dst, SUBNQN, npg, IO_QUEUE_DEPTH, &hc,
					r->err, sizeof(r->err));
	}
	if (!ret)
		ret = placement(hc, npg, th, r->err, sizeof(r->err));
	if (!ret) {
		const struct host_info *hi = host_ctrl_info(hc);

		wl.name = o.wl->name;
		wl.write = o.wl->write;
		wl.bs = o.wl->bs;
		wl.qd = o.qd;
		wl.verify = o.verify;
		r->cfg->incapsule = host_wl_incapsule(hc, &wl);
		r->cfg->icd_bytes = hi->icd_bytes;
		if (npg == r->o->npg || npg == 1)
			printf("groups %u: controller %u, namespace %llu x %u B, in-capsule data up "
			       "to %u B, %s\n", npg, hi->cntlid, (unsigned long long)hi->nsze,
			       hi->lba_size, hi->icd_bytes,
			       !wl.write && !wl.verify ? "reads by RDMA WRITE"
			       : r->cfg->incapsule	   ? "writes in the capsule"
							   : "writes by keyed SGL + RDMA READ");
		for (unsigned i = 0; !ret && i < npg; i++) {
			ret = host_queue_start(hc, i, &wl, 0x9E3779B97F4A7C15ull * (i + 1));
			if (ret)
				snprintf(r->err, sizeof(r->err), "starting I/O queue %u: %s", i + 1,
					 strerror(-ret));
		}
	}
	if (!ret)
		ret = measure(r, hc, th, c);
	if (hc && host_ctrl_stop(hc, 5000) && !ret) {
		snprintf(r->err, sizeof(r->err), "the I/O did not drain in 5 s%s%s",
			 fab_failure() ? ": " : "", fab_failure() ? fab_failure() : "");
		ret = -ETIMEDOUT;
	}
	if (!ret && hc)
		ret = host_ctrl_shutdown(hc, r->err, sizeof(r->err));
	if (!ret && o.verify) {
		for (unsigned i = 0; i < npg; i++) {
			struct host_qstats qs;

			host_queue_stats(hc, i, &qs);
			r->cfg->verified += qs.verified;
		}
		if (!r->cfg->verified) {
			snprintf(r->err, sizeof(r->err), "verify: no written block was read back");
			ret = -EIO;
		}
	}
	rblk_target_destroy(tgt);
	host_ctrl_destroy(hc);
	if (!ret && fab_failure()) {
		snprintf(r->err, sizeof(r->err), "%s", fab_failure());
		ret = -EIO;
	}
	if (!ret)
		tc_case_median(c);
	return ret;
}

int main(int argc, char **argv)
{
	static struct tc_case cases[2];
	struct tc_config cfg = { 0 };
	struct opts o;
	struct run r = { 0 };
	double load[1] = { 0 }, scaling = -1;
	unsigned ncases = 0, limit;

	if (parse(argc, argv, &o))
		return 1;
	verbose = o.verbose;
	rblk_log_set_handler(log_fn, NULL);
	rblk_log_set_level(o.verbose ? RBLK_LOG_INFO : RBLK_LOG_WARN);
	/* Bounded: every phase has its own timeout; this catches the rest. */
	limit = (unsigned)((o.warmup + o.seconds * o.reps) * (o.npg > 1 ? 2 : 1)) + 60;
	signal(SIGALRM, on_alarm);
	alarm(limit);

	getloadavg(load, 1);
	r.o = &o;
	r.cfg = &cfg;
	r.tps = fab_ticks_per_sec();
	/* Longer than any flush of this benchmark's chains runs for. */
	fab_long_ticks = (uint64_t)(r.tps * LONG_CALL_S);
	cfg.workload = o.wl->name;
	cfg.op = o.verify ? "verify (50% writes)" : o.wl->write ? "write" : "read";
	cfg.bs = o.wl->bs;
	cfg.qd = o.qd;
	cfg.ns_path = o.verify ? "mem:64M" : "null:1T";
	cfg.seconds = o.seconds;
	cfg.warmup_s = o.warmup;
	cfg.reps = o.reps;
	cfg.srq_depth = 1024;
	cfg.latency_stats = o.latency_stats;
	cfg.tsc_ghz = r.tps / 1e9;
	timer_cost_ns(r.tps, &cfg.timer_ns, &cfg.timer_outside_ns);
	cfg.load1 = load[0];
	cfg.ncpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	printf("target_cpu: %s, %s %u B, QD %u per queue, %s namespace, busy polling; "
	       "load %.2f on %u CPUs\n"
	       "TSC %.3f GHz; timing a fabric call costs %.1f ns, %.1f of it outside the timed "
	       "window (in ns_per_io: that x fabric_calls_per_io)\n",
	       o.wl->name, cfg.op, cfg.bs, cfg.qd, cfg.ns_path, cfg.load1, cfg.ncpus, cfg.tsc_ghz,
	       cfg.timer_ns, cfg.timer_outside_ns);

	if (o.npg > 1) {
		if (run_case(&r, 1, &cases[ncases])) {
			fprintf(stderr, "target_cpu: 1 poll group: %s\n", r.err);
			return 1;
		}
		ncases++;
	}
	if (run_case(&r, o.npg, &cases[ncases])) {
		fprintf(stderr, "target_cpu: %u poll group%s: %s\n", o.npg, o.npg > 1 ? "s" : "",
			r.err);
		return 1;
	}
	ncases++;
	for (unsigned i = 0; i < ncases; i++) {
		char label[48];

		snprintf(label, sizeof(label), "groups %u median:", cases[i].npg);
		tc_print_fig(stdout, label, &cases[i].med);
	}
	if (ncases == 2) {
		scaling = cases[1].med.iops / (o.npg * cases[0].med.iops);
		printf("scaling %.3f (IOPS at %u groups / (%u x IOPS at 1))\n", scaling, o.npg, o.npg);
	}
	if (o.verify)
		printf("verify: %llu blocks read back as written\n",
		       (unsigned long long)cfg.verified);
	if (o.json) {
		int ret = tc_write_json(o.json, &cfg, cases, ncases, scaling);

		if (ret) {
			fprintf(stderr, "target_cpu: %s: %s\n", o.json, strerror(-ret));
			return 1;
		}
	}
	return 0;
}
