/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus text exposition of the target's statistics (metrics.h):
 * one family after the other, each with its HELP and TYPE lines and then
 * every sample of it, as the format requires. Labels are bounded by the
 * configuration (subsystem NQN, nsid, host NQN, poll group), never by I/O.
 * docs/metrics.md lists every family; keep the two in step.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/lat_buckets.h"
#include "daemon/metrics.h"

/* ------------------------------------------------------------------------ */
/* The address.                                                              */

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int rblk_metrics_addr_parse(const char *s, struct sockaddr_storage *out)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	uint16_t port;
	size_t n;

	memset(&ss, 0, sizeof(ss));
	if (!s)
		return -EINVAL;
	if (*s == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':' || (n = (size_t)(close - s - 1)) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, n);
		host[n] = 0;
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1 || parse_port(close + 2, &port))
			return -EINVAL;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;

		colon = strrchr(s, ':');
		if (!colon || (n = (size_t)(colon - s)) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, n);
		host[n] = 0;
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1 || parse_port(colon + 1, &port))
			return -EINVAL;
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
	}
	if (out)
		*out = ss;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Values.                                                                   */

void rblk_metrics_label_escape(const char *v, char *buf, size_t cap)
{
	size_t o = 0;

	if (!cap)
		return;
	for (; v && *v; v++) {
		const char *rep = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" : *v == '\n' ? "\\n" : NULL;
		size_t need = rep ? 2 : 1;

		if (o + need >= cap)
			break;
		if (rep) {
			memcpy(buf + o, rep, 2);
		} else {
			buf[o] = *v;
		}
		o += need;
	}
	buf[o] = 0;
}

/* Nanoseconds as seconds in plain decimal ("0.0025", "10"): exact, no exponent. */
static void put_seconds(FILE *f, uint64_t ns)
{
	char frac[10];
	int n;

	fprintf(f, "%" PRIu64, ns / 1000000000u);
	if (!(ns % 1000000000u))
		return;
	n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000u);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = 0;
	fprintf(f, ".%s", frac);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_uint64(v) : 0;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_string(v) : "";
}

static size_t array_len(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ------------------------------------------------------------------------ */
/* Namespaces: {subsystem, nsid}.                                            */

struct ns_counter {
	const char *name;
	const char *type;
	const char *key;       /* in the document's namespace object */
	const char *help;
};

static const struct ns_counter ns_counters[] = {
	{ "rblk_namespace_reads_total", "counter", "read_cmds",
	  "Read commands completed successfully." },
	{ "rblk_namespace_writes_total", "counter", "write_cmds",
	  "Write commands completed successfully." },
	{ "rblk_namespace_other_commands_total", "counter", "other_cmds",
	  "Other I/O commands completed successfully (flush, write zeroes, dataset management, compare, verify, copy)." },
	{ "rblk_namespace_read_bytes_total", "counter", "read_bytes",
	  "Bytes read by successful read commands." },
	{ "rblk_namespace_written_bytes_total", "counter", "write_bytes",
	  "Bytes written by successful write commands." },
	{ "rblk_namespace_io_in_flight", "gauge", "inflight",
	  "I/O commands holding the namespace now (parsed, not yet completed)." },
	{ "rblk_namespace_qos_waits_total", "counter", "qos_waits",
	  "I/O commands that waited for the namespace's QoS limits before they started." },
};

static const char *const sct_names[] = { "generic", "command_specific", "media", "path", "other" };

/* The {subsystem="...",nsid="..."} of a namespace, without the braces. */
static void ns_labels(struct json_object *ns, char *buf, size_t cap)
{
	char nqn[2 * 256];

	rblk_metrics_label_escape(get_str(ns, "subsystem"), nqn, sizeof(nqn));
	snprintf(buf, cap, "subsystem=\"%s\",nsid=\"%" PRIu64 "\"", nqn, get_u64(ns, "nsid"));
}

static void ns_histogram(FILE *f, struct json_object *nss, struct json_object *bounds,
			 const char *name, const char *key, const char *help)
{
	char l[600];

	family(f, name, "histogram", help);
	for (size_t i = 0; i < array_len(nss); i++) {
		struct json_object *ns = json_object_array_get_idx(nss, i);
		struct json_object *h = get(ns, key), *b = get(h, "buckets");
		uint64_t cum = 0;

		ns_labels(ns, l, sizeof(l));
		for (size_t k = 0; k < array_len(bounds); k++) {
			cum += k < array_len(b) ? json_object_get_uint64(json_object_array_get_idx(b, k)) : 0;
			fprintf(f, "%s_bucket{%s,le=\"", name, l);
			put_seconds(f, json_object_get_uint64(json_object_array_get_idx(bounds, k)));
			fprintf(f, "\"} %" PRIu64 "\n", cum);
		}
		for (size_t k = array_len(bounds); k < array_len(b); k++)
			cum += json_object_get_uint64(json_object_array_get_idx(b, k));
		fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", name, l, cum);
		fprintf(f, "%s_sum{%s} ", name, l);
		put_seconds(f, get_u64(h, "sum_ns"));
		fprintf(f, "\n%s_count{%s} %" PRIu64 "\n", name, l, cum);
	}
}

static void namespaces(FILE *f, struct json_object *st)
{
	struct json_object *nss = get(st, "namespaces");
	char l[600];

	for (size_t c = 0; c < sizeof(ns_counters) / sizeof(ns_counters[0]); c++) {
		const struct ns_counter *m = &ns_counters[c];

		family(f, m->name, m->type, m->help);
		for (size_t i = 0; i < array_len(nss); i++) {
			struct json_object *ns = json_object_array_get_idx(nss, i);

			ns_labels(ns, l, sizeof(l));
			fprintf(f, "%s{%s} %" PRIu64 "\n", m->name, l, get_u64(ns, m->key));
		}
	}
	family(f, "rblk_namespace_errors_total", "counter",
	       "I/O commands that failed in the storage, by NVMe status code type.");
	for (size_t i = 0; i < array_len(nss); i++) {
		struct json_object *ns = json_object_array_get_idx(nss, i);
		struct json_object *e = get(ns, "errors_by_type");

		ns_labels(ns, l, sizeof(l));
		for (size_t t = 0; t < sizeof(sct_names) / sizeof(sct_names[0]); t++)
			fprintf(f, "rblk_namespace_errors_total{%s,type=\"%s\"} %" PRIu64 "\n", l,
				sct_names[t], get_u64(e, sct_names[t]));
	}
	ns_histogram(f, nss, get(st, "latency_bounds_ns"), "rblk_namespace_read_latency_seconds",
		     "read_latency", "Latency of successful reads, from the poll iteration that received the command to the one that completed it.");
	ns_histogram(f, nss, get(st, "latency_bounds_ns"), "rblk_namespace_write_latency_seconds",
		     "write_latency", "Latency of successful writes, from the poll iteration that received the command to the one that completed it.");
}

/* ------------------------------------------------------------------------ */
/* Subsystems and hosts: {subsystem, host}.                                  */

struct conn {
	const char *nqn, *host;
	uint64_t ctrls, queues;
};

/* Controllers and queues summed per (subsystem, host), in the order first seen. */
static void connections(FILE *f, struct json_object *st)
{
	struct json_object *ctrls = get(st, "controllers");
	size_t n = array_len(ctrls), nr = 0;
	struct conn *c = calloc(n ? n : 1, sizeof(*c));
	char nqn[2 * 256], host[2 * 256];

	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(ctrls, i);
		const char *ss = get_str(o, "subsystem"), *h = get_str(o, "hostnqn");
		size_t k;

		for (k = 0; k < nr; k++)
			if (!strcmp(c[k].nqn, ss) && !strcmp(c[k].host, h))
				break;
		if (k == nr)
			c[nr++] = (struct conn){ .nqn = ss, .host = h };
		c[k].ctrls++;
		c[k].queues += array_len(get(o, "queues"));
	}
	family(f, "rblk_subsystem_controllers", "gauge", "Controllers a host has on the subsystem now.");
	for (size_t k = 0; k < nr; k++) {
		rblk_metrics_label_escape(c[k].nqn, nqn, sizeof(nqn));
		rblk_metrics_label_escape(c[k].host, host, sizeof(host));
		fprintf(f, "rblk_subsystem_controllers{subsystem=\"%s\",host=\"%s\"} %" PRIu64 "\n",
			nqn, host, c[k].ctrls);
	}
	family(f, "rblk_subsystem_queues", "gauge",
	       "Queues (admin and I/O) of a host's controllers on the subsystem now.");
	for (size_t k = 0; k < nr; k++) {
		rblk_metrics_label_escape(c[k].nqn, nqn, sizeof(nqn));
		rblk_metrics_label_escape(c[k].host, host, sizeof(host));
		fprintf(f, "rblk_subsystem_queues{subsystem=\"%s\",host=\"%s\"} %" PRIu64 "\n",
			nqn, host, c[k].queues);
	}
	free(c);
}

/* ------------------------------------------------------------------------ */
/* The target.                                                               */

static void target(FILE *f, struct json_object *st, const struct rblk_metrics_info *info)
{
	static const char *const reasons[] = { "max_queues", "max_pending_queues",
					       "max_pending_per_addr" };
	struct json_object *refused = get(get(st, "admission"), "refused");
	struct json_object *auth = get(st, "auth"), *pgs = get(st, "poll_groups");
	char v[128];

	family(f, "rblk_admission_refusals_total", "counter",
	       "Connections refused by admission control, by the limit that refused them.");
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		fprintf(f, "rblk_admission_refusals_total{reason=\"%s\"} %" PRIu64 "\n", reasons[i],
			get_u64(refused, reasons[i]));
	family(f, "rblk_authentications_total", "counter",
	       "DH-HMAC-CHAP authentication transactions, by result.");
	fprintf(f, "rblk_authentications_total{result=\"success\"} %" PRIu64 "\n",
		get_u64(auth, "successes"));
	fprintf(f, "rblk_authentications_total{result=\"failure\"} %" PRIu64 "\n",
		get_u64(auth, "failures"));
	family(f, "rblk_buffer_pool_waits_total", "counter",
	       "Requests of a poll group that had to wait for its transport buffer pool.");
	for (size_t i = 0; i < array_len(pgs); i++) {
		struct json_object *pg = json_object_array_get_idx(pgs, i);

		fprintf(f, "rblk_buffer_pool_waits_total{pg=\"%" PRIu64 "\"} %" PRIu64 "\n",
			get_u64(pg, "id"), get_u64(pg, "buf_waits"));
	}
	family(f, "rblk_poll_group_busy_seconds_total", "counter",
	       "Time a poll group was awake (polling or working, not asleep waiting for work); its rate is the busy fraction.");
	for (size_t i = 0; i < array_len(pgs); i++) {
		struct json_object *pg = json_object_array_get_idx(pgs, i);

		fprintf(f, "rblk_poll_group_busy_seconds_total{pg=\"%" PRIu64 "\"} ", get_u64(pg, "id"));
		put_seconds(f, get_u64(pg, "busy_ns"));
		fputc('\n', f);
	}
	family(f, "rblk_build_info", "gauge", "The rblk version that runs, as a label; always 1.");
	rblk_metrics_label_escape(info->version, v, sizeof(v));
	fprintf(f, "rblk_build_info{version=\"%s\"} 1\n", v);
	family(f, "rblk_uptime_seconds", "gauge", "Time since rblk-target started.");
	fprintf(f, "rblk_uptime_seconds ");
	put_seconds(f, info->uptime_ns);
	fputc('\n', f);
}

int rblk_metrics_format(struct json_object *stats, const struct rblk_metrics_info *info,
			char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);

	if (!f)
		return -ENOMEM;
	namespaces(f, stats);
	connections(f, stats);
	target(f, stats, info);
	if (ferror(f)) {
		fclose(f);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}
