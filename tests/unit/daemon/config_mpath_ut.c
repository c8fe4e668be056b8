/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/config_mpath.c: ports' ana_groups, namespaces' ana_grpid
 * (and nvmetcli's ana.grpid) and attr.cntlid_min/max as nvmetcli writes
 * them, every refusal with its key path, save -> load round trips, the
 * reload diff (live ANA ops, their order, a changed cntlid range recreating
 * the subsystem), the apply step against the fake target, and two targets'
 * configurations presenting one subsystem (same identity, disjoint CNTLIDs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "daemon/config.h"
#include "fake_target.h"
#include "ut.h"

static char logbuf[16384];
static int nr_warn;

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t len = strlen(logbuf);

	(void)arg;
	nr_warn += level == RBLK_LOG_WARN;
	snprintf(logbuf + len, sizeof(logbuf) - len, "%s: %s\n", rblk_log_level_str(level), msg);
}

static void log_reset(void)
{
	logbuf[0] = '\0';
	nr_warn = 0;
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

#define SUB0 "nqn.2024-01.org.example:disk0"
#define ADDR(a) "\"addr\": {\"trtype\": \"rdma\", \"adrfam\": \"ipv4\", \"traddr\": \"" a "\", \"trsvcid\": \"4420\"}"

/* One subsystem with @attr and @ns, ports 1 and 2 with @ana1 and @ana2 as their ana_groups. */
static char *config(const char *attr, const char *ns, const char *ana1, const char *ana2)
{
	char *s;

	if (asprintf(&s,
		     "{\"subsystems\": [{\"nqn\": \"" SUB0 "\", \"attr\": {\"allow_any_host\": \"1\"%s},"
		     "   \"namespaces\": [%s]}],"
		     " \"ports\": ["
		     "  {\"portid\": 1, " ADDR("10.0.0.1") ", \"subsystems\": [\"" SUB0 "\"],"
		     "   \"ana_groups\": [%s]},"
		     "  {\"portid\": 2, " ADDR("10.0.0.2") ", \"subsystems\": [\"" SUB0 "\"],"
		     "   \"ana_groups\": [%s]}]}",
		     attr, ns, ana1, ana2) < 0)
		return NULL;
	return s;
}

#define NS(id, extra) "{\"nsid\": " #id ", \"device\": {\"path\": \"/srv/" #id ".img\"}" extra "}"
#define GRP(g, st) "{\"grpid\": " #g ", \"ana\": {\"state\": \"" st "\"}}"

static struct rblk_config *parse(const char *json, int want)
{
	struct rblk_config *cfg = NULL;
	unsigned nerr = 0;

	CU_ASSERT_EQUAL(rblk_config_parse(json, "t.json", RBLK_CFG_STRICT, &cfg, &nerr), want);
	if (want)
		CU_ASSERT(nerr >= 1);
	return cfg;
}

static struct rblk_config *parse_cfg(const char *attr, const char *ns, const char *a1,
				     const char *a2, int want)
{
	char *json = config(attr, ns, a1, a2);
	struct rblk_config *cfg;

	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	cfg = parse(json, want);
	free(json);
	return cfg;
}

/* ------------------------------------------------------------------ parse */

static void test_parse_nvmetcli_shapes(void)
{
	struct rblk_config *cfg;
	const struct rblk_cfg_port *p1, *p2;

	log_reset();
	cfg = parse_cfg(", \"cntlid_min\": \"100\", \"cntlid_max\": \"199\"",
			/* nvmetcli writes both; either alone is read; ana_grpid wins. */
			NS(1, ", \"ana\": {\"grpid\": \"2\"}, \"ana_grpid\": 2") ","
			NS(2, ", \"ana\": {\"grpid\": \"3\"}") ","
			NS(3, ", \"ana_grpid\": \"2\", \"ana\": {\"grpid\": \"3\"}") ","
			NS(4, ""),
			GRP(1, "optimized") ", " GRP(2, "non-optimized") ", {\"grpid\": \"3\"}",
			GRP(1, "inaccessible") ", " GRP(2, "optimized") ", " GRP(3, "change"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_EQUAL(cfg->subsys[0].cntlid_min, 100);
	CU_ASSERT_EQUAL(cfg->subsys[0].cntlid_max, 199);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[0].ana_grpid, 2);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[1].ana_grpid, 3);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[2].ana_grpid, 2);
	CU_ASSERT_EQUAL(cfg->subsys[0].ns[3].ana_grpid, 1);
	p1 = &cfg->ports[0];
	p2 = &cfg->ports[1];
	CU_ASSERT_TRUE(p1->ana[1].set);
	CU_ASSERT_EQUAL(p1->ana[1].state, RBLK_ANA_OPTIMIZED);
	CU_ASSERT_EQUAL(p1->ana[2].state, RBLK_ANA_NON_OPTIMIZED);
	/* A group without a state: nvmet's for a new group, inaccessible. */
	CU_ASSERT_TRUE(p1->ana[3].set);
	CU_ASSERT_EQUAL(p1->ana[3].state, RBLK_ANA_INACCESSIBLE);
	CU_ASSERT_FALSE(p1->ana[4].set);
	CU_ASSERT_EQUAL(p2->ana[1].state, RBLK_ANA_INACCESSIBLE);
	CU_ASSERT_EQUAL(p2->ana[2].state, RBLK_ANA_OPTIMIZED);
	CU_ASSERT_EQUAL(p2->ana[3].state, RBLK_ANA_CHANGE);
	rblk_config_free(cfg);

	/* nvmet's defaults (cntlid 1..65519) are kept as "not set". */
	log_reset();
	cfg = parse_cfg(", \"cntlid_min\": 1, \"cntlid_max\": \"65519\"", NS(1, ""), "", "", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL(cfg->subsys[0].cntlid_min, 0);
	CU_ASSERT_EQUAL(cfg->subsys[0].cntlid_max, 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	rblk_config_free(cfg);
}

/* A namespace in a group no port makes accessible cannot be used anywhere: said once. */
static void test_parse_warns_unreachable_group(void)
{
	struct rblk_config *cfg;

	log_reset();
	cfg = parse_cfg("", NS(1, ", \"ana_grpid\": 7"), GRP(7, "inaccessible"), "", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL(nr_warn, 1);
	CU_ASSERT(logged("subsystems[0].namespaces[0]: ANA group 7 is accessible on no port"));
	rblk_config_free(cfg);
	log_reset();
	cfg = parse_cfg("", NS(1, ", \"ana_grpid\": 7"), "", GRP(7, "non-optimized"), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	rblk_config_free(cfg);
}

static void expect_refused(const char *attr, const char *ns, const char *a1, const char *msg)
{
	log_reset();
	CU_ASSERT_PTR_NULL(parse_cfg(attr, ns, a1, "", -EINVAL));
	CU_ASSERT(logged(msg));
}

static void test_parse_refusals(void)
{
	expect_refused("", NS(1, ", \"ana_grpid\": 0"), "",
		       "subsystems[0].namespaces[0].ana_grpid: 0 is not an ANA group id (1..128)");
	expect_refused("", NS(1, ", \"ana\": {\"grpid\": \"129\"}"), "",
		       "subsystems[0].namespaces[0].ana.grpid: \"129\" is not an ANA group id (1..128)");
	expect_refused("", NS(1, ""), GRP(1, "optimised"),
		       "ports[0].ana_groups[0].ana.state: \"optimised\" is not an ANA state");
	expect_refused("", NS(1, ""), GRP(2, "optimized") ", " GRP(2, "change"),
		       "ports[0].ana_groups[1].grpid: group 2 is listed twice");
	expect_refused("", NS(1, ""), "{\"ana\": {\"state\": \"optimized\"}}",
		       "ports[0].ana_groups[0].grpid: missing");
	expect_refused("", NS(1, ""), GRP(129, "optimized"),
		       "ports[0].ana_groups[0].grpid: 129 is not an ANA group id (1..128)");
	expect_refused(", \"cntlid_min\": \"200\", \"cntlid_max\": \"100\"", NS(1, ""), "",
		       "subsystems[0].attr.cntlid_min: 200 is above cntlid_max 100");
	expect_refused(", \"cntlid_max\": \"65520\"", NS(1, ""), "",
		       "subsystems[0].attr.cntlid_max: \"65520\" is not a controller id (1..65519)");
}

/* ------------------------------------------------------------------- save */

static void test_save_and_round_trip(void)
{
	struct rblk_config *a, *b;
	char *text = NULL;

	log_reset();
	a = parse_cfg(", \"cntlid_min\": \"100\", \"cntlid_max\": \"199\"",
		      NS(1, ", \"ana_grpid\": 2") "," NS(2, ""),
		      GRP(2, "non-optimized"), GRP(1, "persistent-loss") ", " GRP(2, "optimized"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(a, &text), 0);
	/* As `nvmetcli save`: group 1 always listed first, attrs as strings, grpid an integer. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ana_groups\": [\n        {\n          \"ana\": {\n"
					    "            \"state\": \"optimized\"\n          },\n"
					    "          \"grpid\": 1\n        },\n        {\n"
					    "          \"ana\": {\n            \"state\": \"non-optimized\"\n"
					    "          },\n          \"grpid\": 2\n        }\n      ],"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"state\": \"persistent-loss\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"cntlid_max\": \"199\",\n        \"cntlid_min\": \"100\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ana_grpid\": 2,\n          \"device\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"ana_grpid\": 1,"));
	b = parse(text, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->subsys[0].cntlid_min, 100);
	CU_ASSERT_EQUAL(b->subsys[0].cntlid_max, 199);
	CU_ASSERT_EQUAL(b->subsys[0].ns[0].ana_grpid, 2);
	CU_ASSERT_EQUAL(b->subsys[0].ns[1].ana_grpid, 1);
	for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++) {
		for (int p = 0; p < 2; p++) {
			/* Group 1 is written even when the file left it out: same meaning. */
			if (g == 1 && !a->ports[p].ana[g].set) {
				CU_ASSERT_EQUAL(b->ports[p].ana[g].state, RBLK_ANA_OPTIMIZED);
				continue;
			}
			CU_ASSERT_EQUAL(a->ports[p].ana[g].set, b->ports[p].ana[g].set);
			CU_ASSERT_EQUAL(a->ports[p].ana[g].state, b->ports[p].ana[g].state);
		}
	}
	free(text);
	rblk_config_free(a);
	rblk_config_free(b);

	/* Defaults write no cntlid attribute. */
	a = parse_cfg("", NS(1, ""), "", "", 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_to_json(a, &text), 0);
	CU_ASSERT_PTR_NULL(strstr(text, "cntlid"));
	free(text);
	rblk_config_free(a);
}

/* ------------------------------------------------------------------- diff */

/* The ops turning @old into @new: one letter each (see config_ut.c), descriptions in descs. */
static char descs[4096];

static void diff_ops(struct rblk_config *old, struct rblk_config *new, char *out, size_t len)
{
	static const char letters[] = "KHoxunsSKNQHAlGgqdkR";
	struct rblk_config_diff d;
	size_t i;

	descs[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(old, new, &d), 0);
	for (i = 0; i < d.nr && i + 1 < len; i++) {
		size_t n = strlen(descs);

		out[i] = letters[d.ops[i].type];
		rblk_cfg_op_describe(&d.ops[i], descs + n, sizeof(descs) - n - 1);
		strcat(descs, "\n");
	}
	out[i] = '\0';
	rblk_config_diff_free(&d);
}

static void check(struct rblk_config *old, struct rblk_config *new, const char *want,
		  const char *want_descs)
{
	char got[32];

	diff_ops(old, new, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_STRING_EQUAL(descs, want_descs);
	if (strcmp(got, want) || strcmp(descs, want_descs))
		fprintf(stderr, "\n  got %s:\n%s", got, descs);
}

static void test_diff_failover(void)
{
	struct rblk_config *a, *b;

	log_reset();
	a = parse_cfg("", NS(1, "") "," NS(2, ", \"ana_grpid\": 2"),
		      GRP(2, "optimized"), GRP(1, "non-optimized") ", " GRP(2, "change"), 0);
	/*
	 * Port 1 gives up group 1 and its group 2; port 2 takes group 1 and
	 * group 2 over; namespace 1 joins group 2. Paths open first (port 2),
	 * then the namespace moves, then paths close (port 1's, port 2's 3).
	 */
	b = parse_cfg("", NS(1, ", \"ana_grpid\": 2") "," NS(2, ", \"ana_grpid\": 2"),
		      GRP(1, "inaccessible"),
		      GRP(1, "optimized") ", " GRP(2, "optimized") ", " GRP(3, "inaccessible"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	check(a, b, "GGgqqd",
	      "port 2: ANA group 1 optimized\n"
	      "port 2: ANA group 2 optimized\n"
	      SUB0 ": namespace 1 moves to ANA group 2\n"
	      "port 1: ANA group 1 inaccessible\n"
	      "port 2: ANA group 3 inaccessible\n"
	      "port 1: remove ANA group 2 (inaccessible there)\n");
	/* Nothing changed: nothing to do (group 1 listed or not is the same). */
	check(b, b, "", "");
	rblk_config_free(b);
	b = parse_cfg("", NS(1, "") "," NS(2, ", \"ana_grpid\": 2"),
		      GRP(1, "optimized") ", " GRP(2, "optimized"),
		      GRP(1, "non-optimized") ", " GRP(2, "change"), 0);
	check(a, b, "", "");
	rblk_config_free(a);
	rblk_config_free(b);
}

static void test_diff_new_port_and_cntlid(void)
{
	struct rblk_config *a, *b;
	char *base, *json;

	log_reset();
	a = parse_cfg("", NS(1, ""), "", "", 0);
	/* A third port: listened on, its groups set (group 1 optimized is its default). */
	base = config("", NS(1, ""), "", "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(base);
	base[strlen(base) - 2] = '\0'; /* cut "]}" */
	CU_ASSERT_FATAL(asprintf(&json, "%s, {\"portid\": 3, " ADDR("10.0.0.3") ", \"subsystems\": [\""
				 SUB0 "\"], \"ana_groups\": [" GRP(1, "optimized") ", "
				 GRP(4, "non-optimized") "]}]}", base) > 0);
	free(base);
	b = parse(json, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	check(a, b, "lGk",
	      "listen on rdma 10.0.0.3:4420 (portid 3)\n"
	      "port 3: ANA group 4 non-optimized\n"
	      "export " SUB0 " on port 3\n");
	rblk_config_free(b);
	free(json);

	/* Another controller ID range recreates the subsystem, as a serial does. */
	b = parse_cfg(", \"cntlid_min\": \"10\"", NS(1, ""), "", "", 0);
	check(a, b, "sSNkk",
	      "remove subsystem " SUB0 " (controller ID range changed)\n"
	      "add subsystem " SUB0 " (any host) (controller ID range changed)\n"
	      SUB0 ": add namespace 1 (/srv/1.img)\n"
	      "export " SUB0 " on port 1\n"
	      "export " SUB0 " on port 2\n");
	rblk_config_free(a);
	rblk_config_free(b);
}

/* ------------------------------------------------------------------ apply */

static void test_apply_against_fake(void)
{
	struct rblk_config *a, *b;
	struct rblk_config_diff d;

	log_reset();
	fake_reset();
	a = parse_cfg(", \"cntlid_min\": \"100\", \"cntlid_max\": \"199\"",
		      NS(1, ", \"ana_grpid\": 2"), GRP(2, "optimized"), GRP(1, "change"), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	rblk_config_diff_free(&d);
	CU_ASSERT_STRING_EQUAL(fake_log,
		"add_subsys " SUB0 " any=1 serial=- model=- cntlid=100-199\n"
		/* uuid: the stable one generated from (NQN, nsid) */
		"add_ns " SUB0 " 1 /srv/1.img ro=0 bs=0 backend=- uuid=e961 grp=2\n"
		"listen 10.0.0.1 4420 portid=1 treq=4 rdma=1 linked_only=1\n"
		"listen 10.0.0.2 4420 portid=2 treq=4 rdma=1 linked_only=1\n"
		"ana_state 1 2 optimized\n"
		"ana_state 2 1 change\n"
		"link 1 " SUB0 "\n"
		"link 2 " SUB0 "\n");

	/* Reload: namespace 1 back to group 1; port 1 drops group 2. */
	fake_log[0] = '\0';
	b = parse_cfg(", \"cntlid_min\": \"100\", \"cntlid_max\": \"199\"", NS(1, ""), "",
		      GRP(1, "optimized"), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(a, b, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), 0);
	rblk_config_diff_free(&d);
	CU_ASSERT_STRING_EQUAL(fake_log,
		"ana_state 2 1 optimized\n"
		"ns_ana_grpid " SUB0 " 1 1\n"
		"ana_group_del 1 2\n");

	/* A state that fails to apply is dropped from the running model: the next reload retries. */
	fake_log[0] = '\0';
	fake_fail("ana_state 1 5", -EIO);
	rblk_config_free(a);
	a = parse_cfg(", \"cntlid_min\": \"100\", \"cntlid_max\": \"199\"", NS(1, ""),
		      GRP(5, "optimized"), GRP(1, "optimized"), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(b, a, &d), 0);
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, false), -EIO);
	rblk_config_drop_failed(a, &d);
	rblk_config_diff_free(&d);
	CU_ASSERT_FALSE(a->ports[0].ana[5].set);
	CU_ASSERT(logged("port 1: ANA group 5 optimized failed"));
	rblk_config_free(a);
	rblk_config_free(b);
}

/*
 * Two rblk-target processes exporting one image as one subsystem: the same
 * NQN, serial, model and namespace identifiers, disjoint controller IDs, so
 * the Linux host joins both paths under one multipath device.
 */
static void test_two_targets_one_subsystem(void)
{
	static const char ns[] =
		"{\"nsid\": 1, \"device\": {\"path\": \"/dev/shared\","
		" \"uuid\": \"0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\","
		" \"nguid\": \"11223344-5566-7788-99aa-bbccddeeff00\"},"
		" \"x-rblk\": {\"eui64\": \"0011223344556677\"}}";
	struct rblk_config *t[2];
	struct rblk_config_diff d;
	char line[2][256];

	for (int i = 0; i < 2; i++) {
		log_reset();
		fake_reset();
		t[i] = parse_cfg(i ? ", \"serial\": \"SHARED01\", \"cntlid_min\": \"32768\""
				   : ", \"serial\": \"SHARED01\", \"cntlid_max\": \"32767\"",
				 ns, i ? GRP(1, "non-optimized") : GRP(1, "optimized"), "", 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t[i]);
		CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, t[i], &d), 0);
		CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
		rblk_config_diff_free(&d);
		snprintf(line[i], sizeof(line[i]), "%.*s", (int)strcspn(fake_log, "\n"), fake_log);
	}
	CU_ASSERT_STRING_EQUAL(line[0], "add_subsys " SUB0 " any=1 serial=SHARED01 model=- cntlid=0-32767");
	CU_ASSERT_STRING_EQUAL(line[1], "add_subsys " SUB0 " any=1 serial=SHARED01 model=- cntlid=32768-0");
	CU_ASSERT_EQUAL(memcmp(t[0]->subsys[0].ns[0].uuid, t[1]->subsys[0].ns[0].uuid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(t[0]->subsys[0].ns[0].nguid, t[1]->subsys[0].ns[0].nguid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(t[0]->subsys[0].ns[0].eui64, t[1]->subsys[0].ns[0].eui64, 8), 0);
	CU_ASSERT_FALSE(t[0]->subsys[0].ns[0].uuid_generated);
	CU_ASSERT_TRUE(t[0]->subsys[0].ns[0].has_eui64);
	rblk_config_free(t[0]);
	rblk_config_free(t[1]);
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_nvmetcli_shapes),
	UT_CASE(test_parse_warns_unreachable_group),
	UT_CASE(test_parse_refusals),
	UT_CASE(test_save_and_round_trip),
	UT_CASE(test_diff_failover),
	UT_CASE(test_diff_new_port_and_cntlid),
	UT_CASE(test_apply_against_fake),
	UT_CASE(test_two_targets_one_subsystem),
	UT_END,
};

UT_MAIN("daemon/config_mpath", cases)
