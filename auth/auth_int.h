/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of auth/: the OpenSSL name of each hash, the
 * HMAC and digest helpers every computation goes through, and a test-only DH
 * constructor. Not for use outside auth/ and its unit tests.
 */
#ifndef RBLK_AUTH_INT_H
#define RBLK_AUTH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"

/* OpenSSL's digest name ("SHA256"), NULL for NONE or an unknown id. */
const char *rblk_auth_md_name(enum rblk_auth_hash h);

/* One piece of an HMAC input; the message is the pieces in order. */
struct rblk_auth_part {
	const void *p;
	size_t len;
};

/*
 * HMAC-<h>(key, parts[0] || ... || parts[n-1]) into @out
 * (rblk_auth_hash_len(h) bytes). -EINVAL for NONE, an unknown hash or an
 * empty key; -ENOMEM / -EIO when OpenSSL fails.
 */
int rblk_auth_hmac(enum rblk_auth_hash h, const uint8_t *key, size_t key_len,
		   const struct rblk_auth_part *parts, size_t n, uint8_t *out);
/* HASH-<h>(in) into @out (rblk_auth_hash_len(h) bytes). */
int rblk_auth_digest(enum rblk_auth_hash h, const uint8_t *in, size_t len, uint8_t *out);

/*
 * Test-only: a key pair in group @g with the fixed private exponent @priv
 * (big-endian, @priv_len bytes, 1 < x < p-1), so that unit tests can check
 * the public value and the shared secret against an independent computation.
 * Never used by the protocol code: a fixed exponent is not ephemeral.
 */
int rblk_auth_dh_create_from_priv(enum rblk_auth_dhgroup g, const uint8_t *priv,
				  size_t priv_len, struct rblk_auth_dh **out);

#endif
