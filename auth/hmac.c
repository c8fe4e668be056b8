/* SPDX-License-Identifier: MIT */
/*
 * HMAC over a list of pieces and a plain digest, through OpenSSL 3's EVP_MAC
 * and EVP_Q_digest: the one place auth/ talks to OpenSSL's hash code.
 */
#include <errno.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "auth/auth_int.h"

int rblk_auth_hmac(enum rblk_auth_hash h, const uint8_t *key, size_t key_len,
		   const struct rblk_auth_part *parts, size_t n, uint8_t *out)
{
	const char *md = rblk_auth_md_name(h);
	size_t len = rblk_auth_hash_len(h), outl = 0;
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx;
	EVP_MAC *mac;
	int ret = -EIO;

	if (!md || !key || !key_len || (n && !parts) || !out)
		return -EINVAL;
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return -EIO;
	ctx = EVP_MAC_CTX_new(mac);
	if (!ctx) {
		ret = -ENOMEM;
		goto out_free_mac;
	}
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!EVP_MAC_init(ctx, key, key_len, params))
		goto out_free_ctx;
	for (size_t i = 0; i < n; i++)
		if (parts[i].len && !EVP_MAC_update(ctx, parts[i].p, parts[i].len))
			goto out_free_ctx;
	if (EVP_MAC_final(ctx, out, &outl, len) && outl == len)
		ret = 0;
out_free_ctx:
	/* the context holds the key schedule; OpenSSL cleanses it on free */
	EVP_MAC_CTX_free(ctx);
out_free_mac:
	EVP_MAC_free(mac);
	return ret;
}

int rblk_auth_digest(enum rblk_auth_hash h, const uint8_t *in, size_t len, uint8_t *out)
{
	const char *md = rblk_auth_md_name(h);
	size_t outl = 0;

	if (!md || (len && !in) || !out)
		return -EINVAL;
	if (!EVP_Q_digest(NULL, md, NULL, in, len, out, &outl) || outl != rblk_auth_hash_len(h))
		return -EIO;
	return 0;
}
