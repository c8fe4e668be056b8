/* SPDX-License-Identifier: MIT */
/*
 * Drives the daemon's configuration reader (daemon/config_parse.c,
 * config_json.c, config_check.c) with arbitrary bytes as the JSON file,
 * in strict or best-effort mode, exactly as start-up and SIGHUP read it
 * (parse + validate). Checks on an accepted configuration: it saves
 * (config_save.c) to JSON that reads back in strict mode; saving that gives
 * the same text; the diff between the two, and between it and its copy, is
 * empty; the diff from nothing (start-up) builds.
 *
 * Input: [mode u8: bit 0 = best effort][JSON text].
 */
#include "daemon/config.h"
#include "fuzz.h"

static void quiet(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)msg;
	(void)arg;
}

static void check_same(const struct rblk_config *a, const struct rblk_config *b)
{
	struct rblk_config_diff d;

	FUZZ_CHECK(rblk_config_diff(a, b, &d) == 0);
	FUZZ_CHECK(d.nr == 0);
	rblk_config_diff_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rblk_config *cfg = NULL, *back = NULL, *copy = NULL;
	char *text, *saved = NULL, *saved2 = NULL;
	struct rblk_config_diff d;
	enum rblk_cfg_mode mode;
	unsigned nerr = 0;

	if (size < 1)
		return 0;
	rblk_log_set_handler(quiet, NULL);
	mode = (data[0] & 1) ? RBLK_CFG_BEST_EFFORT : RBLK_CFG_STRICT;
	text = malloc(size);
	FUZZ_CHECK(text != NULL);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (rblk_config_parse(text, "fuzz.json", mode, &cfg, &nerr)) {
		FUZZ_CHECK(cfg == NULL);
		free(text);
		return 0;
	}
	if (mode == RBLK_CFG_STRICT)
		FUZZ_CHECK(nerr == 0);
	FUZZ_CHECK(rblk_config_to_json(cfg, &saved) == 0);
	FUZZ_CHECK(rblk_config_parse(saved, "saved.json", RBLK_CFG_STRICT, &back, &nerr) == 0);
	FUZZ_CHECK(nerr == 0);
	FUZZ_CHECK(rblk_config_to_json(back, &saved2) == 0);
	FUZZ_CHECK(strcmp(saved, saved2) == 0);
	check_same(cfg, back);
	FUZZ_CHECK(rblk_config_dup(cfg, &copy) == 0);
	check_same(cfg, copy);
	FUZZ_CHECK(rblk_config_diff(NULL, cfg, &d) == 0);
	rblk_config_diff_free(&d);

	rblk_config_free(copy);
	rblk_config_free(back);
	rblk_config_free(cfg);
	free(saved2);
	free(saved);
	free(text);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	/* The corpus also holds the JSON examples of docs/examples (gen_seeds.sh). */
	static const char *const seeds[] = {
		"{}",
		"{\"hosts\":[{\"nqn\":\"nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001\"}],"
		"\"ports\":[{\"addr\":{\"adrfam\":\"ipv6\",\"traddr\":\"::\",\"trsvcid\":\"4421\","
		"\"trtype\":\"rdma\",\"treq\":\"required\"},\"param\":{\"inline_data_size\":\"16384\"},"
		"\"portid\":2,\"subsystems\":[\"nqn.2024-01.io.rblk:a\"]}],"
		"\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.rblk:a\",\"attr\":{\"allow_any_host\":\"1\"},"
		"\"namespaces\":[{\"device\":{\"path\":\"mem:1M\",\"nguid\":\"00000000-0000-0000-0000-000000000000\"},"
		"\"enable\":\"1\",\"nsid\":\"7\",\"x-rblk\":{\"read_only\":true,\"block_size\":4096}}]}],"
		"\"x-rblk\":{\"num_poll_groups\":2,\"poll_mode\":\"adaptive\",\"max_io_size\":1048576}}",
		"{\"subsystems\":[{\"nqn\":\"bad nqn\",\"namespaces\":[{\"nsid\":0}]}],\"ports\":[{\"portid\":1}]}",
	};

	if (idx >= 2 * sizeof(seeds) / sizeof(seeds[0]) || strlen(seeds[idx / 2]) + 1 > max)
		return 0;
	buf[0] = (uint8_t)(idx & 1);
	memcpy(buf + 1, seeds[idx / 2], strlen(seeds[idx / 2]));
	return strlen(seeds[idx / 2]) + 1;
}
