/* SPDX-License-Identifier: MIT */
/* target_cpu's figures, medians, text and JSON: see target_cpu.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/target_cpu/target_cpu.h"

void tc_fig_derive(struct tc_fig *f, double ticks_per_ns)
{
	double cpu = 0, fab = 0, calls = 0;

	f->ios = 0;
	f->preempted_calls = 0;
	for (unsigned i = 0; i < f->ngroups; i++) {
		f->g[i].fabric_ns = (double)f->g[i].fabric_ticks / ticks_per_ns;
		f->ios += f->g[i].ios;
		cpu += f->g[i].cpu_ns;
		fab += f->g[i].fabric_ns;
		calls += (double)f->g[i].fabric_calls;
		f->preempted_calls += (double)f->g[i].preempted;
	}
	f->iops = f->wall_s > 0 ? (double)f->ios / f->wall_s : 0;
	f->ns_per_io = f->ios ? (cpu - fab) / (double)f->ios : 0;
	f->fabric_ns_per_io = f->ios ? fab / (double)f->ios : 0;
	f->cpu_ns_per_io = f->ios ? cpu / (double)f->ios : 0;
	f->iops_per_core = f->ns_per_io > 0 ? 1e9 / f->ns_per_io : 0;
	f->util = f->wall_s > 0 && f->ngroups ? cpu / (f->wall_s * 1e9 * f->ngroups) : 0;
	f->fabric_calls_per_io = f->ios ? calls / (double)f->ios : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const struct tc_case *c, size_t off)
{
	double v[TC_MAX_REPS];

	for (unsigned i = 0; i < c->nreps; i++)
		v[i] = *(const double *)((const char *)&c->rep[i] + off);
	qsort(v, c->nreps, sizeof(v[0]), cmp_double);
	return c->nreps % 2 ? v[c->nreps / 2] : (v[c->nreps / 2 - 1] + v[c->nreps / 2]) / 2;
}

#define MED(field) (c->med.field = median(c, offsetof(struct tc_fig, field)))

void tc_case_median(struct tc_case *c)
{
	memset(&c->med, 0, sizeof(c->med));
	if (!c->nreps)
		return;
	MED(wall_s);
	MED(iops);
	MED(ns_per_io);
	MED(fabric_ns_per_io);
	MED(cpu_ns_per_io);
	MED(iops_per_core);
	MED(util);
	MED(fabric_calls_per_io);
	MED(preempted_calls);
	c->med.ngroups = c->rep[0].ngroups;
}

void tc_print_fig(FILE *f, const char *label, const struct tc_fig *x)
{
	fprintf(f, "%-22s iops %10.0f  ns_per_io %7.1f  fabric_ns_per_io %6.1f  cpu_ns_per_io "
		"%7.1f  iops_per_core %9.0f  util %.2f  fabric_calls_per_io %.1f%s",
		label, x->iops, x->ns_per_io, x->fabric_ns_per_io, x->cpu_ns_per_io,
		x->iops_per_core, x->util, x->fabric_calls_per_io,
		x->preempted_calls ? "" : "\n");
	if (x->preempted_calls)
		fprintf(f, "  preempted_calls %.0f\n", x->preempted_calls);
}

static void json_fig(FILE *f, const struct tc_fig *x, bool groups)
{
	fprintf(f, "{\"wall_s\": %.6f, \"iops\": %.1f, \"ns_per_io\": %.2f, "
		"\"fabric_ns_per_io\": %.2f, \"cpu_ns_per_io\": %.2f, \"iops_per_core\": %.1f, "
		"\"util\": %.4f, \"fabric_calls_per_io\": %.3f, \"preempted_calls\": %.0f",
		x->wall_s, x->iops, x->ns_per_io, x->fabric_ns_per_io, x->cpu_ns_per_io,
		x->iops_per_core, x->util, x->fabric_calls_per_io, x->preempted_calls);
	if (groups) {
		fprintf(f, ", \"ios\": %llu, \"groups\": [", (unsigned long long)x->ios);
		for (unsigned i = 0; i < x->ngroups; i++)
			fprintf(f, "%s{\"ios\": %llu, \"cpu_ns\": %.0f, \"fabric_ns\": %.0f, "
				"\"fabric_calls\": %llu, \"preempted_calls\": %llu, "
				"\"preempted_ticks\": %llu}", i ? ", " : "",
				(unsigned long long)x->g[i].ios, x->g[i].cpu_ns, x->g[i].fabric_ns,
				(unsigned long long)x->g[i].fabric_calls,
				(unsigned long long)x->g[i].preempted,
				(unsigned long long)x->g[i].preempted_ticks);
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

int tc_write_json(const char *path, const struct tc_config *cfg, const struct tc_case *cases,
		  unsigned ncases, double scaling)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"tool\": \"target_cpu\",\n  \"config\": {\"workload\": \"%s\", "
		"\"op\": \"%s\", \"bs\": %u, \"qd\": %u, \"writes_incapsule\": %s, "
		"\"icd_bytes\": %u, \"namespace\": \"%s\", \"seconds\": %.3f, \"warmup_s\": %.3f, "
		"\"reps\": %u, \"srq_depth\": %u, \"latency_stats\": %s, \"poll_mode\": \"busy\", \"tsc_ghz\": %.4f, "
		"\"timer_ns_per_call\": %.2f, \"timer_outside_ns_per_call\": %.2f, "
		"\"load1_at_start\": %.2f, \"cpus\": %u},\n",
		cfg->workload, cfg->op, cfg->bs, cfg->qd, cfg->incapsule ? "true" : "false",
		cfg->icd_bytes, cfg->ns_path, cfg->seconds, cfg->warmup_s, cfg->reps, cfg->srq_depth,
		cfg->latency_stats ? "true" : "false",
		cfg->tsc_ghz, cfg->timer_ns, cfg->timer_outside_ns, cfg->load1, cfg->ncpus);
	fprintf(f, "  \"verified_blocks\": %llu,\n  \"cases\": [\n",
		(unsigned long long)cfg->verified);
	for (unsigned i = 0; i < ncases; i++) {
		const struct tc_case *c = &cases[i];

		fprintf(f, "    {\"poll_groups\": %u, \"median\": ", c->npg);
		json_fig(f, &c->med, false);
		fprintf(f, ",\n     \"reps\": [\n");
		for (unsigned r = 0; r < c->nreps; r++) {
			fprintf(f, "       ");
			json_fig(f, &c->rep[r], true);
			fprintf(f, "%s\n", r + 1 < c->nreps ? "," : "");
		}
		fprintf(f, "     ]}%s\n", i + 1 < ncases ? "," : "");
	}
	fprintf(f, "  ],\n  \"scaling\": ");
	if (scaling < 0)
		fprintf(f, "null\n}\n");
	else
		fprintf(f, "%.4f\n}\n", scaling);
	return fclose(f) ? -errno : 0;
}
