/* SPDX-License-Identifier: MIT */
/*
 * Tests for hosts' DH-HMAC-CHAP settings in the rblk-target configuration
 * (daemon/config_auth.c and its uses in parse, save, diff and apply): the
 * nvmetcli hosts[].dhchap object, failing closed on anything unusable in
 * every mode, secrets never in a message, and reloads that set a host's
 * settings before any host is let in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "daemon/config.h"
#include "fake_target.h"
#include "ut.h"

static char logbuf[16384];

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t len = strlen(logbuf);

	(void)arg;
	snprintf(logbuf + len, sizeof(logbuf) - len, "%s: %s\n", rblk_log_level_str(level), msg);
}

static void log_reset(void)
{
	logbuf[0] = '\0';
	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_DEBUG);
}

static bool logged(const char *s)
{
	if (strstr(logbuf, s))
		return true;
	fprintf(stderr, "\n  expected in log: %s\n  log was:\n%s", s, logbuf);
	return false;
}

#define HOST1 "nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001"
#define HOST2 "nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000002"
#define SUB0 "nqn.2024-01.org.example:disk0"
/* 32-byte keys 00..1f and 100..131 with their CRC-32 (python3: base64, zlib.crc32). */
#define KEY1 "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"
#define KEY2 "DHHC-1:00:ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoOeXryU:"
/* KEY1 with one base64 character changed: the CRC no longer matches. */
#define KEY1_BAD "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaS:"

/* One subsystem allowing HOST1 (and HOST2), with @dhchap as HOST1's object. */
static char *config_json(const char *dhchap)
{
	char *s;

	if (asprintf(&s,
		     "{\"hosts\": [{\"nqn\": \"" HOST1 "\"%s%s}, {\"nqn\": \"" HOST2 "\"}],"
		     " \"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"allow_any_host\": \"0\"},"
		     "   \"allowed_hosts\": [\"" HOST1 "\", \"" HOST2 "\"],"
		     "   \"namespaces\": [{\"nsid\": 1, \"enable\": 1, \"device\": {\"path\": \"/dev/null\"}}]}],"
		     " \"ports\": [{\"portid\": 1, \"addr\": {\"trtype\": \"rdma\", \"adrfam\": \"ipv4\","
		     "   \"traddr\": \"10.0.0.1\", \"trsvcid\": \"4420\"}, \"subsystems\": [\"" SUB0 "\"]}]}",
		     dhchap ? ", \"dhchap\": " : "", dhchap ? dhchap : "") < 0)
		return NULL;
	return s;
}

static struct rblk_config *parse(const char *dhchap, enum rblk_cfg_mode mode, int want)
{
	struct rblk_config *cfg = NULL;
	char *json = config_json(dhchap);
	unsigned nerr = 0;

	log_reset();
	CU_ASSERT_EQUAL(rblk_config_parse(json, "test.json", mode, &cfg, &nerr), want);
	free(json);
	if (want)
		CU_ASSERT_PTR_NULL(cfg);
	return cfg;
}

static void test_parse_dhchap(void)
{
	struct rblk_config *cfg;
	const struct rblk_cfg_auth *a;

	cfg = parse("{\"key\": \"" KEY1 "\", \"ctrl_key\": \"" KEY2 "\", \"hash\": \"hmac(sha384)\","
		    " \"dhgroup\": \"ffdhe2048\"}", RBLK_CFG_STRICT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL(cfg->nr_auth, 1);
	a = rblk_config_find_auth(cfg, HOST1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_STRING_EQUAL(a->key, KEY1);
	CU_ASSERT_STRING_EQUAL(a->ctrl_key, KEY2);
	CU_ASSERT_STRING_EQUAL(a->hash, "hmac(sha384)");
	CU_ASSERT_STRING_EQUAL(a->dhgroup, "ffdhe2048");
	CU_ASSERT_PTR_NULL(rblk_config_find_auth(cfg, HOST2));
	rblk_config_free(cfg);

	/* nvmetcli's "nothing set": every attribute there, the keys empty */
	cfg = parse("{\"key\": \"\", \"ctrl_key\": \"\", \"hash\": \"hmac(sha256)\", \"dhgroup\": \"null\"}",
		    RBLK_CFG_STRICT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL(cfg->nr_auth, 0);
	rblk_config_free(cfg);
}

/* Anything unusable refuses the configuration, in best-effort mode too, and never echoes a secret. */
static void test_fail_closed(void)
{
	static const struct {
		const char *dhchap, *msg;
	} cases[] = {
		{ "{\"key\": \"" KEY1_BAD "\"}", "hosts[0].dhchap.key: host " HOST1 ": not a DH-HMAC-CHAP secret" },
		{ "{\"key\": \"DHHC-1:00:abc\"}", "hosts[0].dhchap.key: host " HOST1 ": not a DH-HMAC-CHAP secret" },
		{ "{\"key\": \"" KEY1 "\", \"ctrl_key\": \"secret!\"}", "hosts[0].dhchap.ctrl_key: host " HOST1 },
		{ "{\"key\": \"" KEY1 "\", \"hash\": \"md5\"}", "\"md5\" is not a hash" },
		{ "{\"key\": \"" KEY1 "\", \"dhgroup\": \"ffdhe1024\"}", "\"ffdhe1024\" is not a DH group" },
		{ "{\"ctrl_key\": \"" KEY2 "\"}", "hosts[0].dhchap.key: host " HOST1 ": no host secret" },
		{ "{\"key\": 12345}", "hosts[0].dhchap.key: not a string" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int mode = RBLK_CFG_STRICT; mode <= RBLK_CFG_BEST_EFFORT; mode++) {
			parse(cases[i].dhchap, (enum rblk_cfg_mode)mode, -EINVAL);
			CU_ASSERT(logged(cases[i].msg));
			CU_ASSERT_PTR_NULL(strstr(logbuf, "AAECAwQFBgcICQoLDA0ODxAR"));
			CU_ASSERT_PTR_NULL(strstr(logbuf, "ZGVmZ2hpamtsbW5v"));
			CU_ASSERT_PTR_NULL(strstr(logbuf, "secret!"));
			CU_ASSERT_PTR_NULL(strstr(logbuf, "DHHC-1:00:abc"));
			CU_ASSERT_PTR_NULL(strstr(logbuf, "12345"));
		}
	}
}

static void test_save_round_trip(void)
{
	struct rblk_config *cfg, *back = NULL;
	char *json = NULL;

	cfg = parse("{\"key\": \"" KEY1 "\", \"dhgroup\": \"ffdhe3072\"}", RBLK_CFG_STRICT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(cfg, &json), 0);
	/* nvmetcli's shape: every attribute, "" when unset */
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"ctrl_key\":\"\"") ? json : strstr(json, "\"ctrl_key\": \"\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "hmac(sha256)"));
	CU_ASSERT_EQUAL_FATAL(rblk_config_parse(json, "saved", RBLK_CFG_STRICT, &back, NULL), 0);
	CU_ASSERT_TRUE(rblk_cfg_auth_equal(rblk_config_find_auth(back, HOST1),
					   &(struct rblk_cfg_auth){ .key = KEY1, .hash = "hmac(sha256)",
								    .dhgroup = "ffdhe3072" }));
	free(json);
	rblk_config_free(back);
	rblk_config_free(cfg);
}

/* Position of the first op of @type, or -1. */
static int op_at(const struct rblk_config_diff *d, enum rblk_cfg_op_type type, const char *host)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->ops[i].type == type && (!host || (d->ops[i].host && !strcmp(d->ops[i].host, host))))
			return (int)i;
	return -1;
}

/* Start-up: each host's settings before any host is allowed in. */
static void test_startup_order_and_apply(void)
{
	struct rblk_config *cfg;
	struct rblk_config_diff d;
	char *auth, *allow;

	cfg = parse("{\"key\": \"" KEY1 "\", \"ctrl_key\": \"" KEY2 "\", \"hash\": \"sha512\"}",
		    RBLK_CFG_STRICT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, cfg, &d), 0);
	CU_ASSERT(op_at(&d, RBLK_CFG_OP_ADD_SUBSYS, NULL) < op_at(&d, RBLK_CFG_OP_HOST_AUTH, HOST1));
	CU_ASSERT(op_at(&d, RBLK_CFG_OP_HOST_AUTH, HOST1) < op_at(&d, RBLK_CFG_OP_ALLOW_HOST, NULL));
	fake_reset();
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	auth = strstr(fake_log, "host_auth " SUB0 " " HOST1 " key=1 ctrl_key=1 hash=sha512 dhgroup=-\n");
	allow = strstr(fake_log, "allow_host " SUB0 " " HOST1);
	CU_ASSERT_PTR_NOT_NULL(auth);
	CU_ASSERT_PTR_NOT_NULL(allow);
	CU_ASSERT(auth && allow && auth < allow);
	CU_ASSERT_PTR_NULL(strstr(fake_log, "host_auth " SUB0 " " HOST2));
	rblk_config_diff_free(&d);
	rblk_config_free(cfg);
}

/* A reload: changed, added and removed settings, each before anything else. */
static void test_reload_diff(void)
{
	struct rblk_config *a, *b, *c;
	struct rblk_config_diff d;
	char desc[256];

	a = parse("{\"key\": \"" KEY1 "\"}", RBLK_CFG_STRICT, 0);
	b = parse("{\"key\": \"" KEY2 "\"}", RBLK_CFG_STRICT, 0);
	c = parse(NULL, RBLK_CFG_STRICT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);

	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, a, &d), 0);
	CU_ASSERT_EQUAL(d.nr, 0);	/* unchanged: the host keeps its controllers */
	rblk_config_diff_free(&d);

	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_HOST_AUTH_KEPT);
	CU_ASSERT_STRING_EQUAL(d.ops[0].host, HOST1);
	CU_ASSERT_STRING_EQUAL(d.ops[0].auth->key, KEY2);
	rblk_cfg_op_describe(&d.ops[0], desc, sizeof(desc));
	CU_ASSERT_STRING_EQUAL(desc, SUB0 ": host " HOST1 ": DH-HMAC-CHAP, hmac(sha256), DH group null");
	rblk_config_diff_free(&d);

	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(b, c, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_HOST_AUTH_KEPT);
	CU_ASSERT_PTR_NULL(d.ops[0].auth);
	fake_reset();
	rblk_config_diff_free(&d);

	/* A key added in the same reload that allows the host: the key comes first. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(c, a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_HOST_AUTH_KEPT);
	rblk_config_diff_free(&d);

	rblk_config_free(a);
	rblk_config_free(b);
	rblk_config_free(c);
}

static void test_dup_keeps_settings(void)
{
	struct rblk_config *a, *copy = NULL;

	a = parse("{\"key\": \"" KEY1 "\", \"dhgroup\": \"ffdhe4096\"}", RBLK_CFG_STRICT, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(a, &copy), 0);
	CU_ASSERT_TRUE(rblk_cfg_auth_equal(rblk_config_find_auth(a, HOST1),
					   rblk_config_find_auth(copy, HOST1)));
	rblk_config_free(copy);
	rblk_config_free(a);
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_dhchap),
	UT_CASE(test_fail_closed),
	UT_CASE(test_save_round_trip),
	UT_CASE(test_startup_order_and_apply),
	UT_CASE(test_reload_diff),
	UT_CASE(test_dup_keeps_settings),
	UT_END,
};

UT_MAIN("daemon/config_auth", cases)
