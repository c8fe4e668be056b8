/* SPDX-License-Identifier: MIT */
/*
 * `rblk gen-dhchap-key`: a DH-HMAC-CHAP secret in the DHHC-1 representation,
 * what `nvme gen-dhchap-key` (nvme-cli 2.3) prints for the same options.
 *
 * Like nvme-cli, with -m 1..3 the printed key is the raw secret already
 * transformed with the NQN (HMAC(secret, NQN || "NVMe-over-Fabrics")); the
 * host or target transforms it once more when it uses it. With -m 0 the raw
 * secret is printed. The key length must be the hash's length when -m names
 * one (nvme-cli's rule): -l defaults to it.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include <openssl/crypto.h>
#include <rblk/initiator.h>

#include "auth/auth.h"
#include "cli/args.h"
#include "cli/cli.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: rblk gen-dhchap-key [-s HEX] [-l 32|48|64] [-n NQN] [-m 0|1|2|3]\n\n"
		   "Prints a secret for NVMe in-band authentication (DH-HMAC-CHAP) as one line\n"
		   "DHHC-1:0M:<base64>:, the same line `nvme gen-dhchap-key` prints: M is the\n"
		   "hash the key is transformed with before use (0 none, 1 SHA-256, 2 SHA-384,\n"
		   "3 SHA-512). With M > 0 the key printed is the secret transformed with NQN,\n"
		   "as nvme-cli does. Give the line to both ends (host: dhchap_secret; target:\n"
		   "the host's dhchap_key). See rblk(1).\n\n"
		   "Options:\n"
		   "  -s, --secret HEX      the secret in hex (2 digits a byte) instead of random bytes\n"
		   "  -l, --key-length N    32, 48 or 64 bytes; default 32, or the hash's length with -m\n"
		   "  -n, --nqn NQN         the NQN of the transformation; default this host's NQN\n"
		   "                        (/etc/nvme/hostnqn, else as gen-hostnqn)\n"
		   "  -m, --hmac M          0 (default), 1 (SHA-256), 2 (SHA-384), 3 (SHA-512)\n"
		   "  -h, --help            this text\n\n");
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n"
		   "  rblk gen-dhchap-key\n"
		   "  rblk gen-dhchap-key -m 1 -n nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)\n"
		   "  rblk gen-dhchap-key -l 48 -s $(openssl rand -hex 48)\n");
}

/* @hex (2 digits a byte) into @out; the byte count, or -EINVAL. */
static int parse_hex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex);

	if (!n || n % 2 || n / 2 > max)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = hex[i];
		int v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return -EINVAL;
		if (i % 2)
			out[i / 2] |= (uint8_t)v;
		else
			out[i / 2] = (uint8_t)(v << 4);
	}
	return (int)(n / 2);
}

struct gen_opts {
	const char *secret;
	const char *nqn;
	long key_len;		/* 0: the default */
	long hmac;
};

/* nvme-cli's checks, in its order; CLI_EXIT_OK or CLI_EXIT_USAGE (message printed). */
static int check_opts(struct gen_opts *o)
{
	size_t hlen = rblk_auth_hash_len((enum rblk_auth_hash)o->hmac);

	if (o->hmac && !o->key_len)
		o->key_len = (long)hlen;
	else if (!o->key_len)
		o->key_len = 32;
	if (o->key_len != 32 && o->key_len != 48 && o->key_len != 64)
		return rblk_cli_usage_err("invalid key length %ld (32, 48 or 64)", o->key_len);
	/* the kernel would take any pairing; nvme-cli refuses, and so do we */
	if (o->hmac && (size_t)o->key_len != hlen)
		return rblk_cli_usage_err("key length %ld does not fit -m %ld: SHA-%zu needs %zu bytes",
					  o->key_len, o->hmac, hlen * 8, hlen);
	if (o->nqn && !*o->nqn)
		return rblk_cli_usage_err("empty NQN");
	return CLI_EXIT_OK;
}

/* The line for @o: the raw secret, transformed when -m says so, formatted. */
static int make_key(const struct gen_opts *o, const uint8_t *raw_key, char *line, size_t len)
{
	struct rblk_auth_secret raw, out;
	uint8_t t[RBLK_AUTH_MAX_KEY_LEN];
	struct rblk_host_id id;
	const char *nqn = o->nqn;
	size_t tlen = 0;
	int ret;

	ret = rblk_auth_secret_generate((enum rblk_auth_hash)o->hmac, (size_t)o->key_len, raw_key,
					&raw);
	if (ret)
		return rblk_cli_report(CLI_OP_OTHER, ret, 0, "cannot generate a secret");
	if (o->hmac && !nqn) {
		ret = rblk_host_id_load(NULL, NULL, &id);
		if (ret) {
			rblk_auth_secret_clear(&raw);
			return rblk_cli_report(CLI_OP_OTHER, ret, 0,
					       "cannot find this host's NQN (give one with -n)");
		}
		nqn = id.hostnqn;
	}
	ret = rblk_auth_secret_transform(&raw, nqn, t, &tlen);
	if (!ret)
		ret = rblk_auth_secret_generate(raw.transform, tlen, t, &out);
	if (!ret)
		ret = rblk_auth_secret_format(&out, line, len);
	rblk_auth_secret_clear(&raw);
	rblk_auth_secret_clear(&out);
	OPENSSL_cleanse(t, sizeof(t));
	if (ret)
		return rblk_cli_report(CLI_OP_OTHER, ret, 0, "cannot make the key");
	return CLI_EXIT_OK;
}

int rblk_cli_gen_dhchap_key(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "secret", required_argument, NULL, 's' },
		{ "key-length", required_argument, NULL, 'l' },
		{ "nqn", required_argument, NULL, 'n' },
		{ "hmac", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gen_opts o = { 0 };
	uint8_t raw_key[RBLK_AUTH_MAX_KEY_LEN];
	char line[RBLK_AUTH_SECRET_STR_MAX];
	int opt, n = 0, ret;

	while ((opt = getopt_long(argc, argv, ":s:l:n:m:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(rblk_cli_out);
			return CLI_EXIT_OK;
		case 's':
			o.secret = optarg;
			break;
		case 'n':
			o.nqn = optarg;
			break;
		case 'l':
			if (rblk_cli_parse_long(optarg, 1, 1024, &o.key_len))
				return rblk_cli_usage_err("invalid key length '%s' (32, 48 or 64)",
							  optarg);
			break;
		case 'm':
			if (rblk_cli_parse_long(optarg, 0, 3, &o.hmac))
				return rblk_cli_usage_err("invalid HMAC identifier '%s' (0 none, "
							  "1 SHA-256, 2 SHA-384, 3 SHA-512)", optarg);
			break;
		default:
			return rblk_cli_bad_option(opt, argc, argv);
		}
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	ret = check_opts(&o);
	if (ret)
		return ret;
	if (o.secret) {
		n = parse_hex(o.secret, raw_key, sizeof(raw_key));
		if (n < 0)
			return rblk_cli_usage_err("invalid secret: hex digits expected, two a byte, "
						  "at most %d bytes", RBLK_AUTH_MAX_KEY_LEN);
		if (n != o.key_len) {
			OPENSSL_cleanse(raw_key, sizeof(raw_key));
			return rblk_cli_usage_err("the secret is %d bytes, the key length %ld", n,
						  o.key_len);
		}
	}
	ret = make_key(&o, o.secret ? raw_key : NULL, line, sizeof(line));
	OPENSSL_cleanse(raw_key, sizeof(raw_key));
	if (ret)
		return ret;
	fprintf(rblk_cli_out, "%s\n", line);
	OPENSSL_cleanse(line, sizeof(line));
	return CLI_EXIT_OK;
}
