/* SPDX-License-Identifier: MIT */
/*
 * SPDK transport-ID strings (rblk_trid_parse, include/rblk/initiator.h) and
 * the paths of one (trid.h). One parser for every program that takes them:
 * `rblk -r` and the fio plugin's filenames used to have one each, with
 * different rules for the same key. Pure string handling, no RDMA.
 *
 * The messages name the key and the rule broken, because a transport ID is
 * typed by hand into a shell or a fio job file, where the only feedback is
 * this sentence.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/parse.h"
#include "common/uuid.h"
#include "initiator/trid.h"
#include "protocol/nqn.h"

/* SPDK's separators, and '\r' for job files written on Windows. */
#define BLANKS " \t\r\n"

_Static_assert(RBLK_TRID_ADDR_MAX >= 255, "a DNS name fits in traddr");
_Static_assert(sizeof(((struct rblk_trid *)0)->hostid) == RBLK_UUID_STRLEN, "hostid holds a UUID");

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Splits @list at commas into up to @max entries of @cap bytes at @out + i * @stride. */
static int split(const char *list, char *out, size_t cap, size_t stride, const char *key, char *why,
		 size_t len)
{
	const char *p = list;
	int n = 0;

	for (;;) {
		size_t l = strcspn(p, ",");

		if (!l)
			return fail(why, len, "%s %s: an empty entry in the list", key, list);
		if (n == RBLK_MPATH_MAX_PATHS)
			return fail(why, len, "%s %s: at most %d paths", key, list,
				    RBLK_MPATH_MAX_PATHS);
		if (l >= cap)
			return fail(why, len, "%s %s: an entry longer than %zu bytes", key, list,
				    cap - 1);
		memcpy(out + n * stride, p, l);
		out[n * stride + l] = '\0';
		n++;
		if (!p[l])
			return n;
		p += l + 1;
	}
}

/* Every entry of a trsvcid list meets the port rule. */
static int check_ports(struct rblk_trid_path *paths, int n, char *why, size_t len)
{
	char rule[96];
	uint16_t port;

	for (int i = 0; i < n; i++)
		if (rblk_port_parse(paths[i].trsvcid, &port, rule, sizeof(rule)))
			return fail(why, len, "trsvcid '%s': %s", paths[i].trsvcid, rule);
	return 0;
}

int rblk_trid_paths(const char *traddr, const char *trsvcid, struct rblk_trid_path *paths,
		    char *why, size_t len)
{
	struct rblk_trid_path svcs[RBLK_MPATH_MAX_PATHS];
	int na, ns, ret;

	na = split(traddr, paths[0].traddr, sizeof(paths[0].traddr), sizeof(paths[0]), "traddr",
		   why, len);
	if (na < 0)
		return na;
	ns = split(trsvcid, svcs[0].trsvcid, sizeof(svcs[0].trsvcid), sizeof(svcs[0]), "trsvcid",
		   why, len);
	if (ns < 0)
		return ns;
	ret = check_ports(svcs, ns, why, len);
	if (ret)
		return ret;
	if (ns != 1 && ns != na)
		return fail(why, len, "trsvcid %s: one port for all paths, or one per traddr entry (%d)",
			    trsvcid, na);
	for (int i = 0; i < na; i++)
		strcpy(paths[i].trsvcid, svcs[ns == 1 ? 0 : i].trsvcid);
	return na;
}

/* A dotted-quad literal: what IPv6 cannot be. */
static bool looks_ipv4(const char *s)
{
	unsigned dots = 0;

	for (; *s; s++) {
		if (*s == '.')
			dots++;
		else if (*s < '0' || *s > '9')
			return false;
	}
	return dots == 3;
}

bool rblk_trid_adrfam_fits(enum rblk_adrfam adrfam, const char *traddr)
{
	if (adrfam == RBLK_ADRFAM_IPV4)
		return !strchr(traddr, ':');
	if (adrfam == RBLK_ADRFAM_IPV6)
		return !looks_ipv4(traddr);
	return true;
}

static const struct {
	const char *key;
	enum rblk_trid_key bit;
} keys[] = {
	{ "trtype", RBLK_TRID_TRTYPE },		{ "adrfam", RBLK_TRID_ADRFAM },
	{ "traddr", RBLK_TRID_TRADDR },		{ "trsvcid", RBLK_TRID_TRSVCID },
	{ "subnqn", RBLK_TRID_SUBNQN },		{ "hostnqn", RBLK_TRID_HOSTNQN },
	{ "hostid", RBLK_TRID_HOSTID },		{ "hostaddr", RBLK_TRID_HOSTADDR },
	{ "host_traddr", RBLK_TRID_HOSTADDR },	{ "ns", RBLK_TRID_NS },
};

static int store(char *dst, size_t cap, const char *key, const char *val, char *why, size_t len)
{
	if (strlen(val) >= cap)
		return fail(why, len, "%s is longer than %zu bytes", key, cap - 1);
	strcpy(dst, val);
	return 0;
}

static int nqn(char *dst, const char *key, const char *val, char *why, size_t len)
{
	char rule[80];

	if (rblk_nqn_policy_check(val, rule, sizeof(rule)))
		return fail(why, len, "%s %s", key, rule);
	strcpy(dst, val);
	return 0;
}

static int set_value(struct rblk_trid *t, enum rblk_trid_key bit, const char *key, const char *val,
		     char *why, size_t len)
{
	char rule[96];

	switch (bit) {
	case RBLK_TRID_TRTYPE:
		if (strcasecmp(val, "RDMA"))
			return fail(why, len, "trtype %s: only RDMA is supported", val);
		return 0;
	case RBLK_TRID_ADRFAM:
		if (!strcasecmp(val, "IPv4"))
			t->adrfam = RBLK_ADRFAM_IPV4;
		else if (!strcasecmp(val, "IPv6"))
			t->adrfam = RBLK_ADRFAM_IPV6;
		else
			return fail(why, len, "adrfam %s: IPv4 or IPv6", val);
		return 0;
	case RBLK_TRID_TRADDR:
		return store(t->traddr, sizeof(t->traddr), key, val, why, len);
	case RBLK_TRID_TRSVCID:
		/* Checked entry by entry once the string is read (parse_lists). */
		return store(t->trsvcid, sizeof(t->trsvcid), key, val, why, len);
	case RBLK_TRID_SUBNQN:
		return nqn(t->subnqn, key, val, why, len);
	case RBLK_TRID_HOSTNQN:
		return nqn(t->hostnqn, key, val, why, len);
	case RBLK_TRID_HOSTID:
		if (!rblk_uuid_valid(val))
			return fail(why, len, "hostid %s: a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
				    val);
		strcpy(t->hostid, val);
		return 0;
	case RBLK_TRID_HOSTADDR:
		return store(t->host_traddr, sizeof(t->host_traddr), key, val, why, len);
	case RBLK_TRID_NS:
		if (rblk_nsid_parse(val, &t->nsid, rule, sizeof(rule)))
			return fail(why, len, "ns %s: %s", val, rule);
		return 0;
	}
	return fail(why, len, "%s: no rule for this key", key);
}

static int set_field(struct rblk_trid *t, char *tok, char *why, size_t len)
{
	size_t k = strcspn(tok, "=:");
	const char *val = tok + k + 1;
	int bit = -1;

	if (!k || !tok[k])
		return fail(why, len, "'%s' is not KEY=VALUE", tok);
	tok[k] = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(tok, keys[i].key))
			bit = (int)keys[i].bit;
	if (bit < 0)
		return fail(why, len, "unknown key '%s' (known: trtype, adrfam, traddr, trsvcid, "
			    "subnqn, hostnqn, hostid, hostaddr, ns)", tok);
	if (!*val)
		return fail(why, len, "%s has an empty value", tok);
	/* SPDK lets a repeated key win; here it is a mistake to report, not guess at. */
	if (t->set & (unsigned)bit)
		return fail(why, len, "%s is given twice", tok);
	t->set |= (unsigned)bit;
	return set_value(t, (enum rblk_trid_key)bit, tok, val, why, len);
}

/* The lists and the rules between keys, once every key is known. */
static int parse_lists(const struct rblk_trid *t, char *why, size_t len)
{
	struct rblk_trid_path paths[RBLK_MPATH_MAX_PATHS];
	int n = 0;

	if ((t->set & RBLK_TRID_TRADDR) && (t->set & RBLK_TRID_TRSVCID)) {
		n = rblk_trid_paths(t->traddr, t->trsvcid, paths, why, len);
	} else if (t->set & RBLK_TRID_TRADDR) {
		n = split(t->traddr, paths[0].traddr, sizeof(paths[0].traddr), sizeof(paths[0]),
			  "traddr", why, len);
	} else if (t->set & RBLK_TRID_TRSVCID) {
		int ns = split(t->trsvcid, paths[0].trsvcid, sizeof(paths[0].trsvcid),
			       sizeof(paths[0]), "trsvcid", why, len);

		return ns < 0 ? ns : check_ports(paths, ns, why, len);
	}
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		if (!rblk_trid_adrfam_fits(t->adrfam, paths[i].traddr))
			return fail(why, len, "adrfam %s does not match traddr %s",
				    t->adrfam == RBLK_ADRFAM_IPV4 ? "IPv4" : "IPv6",
				    paths[i].traddr);
	return 0;
}

int rblk_trid_parse(const char *str, struct rblk_trid *out, char *why, size_t len)
{
	struct rblk_trid t;
	char *copy, *tok, *save = NULL;
	int ret = 0;

	/* The first release's layout is the least a caller can know. */
	if (!out || out->size < offsetof(struct rblk_trid, nsid) + sizeof(out->nsid))
		return fail(why, len, "struct rblk_trid: size not set (sizeof(struct rblk_trid))");
	if (!str || !str[strspn(str, BLANKS)])
		return fail(why, len, "the transport ID is empty: give one such as 'trtype=RDMA "
			    "traddr=10.0.0.1 trsvcid=4420 subnqn=NQN ns=1'");
	memset(&t, 0, sizeof(t));
	copy = strdup(str);
	if (!copy)
		return fail(why, len, "out of memory");
	for (tok = strtok_r(copy, BLANKS, &save); tok && !ret; tok = strtok_r(NULL, BLANKS, &save))
		ret = set_field(&t, tok, why, len);
	free(copy);
	if (!ret)
		ret = parse_lists(&t, why, len);
	if (ret)
		return ret;
	t.size = out->size < sizeof(t) ? out->size : sizeof(t);
	memcpy(out, &t, t.size);
	return 0;
}
