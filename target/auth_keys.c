/* SPDX-License-Identifier: MIT */
/*
 * The configured side of in-band authentication (target/auth.h): a host's
 * secrets as given to rblk_subsystem_set_host_auth(), parsed and checked
 * once; the per-controller snapshot with the keys transformed for its NQNs.
 * Where they are kept and who is failed when they change is subsys.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/core.h"

/* nvmet's defaults for a host entry: hmac(sha256), no DH group (configfs). */
#define DEFAULT_HASH RBLK_AUTH_HASH_SHA256
#define DEFAULT_DHGROUP RBLK_AUTH_DHGROUP_NULL

void rblk_host_auth_init(struct rblk_host_auth *auth)
{
	memset(auth, 0, sizeof(*auth));
	auth->size = sizeof(*auth);
}

static bool empty(const char *s)
{
	return !s || !*s;
}

int rblk_tgt_auth_cfg_parse(const struct rblk_host_auth *a, const char *subnqn,
			    const char *hostnqn, struct rblk_tgt_auth_cfg **out)
{
	struct rblk_host_auth in;
	struct rblk_tgt_auth_cfg *cfg;
	const char *bad = NULL;

	*out = NULL;
	if (!a)
		return 0;
	if (a->size < sizeof(a->size))
		return -EINVAL;
	/* Sized struct: fields past the caller's size are the defaults. */
	rblk_host_auth_init(&in);
	memcpy(&in, a, a->size < sizeof(in) ? a->size : sizeof(in));
	if (empty(in.key)) {
		if (!empty(in.ctrl_key)) {
			RBLK_ERR("subsystem %s host %s: dhchap ctrl_key without a host key", subnqn,
				 hostnqn);
			return -EINVAL;
		}
		return 0;
	}

	cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		return -ENOMEM;
	cfg->hash = DEFAULT_HASH;
	cfg->dhgroup = DEFAULT_DHGROUP;
	/* Only the field's name goes to the log: the strings may be secrets. */
	if (in.hash && (rblk_auth_hash_parse(in.hash, &cfg->hash) ||
			!rblk_auth_hash_len(cfg->hash)))
		bad = "hash (sha256, sha384 or sha512)";
	else if (in.dhgroup && rblk_auth_dhgroup_parse(in.dhgroup, &cfg->dhgroup))
		bad = "dhgroup (null or ffdhe2048..ffdhe8192)";
	else if (rblk_auth_secret_parse(in.key, &cfg->key))
		bad = "key (not a valid DHHC-1 secret)";
	else if (!empty(in.ctrl_key) && rblk_auth_secret_parse(in.ctrl_key, &cfg->ctrl_key))
		bad = "ctrl_key (not a valid DHHC-1 secret)";
	if (bad) {
		RBLK_ERR("subsystem %s host %s: invalid dhchap %s", subnqn, hostnqn, bad);
		rblk_tgt_auth_cfg_free(cfg);
		return -EINVAL;
	}
	cfg->has_ctrl_key = !empty(in.ctrl_key);
	*out = cfg;
	return 0;
}

void rblk_tgt_auth_cfg_free(struct rblk_tgt_auth_cfg *cfg)
{
	if (!cfg)
		return;
	rblk_auth_secret_clear(&cfg->key);
	rblk_auth_secret_clear(&cfg->ctrl_key);
	free(cfg);
}

static bool secret_equal(const struct rblk_auth_secret *a, const struct rblk_auth_secret *b)
{
	return a->transform == b->transform && a->len == b->len &&
	       rblk_auth_response_equal(a->key, b->key, a->len);
}

bool rblk_tgt_auth_cfg_equal(const struct rblk_tgt_auth_cfg *a, const struct rblk_tgt_auth_cfg *b)
{
	if (!a || !b)
		return a == b;
	return a->hash == b->hash && a->dhgroup == b->dhgroup && secret_equal(&a->key, &b->key) &&
	       a->has_ctrl_key == b->has_ctrl_key &&
	       (!a->has_ctrl_key || secret_equal(&a->ctrl_key, &b->ctrl_key));
}

int rblk_tgt_auth_keys_create(const struct rblk_tgt_auth_cfg *cfg, const char *hostnqn,
			      const char *subnqn, struct rblk_tgt_auth_keys **out)
{
	struct rblk_tgt_auth_keys *k = calloc(1, sizeof(*k));
	int ret;

	if (!k)
		return -ENOMEM;
	k->hash = cfg->hash;
	k->dhgroup = cfg->dhgroup;
	/*
	 * Each secret is transformed with its owner's NQN: the host's with the
	 * host NQN, the controller's with the subsystem NQN (nvmet's
	 * nvmet_auth_host_hash / nvmet_auth_ctrl_hash).
	 */
	ret = rblk_auth_secret_transform(&cfg->key, hostnqn, k->host_key, &k->host_key_len);
	if (!ret && cfg->has_ctrl_key)
		ret = rblk_auth_secret_transform(&cfg->ctrl_key, subnqn, k->ctrl_key,
						 &k->ctrl_key_len);
	if (ret) {
		rblk_tgt_auth_keys_free(k);
		return ret;
	}
	*out = k;
	return 0;
}

void rblk_tgt_auth_keys_free(struct rblk_tgt_auth_keys *keys)
{
	if (!keys)
		return;
	explicit_bzero(keys, sizeof(*keys));
	free(keys);
}

int rblk_subsystem_set_host_auth(struct rblk_subsystem *ss, const char *hostnqn,
				 const struct rblk_host_auth *auth)
{
	struct rblk_tgt_auth_cfg *cfg;
	int ret;

	if (!ss || !hostnqn)
		return -EINVAL;
	/* nvmet does not authenticate discovery controllers either. */
	if (ss->type == RBLK_SUBSYS_DISCOVERY)
		return -EOPNOTSUPP;
	ret = rblk_tgt_auth_cfg_parse(auth, ss->nqn, hostnqn, &cfg);
	if (ret)
		return ret;
	/* subsys.c takes cfg over, even on failure. */
	return rblk_subsys_set_host_auth(ss, hostnqn, cfg);
}
