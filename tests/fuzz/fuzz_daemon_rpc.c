/* SPDX-License-Identifier: MIT */
/*
 * Drives rblk-target's management socket protocol (daemon/rpc.c) and its
 * methods (daemon/rpc_nvmf*.c, applied through daemon/live.c to the fake
 * target) with arbitrary bytes as a client's stream, cut into reads of a
 * size the input chooses. Checks: the stream stops only with -EBADMSG or
 * -EMSGSIZE (never -ENOMEM here), every answer is one line of JSON that is
 * a JSON-RPC 2.0 response (or a batch of them) with either a result or an
 * error whose code is one of the five, and the running configuration the
 * methods leave behind still validates strictly and saves.
 *
 * Input: [read size u8: 0 = all at once][stream bytes].
 */
#include <errno.h>

#include <json-c/json.h>

#include "../unit/daemon/fake_target.h"
#include "daemon/rpc_nvmf.h"
#include "fuzz.h"

static void log_handler(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	rblk_rpc_log_capture(level, msg);
}

static void check_response(struct json_object *r)
{
	struct json_object *v, *e, *c;
	int code;

	FUZZ_CHECK(json_object_is_type(r, json_type_object));
	FUZZ_CHECK(json_object_object_get_ex(r, "jsonrpc", &v));
	FUZZ_CHECK(strcmp(json_object_get_string(v), "2.0") == 0);
	FUZZ_CHECK(json_object_object_get_ex(r, "id", &v));
	FUZZ_CHECK(json_object_object_get_ex(r, "result", &v) !=
		   json_object_object_get_ex(r, "error", &e));
	if (!json_object_object_get_ex(r, "error", &e))
		return;
	FUZZ_CHECK(json_object_object_get_ex(e, "code", &c));
	code = json_object_get_int(c);
	FUZZ_CHECK(code == RBLK_RPC_PARSE_ERROR || code == RBLK_RPC_INVALID_REQUEST ||
		   code == RBLK_RPC_METHOD_NOT_FOUND || code == RBLK_RPC_INVALID_PARAMS ||
		   code == RBLK_RPC_INTERNAL_ERROR);
	FUZZ_CHECK(json_object_object_get_ex(e, "message", &v));
	FUZZ_CHECK(json_object_get_string_len(v) > 0);
}

static void check_answers(char *text, size_t len)
{
	char *line = text, *nl;

	text[len] = '\0';
	while ((nl = strchr(line, '\n'))) {
		struct json_object *r;

		*nl = '\0';
		r = json_tokener_parse(line);
		FUZZ_CHECK(r != NULL);
		if (json_object_is_type(r, json_type_array)) {
			FUZZ_CHECK(json_object_array_length(r) > 0);
			for (size_t i = 0; i < json_object_array_length(r); i++)
				check_response(json_object_array_get_idx(r, i));
		} else {
			check_response(r);
		}
		json_object_put(r);
		line = nl + 1;
	}
	FUZZ_CHECK(*line == '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rblk_tgt_live live = { .tgt = fake_target() };
	struct rblk_rpc_table t = { rblk_rpc_nvmf_methods, rblk_rpc_nvmf_nr_methods, &live };
	struct rblk_rpc_buf out = { 0 };
	struct rblk_rpc_stream s;
	size_t step;
	char *saved = NULL;
	int ret = 0;

	if (size < 1)
		return 0;
	rblk_log_set_handler(log_handler, NULL);
	fake_reset();
	FUZZ_CHECK(rblk_config_new(&live.running) == 0);
	FUZZ_CHECK(rblk_rpc_stream_init(&s) == 0);
	step = data[0] ? data[0] : size;
	data++;
	size--;
	for (size_t off = 0; off < size && !ret; off += step)
		ret = rblk_rpc_stream_feed(&s, &t, (const char *)data + off,
					   size - off < step ? size - off : step, &out);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -EMSGSIZE);
	rblk_rpc_stream_fini(&s);
	FUZZ_CHECK(rblk_rpc_buf_append(&out, "", 0) == 0);
	check_answers(out.data, out.len);
	rblk_rpc_buf_free(&out);
	/* What the methods left running is a configuration a restart would load. */
	FUZZ_CHECK(rblk_config_validate(live.running, RBLK_CFG_STRICT, NULL) == 0);
	FUZZ_CHECK(rblk_config_to_json(live.running, &saved) == 0);
	free(saved);
	rblk_config_free(live.running);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static const char *const seeds[] = {
		"{\"jsonrpc\":\"2.0\",\"method\":\"rpc_get_methods\",\"id\":1}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_create_subsystem\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:a\",\"allow_any_host\":true},\"id\":1}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_add_listener\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:a\",\"listen_address\":{\"trtype\":\"RDMA\",\"adrfam\":\"IPv4\","
		"\"traddr\":\"10.0.0.1\",\"trsvcid\":\"4420\"}},\"id\":2}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_add_ns\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:a\",\"namespace\":{\"path\":\"mem:1M\",\"nsid\":2,\"anagrpid\":2}},"
		"\"id\":3}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_listener_set_ana_state\",\"params\":"
		"{\"nqn\":\"nqn.2024-01.io.rblk:a\",\"listen_address\":{\"trtype\":\"RDMA\",\"traddr\":"
		"\"10.0.0.1\",\"trsvcid\":\"4420\"},\"ana_state\":\"non_optimized\",\"anagrpid\":2},"
		"\"id\":4}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_get_subsystems\",\"id\":5}",
		"[{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_create_subsystem\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:b\"}},{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_add_host\","
		"\"params\":{\"nqn\":\"nqn.2024-01.io.rblk:b\",\"host\":\"nqn.2014-08.org.nvmexpress:uuid:"
		"5b0c1d7e-0000-4000-8000-000000000001\"},\"id\":\"h\"},{\"jsonrpc\":\"2.0\",\"method\":"
		"\"nvmf_subsystem_remove_host\",\"params\":{\"nqn\":\"nqn.2024-01.io.rblk:b\",\"host\":"
		"\"nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001\"},\"id\":null},"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_delete_subsystem\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:b\"},\"id\":9}]",
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_add_ns\",\"params\":[1],\"id\":1} {bad",
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_create_subsystem\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:c\",\"passthrough\":false,\"enable_nssr\":false},\"id\":1}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_add_host\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:c\",\"host\":\"nqn.2014-08.org.nvmexpress:uuid:"
		"5b0c1d7e-0000-4000-8000-000000000002\",\"dhchap_key\":\"DHHC-1:00:"
		"ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:\"},\"id\":2}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"rblk_host_set_auth\",\"params\":{\"host\":"
		"\"nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000002\"},\"id\":3}"
		"{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_subsystem_add_listener\",\"params\":{\"nqn\":"
		"\"nqn.2024-01.io.rblk:c\",\"secure_channel\":false,\"ana_state\":\"inaccessible\","
		"\"listen_address\":{\"trtype\":\"rdma\",\"traddr\":\"::1\",\"adrfam\":\"ipv6\","
		"\"trsvcid\":\"4421\"}},\"id\":4}",
	};

	if (idx >= 2 * sizeof(seeds) / sizeof(seeds[0]) || strlen(seeds[idx / 2]) + 1 > max)
		return 0;
	/* Each seed whole, and in 7-byte reads. */
	buf[0] = (uint8_t)(idx & 1 ? 7 : 0);
	memcpy(buf + 1, seeds[idx / 2], strlen(seeds[idx / 2]));
	return strlen(seeds[idx / 2]) + 1;
}
