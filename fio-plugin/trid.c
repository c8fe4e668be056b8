/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/trid: parses fio filenames written as SPDK transport IDs and
 * merges them with the engine options (see trid.h). The messages matter more
 * than usual here: they are what a fio user sees when a job file is wrong, and
 * the usual mistake is an unescaped ':' (fio splits filename= at every ':', so
 * an NQN like nqn.2014-08.org.nvmexpress:uuid:... arrives in pieces).
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fio-plugin/trid.h"

#define COLON_HINT \
	" (fio splits filename= at every ':': write '\\:' for a ':' inside the transport ID, " \
	"as in NQNs and IPv6 addresses, or give the value as an engine option such as --subnqn=)"

_Static_assert(RBLK_FIO_ADDR_MAX >= 255, "a DNS name fits in traddr");

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int store(char *dst, size_t cap, const char *key, const char *val, char *why, size_t whylen)
{
	if (strlen(val) >= cap) {
		snprintf(why, whylen, "%s is longer than %zu bytes", key, cap - 1);
		return -EINVAL;
	}
	strcpy(dst, val);
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int check_port(const char *s)
{
	uint32_t v;

	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
	return parse_u32(s, &v) || v == 0 || v > 65535 ? -EINVAL : 0;
}

/* A dotted-quad literal: what IPv6 cannot be. */
static bool looks_ipv4(const char *s)
{
	unsigned dots = 0;

	for (; *s; s++) {
		if (*s == '.')
			dots++;
		else if (!isdigit((unsigned char)*s))
			return false;
	}
	return dots == 3;
}

static int set_field(struct rblk_fio_trid *t, const char *key, const char *val, char *why,
		     size_t whylen)
{
	static const struct {
		const char *key;
		unsigned bit;
	} keys[] = {
		{ "trtype", 0 },
		{ "adrfam", RBLK_FIO_TRID_ADRFAM },
		{ "traddr", RBLK_FIO_TRID_TRADDR },
		{ "trsvcid", RBLK_FIO_TRID_TRSVCID },
		{ "subnqn", RBLK_FIO_TRID_SUBNQN },
		{ "ns", RBLK_FIO_TRID_NSID },
		{ "hostnqn", RBLK_FIO_TRID_HOSTNQN },
		{ "hostid", RBLK_FIO_TRID_HOSTID },
		{ "hostaddr", RBLK_FIO_TRID_HOST_TRADDR },
		{ "host_traddr", RBLK_FIO_TRID_HOST_TRADDR },
	};
	unsigned bit = ~0u;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(key, keys[i].key))
			bit = keys[i].bit;
	if (bit == ~0u)
		return fail(why, whylen,
			    "unknown key '%s' (known: trtype, adrfam, traddr, trsvcid, subnqn, ns, "
			    "hostnqn, hostid, hostaddr)", key);
	if (!*val)
		return fail(why, whylen, "%s has an empty value", key);
	if (bit && (t->set & bit))
		return fail(why, whylen, "%s is given twice", key);
	t->set |= bit;

	switch (bit) {
	case 0:
		if (strcasecmp(val, "RDMA"))
			return fail(why, whylen, "trtype %s: only RDMA is supported", val);
		return 0;
	case RBLK_FIO_TRID_ADRFAM:
		if (!strcasecmp(val, "IPv4"))
			t->adrfam = RBLK_FIO_ADRFAM_IPV4;
		else if (!strcasecmp(val, "IPv6"))
			t->adrfam = RBLK_FIO_ADRFAM_IPV6;
		else
			return fail(why, whylen, "adrfam %s: IPv4 or IPv6", val);
		return 0;
	case RBLK_FIO_TRID_TRADDR:
		return store(t->traddr, sizeof(t->traddr), key, val, why, whylen);
	case RBLK_FIO_TRID_TRSVCID:
		/* Lists are checked once complete (rblk_fio_trid_paths). */
		if (!strchr(val, ',') && check_port(val))
			return fail(why, whylen, "trsvcid %s: a port number 1..65535", val);
		return store(t->trsvcid, sizeof(t->trsvcid), key, val, why, whylen);
	case RBLK_FIO_TRID_SUBNQN:
		return store(t->subnqn, sizeof(t->subnqn), key, val, why, whylen);
	case RBLK_FIO_TRID_HOSTNQN:
		return store(t->hostnqn, sizeof(t->hostnqn), key, val, why, whylen);
	case RBLK_FIO_TRID_HOSTID:
		return store(t->hostid, sizeof(t->hostid), key, val, why, whylen);
	case RBLK_FIO_TRID_HOST_TRADDR:
		return store(t->host_traddr, sizeof(t->host_traddr), key, val, why, whylen);
	case RBLK_FIO_TRID_NSID:
		if (parse_u32(val, &t->nsid) || t->nsid == 0 || t->nsid == UINT32_MAX)
			return fail(why, whylen, "ns %s: a namespace ID 1..4294967294", val);
		return 0;
	}
	return -EINVAL;
}

int rblk_fio_trid_parse(const char *s, struct rblk_fio_trid *out, char *why, size_t whylen)
{
	struct rblk_fio_trid t;
	char *copy, *tok, *save = NULL;
	int ret = 0;

	memset(&t, 0, sizeof(t));
	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return fail(why, whylen, "the filename is empty: give a transport ID such as "
			    "'trtype=RDMA traddr=10.0.0.1 trsvcid=4420 subnqn=NQN ns=1'");
	copy = strdup(s);
	if (!copy)
		return fail(why, whylen, "out of memory");
	for (tok = strtok_r(copy, " \t\r\n", &save); tok && !ret;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		size_t k = strcspn(tok, "=:");

		if (!tok[k] || k == 0) {
			ret = fail(why, whylen, "'%s' is not KEY=VALUE%s", tok, COLON_HINT);
			break;
		}
		tok[k] = '\0';
		ret = set_field(&t, tok, tok + k + 1, why, whylen);
	}
	free(copy);
	if (!ret)
		*out = t;
	return ret;
}

static void take(char *dst, size_t cap, bool have, const char *def)
{
	if (!have && def && *def && strlen(def) < cap)
		strcpy(dst, def);
}

int rblk_fio_trid_complete(struct rblk_fio_trid *t, const struct rblk_fio_trid *d,
			   char *why, size_t whylen)
{
	unsigned s = t->set;

	if (d) {
		take(t->traddr, sizeof(t->traddr), s & RBLK_FIO_TRID_TRADDR, d->traddr);
		take(t->trsvcid, sizeof(t->trsvcid), s & RBLK_FIO_TRID_TRSVCID, d->trsvcid);
		take(t->subnqn, sizeof(t->subnqn), s & RBLK_FIO_TRID_SUBNQN, d->subnqn);
		take(t->hostnqn, sizeof(t->hostnqn), s & RBLK_FIO_TRID_HOSTNQN, d->hostnqn);
		take(t->hostid, sizeof(t->hostid), s & RBLK_FIO_TRID_HOSTID, d->hostid);
		take(t->host_traddr, sizeof(t->host_traddr), s & RBLK_FIO_TRID_HOST_TRADDR,
		     d->host_traddr);
		if (!(s & RBLK_FIO_TRID_NSID) && d->nsid)
			t->nsid = d->nsid;
		if (!(s & RBLK_FIO_TRID_ADRFAM))
			t->adrfam = d->adrfam;
	}
	if (!t->trsvcid[0])
		strcpy(t->trsvcid, "4420");
	if (!t->nsid)
		t->nsid = 1;
	if (!t->traddr[0])
		return fail(why, whylen, "no target address: give traddr= in the filename or the "
			    "traddr engine option");
	if (!t->subnqn[0])
		return fail(why, whylen, "no subsystem NQN: give subnqn= in the filename (with "
			    "'\\:' for each ':') or the subnqn engine option");
	{
		struct rblk_fio_path paths[RBLK_FIO_PATHS_MAX];
		int n = rblk_fio_trid_paths(t, paths, why, whylen);

		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			if (t->adrfam == RBLK_FIO_ADRFAM_IPV4 && strchr(paths[i].traddr, ':'))
				return fail(why, whylen, "adrfam IPv4 does not match traddr %s",
					    paths[i].traddr);
			if (t->adrfam == RBLK_FIO_ADRFAM_IPV6 && looks_ipv4(paths[i].traddr))
				return fail(why, whylen, "adrfam IPv6 does not match traddr %s",
					    paths[i].traddr);
		}
	}
	return 0;
}

/* Splits @list at commas into up to @max entries of @cap bytes. Count or -EINVAL. */
static int split_list(const char *list, char *out, size_t cap, unsigned max, const char *key,
		      char *why, size_t whylen)
{
	const char *p = list;
	unsigned n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");

		if (!len)
			return fail(why, whylen, "%s %s: an empty entry in the list", key, list);
		if (n == max)
			return fail(why, whylen, "%s %s: at most %u paths", key, list, max);
		if (len >= cap)
			return fail(why, whylen, "%s %s: an entry longer than %zu bytes", key, list,
				    cap - 1);
		memcpy(out + n * cap, p, len);
		out[n * cap + len] = '\0';
		n++;
		if (!p[len])
			return (int)n;
		p += len + 1;
	}
}

int rblk_fio_trid_paths(const struct rblk_fio_trid *t, struct rblk_fio_path *paths, char *why,
			size_t whylen)
{
	char addrs[RBLK_FIO_PATHS_MAX][RBLK_FIO_ADDR_MAX + 1];
	char svcs[RBLK_FIO_PATHS_MAX][RBLK_FIO_SVC_MAX + 1];
	int na, ns;

	na = split_list(t->traddr, &addrs[0][0], sizeof(addrs[0]), RBLK_FIO_PATHS_MAX, "traddr",
			why, whylen);
	if (na < 0)
		return na;
	ns = split_list(t->trsvcid, &svcs[0][0], sizeof(svcs[0]), RBLK_FIO_PATHS_MAX, "trsvcid",
			why, whylen);
	if (ns < 0)
		return ns;
	if (ns != 1 && ns != na)
		return fail(why, whylen, "trsvcid %s: one port for all paths, or one per traddr "
			    "entry (%d)", t->trsvcid, na);
	for (int i = 0; i < na; i++) {
		const char *svc = svcs[ns == 1 ? 0 : i];

		if (check_port(svc))
			return fail(why, whylen, "trsvcid %s: a port number 1..65535", svc);
		strcpy(paths[i].traddr, addrs[i]);
		strcpy(paths[i].trsvcid, svc);
	}
	return na;
}

bool rblk_fio_trid_same_ctrl(const struct rblk_fio_trid *a, const struct rblk_fio_trid *b)
{
	return !strcmp(a->traddr, b->traddr) && !strcmp(a->trsvcid, b->trsvcid) &&
	       !strcmp(a->subnqn, b->subnqn) && !strcmp(a->hostnqn, b->hostnqn) &&
	       !strcmp(a->hostid, b->hostid) && !strcmp(a->host_traddr, b->host_traddr);
}

void rblk_fio_trid_str(const struct rblk_fio_trid *t, char *buf, size_t len)
{
	snprintf(buf, len, "traddr=%s trsvcid=%s subnqn=%s ns=%u%s%s", t->traddr, t->trsvcid,
		 t->subnqn, t->nsid, t->host_traddr[0] ? " hostaddr=" : "", t->host_traddr);
}
