/* SPDX-License-Identifier: MIT */
/*
 * backend_bench: the block backends side by side with fio on the same file.
 *
 * For each workload (4 KiB random reads, 128 KiB sequential reads), queue
 * depth (1, 32, 128) and engine (uring, aio, plus mem and null as
 * references) it runs our engine for --runtime seconds, then fio with the
 * matching ioengine (io_uring, libaio, null) and the same file, block size,
 * depth and runtime, alternating ours/fio (and which goes first), --reps
 * times, and reports medians:
 * IOPS, MB/s, latency avg/p50/p99 (submit to completion) and CPU, and the
 * ratios ours/fio. Both sides use O_DIRECT on a file that is fully written
 * beforehand (a sparse file would be read from holes, not the disk); nothing
 * is dropped from any cache.
 *
 * Ours is what a reactor does: one thread, one queue, busy polling (or
 * sleeping on the queue's eventfd with --mode event), completions reaped 32
 * at a time, new I/O submitted from the callbacks and sent with one flush per
 * poll; uring with registered buffers and a fixed file. fio gets the
 * matching features: --fixedbufs --registerfiles for io_uring,
 * --userspace_reap for libaio.
 *
 * A benchmark, not a test: it prints figures and never judges them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "bench/fio.h"
#include "bench/stats.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/util.h"

struct workload {
	const char *name;
	const char *fio_rw;
	uint32_t bs;
	bool random;
};

static const struct workload workloads[] = {
	{ "rand4k", "randread", 4096, true },
	{ "seq128k", "read", 131072, false },
};
#define NWORK (sizeof(workloads) / sizeof(workloads[0]))

static const char *const all_engines[] = { "uring", "aio", "mem", "null" };
#define NENG 4

static struct {
	const char *file;
	uint64_t size;
	double runtime;
	int reps;
	bool engine_on[NENG];
	bool work_on[NWORK];
	unsigned qds[8];
	unsigned nqd;
	bool fio;
	const char *fio_bin;
	const char *json;
	bool event_mode;
	bool thp;
	unsigned batch;
} cfg = {
	.file = "/var/tmp/rblk-bench.img",
	.size = 1ull << 30,
	.runtime = 5,
	.reps = 3,
	.engine_on = { true, true, true, true },
	.work_on = { true, true },
	.qds = { 1, 32, 128 },
	.nqd = 3,
	.fio = true,
	.fio_bin = "fio",
	.batch = 32,
};

struct run;

struct io {
	struct rblk_bio bio;
	struct iovec iov;
	uint64_t t0;
	struct run *run;
};

struct run {
	struct rblk_bqueue *q;
	struct rblk_bdev *bdev;
	const struct workload *w;
	struct io *ios;
	unsigned qd;
	bool stop;
	uint64_t done;
	uint64_t rng;
	uint64_t cursor;
	uint64_t nblocks;
	int err;
	struct rblk_hist hist;
};

static uint64_t next_offset(struct run *run)
{
	uint64_t blk;

	if (run->w->random) {
		/* xorshift64*: cheap and good enough to spread offsets. */
		run->rng ^= run->rng >> 12;
		run->rng ^= run->rng << 25;
		run->rng ^= run->rng >> 27;
		blk = (run->rng * 2685821657736338717ull) % run->nblocks;
	} else {
		blk = run->cursor++;
		if (run->cursor == run->nblocks)
			run->cursor = 0;
	}
	return blk * run->w->bs;
}

static int start_io(struct run *run, struct io *io)
{
	int r;

	io->bio.offset = next_offset(run);
	io->t0 = rblk_bench_now_ns();
	r = rblk_bqueue_submit(run->q, &io->bio);
	if (r) {
		run->err = r;
		run->stop = true;
	}
	return r;
}

static void io_done(struct rblk_bio *bio)
{
	struct io *io = rblk_container_of(bio, struct io, bio);
	struct run *run = io->run;

	if (bio->res) {
		run->err = bio->res;
		run->stop = true;
		return;
	}
	if (run->stop)
		return;
	{
		rblk_hist_add(&run->hist, rblk_bench_now_ns() - io->t0);
		run->done++;
	}
	start_io(run, io);
}

/* Sleeps until the queue's eventfd says something completed. */
static void wait_event(int efd)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v;

	if (poll(&p, 1, 100) == 1 && read(efd, &v, sizeof(v)) < 0) {
		/* Spurious: poll again. */
	}
}

/*
 * I/O buffers, left untouched: like fio's, their pages are faulted in by
 * the kernel when registered or first used. That matters on virtio disks
 * without indirect descriptors (Firecracker): every physically separate
 * page is one ring descriptor, so how contiguous the buffers happen to be
 * decides how many requests the device has in flight. --thp asks for
 * transparent huge pages (2 MiB aligned, MADV_HUGEPAGE) to show the effect.
 */
static void *alloc_buffers(size_t len)
{
	const size_t huge = 2u << 20;
	void *p;

	if (!cfg.thp)
		return aligned_alloc(4096, (len + 4095) / 4096 * 4096);
	len = (len + huge - 1) / huge * huge;
	p = aligned_alloc(huge, len);
	if (p)
		madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* Each I/O of @run reads its own @w->bs slice of @bufs, registered as buffer i (@regs). */
static void init_ios(struct run *run, char *bufs, struct iovec *regs)
{
	for (unsigned i = 0; i < run->qd; i++) {
		struct io *io = &run->ios[i];

		io->iov = (struct iovec){ bufs + (size_t)i * run->w->bs, run->w->bs };
		regs[i] = io->iov;
		io->run = run;
		io->bio.op = RBLK_BIO_READ;
		io->bio.bdev = run->bdev;
		io->bio.len = run->w->bs;
		io->bio.iov = &io->iov;
		io->bio.iovcnt = 1;
		io->bio.buf_index = i;
		io->bio.cb = io_done;
	}
}

/*
 * The measured part: qd I/Os kept in flight for cfg.runtime (polling, or
 * sleeping on @efd when idle), then drained. The figures go to @res
 * (cpu_pct even on failure). 0 or the first I/O error.
 */
static int drive(struct run *run, int efd, struct rblk_bench_result *res)
{
	uint64_t t0, t_end, t_stop;
	double c0, secs;

	c0 = rblk_bench_cpu_seconds();
	t0 = rblk_bench_now_ns();
	t_end = t0 + (uint64_t)(cfg.runtime * 1e9);
	for (unsigned i = 0; i < run->qd && !run->stop; i++)
		start_io(run, &run->ios[i]);
	rblk_bqueue_flush_submissions(run->q);
	for (;;) {
		int n = rblk_bqueue_poll(run->q, cfg.batch);

		if (n > 0)
			rblk_bqueue_flush_submissions(run->q);
		t_stop = rblk_bench_now_ns();
		if (t_stop >= t_end || run->stop)
			break;
		if (n == 0 && efd >= 0)
			wait_event(efd);
	}
	run->stop = true;
	res->cpu_pct = (rblk_bench_cpu_seconds() - c0) / ((t_stop - t0) / 1e9) * 100;
	while (rblk_bqueue_inflight(run->q)) {
		rblk_bqueue_flush_submissions(run->q);
		rblk_bqueue_poll(run->q, 64);
	}
	if (run->err)
		return run->err;
	secs = (t_stop - t0) / 1e9;
	res->iops = run->done / secs;
	res->mbps = run->done * (double)run->w->bs / secs / 1e6;
	res->lat_avg_us = rblk_hist_mean(&run->hist) / 1e3;
	res->lat_p50_us = (double)rblk_hist_pct(&run->hist, 50) / 1e3;
	res->lat_p99_us = (double)rblk_hist_pct(&run->hist, 99) / 1e3;
	res->ok = true;
	return 0;
}

static int run_ours(struct rblk_bdev *bdev, const char *engine, const struct workload *w,
		    unsigned qd, struct rblk_bench_result *res)
{
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = engine, .depth = qd,
				       .flags = RBLK_BQUEUE_SINGLE_ISSUER };
	struct run *run = calloc(1, sizeof(*run));
	struct iovec *regs = NULL;
	char *bufs = NULL;
	int efd = -1, r;

	if (!run)
		return -ENOMEM;
	res->ok = false;
	run->w = w;
	run->qd = qd;
	run->bdev = bdev;
	run->nblocks = bdev->size / w->bs;
	run->rng = 0x9e3779b97f4a7c15ull ^ rblk_bench_now_ns();
	rblk_hist_init(&run->hist);
	r = rblk_bqueue_create(&qo, &run->q);
	if (r)
		goto out;
	run->ios = calloc(qd, sizeof(*run->ios));
	regs = calloc(qd, sizeof(*regs));
	bufs = alloc_buffers((size_t)qd * w->bs);
	if (!run->ios || !regs || !bufs) {
		r = -ENOMEM;
		goto out_q;
	}
	init_ios(run, bufs, regs);
	r = rblk_bqueue_register_buffers(run->q, regs, qd);
	if (!r)
		r = rblk_bqueue_register_bdev(run->q, bdev);
	if (r)
		goto out_q;
	if (cfg.event_mode) {
		efd = rblk_bqueue_eventfd(run->q);
		if (efd < 0) {
			r = efd;
			goto out_q;
		}
	}
	r = drive(run, efd, res);
	if (r)
		fprintf(stderr, "backend_bench: %s %s qd %u: %s\n", engine, w->name, qd,
			strerror(-r));
	rblk_bqueue_unregister_bdev(run->q, bdev);
out_q:
	rblk_bqueue_destroy(run->q);
out:
	free(bufs);
	free(regs);
	if (run)
		free(run->ios);
	free(run);
	return r;
}

static const char *fio_engine(const char *engine)
{
	if (strcmp(engine, "uring") == 0)
		return "io_uring";
	if (strcmp(engine, "aio") == 0)
		return "libaio";
	if (strcmp(engine, "null") == 0)
		return "null";
	return NULL; /* mem: fio has no RAM-disk engine */
}

static int run_fio(const char *engine, const struct workload *w, unsigned qd,
		   struct rblk_bench_result *res, char *cmd, size_t cmdlen)
{
	char a_file[512], a_size[64], a_eng[64], a_rw[64], a_bs[64], a_qd[64], a_rt[64];
	const char *argv[32];
	int argc = 0, r;

	res->ok = false;
	snprintf(a_file, sizeof(a_file), "--filename=%s", cfg.file);
	snprintf(a_size, sizeof(a_size), "--size=%llu", (unsigned long long)cfg.size);
	snprintf(a_eng, sizeof(a_eng), "--ioengine=%s", fio_engine(engine));
	snprintf(a_rw, sizeof(a_rw), "--rw=%s", w->fio_rw);
	snprintf(a_bs, sizeof(a_bs), "--bs=%u", w->bs);
	snprintf(a_qd, sizeof(a_qd), "--iodepth=%u", qd);
	/* fio takes whole seconds unless told the unit. */
	snprintf(a_rt, sizeof(a_rt), "--runtime=%.0fms", cfg.runtime * 1000);
	argv[argc++] = cfg.fio_bin;
	argv[argc++] = "--name=rblk";
	argv[argc++] = a_file;
	argv[argc++] = a_size;
	argv[argc++] = a_eng;
	argv[argc++] = "--direct=1";
	argv[argc++] = a_rw;
	argv[argc++] = a_bs;
	argv[argc++] = a_qd;
	argv[argc++] = a_rt;
	argv[argc++] = "--time_based";
	argv[argc++] = "--invalidate=0";
	argv[argc++] = "--norandommap";
	argv[argc++] = "--randrepeat=0";
	argv[argc++] = "--lat_percentiles=1";
	argv[argc++] = "--output-format=json";
	if (strcmp(engine, "uring") == 0) {
		argv[argc++] = "--fixedbufs=1";
		argv[argc++] = "--registerfiles=1";
	} else if (strcmp(engine, "aio") == 0) {
		argv[argc++] = "--userspace_reap=1";
	}
	argv[argc] = NULL;
	rblk_bench_fio_cmdline(argv, cmd, cmdlen);
	r = rblk_bench_fio_run(argv, res);
	if (r)
		fprintf(stderr, "backend_bench: fio failed (%s): %s\n", cmd, strerror(-r));
	return r;
}

/* The file both sides read: created and fully written once, then reused. */
static int prepare_file(void)
{
	const size_t chunk = 1 << 20;
	struct stat st;
	char *buf;
	int fd, r = 0;

	if (stat(cfg.file, &st) == 0 && (uint64_t)st.st_size >= cfg.size &&
	    (uint64_t)st.st_blocks * 512 >= cfg.size)
		return 0;
	fprintf(stderr, "backend_bench: writing %llu MiB to %s\n",
		(unsigned long long)(cfg.size >> 20), cfg.file);
	fd = open(cfg.file, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return -errno;
	buf = malloc(chunk);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < chunk; i++)
		buf[i] = (char)(i * 131 + 7);
	for (uint64_t off = 0; off < cfg.size && !r; off += chunk) {
		buf[0] = (char)(off >> 20);
		if (pwrite(fd, buf, chunk, off) != (ssize_t)chunk)
			r = -EIO;
	}
	if (!r && fsync(fd) < 0)
		r = -errno;
	free(buf);
	close(fd);
	return r;
}

static void fill_done(struct rblk_bio *bio)
{
}

/* Real data in the RAM disk, so reads copy pages that exist (not the zero page). */
static int fill_mem(struct rblk_bdev *bdev)
{
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = "mem", .depth = 1 };
	const size_t chunk = 1 << 20;
	struct rblk_bqueue *q = NULL;
	char *buf = malloc(chunk);
	struct iovec iov = { buf, chunk };
	struct rblk_bio bio = { .op = RBLK_BIO_WRITE, .bdev = bdev, .len = chunk, .iov = &iov,
				.iovcnt = 1, .buf_index = -1, .cb = fill_done };
	int r;

	if (!buf)
		return -ENOMEM;
	r = rblk_bqueue_create(&qo, &q);
	for (uint64_t off = 0; !r && off < bdev->size; off += chunk) {
		memset(buf, (int)(off >> 20) | 1, chunk);
		bio.offset = off;
		r = rblk_bqueue_submit(q, &bio);
		if (!r && rblk_bqueue_poll(q, 1) != 1)
			r = -EIO;
		if (!r)
			r = bio.res;
	}
	if (q)
		rblk_bqueue_destroy(q);
	free(buf);
	return r;
}

static struct rblk_bdev *open_engine_bdev(const char *engine)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = engine };
	struct rblk_bdev *bdev = NULL;
	int r;

	if (strcmp(engine, "mem") == 0 || strcmp(engine, "null") == 0) {
		o.capacity = cfg.size;
		o.path = engine;
	} else {
		o.path = cfg.file;
		o.direct = RBLK_DIRECT_REQUIRE;
	}
	r = rblk_bdev_open(&o, &bdev);
	if (r) {
		fprintf(stderr, "backend_bench: %s: cannot open (%s)\n", engine, strerror(-r));
		return NULL;
	}
	if (strcmp(engine, "mem") == 0 && fill_mem(bdev)) {
		rblk_bdev_close(bdev);
		return NULL;
	}
	return bdev;
}

static void print_header(void)
{
	printf("%-8s %4s %-6s | %10s %8s %8s %8s %8s %5s | %10s %8s %8s %8s %8s %5s | %6s %6s\n",
	       "workload", "qd", "engine", "IOPS", "MB/s", "avg_us", "p50_us", "p99_us", "cpu%",
	       "fio_IOPS", "MB/s", "avg_us", "p50_us", "p99_us", "cpu%", "x_iops", "x_lat");
}

static void print_row(const struct workload *w, unsigned qd, const char *engine,
		      const struct rblk_bench_result *o, const struct rblk_bench_result *f)
{
	printf("%-8s %4u %-6s | %10.0f %8.1f %8.1f %8.1f %8.1f %5.0f |", w->name, qd, engine,
	       o->iops, o->mbps, o->lat_avg_us, o->lat_p50_us, o->lat_p99_us, o->cpu_pct);
	if (f && f->ok)
		printf(" %10.0f %8.1f %8.1f %8.1f %8.1f %5.0f | %6.2f %6.2f\n", f->iops, f->mbps,
		       f->lat_avg_us, f->lat_p50_us, f->lat_p99_us, f->cpu_pct, o->iops / f->iops,
		       f->lat_avg_us > 0 ? o->lat_avg_us / f->lat_avg_us : 0);
	else
		printf(" %10s %8s %8s %8s %8s %5s | %6s %6s\n", "-", "-", "-", "-", "-", "-", "-",
		       "-");
	fflush(stdout);
}

static void usage(void)
{
	printf("usage: backend_bench [options]\n"
	       "  --file PATH       file both sides read (default /var/tmp/rblk-bench.img,\n"
	       "                    created and written if missing or short)\n"
	       "  --size BYTES      its size (default 1 GiB; suffixes K M G)\n"
	       "  --runtime SEC     per point and side (default 5)\n"
	       "  --reps N          repetitions, alternating ours/fio (default 3; medians)\n"
	       "  --engines LIST    uring,aio,mem,null (default all)\n"
	       "  --workloads LIST  rand4k,seq128k (default both)\n"
	       "  --qd LIST         queue depths (default 1,32,128)\n"
	       "  --mode poll|event busy-poll (default) or sleep on the eventfd when idle\n"
	       "  --batch N         completions reaped per poll, then one flush (default 32)\n"
	       "  --thp             our buffers on transparent huge pages (fio: not)\n"
	       "  --no-fio          ours only\n"
	       "  --fio PATH        the fio binary (default: fio from PATH)\n"
	       "  --json FILE       write every figure as JSON\n");
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },  { "size", required_argument, NULL, 's' },
		{ "runtime", required_argument, NULL, 't' }, { "reps", required_argument, NULL, 'r' },
		{ "engines", required_argument, NULL, 'e' }, { "qd", required_argument, NULL, 'q' },
		{ "mode", required_argument, NULL, 'm' },  { "no-fio", no_argument, NULL, 'n' },
		{ "fio", required_argument, NULL, 'F' },   { "json", required_argument, NULL, 'j' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "thp", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
	};
	char why[160];
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': cfg.file = optarg; break;
		case 's':
			if (rblk_size_parse(optarg, &cfg.size, why, sizeof(why))) {
				fprintf(stderr, "backend_bench: --size %s: it %s\n", optarg, why);
				return -1;
			}
			break;
		case 't': cfg.runtime = atof(optarg); break;
		case 'r': cfg.reps = atoi(optarg); break;
		case 'n': cfg.fio = false; break;
		case 'F': cfg.fio_bin = optarg; break;
		case 'j': cfg.json = optarg; break;
		case 'm': cfg.event_mode = strcmp(optarg, "event") == 0; break;
		case 'e':
			for (int i = 0; i < NENG; i++)
				cfg.engine_on[i] = strstr(optarg, all_engines[i]) != NULL;
			break;
		case 'T': cfg.thp = true; break;
		case 'b': cfg.batch = (unsigned)atoi(optarg); break;
		case 'w':
			for (size_t i = 0; i < NWORK; i++)
				cfg.work_on[i] = strstr(optarg, workloads[i].name) != NULL;
			break;
		case 'q': {
			char *save, *tok, *s = strdup(optarg);

			cfg.nqd = 0;
			for (tok = strtok_r(s, ",", &save); tok && cfg.nqd < 8;
			     tok = strtok_r(NULL, ",", &save))
				cfg.qds[cfg.nqd++] = (unsigned)atoi(tok);
			free(s);
			break;
		}
		case 'h': usage(); exit(0);
		default: usage(); return -1;
		}
	}
	if (cfg.reps < 1 || cfg.reps > 64 || cfg.runtime <= 0 || cfg.size < (1 << 20) ||
	    cfg.nqd == 0 || cfg.batch == 0)
		return -1;
	for (unsigned i = 0; i < cfg.nqd; i++)
		if (cfg.qds[i] < 1 || cfg.qds[i] > RBLK_BQUEUE_MAX_DEPTH)
			return -1;
	return 0;
}

static json_object *config_json(void)
{
	json_object *jc = json_object_new_object();
	struct utsname un;

	uname(&un);
	json_object_object_add(jc, "file", json_object_new_string(cfg.file));
	json_object_object_add(jc, "size", json_object_new_int64(cfg.size));
	json_object_object_add(jc, "runtime_s", json_object_new_double(cfg.runtime));
	json_object_object_add(jc, "reps", json_object_new_int(cfg.reps));
	json_object_object_add(jc, "batch", json_object_new_int(cfg.batch));
	json_object_object_add(jc, "thp", json_object_new_boolean(cfg.thp));
	json_object_object_add(jc, "mode",
			       json_object_new_string(cfg.event_mode ? "event" : "poll"));
	json_object_object_add(jc, "kernel", json_object_new_string(un.release));
	json_object_object_add(jc, "cpus", json_object_new_int(sysconf(_SC_NPROCESSORS_ONLN)));
	return jc;
}

/* Ours over fio as JSON: only the ratios whose fio figure is usable. */
static json_object *ratio_json(const struct rblk_bench_result *mo, const struct rblk_bench_result *mf)
{
	json_object *jr = json_object_new_object();

	if (mf->ok && mf->iops > 0 && mf->lat_avg_us > 0) {
		json_object_object_add(jr, "iops", json_object_new_double(mo->iops / mf->iops));
		json_object_object_add(jr, "lat_avg", json_object_new_double(mo->lat_avg_us / mf->lat_avg_us));
		if (mf->lat_p50_us > 0)
			json_object_object_add(jr, "lat_p50", json_object_new_double(mo->lat_p50_us / mf->lat_p50_us));
		if (mf->lat_p99_us > 0)
			json_object_object_add(jr, "lat_p99", json_object_new_double(mo->lat_p99_us / mf->lat_p99_us));
	}
	return jr;
}

/*
 * One point (workload, qd, engine): cfg.reps runs of ours and of fio,
 * alternating, their medians printed as a row. Returns the point as JSON.
 */
static json_object *measure_point(struct rblk_bdev *bdev, const char *engine, const struct workload *w,
				  unsigned qd)
{
	bool with_fio = cfg.fio && fio_engine(engine);
	struct rblk_bench_result ours[64] = { { 0 } }, fio[64] = { { 0 } }, mo, mf;
	char cmd[1024] = "";
	json_object *jp;

	/*
	 * Alternate who goes first: the disk (and the host
	 * under a VM) remembers what was just read.
	 */
	for (int rep = 0; rep < cfg.reps; rep++) {
		if (with_fio && rep % 2)
			run_fio(engine, w, qd, &fio[rep], cmd, sizeof(cmd));
		run_ours(bdev, engine, w, qd, &ours[rep]);
		if (with_fio && !(rep % 2))
			run_fio(engine, w, qd, &fio[rep], cmd, sizeof(cmd));
	}
	mo = rblk_bench_median(ours, cfg.reps);
	mf = rblk_bench_median(fio, cfg.reps);
	print_row(w, qd, engine, &mo, with_fio ? &mf : NULL);

	jp = json_object_new_object();
	json_object_object_add(jp, "workload", json_object_new_string(w->name));
	json_object_object_add(jp, "bs", json_object_new_int(w->bs));
	json_object_object_add(jp, "qd", json_object_new_int(qd));
	json_object_object_add(jp, "engine", json_object_new_string(engine));
	json_object_object_add(jp, "ours", rblk_bench_reps_json(ours, cfg.reps, &mo));
	if (with_fio) {
		json_object *jf = rblk_bench_reps_json(fio, cfg.reps, &mf);

		json_object_object_add(jf, "cmd", json_object_new_string(cmd));
		json_object_object_add(jp, "fio", jf);
		json_object_object_add(jp, "ratio_ours_over_fio", ratio_json(&mo, &mf));
	}
	return jp;
}

int main(int argc, char **argv)
{
	struct rblk_bdev *bdevs[NENG] = { NULL };
	json_object *jroot, *jpoints;
	char why[256];
	int r;

	if (parse_args(argc, argv))
		return 2;
	rblk_log_set_level(RBLK_LOG_NOTICE);
	printf("backend_bench: auto engine here: %s (%s)\n", rblk_backend_auto_name(why, sizeof(why)),
	       why);
	r = prepare_file();
	if (r) {
		fprintf(stderr, "backend_bench: %s: %s\n", cfg.file, strerror(-r));
		return 1;
	}
	for (int e = 0; e < NENG; e++)
		if (cfg.engine_on[e])
			bdevs[e] = open_engine_bdev(all_engines[e]);

	jroot = json_object_new_object();
	jpoints = json_object_new_array();
	json_object_object_add(jroot, "config", config_json());

	print_header();
	for (size_t wi = 0; wi < NWORK; wi++) {
		if (!cfg.work_on[wi])
			continue;
		for (unsigned qi = 0; qi < cfg.nqd; qi++) {
			for (int e = 0; e < NENG; e++) {
				if (!bdevs[e])
					continue;
				json_object_array_add(jpoints, measure_point(bdevs[e], all_engines[e],
									     &workloads[wi], cfg.qds[qi]));
			}
		}
	}
	json_object_object_add(jroot, "points", jpoints);
	if (cfg.json &&
	    json_object_to_file_ext(cfg.json, jroot, JSON_C_TO_STRING_PRETTY) < 0)
		fprintf(stderr, "backend_bench: cannot write %s\n", cfg.json);
	json_object_put(jroot);
	for (int e = 0; e < NENG; e++)
		rblk_bdev_close(bdevs[e]);
	return 0;
}
