/* SPDX-License-Identifier: MIT */
/*
 * Benchmark figures and baselines (see cli/bench.h): `rblk bench
 * --save-baseline FILE` stores every figure with its unit and which way is
 * better; `--compare FILE` flags each figure that moved more than the
 * threshold (10% by default), the field guide's regression habit: rerun
 * after every change, investigate anything beyond 10%.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rblk/common.h>

#include "cli/bench.h"

#define BASELINE_FORMAT 1

void rblk_cli_figures_init(struct cli_figures *fs)
{
	memset(fs, 0, sizeof(*fs));
}

void rblk_cli_figures_free(struct cli_figures *fs)
{
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}

int rblk_cli_figures_add(struct cli_figures *fs, const char *name, double value, const char *unit,
			 enum cli_better better)
{
	struct cli_figure *f;

	if (fs->n == fs->cap) {
		unsigned cap = fs->cap ? 2 * fs->cap : 16;
		struct cli_figure *nf = realloc(fs->f, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		fs->f = nf;
		fs->cap = cap;
	}
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->unit, sizeof(f->unit), "%s", unit ? unit : "");
	f->value = value;
	f->better = better;
	return 0;
}

const struct cli_figure *rblk_cli_figures_find(const struct cli_figures *fs, const char *name)
{
	for (unsigned i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].name, name))
			return &fs->f[i];
	return NULL;
}

struct json_object *rblk_cli_baseline_json(const struct cli_figures *fs, struct json_object *params)
{
	struct json_object *root = json_object_new_object();
	struct json_object *figs = json_object_new_object();

	json_object_object_add(root, "rblk_bench_baseline", json_object_new_int(BASELINE_FORMAT));
	json_object_object_add(root, "version", json_object_new_string(rblk_version()));
	if (params)
		json_object_object_add(root, "params", json_object_get(params));
	for (unsigned i = 0; i < fs->n; i++) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "value", json_object_new_double(fs->f[i].value));
		json_object_object_add(f, "unit", json_object_new_string(fs->f[i].unit));
		json_object_object_add(f, "better",
				       json_object_new_string(fs->f[i].better == CLI_LOWER_IS_BETTER ?
								      "lower" : "higher"));
		json_object_object_add(figs, fs->f[i].name, f);
	}
	json_object_object_add(root, "figures", figs);
	return root;
}

int rblk_cli_baseline_save(const char *path, const struct cli_figures *fs, struct json_object *params)
{
	struct json_object *o = rblk_cli_baseline_json(fs, params);
	char tmp[4096];
	FILE *f;
	int ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		json_object_put(o);
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "w");
	if (!f) {
		ret = -errno;
		json_object_put(o);
		return ret;
	}
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	fputc('\n', f);
	json_object_put(o);
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int rblk_cli_baseline_load(const char *path, struct cli_figures *fs, struct json_object **params,
			   char *why, size_t whylen)
{
	struct json_object *root, *v, *figs;
	int ret = -EINVAL;

	rblk_cli_figures_init(fs);
	if (params)
		*params = NULL;
	if (access(path, R_OK))
		return -errno;
	root = json_object_from_file(path);
	if (!root) {
		snprintf(why, whylen, "not JSON: %s", json_util_get_last_err());
		return -EINVAL;
	}
	if (!json_object_object_get_ex(root, "rblk_bench_baseline", &v) ||
	    json_object_get_int(v) != BASELINE_FORMAT) {
		snprintf(why, whylen, "not an rblk bench baseline (no \"rblk_bench_baseline\": %d)",
			 BASELINE_FORMAT);
		goto out;
	}
	if (!json_object_object_get_ex(root, "figures", &figs) ||
	    !json_object_is_type(figs, json_type_object)) {
		snprintf(why, whylen, "no \"figures\" object");
		goto out;
	}
	json_object_object_foreach(figs, name, f) {
		struct json_object *val, *unit, *better;
		enum cli_better b = CLI_HIGHER_IS_BETTER;

		if (!json_object_object_get_ex(f, "value", &val) ||
		    !(json_object_is_type(val, json_type_double) || json_object_is_type(val, json_type_int))) {
			snprintf(why, whylen, "figure \"%s\" has no numeric \"value\"", name);
			goto out;
		}
		if (json_object_object_get_ex(f, "better", &better) &&
		    !strcmp(json_object_get_string(better), "lower"))
			b = CLI_LOWER_IS_BETTER;
		if (!json_object_object_get_ex(f, "unit", &unit))
			unit = NULL;
		if (rblk_cli_figures_add(fs, name, json_object_get_double(val),
					 unit ? json_object_get_string(unit) : "", b)) {
			snprintf(why, whylen, "out of memory");
			goto out;
		}
	}
	if (params && json_object_object_get_ex(root, "params", &v))
		*params = json_object_get(v);
	ret = 0;
out:
	json_object_put(root);
	if (ret)
		rblk_cli_figures_free(fs);
	return ret;
}

unsigned rblk_cli_baseline_compare(const struct cli_figures *base, const struct cli_figures *cur,
				   double threshold_pct, struct cli_delta *out, unsigned *n)
{
	unsigned worse = 0;

	*n = 0;
	for (unsigned i = 0; i < cur->n; i++) {
		const struct cli_figure *b = rblk_cli_figures_find(base, cur->f[i].name);
		struct cli_delta *d;

		if (!b)
			continue;
		d = &out[(*n)++];
		d->base = b;
		d->cur = &cur->f[i];
		if (b->value == 0)
			d->change_pct = cur->f[i].value == 0 ? 0 : cur->f[i].value > 0 ? INFINITY : -INFINITY;
		else
			d->change_pct = (cur->f[i].value - b->value) / fabs(b->value) * 100.0;
		d->flagged = fabs(d->change_pct) > threshold_pct;
		d->worse = d->flagged && (b->better == CLI_LOWER_IS_BETTER ? d->change_pct > 0 :
									      d->change_pct < 0);
		worse += d->worse;
	}
	return worse;
}

void rblk_cli_baseline_print(FILE *f, const struct cli_delta *d, unsigned n, double threshold_pct)
{
	fprintf(f, "Compared with the baseline (threshold %.1f%%):\n", threshold_pct);
	fprintf(f, "  %-40s %14s %14s %9s\n", "figure", "baseline", "now", "change");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "  %-40s %14.2f %14.2f %+8.1f%% %s\n", d[i].cur->name, d[i].base->value,
			d[i].cur->value, d[i].change_pct,
			d[i].worse ? "<-- WORSE" : d[i].flagged ? "<-- better" : "");
	if (!n)
		fprintf(f, "  (no figure in common: different modes or sizes?)\n");
}

struct json_object *rblk_cli_baseline_compare_json(const struct cli_delta *d, unsigned n,
						   double threshold_pct, const char *file)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array();
	unsigned worse = 0, flagged = 0;

	for (unsigned i = 0; i < n; i++) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "figure", json_object_new_string(d[i].cur->name));
		json_object_object_add(r, "unit", json_object_new_string(d[i].cur->unit));
		json_object_object_add(r, "baseline", json_object_new_double(d[i].base->value));
		json_object_object_add(r, "current", json_object_new_double(d[i].cur->value));
		json_object_object_add(r, "change_pct",
				       isfinite(d[i].change_pct) ?
					       json_object_new_double(round(d[i].change_pct * 100) / 100) :
					       json_object_new_string(d[i].change_pct > 0 ? "inf" : "-inf"));
		json_object_object_add(r, "flagged", json_object_new_boolean(d[i].flagged));
		json_object_object_add(r, "worse", json_object_new_boolean(d[i].worse));
		json_object_array_add(a, r);
		flagged += d[i].flagged;
		worse += d[i].worse;
	}
	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "threshold_pct", json_object_new_double(threshold_pct));
	json_object_object_add(o, "flagged", json_object_new_int((int)flagged));
	json_object_object_add(o, "worse", json_object_new_int((int)worse));
	json_object_object_add(o, "figures", a);
	return o;
}
