/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/trid: fio filenames as SPDK transport IDs (the library's
 * rblk_trid_parse), merged with the engine options (see trid.h). The
 * messages matter more than usual here: they are what a fio user sees when a
 * job file is wrong, and the usual mistake is an unescaped ':'.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fio-plugin/trid.h"

#define COLON_HINT \
	" (fio splits filename= at every ':': write '\\:' for a ':' inside the transport ID, " \
	"as in NQNs and IPv6 addresses, or give the value as an engine option such as --subnqn=)"

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rblk_fio_trid_parse(const char *s, struct rblk_trid *out, char *why, size_t whylen)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	ret = rblk_trid_parse(s, out, why, whylen);
	/* The library's wording for a token without '=' or ':' (initiator/trid.c). */
	if (ret && strstr(why, "' is not KEY=VALUE")) {
		size_t n = strlen(why);

		snprintf(why + n, whylen - n, "%s", COLON_HINT);
	}
	return ret;
}

static void take(char *dst, size_t cap, bool have, const char *def)
{
	if (!have && def && *def && strlen(def) < cap)
		strcpy(dst, def);
}

int rblk_fio_trid_complete(struct rblk_trid *t, const struct rblk_trid *d, char *why, size_t whylen)
{
	struct rblk_trid_path paths[RBLK_MPATH_MAX_PATHS];
	unsigned s = t->set;
	int n;

	if (d) {
		take(t->traddr, sizeof(t->traddr), s & RBLK_TRID_TRADDR, d->traddr);
		take(t->trsvcid, sizeof(t->trsvcid), s & RBLK_TRID_TRSVCID, d->trsvcid);
		take(t->subnqn, sizeof(t->subnqn), s & RBLK_TRID_SUBNQN, d->subnqn);
		take(t->hostnqn, sizeof(t->hostnqn), s & RBLK_TRID_HOSTNQN, d->hostnqn);
		take(t->hostid, sizeof(t->hostid), s & RBLK_TRID_HOSTID, d->hostid);
		take(t->host_traddr, sizeof(t->host_traddr), s & RBLK_TRID_HOSTADDR, d->host_traddr);
		if (!(s & RBLK_TRID_NS) && d->nsid)
			t->nsid = d->nsid;
		if (!(s & RBLK_TRID_ADRFAM))
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
	/* The options may have brought a traddr or trsvcid the filename's parse never saw. */
	n = rblk_fio_trid_paths(t, paths, why, whylen);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		if (!rblk_trid_adrfam_fits(t->adrfam, paths[i].traddr))
			return fail(why, whylen, "adrfam %s does not match traddr %s",
				    t->adrfam == RBLK_ADRFAM_IPV4 ? "IPv4" : "IPv6", paths[i].traddr);
	return 0;
}

int rblk_fio_trid_paths(const struct rblk_trid *t, struct rblk_trid_path *paths, char *why,
			size_t whylen)
{
	return rblk_trid_paths(t->traddr, t->trsvcid, paths, why, whylen);
}

bool rblk_fio_trid_same_ctrl(const struct rblk_trid *a, const struct rblk_trid *b)
{
	return !strcmp(a->traddr, b->traddr) && !strcmp(a->trsvcid, b->trsvcid) &&
	       !strcmp(a->subnqn, b->subnqn) && !strcmp(a->hostnqn, b->hostnqn) &&
	       !strcmp(a->hostid, b->hostid) && !strcmp(a->host_traddr, b->host_traddr);
}

void rblk_fio_trid_str(const struct rblk_trid *t, char *buf, size_t len)
{
	snprintf(buf, len, "traddr=%s trsvcid=%s subnqn=%s ns=%u%s%s", t->traddr, t->trsvcid,
		 t->subnqn, t->nsid, t->host_traddr[0] ? " hostaddr=" : "", t->host_traddr);
}
