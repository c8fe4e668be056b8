/* SPDX-License-Identifier: MIT */
/*
 * Hosts' DH-HMAC-CHAP settings in the configuration model: nvmetcli's
 * hosts[].dhchap object (key, ctrl_key, hash, dhgroup, as the kernel's
 * configfs host attributes) or the daemon's --dhchap-* flags.
 *
 * Settings are per host NQN, as in nvmet: every subsystem the host reaches
 * (through allowed_hosts or allow_any_host) authenticates it with them.
 *
 * Failing closed: a setting that does not parse (a secret that is not
 * DHHC-1, an unknown hash or group) refuses the whole configuration in every
 * mode. Skipping it, as best-effort mode skips other bad entries, would let
 * that host in without authentication. Messages name the host and the key
 * path, never the secret.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth.h"
#include "daemon/config.h"

static void auth_clear(struct rblk_cfg_auth *a)
{
	free(a->where);
	free(a->host);
	/* Secrets: overwritten before the memory goes back. */
	if (a->key)
		explicit_bzero(a->key, strlen(a->key));
	if (a->ctrl_key)
		explicit_bzero(a->ctrl_key, strlen(a->ctrl_key));
	free(a->key);
	free(a->ctrl_key);
	free(a->hash);
	free(a->dhgroup);
	memset(a, 0, sizeof(*a));
}

void rblk_config_free_auth(struct rblk_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_auth; i++)
		auth_clear(&cfg->auth[i]);
	free(cfg->auth);
	cfg->auth = NULL;
	cfg->nr_auth = 0;
}

const struct rblk_cfg_auth *rblk_config_find_auth(const struct rblk_config *cfg, const char *host)
{
	for (size_t i = 0; i < cfg->nr_auth; i++)
		if (strcmp(cfg->auth[i].host, host) == 0)
			return &cfg->auth[i];
	return NULL;
}

static int set_str(char **dst, const char *src)
{
	char *n = NULL;

	if (src && !(n = strdup(src)))
		return -ENOMEM;
	if (*dst)
		explicit_bzero(*dst, strlen(*dst));
	free(*dst);
	*dst = n;
	return 0;
}

int rblk_config_set_auth(struct rblk_config *cfg, const char *where, const char *host,
			 struct rblk_cfg_auth **out)
{
	struct rblk_cfg_auth *a = (struct rblk_cfg_auth *)rblk_config_find_auth(cfg, host), *n;

	if (!a) {
		n = realloc(cfg->auth, (cfg->nr_auth + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		cfg->auth = n;
		a = &cfg->auth[cfg->nr_auth];
		memset(a, 0, sizeof(*a));
		if (!(a->host = strdup(host)))
			return -ENOMEM;
		cfg->nr_auth++;
	}
	if (set_str(&a->where, where))
		return -ENOMEM;
	*out = a;
	return 0;
}

int rblk_config_del_auth(struct rblk_config *cfg, const char *host)
{
	for (size_t i = 0; i < cfg->nr_auth; i++) {
		if (strcmp(cfg->auth[i].host, host))
			continue;
		auth_clear(&cfg->auth[i]);
		memmove(&cfg->auth[i], &cfg->auth[i + 1], (cfg->nr_auth - i - 1) * sizeof(cfg->auth[0]));
		cfg->nr_auth--;
		return 0;
	}
	return -ENOENT;
}

int rblk_cfg_auth_set(struct rblk_cfg_auth *a, enum rblk_cfg_auth_field f, const char *value)
{
	switch (f) {
	case RBLK_CFG_AUTH_KEY:
		return set_str(&a->key, value);
	case RBLK_CFG_AUTH_CTRL_KEY:
		return set_str(&a->ctrl_key, value);
	case RBLK_CFG_AUTH_HASH:
		return set_str(&a->hash, value);
	case RBLK_CFG_AUTH_DHGROUP:
		return set_str(&a->dhgroup, value);
	}
	return -EINVAL;
}

int rblk_config_dup_auth(struct rblk_config *dst, const struct rblk_config *src)
{
	for (size_t i = 0; i < src->nr_auth; i++) {
		const struct rblk_cfg_auth *s = &src->auth[i];
		struct rblk_cfg_auth *d;

		if (rblk_config_set_auth(dst, s->where, s->host, &d) ||
		    rblk_cfg_auth_set(d, RBLK_CFG_AUTH_KEY, s->key) ||
		    rblk_cfg_auth_set(d, RBLK_CFG_AUTH_CTRL_KEY, s->ctrl_key) ||
		    rblk_cfg_auth_set(d, RBLK_CFG_AUTH_HASH, s->hash) ||
		    rblk_cfg_auth_set(d, RBLK_CFG_AUTH_DHGROUP, s->dhgroup))
			return -ENOMEM;
	}
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool rblk_cfg_auth_equal(const struct rblk_cfg_auth *a, const struct rblk_cfg_auth *b)
{
	if (!a || !b)
		return a == b;
	return str_eq(a->key, b->key) && str_eq(a->ctrl_key, b->ctrl_key) &&
	       str_eq(a->hash, b->hash) && str_eq(a->dhgroup, b->dhgroup);
}

/* Where a field came from: "hosts[0].dhchap.key", or the flag that set it. */
static const char *field(char *buf, size_t len, const struct rblk_cfg_auth *a, const char *key)
{
	if (a->where[0] == '-')
		snprintf(buf, len, "--dhchap-%s", strcmp(key, "ctrl_key") ? key : "ctrl-key");
	else
		snprintf(buf, len, "%s.%s", a->where, key);
	return buf;
}

/*
 * One entry's values, logged as errors of the strict kind whatever the mode
 * ("auth" is never skipped: see the top of the file). Messages name the
 * field and the host, never the secret.
 */
static unsigned check_one(const struct rblk_cfg_auth *a, unsigned *errors)
{
	struct rblk_auth_secret s = { 0 };
	enum rblk_auth_hash h;
	enum rblk_auth_dhgroup g;
	unsigned before = *errors;
	char f[96];

	if (!a->key)
		rblk_cfg_error(RBLK_CFG_STRICT, errors, NULL,
			       "%s: host %s: no host secret; a controller secret, hash or DH group "
			       "needs the host's DHHC-1 secret too", field(f, sizeof(f), a, "key"),
			       a->host);
	else if (rblk_auth_secret_parse(a->key, &s))
		rblk_cfg_error(RBLK_CFG_STRICT, errors, NULL,
			       "%s: host %s: not a DH-HMAC-CHAP secret (expected "
			       "DHHC-1:<00|01|02|03>:<base64 of a 32, 48 or 64-byte key and its CRC-32>:, "
			       "as `rblk gen-dhchap-key` or `nvme gen-dhchap-key` print it)",
			       field(f, sizeof(f), a, "key"), a->host);
	if (a->ctrl_key && rblk_auth_secret_parse(a->ctrl_key, &s))
		rblk_cfg_error(RBLK_CFG_STRICT, errors, NULL,
			       "%s: host %s: not a DH-HMAC-CHAP secret (expected DHHC-1:...:)",
			       field(f, sizeof(f), a, "ctrl_key"), a->host);
	rblk_auth_secret_clear(&s);
	if (a->hash && rblk_auth_hash_parse(a->hash, &h))
		rblk_cfg_error(RBLK_CFG_STRICT, errors, NULL,
			       "%s: host %s: \"%s\" is not a hash (hmac(sha256), hmac(sha384), "
			       "hmac(sha512), or sha256, sha384, sha512)", field(f, sizeof(f), a, "hash"),
			       a->host, a->hash);
	if (a->dhgroup && rblk_auth_dhgroup_parse(a->dhgroup, &g))
		rblk_cfg_error(RBLK_CFG_STRICT, errors, NULL,
			       "%s: host %s: \"%s\" is not a DH group (null, ffdhe2048, ffdhe3072, "
			       "ffdhe4096, ffdhe6144, ffdhe8192)", field(f, sizeof(f), a, "dhgroup"),
			       a->host, a->dhgroup);
	return *errors - before;
}

unsigned rblk_config_check_auth(const struct rblk_config *cfg, unsigned *errors)
{
	unsigned n = 0;

	for (size_t i = 0; i < cfg->nr_auth; i++)
		n += check_one(&cfg->auth[i], errors);
	return n;
}
