/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/rpc_nvmf.c and rpc_nvmf_get.c: each method's parameter
 * checks (the error code and the exact message), and what an accepted call
 * does, over the fake target: the calls the target library got, the
 * running configuration, and the --save file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fake_target.h"
#include "daemon/rpc_nvmf.h"
#include "ut.h"

#define SUB0 "nqn.2024-01.io.rblk:disk0"
#define SUB1 "nqn.2024-01.io.rblk:disk1"
#define HOST0 "nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001"
#define LA "\"listen_address\": {\"trtype\": \"RDMA\", \"adrfam\": \"IPv4\", " \
	   "\"traddr\": \"10.0.0.1\", \"trsvcid\": \"4420\"}"
/* A DH-HMAC-CHAP secret the library parses (nvme gen-dhchap-key format). */
#define KEY "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:"

static char dir[] = "/tmp/rblk-rpc-nvmf-ut.XXXXXX";
static char save_path[64], img[64];
static struct rblk_tgt_live live;
static struct rblk_rpc_table table;
static struct json_object *result;
static char msg[512];

static void log_handler(enum rblk_log_level level, const char *m, void *arg)
{
	(void)arg;
	rblk_rpc_log_capture(level, m);
}

/* METHOD with PARAMS (JSON text, NULL = none): the error code (0 = ok), msg, result. */
static int call(const char *method, const char *params)
{
	char req[4096];
	struct json_object *r, *v, *e;
	int code = 0;

	snprintf(req, sizeof(req), "{\"jsonrpc\": \"2.0\", \"method\": \"%s\"%s%s, \"id\": 1}",
		 method, params ? ", \"params\": " : "", params ? params : "");
	v = json_tokener_parse(req);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	r = rblk_rpc_dispatch(&table, v);
	json_object_put(v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_object_put(result);
	result = NULL;
	msg[0] = '\0';
	if (json_object_object_get_ex(r, "error", &e)) {
		json_object_object_get_ex(e, "code", &v);
		code = json_object_get_int(v);
		json_object_object_get_ex(e, "message", &v);
		snprintf(msg, sizeof(msg), "%s", json_object_get_string(v));
	} else if (json_object_object_get_ex(r, "result", &v)) {
		result = json_object_get(v);
	}
	json_object_put(r);
	return code;
}

static bool msg_is(const char *want)
{
	if (strcmp(msg, want) == 0)
		return true;
	fprintf(stderr, "\n  message: %s\n  wanted:  %s\n", msg, want);
	return false;
}

static bool msg_has(const char *want)
{
	if (strstr(msg, want))
		return true;
	fprintf(stderr, "\n  message: %s\n  wanted in it: %s\n", msg, want);
	return false;
}

static bool did(const char *line)
{
	if (strstr(fake_log, line))
		return true;
	fprintf(stderr, "\n  expected call: %s\n  calls were:\n%s", line, fake_log);
	return false;
}

static bool saved_has(const char *s)
{
	char buf[16384] = "";
	FILE *f = fopen(save_path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, s) != NULL;
}

static void reset(void)
{
	fake_reset();
	unlink(save_path);
	rblk_config_free(live.running);
	CU_ASSERT_EQUAL_FATAL(rblk_config_new(&live.running), 0);
}

/* A subsystem with a listener: what most cases start from. */
static void with_subsystem(bool any)
{
	char p[512];

	reset();
	snprintf(p, sizeof(p), "{\"nqn\": \"" SUB0 "\", \"allow_any_host\": %s}",
		 any ? "true" : "false");
	CU_ASSERT_EQUAL_FATAL(call("nvmf_create_subsystem", p), 0);
	CU_ASSERT_EQUAL_FATAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB0 "\", " LA "}"),
			      0);
	fake_log[0] = '\0';
}

static void test_create_subsystem(void)
{
	reset();
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", NULL), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: required"));
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": 7}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: 7 is not a string"));
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"a b\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: \"a b\" is not a valid NQN: it contains a space"));
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB0 "\", \"bdev\": 1}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nvmf_create_subsystem: unknown parameter \"bdev\""));
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB0 "\", \"min_cntlid\": 0}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("min_cntlid: 0 is out of range (1..65519)"));
	/* The discovery NQN: refused by the configuration checks, their message passed on. */
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem",
			     "{\"nqn\": \"nqn.2014-08.org.nvmexpress.discovery\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_has("is the discovery subsystem"));
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB0 "\", \"serial_number\": "
			     "\"S1\", \"model_number\": \"M\", \"tgt_name\": \"x\"}"), 0);
	CU_ASSERT(json_object_get_boolean(result));
	CU_ASSERT(did("add_subsys " SUB0 " any=0 serial=S1 model=M"));
	CU_ASSERT(saved_has("\"serial\": \"S1\""));
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB0 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: subsystem \"" SUB0 "\" exists"));
}

/* What SPDK's rpc.py sends by default: its switches, false. */
static void test_spdk_switches(void)
{
	reset();
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB0 "\", \"passthrough\": "
			     "true}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("passthrough: rblk has no NVMe passthrough"));
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB0 "\", \"serial_number\": "
			     "\"S1\", \"allow_any_host\": true, \"ana_reporting\": false, "
			     "\"passthrough\": false, \"enable_nssr\": false}"), 0);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB0 "\", "
			     "\"secure_channel\": true, " LA "}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("secure_channel: rblk has no secure channel on RDMA"));
	/* SPDK's initial ANA state of a listener: the port's, for the subsystem's groups. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB0 "\", "
			     "\"secure_channel\": false, \"ana_state\": \"inaccessible\", "
			     "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"10.0.0.1\", "
			     "\"adrfam\": \"ipv4\", \"trsvcid\": \"4420\"}}"), 0);
	CU_ASSERT(did("ana_state 1 1 inaccessible"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\", \"no_auto_visible\": true}}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_has("namespace.no_auto_visible: rblk has no per-host namespace visibility"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\", \"no_auto_visible\": false, "
			     "\"hide_metadata\": false}}"), 0);
	CU_ASSERT_EQUAL(call("rpc_get_methods", "{\"current\": false, \"include_aliases\": false}"),
			0);
}

static void test_delete_subsystem(void)
{
	with_subsystem(true);
	CU_ASSERT_EQUAL(call("nvmf_delete_subsystem", "{\"nqn\": \"" SUB1 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: no subsystem \"" SUB1 "\""));
	CU_ASSERT_EQUAL(call("nvmf_delete_subsystem", "{\"nqn\": \"" SUB0 "\"}"), 0);
	CU_ASSERT(did("del_subsys " SUB0));
	/* Its port link went with it; the listener stays. */
	CU_ASSERT_EQUAL(live.running->nr_subsys, 0);
	CU_ASSERT_EQUAL(live.running->ports[0].nr_subsys, 0);
	CU_ASSERT_EQUAL(fake_nr_listeners(), 1);
}

static void test_listeners(void)
{
	static const struct {
		const char *la;
		const char *msg;
	} bad[] = {
		{ "\"listen_address\": {\"trtype\": \"TCP\", \"traddr\": \"10.0.0.1\"}",
		  "listen_address.trtype: \"TCP\": rblk serves RDMA only" },
		{ "\"listen_address\": {\"trtype\": \"rdma\", \"adrfam\": \"ib\", \"traddr\": \"1.2.3.4\"}",
		  "listen_address.adrfam: \"ib\" is not IPv4 or IPv6" },
		{ "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"10.0.0.300\"}",
		  "listen_address.traddr: \"10.0.0.300\" is not an IPv4 address literal" },
		{ "\"listen_address\": {\"trtype\": \"rdma\", \"adrfam\": \"ipv6\", \"traddr\": \"1.2.3.4\"}",
		  "listen_address.traddr: \"1.2.3.4\" is not an IPv6 address literal" },
		{ "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"1.2.3.4\", \"trsvcid\": \"44x\"}",
		  "listen_address.trsvcid: \"44x\" is not a port number (1..65535)" },
		{ "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"1.2.3.4\", \"trsvcid\": 70000}",
		  "listen_address.trsvcid: 70000 is not a port number (1..65535)" },
		{ "\"listen_address\": {\"trtype\": \"rdma\"}", "listen_address.traddr: required" },
		{ "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"1.2.3.4\", \"x\": 1}",
		  "listen_address: unknown parameter \"x\"" },
		{ "\"listen_address\": 5", "listen_address: 5 is not an object" },
	};
	char p[512];

	with_subsystem(true);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(p, sizeof(p), "{\"nqn\": \"" SUB0 "\", %s}", bad[i].la);
		CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", p), RBLK_RPC_INVALID_PARAMS);
		CU_ASSERT(msg_is(bad[i].msg));
	}
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB0 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("listen_address: required"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB0 "\", " LA ", "
			     "\"secure_channel\": true}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("secure_channel: rblk has no secure channel on RDMA"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB0 "\", " LA "}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("listen_address: 10.0.0.1 port 4420 is already a listener of " SUB0));
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	/* A second subsystem on the same address: linked to the open port, no new listener. */
	CU_ASSERT_EQUAL(call("nvmf_create_subsystem", "{\"nqn\": \"" SUB1 "\"}"), 0);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB1 "\", " LA "}"), 0);
	CU_ASSERT(did("link 1 " SUB1));
	CU_ASSERT_EQUAL(fake_nr_listeners(), 1);
	/* Another address: a new port with the next free id; trsvcid as a number works too. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB1 "\", "
			     "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"::1\", "
			     "\"trsvcid\": 4421}}"), 0);
	CU_ASSERT(did("listen ::1 4421 portid=2"));
	CU_ASSERT(did("link 2 " SUB1));
	CU_ASSERT(saved_has("\"adrfam\": \"ipv6\""));
	/* Removing: unlinks; the port stays open (closing it needs a restart). */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_listener", "{\"nqn\": \"" SUB1 "\", " LA "}"), 0);
	CU_ASSERT(did("unlink 1 " SUB1));
	CU_ASSERT_EQUAL(fake_nr_listeners(), 2);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_listener", "{\"nqn\": \"" SUB1 "\", " LA "}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("listen_address: 10.0.0.1 port 4420 is not a listener of " SUB1));
	/* And back: live again, no restart. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_listener", "{\"nqn\": \"" SUB1 "\", " LA "}"), 0);
}

static void test_ana_state(void)
{
	with_subsystem(true);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_listener_set_ana_state", "{\"nqn\": \"" SUB0 "\", " LA
			     ", \"ana_state\": \"sleepy\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("ana_state: \"sleepy\" is not optimized, non_optimized, inaccessible, "
			 "persistent_loss or change"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_listener_set_ana_state", "{\"nqn\": \"" SUB0 "\", " LA
			     ", \"ana_state\": \"optimized\", \"anagrpid\": 129}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("anagrpid: 129 is out of range (1..128)"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_listener_set_ana_state", "{\"nqn\": \"" SUB0 "\", "
			     "\"listen_address\": {\"trtype\": \"rdma\", \"traddr\": \"10.0.0.2\"}, "
			     "\"ana_state\": \"optimized\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("listen_address: 10.0.0.2 port 4420 is not a listener of " SUB0));
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	/* SPDK's spelling; group 2 is new on the port. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_listener_set_ana_state", "{\"nqn\": \"" SUB0 "\", " LA
			     ", \"ana_state\": \"non_optimized\", \"anagrpid\": 2}"), 0);
	CU_ASSERT(did("ana_state 1 2 non-optimized"));
	/* Without anagrpid: group 1 and the groups of the subsystem's namespaces. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_listener_set_ana_state", "{\"nqn\": \"" SUB0 "\", " LA
			     ", \"ana_state\": \"INACCESSIBLE\"}"), 0);
	CU_ASSERT(did("ana_state 1 1 inaccessible"));
	CU_ASSERT(saved_has("\"state\": \"inaccessible\""));
}

static void test_add_ns(void)
{
	static const struct {
		const char *ns;
		const char *msg;
	} bad[] = {
		{ "{\"bdev_name\": \"Malloc0\"}", "namespace.bdev_name: rblk has no bdevs; give "
		  "namespace.path (a file, a block device, mem:SIZE or rbd:POOL/IMAGE)" },
		{ "{}", "namespace.path: required" },
		{ "{\"path\": \"mem:1M\", \"nsid\": -1}", "namespace.nsid: -1 is out of range "
		  "(0..4294967294)" },
		{ "{\"path\": \"mem:1M\", \"uuid\": \"zz\"}", "namespace.uuid: \"zz\" is not a UUID "
		  "(8-4-4-4-12 or 32 hex digits)" },
		{ "{\"path\": \"mem:1M\", \"eui64\": \"0011223344556g77\"}",
		  "namespace.eui64: \"0011223344556g77\" is not 16 hex digits" },
		{ "{\"path\": \"mem:1M\", \"anagrpid\": 0}", "namespace.anagrpid: 0 is out of range "
		  "(1..128)" },
		{ "{\"path\": \"mem:1M\", \"read_only\": \"yes\"}", "namespace.read_only: \"yes\" is not "
		  "true or false" },
		{ "{\"path\": \"mem:1M\", \"ptpl_file\": \"/x\"}", "namespace: unknown parameter "
		  "\"ptpl_file\"" },
		{ "{\"path\": \"mem:lots\"}", "namespace.path: " },
		{ "{\"path\": \"mem:1M\", \"rbd_cache\": true}",
		  "librbd's cache is for rbd: namespaces only, not mem:1M" },
		{ "{\"path\": \"/nonexistent/x.img\"}",
		  "namespace.path: /nonexistent/x.img: No such file or directory" },
	};
	char p[512];

	with_subsystem(true);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(p, sizeof(p), "{\"nqn\": \"" SUB0 "\", \"namespace\": %s}", bad[i].ns);
		CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", p), RBLK_RPC_INVALID_PARAMS);
		CU_ASSERT(msg_has(bad[i].msg));
	}
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB1 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: no subsystem \"" SUB1 "\""));
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	/* No nsid: the lowest free, answered as SPDK answers it. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), 0);
	CU_ASSERT_EQUAL(json_object_get_int(result), 1);
	CU_ASSERT(did("add_ns " SUB0 " 1 mem:1M"));
	snprintf(p, sizeof(p), "{\"nqn\": \"" SUB0 "\", \"namespace\": {\"path\": \"%s\", "
		 "\"nsid\": 5, \"nguid\": \"00112233445566778899AABBCCDDEEFF\", \"anagrpid\": 2, "
		 "\"read_only\": true}}", img);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", p), 0);
	CU_ASSERT_EQUAL(json_object_get_int(result), 5);
	CU_ASSERT(did(" 5 "));
	CU_ASSERT(did("ro=1"));
	CU_ASSERT(saved_has("\"nguid\": \"00112233-4455-6677-8899-aabbccddeeff\""));
	CU_ASSERT(saved_has("\"ana_grpid\": 2"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", p), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("namespace.nsid: 5 is in use in " SUB0));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), 0);
	CU_ASSERT_EQUAL(json_object_get_int(result), 2);
	CU_ASSERT_EQUAL(fake_nr_ns(SUB0), 3);
}

static void test_set_qos_limit(void)
{
	static const struct {
		const char *params;
		const char *msg;
	} bad[] = {
		{ "\"nsid\": 1", "give at least one of rw_ios_per_sec, rw_mbytes_per_sec, "
		  "r_mbytes_per_sec, w_mbytes_per_sec (0 lifts a limit)" },
		{ "\"nsid\": 1, \"rw_ios_per_sec\": -1", "rw_ios_per_sec: -1 is out of range" },
		{ "\"nsid\": 1, \"w_mbytes_per_sec\": 100001", "w_mbytes_per_sec: 100001 is out of "
		  "range" },
		{ "\"nsid\": 1, \"rw_ios_per_sec\": \"fast\"", "rw_ios_per_sec: " },
		{ "\"nsid\": 1, \"bdev_name\": \"x\"", "unknown parameter \"bdev_name\"" },
		{ "\"rw_ios_per_sec\": 5", "nsid: required" },
		{ "\"nsid\": 2, \"rw_ios_per_sec\": 5", "nsid: " SUB0 " has no namespace 2" },
	};
	char p[512];

	with_subsystem(true);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), 0);
	fake_log[0] = '\0';
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(p, sizeof(p), "{\"nqn\": \"" SUB0 "\", %s}", bad[i].params);
		CU_ASSERT_EQUAL(call("rblk_ns_set_qos_limit", p), RBLK_RPC_INVALID_PARAMS);
		CU_ASSERT(msg_has(bad[i].msg));
	}
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	/* Applied live to the namespace that stays, and saved. */
	CU_ASSERT_EQUAL(call("rblk_ns_set_qos_limit", "{\"nqn\": \"" SUB0 "\", \"nsid\": 1, "
			     "\"rw_ios_per_sec\": 500, \"w_mbytes_per_sec\": 20}"), 0);
	CU_ASSERT(did("ns_qos " SUB0 " 1 500/0/0/20"));
	CU_ASSERT_PTR_NULL(strstr(fake_log, "del_ns"));
	CU_ASSERT(saved_has("\"rw_ios_per_sec\": 500"));
	/* What is not given keeps its value; 0 lifts one. */
	fake_log[0] = '\0';
	CU_ASSERT_EQUAL(call("rblk_ns_set_qos_limit", "{\"nqn\": \"" SUB0 "\", \"nsid\": 1, "
			     "\"rw_ios_per_sec\": 0, \"r_mbytes_per_sec\": 7}"), 0);
	CU_ASSERT(did("ns_qos " SUB0 " 1 0/0/7/20"));
	/* The same limits again change nothing. */
	fake_log[0] = '\0';
	CU_ASSERT_EQUAL(call("rblk_ns_set_qos_limit", "{\"nqn\": \"" SUB0 "\", \"nsid\": 1, "
			     "\"r_mbytes_per_sec\": 7}"), 0);
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	/* Shown by nvmf_get_subsystems. */
	CU_ASSERT_EQUAL(call("nvmf_get_subsystems", "{\"nqn\": \"" SUB0 "\"}"), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_object_to_json_string_ext(result, JSON_C_TO_STRING_PLAIN),
				      "\"assigned_rate_limits\":{\"rw_ios_per_sec\":0,"
				      "\"rw_mbytes_per_sec\":0,\"r_mbytes_per_sec\":7,"
				      "\"w_mbytes_per_sec\":20}"));
	/* A limited namespace is removed as any other. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_ns", "{\"nqn\": \"" SUB0 "\", \"nsid\": 1}"),
			0);
}

static void test_apply_failure(void)
{
	struct json_object *r, *e;

	with_subsystem(true);
	/* The target refuses: an internal error with the errno, nothing saved, nothing kept. */
	fake_fail("add_ns", -EIO);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), RBLK_RPC_INTERNAL_ERROR);
	CU_ASSERT(msg_is(SUB0 ": add namespace 1 (mem:1M): Input/output error"));
	CU_ASSERT(!saved_has("mem:1M"));
	CU_ASSERT_EQUAL(live.running->subsys[0].nr_ns, 0);
	/* data.errno says which errno. */
	r = json_tokener_parse("{\"jsonrpc\": \"2.0\", \"method\": \"nvmf_subsystem_add_ns\", "
			       "\"params\": {\"nqn\": \"" SUB0 "\", \"namespace\": {\"path\": "
			       "\"mem:1M\"}}, \"id\": 1}");
	fake_fail("add_ns", -ENOSPC);
	e = rblk_rpc_dispatch(&table, r);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN),
				    "\"errno\":28"));
	json_object_put(e);
	json_object_put(r);
	/* The same request works once the target does. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), 0);
	CU_ASSERT_EQUAL(json_object_get_int(result), 1);
}

static void test_remove_ns(void)
{
	with_subsystem(true);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\", \"nsid\": 3}}"), 0);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_ns", "{\"nqn\": \"" SUB0 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nsid: required"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_ns", "{\"nqn\": \"" SUB0 "\", \"nsid\": 4}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nsid: " SUB0 " has no namespace 4"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_ns", "{\"nqn\": \"" SUB0 "\", \"nsid\": 3}"), 0);
	CU_ASSERT(did("del_ns " SUB0 " 3"));
	CU_ASSERT_EQUAL(fake_nr_ns(SUB0), 0);
	CU_ASSERT(!saved_has("mem:1M"));
}

static void test_hosts(void)
{
	with_subsystem(true);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: " SUB0 " allows any host; turn that off "
			 "(nvmf_subsystem_allow_any_host) to list hosts"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_allow_any_host", "{\"nqn\": \"" SUB0 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("allow_any_host: required"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_allow_any_host", "{\"nqn\": \"" SUB0 "\", "
			     "\"allow_any_host\": 0}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("allow_any_host: 0 is not true or false"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_allow_any_host", "{\"nqn\": \"" SUB0 "\", "
			     "\"allow_any_host\": false}"), 0);
	CU_ASSERT(did("any_host " SUB0 " 0"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \"a b\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("host: \"a b\" is not a valid NQN: it contains a space"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\", \"dhchap_ctrlr_key\": \"" KEY "\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("dhchap_key: required with the other dhchap_ parameters"));
	/* A secret the library cannot parse: the checks' message, never the secret. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\", \"dhchap_key\": \"DHHC-1:00:nope:\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_has(HOST0));
	CU_ASSERT(strstr(msg, "nope") == NULL);
	fake_log[0] = '\0';
	/* The key is set before the host is allowed in. */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\", \"dhchap_key\": \"" KEY "\"}"), 0);
	CU_ASSERT(did("host_auth " SUB0 " " HOST0 " key=1"));
	CU_ASSERT(did("allow_host " SUB0 " " HOST0));
	CU_ASSERT(strstr(fake_log, "host_auth") < strstr(fake_log, "allow_host"));
	CU_ASSERT(saved_has("\"allowed_hosts\": [\n        \"" HOST0 "\""));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("host: " HOST0 " is already allowed on " SUB0));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_allow_any_host", "{\"nqn\": \"" SUB0 "\", "
			     "\"allow_any_host\": true}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("allow_any_host: " SUB0 " lists 1 allowed host; remove them first"));
	/* Removing the host: the target disallows it (and fails its controllers there). */
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\"}"), 0);
	CU_ASSERT(did("disallow_host " SUB0 " " HOST0));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_remove_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("host: " HOST0 " is not allowed on " SUB0));
}

static void test_host_set_auth(void)
{
	with_subsystem(false);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_host", "{\"nqn\": \"" SUB0 "\", \"host\": \""
			     HOST0 "\"}"), 0);
	CU_ASSERT_EQUAL(call("rblk_host_set_auth", "{\"host\": \"" HOST0 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("host: " HOST0 " has no DH-HMAC-CHAP settings to remove"));
	CU_ASSERT_EQUAL(call("rblk_host_set_auth", "{\"host\": \"" HOST0 "\", \"dhchap_hash\": "
			     "\"sha384\"}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("host: " HOST0 " has no DH-HMAC-CHAP settings to remove"));
	CU_ASSERT_EQUAL(call("rblk_host_set_auth", "{\"host\": \"" HOST0 "\", \"dhchap_key\": "
			     "\"" KEY "\", \"dhchap_dhgroup\": \"ffdhe9999\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_has(HOST0));
	fake_log[0] = '\0';
	/* A key for a host that stays allowed: set live (the target fails its controllers). */
	CU_ASSERT_EQUAL(call("rblk_host_set_auth", "{\"host\": \"" HOST0 "\", \"dhchap_key\": "
			     "\"" KEY "\", \"dhchap_hash\": \"sha384\"}"), 0);
	CU_ASSERT(did("host_auth " SUB0 " " HOST0 " key=1 ctrl_key=0 hash=sha384"));
	CU_ASSERT(strstr(fake_log, "disallow_host") == NULL);
	CU_ASSERT(saved_has("\"dhchap\""));
	fake_log[0] = '\0';
	CU_ASSERT_EQUAL(call("rblk_host_set_auth", "{\"host\": \"" HOST0 "\"}"), 0);
	CU_ASSERT(did("host_auth " SUB0 " " HOST0 " none"));
	CU_ASSERT(!saved_has("\"dhchap\""));
	CU_ASSERT_PTR_NULL(rblk_config_find_auth(live.running, HOST0));
}

static void test_get_subsystems(void)
{
	struct json_object *ss, *v;

	with_subsystem(false);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_add_ns", "{\"nqn\": \"" SUB0 "\", \"namespace\": "
			     "{\"path\": \"mem:1M\"}}"), 0);
	CU_ASSERT_EQUAL(call("nvmf_get_subsystems", NULL), 0);
	CU_ASSERT_FATAL(json_object_is_type(result, json_type_array));
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(result), 2);
	ss = json_object_array_get_idx(result, 0);
	CU_ASSERT(json_object_object_get_ex(ss, "subtype", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "Discovery");
	ss = json_object_array_get_idx(result, 1);
	CU_ASSERT(json_object_object_get_ex(ss, "nqn", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), SUB0);
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(
				       json_object_object_get(ss, "listen_addresses"),
				       JSON_C_TO_STRING_PLAIN),
			       "[{\"trtype\":\"RDMA\",\"adrfam\":\"IPv4\",\"traddr\":\"10.0.0.1\","
			       "\"trsvcid\":\"4420\"}]");
	v = json_object_array_get_idx(json_object_object_get(ss, "namespaces"), 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(v, "path")), "mem:1M");
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(v, "nsid")), 1);
	CU_ASSERT_EQUAL(call("nvmf_get_subsystems", "{\"nqn\": \"" SUB0 "\"}"), 0);
	CU_ASSERT_EQUAL(json_object_array_length(result), 1);
	CU_ASSERT_EQUAL(call("nvmf_get_subsystems", "{\"nqn\": \"" SUB1 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
}

static void test_controllers_and_qpairs(void)
{
	struct json_object *c;

	with_subsystem(true);
	fake_set_stats("{\"controllers\": ["
		       "{\"cntlid\": 1, \"hostnqn\": \"" HOST0 "\", \"subsystem\": \"" SUB0 "\", "
		       "\"kato_ms\": 5000, \"ready\": true, \"failed\": false, \"queues\": ["
		       "{\"qid\": 0, \"depth\": 32, \"completed\": 4, \"errors\": 0},"
		       "{\"qid\": 1, \"depth\": 128, \"completed\": 100, \"errors\": 1}]},"
		       "{\"cntlid\": 2, \"hostnqn\": \"h\", \"subsystem\": \"other\", \"queues\": []}]}");
	CU_ASSERT_EQUAL(call("nvmf_subsystem_get_controllers", "{}"), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nqn: required"));
	CU_ASSERT_EQUAL(call("nvmf_subsystem_get_controllers", "{\"nqn\": \"" SUB0 "\"}"), 0);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(result), 1);
	c = json_object_array_get_idx(result, 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(c, "cntlid")), 1);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(c, "num_io_qpairs")), 1);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(c, "hostnqn")), HOST0);
	CU_ASSERT_EQUAL(call("nvmf_subsystem_get_qpairs", "{\"nqn\": \"" SUB0 "\"}"), 0);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(result), 2);
	c = json_object_array_get_idx(result, 1);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(c, "qid")), 1);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(c, "completed")), 100);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(c, "state")), "active");
	CU_ASSERT_EQUAL(call("nvmf_get_stats", NULL), 0);
	CU_ASSERT(json_object_is_type(json_object_object_get(result, "controllers"),
				      json_type_array));
	CU_ASSERT_EQUAL(call("nvmf_get_stats", "{\"poll_group\": 1}"), RBLK_RPC_INVALID_PARAMS);
}

/* One namespace's figures, with the buckets' bounds; the nqn and nsid checked. */
static void test_ns_get_stats(void)
{
	struct json_object *v;

	with_subsystem(true);
	fake_set_stats("{\"latency_bounds_ns\": [10000], \"namespaces\": ["
		       "{\"subsystem\": \"" SUB0 "\", \"nsid\": 1, \"read_cmds\": 5,"
		       " \"read_latency\": {\"buckets\": [4, 1], \"sum_ns\": 9}},"
		       "{\"subsystem\": \"" SUB0 "\", \"nsid\": 2, \"read_cmds\": 7}]}");
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats", "{\"nqn\": \"" SUB0 "\", \"nsid\": 1}"), 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(result, "read_cmds")), 5);
	CU_ASSERT_TRUE(json_object_object_get_ex(result, "read_latency", &v));
	CU_ASSERT_TRUE(json_object_object_get_ex(result, "latency_bounds_ns", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 1);
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats", "{\"nqn\": \"" SUB0 "\", \"nsid\": 2}"), 0);
	CU_ASSERT_EQUAL(json_object_get_int(json_object_object_get(result, "read_cmds")), 7);
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats", "{\"nqn\": \"" SUB0 "\", \"nsid\": 3}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nsid: no namespace 3 in \"" SUB0 "\""));
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats", "{\"nqn\": \"" SUB1 "\", \"nsid\": 1}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats", "{\"nqn\": \"" SUB0 "\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("nsid: required"));
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats", "{\"nqn\": \"" SUB0 "\", \"nsid\": 0}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_EQUAL(call("rblk_ns_get_stats",
			     "{\"nqn\": \"" SUB0 "\", \"nsid\": 1, \"x\": 1}"),
			RBLK_RPC_INVALID_PARAMS);
}

static void test_save_config(void)
{
	char other[80];
	const char *keep = live.save_path;

	with_subsystem(true);
	snprintf(other, sizeof(other), "%s/other.json", dir);
	live.save_path = NULL;
	CU_ASSERT_EQUAL(call("rblk_save_config", NULL), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_is("path: required (rblk-target was started without --save)"));
	/* A directory that is not there is the caller's mistake. */
	CU_ASSERT_EQUAL(call("rblk_save_config", "{\"path\": \"/nonexistent/dir/x.json\"}"),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT(msg_has("/nonexistent/dir/x.json: cannot save: No such file or directory"));
	CU_ASSERT_EQUAL(call("rblk_save_config", "{}"), RBLK_RPC_INVALID_PARAMS);
	snprintf(msg, sizeof(msg), "{\"path\": \"%s\"}", other);
	CU_ASSERT_EQUAL(call("rblk_save_config", msg), 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(result, "path")), other);
	CU_ASSERT_EQUAL(access(other, R_OK), 0);
	unlink(other);
	live.save_path = keep;
	unlink(save_path);
	CU_ASSERT_EQUAL(call("rblk_save_config", NULL), 0);
	CU_ASSERT(saved_has(SUB0));
}

static int setup(void)
{
	FILE *f;

	rblk_log_set_handler(log_handler, NULL);
	if (!mkdtemp(dir))
		return 1;
	snprintf(save_path, sizeof(save_path), "%s/saved.json", dir);
	snprintf(img, sizeof(img), "%s/a.img", dir);
	f = fopen(img, "w");
	if (!f || ftruncate(fileno(f), 1 << 20))
		return 1;
	fclose(f);
	live.tgt = fake_target();
	live.save_path = save_path;
	table = (struct rblk_rpc_table){ rblk_rpc_nvmf_methods, rblk_rpc_nvmf_nr_methods, &live };
	return rblk_config_new(&live.running) ? 1 : 0;
}

static int teardown(void)
{
	json_object_put(result);
	rblk_config_free(live.running);
	unlink(save_path);
	unlink(img);
	rmdir(dir);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_create_subsystem),
	UT_CASE(test_spdk_switches),
	UT_CASE(test_delete_subsystem),
	UT_CASE(test_listeners),
	UT_CASE(test_ana_state),
	UT_CASE(test_add_ns),
	UT_CASE(test_set_qos_limit),
	UT_CASE(test_apply_failure),
	UT_CASE(test_remove_ns),
	UT_CASE(test_hosts),
	UT_CASE(test_host_set_auth),
	UT_CASE(test_get_subsystems),
	UT_CASE(test_controllers_and_qpairs),
	UT_CASE(test_ns_get_stats),
	UT_CASE(test_save_config),
	UT_END,
};

UT_MAIN_INIT("daemon/rpc_nvmf", cases, setup, teardown)
