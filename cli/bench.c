/* SPDX-License-Identifier: MIT */
/*
 * `rblk bench`: two benchmarks people already know, on a remote namespace.
 *   - fio-like (default): --rw randread|randwrite|read|write|rw|randrw, --bs,
 *     --qd, --numjobs, --time; IOPS, bandwidth, latency avg/p50/p99/p99.9
 *     and a log2 latency histogram.
 *   - perftest-like (--sweep): every power-of-two size from 512 B to 1 MiB,
 *     BW peak and BW average per size, like `ib_write_bw -a`.
 * Around the measured runs it reads the RDMA port counters of the device
 * that carries the connection and checks they grew by at least the bytes
 * moved ("is it really RDMA?"). --save-baseline / --compare keep and check
 * the figures across runs (10% threshold by default).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/bench.h"
#include "cli/bench_run.h"
#include "cli/output.h"
#include "cli/progress.h"

#define VERIFY_SEED 0x72626c6b62656e63ULL	/* "rblkbenc" */

struct bench_args {
	enum bench_rw rw;
	bool have_rw;
	long rwmixread, qd, numjobs, qpairs;
	uint64_t bs, offset, size, sweep_min, sweep_max;
	double time, sweep_time, threshold;
	bool sweep, verify, force, busy_poll, no_counters, no_progress, require_rdma;
	const char *save, *compare, *sysfs_root;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: rblk bench -t rdma -a ADDR [-s PORT] -n SUBNQN [-N NSID] [--rw=MODE] [--bs=SIZE]\n"
		   "                  [--qd=N] [--numjobs=N] [--qpairs=N] [--time=SEC] [--verify] [-o json]\n"
		   "       rblk bench ... --sweep [--sweep-min=SIZE] [--sweep-max=SIZE] [--sweep-time=SEC]\n\n"
		   "Measures a remote namespace, fio-style (IOPS, bandwidth, latency percentiles and\n"
		   "histogram) or perftest-style with --sweep (BW peak and average for every size\n"
		   "from 512 B to 1 MiB, like ib_write_bw -a). Before and after, it reads the port\n"
		   "counters of the RDMA device that carries the connection and checks that they\n"
		   "grew by at least the bytes moved: if not, the data did not go over RDMA.\n\n");
	fputs(rblk_cli_conn_help, f);
	fprintf(f, "Workload:\n"
		   "  -N, --nsid=NSID               namespace (default: the only one)\n"
		   "      --rw=MODE                 randread (default), randwrite, read, write, rw, randrw\n"
		   "      --rwmixread=PCT           reads in rw/randrw (default 50)\n"
		   "      --bs=SIZE                 I/O size (default 4k)\n"
		   "      --qd=N, --iodepth=N       I/Os in flight per job (default 32)\n"
		   "      --numjobs=N               threads (default 1)\n"
		   "      --qpairs=N                I/O queues per job, --qd spread over them (default 1)\n"
		   "      --time=SEC, --runtime=SEC how long (default 10)\n"
		   "      --offset=BYTES --size=BYTES  the region used (default: the whole namespace)\n"
		   "      --verify                  write a pattern over the region first, then check\n"
		   "                                every read against it (exit 6 on a mismatch)\n"
		   "      --force                   allow writing modes (they overwrite the namespace)\n"
		   "      --busy-poll               never sleep waiting for completions\n"
		   "Size sweep (perftest style):\n"
		   "      --sweep                   sizes --sweep-min..--sweep-max, doubling (--rw default read)\n"
		   "      --sweep-min=SIZE          default 512 (or the block size)\n"
		   "      --sweep-max=SIZE          default 1m\n"
		   "      --sweep-time=SEC          per size (default 2)\n"
		   "Checks:\n"
		   "      --save-baseline=FILE      store the figures (JSON)\n"
		   "      --compare=FILE            flag figures that moved more than --threshold\n"
		   "                                (exit 6 if one got worse)\n"
		   "      --threshold=PCT           default 10\n"
		   "      --no-counters             skip the RDMA port counter check\n"
		   "      --require-rdma            exit 6 when the counter check says MISMATCH\n"
		   "      --no-progress             no progress line (shown only on a terminal)\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n"
		   "  rblk bench -t rdma -a 192.0.2.10 -n nqn.2024-01.io.example:disk0 -N 1 --rw randread --bs 4k --qd 32\n"
		   "  rblk bench -a 192.0.2.10 -n NQN --sweep --sweep-time 1 -o json\n"
		   "  rblk bench -a 192.0.2.10 -n NQN --rw randwrite --force --verify --time 30\n"
		   "  rblk bench -a 192.0.2.10 -n NQN --save-baseline base.json\n"
		   "  rblk bench -a 192.0.2.10 -n NQN --compare base.json\n");
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
	rblk_cli_bench_interrupt();
}

static double mbps(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e6 : 0;
}

static double r2(double v)
{
	return round(v * 100) / 100;
}

static const char *const dir_name[2] = { "read", "write" };

static void add_dir_figures(struct cli_figures *fs, const char *prefix, const struct bench_result *r, int d)
{
	char n[160];
	const struct rblk_hist *h = &r->lat[d];

#define FIG(suffix, val, unit, better)                                   \
	do {                                                             \
		snprintf(n, sizeof(n), "%s.%s.%s", prefix, dir_name[d], suffix); \
		rblk_cli_figures_add(fs, n, val, unit, better);          \
	} while (0)
	FIG("iops", r->seconds > 0 ? (double)r->ios[d] / r->seconds : 0, "IO/s", CLI_HIGHER_IS_BETTER);
	FIG("bw_MBps", mbps(r->bytes[d], r->seconds), "MB/s", CLI_HIGHER_IS_BETTER);
	FIG("lat_avg_us", rblk_hist_mean(h) / 1e3, "us", CLI_LOWER_IS_BETTER);
	FIG("lat_p50_us", (double)rblk_hist_pct(h, 50) / 1e3, "us", CLI_LOWER_IS_BETTER);
	FIG("lat_p99_us", (double)rblk_hist_pct(h, 99) / 1e3, "us", CLI_LOWER_IS_BETTER);
	FIG("lat_p99.9_us", (double)rblk_hist_pct(h, 99.9) / 1e3, "us", CLI_LOWER_IS_BETTER);
#undef FIG
}

static void print_dir(FILE *f, const struct bench_result *r, int d)
{
	const struct rblk_hist *h = &r->lat[d];
	char sz[32];

	fprintf(f, "  %s: IOPS %.0f, BW %.1f MB/s, %" PRIu64 " I/Os (%s) in %.2f s\n", dir_name[d],
		(double)r->ios[d] / r->seconds, mbps(r->bytes[d], r->seconds), r->ios[d],
		rblk_cli_fmt_iec(r->bytes[d], sz, sizeof(sz)), r->seconds);
	fprintf(f, "    lat (us): min %.2f, avg %.2f, p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f\n",
		(double)h->min / 1e3, rblk_hist_mean(h) / 1e3, (double)rblk_hist_pct(h, 50) / 1e3,
		(double)rblk_hist_pct(h, 99) / 1e3, (double)rblk_hist_pct(h, 99.9) / 1e3,
		(double)h->max / 1e3);
	fprintf(f, "    latency histogram (log2):\n");
	rblk_cli_hist_print(f, h, "      ");
}

static struct json_object *dir_json(const struct bench_result *r, int d)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "ios", json_object_new_uint64(r->ios[d]));
	json_object_object_add(o, "bytes", json_object_new_uint64(r->bytes[d]));
	json_object_object_add(o, "iops", json_object_new_double(r2((double)r->ios[d] / r->seconds)));
	json_object_object_add(o, "bw_MBps", json_object_new_double(r2(mbps(r->bytes[d], r->seconds))));
	json_object_object_add(o, "lat_us", rblk_cli_hist_json(&r->lat[d]));
	json_object_object_add(o, "histogram", rblk_cli_hist_log2_json(&r->lat[d]));
	return o;
}

/* A failed run: the exit code after saying what failed. */
static int run_failed(const struct bench_result *r)
{
	return rblk_cli_report(r->err == -EREMOTEIO ? CLI_OP_IO : CLI_OP_OTHER, r->err, r->status,
			       "%s at offset %" PRIu64 " failed", r->err_what, r->err_off);
}

static int verify_failed(const struct bench_result *r)
{
	rblk_cli_err("verify: %" PRIu64 " of %" PRIu64 " reads did not hold the pattern written; first "
		     "bad byte at offset %" PRIu64,
		     r->verify_bad, r->verify_checked, r->first_bad_off);
	return CLI_EXIT_CHECK;
}

static const struct option bench_longopts[] = {
	CLI_CONN_LONGOPTS,
	CLI_COMMON_LONGOPTS,
	{ "nsid", required_argument, NULL, 'N' },
	{ "namespace-id", required_argument, NULL, 'N' },
	{ "rw", required_argument, NULL, 1 },
	{ "rwmixread", required_argument, NULL, 2 },
	{ "bs", required_argument, NULL, 3 },
	{ "qd", required_argument, NULL, 4 },
	{ "iodepth", required_argument, NULL, 4 },
	{ "numjobs", required_argument, NULL, 5 },
	{ "time", required_argument, NULL, 6 },
	{ "runtime", required_argument, NULL, 6 },
	{ "offset", required_argument, NULL, 7 },
	{ "size", required_argument, NULL, 8 },
	{ "sweep", no_argument, NULL, 9 },
	{ "sweep-min", required_argument, NULL, 10 },
	{ "sweep-max", required_argument, NULL, 11 },
	{ "sweep-time", required_argument, NULL, 12 },
	{ "verify", no_argument, NULL, 13 },
	{ "force", no_argument, NULL, 14 },
	{ "busy-poll", no_argument, NULL, 15 },
	{ "save-baseline", required_argument, NULL, 16 },
	{ "compare", required_argument, NULL, 17 },
	{ "threshold", required_argument, NULL, 18 },
	{ "no-counters", no_argument, NULL, 19 },
	{ "no-progress", no_argument, NULL, 20 },
	{ "require-rdma", no_argument, NULL, 21 },
	{ "sysfs-root", required_argument, NULL, 22 },	/* tests: a fake /sys */
	{ "qpairs", required_argument, NULL, 23 },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct bench_args *a, struct cli_conn *c, enum cli_fmt *fmt)
{
	char why[160];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:", bench_longopts,
				  NULL)) != -1) {
		const char *o = optarg;

		switch (opt) {
		case 'h':
			usage(rblk_cli_out);
			return -1;
		case '?':
		case ':':
			return rblk_cli_bad_option(opt, argc, argv);
		case 'N':
			if (rblk_nsid_parse(o, &c->nsid, why, sizeof(why)))
				return rblk_cli_usage_err("invalid namespace ID '%s': it %s", o, why);
			c->have_nsid = true;
			break;
		case 1:
			if (rblk_cli_bench_rw_parse(o, &a->rw))
				return rblk_cli_usage_err("unknown --rw '%s' (read, write, randread, randwrite, rw, randrw)", o);
			a->have_rw = true;
			break;
		case 2:
			if (rblk_cli_parse_long(o, 0, 100, &a->rwmixread))
				return rblk_cli_usage_err("invalid --rwmixread '%s' (0..100)", o);
			break;
		case 3:
			if (rblk_size_parse(o, &a->bs, why, sizeof(why)))
				return rblk_cli_usage_err("invalid --bs '%s': it %s", o, why);
			if (!a->bs || a->bs > (64u << 20))
				return rblk_cli_usage_err("invalid --bs '%s': 1 block .. 64M", o);
			break;
		case 4:
			if (rblk_cli_parse_long(o, 1, 1024, &a->qd))
				return rblk_cli_usage_err("invalid --qd '%s' (1..1024)", o);
			break;
		case 5:
			if (rblk_cli_parse_long(o, 1, 256, &a->numjobs))
				return rblk_cli_usage_err("invalid --numjobs '%s' (1..256)", o);
			break;
		case 6:
		case 12:
			if (rblk_cli_parse_seconds(o, opt == 6 ? &a->time : &a->sweep_time) ||
			    (opt == 6 ? a->time : a->sweep_time) <= 0)
				return rblk_cli_usage_err("invalid --%s '%s' (seconds > 0)",
							  opt == 6 ? "time" : "sweep-time", o);
			break;
		case 7:
		case 8:
		case 10:
		case 11:
			if (rblk_size_parse(o, opt == 7 ? &a->offset : opt == 8 ? &a->size :
					    opt == 10 ? &a->sweep_min : &a->sweep_max, why, sizeof(why)))
				return rblk_cli_usage_err("invalid size '%s': it %s", o, why);
			break;
		case 9: a->sweep = true; break;
		case 13: a->verify = true; break;
		case 14: a->force = true; break;
		case 15: a->busy_poll = true; break;
		case 16: a->save = o; break;
		case 17: a->compare = o; break;
		case 18:
			if (rblk_cli_parse_seconds(o, &a->threshold))
				return rblk_cli_usage_err("invalid --threshold '%s' (a percentage)", o);
			break;
		case 19: a->no_counters = true; break;
		case 20: a->no_progress = true; break;
		case 21: a->require_rdma = true; break;
		case 22: a->sysfs_root = o; break;
		case 23:
			if (rblk_cli_parse_long(o, 1, BENCH_QPAIRS_MAX, &a->qpairs))
				return rblk_cli_usage_err("invalid --qpairs '%s' (1..%d)", o, BENCH_QPAIRS_MAX);
			break;
		default:
			ret = rblk_cli_conn_opt(c, opt, o);
			if (!ret)
				ret = rblk_cli_common_opt(opt, o, fmt);
			if (ret != 1)
				return ret;
		}
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	return 0;
}

/*
 * The defaults that depend on other options, and the combinations refused
 * before connecting (writes need --force). 0 or CLI_EXIT_USAGE.
 */
static int validate_args(struct bench_args *a)
{
	if (a->sweep && !a->have_rw)
		a->rw = BENCH_READ;
	if (a->sweep_min > a->sweep_max)
		return rblk_cli_usage_err("--sweep-min is larger than --sweep-max");
	if (rblk_cli_bench_rw_writes(a->rw, (unsigned)a->rwmixread) && !a->force)
		return rblk_cli_usage_err("--rw %s overwrites the namespace's data: add --force",
					  rblk_cli_bench_rw_str(a->rw));
	if (a->verify && !a->force)
		return rblk_cli_usage_err("--verify first writes a pattern over the region: add --force");
	return 0;
}

static struct json_object *params_json(const struct bench_args *a, const struct bench_params *p,
				       const struct rblk_connect_opts *o, uint32_t nsid)
{
	struct json_object *j = json_object_new_object();

	json_object_object_add(j, "mode", json_object_new_string(a->sweep ? "sweep" : "io"));
	json_object_object_add(j, "rw", json_object_new_string(rblk_cli_bench_rw_str(p->rw)));
	if (p->rw == BENCH_RW || p->rw == BENCH_RANDRW)
		json_object_object_add(j, "rwmixread", json_object_new_int((int)p->rwmixread));
	if (!a->sweep)
		json_object_object_add(j, "bs", json_object_new_int64(p->bs));
	json_object_object_add(j, "qd", json_object_new_int((int)p->qd));
	json_object_object_add(j, "numjobs", json_object_new_int((int)p->numjobs));
	json_object_object_add(j, "qpairs", json_object_new_int((int)p->qpairs));
	json_object_object_add(j, "time", json_object_new_double(a->sweep ? a->sweep_time : a->time));
	json_object_object_add(j, "offset", json_object_new_uint64(p->start));
	json_object_object_add(j, "size", json_object_new_uint64(p->size));
	json_object_object_add(j, "verify", json_object_new_boolean(p->verify));
	json_object_object_add(j, "traddr", json_object_new_string(o->traddr));
	json_object_object_add(j, "trsvcid", json_object_new_string(o->trsvcid ? o->trsvcid : "4420"));
	json_object_object_add(j, "subnqn", json_object_new_string(o->subnqn));
	json_object_object_add(j, "nsid", json_object_new_int64(nsid));
	return j;
}

/* Notes the parameters a baseline was taken with that differ now (figures may not compare). */
static void params_diff(struct json_object *base, struct json_object *now)
{
	if (!base)
		return;
	json_object_object_foreach(now, key, val) {
		struct json_object *b;

		bool num;

		if (!json_object_object_get_ex(base, key, &b))
			continue;
		num = (json_object_is_type(b, json_type_double) || json_object_is_type(b, json_type_int)) &&
		      (json_object_is_type(val, json_type_double) || json_object_is_type(val, json_type_int));
		/* numbers by value: the file says 2 where this run has 2.0 */
		if (num ? json_object_get_double(b) != json_object_get_double(val) :
			  strcmp(json_object_to_json_string(b), json_object_to_json_string(val)) != 0)
			rblk_cli_err("note: the baseline was taken with %s=%s, this run has %s", key,
				     json_object_to_json_string(b), json_object_to_json_string(val));
	}
}

struct bench_ctx {
	struct bench_args a;
	struct bench_params p;
	enum cli_fmt fmt;
	struct cli_figures figs;
	struct json_object *out;	/* -o json: the one final object */
	uint64_t moved[2];		/* bytes read / written in measured runs */
	uint64_t verify_bad;
};

static int run_io(struct bench_ctx *b, struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct bench_result *r = malloc(sizeof(*r));
	char prefix[64];
	int ret;

	if (!r)
		return CLI_EXIT_FAILURE;
	b->p.time = b->a.time;
	b->p.label = rblk_cli_bench_rw_str(b->p.rw);
	ret = rblk_cli_bench_run(ctrl, ns, &b->p, r);
	if (ret) {
		ret = rblk_cli_report(CLI_OP_CONNECT, ret, 0, "cannot start the benchmark");
		goto out;
	}
	if (r->err) {
		ret = run_failed(r);
		goto out;
	}
	b->moved[0] += r->bytes[0];
	b->moved[1] += r->bytes[1];
	b->verify_bad += r->verify_bad;
	snprintf(prefix, sizeof(prefix), "%s.bs%u.qd%u", rblk_cli_bench_rw_str(b->p.rw), b->p.bs, b->p.qd);
	for (int d = 0; d < 2; d++)
		if (r->ios[d])
			add_dir_figures(&b->figs, prefix, r, d);
	if (b->fmt == CLI_FMT_JSON) {
		struct json_object *res = json_object_new_object();

		json_object_object_add(res, "seconds", json_object_new_double(r2(r->seconds)));
		json_object_object_add(res, "ios", json_object_new_uint64(r->ios[0] + r->ios[1]));
		json_object_object_add(res, "bytes", json_object_new_uint64(r->bytes[0] + r->bytes[1]));
		json_object_object_add(res, "iops",
				       json_object_new_double(r2((double)(r->ios[0] + r->ios[1]) / r->seconds)));
		json_object_object_add(res, "bw_MBps",
				       json_object_new_double(r2(mbps(r->bytes[0] + r->bytes[1], r->seconds))));
		json_object_object_add(res, "bw_peak_MBps", json_object_new_double(r2(r->peak_bps / 1e6)));
		for (int d = 0; d < 2; d++)
			if (r->ios[d])
				json_object_object_add(res, dir_name[d], dir_json(r, d));
		if (b->p.verify) {
			struct json_object *v = json_object_new_object();

			json_object_object_add(v, "reads_checked", json_object_new_uint64(r->verify_checked));
			json_object_object_add(v, "mismatches", json_object_new_uint64(r->verify_bad));
			json_object_object_add(res, "verify", v);
		}
		json_object_object_add(b->out, "results", res);
	} else {
		FILE *f = rblk_cli_out;

		fprintf(f, "%s bs=%u qd=%u numjobs=%u qpairs=%u: %.0f IOPS, %.1f MB/s (peak %.1f MB/s)\n",
			rblk_cli_bench_rw_str(b->p.rw), b->p.bs, b->p.qd, b->p.numjobs, b->p.qpairs,
			(double)(r->ios[0] + r->ios[1]) / r->seconds,
			mbps(r->bytes[0] + r->bytes[1], r->seconds), r->peak_bps / 1e6);
		for (int d = 0; d < 2; d++)
			if (r->ios[d])
				print_dir(f, r, d);
		if (b->p.verify)
			fprintf(f, "  verify: %" PRIu64 " reads checked, %" PRIu64 " mismatches\n",
				r->verify_checked, r->verify_bad);
	}
	ret = r->verify_bad ? verify_failed(r) : CLI_EXIT_OK;
out:
	free(r);
	return ret;
}

static int run_sweep(struct bench_ctx *b, struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct bench_result *r = malloc(sizeof(*r));
	struct json_object *rows = json_object_new_array();
	uint32_t lbs = rblk_ns_block_size(ns);
	uint64_t lo = b->a.sweep_min ? b->a.sweep_min : 512, hi = b->a.sweep_max ? b->a.sweep_max : 1 << 20;
	int ret = CLI_EXIT_OK;

	if (!r) {
		json_object_put(rows);
		return CLI_EXIT_FAILURE;
	}
	if (lo < lbs)
		lo = lbs;
	if (b->fmt == CLI_FMT_NORMAL)
		fprintf(rblk_cli_out, "%s sweep, qd=%u numjobs=%u qpairs=%u, %.1f s per size\n",
			rblk_cli_bench_rw_str(b->p.rw), b->p.qd, b->p.numjobs, b->p.qpairs, b->a.sweep_time);
	if (b->fmt == CLI_FMT_NORMAL)
		fprintf(rblk_cli_out, " %-10s %-14s %-18s %-20s %-15s %s\n", "#bytes", "#iterations",
			"BW peak[MB/sec]", "BW average[MB/sec]", "MsgRate[Mpps]", "lat avg[usec]");
	for (uint64_t sz = lo; sz <= hi && !rblk_cli_bench_interrupted(); sz *= 2) {
		uint64_t ios;
		char n[64];
		double avg;

		if (sz % lbs || sz > b->p.size)
			continue;
		b->p.bs = (uint32_t)sz;
		b->p.time = b->a.sweep_time;
		snprintf(n, sizeof(n), "%s %" PRIu64, rblk_cli_bench_rw_str(b->p.rw), sz);
		b->p.label = n;
		ret = rblk_cli_bench_run(ctrl, ns, &b->p, r);
		if (ret) {
			ret = rblk_cli_report(CLI_OP_CONNECT, ret, 0, "cannot start the benchmark");
			break;
		}
		if (r->err) {
			ret = run_failed(r);
			break;
		}
		ios = r->ios[0] + r->ios[1];
		avg = mbps(r->bytes[0] + r->bytes[1], r->seconds);
		b->moved[0] += r->bytes[0];
		b->moved[1] += r->bytes[1];
		b->verify_bad += r->verify_bad;
		rblk_hist_merge(&r->lat[0], &r->lat[1]);
		snprintf(n, sizeof(n), "sweep.%s.%" PRIu64 ".bw_peak_MBps", rblk_cli_bench_rw_str(b->p.rw), sz);
		rblk_cli_figures_add(&b->figs, n, r->peak_bps / 1e6, "MB/s", CLI_HIGHER_IS_BETTER);
		snprintf(n, sizeof(n), "sweep.%s.%" PRIu64 ".bw_avg_MBps", rblk_cli_bench_rw_str(b->p.rw), sz);
		rblk_cli_figures_add(&b->figs, n, avg, "MB/s", CLI_HIGHER_IS_BETTER);
		snprintf(n, sizeof(n), "sweep.%s.%" PRIu64 ".lat_avg_us", rblk_cli_bench_rw_str(b->p.rw), sz);
		rblk_cli_figures_add(&b->figs, n, rblk_hist_mean(&r->lat[0]) / 1e3, "us",
				     CLI_LOWER_IS_BETTER);
		if (b->fmt == CLI_FMT_JSON) {
			struct json_object *row = json_object_new_object();

			json_object_object_add(row, "bytes", json_object_new_uint64(sz));
			json_object_object_add(row, "iterations", json_object_new_uint64(ios));
			json_object_object_add(row, "bw_peak_MBps", json_object_new_double(r2(r->peak_bps / 1e6)));
			json_object_object_add(row, "bw_avg_MBps", json_object_new_double(r2(avg)));
			json_object_object_add(row, "msg_rate_Mpps",
					       json_object_new_double(round((double)ios / r->seconds) / 1e6));
			json_object_object_add(row, "lat_avg_us",
					       json_object_new_double(r2(rblk_hist_mean(&r->lat[0]) / 1e3)));
			json_object_array_add(rows, row);
		} else {
			fprintf(rblk_cli_out, " %-10" PRIu64 " %-14" PRIu64 " %-18.2f %-20.2f %-15.6f %.2f\n", sz,
				ios, r->peak_bps / 1e6, avg, (double)ios / r->seconds / 1e6,
				rblk_hist_mean(&r->lat[0]) / 1e3);
			fflush(rblk_cli_out);
		}
		if (r->verify_bad) {
			ret = verify_failed(r);
			break;
		}
	}
	if (b->fmt == CLI_FMT_JSON)
		json_object_object_add(b->out, "sweep", rows);
	else
		json_object_put(rows);
	free(r);
	return ret;
}

/* --verify: the pattern over the whole region before anything is measured. */
static int fill_pattern(struct bench_ctx *b, struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	struct bench_params fp = b->p;
	struct bench_result *r = malloc(sizeof(*r));
	int ret;

	if (!r)
		return CLI_EXIT_FAILURE;
	fp.one_pass = true;
	fp.rw = BENCH_WRITE;
	fp.bs = b->p.size >= (1u << 20) ? 1u << 20 : b->p.bs;
	fp.bs -= fp.bs % rblk_ns_block_size(ns);
	fp.label = "verify fill";
	if (b->fmt == CLI_FMT_NORMAL)
		fprintf(rblk_cli_errf, "writing the verify pattern over %" PRIu64 " bytes...\n", fp.size);
	ret = rblk_cli_bench_run(ctrl, ns, &fp, r);
	if (ret)
		ret = rblk_cli_report(CLI_OP_CONNECT, ret, 0, "cannot start the verify fill");
	else if (r->err)
		ret = run_failed(r);
	free(r);
	return ret;
}

static int finish(struct bench_ctx *b, struct cli_rdma_check *chk, struct json_object *params)
{
	struct cli_figures base;
	struct cli_delta *d = NULL;
	struct json_object *bparams = NULL;
	unsigned nd = 0, worse = 0;
	char why[256];
	int ret = CLI_EXIT_OK, r;

	if (chk) {
		if (b->fmt == CLI_FMT_JSON)
			json_object_object_add(b->out, "rdma_check", rblk_cli_rdma_check_json(chk));
		else
			rblk_cli_rdma_check_print(rblk_cli_out, chk);
		if (chk->verdict == CLI_RDMA_MISMATCH) {
			rblk_cli_err("warning: %s", chk->why);
			if (b->a.require_rdma)
				ret = CLI_EXIT_CHECK;
		}
	}
	if (b->a.compare) {
		r = rblk_cli_baseline_load(b->a.compare, &base, &bparams, why, sizeof(why));
		if (r) {
			rblk_cli_err("cannot use the baseline %s: %s", b->a.compare,
				     r == -EINVAL ? why : strerror(-r));
			return CLI_EXIT_FAILURE;
		}
		params_diff(bparams, params);
		json_object_put(bparams);
		d = calloc(b->figs.n ? b->figs.n : 1, sizeof(*d));
		if (d)
			worse = rblk_cli_baseline_compare(&base, &b->figs, b->a.threshold, d, &nd);
		if (b->fmt == CLI_FMT_JSON)
			json_object_object_add(b->out, "baseline",
					       rblk_cli_baseline_compare_json(d, nd, b->a.threshold, b->a.compare));
		else
			rblk_cli_baseline_print(rblk_cli_out, d, nd, b->a.threshold);
		if (worse) {
			rblk_cli_err("%u figure%s got worse than the baseline by more than %.1f%%", worse,
				     worse > 1 ? "s" : "", b->a.threshold);
			ret = CLI_EXIT_CHECK;
		}
		free(d);
		rblk_cli_figures_free(&base);
	}
	if (b->a.save) {
		r = rblk_cli_baseline_save(b->a.save, &b->figs, params);
		if (r) {
			rblk_cli_err("cannot save the baseline to %s: %s", b->a.save, strerror(-r));
			return CLI_EXIT_FAILURE;
		}
		if (b->fmt == CLI_FMT_NORMAL)
			fprintf(rblk_cli_errf, "baseline saved to %s (%u figures)\n", b->a.save, b->figs.n);
	}
	return ret;
}

/*
 * The region against the namespace: --bs, --offset and --size in whole
 * blocks inside it (--size defaults to the rest), and no writes to a
 * write-protected one. 0 or an exit code.
 */
static int check_region(struct bench_ctx *b, struct rblk_ns *ns, uint32_t nsid)
{
	uint32_t lbs = rblk_ns_block_size(ns);
	uint64_t nsbytes = rblk_ns_num_blocks(ns) * lbs;

	if (!b->a.sweep && b->a.bs % lbs)
		return rblk_cli_usage_err("--bs %" PRIu64 " is not a multiple of the block size %u", b->a.bs, lbs);
	if (b->a.offset % lbs || b->a.offset >= nsbytes)
		return rblk_cli_usage_err("--offset %" PRIu64 " must be a multiple of the block size %u inside "
					  "the namespace (%" PRIu64 " bytes)", b->a.offset, lbs, nsbytes);
	if (!b->a.size)
		b->a.size = nsbytes - b->a.offset;
	if (b->a.size > nsbytes - b->a.offset || b->a.size < (b->a.sweep ? lbs : b->a.bs))
		return rblk_cli_usage_err("--size %" PRIu64 " does not fit the namespace (%" PRIu64 " bytes "
					  "from --offset %" PRIu64 ") or is smaller than one I/O",
					  b->a.size, nsbytes - b->a.offset, b->a.offset);
	if (rblk_cli_bench_rw_writes(b->a.rw, (unsigned)b->a.rwmixread) && rblk_ns_read_only(ns)) {
		rblk_cli_err("namespace %u is write-protected", nsid);
		return CLI_EXIT_REFUSED;
	}
	return 0;
}

/*
 * Every job owns --qpairs I/O queues: without -i, ask for all of them when
 * that is more than the library's default (one per online CPU).
 */
static void ask_io_queues(const struct bench_args *a, struct rblk_connect_opts *opts)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long want = a->numjobs * a->qpairs;

	if (!opts->nr_io_queues && want > cpus)
		opts->nr_io_queues = (uint32_t)want;
}

/*
 * b->p from the options, within what the controller gave: every job owns
 * --qpairs I/O queues, and each queue holds at most its depth.
 */
static void set_params(struct bench_ctx *b, struct rblk_ctrl *ctrl)
{
	unsigned nq = rblk_ctrl_num_io_queues(ctrl), qsize = rblk_ctrl_io_queue_size(ctrl);

	b->p = (struct bench_params){
		.rw = b->a.rw, .rwmixread = (unsigned)b->a.rwmixread, .bs = (uint32_t)b->a.bs,
		.qd = (unsigned)b->a.qd, .numjobs = (unsigned)b->a.numjobs, .qpairs = (unsigned)b->a.qpairs,
		.start = b->a.offset, .size = b->a.size, .verify = b->a.verify, .seed = VERIFY_SEED,
		.busy_poll = b->a.busy_poll, .progress = rblk_cli_progress_wanted(b->a.no_progress),
	};
	if (nq && b->p.numjobs * b->p.qpairs > nq) {
		if (b->p.numjobs > nq)
			b->p.numjobs = nq;
		b->p.qpairs = nq / b->p.numjobs;
		rblk_cli_err("note: the controller gave %u I/O queues: running %u job%s with %u queue%s "
			     "each (ask for more with -i)", nq, b->p.numjobs, b->p.numjobs == 1 ? "" : "s",
			     b->p.qpairs, b->p.qpairs == 1 ? "" : "s");
	}
	if (b->p.qpairs > b->p.qd)
		b->p.qpairs = b->p.qd;	/* a queue with no slot would sit idle */
	if (qsize > 1 && b->p.qd > b->p.qpairs * (qsize - 1))
		b->p.qd = b->p.qpairs * (qsize - 1);
}

/*
 * The measured part: the --verify pattern, the runs between two readings
 * of the RDMA counters, then the figures, the baseline and the JSON
 * document. 0 or an exit code.
 */
static int measure(struct bench_ctx *b, struct rblk_ctrl *ctrl, struct rblk_ns *ns,
		   const struct rblk_connect_opts *opts, struct json_object *params)
{
	struct cli_rdma_check chk;
	int ret;

	if (b->a.verify) {
		ret = fill_pattern(b, ctrl, ns);
		if (ret)
			return ret;
	}
	if (!b->a.no_counters)
		rblk_cli_rdma_check_begin(&chk, b->a.sysfs_root, opts->traddr, opts->trsvcid, opts->host_traddr);
	ret = b->a.sweep ? run_sweep(b, ctrl, ns) : run_io(b, ctrl, ns);
	if (!b->a.no_counters)
		rblk_cli_rdma_check_end(&chk, b->a.sysfs_root, b->moved[1], b->moved[0]);
	if (got_signal && !ret) {
		rblk_cli_err("interrupted: the figures cover the time run so far");
	}
	if (!ret || ret == CLI_EXIT_CHECK) {
		int fret = finish(b, b->a.no_counters ? NULL : &chk, params);

		if (!ret)
			ret = fret;
	}
	if (b->out) {
		rblk_cli_json_print(rblk_cli_out, b->out);
		json_object_put(b->out);
	}
	return ret;
}

int rblk_cli_bench(int argc, char **argv)
{
	struct bench_ctx b = {
		.a = { .rw = BENCH_RANDREAD, .rwmixread = 50, .qd = 32, .numjobs = 1, .qpairs = 1, .bs = 4096,
		       .time = 10, .sweep_time = 2, .threshold = 10 },
		.fmt = CLI_FMT_NORMAL,
	};
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct rblk_connect_opts opts;
	struct json_object *params = NULL;
	struct rblk_ctrl *ctrl = NULL;
	struct rblk_ns *ns = NULL;
	struct cli_conn c;
	uint32_t nsid;
	int ret;

	rblk_cli_conn_init(&c);
	rblk_cli_figures_init(&b.figs);
	ret = parse_args(argc, argv, &b.a, &c, &b.fmt);
	if (ret) {
		ret = ret < 0 ? CLI_EXIT_OK : ret;
		goto out;
	}
	ret = validate_args(&b.a);
	if (ret)
		goto out;
	ret = rblk_cli_conn_finish(&c, NULL, &opts);
	if (ret)
		goto out;
	ask_io_queues(&b.a, &opts);
	ret = rblk_cli_connect(&opts, &ctrl);
	if (ret)
		goto out;
	ret = rblk_cli_pick_nsid(ctrl, &c, &nsid);
	if (!ret)
		ret = rblk_cli_open_ns(ctrl, nsid, &ns);
	if (ret)
		goto out_disconnect;
	ret = check_region(&b, ns, nsid);
	if (ret)
		goto out_ns;
	set_params(&b, ctrl);
	params = params_json(&b.a, &b.p, &opts, nsid);
	if (b.fmt == CLI_FMT_JSON) {
		b.out = json_object_new_object();
		json_object_object_add(b.out, "params", json_object_get(params));
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ret = measure(&b, ctrl, ns, &opts, params);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out_ns:
	rblk_ns_close(ns);
out_disconnect:
	rblk_disconnect(ctrl);
out:
	json_object_put(params);
	rblk_cli_figures_free(&b.figs);
	rblk_cli_conn_fini(&c);
	return ret;
}
