/* SPDX-License-Identifier: MIT */
/*
 * The DH-HMAC-CHAP computations both ends make: the host's and the
 * controller's responses, the augmented challenge, the constant-time
 * comparison and the random source.
 *
 * The byte order of the responses is the one the Linux host and target use
 * (and NVMe Base 2.0 specifies): challenge, sequence number LE32,
 * transaction id LE16, the secure channel byte, then "HostHost" with the host
 * NQN first or "Controller" with the subsystem NQN first, the two NQNs
 * separated by one zero byte and not NUL-terminated.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth/auth_int.h"

static int response(enum rblk_auth_hash hash, const uint8_t *key, size_t key_len,
		    const uint8_t *chal, uint32_t seqnum, uint16_t t_id, uint8_t sc_c,
		    const char *who, size_t who_len, const char *nqn1, const char *nqn2,
		    uint8_t *out)
{
	static const uint8_t zero;
	uint8_t seq_le[4] = { seqnum, seqnum >> 8, seqnum >> 16, seqnum >> 24 };
	uint8_t tid_le[2] = { t_id, t_id >> 8 };
	size_t hlen = rblk_auth_hash_len(hash);

	if (!hlen || !chal || !nqn1 || !nqn2)
		return -EINVAL;
	return rblk_auth_hmac(hash, key, key_len,
			      (const struct rblk_auth_part[]){
				      { chal, hlen },
				      { seq_le, sizeof(seq_le) },
				      { tid_le, sizeof(tid_le) },
				      { &sc_c, 1 },
				      { who, who_len },
				      { nqn1, strlen(nqn1) },
				      { &zero, 1 },
				      { nqn2, strlen(nqn2) },
			      },
			      8, out);
}

int rblk_auth_host_response(enum rblk_auth_hash hash, const uint8_t *key, size_t key_len,
			    const uint8_t *chal, uint32_t seqnum, uint16_t t_id, uint8_t sc_c,
			    const char *hostnqn, const char *subnqn, uint8_t *out)
{
	return response(hash, key, key_len, chal, seqnum, t_id, sc_c, "HostHost", 8, hostnqn,
			subnqn, out);
}

int rblk_auth_ctrl_response(enum rblk_auth_hash hash, const uint8_t *key, size_t key_len,
			    const uint8_t *chal, uint32_t seqnum, uint16_t t_id, uint8_t sc_c,
			    const char *hostnqn, const char *subnqn, uint8_t *out)
{
	return response(hash, key, key_len, chal, seqnum, t_id, sc_c, "Controller", 10, subnqn,
			hostnqn, out);
}

int rblk_auth_augmented_challenge(enum rblk_auth_hash hash, const uint8_t *secret,
				  size_t secret_len, const uint8_t *chal, uint8_t *out)
{
	uint8_t hkey[RBLK_AUTH_MAX_HASH_LEN];
	size_t hlen = rblk_auth_hash_len(hash);
	int ret;

	if (!hlen || !secret || !secret_len || !chal)
		return -EINVAL;
	/* The key is the hash of the whole (padded) shared secret, of the challenge's hash */
	ret = rblk_auth_digest(hash, secret, secret_len, hkey);
	if (!ret)
		ret = rblk_auth_hmac(hash, hkey, hlen,
				     (const struct rblk_auth_part[]){ { chal, hlen } }, 1, out);
	OPENSSL_cleanse(hkey, sizeof(hkey));
	return ret;
}

bool rblk_auth_response_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

int rblk_auth_random(uint8_t *buf, size_t len)
{
	if (!buf || len > INT_MAX)
		return -EINVAL;
	return RAND_bytes(buf, (int)len) == 1 ? 0 : -EIO;
}
