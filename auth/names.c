/* SPDX-License-Identifier: MIT */
/*
 * The hash and DH group identifiers of DH-HMAC-CHAP: names as configuration
 * spells them, digest and group sizes, and OpenSSL's digest names.
 */
#include <errno.h>
#include <string.h>

#include "auth/auth_int.h"

struct hash_info {
	enum rblk_auth_hash id;
	const char *name;	/* nvme-cli, SPDK */
	const char *hmac_name;	/* the kernel's configfs (dhchap_hash) */
	const char *md;		/* OpenSSL */
	size_t len;
};

static const struct hash_info hashes[] = {
	{ RBLK_AUTH_HASH_SHA256, "sha256", "hmac(sha256)", "SHA256", 32 },
	{ RBLK_AUTH_HASH_SHA384, "sha384", "hmac(sha384)", "SHA384", 48 },
	{ RBLK_AUTH_HASH_SHA512, "sha512", "hmac(sha512)", "SHA512", 64 },
};

struct group_info {
	enum rblk_auth_dhgroup id;
	const char *name;	/* also OpenSSL's group name */
	size_t len;
};

static const struct group_info groups[] = {
	{ RBLK_AUTH_DHGROUP_NULL, "null", 0 },
	{ RBLK_AUTH_DHGROUP_2048, "ffdhe2048", 256 },
	{ RBLK_AUTH_DHGROUP_3072, "ffdhe3072", 384 },
	{ RBLK_AUTH_DHGROUP_4096, "ffdhe4096", 512 },
	{ RBLK_AUTH_DHGROUP_6144, "ffdhe6144", 768 },
	{ RBLK_AUTH_DHGROUP_8192, "ffdhe8192", 1024 },
};

#define N_HASHES (sizeof(hashes) / sizeof(hashes[0]))
#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

static const struct hash_info *hash_find(enum rblk_auth_hash h)
{
	for (size_t i = 0; i < N_HASHES; i++)
		if (hashes[i].id == h)
			return &hashes[i];
	return NULL;
}

static const struct group_info *group_find(enum rblk_auth_dhgroup g)
{
	for (size_t i = 0; i < N_GROUPS; i++)
		if (groups[i].id == g)
			return &groups[i];
	return NULL;
}

int rblk_auth_hash_parse(const char *name, enum rblk_auth_hash *out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < N_HASHES; i++) {
		if (!strcmp(name, hashes[i].name) || !strcmp(name, hashes[i].hmac_name)) {
			*out = hashes[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rblk_auth_hash_name(enum rblk_auth_hash h)
{
	const struct hash_info *hi = hash_find(h);

	if (hi)
		return hi->hmac_name;
	return h == RBLK_AUTH_HASH_NONE ? "none" : "unknown";
}

size_t rblk_auth_hash_len(enum rblk_auth_hash h)
{
	const struct hash_info *hi = hash_find(h);

	return hi ? hi->len : 0;
}

const char *rblk_auth_md_name(enum rblk_auth_hash h)
{
	const struct hash_info *hi = hash_find(h);

	return hi ? hi->md : NULL;
}

int rblk_auth_dhgroup_parse(const char *name, enum rblk_auth_dhgroup *out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < N_GROUPS; i++) {
		if (!strcmp(name, groups[i].name)) {
			*out = groups[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rblk_auth_dhgroup_name(enum rblk_auth_dhgroup g)
{
	const struct group_info *gi = group_find(g);

	return gi ? gi->name : "unknown";
}

size_t rblk_auth_dhgroup_len(enum rblk_auth_dhgroup g)
{
	const struct group_info *gi = group_find(g);

	return gi ? gi->len : 0;
}
