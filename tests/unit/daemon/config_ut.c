/* SPDX-License-Identifier: MIT */
/*
 * Tests for the rblk-target configuration (target/config*.c): nvmetcli JSON
 * in every shape nvmetcli and people write it, each error message with its
 * key path, best-effort skipping, the diff that drives SIGHUP reloads, the
 * apply step against a fake target, and save -> load round trips.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/uuid.h"
#include "fake_target.h"
#include "daemon/config.h"
#include "ut.h"

/* ------------------------------------------------------------ log capture */

static char logbuf[32768];
static int nr_err, nr_warn;

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t len = strlen(logbuf);

	(void)arg;
	nr_err += level == RBLK_LOG_ERR;
	nr_warn += level == RBLK_LOG_WARN;
	snprintf(logbuf + len, sizeof(logbuf) - len, "%s: %s\n", rblk_log_level_str(level), msg);
}

static void log_reset(void)
{
	logbuf[0] = '\0';
	nr_err = nr_warn = 0;
	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_INFO);
}

static bool logged(const char *s)
{
	if (strstr(logbuf, s))
		return true;
	fprintf(stderr, "\n  expected in log: %s\n  log was:\n%s", s, logbuf);
	return false;
}

/* ---------------------------------------------------------------- inputs */

#define HOST1 "nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001"
#define HOST2 "nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000002"
#define SUB0 "nqn.2024-01.org.example:disk0"
#define SUB1 "nqn.2024-01.org.example:disk1"

/* A minimal RDMA configuration in nvmetcli's format. */
static const char *const ecosystem_example =
	"{\n"
	"  \"hosts\": [ { \"nqn\": \"nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001\" } ],\n"
	"  \"subsystems\": [ {\n"
	"    \"nqn\": \"nqn.2024-01.org.example:disk0\",\n"
	"    \"attr\": { \"allow_any_host\": \"0\", \"serial\": \"EX0001\", \"model\": \"example-tgt\" },\n"
	"    \"allowed_hosts\": [ \"nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001\" ],\n"
	"    \"namespaces\": [ { \"nsid\": 1, \"enable\": 1,\n"
	"      \"device\": { \"path\": \"/srv/disk0.img\", \"uuid\": \"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\" } } ]\n"
	"  } ],\n"
	"  \"ports\": [ { \"portid\": 1,\n"
	"    \"addr\": { \"trtype\": \"rdma\", \"adrfam\": \"ipv4\", \"traddr\": \"192.0.2.10\", \"trsvcid\": \"4420\", \"treq\": \"not specified\" },\n"
	"    \"subsystems\": [ \"nqn.2024-01.org.example:disk0\" ], \"referrals\": [] } ]\n"
	"}\n";

/* What `nvmetcli save` writes on a 6.x kernel: every writable attribute. */
static const char *const nvmetcli_saved =
	"{\n"
	"  \"hosts\": [\n"
	"    {\n"
	"      \"dhchap\": { \"ctrl_key\": \"\", \"dhgroup\": \"null\", \"hash\": \"hmac(sha256)\", \"key\": \"\" },\n"
	"      \"nqn\": \"" HOST1 "\"\n"
	"    }\n"
	"  ],\n"
	"  \"ports\": [\n"
	"    {\n"
	"      \"addr\": { \"adrfam\": \"ipv4\", \"traddr\": \"10.99.0.1\", \"treq\": \"not specified\",\n"
	"                \"trsvcid\": \"4420\", \"trtype\": \"rdma\", \"tsas\": \"not required\" },\n"
	"      \"ana_groups\": [ { \"ana\": { \"state\": \"optimized\" }, \"grpid\": 1 } ],\n"
	"      \"param\": { \"inline_data_size\": \"16384\", \"pi_enable\": \"0\" },\n"
	"      \"portid\": 2,\n"
	"      \"referrals\": [],\n"
	"      \"subsystems\": [ \"" SUB0 "\" ]\n"
	"    }\n"
	"  ],\n"
	"  \"subsystems\": [\n"
	"    {\n"
	"      \"allowed_hosts\": [ \"" HOST1 "\" ],\n"
	"      \"attr\": { \"allow_any_host\": \"0\", \"cntlid_max\": \"65519\", \"cntlid_min\": \"1\",\n"
	"                \"firmware\": \"6.1.0-18-amd64\", \"ieee_oui\": \"0x000000\",\n"
	"                \"model\": \"Linux\", \"pi_enable\": \"0\", \"qid_max\": \"128\",\n"
	"                \"serial\": \"9a3f41d2c50e7b18\", \"version\": \"1.3\" },\n"
	"      \"namespaces\": [\n"
	"        {\n"
	"          \"ana\": { \"grpid\": \"1\" },\n"
	"          \"ana_grpid\": 1,\n"
	"          \"device\": { \"nguid\": \"00000000-0000-0000-0000-000000000000\",\n"
	"                      \"path\": \"/dev/vdb\", \"uuid\": \"c2ab1f2e-8d3b-4a6e-9f0c-3b1d2e4f5a6b\" },\n"
	"          \"enable\": 1,\n"
	"          \"nsid\": 1,\n"
	"          \"resv\": { \"enable\": \"0\" }\n"
	"        }\n"
	"      ],\n"
	"      \"nqn\": \"" SUB0 "\",\n"
	"      \"passthru\": []\n"
	"    }\n"
	"  ]\n"
	"}\n";

static struct rblk_config *parse_ok(const char *json)
{
	struct rblk_config *cfg = NULL;
	unsigned nerr = 99;

	CU_ASSERT_EQUAL_FATAL(rblk_config_parse(json, "test.json", RBLK_CFG_STRICT, &cfg, &nerr), 0);
	CU_ASSERT_EQUAL(nerr, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	return cfg;
}

/* Parses in strict mode, expects refusal (-EINVAL, or -EBADMSG for non-JSON) and @msg. */
static void expect_error_ret(const char *json, const char *msg, int want)
{
	struct rblk_config *cfg = NULL;
	unsigned nerr = 0;

	log_reset();
	CU_ASSERT_EQUAL(rblk_config_parse(json, "test.json", RBLK_CFG_STRICT, &cfg, &nerr), want);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT(nerr >= 1);
	CU_ASSERT(logged(msg));
	rblk_config_free(cfg);
}

static void expect_error(const char *json, const char *msg)
{
	expect_error_ret(json, msg, -EINVAL);
}

/* A one-subsystem, one-port config with @ns_json as the namespaces array. */
static char *one_subsys(const char *attr, const char *ns_json, const char *port_addr)
{
	char *s;

	if (asprintf(&s,
		     "{\"hosts\": [{\"nqn\": \"" HOST1 "\"}],"
		     " \"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {%s},"
		     "   \"namespaces\": [%s]}],"
		     " \"ports\": [{\"portid\": 1, \"addr\": {%s}, \"subsystems\": [\"" SUB0 "\"]}]}",
		     attr, ns_json, port_addr) < 0)
		return NULL;
	return s;
}

#define ADDR_OK "\"trtype\": \"rdma\", \"adrfam\": \"ipv4\", \"traddr\": \"10.0.0.1\", \"trsvcid\": \"4420\""
#define NS1 "{\"nsid\": 1, \"enable\": 1, \"device\": {\"path\": \"/srv/a.img\"}}"

/* ----------------------------------------------------------------- parse */

static void test_ecosystem_example(void)
{
	struct rblk_config *cfg;
	uint8_t uuid[16];

	log_reset();
	cfg = parse_ok(ecosystem_example);
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_EQUAL(cfg->nr_hosts, 1);
	CU_ASSERT_STRING_EQUAL(cfg->hosts[0], HOST1);
	CU_ASSERT_EQUAL_FATAL(cfg->nr_subsys, 1);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].nqn, SUB0);
	CU_ASSERT_FALSE(cfg->subsys[0].allow_any_host);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].serial, "EX0001");
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].model, "example-tgt");
	CU_ASSERT_EQUAL_FATAL(cfg->subsys[0].nr_hosts, 1);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].hosts[0], HOST1);
	CU_ASSERT_EQUAL_FATAL(cfg->subsys[0].nr_ns, 1);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[0].nsid, 1);
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].enable);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].ns[0].path, "/srv/disk0.img");
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].has_uuid);
	CU_ASSERT_FALSE(cfg->subsys[0].ns[0].uuid_generated);
	rblk_uuid_parse("0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", uuid);
	CU_ASSERT_EQUAL(memcmp(cfg->subsys[0].ns[0].uuid, uuid, 16), 0);
	/* No NGUID in the file: a stable one is generated. */
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].has_nguid);
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].nguid_generated);
	CU_ASSERT_EQUAL_FATAL(cfg->nr_ports, 1);
	CU_ASSERT_EQUAL(cfg->ports[0].portid, 1);
	CU_ASSERT_FALSE(cfg->ports[0].ipv6);
	CU_ASSERT_STRING_EQUAL(cfg->ports[0].traddr, "192.0.2.10");
	CU_ASSERT_EQUAL(cfg->ports[0].trsvcid, 4420);
	CU_ASSERT_EQUAL(cfg->ports[0].treq, 0);
	CU_ASSERT_EQUAL(cfg->ports[0].inline_data_size, -1);
	CU_ASSERT_EQUAL_FATAL(cfg->ports[0].nr_subsys, 1);
	CU_ASSERT_STRING_EQUAL(cfg->ports[0].subsys[0], SUB0);
	rblk_config_free(cfg);
}

static void test_nvmetcli_save_output(void)
{
	struct rblk_config *cfg;
	struct rblk_target_opts o;

	log_reset();
	cfg = parse_ok(nvmetcli_saved);
	/* Every extra key holds the kernel default: nothing to warn about. */
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_EQUAL_FATAL(cfg->nr_subsys, 1);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].serial, "9a3f41d2c50e7b18");
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].ns[0].path, "/dev/vdb");
	/* An all-zero NGUID is nvmetcli's "unset": replaced by a generated one. */
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].nguid_generated);
	CU_ASSERT_EQUAL(cfg->ports[0].portid, 2);
	CU_ASSERT_STRING_EQUAL(cfg->ports[0].traddr, "10.99.0.1");
	CU_ASSERT_EQUAL(cfg->ports[0].inline_data_size, 16384);
	rblk_config_target_opts(cfg, &o);
	CU_ASSERT_EQUAL(o.in_capsule_data_size, 16384);
	rblk_config_free(cfg);
}

static void test_unsupported_values_warn(void)
{
	struct rblk_config *cfg;
	char *json = one_subsys("\"allow_any_host\": 1, \"qid_max\": \"64\", \"pi_enable\": 1", NS1,
				ADDR_OK ", \"tsas\": \"none\"");

	log_reset();
	cfg = parse_ok(json);
	CU_ASSERT(logged("subsystems[0].attr.qid_max: \"64\" ignored"));
	CU_ASSERT(logged("subsystems[0].attr.pi_enable: 1 ignored: protection information"));
	CU_ASSERT_EQUAL(nr_warn, 2);
	rblk_config_free(cfg);
	free(json);

	log_reset();
	cfg = parse_ok("{\"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"allow_any_host\": 1},"
		       " \"passthru\": [{\"device\": {\"path\": \"/dev/nvme0\"}}],"
		       " \"colour\": \"blue\"}], \"hosts\": [{\"nqn\": \"" HOST1 "\","
		       " \"dhchap\": {\"key\": \"\", \"hash\": \"hmac(sha256)\"}}], \"extra\": 1}");
	CU_ASSERT(logged("subsystems[0].passthru: ignored"));
	CU_ASSERT(logged("subsystems[0].colour: unknown key, ignored"));
	CU_ASSERT_EQUAL(cfg->nr_auth, 0);	/* no key: no authentication, as in nvmet */
	CU_ASSERT(logged("extra: unknown key, ignored"));
	CU_ASSERT_EQUAL(nr_err, 0);
	rblk_config_free(cfg);
}

static void test_attr_types(void)
{
	static const struct {
		const char *v;
		bool want;
	} cases[] = {
		{ "\"1\"", true },   { "1", true },	    { "true", true },  { "\"yes\"", true },
		{ "\"Y\"", true },   { "\"0\"", false },   { "0", false },    { "false", false },
		{ "\"off\"", false }, { "\"n\"", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rblk_config *cfg;
		char attr[64], *json;

		snprintf(attr, sizeof(attr), "\"allow_any_host\": %s", cases[i].v);
		json = one_subsys(attr, NS1, ADDR_OK);
		log_reset();
		cfg = parse_ok(json);
		CU_ASSERT_EQUAL(cfg->subsys[0].allow_any_host, cases[i].want);
		rblk_config_free(cfg);
		free(json);
	}
}

static void test_numbers_as_strings(void)
{
	struct rblk_config *cfg;
	char *json = one_subsys("\"serial\": 1234",
				"{\"nsid\": \"7\", \"enable\": \"1\", \"device\": {\"path\": \"/x\"}}",
				"\"trtype\": \"rdma\", \"traddr\": \"10.0.0.1\", \"trsvcid\": 4421");

	log_reset();
	cfg = parse_ok(json);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[0].nsid, 7);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].serial, "1234");
	CU_ASSERT_EQUAL(cfg->ports[0].trsvcid, 4421);
	CU_ASSERT_FALSE(cfg->ports[0].ipv6); /* adrfam inferred from the address */
	rblk_config_free(cfg);
	free(json);
}

static void test_ipv6_and_treq(void)
{
	struct rblk_config *cfg;
	char *json = one_subsys("", NS1,
				"\"trtype\": \"rdma\", \"traddr\": \"fe80::1\", \"treq\": \"not required\"");

	log_reset();
	cfg = parse_ok(json);
	CU_ASSERT_TRUE(cfg->ports[0].ipv6);
	CU_ASSERT_EQUAL(cfg->ports[0].treq, 2);
	CU_ASSERT_EQUAL(cfg->ports[0].trsvcid, 4420); /* default when absent */
	rblk_config_free(cfg);
	free(json);
}

/* addr.treq sets the secure-channel bits only; bit 2 (SQ flow control disable) stays, as nvmet. */
static void test_apply_treq_keeps_sqflow(void)
{
	static const char *const names[] = { "not specified", "required", "not required" };
	static const unsigned want[] = { 0x04, 0x05, 0x06 };

	for (unsigned i = 0; i < 3; i++) {
		struct rblk_config *cfg;
		struct rblk_config_diff d;
		char addr[256], line[64], *json;

		snprintf(addr, sizeof(addr), ADDR_OK ", \"treq\": \"%s\"", names[i]);
		json = one_subsys("", NS1, addr);
		log_reset();
		fake_reset();
		cfg = parse_ok(json);
		CU_ASSERT_EQUAL(cfg->ports[0].treq, i);
		CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, cfg, &d), 0);
		CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
		snprintf(line, sizeof(line),
			 "listen 10.0.0.1 4420 portid=1 treq=%u rdma=1 linked_only=1\n", want[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, line));
		rblk_config_diff_free(&d);
		rblk_config_free(cfg);
		free(json);
	}
}

static void test_xrblk_extensions(void)
{
	struct rblk_config *cfg;
	struct rblk_target_opts o;
	const char *json =
		"{\"x-rblk\": {\"poll_groups\": 2, \"poll_mode\": \"busy\", \"backend\": \"aio\","
		" \"max_queue_depth\": \"256\", \"in_capsule_data_size\": 0, \"max_io_size\": 262144,"
		" \"srq_depth\": 4096},"
		" \"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"allow_any_host\": \"1\"},"
		"  \"x-rblk\": {\"max_namespaces\": 8},"
		"  \"namespaces\": [{\"nsid\": 3, \"device\": {\"path\": \"mem:64M\"},"
		"   \"x-rblk\": {\"read_only\": true, \"backend\": \"uring\", \"block_size\": 4096,"
		"                \"eui64\": \"0011223344556677\"}}]}]}";

	log_reset();
	cfg = parse_ok(json);
	CU_ASSERT_EQUAL(cfg->tgt.num_poll_groups, 2);
	CU_ASSERT_EQUAL(cfg->subsys[0].max_namespaces, 8);
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].enable); /* absent "enable" = enabled */
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].read_only);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].ns[0].backend, "uring");
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[0].block_size, 4096);
	CU_ASSERT_TRUE(cfg->subsys[0].ns[0].has_eui64);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[0].eui64[7], 0x77);
	rblk_config_target_opts(cfg, &o);
	CU_ASSERT_EQUAL(o.num_poll_groups, 2);
	CU_ASSERT_EQUAL(o.poll_mode, RBLK_POLL_BUSY);
	CU_ASSERT_STRING_EQUAL(o.backend, "aio");
	CU_ASSERT_EQUAL(o.max_queue_depth, 256);
	CU_ASSERT_EQUAL(o.in_capsule_data_size, 0);
	CU_ASSERT_EQUAL(o.max_io_size, 262144);
	CU_ASSERT_EQUAL(o.io_unit_size, 131072); /* untouched default */
	CU_ASSERT_EQUAL(o.srq_depth, 4096);
	rblk_config_free(cfg);
}

/*
 * x-rblk.rbd_cache: an rbd: namespace's opt-in to librbd's cache, saved as
 * given, a replacement when it changes on a reload; any other path refuses it.
 */
static void test_xrblk_rbd_cache(void)
{
	char *text = NULL, *json, *on, *off;
	struct rblk_config *a, *b;
	struct rblk_config_diff d;

	log_reset();
	on = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"rbd:rbd/img\"},"
			    " \"x-rblk\": {\"rbd_cache\": true}}", ADDR_OK);
	off = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"rbd:rbd/img\"}}", ADDR_OK);
	a = parse_ok(on);
	CU_ASSERT_TRUE(a->subsys[0].ns[0].rbd_cache);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(a, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"rbd_cache\": true"));
	free(text);
	b = parse_ok(off);
	/* Absent: off, and not written back. */
	CU_ASSERT_FALSE(b->subsys[0].ns[0].rbd_cache);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(b, &text), 0);
	CU_ASSERT_PTR_NULL(strstr(text, "rbd_cache"));
	free(text);
	/* The namespace is replaced: removed, then added with the cache off. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 2);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_DEL_NS);
	CU_ASSERT_EQUAL(d.ops[1].type, RBLK_CFG_OP_ADD_NS);
	CU_ASSERT_FALSE(d.ops[1].ns->rbd_cache);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
	free(on);
	free(off);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"mem:64M\"},"
			      " \"x-rblk\": {\"rbd_cache\": true}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].x-rblk.rbd_cache: librbd's cache is for "
			   "rbd: namespaces only, not mem:64M");
	free(json);
}

/*
 * x-rblk.qos: SPDK's limit names, saved back, applied live on a reload that
 * changes only them (no replacement), and given to a new namespace at once.
 */
static void test_xrblk_qos(void)
{
	char *text = NULL, *json, *lim, *free_ns;
	struct rblk_config *a, *b;
	struct rblk_config_diff d;

	log_reset();
	lim = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"mem:64M\"},"
			     " \"x-rblk\": {\"qos\": {\"rw_ios_per_sec\": 500, \"w_mbytes_per_sec\": \"20\"}}}",
			 ADDR_OK);
	free_ns = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"mem:64M\"}}", ADDR_OK);
	a = parse_ok(lim);
	CU_ASSERT_EQUAL(a->subsys[0].ns[0].qos.rw_ios_per_sec, 500);
	CU_ASSERT_EQUAL(a->subsys[0].ns[0].qos.w_mbytes_per_sec, 20);
	CU_ASSERT_EQUAL(a->subsys[0].ns[0].qos.r_mbytes_per_sec, 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(a, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"rw_ios_per_sec\": 500"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"w_mbytes_per_sec\": 20"));
	free(text);
	b = parse_ok(free_ns);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(b, &text), 0);
	CU_ASSERT_PTR_NULL(strstr(text, "qos"));
	free(text);
	/* Only the limits change: one live op, the namespace stays. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_NS_QOS);
	CU_ASSERT_EQUAL(d.ops[0].ns->qos.rw_ios_per_sec, 0);
	fake_reset();
	/* (The fake target has no such subsystem: the op reaches the API all the same.) */
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), -ENOENT);
	rblk_config_diff_free(&d);
	/* A new namespace is created with its limits. */
	fake_reset();
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "qos=500/0/0/20"));
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
	free(lim);
	free(free_ns);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"mem:64M\"},"
			      " \"x-rblk\": {\"qos\": {\"rw_iops\": 5}}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].x-rblk.qos.rw_iops: unknown QoS limit");
	free(json);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"mem:64M\"},"
			      " \"x-rblk\": {\"qos\": {\"rw_ios_per_sec\": 100000001}}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].x-rblk.qos.rw_ios_per_sec: 100000001");
	free(json);
}

/* x-rblk admission-control keys reach struct rblk_target_opts; absent ones keep the defaults. */
static void test_xrblk_admission(void)
{
	struct rblk_config *cfg;
	struct rblk_target_opts o;

	log_reset();
	cfg = parse_ok("{\"x-rblk\": {\"connect_timeout_ms\": 2500, \"max_pending_queues\": \"100\","
		       " \"max_pending_per_addr\": 4, \"max_ctrls_per_host\": 65519,"
		       " \"max_queues\": 2}}");
	CU_ASSERT_EQUAL(nr_warn, 0); /* known keys: no "unknown key" warning */
	CU_ASSERT_EQUAL(cfg->tgt.connect_timeout_ms, 2500);
	CU_ASSERT_EQUAL(cfg->tgt.max_pending_queues, 100);
	CU_ASSERT_EQUAL(cfg->tgt.max_pending_per_addr, 4);
	CU_ASSERT_EQUAL(cfg->tgt.max_ctrls_per_host, 65519);
	CU_ASSERT_EQUAL(cfg->tgt.max_queues, 2);
	rblk_config_target_opts(cfg, &o);
	CU_ASSERT_EQUAL(o.connect_timeout_ms, 2500);
	CU_ASSERT_EQUAL(o.max_pending_queues, 100);
	CU_ASSERT_EQUAL(o.max_pending_per_addr, 4);
	CU_ASSERT_EQUAL(o.max_ctrls_per_host, 65519);
	CU_ASSERT_EQUAL(o.max_queues, 2);
	rblk_config_free(cfg);

	cfg = parse_ok("{\"x-rblk\": {\"max_queues\": 1048576, \"connect_timeout_ms\": 600000}}");
	rblk_config_target_opts(cfg, &o);
	CU_ASSERT_EQUAL(o.max_queues, 1048576);
	CU_ASSERT_EQUAL(o.connect_timeout_ms, 600000);
	CU_ASSERT_EQUAL(o.max_pending_queues, 256); /* rblk_target_opts_init()'s */
	CU_ASSERT_EQUAL(o.max_pending_per_addr, 32);
	CU_ASSERT_EQUAL(o.max_ctrls_per_host, 64);
	rblk_config_free(cfg);
}

/* The Ceph client of rbd: namespaces reaches struct rblk_target_opts; absent: NULL. */
static void test_xrblk_rbd_client(void)
{
	struct rblk_config *cfg, *dup;
	struct rblk_target_opts o;

	log_reset();
	cfg = parse_ok("{\"x-rblk\": {\"rbd_conf\": \"/etc/ceph/a.conf\", \"rbd_id\": \"gw1\","
		       " \"rbd_keyring\": \"/etc/ceph/gw1.keyring\"}}");
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_STRING_EQUAL(cfg->tgt.rbd_conf, "/etc/ceph/a.conf");
	CU_ASSERT_STRING_EQUAL(cfg->tgt.rbd_id, "gw1");
	CU_ASSERT_STRING_EQUAL(cfg->tgt.rbd_keyring, "/etc/ceph/gw1.keyring");
	/* A copy owns its own strings. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(cfg, &dup), 0);
	CU_ASSERT_PTR_NOT_EQUAL(dup->tgt.rbd_id, cfg->tgt.rbd_id);
	rblk_config_free(cfg);
	rblk_config_target_opts(dup, &o);
	CU_ASSERT_STRING_EQUAL(o.rbd_conf, "/etc/ceph/a.conf");
	CU_ASSERT_STRING_EQUAL(o.rbd_id, "gw1");
	CU_ASSERT_STRING_EQUAL(o.rbd_keyring, "/etc/ceph/gw1.keyring");
	rblk_config_free(dup);

	cfg = parse_ok("{\"x-rblk\": {\"poll_groups\": 1}}");
	rblk_config_target_opts(cfg, &o);
	CU_ASSERT_PTR_NULL(o.rbd_conf);
	CU_ASSERT_PTR_NULL(o.rbd_id);
	CU_ASSERT_PTR_NULL(o.rbd_keyring);
	rblk_config_free(cfg);
}

/* x-rblk.state_dir reaches the target (PTPL files); absent: the library's default. */
static void test_xrblk_state_dir(void)
{
	struct rblk_config *cfg, *dup;
	struct rblk_target_opts o, dflt;

	log_reset();
	cfg = parse_ok("{\"x-rblk\": {\"state_dir\": \"/srv/rblk\"}}");
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_STRING_EQUAL(cfg->tgt.state_dir, "/srv/rblk");
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(cfg, &dup), 0);
	CU_ASSERT_PTR_NOT_EQUAL(dup->tgt.state_dir, cfg->tgt.state_dir);
	rblk_config_free(cfg);
	rblk_config_target_opts(dup, &o);
	CU_ASSERT_STRING_EQUAL(o.state_dir, "/srv/rblk");
	rblk_config_free(dup);

	/* Absent: the library's default stays. */
	rblk_target_opts_init(&dflt);
	cfg = parse_ok("{\"x-rblk\": {\"poll_groups\": 1}}");
	rblk_config_target_opts(cfg, &o);
	CU_ASSERT_PTR_EQUAL(o.state_dir, dflt.state_dir);
	rblk_config_free(cfg);
}

/* ---------------------------------------------------------------- errors */

static void test_error_nsid(void)
{
	char *json = one_subsys("", NS1 ", {\"nsid\": 0, \"device\": {\"path\": \"/b\"}}", ADDR_OK);

	expect_error(json, "subsystems[0].namespaces[1].nsid: 0 is not a valid namespace id "
			   "(1..4294967294)");
	free(json);
	json = one_subsys("", "{\"nsid\": -3, \"device\": {\"path\": \"/b\"}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].nsid: -3 is not a valid namespace id");
	free(json);
	json = one_subsys("", "{\"nsid\": 4294967295, \"device\": {\"path\": \"/b\"}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].nsid: 4294967295 is not a valid");
	free(json);
	json = one_subsys("", "{\"device\": {\"path\": \"/b\"}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].nsid: missing");
	free(json);
}

static void test_error_duplicate_nsid(void)
{
	char *json = one_subsys("", NS1 ", {\"nsid\": 1, \"device\": {\"path\": \"/b\"}}", ADDR_OK);

	expect_error(json, "subsystems[0].namespaces[1].nsid: 1 is already used by "
			   "subsystems[0].namespaces[0]");
	free(json);
}

static void test_error_missing_path(void)
{
	char *json = one_subsys("", "{\"nsid\": 2, \"enable\": 1, \"device\": {\"uuid\": \"\"}}",
				ADDR_OK);

	expect_error(json, "subsystems[0].namespaces[0].device.path: missing");
	free(json);
	/* A disabled namespace may lack a path (it is not exported). */
	json = one_subsys("", NS1 ", {\"nsid\": 2, \"enable\": 0}", ADDR_OK);
	log_reset();
	rblk_config_free(parse_ok(json));
	free(json);
}

static void test_error_trsvcid(void)
{
	char *json = one_subsys("", NS1, "\"trtype\": \"rdma\", \"traddr\": \"10.0.0.1\", "
					 "\"trsvcid\": \"44x0\"");

	expect_error(json, "ports[0].addr.trsvcid: \"44x0\" must be a decimal number 1-65535");
	free(json);
	/* what rblk -s and the initiator refuse, the target refuses too */
	json = one_subsys("", NS1, "\"trtype\": \"rdma\", \"traddr\": \"10.0.0.1\", "
				   "\"trsvcid\": \"0x1144\"");
	expect_error(json, "ports[0].addr.trsvcid: \"0x1144\" must be a decimal number 1-65535");
	free(json);
	json = one_subsys("", NS1, "\"trtype\": \"rdma\", \"traddr\": \"10.0.0.1\", "
				   "\"trsvcid\": 70000");
	expect_error(json, "ports[0].addr.trsvcid: 70000 is not a decimal number 1-65535");
	free(json);
}

static void test_error_trtype_and_addr(void)
{
	char *json = one_subsys("", NS1, "\"trtype\": \"tcp\", \"traddr\": \"10.0.0.1\"");

	expect_error(json, "ports[0].addr.trtype: \"tcp\" is not served by rblk-target (only \"rdma\"");
	free(json);
	json = one_subsys("", NS1, "\"trtype\": \"rdma\", \"traddr\": \"10.0.0.300\"");
	expect_error(json, "ports[0].addr.traddr: \"10.0.0.300\" is not an IPv4 address");
	free(json);
	json = one_subsys("", NS1, "\"trtype\": \"rdma\", \"adrfam\": \"ipv6\", \"traddr\": \"10.0.0.1\"");
	expect_error(json, "ports[0].addr.traddr: \"10.0.0.1\" is not an IPv6 address");
	free(json);
	json = one_subsys("", NS1, "\"trtype\": \"rdma\", \"adrfam\": \"ib\", \"traddr\": \"x\"");
	expect_error(json, "ports[0].addr.adrfam: \"ib\" is not served");
	free(json);
	json = one_subsys("", NS1, "\"trtype\": \"rdma\"");
	expect_error(json, "ports[0].addr.traddr: missing");
	free(json);
	json = one_subsys("", NS1, "\"traddr\": \"10.0.0.1\"");
	expect_error(json, "ports[0].addr.trtype: missing");
	free(json);
	json = one_subsys("", NS1, ADDR_OK ", \"treq\": \"maybe\"");
	expect_error(json, "ports[0].addr.treq: \"maybe\" is not a treq value");
	free(json);
}

static void test_error_nqn(void)
{
	char *json;

	expect_error("{\"subsystems\": [{\"nqn\": \"\"}]}",
		     "subsystems[0].nqn: \"\" is not a valid NQN: it is empty");
	expect_error("{\"subsystems\": [{\"nqn\": \"my disk\"}]}",
		     "subsystems[0].nqn: \"my disk\" is not a valid NQN: it contains a space");
	expect_error("{\"subsystems\": [{\"nqn\": \"tab\\there\"}]}",
		     "is not a valid NQN: it contains control characters");
	expect_error("{\"hosts\": [{\"nqn\": \"host 1\"}]}",
		     "hosts[0].nqn: \"host 1\" is not a valid NQN: it contains a space");
	expect_error("{\"subsystems\": [{\"nqn\": \"nqn.2014-08.org.nvmexpress.discovery\"}]}",
		     "subsystems[0].nqn: \"nqn.2014-08.org.nvmexpress.discovery\" is the discovery subsystem");
	expect_error("{\"subsystems\": [{\"attr\": {}}]}", "subsystems[0].nqn: missing");
	json = calloc(1, 400);
	strcpy(json, "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.org.example:");
	memset(json + strlen(json), 'a', 200);
	strcat(json, "\"}]}");
	expect_error(json, "subsystems[0].nqn: \"nqn.2024-01.org.example:aaa");
	expect_error(json, "is not a valid NQN: it is 224 bytes long (at most 223)");
	free(json);
	expect_error("{\"subsystems\": [{\"nqn\": \"" SUB0 "\"}, {\"nqn\": \"" SUB0 "\"}]}",
		     "subsystems[1].nqn: \"" SUB0 "\" is already defined by subsystems[0]");
}

/*
 * A kernel nvmetcli config with names that are not of the NVMe form loads
 * unchanged (nvmet accepts them), with one warning per name: not one per use,
 * not again when the same names come back (validation after the flags, reload).
 */
static void test_nqn_not_nvme_form_warns_once(void)
{
	static const char *const json =
		"{\"hosts\": [{\"nqn\": \"blktests-host-1\"}],"
		" \"subsystems\": [{\"nqn\": \"testnqn\", \"allowed_hosts\": [\"blktests-host-1\"],"
		"   \"namespaces\": [" NS1 "]},"
		"  {\"nqn\": \"blktests-subsystem-1\", \"attr\": {\"allow_any_host\": \"1\"}},"
		"  {\"nqn\": \"nqn.2024-13.org.example:x\", \"attr\": {\"allow_any_host\": \"1\"}},"
		"  {\"nqn\": \"nqn.2024-01.-bad-.org:x\", \"attr\": {\"allow_any_host\": \"1\"}},"
		"  {\"nqn\": \"nqn.2014-08.org.nvmexpress:uuid:1234\", \"attr\": {\"allow_any_host\": \"1\"}}],"
		" \"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "},"
		"   \"subsystems\": [\"testnqn\", \"blktests-subsystem-1\", \"nqn.2024-13.org.example:x\","
		"     \"nqn.2024-01.-bad-.org:x\", \"nqn.2014-08.org.nvmexpress:uuid:1234\"]}]}";
	struct rblk_config *cfg, *again;
	struct rblk_config_diff d;

	log_reset();
	fake_reset();
	cfg = parse_ok(json);
	CU_ASSERT_EQUAL(nr_err, 0);
	CU_ASSERT_EQUAL(nr_warn, 6);
	CU_ASSERT(logged("warn: hosts[0].nqn: \"blktests-host-1\" is not an NVMe-form NQN "
			 "(nqn.yyyy-mm.reverse.domain[:name] or nqn.2014-08.org.nvmexpress:uuid:UUID): "
			 "it does not start with \"nqn.\"; accepted, as nvmet accepts it"));
	CU_ASSERT(logged("warn: subsystems[0].nqn: \"testnqn\" is not an NVMe-form NQN"));
	CU_ASSERT(logged("subsystems[1].nqn: \"blktests-subsystem-1\" is not an NVMe-form NQN"));
	CU_ASSERT(logged("subsystems[2].nqn: \"nqn.2024-13.org.example:x\" is not an NVMe-form NQN "
			 "(nqn.yyyy-mm.reverse.domain[:name] or nqn.2014-08.org.nvmexpress:uuid:UUID): "
			 "it has no date after \"nqn.\""));
	CU_ASSERT(logged("it has an invalid reverse domain name \"-bad-.org\""));
	CU_ASSERT(logged("it does not end in a UUID after \"nqn.2014-08.org.nvmexpress:uuid:\""));
	CU_ASSERT_EQUAL_FATAL(cfg->nr_subsys, 5);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].nqn, "testnqn");
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].hosts[0], "blktests-host-1");

	/* The names reach the target as they are. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, cfg, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "add_subsys testnqn any=0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "allow_host testnqn blktests-host-1\n"));
	rblk_config_diff_free(&d);

	/* Loaded again (a reload): the names were reported already. */
	log_reset();
	again = parse_ok(json);
	CU_ASSERT_EQUAL(rblk_config_validate(again, RBLK_CFG_STRICT, NULL), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	rblk_config_free(again);
	rblk_config_free(cfg);
}

static void test_error_allowed_hosts(void)
{
	expect_error("{\"hosts\": [], \"subsystems\": [{\"nqn\": \"" SUB0 "\","
		     " \"allowed_hosts\": [\"" HOST2 "\"]}]}",
		     "subsystems[0].allowed_hosts[0]: \"" HOST2 "\" is not in \"hosts\"");
	expect_error("{\"hosts\": [{\"nqn\": \"" HOST1 "\"}], \"subsystems\": [{\"nqn\": \"" SUB0 "\","
		     " \"attr\": {\"allow_any_host\": \"1\"}, \"allowed_hosts\": [\"" HOST1 "\"]}]}",
		     "subsystems[0].attr.allow_any_host: 1 conflicts with allowed_hosts (1 host)");
	expect_error("{\"hosts\": [{\"nqn\": \"" HOST1 "\"}, {\"nqn\": \"" HOST1 "\"}]}",
		     "hosts[1].nqn: \"" HOST1 "\" is listed twice");
	expect_error("{\"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"allow_any_host\": \"maybe\"}}]}",
		     "subsystems[0].attr.allow_any_host: \"maybe\" is not a boolean");
}

static void test_error_ports(void)
{
	expect_error("{\"ports\": [{\"addr\": {" ADDR_OK "}}]}", "ports[0].portid: missing");
	expect_error("{\"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "}},"
		     " {\"portid\": 1, \"addr\": {\"trtype\": \"rdma\", \"traddr\": \"10.0.0.2\"}}]}",
		     "ports[1].portid: 1 is already used by ports[0]");
	expect_error("{\"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "}},"
		     " {\"portid\": 2, \"addr\": {" ADDR_OK "}}]}",
		     "ports[1].addr: 10.0.0.1 port 4420 is already served by ports[0]");
	expect_error("{\"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "},"
		     " \"subsystems\": [\"" SUB1 "\"]}]}",
		     "ports[0].subsystems[0]: \"" SUB1 "\" is not a subsystem in \"subsystems\"");
	expect_error("{\"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "},"
		     " \"param\": {\"inline_data_size\": \"lots\"}}]}",
		     "ports[0].param.inline_data_size: \"lots\" is not an in-capsule data size");
	expect_error("{\"ports\": [{\"portid\": \"one\", \"addr\": {" ADDR_OK "}}]}",
		     "ports[0].portid: \"one\" is not a port id (1..65535)");
}

static void test_error_values(void)
{
	char *json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"/a\", \"uuid\": \"xyz\"}}",
				ADDR_OK);

	expect_error(json, "subsystems[0].namespaces[0].device.uuid: \"xyz\" is not a UUID");
	free(json);
	json = one_subsys("\"serial\": \"this serial is far too long\"", NS1, ADDR_OK);
	expect_error(json, "subsystems[0].attr.serial: \"this serial is far too long\" is not a "
			   "valid serial number (1..20 characters)");
	free(json);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"/a\"},"
			      " \"x-rblk\": {\"block_size\": 1000}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].x-rblk.block_size: 1000 is not a block size");
	free(json);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"/a\"},"
			      " \"x-rblk\": {\"backend\": \"spdk\"}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].x-rblk.backend: \"spdk\" is not a backend");
	free(json);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"/a\"},"
			      " \"x-rblk\": {\"read_only\": \"perhaps\"}}", ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[0].x-rblk.read_only: \"perhaps\" is not a boolean");
	free(json);
	json = one_subsys("", "{\"nsid\": 1, \"device\": {\"path\": \"/a\", \"uuid\": "
			      "\"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\"}}, {\"nsid\": 2, \"device\":"
			      " {\"path\": \"/b\", \"uuid\": \"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\"}}",
			  ADDR_OK);
	expect_error(json, "subsystems[0].namespaces[1].device.uuid: same UUID as subsystems[0].namespaces[0]");
	free(json);
	expect_error("{\"x-rblk\": {\"poll_mode\": \"sometimes\"}}",
		     "x-rblk.poll_mode: \"sometimes\" is not a poll mode");
	expect_error("{\"x-rblk\": {\"poll_groups\": 0}}", "x-rblk.poll_groups: 0 is not a valid poll_groups (1..1024)");
	/* Admission control: the library's ranges; 0 ("the default") is not written. */
	expect_error("{\"x-rblk\": {\"connect_timeout_ms\": 99}}",
		     "x-rblk.connect_timeout_ms: 99 is not a valid connect_timeout_ms (100..600000)");
	expect_error("{\"x-rblk\": {\"connect_timeout_ms\": 600001}}",
		     "x-rblk.connect_timeout_ms: 600001 is not a valid connect_timeout_ms (100..600000)");
	expect_error("{\"x-rblk\": {\"max_pending_queues\": 0}}",
		     "x-rblk.max_pending_queues: 0 is not a valid max_pending_queues (1..65536)");
	expect_error("{\"x-rblk\": {\"max_pending_per_addr\": 65537}}",
		     "x-rblk.max_pending_per_addr: 65537 is not a valid max_pending_per_addr (1..65536)");
	expect_error("{\"x-rblk\": {\"max_ctrls_per_host\": 65520}}",
		     "x-rblk.max_ctrls_per_host: 65520 is not a valid max_ctrls_per_host (1..65519)");
	expect_error("{\"x-rblk\": {\"max_queues\": 1}}",
		     "x-rblk.max_queues: 1 is not a valid max_queues (2..1048576)");
	expect_error("{\"x-rblk\": {\"max_queues\": \"lots\"}}", "x-rblk.max_queues: \"lots\"");
	expect_error("{\"subsystems\": {}}", "subsystems: {} is not an array");
	expect_error_ret("[1, 2]", "test.json: the top level is not a JSON object", -EBADMSG);
}

static void test_error_json_syntax(void)
{
	expect_error_ret("{\n  \"hosts\": [\n    { \"nqn\": \"x\" },\n  ]\n}\n",
			 "test.json:4:3: not valid JSON", -EBADMSG);
	expect_error_ret("{\"hosts\": [", "test.json:1:12: not valid JSON: unexpected end of file",
			 -EBADMSG);
}

static void test_all_errors_reported_at_once(void)
{
	char *json = one_subsys("", "{\"nsid\": 0}, {\"nsid\": 2}",
				"\"trtype\": \"rdma\", \"traddr\": \"1.2.3.4\", \"trsvcid\": \"x\"");
	struct rblk_config *cfg = NULL;
	unsigned nerr = 0;

	log_reset();
	CU_ASSERT_EQUAL(rblk_config_parse(json, "t", RBLK_CFG_STRICT, &cfg, &nerr), -EINVAL);
	CU_ASSERT_EQUAL(nerr, 3);
	CU_ASSERT(logged("namespaces[0].nsid: 0"));
	CU_ASSERT(logged("namespaces[1].device.path: missing"));
	CU_ASSERT(logged("ports[0].addr.trsvcid: \"x\""));
	free(json);
}

static void test_best_effort_skips(void)
{
	char *json = one_subsys("\"allow_any_host\": \"1\"",
				NS1 ", {\"nsid\": 0, \"device\": {\"path\": \"/b\"}},"
				    " {\"nsid\": 3, \"device\": {\"path\": \"/c\"}}",
				ADDR_OK);
	char *json2;
	struct rblk_config *cfg = NULL;
	unsigned nerr = 0;

	log_reset();
	CU_ASSERT_EQUAL_FATAL(rblk_config_parse(json, "t", RBLK_CFG_BEST_EFFORT, &cfg, &nerr), 0);
	CU_ASSERT_EQUAL(nerr, 1);
	CU_ASSERT(logged("subsystems[0].namespaces[1].nsid: 0 is not a valid namespace id "
			 "(1..4294967294); namespace skipped"));
	CU_ASSERT_EQUAL_FATAL(cfg->subsys[0].nr_ns, 2);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[0].nsid, 1);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[1].nsid, 3);
	rblk_config_free(cfg);

	/* A tcp port, a bad subsystem (a space in its NQN) and a dangling allowed host are
	 * dropped; the rest loads. */
	json2 = malloc(strlen(json) + 400);
	sprintf(json2, "{\"hosts\": [{\"nqn\": \"" HOST1 "\"}], \"subsystems\": ["
		       "{\"nqn\": \"bad one\"}, {\"nqn\": \"" SUB1 "\", \"allowed_hosts\": [\"" HOST1
		       "\", \"" HOST2 "\"]}], \"ports\": [{\"portid\": 1, \"addr\": {\"trtype\": "
		       "\"tcp\", \"traddr\": \"1.1.1.1\"}}, {\"portid\": 2, \"addr\": {" ADDR_OK
		       "}, \"subsystems\": [\"bad one\", \"" SUB1 "\"]}]}");
	log_reset();
	CU_ASSERT_EQUAL_FATAL(rblk_config_parse(json2, "t", RBLK_CFG_BEST_EFFORT, &cfg, &nerr), 0);
	CU_ASSERT_EQUAL(nerr, 4);
	CU_ASSERT(logged("; port skipped"));
	CU_ASSERT(logged("; subsystem skipped"));
	CU_ASSERT(logged("; allowed host skipped"));
	CU_ASSERT(logged("; port link skipped"));
	CU_ASSERT_EQUAL_FATAL(cfg->nr_subsys, 1);
	CU_ASSERT_STRING_EQUAL(cfg->subsys[0].nqn, SUB1);
	CU_ASSERT_EQUAL(cfg->subsys[0].nr_hosts, 1);
	CU_ASSERT_EQUAL_FATAL(cfg->nr_ports, 1);
	CU_ASSERT_EQUAL(cfg->ports[0].portid, 2);
	CU_ASSERT_EQUAL(cfg->ports[0].nr_subsys, 1);
	rblk_config_free(cfg);
	free(json2);
	free(json);
}

static void test_load_file_errors(void)
{
	struct rblk_config *cfg = NULL;
	unsigned nerr = 0;

	log_reset();
	CU_ASSERT_EQUAL(rblk_config_load("/nonexistent/rblk.json", RBLK_CFG_STRICT, &cfg, &nerr),
			-ENOENT);
	CU_ASSERT(logged("/nonexistent/rblk.json: cannot open"));
	CU_ASSERT_EQUAL(nerr, 1);
	CU_ASSERT_EQUAL(rblk_config_load("/tmp", RBLK_CFG_STRICT, &cfg, &nerr), -EINVAL);
	CU_ASSERT_PTR_NULL(cfg);
}

static void test_warnings_for_semantics(void)
{
	struct rblk_config *cfg;

	log_reset();
	cfg = parse_ok("{\"subsystems\": [{\"nqn\": \"" SUB0 "\"}, {\"nqn\": \"" SUB1 "\","
		       " \"attr\": {\"allow_any_host\": 1}}], \"ports\": [{\"portid\": 1,"
		       " \"addr\": {" ADDR_OK "}, \"subsystems\": [\"" SUB1 "\"]}]}");
	CU_ASSERT(logged("subsystems[0] (" SUB0 "): no host may connect"));
	CU_ASSERT(logged("subsystems[0] (" SUB0 ") is not linked to any port (ports[].subsystems): "
			 "no host can reach it"));
	CU_ASSERT_EQUAL(nr_warn, 2);
	rblk_config_free(cfg);
}

/* ------------------------------------------------------------ value rules */

static void test_nqn_rules(void)
{
	char why[160], big[260];

	log_reset();
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid(SUB0, "x", why, sizeof(why)));
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid(HOST1, "x", why, sizeof(why)));
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid("nqn.2016-06.io.spdk:cnode1", "x", why, sizeof(why)));
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid(
		"nqn.2014-08.org.nvmexpress:NVMf:uuid:0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", "x", why,
		sizeof(why)));
	CU_ASSERT_EQUAL(nr_warn, 0);
	/* nvmet's rule: any printable ASCII without spaces, with a warning (none here: where NULL). */
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid("nqn.24-01.org:x", NULL, why, sizeof(why)));
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid("x", NULL, why, sizeof(why)));
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_FALSE(rblk_cfg_nqn_valid("", "x", why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "is empty");
	CU_ASSERT_FALSE(rblk_cfg_nqn_valid("nqn.2024-01.org.ex\tample:x", "x", why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "contains control characters");
	CU_ASSERT_FALSE(rblk_cfg_nqn_valid("nqn.2024-01.org.example:a\x7f", "x", why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "contains control characters");
	CU_ASSERT_FALSE(rblk_cfg_nqn_valid("my disk", "x", why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "contains a space");
	CU_ASSERT_FALSE(rblk_cfg_nqn_valid("disk\xc3\xa9", "x", why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "contains a byte that is not ASCII (0xc3)");
	memset(big, 'a', 223);
	big[223] = '\0';
	CU_ASSERT_TRUE(rblk_cfg_nqn_valid(big, NULL, why, sizeof(why)));
	big[223] = 'a';
	big[224] = '\0';
	CU_ASSERT_FALSE(rblk_cfg_nqn_valid(big, "x", why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "is 224 bytes long (at most 223)");
	CU_ASSERT_EQUAL(nr_warn, 0);
}

/* ------------------------------------------------------------------ diff */

static const char *const base_json =
	"{\"hosts\": [{\"nqn\": \"" HOST1 "\"}, {\"nqn\": \"" HOST2 "\"}],"
	" \"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"serial\": \"S0\"},"
	"   \"allowed_hosts\": [\"" HOST1 "\"],"
	"   \"namespaces\": [{\"nsid\": 1, \"device\": {\"path\": \"/a\"}},"
	"                   {\"nsid\": 2, \"device\": {\"path\": \"/b\"}}]}],"
	" \"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "}, \"subsystems\": [\"" SUB0 "\"]}]}";

static char descs[4096];

/* Diffs base_json against @new_json: op types as letters in @out, descriptions in descs. */
static void diff_types(const char *new_json, char *out, size_t len)
{
	/*
	 * ALLOW_HOST_KEPT and ALLOW_HOST are both "H": a host allowed; both
	 * HOST_AUTH ops "K": a host's DH-HMAC-CHAP settings. ANA:
	 * G/q a state made accessible/inaccessible, g a namespace's group, d a
	 * group dropped from a port (tests/unit/daemon/config_mpath_ut.c).
	 */
	static const char letters[] = "KHoxunsSKNQHAlGgqdkR";
	struct rblk_config *a, *b;
	struct rblk_config_diff d;
	size_t i;

	log_reset();
	descs[0] = '\0';
	a = parse_ok(base_json);
	b = parse_ok(new_json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	for (i = 0; i < d.nr && i + 1 < len; i++) {
		size_t n = strlen(descs);

		out[i] = letters[d.ops[i].type];
		rblk_cfg_op_describe(&d.ops[i], descs + n, sizeof(descs) - n - 1);
		strcat(descs, "\n");
	}
	out[i] = '\0';
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
}

static char *edit(const char *from, const char *to)
{
	const char *p = strstr(base_json, from);
	char *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	if (asprintf(&s, "%.*s%s%s", (int)(p - base_json), base_json, to, p + strlen(from)) < 0)
		return NULL;
	return s;
}

static void check_diff(const char *from, const char *to, const char *want, const char *desc)
{
	char got[32], *json = edit(from, to);

	diff_types(json, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, want);
	if (strcmp(got, want))
		fprintf(stderr, "\n  diff %s -> %s: got %s want %s\n", from, to, got, want);
	if (desc && !strstr(descs, desc)) {
		fprintf(stderr, "\n  expected op: %s\n  ops were:\n%s", desc, descs);
		CU_FAIL("operation description");
	}
	free(json);
}

static void test_diff_unchanged(void)
{
	char got[32];

	diff_types(base_json, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "");
	/* Key order does not matter to a running target. */
	check_diff("{\"portid\": 1, \"addr\": {" ADDR_OK "}",
		   "{\"addr\": {" ADDR_OK "}, \"portid\": 1", "", NULL);
}

static void test_diff_namespaces(void)
{
	/* add */
	check_diff("{\"nsid\": 2, \"device\": {\"path\": \"/b\"}}",
		   "{\"nsid\": 2, \"device\": {\"path\": \"/b\"}}, {\"nsid\": 9, \"device\": {\"path\": \"/z\"}}",
		   "N", SUB0 ": add namespace 9 (/z)");
	/* remove */
	check_diff(",                   {\"nsid\": 2, \"device\": {\"path\": \"/b\"}}", "", "n",
		   SUB0 ": remove namespace 2 (/b)");
	/* disable = remove */
	check_diff("{\"nsid\": 2, \"device\"", "{\"nsid\": 2, \"enable\": 0, \"device\"", "n",
		   "(disabled)");
	/* changed path = replace */
	check_diff("\"/b\"", "\"/c\"", "nN", "remove namespace 2 (/b) (path /b -> /c)");
	check_diff("{\"nsid\": 2, \"device\": {\"path\": \"/b\"}}",
		   "{\"nsid\": 2, \"device\": {\"path\": \"/b\"}, \"x-rblk\": {\"read_only\": 1}}",
		   "nN", "(now read-only)");
}

static void test_diff_hosts(void)
{
	/* The new host first: allowing never narrows access, disallowing may. */
	check_diff("\"allowed_hosts\": [\"" HOST1 "\"]", "\"allowed_hosts\": [\"" HOST2 "\"]", "Hx",
		   SUB0 ": disallow host " HOST1);

	check_diff("\"S0\"},   \"allowed_hosts\": [\"" HOST1 "\"]",
		   "\"S0\", \"allow_any_host\": true}, \"allowed_hosts\": []", "xA",
		   SUB0 ": allow_any_host on");
	check_diff("\"allowed_hosts\": [\"" HOST1 "\"]",
		   "\"allowed_hosts\": [\"" HOST1 "\", \"" HOST2 "\"]", "H", SUB0 ": allow host " HOST2);
}

/*
 * allow_any_host on -> a list: the listed host is allowed before allow-any
 * goes off, so its live controllers are never revoked in between.
 */
static void test_diff_any_host_to_list(void)
{
	char *any = edit("\"S0\"},   \"allowed_hosts\": [\"" HOST1 "\"]",
			 "\"S0\", \"allow_any_host\": true}, \"allowed_hosts\": []");
	struct rblk_config *a = parse_ok(any), *b = parse_ok(base_json);
	struct rblk_config_diff d;

	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 2);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_ALLOW_HOST_KEPT);
	CU_ASSERT_STRING_EQUAL(d.ops[0].host, HOST1);
	CU_ASSERT_EQUAL(d.ops[1].type, RBLK_CFG_OP_ANY_HOST_OFF);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
	free(any);
}

static void test_diff_subsystems(void)
{
	/* a new subsystem with a namespace and a host: subsystem, then ns, then host */
	check_diff("]}], \"ports\"",
		   "]}, {\"nqn\": \"" SUB1 "\", \"allowed_hosts\": [\"" HOST2 "\"],"
		   " \"namespaces\": [{\"nsid\": 5, \"device\": {\"path\": \"/e\"}}]}], \"ports\"",
		   "SNH", "add subsystem " SUB1);
	/* serial change = recreate with everything in it, its port link included */
	check_diff("\"S0\"", "\"S9\"", "sSNNHk", "remove subsystem " SUB0 " (serial changed)");
	check_diff("\"S0\"", "\"S9\"", "sSNNHk", "export " SUB0 " on port 1");
	/* a new subsystem linked to the port: exported after everything else is in place */
	check_diff("]}], \"ports\"",
		   "]}, {\"nqn\": \"" SUB1 "\", \"attr\": {\"allow_any_host\": 1}}], \"ports\"",
		   "S", "add subsystem " SUB1 " (any host)");
}

/*
 * ports[].subsystems are applied live, as nvmet links: unlinking comes first
 * (it narrows access), linking last; a port that keeps its portid follows
 * the file; a removed subsystem takes its links along without an op.
 */
static void test_diff_port_links(void)
{
	char *two = NULL, got[32];

	/* unlink: its hosts through that port are disconnected (nvmet) */
	check_diff(", \"subsystems\": [\"" SUB0 "\"]}]}", "}]}", "u",
		   "stop exporting " SUB0 " on port 1 (hosts connected through it are disconnected)");
	/* link another subsystem; and swap links between two subsystems in one reload */
	CU_ASSERT_FATAL(asprintf(&two, "%.*s, {\"nqn\": \"" SUB1 "\", \"attr\": "
				 "{\"allow_any_host\": 1}}], \"ports\": [{\"portid\": 1, \"addr\": "
				 "{" ADDR_OK "}, \"subsystems\": [\"" SUB0 "\", \"" SUB1 "\"]}]}",
				 (int)(strstr(base_json, "], \"ports\"") - base_json), base_json) > 0);
	diff_types(two, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "Sk");
	CU_ASSERT_PTR_NOT_NULL(strstr(descs, "export " SUB1 " on port 1\n"));
	free(two);
	/* renamed (SUB0 -> SUB1 everywhere): removed with its link (no unlink op), added, linked */
	two = strdup(base_json);
	for (char *p = strstr(two, SUB0); p; p = strstr(p, SUB0))
		p[strlen(SUB0) - 1] = SUB1[strlen(SUB1) - 1];
	diff_types(two, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "sSNNHk");
	CU_ASSERT_PTR_NOT_NULL(strstr(descs, "export " SUB1 " on port 1\n"));
	free(two);
}

static void test_diff_removed_subsystem(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;

	log_reset();
	a = parse_ok(base_json);
	b = parse_ok("{\"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "}}]}");
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_DEL_SUBSYS);
	CU_ASSERT_STRING_EQUAL(d.ops[0].ss->nqn, SUB0);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
}

static void test_diff_ports_and_options(void)
{
	check_diff("\"ports\": [", "\"ports\": [{\"portid\": 2, \"addr\": {\"trtype\": \"rdma\","
				   " \"traddr\": \"10.0.0.2\"}}, ", "l", "listen on rdma 10.0.0.2:4420 (portid 2)");
	check_diff("\"traddr\": \"10.0.0.1\"", "\"traddr\": \"10.0.0.3\"", "lkR",
		   "listen on rdma 10.0.0.3:4420");
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"poll_groups\": 3}, \"hosts\"", "R",
		   "restart needed: target option poll_groups changed");
	/* Admission limits: the library takes them at create only, so a restart. */
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"connect_timeout_ms\": 3000}, \"hosts\"", "R",
		   "restart needed: target option connect_timeout_ms changed");
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"max_pending_queues\": 8}, \"hosts\"", "R",
		   "restart needed: target option max_pending_queues changed");
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"max_pending_per_addr\": 2}, \"hosts\"", "R",
		   "restart needed: target option max_pending_per_addr changed");
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"max_ctrls_per_host\": 4}, \"hosts\"", "R",
		   "restart needed: target option max_ctrls_per_host changed");
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"max_queues\": 64}, \"hosts\"", "R",
		   "restart needed: target option max_queues changed");
	/* Namespaces connect to Ceph once, at open: a new client means a restart. */
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"rbd_id\": \"gw2\"}, \"hosts\"", "R",
		   "restart needed: target option rbd_id changed");
	/* Writing down the default changes nothing the target runs with. */
	check_diff("{\"hosts\"", "{\"x-rblk\": {\"connect_timeout_ms\": 10000, \"max_queues\": 4096,"
		   " \"max_pending_queues\": 256, \"max_pending_per_addr\": 32,"
		   " \"max_ctrls_per_host\": 64}, \"hosts\"", "", NULL);
}

static void test_diff_from_nothing_is_ordered(void)
{
	struct rblk_config *b;
	struct rblk_config_diff d;

	log_reset();
	b = parse_ok(base_json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 6);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_ADD_SUBSYS);
	CU_ASSERT_EQUAL(d.ops[1].type, RBLK_CFG_OP_ADD_NS);
	CU_ASSERT_EQUAL(d.ops[1].ns->nsid, 1);
	CU_ASSERT_EQUAL(d.ops[2].type, RBLK_CFG_OP_ADD_NS);
	CU_ASSERT_EQUAL(d.ops[3].type, RBLK_CFG_OP_ALLOW_HOST);
	CU_ASSERT_EQUAL(d.ops[4].type, RBLK_CFG_OP_LISTEN);
	CU_ASSERT_EQUAL(d.ops[5].type, RBLK_CFG_OP_LINK);
	CU_ASSERT_EQUAL(d.ops[5].port, d.ops[4].port);
	CU_ASSERT_STRING_EQUAL(d.ops[5].ss->nqn, SUB0);
	for (size_t i = 1; i < d.nr; i++)
		CU_ASSERT(d.ops[i - 1].type <= d.ops[i].type);
	rblk_config_diff_free(&d);
	rblk_config_free(b);
}

/* ----------------------------------------------------------------- apply */

static void test_apply_start_and_reload(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;
	char *json = edit("\"/b\"", "\"/c\"");

	log_reset();
	fake_reset();
	a = parse_ok(base_json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "add_subsys " SUB0 " any=0 serial=S0 model=-\n"
						"add_ns " SUB0 " 1 /a ro=0 bs=0 backend=- uuid="));
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "allow_host " SUB0 " " HOST1 "\n"
						"listen 10.0.0.1 4420 portid=1 treq=4 rdma=1 linked_only=1\n"));
	CU_ASSERT_EQUAL(fake_nr_ns(SUB0), 2);
	CU_ASSERT_EQUAL(fake_nr_listeners(), 1);
	rblk_config_diff_free(&d);

	/* Reload: only namespace 2 is touched; the listener and namespace 1 stay. */
	fake_log[0] = '\0';
	b = parse_ok(json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "del_ns " SUB0 " 2\nadd_ns " SUB0 " 2 /c"));
	CU_ASSERT_PTR_NULL(strstr(fake_log, "listen"));
	CU_ASSERT_PTR_NULL(strstr(fake_log, " 1 /a"));
	CU_ASSERT_EQUAL(fake_nr_ns(SUB0), 2);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
	free(json);
}

static void test_apply_failures(void)
{
	struct rblk_config *a;
	struct rblk_config_diff d;

	/* strict start: stops at the first failure */
	log_reset();
	fake_reset();
	a = parse_ok(base_json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	fake_fail("add_ns " SUB0 " 2", -ENOENT);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), -ENOENT);
	CU_ASSERT(logged(SUB0 ": add namespace 2 (/b) failed: No such file or directory"));
	CU_ASSERT_PTR_NULL(strstr(fake_log, "listen"));
	rblk_config_diff_free(&d);

	/* best effort: the rest goes on, and the failed namespace leaves the running config */
	log_reset();
	fake_reset();
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	fake_fail("add_ns " SUB0 " 2", -EACCES);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "listen"));
	rblk_config_drop_failed(a, &d);
	rblk_config_diff_free(&d);
	CU_ASSERT_EQUAL_FATAL(a->subsys[0].nr_ns, 1);
	CU_ASSERT_EQUAL(a->subsys[0].ns[0].nsid, 1);

	/* no RDMA device for the address: a message that says what to check */
	log_reset();
	fake_reset();
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	fake_fail("listen", -ENODEV);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), -ENODEV);
	CU_ASSERT(logged("listen on rdma 10.0.0.1:4420 (portid 1) failed: No such device: no RDMA "
			 "device serves 10.0.0.1; check `rdma link`"));
	rblk_config_drop_failed(a, &d);
	CU_ASSERT_EQUAL(a->nr_ports, 0);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
}

/* Port links reach the target: made after the listener opens, dropped when they fail. */
static void test_apply_links(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;
	char *json;

	log_reset();
	fake_reset();
	a = parse_ok(base_json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "linked_only=1\nlink 1 " SUB0 "\n"));
	CU_ASSERT(logged("info: export " SUB0 " on port 1\n"));
	rblk_config_diff_free(&d);

	/* Unlinked live; nothing else touched. */
	json = edit(", \"subsystems\": [\"" SUB0 "\"]}]}", "}]}");
	b = parse_ok(json);
	fake_log[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), 0);
	CU_ASSERT_STRING_EQUAL(fake_log, "unlink 1 " SUB0 "\n");
	rblk_config_diff_free(&d);
	free(json);

	/* Linked again, but the link fails: the running config does not have it, so the
	 * next reload of the same file retries it. */
	fake_fail("link 1", -ENOMEM);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(b, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), -ENOMEM);
	CU_ASSERT(logged("export " SUB0 " on port 1 failed: Cannot allocate memory"));
	rblk_config_drop_failed(a, &d);
	rblk_config_diff_free(&d);
	CU_ASSERT_EQUAL(a->ports[0].nr_subsys, 0);
	rblk_config_free(b);
	b = parse_ok(base_json);
	fake_log[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), 0);
	CU_ASSERT_STRING_EQUAL(fake_log, "link 1 " SUB0 "\n");
	rblk_config_diff_free(&d);
	rblk_config_free(b);

	/* A subsystem that failed to be added leaves no link behind in the running config. */
	rblk_config_free(a);
	log_reset();
	fake_reset();
	a = parse_ok(base_json);
	fake_fail("add_subsys", -EINVAL);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), -EINVAL);
	CU_ASSERT(logged("export " SUB0 " on port 1 failed: No such file or directory"));
	rblk_config_drop_failed(a, &d);
	rblk_config_diff_free(&d);
	CU_ASSERT_EQUAL(a->nr_subsys, 0);
	CU_ASSERT_EQUAL_FATAL(a->nr_ports, 1);
	CU_ASSERT_EQUAL(a->ports[0].nr_subsys, 0);
	rblk_config_free(a);

	/* A listener whose portid a running one still holds: says why. */
	log_reset();
	fake_reset();
	a = parse_ok(base_json);
	fake_fail("listen", -EEXIST);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), -EEXIST);
	CU_ASSERT(logged("listen on rdma 10.0.0.1:4420 (portid 1) failed: its address or portid 1 is "
			 "still used by a running listener; moving a port needs a restart"));
	rblk_config_diff_free(&d);
	rblk_config_free(a);
}

/*
 * A listener that needs a restart keeps running as it was, links included,
 * except that links follow the file when its portid stayed (only treq
 * changed), and a recreated subsystem is linked to it again.
 */
static void test_keep_unapplied_links(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;
	char *json, *json2;

	/* treq changed and the link removed in one reload: the unlink is live. */
	json = edit("\"trsvcid\": \"4420\"}, \"subsystems\": [\"" SUB0 "\"]",
		    "\"trsvcid\": \"4420\", \"treq\": \"required\"}, \"subsystems\": []");
	log_reset();
	a = parse_ok(base_json);
	b = parse_ok(json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 2);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_UNLINK);
	CU_ASSERT_EQUAL(d.ops[1].type, RBLK_CFG_OP_RESTART_NEEDED);
	CU_ASSERT_EQUAL(rblk_config_keep_unapplied(b, a, &d), 0);
	rblk_config_diff_free(&d);
	CU_ASSERT_EQUAL_FATAL(b->nr_ports, 1);
	CU_ASSERT_EQUAL(b->ports[0].treq, 0);   /* still as it runs */
	CU_ASSERT_EQUAL(b->ports[0].nr_subsys, 0); /* the unlink happened */
	rblk_config_free(b);
	free(json);

	/* portid changed (restart needed) and the subsystem recreated (serial): it is
	 * linked to the running listener, under its running portid, again. */
	json = edit("{\"portid\": 1,", "{\"portid\": 5,");
	json2 = strdup(json);
	memcpy(strstr(json2, "\"S0\""), "\"S9\"", 4);
	b = parse_ok(json2);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 7); /* s S N N H k R */
	CU_ASSERT_EQUAL(d.ops[5].type, RBLK_CFG_OP_LINK);
	CU_ASSERT_EQUAL(d.ops[5].port->portid, 1);
	CU_ASSERT_EQUAL(d.ops[6].type, RBLK_CFG_OP_RESTART_NEEDED);
	CU_ASSERT_EQUAL(rblk_config_keep_unapplied(b, a, &d), 0);
	rblk_config_diff_free(&d);
	CU_ASSERT_EQUAL_FATAL(b->nr_ports, 1);
	CU_ASSERT_EQUAL(b->ports[0].portid, 1);
	CU_ASSERT_EQUAL_FATAL(b->ports[0].nr_subsys, 1);
	CU_ASSERT_STRING_EQUAL(b->ports[0].subsys[0], SUB0);
	/* The next reload of the same file: only the restart is pending. */
	rblk_config_free(a);
	a = b;
	b = parse_ok(json2);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 1);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_RESTART_NEEDED);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
	free(json2);
	free(json);
}

/* The daemon's merge of a file and quick flags (main.c build_config). */
static void test_flags_link_everything(void)
{
	struct rblk_config *file, *flags;
	char w[] = "--listen 10.0.0.2";

	log_reset();
	file = parse_ok("{\"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"allow_any_host\": 1}},"
			" {\"nqn\": \"" SUB1 "\", \"attr\": {\"allow_any_host\": 1}}],"
			" \"ports\": [{\"portid\": 1, \"addr\": {" ADDR_OK "},"
			" \"subsystems\": [\"" SUB0 "\"]}]}");
	CU_ASSERT_EQUAL_FATAL(rblk_config_new(&flags), 0);
	{
		struct rblk_cfg_subsys *ss;
		struct rblk_cfg_port *p;

		CU_ASSERT_EQUAL_FATAL(rblk_config_add_subsys(flags, "--subsystem x",
							     "nqn.2024-01.org.example:flag", &ss), 0);
		ss->allow_any_host = true;
		CU_ASSERT_EQUAL_FATAL(rblk_config_add_port(flags, w, &p), 0);
		p->portid = 1;
		p->traddr = strdup("10.0.0.2");
		CU_ASSERT_EQUAL(rblk_cfg_port_link(p, "nqn.2024-01.org.example:flag"), 0);
	}
	CU_ASSERT_EQUAL_FATAL(rblk_config_merge(file, flags), 0);
	rblk_config_renumber_ports(file, 1);
	CU_ASSERT_EQUAL(file->ports[0].portid, 1);
	CU_ASSERT_EQUAL(file->ports[1].portid, 2);
	CU_ASSERT_EQUAL(rblk_config_link_all(file, 1, 2), 0);
	/* The file's port: its own link plus the flag subsystem, not SUB1. */
	CU_ASSERT_EQUAL_FATAL(file->ports[0].nr_subsys, 2);
	CU_ASSERT_STRING_EQUAL(file->ports[0].subsys[0], SUB0);
	CU_ASSERT_STRING_EQUAL(file->ports[0].subsys[1], "nqn.2024-01.org.example:flag");
	/* The flag port: everything, its existing link once. */
	CU_ASSERT_EQUAL(file->ports[1].nr_subsys, 3);
	/* The file alone warned that SUB1 is linked nowhere; merged, it is reachable. */
	CU_ASSERT(logged("subsystems[1] (" SUB1 ") is not linked to any port"));
	log_reset();
	CU_ASSERT_EQUAL(rblk_config_validate(file, RBLK_CFG_STRICT, NULL), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	rblk_config_free(file);
}

static void test_keep_unapplied(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;
	char *json = edit("\"traddr\": \"10.0.0.1\"", "\"traddr\": \"10.0.0.3\"");
	char *json2;

	/* The listener moved and the poll groups changed: neither happens live. */
	CU_ASSERT_EQUAL_FATAL(asprintf(&json2, "{\"x-rblk\": {\"poll_groups\": 3}, %s", json + 1) > 0, 1);
	log_reset();
	a = parse_ok(base_json);
	b = parse_ok(json2);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_keep_unapplied(b, a, &d), 0);
	rblk_config_diff_free(&d);
	/* b now runs both listeners (the old one is still open) and the old options. */
	CU_ASSERT_EQUAL_FATAL(b->nr_ports, 2);
	CU_ASSERT_STRING_EQUAL(b->ports[0].traddr, "10.0.0.3");
	CU_ASSERT_STRING_EQUAL(b->ports[1].traddr, "10.0.0.1");
	CU_ASSERT_EQUAL(b->tgt.num_poll_groups, 0);
	/* The same request again: the restart is still pending, nothing else to do. */
	rblk_config_free(a);
	a = b;
	b = parse_ok(json2);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr, 2);
	CU_ASSERT_EQUAL(d.ops[0].type, RBLK_CFG_OP_RESTART_NEEDED);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.ops[0].why, "listener 10.0.0.1 port 4420 removed"));
	CU_ASSERT_EQUAL(d.ops[1].type, RBLK_CFG_OP_RESTART_NEEDED);
	rblk_config_diff_free(&d);
	rblk_config_free(a);
	rblk_config_free(b);
	free(json2);
	free(json);
}

/* The shipped examples (docs/examples) load cleanly: no error, no warning. */
static void test_shipped_examples(void)
{
#ifdef RBLK_SOURCE_DIR
	static const char *const files[] = { "rdma-minimal.json", "rdma-full.json" };

	for (size_t i = 0; i < 2; i++) {
		struct rblk_config *cfg = NULL;
		char path[512];

		snprintf(path, sizeof(path), "%s/docs/examples/%s", RBLK_SOURCE_DIR, files[i]);
		log_reset();
		CU_ASSERT_EQUAL(rblk_config_load(path, RBLK_CFG_STRICT, &cfg, NULL), 0);
		CU_ASSERT_EQUAL(nr_warn + nr_err, 0);
		if (nr_warn + nr_err)
			fprintf(stderr, "\n%s:\n%s", files[i], logbuf);
		CU_ASSERT_PTR_NOT_NULL(cfg);
		CU_ASSERT(cfg && cfg->nr_subsys >= 1 && cfg->nr_ports >= 1);
		rblk_config_free(cfg);
	}
#endif
}

/* ------------------------------------------------------------------ save */

static void test_save_format(void)
{
	struct rblk_config *cfg;
	char *text = NULL;

	log_reset();
	cfg = parse_ok(ecosystem_example);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(cfg, &text), 0);
	/* nvmetcli's conventions: sorted keys, attrs as strings, ints for ids. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"allow_any_host\": \"0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"trsvcid\": \"4420\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"treq\": \"not specified\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"nsid\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"enable\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"portid\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"path\": \"/srv/disk0.img\"")); /* no "\/" */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"uuid\": \"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\""));
	CU_ASSERT(strstr(text, "\"hosts\"") < strstr(text, "\"ports\""));
	CU_ASSERT(strstr(text, "\"ports\"") < strstr(text, "\"subsystems\""));
	CU_ASSERT_PTR_NULL(strstr(text, "x-rblk")); /* nothing of ours to say */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"referrals\": []")); /* as Python prints it */
	CU_ASSERT_EQUAL(text[strlen(text) - 1], '\n');
	free(text);
	rblk_config_free(cfg);
}

/* --save writes an admission limit only when it was set, under its key, in key order. */
static void test_save_admission_when_set(void)
{
	struct rblk_config *cfg;
	char *text = NULL, *a, *b, *c, *d;

	log_reset();
	cfg = parse_ok("{\"x-rblk\": {\"max_queues\": 99, \"max_queue_depth\": 64}}");
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(cfg, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"max_queues\": 99"));
	CU_ASSERT_PTR_NULL(strstr(text, "connect_timeout_ms"));
	CU_ASSERT_PTR_NULL(strstr(text, "max_pending"));
	CU_ASSERT_PTR_NULL(strstr(text, "max_ctrls_per_host"));
	free(text);
	rblk_config_free(cfg);

	cfg = parse_ok("{\"x-rblk\": {\"max_queues\": 99, \"max_queue_depth\": 64,"
		       " \"max_pending_queues\": 7, \"max_pending_per_addr\": 2,"
		       " \"connect_timeout_ms\": 100, \"max_ctrls_per_host\": 1}}");
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(cfg, &text), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"connect_timeout_ms\": 100,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"max_ctrls_per_host\": 1,"));
	/* Sorted as Python's sort_keys: "_" sorts before letters. */
	a = strstr(text, "\"max_pending_per_addr\": 2");
	b = strstr(text, "\"max_pending_queues\": 7");
	c = strstr(text, "\"max_queue_depth\": 64");
	d = strstr(text, "\"max_queues\": 99");
	CU_ASSERT(a && b && c && d && a < b && b < c && c < d);
	free(text);
	rblk_config_free(cfg);
}

static void test_save_load_round_trip(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;
	char path[] = "/tmp/rblk-config-ut-XXXXXX";
	char file[64], tmp[80];
	struct stat st;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	unlink(path);
	CU_ASSERT_FATAL(mkdir(path, 0700) == 0);
	snprintf(file, sizeof(file), "%s/config.json", path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);

	log_reset();
	a = parse_ok("{\"x-rblk\": {\"poll_groups\": 2, \"poll_mode\": \"event\","
		     " \"in_capsule_data_size\": 4096, \"srq_depth\": 0, \"connect_timeout_ms\": 1500,"
		     " \"max_pending_queues\": 17, \"max_pending_per_addr\": 3,"
		     " \"max_ctrls_per_host\": 5, \"max_queues\": 99, \"rbd_conf\": \"/c\","
		     " \"rbd_id\": \"gw\", \"rbd_keyring\": \"/k\"},"
		     " \"hosts\": [{\"nqn\": \"" HOST1 "\"}],"
		     " \"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"serial\": \"S0\","
		     " \"model\": \"M\"}, \"allowed_hosts\": [\"" HOST1 "\"], \"x-rblk\":"
		     " {\"max_namespaces\": 4}, \"namespaces\": [{\"nsid\": 1, \"device\":"
		     " {\"path\": \"/a\"}, \"x-rblk\": {\"read_only\": true, \"backend\": \"aio\","
		     " \"eui64\": \"0011223344556677\", \"block_size\": 4096}},"
		     " {\"nsid\": 2, \"enable\": 0}]}],"
		     " \"ports\": [{\"portid\": 3, \"addr\": {\"trtype\": \"rdma\", \"traddr\":"
		     " \"fe80::2\", \"trsvcid\": \"4421\", \"treq\": \"required\"},"
		     " \"param\": {\"inline_data_size\": \"8192\"}, \"subsystems\": [\"" SUB0 "\"]}]}");
	CU_ASSERT_EQUAL_FATAL(rblk_config_save(a, file), 0);
	CU_ASSERT_EQUAL(stat(file, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);

	CU_ASSERT_EQUAL_FATAL(rblk_config_load(file, RBLK_CFG_STRICT, &b, NULL), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	/* Same config: no change at all, and the generated IDs are now in the file. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(d.nr, 0);
	rblk_config_diff_free(&d);
	CU_ASSERT_TRUE(a->subsys[0].ns[0].uuid_generated);
	CU_ASSERT_FALSE(b->subsys[0].ns[0].uuid_generated);
	CU_ASSERT_EQUAL(memcmp(a->subsys[0].ns[0].uuid, b->subsys[0].ns[0].uuid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(a->subsys[0].ns[0].nguid, b->subsys[0].ns[0].nguid, 16), 0);
	CU_ASSERT_FALSE(b->subsys[0].ns[1].enable);
	CU_ASSERT_TRUE(b->subsys[0].ns[0].read_only);
	CU_ASSERT_EQUAL(b->subsys[0].ns[0].block_size, 4096);
	CU_ASSERT_TRUE(b->subsys[0].ns[0].has_eui64);
	CU_ASSERT_EQUAL(b->subsys[0].max_namespaces, 4);
	CU_ASSERT_STRING_EQUAL(b->subsys[0].model, "M");
	CU_ASSERT_TRUE(b->ports[0].ipv6);
	CU_ASSERT_EQUAL(b->ports[0].treq, 1);
	CU_ASSERT_EQUAL(b->ports[0].trsvcid, 4421);
	CU_ASSERT_EQUAL(b->ports[0].inline_data_size, 8192);
	CU_ASSERT_EQUAL(b->tgt.num_poll_groups, 2);
	CU_ASSERT_TRUE(b->tgt.has_poll_mode);
	CU_ASSERT_EQUAL(b->tgt.poll_mode, RBLK_POLL_EVENT);
	CU_ASSERT_TRUE(b->tgt.has_in_capsule_data_size);
	CU_ASSERT_EQUAL(b->tgt.in_capsule_data_size, 4096);
	CU_ASSERT_TRUE(b->tgt.has_srq_depth); /* 0 survives the save: it is a choice */
	CU_ASSERT_EQUAL(b->tgt.srq_depth, 0);
	CU_ASSERT_EQUAL(b->tgt.connect_timeout_ms, 1500);
	CU_ASSERT_EQUAL(b->tgt.max_pending_queues, 17);
	CU_ASSERT_EQUAL(b->tgt.max_pending_per_addr, 3);
	CU_ASSERT_EQUAL(b->tgt.max_ctrls_per_host, 5);
	CU_ASSERT_EQUAL(b->tgt.max_queues, 99);
	CU_ASSERT_STRING_EQUAL(b->tgt.rbd_conf, "/c");
	CU_ASSERT_STRING_EQUAL(b->tgt.rbd_id, "gw");
	CU_ASSERT_STRING_EQUAL(b->tgt.rbd_keyring, "/k");

	/* Saving over an existing file replaces it. */
	CU_ASSERT_EQUAL(rblk_config_save(b, file), 0);
	rblk_config_free(b);
	CU_ASSERT_EQUAL(rblk_config_load(file, RBLK_CFG_STRICT, &b, NULL), 0);
	rblk_config_free(b);
	rblk_config_free(a);
	unlink(file);
	rmdir(path);
}

static void test_dup_and_merge(void)
{
	struct rblk_config *a, *b, *c;
	struct rblk_config_diff d;

	log_reset();
	a = parse_ok(base_json);
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(a, &b), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(d.nr, 0);
	rblk_config_diff_free(&d);
	CU_ASSERT_PTR_NOT_EQUAL(a->subsys[0].ns[0].path, b->subsys[0].ns[0].path);

	c = parse_ok("{\"x-rblk\": {\"max_io_size\": 65536, \"max_ctrls_per_host\": 3},"
		     " \"hosts\": [{\"nqn\": \"" HOST1 "\"}],"
		     " \"subsystems\": [{\"nqn\": \"" SUB1 "\", \"allowed_hosts\": [\"" HOST1 "\"]}]}");
	CU_ASSERT_EQUAL_FATAL(rblk_config_merge(b, c), 0);
	CU_ASSERT_EQUAL(b->nr_subsys, 2);
	CU_ASSERT_EQUAL(b->nr_hosts, 2); /* HOST1 not repeated */
	CU_ASSERT_EQUAL(b->tgt.max_io_size, 65536);
	CU_ASSERT_EQUAL(b->tgt.max_ctrls_per_host, 3);
	CU_ASSERT_EQUAL(rblk_config_validate(b, RBLK_CFG_STRICT, NULL), 0);
	rblk_config_free(a);
	rblk_config_free(b);
}

static const struct ut_case cases[] = {
	UT_CASE(test_ecosystem_example),
	UT_CASE(test_nvmetcli_save_output),
	UT_CASE(test_unsupported_values_warn),
	UT_CASE(test_attr_types),
	UT_CASE(test_numbers_as_strings),
	UT_CASE(test_ipv6_and_treq),
	UT_CASE(test_apply_treq_keeps_sqflow),
	UT_CASE(test_xrblk_extensions),
	UT_CASE(test_xrblk_rbd_cache),
	UT_CASE(test_xrblk_qos),
	UT_CASE(test_xrblk_admission),
	UT_CASE(test_error_nsid),
	UT_CASE(test_error_duplicate_nsid),
	UT_CASE(test_error_missing_path),
	UT_CASE(test_error_trsvcid),
	UT_CASE(test_error_trtype_and_addr),
	UT_CASE(test_error_nqn),
	UT_CASE(test_nqn_not_nvme_form_warns_once),
	UT_CASE(test_error_allowed_hosts),
	UT_CASE(test_error_ports),
	UT_CASE(test_error_values),
	UT_CASE(test_error_json_syntax),
	UT_CASE(test_all_errors_reported_at_once),
	UT_CASE(test_best_effort_skips),
	UT_CASE(test_load_file_errors),
	UT_CASE(test_warnings_for_semantics),
	UT_CASE(test_nqn_rules),
	UT_CASE(test_diff_unchanged),
	UT_CASE(test_diff_namespaces),
	UT_CASE(test_diff_hosts),
	UT_CASE(test_diff_any_host_to_list),
	UT_CASE(test_diff_subsystems),
	UT_CASE(test_diff_port_links),
	UT_CASE(test_diff_removed_subsystem),
	UT_CASE(test_diff_ports_and_options),
	UT_CASE(test_diff_from_nothing_is_ordered),
	UT_CASE(test_apply_start_and_reload),
	UT_CASE(test_apply_failures),
	UT_CASE(test_apply_links),
	UT_CASE(test_keep_unapplied),
	UT_CASE(test_keep_unapplied_links),
	UT_CASE(test_flags_link_everything),
	UT_CASE(test_shipped_examples),
	UT_CASE(test_save_format),
	UT_CASE(test_save_admission_when_set),
	UT_CASE(test_save_load_round_trip),
	UT_CASE(test_xrblk_rbd_client),
	UT_CASE(test_xrblk_state_dir),
	UT_CASE(test_dup_and_merge),
	UT_END,
};

UT_MAIN("target/config", cases)
