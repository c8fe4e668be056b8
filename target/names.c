/* SPDX-License-Identifier: MIT */
/*
 * Names and identities, apart from the objects that carry them so that the
 * daemon's configuration code can check names without the rest of the core:
 *
 * The NQN policy for configured names (subsystems, allowed hosts): any name
 * that passes rblk_nqn_policy_check() (protocol/nqn.h, nvmet's rule) is accepted,
 * and a name that does not follow the NVMe form gets one warning per process.
 *
 * The stable generated identifiers (serial, UUID, NGUID): hashes of the
 * subsystem NQN and nsid, so a restart or a reload exports the same identity
 * and two subsystems never collide.
 *
 * The public rblk_nqn_check(), rblk_ns_gen_ids() and the ANA state names
 * (rblk/target.h) are these rules for programs that check a configuration.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/nqn.h"
#include "target/core.h"

/* Names remembered for the once-per-name warning; past that, every use warns. */
#define NQN_WARNED_MAX 1024

/* ------------------------------------------------------------------------ */
/* NQN policy.                                                               */

/* Dot-separated labels of [A-Za-z0-9-], none empty, none starting or ending with '-'. */
static bool domain_ok(const char *s, size_t len)
{
	size_t label = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
		} else if (isalnum(c) || (c == '-' && label > 0)) {
			label++;
		} else {
			return false;
		}
	}
	return label > 0 && s[len - 1] != '-';
}

/*
 * Why a name that passed rblk_nqn_policy_check() is not of the NVMe form
 * (protocol/nqn.c decides; this only puts its refusal in words).
 */
static void form_why(const char *nqn, char *why, size_t len)
{
	const size_t plen = strlen(RBLK_NQN_UUID_PREFIX);
	size_t n = strlen(nqn);
	const char *domain, *colon;
	int month;

	snprintf(why, len, "breaks the NQN rules of NVMe Base 4.5");
	if (!strncmp(nqn, RBLK_NQN_UUID_PREFIX, plen)) {
		snprintf(why, len, "does not end in a UUID after \"%s\"", RBLK_NQN_UUID_PREFIX);
		return;
	}
	if (strncmp(nqn, "nqn.", 4)) {
		snprintf(why, len, "does not start with \"nqn.\"");
		return;
	}
	month = n >= 12 ? (nqn[9] - '0') * 10 + (nqn[10] - '0') : 0;
	if (n < 12 || !isdigit((unsigned char)nqn[4]) || !isdigit((unsigned char)nqn[5]) ||
	    !isdigit((unsigned char)nqn[6]) || !isdigit((unsigned char)nqn[7]) || nqn[8] != '-' ||
	    !isdigit((unsigned char)nqn[9]) || !isdigit((unsigned char)nqn[10]) ||
	    nqn[11] != '.' || month < 1 || month > 12) {
		snprintf(why, len, "has no date after \"nqn.\"");
		return;
	}
	domain = nqn + 12;
	colon = strchr(domain, ':');
	n = colon ? (size_t)(colon - domain) : strlen(domain);
	if (!domain_ok(domain, n))
		snprintf(why, len, "has an invalid reverse domain name \"%.*s\"", (int)n, domain);
}

static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char *warned[NQN_WARNED_MAX];
static unsigned nr_warned;

/* True the first time @nqn is seen (it is then remembered, while there is room). */
static bool first_warning(const char *nqn)
{
	bool first = true;
	char *dup;

	pthread_mutex_lock(&warned_lock);
	for (unsigned i = 0; i < nr_warned && first; i++)
		first = strcmp(warned[i], nqn) != 0;
	if (first && nr_warned < NQN_WARNED_MAX && (dup = strdup(nqn)))
		warned[nr_warned++] = dup;
	pthread_mutex_unlock(&warned_lock);
	return first;
}

bool rblk_tgt_nqn_warn_form(const char *where, const char *nqn)
{
	char why[160];

	if (!rblk_nqn_validate(nqn))
		return true;
	if (first_warning(nqn)) {
		form_why(nqn, why, sizeof(why));
		RBLK_WARN("%s: \"%s\" is not an NVMe-form NQN (nqn.yyyy-mm.reverse.domain[:name] "
			  "or " RBLK_NQN_UUID_PREFIX "UUID): it %s; accepted, as nvmet accepts it",
			  where, nqn, why);
	}
	return false;
}


int rblk_nqn_check(const char *nqn, const char *where, char *why, size_t len)
{
	int ret = rblk_nqn_policy_check(nqn, why, len);

	if (!ret && where)
		rblk_tgt_nqn_warn_form(where, nqn);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Stable identifiers: FNV-1a over the input, then a splitmix64 finaliser.  */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t hash64(uint64_t seed, const char *s, uint32_t nsid)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ ((nsid >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	return mix64(h);
}

static void hash128(uint64_t seed, const char *nqn, uint32_t nsid, uint8_t out[16])
{
	uint64_t a = hash64(seed, nqn, nsid);
	uint64_t b = hash64(seed ^ 0x9e3779b97f4a7c15ull, nqn, nsid);

	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(a >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(b >> (56 - 8 * i));
	}
}

void rblk_gen_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16])
{
	hash128(0x75756964 /* "uuid" */, nqn, nsid, uuid);
	/* RFC 9562 version 8 (custom, name-derived) and the RFC variant. */
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

void rblk_gen_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16])
{
	hash128(0x6e677569 /* "ngui" */, nqn, nsid, nguid);
}

void rblk_ns_gen_ids(const char *subnqn, uint32_t nsid, uint8_t uuid[16], uint8_t nguid[16])
{
	rblk_gen_uuid(subnqn, nsid, uuid);
	rblk_gen_nguid(subnqn, nsid, nguid);
}

void rblk_gen_serial(const char *nqn, char serial[21])
{
	/* 16 hex digits: unique enough, and what nvmet's random serial looks like. */
	snprintf(serial, 21, "%016llx",
		 (unsigned long long)hash64(0x73657269 /* "seri" */, nqn, 0));
}

/* ------------------------------------------------------------------------ */

static const struct {
	enum rblk_ana_state state;
	const char *name;
} ana_names[] = {
	{ RBLK_ANA_OPTIMIZED, "optimized" },
	{ RBLK_ANA_NON_OPTIMIZED, "non-optimized" },
	{ RBLK_ANA_INACCESSIBLE, "inaccessible" },
	{ RBLK_ANA_PERSISTENT_LOSS, "persistent-loss" },
	{ RBLK_ANA_CHANGE, "change" },
};

const char *rblk_ana_state_name(enum rblk_ana_state s)
{
	for (size_t i = 0; i < sizeof(ana_names) / sizeof(ana_names[0]); i++)
		if (ana_names[i].state == s)
			return ana_names[i].name;
	return "?";
}

int rblk_ana_state_from_name(const char *name, enum rblk_ana_state *out)
{
	for (size_t i = 0; i < sizeof(ana_names) / sizeof(ana_names[0]); i++) {
		if (strcmp(ana_names[i].name, name) == 0) {
			*out = ana_names[i].state;
			return 0;
		}
	}
	return -EINVAL;
}
