/* SPDX-License-Identifier: MIT */
/*
 * Latency statistics for `rblk bench` (see cli/bench.h): the histogram of
 * common/hist.h as the tool prints it (a summary, log2 rows, JSON), and the
 * verify data pattern.
 */
#include <math.h>
#include <string.h>

#include "cli/bench.h"

static struct json_object *us(uint64_t ns)
{
	return json_object_new_double(round((double)ns / 10.0) / 100.0);
}

struct json_object *rblk_cli_hist_json(const struct rblk_hist *h)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "min", us(h->count ? h->min : 0));
	json_object_object_add(o, "avg", us((uint64_t)llround(rblk_hist_mean(h))));
	json_object_object_add(o, "p50", us(rblk_hist_pct(h, 50)));
	json_object_object_add(o, "p99", us(rblk_hist_pct(h, 99)));
	json_object_object_add(o, "p99.9", us(rblk_hist_pct(h, 99.9)));
	json_object_object_add(o, "max", us(h->max));
	return o;
}

/* "[  4,   8) us" with sub-microsecond edges shown in ns. */
static void range_str(char *buf, size_t len, unsigned k)
{
	uint64_t lo = k ? 1ULL << k : 0, hi = 2ULL << k;

	if (hi <= 1000)
		snprintf(buf, len, "[%5llu, %5llu) ns", (unsigned long long)lo, (unsigned long long)hi);
	else if (hi <= 1000000ULL * 10)
		snprintf(buf, len, "[%7.1f, %7.1f) us", (double)lo / 1e3, (double)hi / 1e3);
	else
		snprintf(buf, len, "[%7.1f, %7.1f) ms", (double)lo / 1e6, (double)hi / 1e6);
}

void rblk_cli_hist_print(FILE *f, const struct rblk_hist *h, const char *indent)
{
	uint64_t l2[64], top = 0;
	char r[48];

	rblk_hist_log2(h, l2);
	for (unsigned k = 0; k < 64; k++)
		if (l2[k] > top)
			top = l2[k];
	for (unsigned k = 0; k < 64; k++) {
		char bar[41];
		unsigned w;

		if (!l2[k])
			continue;
		w = (unsigned)((l2[k] * 40 + top - 1) / top);
		memset(bar, '#', w);
		bar[w] = '\0';
		range_str(r, sizeof(r), k);
		fprintf(f, "%s%s %10llu %6.2f%% %s\n", indent, r, (unsigned long long)l2[k],
			100.0 * (double)l2[k] / (double)h->count, bar);
	}
}

struct json_object *rblk_cli_hist_log2_json(const struct rblk_hist *h)
{
	struct json_object *a = json_object_new_array();
	uint64_t l2[64];

	rblk_hist_log2(h, l2);
	for (unsigned k = 0; k < 64; k++) {
		struct json_object *r;

		if (!l2[k])
			continue;
		r = json_object_new_object();
		json_object_object_add(r, "from_us", json_object_new_double(k ? (double)(1ULL << k) / 1e3 : 0));
		json_object_object_add(r, "to_us", json_object_new_double((double)(2ULL << k) / 1e3));
		json_object_object_add(r, "count", json_object_new_uint64(l2[k]));
		json_object_object_add(r, "pct",
				       json_object_new_double(round(10000.0 * (double)l2[k] /
								    (double)h->count) / 100.0));
		json_object_array_add(a, r);
	}
	return a;
}

/* splitmix64: cheap, and every output bit depends on every input bit. */
static inline uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void rblk_cli_pattern_fill(void *buf, uint64_t off, uint32_t len, uint64_t seed)
{
	uint64_t *w = buf;

	for (uint32_t i = 0; i < len / 8; i++)
		w[i] = mix(seed ^ (off + 8ULL * i));
}

uint32_t rblk_cli_pattern_check(const void *buf, uint64_t off, uint32_t len, uint64_t seed)
{
	const uint64_t *w = buf;

	for (uint32_t i = 0; i < len / 8; i++)
		if (w[i] != mix(seed ^ (off + 8ULL * i)))
			return 8 * i;
	return len;
}
