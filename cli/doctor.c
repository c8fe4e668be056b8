/* SPDX-License-Identifier: MIT */
/*
 * `rblk doctor`: runs the checks of cli/doctor_checks.c and prints a verdict
 * per check with what to do about it. Exit 0 when nothing FAILed, 6 when
 * something did (on a host without RDMA, that is the answer, with the fix).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/doctor.h"
#include "cli/output.h"

const char *rblk_cli_verdict_str(enum cli_verdict v)
{
	switch (v) {
	case CLI_OK: return "OK";
	case CLI_WARN: return "WARN";
	default: return "FAIL";
	}
}

void rblk_cli_check(struct cli_doctor *d, enum cli_verdict v, const char *name, const char *fix,
		    const char *fmt, ...)
{
	struct cli_check *c;
	va_list ap;

	if (d->n == d->cap) {
		unsigned cap = d->cap ? 2 * d->cap : 32;
		struct cli_check *nc = realloc(d->c, cap * sizeof(*nc));

		if (!nc)
			return;
		d->c = nc;
		d->cap = cap;
	}
	c = &d->c[d->n++];
	c->v = v;
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

int rblk_cli_doctor_run(struct cli_doctor *d, const char *root, const char *addr)
{
	const char *r = root && strcmp(root, "/") ? root : "";

	memset(d, 0, sizeof(*d));
	d->real_root = !*r;
	snprintf(d->sys, sizeof(d->sys), "%s/sys", r);
	snprintf(d->proc, sizeof(d->proc), "%s/proc", r);
	snprintf(d->dev, sizeof(d->dev), "%s/dev", r);
	d->devices = json_object_new_array();
	rblk_cli_doctor_devices(d);
	rblk_cli_doctor_modules(d);
	rblk_cli_doctor_dev_nodes(d);
	rblk_cli_doctor_memlock(d);
	rblk_cli_doctor_hugepages(d);
	if (addr)
		rblk_cli_doctor_route(d, addr);
	return 0;
}

void rblk_cli_doctor_free(struct cli_doctor *d)
{
	free(d->c);
	json_object_put(d->devices);
	memset(d, 0, sizeof(*d));
}

const struct cli_check *rblk_cli_doctor_find(const struct cli_doctor *d, const char *prefix)
{
	for (unsigned i = 0; i < d->n; i++)
		if (!strncmp(d->c[i].name, prefix, strlen(prefix)))
			return &d->c[i];
	return NULL;
}

unsigned rblk_cli_doctor_count(const struct cli_doctor *d, enum cli_verdict v)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->n; i++)
		n += d->c[i].v == v;
	return n;
}

void rblk_cli_doctor_print(FILE *f, const struct cli_doctor *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		const struct cli_check *c = &d->c[i];

		fprintf(f, "[%-4s] %s: %s\n", rblk_cli_verdict_str(c->v), c->name, c->detail);
		if (c->fix[0] && c->v != CLI_OK)
			fprintf(f, "       fix: %s\n", c->fix);
		else if (c->fix[0])
			fprintf(f, "       note: %s\n", c->fix);
	}
	fprintf(f, "\n%u OK, %u WARN, %u FAIL%s\n", rblk_cli_doctor_count(d, CLI_OK),
		rblk_cli_doctor_count(d, CLI_WARN), rblk_cli_doctor_count(d, CLI_FAIL),
		rblk_cli_doctor_count(d, CLI_FAIL) ? ": fix the FAIL lines first" : "");
}

struct json_object *rblk_cli_doctor_json(const struct cli_doctor *d)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct json_object *sum = json_object_new_object();

	for (unsigned i = 0; i < d->n; i++) {
		struct json_object *c = json_object_new_object();
		char v[8];

		snprintf(v, sizeof(v), "%s", rblk_cli_verdict_str(d->c[i].v));
		for (char *p = v; *p; p++)
			*p = (char)(*p | 0x20);	/* "ok", "warn", "fail" */
		json_object_object_add(c, "check", json_object_new_string(d->c[i].name));
		json_object_object_add(c, "verdict", json_object_new_string(v));
		json_object_object_add(c, "detail", json_object_new_string(d->c[i].detail));
		json_object_object_add(c, "fix", json_object_new_string(d->c[i].fix));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "checks", a);
	json_object_object_add(o, "devices", json_object_get(d->devices));
	json_object_object_add(sum, "ok", json_object_new_int((int)rblk_cli_doctor_count(d, CLI_OK)));
	json_object_object_add(sum, "warn", json_object_new_int((int)rblk_cli_doctor_count(d, CLI_WARN)));
	json_object_object_add(sum, "fail", json_object_new_int((int)rblk_cli_doctor_count(d, CLI_FAIL)));
	json_object_object_add(o, "summary", sum);
	return o;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: rblk doctor [-a ADDR] [-o json]\n\n"
		   "Checks this host's RDMA setup and says what to do about each problem: RDMA\n"
		   "devices; per port the state, physical state, link layer, rate, MTU, GIDs and\n"
		   "their types, the netdev behind it; error counters; RLIMIT_MEMLOCK against what\n"
		   "rblk pins; hugepages; kernel modules (ib_uverbs, rdma_ucm, rdma_rxe, nbd);\n"
		   "/dev/infiniband access. Exit 0 when no check FAILed, 6 otherwise.\n\n"
		   "Options:\n"
		   "  -a, --traddr=ADDR             also check which RDMA device carries traffic to ADDR\n"
		   "      --root=DIR                read DIR/sys, DIR/proc, DIR/dev instead (tests)\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n  rblk doctor\n  rblk doctor -a 192.0.2.10 -o json | jq '.checks[] | select(.verdict != \"ok\")'\n");
}

int rblk_cli_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "traddr", required_argument, NULL, 'a' },
		{ "root", required_argument, NULL, 1 },
		{ NULL, 0, NULL, 0 },
	};
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	const char *root = "/", *addr = NULL;
	struct cli_doctor d;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":" CLI_COMMON_SHORTOPTS "a:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(rblk_cli_out);
			return CLI_EXIT_OK;
		case '?':
		case ':':
			return rblk_cli_bad_option(opt, argc, argv);
		case 'a':
			addr = optarg;
			break;
		case 1:
			root = optarg;
			break;
		default:
			ret = rblk_cli_common_opt(opt, optarg, &fmt);
			if (ret != 1)
				return ret;
		}
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	rblk_cli_doctor_run(&d, root, addr);
	if (fmt == CLI_FMT_JSON) {
		struct json_object *o = rblk_cli_doctor_json(&d);

		rblk_cli_json_print(rblk_cli_out, o);
		json_object_put(o);
	} else {
		rblk_cli_doctor_print(rblk_cli_out, &d);
	}
	ret = rblk_cli_doctor_count(&d, CLI_FAIL) ? CLI_EXIT_CHECK : CLI_EXIT_OK;
	rblk_cli_doctor_free(&d);
	return ret;
}
