/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/auth_keys.c and the host-key half of target/subsys.c:
 * rblk_subsystem_set_host_auth()'s rules (any host, allowed or not, keys parsed at
 * once, defaults, removal), secrets never in a log line, and what a change
 * does to the host's live controllers.
 */
#include <string.h>

#include "auth_host.h"
#include "protocol/le.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_subsystem *ss;
static char key[RBLK_AUTH_SECRET_STR_MAX], key2[RBLK_AUTH_SECRET_STR_MAX];
static char ckey[RBLK_AUTH_SECRET_STR_MAX];

/* Every log line of a case, to look for secrets in. */
static char logbuf[16384];
static size_t loglen;

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t n = strlen(msg);

	(void)level;
	(void)arg;
	if (loglen + n + 2 < sizeof(logbuf)) {
		memcpy(logbuf + loglen, msg, n);
		loglen += n;
		logbuf[loglen++] = '\n';
		logbuf[loglen] = 0;
	}
}

static void setup(void)
{
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:1M", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	/* Only TT_HOSTNQN is allowed (test_key_under_allow_any turns allow-any on). */
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_set_allow_any_host(ss, false), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	ah_key(key, sizeof(key), RBLK_AUTH_HASH_SHA256, 32, 0x31);
	ah_key(key2, sizeof(key2), RBLK_AUTH_HASH_SHA512, 64, 0x32);
	ah_key(ckey, sizeof(ckey), RBLK_AUTH_HASH_NONE, 32, 0x33);
	loglen = 0;
	logbuf[0] = 0;
	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_DEBUG);
}

static void teardown(void)
{
	tt_env_destroy(env);
	env = NULL;
	rblk_log_set_handler(NULL, NULL);
	rblk_log_set_level(RBLK_LOG_WARN);
}

static int set(const char *hostnqn, const char *k, const char *ck, const char *hash,
	       const char *dhgroup)
{
	struct rblk_host_auth a;

	rblk_host_auth_init(&a);
	a.key = k;
	a.ctrl_key = ck;
	a.hash = hash;
	a.dhgroup = dhgroup;
	return rblk_subsystem_set_host_auth(ss, hostnqn, &a);
}

static const struct rblk_tgt_auth_cfg *cfg_of(const char *hostnqn)
{
	for (unsigned i = 0; i < ss->nr_hosts; i++)
		if (!strcmp(ss->hosts[i].nqn, hostnqn))
			return ss->hosts[i].auth;
	return NULL;
}

static void test_init(void)
{
	struct rblk_host_auth a;

	memset(&a, 0x5a, sizeof(a));
	rblk_host_auth_init(&a);
	CU_ASSERT_EQUAL(a.size, sizeof(a));
	CU_ASSERT_PTR_NULL(a.key);
	CU_ASSERT_PTR_NULL(a.ctrl_key);
	CU_ASSERT_PTR_NULL(a.hash);
	CU_ASSERT_PTR_NULL(a.dhgroup);
}

static void test_defaults_and_parsing(void)
{
	const struct rblk_tgt_auth_cfg *c;

	setup();
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	c = cfg_of(TT_HOSTNQN);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	/* nvmet's defaults: hmac(sha256), no DH group. */
	CU_ASSERT_EQUAL(c->hash, RBLK_AUTH_HASH_SHA256);
	CU_ASSERT_EQUAL(c->dhgroup, RBLK_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(c->key.transform, RBLK_AUTH_HASH_SHA256);
	CU_ASSERT_EQUAL(c->key.len, 32);
	CU_ASSERT_EQUAL(c->key.key[0], 0x31);
	CU_ASSERT_FALSE(c->has_ctrl_key);

	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key2, ckey, "hmac(sha512)", "ffdhe4096"), 0);
	c = cfg_of(TT_HOSTNQN);
	CU_ASSERT_EQUAL(c->hash, RBLK_AUTH_HASH_SHA512);
	CU_ASSERT_EQUAL(c->dhgroup, RBLK_AUTH_DHGROUP_4096);
	CU_ASSERT_EQUAL(c->key.len, 64);
	CU_ASSERT_TRUE(c->has_ctrl_key);
	CU_ASSERT_EQUAL(c->ctrl_key.transform, RBLK_AUTH_HASH_NONE);
	CU_ASSERT_EQUAL(c->ctrl_key.key[31], 0x33);
	teardown();
}

static void test_refusals(void)
{
	char bad[RBLK_AUTH_SECRET_STR_MAX];

	setup();
	/* A host not (yet) allowed may get a key; that does not let it in. */
	CU_ASSERT_EQUAL(set(TT_HOSTNQN2, key, NULL, NULL, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(cfg_of(TT_HOSTNQN2));
	CU_ASSERT_FALSE(rblk_subsys_host_allowed(ss, TT_HOSTNQN2));
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(ss, TT_HOSTNQN2, NULL), 0);
	CU_ASSERT_PTR_NULL(cfg_of(TT_HOSTNQN2));
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN2), -ENOENT);
	/* Keys that do not parse: a flipped base64 character breaks the CRC. */
	snprintf(bad, sizeof(bad), "%s", key);
	bad[12] = bad[12] == 'A' ? 'B' : 'A';
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, bad, NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, "DHHC-1:00:abc:", NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, bad, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, NULL, ckey, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, "md5", NULL), -EINVAL);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, "none", NULL), -EINVAL);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, "ffdhe1024"), -EINVAL);
	CU_ASSERT_PTR_NULL(cfg_of(TT_HOSTNQN));
	/* No authentication of discovery controllers (nvmet neither). */
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(env->tgt->disc, TT_HOSTNQN, NULL), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(NULL, TT_HOSTNQN, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(ss, NULL, NULL), -EINVAL);
	/* The refusals said what was wrong, never with the secret. */
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "invalid dhchap key"));
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, TT_HOSTNQN));
	CU_ASSERT_PTR_NULL(strstr(logbuf, bad + 10));
	CU_ASSERT_PTR_NULL(strstr(logbuf, key + 10));
	CU_ASSERT_PTR_NULL(strstr(logbuf, "DHHC-1:"));
	teardown();
}

/* A smaller struct (an older caller) gets the defaults for what it lacks. */
static void test_sized_struct(void)
{
	struct rblk_host_auth a;

	setup();
	rblk_host_auth_init(&a);
	a.key = key;
	a.hash = "sha512";
	a.size = offsetof(struct rblk_host_auth, hash);
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(ss, TT_HOSTNQN, &a), 0);
	CU_ASSERT_EQUAL(cfg_of(TT_HOSTNQN)->hash, RBLK_AUTH_HASH_SHA256);
	a.size = 0;
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(ss, TT_HOSTNQN, &a), -EINVAL);
	teardown();
}

static void test_remove_and_disallow(void)
{
	setup();
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	/* An empty key and NULL both remove it. */
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, "", NULL, NULL, NULL), 0);
	CU_ASSERT_PTR_NULL(cfg_of(TT_HOSTNQN));
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(ss, TT_HOSTNQN, NULL), 0);
	CU_ASSERT_PTR_NULL(cfg_of(TT_HOSTNQN));
	/*
	 * Disallowing keeps the key (allow_any_host may still let the host in,
	 * and it must authenticate then); allowed again, the host has it.
	 */
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_FALSE(rblk_subsys_host_allowed(ss, TT_HOSTNQN));
	CU_ASSERT_PTR_NOT_NULL(cfg_of(TT_HOSTNQN));
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN), -ENOENT);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(cfg_of(TT_HOSTNQN));
	teardown();
}

/* Failing closed: a host with a key authenticates under allow_any_host too. */
static void test_key_under_allow_any(void)
{
	struct tt_queue *q;
	struct nvme_cqe cqe;

	setup();
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(ss, true), 0);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	q = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL_FATAL(tt_connect(q, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(nvme_cqe_status(&cqe), 0);
	CU_ASSERT_TRUE(rblk_le32(cqe.dw0) & NVMF_CONNECT_AUTHREQ_ATR);
	tt_queue_destroy(q);
	/* A host without a key is let in as before, without authentication. */
	q = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL_FATAL(tt_connect(q, TT_SUBNQN, TT_HOSTNQN2, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(nvme_cqe_status(&cqe), 0);
	CU_ASSERT_FALSE(rblk_le32(cqe.dw0) & NVMF_CONNECT_AUTHREQ_ATR);
	tt_queue_destroy(q);
	teardown();
}

/* An admin queue of TT_HOSTNQN, authenticated when the host has a key. */
static struct tt_queue *live_ctrl(const char *k)
{
	struct tt_queue *q = tt_queue_create(env, 0, 32);
	struct nvme_cqe cqe;
	struct ah_host h;

	CU_ASSERT_EQUAL_FATAL(tt_connect(q, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	if (k) {
		ah_init(&h, TT_HOSTNQN, TT_SUBNQN, k, NULL);
		CU_ASSERT_EQUAL_FATAL(ah_authenticate(&h, q), 0);
	}
	return q;
}

static bool failed(struct tt_queue *q)
{
	return q->sq.ctrl->fatal && q->disconnects > 0;
}

static void test_change_fails_live_controllers(void)
{
	struct tt_queue *q, *other;
	struct nvme_cqe cqe;

	setup();
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN2), 0);
	/* A key where there was none: the unauthenticated controller goes. */
	q = live_ctrl(NULL);
	other = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(other, TT_SUBNQN, TT_HOSTNQN2, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	CU_ASSERT_TRUE(failed(q));
	CU_ASSERT_FALSE(other->sq.ctrl->fatal); /* another host's is untouched */
	tt_queue_destroy(q);

	/* The same configuration again: nothing happens. */
	q = live_ctrl(key);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, NULL), 0);
	CU_ASSERT_FALSE(q->sq.ctrl->fatal);
	/* Another key, or another group: the authenticated controller goes. */
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, NULL, NULL, "ffdhe2048"), 0);
	CU_ASSERT_TRUE(failed(q));
	tt_queue_destroy(q);
	q = live_ctrl(key);
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key2, NULL, NULL, NULL), 0);
	CU_ASSERT_TRUE(failed(q));
	tt_queue_destroy(q);

	/* Removed: the controller that authenticated with it goes. */
	q = live_ctrl(key2);
	CU_ASSERT_EQUAL(rblk_subsystem_set_host_auth(ss, TT_HOSTNQN, NULL), 0);
	CU_ASSERT_TRUE(failed(q));
	tt_queue_destroy(q);
	/* ... and the next Connect needs no authentication. */
	q = live_ctrl(NULL);
	CU_ASSERT_PTR_NULL(q->sq.ctrl->auth);
	CU_ASSERT_PTR_NULL(strstr(logbuf, key + 10));
	CU_ASSERT_PTR_NULL(strstr(logbuf, key2 + 10));
	tt_queue_destroy(q);
	tt_queue_destroy(other);
	teardown();
}

/* The controller's keys are transformed with the right NQNs (the host's check passes). */
static void test_controller_snapshot(void)
{
	struct rblk_tgt_auth_keys *k = NULL;
	struct rblk_auth_secret s;
	uint8_t want[RBLK_AUTH_MAX_KEY_LEN];
	size_t len;

	setup();
	CU_ASSERT_EQUAL(set(TT_HOSTNQN, key, ckey, "sha384", NULL), 0);
	CU_ASSERT_EQUAL(rblk_subsys_host_keys(ss, TT_HOSTNQN, &k), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_EQUAL(k->hash, RBLK_AUTH_HASH_SHA384);
	rblk_auth_secret_parse(key, &s);
	rblk_auth_secret_transform(&s, TT_HOSTNQN, want, &len);
	CU_ASSERT_EQUAL(k->host_key_len, len);
	CU_ASSERT_EQUAL(memcmp(k->host_key, want, len), 0);
	rblk_auth_secret_parse(ckey, &s);
	rblk_auth_secret_transform(&s, TT_SUBNQN, want, &len);
	CU_ASSERT_EQUAL(k->ctrl_key_len, len);
	CU_ASSERT_EQUAL(memcmp(k->ctrl_key, want, len), 0);
	rblk_tgt_auth_keys_free(k);
	/* A host without keys: none. */
	CU_ASSERT_EQUAL(rblk_subsys_host_keys(ss, TT_HOSTNQN2, &k), 0);
	CU_ASSERT_PTR_NULL(k);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_init),
	UT_CASE(test_defaults_and_parsing),
	UT_CASE(test_refusals),
	UT_CASE(test_sized_struct),
	UT_CASE(test_remove_and_disallow),
	UT_CASE(test_key_under_allow_any),
	UT_CASE(test_change_fails_live_controllers),
	UT_CASE(test_controller_snapshot),
	UT_END,
};

UT_MAIN("target/auth_keys", cases)
