/* SPDX-License-Identifier: MIT */
/*
 * The finite-field Diffie-Hellman exchange of DH-HMAC-CHAP over the RFC 7919
 * groups ffdhe2048..ffdhe8192, with OpenSSL's "DH" keys and named groups.
 *
 * Values on the wire are big-endian and exactly the group's size: public
 * values left-padded with zeros, and the shared secret too, because the
 * Linux kernel's kpp "dh" writes g^xy mod p into a buffer of the modulus size
 * with leading zeros, and that whole buffer is what gets hashed into the
 * augmented challenge. OpenSSL strips leading zeros unless asked to pad
 * (EVP_PKEY_CTX_set_dh_pad), which would break one exchange in 256.
 *
 * A peer value outside [2, p-2] is refused before OpenSSL sees it (the
 * kernel's check, SP 800-56A 5.6.2.3.1): 0, 1 and p-1 would give a shared
 * secret an attacker knows.
 */
#include <errno.h>
#include <stdlib.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "auth/auth_int.h"

struct rblk_auth_dh {
	enum rblk_auth_dhgroup group;
	size_t len;		/* rblk_auth_dhgroup_len(group) */
	EVP_PKEY *key;		/* our key pair */
	BIGNUM *p_minus_2;	/* upper bound of a valid peer value */
};

/* The group's parameters alone, as an EVP_PKEY (to read p from). */
static int group_params(enum rblk_auth_dhgroup g, EVP_PKEY **out)
{
	OSSL_PARAM params[2];
	EVP_PKEY_CTX *ctx;
	int ret = -EIO;

	*out = NULL;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	if (!ctx)
		return -ENOMEM;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
						     (char *)rblk_auth_dhgroup_name(g), 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_PKEY_fromdata_init(ctx) == 1 &&
	    EVP_PKEY_fromdata(ctx, out, EVP_PKEY_KEY_PARAMETERS, params) == 1)
		ret = 0;
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

/* A key object from OSSL_PARAMs of group @g plus @pub and, if not NULL, @priv. */
static int key_fromdata(enum rblk_auth_dhgroup g, const BIGNUM *pub, const BIGNUM *priv,
			EVP_PKEY **out)
{
	OSSL_PARAM_BLD *bld;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	bld = OSSL_PARAM_BLD_new();
	if (!bld)
		return -ENOMEM;
	if (!OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
					     rblk_auth_dhgroup_name(g), 0) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, pub) ||
	    (priv && !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv)))
		goto out_free_bld;
	params = OSSL_PARAM_BLD_to_param(bld);
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	if (!params || !ctx)
		goto out_free;
	ret = -EIO;
	if (EVP_PKEY_fromdata_init(ctx) == 1 &&
	    EVP_PKEY_fromdata(ctx, out, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
			      params) == 1)
		ret = 0;
out_free:
	EVP_PKEY_CTX_free(ctx);
	/* a private exponent (secure BIGNUM) went to the secure heap, cleared on free */
	OSSL_PARAM_free(params);
out_free_bld:
	OSSL_PARAM_BLD_free(bld);
	return ret;
}

/* Allocates @dh for group @g and sets p - 2 from @params (any key of the group). */
static int dh_alloc(enum rblk_auth_dhgroup g, EVP_PKEY *params, struct rblk_auth_dh **out)
{
	struct rblk_auth_dh *dh;
	BIGNUM *p = NULL;

	dh = calloc(1, sizeof(*dh));
	if (!dh)
		return -ENOMEM;
	dh->group = g;
	dh->len = rblk_auth_dhgroup_len(g);
	if (EVP_PKEY_get_bn_param(params, OSSL_PKEY_PARAM_FFC_P, &p) != 1 ||
	    (size_t)BN_num_bytes(p) != dh->len || !BN_sub_word(p, 2)) {
		BN_free(p);
		free(dh);
		return -EIO;
	}
	dh->p_minus_2 = p;
	*out = dh;
	return 0;
}

static bool group_ok(enum rblk_auth_dhgroup g)
{
	return g != RBLK_AUTH_DHGROUP_NULL && rblk_auth_dhgroup_len(g) != 0;
}

int rblk_auth_dh_create(enum rblk_auth_dhgroup g, struct rblk_auth_dh **out)
{
	OSSL_PARAM params[2];
	struct rblk_auth_dh *dh;
	EVP_PKEY_CTX *ctx;
	EVP_PKEY *key = NULL;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!group_ok(g))
		return -EINVAL;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	if (!ctx)
		return -ENOMEM;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
						     (char *)rblk_auth_dhgroup_name(g), 0);
	params[1] = OSSL_PARAM_construct_end();
	/* OpenSSL sizes the private exponent for the group's strength (RFC 7919 5.2) */
	if (EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, params) != 1 ||
	    EVP_PKEY_generate(ctx, &key) != 1) {
		ret = -EIO;
		goto out_free_ctx;
	}
	ret = dh_alloc(g, key, &dh);
	if (ret) {
		EVP_PKEY_free(key);
		goto out_free_ctx;
	}
	dh->key = key;
	*out = dh;
out_free_ctx:
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

int rblk_auth_dh_create_from_priv(enum rblk_auth_dhgroup g, const uint8_t *priv,
				  size_t priv_len, struct rblk_auth_dh **out)
{
	EVP_PKEY *params = NULL, *key = NULL;
	BIGNUM *x = NULL, *y = NULL, *two = NULL, *p = NULL;
	struct rblk_auth_dh *dh = NULL;
	BN_CTX *bnctx = NULL;
	int ret;

	if (!out || !priv || !priv_len || priv_len > RBLK_AUTH_MAX_DH_LEN)
		return -EINVAL;
	*out = NULL;
	if (!group_ok(g))
		return -EINVAL;
	ret = group_params(g, &params);
	if (ret)
		return ret;
	ret = dh_alloc(g, params, &dh);
	if (ret)
		goto out_free;
	ret = -ENOMEM;
	x = BN_secure_new();
	y = BN_new();
	two = BN_new();
	bnctx = BN_CTX_new();
	if (!x || !y || !two || !bnctx || !BN_bin2bn(priv, (int)priv_len, x) ||
	    !BN_set_word(two, 2) || EVP_PKEY_get_bn_param(params, OSSL_PKEY_PARAM_FFC_P, &p) != 1)
		goto out_free;
	/* y = 2^x mod p: every RFC 7919 group has generator 2 */
	ret = -EIO;
	if (!BN_mod_exp(y, two, x, p, bnctx))
		goto out_free;
	ret = key_fromdata(g, y, x, &key);
	if (ret)
		goto out_free;
	dh->key = key;
	*out = dh;
	dh = NULL;
out_free:
	rblk_auth_dh_destroy(dh);
	BN_CTX_free(bnctx);
	BN_free(p);
	BN_free(two);
	BN_free(y);
	BN_clear_free(x);
	EVP_PKEY_free(params);
	return ret;
}

void rblk_auth_dh_destroy(struct rblk_auth_dh *dh)
{
	if (!dh)
		return;
	EVP_PKEY_free(dh->key);
	BN_free(dh->p_minus_2);
	free(dh);
}

int rblk_auth_dh_public(struct rblk_auth_dh *dh, uint8_t *out, size_t len)
{
	BIGNUM *pub = NULL;
	int ret = -EIO;

	if (!dh || !dh->key || !out || len != dh->len)
		return -EINVAL;
	if (EVP_PKEY_get_bn_param(dh->key, OSSL_PKEY_PARAM_PUB_KEY, &pub) == 1 &&
	    BN_bn2binpad(pub, out, (int)len) == (int)len)
		ret = 0;
	BN_free(pub);
	return ret;
}

int rblk_auth_dh_derive(struct rblk_auth_dh *dh, const uint8_t *peer, size_t peer_len,
			uint8_t *out, size_t len)
{
	EVP_PKEY *peer_key = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	BIGNUM *y;
	size_t outl = len;
	int ret;

	if (!dh || !dh->key || !peer || !out || peer_len != dh->len || len != dh->len)
		return -EINVAL;
	y = BN_bin2bn(peer, (int)peer_len, NULL);
	if (!y)
		return -ENOMEM;
	if (BN_cmp(y, BN_value_one()) <= 0 || BN_cmp(y, dh->p_minus_2) > 0) {
		ret = -EINVAL;
		goto out_free;
	}
	ret = key_fromdata(dh->group, y, NULL, &peer_key);
	if (ret)
		goto out_free;
	ret = -ENOMEM;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, dh->key, NULL);
	if (!ctx)
		goto out_free;
	ret = -EIO;
	if (EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_CTX_set_dh_pad(ctx, 1) != 1)
		goto out_free;
	/* OpenSSL's own public-key check of the peer: a value it refuses is invalid */
	if (EVP_PKEY_derive_set_peer(ctx, peer_key) != 1) {
		ret = -EINVAL;
		goto out_free;
	}
	if (EVP_PKEY_derive(ctx, out, &outl) == 1 && outl == len)
		ret = 0;
	else
		OPENSSL_cleanse(out, len);
out_free:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(peer_key);
	BN_free(y);
	return ret;
}
