/* SPDX-License-Identifier: MIT */
/*
 * NVMe in-band authentication, DH-HMAC-CHAP: the pieces both ends share.
 * Secrets in the DHHC-1 representation, the NQN-based key transformation,
 * the host and controller responses, the augmented challenge, and the
 * finite-field Diffie-Hellman exchange. All crypto comes from OpenSSL 3
 * (libcrypto); nothing here is hand-written crypto.
 *
 * Nothing in this library logs; callers never log a secret or key either,
 * only the names of hashes and groups. Buffers that held secret material are
 * cleansed before they are freed. Every function returns 0 or -errno.
 *
 * The protocol state machines live with their ends: target/auth.c
 * (controller) and initiator/auth.c (host). The wire messages are in
 * protocol/auth.h.
 */
#ifndef RBLK_AUTH_H
#define RBLK_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hash function identifiers as on the wire (NVMe Base 2.0, DH-HMAC-CHAP). */
enum rblk_auth_hash {
	RBLK_AUTH_HASH_NONE = 0x00,	/* only as a DHHC-1 "no transformation" tag */
	RBLK_AUTH_HASH_SHA256 = 0x01,
	RBLK_AUTH_HASH_SHA384 = 0x02,
	RBLK_AUTH_HASH_SHA512 = 0x03,
};

/* Diffie-Hellman group identifiers as on the wire: RFC 7919 FFDHE groups. */
enum rblk_auth_dhgroup {
	RBLK_AUTH_DHGROUP_NULL = 0x00,	/* no DH exchange: the plain challenge */
	RBLK_AUTH_DHGROUP_2048 = 0x01,
	RBLK_AUTH_DHGROUP_3072 = 0x02,
	RBLK_AUTH_DHGROUP_4096 = 0x03,
	RBLK_AUTH_DHGROUP_6144 = 0x04,
	RBLK_AUTH_DHGROUP_8192 = 0x05,
};

#define RBLK_AUTH_MAX_HASH_LEN 64	/* SHA-512 */
#define RBLK_AUTH_MAX_KEY_LEN 64	/* DHHC-1 keys are 32, 48 or 64 bytes */
#define RBLK_AUTH_MAX_DH_LEN 1024	/* ffdhe8192: 8192 bits */
/* "DHHC-1:03:" + base64 of 64 + 4 bytes + ":" and the NUL */
#define RBLK_AUTH_SECRET_STR_MAX 104

/* ---- Names ------------------------------------------------------------------ */
/*
 * Hash names: "sha256", "sha384", "sha512" (nvme-cli and SPDK) and
 * "hmac(sha256)"... (the kernel's configfs); -EINVAL for anything else.
 * rblk_auth_hash_name() gives the configfs spelling "hmac(sha256)", "none"
 * for NONE and "unknown" for any other value (never NULL: it goes in logs).
 */
int rblk_auth_hash_parse(const char *name, enum rblk_auth_hash *out);
const char *rblk_auth_hash_name(enum rblk_auth_hash h);
/* Length of the hash's digest in bytes (32/48/64), 0 for NONE or unknown. */
size_t rblk_auth_hash_len(enum rblk_auth_hash h);
/* DH group names: "null", "ffdhe2048" ... "ffdhe8192"; -EINVAL otherwise ("unknown" out). */
int rblk_auth_dhgroup_parse(const char *name, enum rblk_auth_dhgroup *out);
const char *rblk_auth_dhgroup_name(enum rblk_auth_dhgroup g);
/* Size in bytes of the group's public values and shared secret (0 for NULL). */
size_t rblk_auth_dhgroup_len(enum rblk_auth_dhgroup g);

/* ---- DHHC-1 secrets --------------------------------------------------------- */
/*
 * A configured secret: "DHHC-1:XX:<base64 of key || CRC-32 (LE)>:" where XX
 * is 00 (use the key as is) or 01/02/03 (transform it with SHA-256/384/512
 * before use). The key is 32, 48 or 64 bytes.
 */
struct rblk_auth_secret {
	enum rblk_auth_hash transform;	/* NONE, or the hash of the transformation */
	size_t len;			/* 32, 48 or 64 */
	uint8_t key[RBLK_AUTH_MAX_KEY_LEN];
};

/*
 * Parses @str. -EINVAL for a wrong prefix, transformation id, base64, key
 * length or a CRC that does not match. Never copies @str anywhere else.
 */
int rblk_auth_secret_parse(const char *str, struct rblk_auth_secret *out);
/*
 * Formats @s as a DHHC-1 string into @buf (RBLK_AUTH_SECRET_STR_MAX bytes will
 * do); -ENOSPC (and @buf cleared) when @len is too small.
 */
int rblk_auth_secret_format(const struct rblk_auth_secret *s, char *buf, size_t len);
/*
 * A new secret: @len random bytes (32, 48, 64) tagged with @transform, or,
 * with @key non-NULL, those bytes. (nvme-cli's gen-dhchap-key goes one step
 * further and prints, for a transform other than NONE, the key already
 * transformed with an NQN: rblk gen-dhchap-key does the same with
 * rblk_auth_secret_transform() and a second generate.)
 */
int rblk_auth_secret_generate(enum rblk_auth_hash transform, size_t len, const uint8_t *key,
			      struct rblk_auth_secret *out);
/*
 * The key the protocol uses: for transform NONE the key itself; else
 * HMAC-<transform>(key, nqn || "NVMe-over-Fabrics"), with @nqn the NQN of the
 * secret's owner (host NQN for the host key, subsystem NQN for the controller
 * key). @out holds RBLK_AUTH_MAX_KEY_LEN bytes; *outlen is set.
 */
int rblk_auth_secret_transform(const struct rblk_auth_secret *s, const char *nqn, uint8_t *out,
			       size_t *outlen);
/* Overwrites @s (use before it goes out of scope). */
void rblk_auth_secret_clear(struct rblk_auth_secret *s);

/* ---- Responses -------------------------------------------------------------- */
/*
 * The host's response to challenge @chal (hash_len bytes; the augmented
 * challenge when a DH group is in use):
 *   HMAC-<hash>(key, chal || LE32(seqnum) || LE16(t_id) || sc_c ||
 *               "HostHost" || hostnqn || 0x00 || subnqn)
 * @key is the transformed host key. @out gets rblk_auth_hash_len(hash) bytes.
 */
int rblk_auth_host_response(enum rblk_auth_hash hash, const uint8_t *key, size_t key_len,
			    const uint8_t *chal, uint32_t seqnum, uint16_t t_id, uint8_t sc_c,
			    const char *hostnqn, const char *subnqn, uint8_t *out);
/*
 * The controller's response to the host's challenge (bidirectional):
 *   HMAC-<hash>(ctrl key, chal || LE32(seqnum) || LE16(t_id) || sc_c ||
 *               "Controller" || subnqn || 0x00 || hostnqn)
 */
int rblk_auth_ctrl_response(enum rblk_auth_hash hash, const uint8_t *key, size_t key_len,
			    const uint8_t *chal, uint32_t seqnum, uint16_t t_id, uint8_t sc_c,
			    const char *hostnqn, const char *subnqn, uint8_t *out);
/*
 * The augmented challenge when a DH group is in use:
 *   HMAC-<hash>(HASH-<hash>(shared secret), chal)
 * @out gets rblk_auth_hash_len(hash) bytes.
 */
int rblk_auth_augmented_challenge(enum rblk_auth_hash hash, const uint8_t *secret,
				  size_t secret_len, const uint8_t *chal, uint8_t *out);
/* Constant-time comparison of two responses. */
bool rblk_auth_response_equal(const uint8_t *a, const uint8_t *b, size_t len);
/* @len bytes from OpenSSL's random source (challenges, transaction material). */
int rblk_auth_random(uint8_t *buf, size_t len);

/* ---- Diffie-Hellman ----------------------------------------------------------- */
struct rblk_auth_dh;

/* A fresh ephemeral key pair in group @g (not NULL). */
int rblk_auth_dh_create(enum rblk_auth_dhgroup g, struct rblk_auth_dh **out);
void rblk_auth_dh_destroy(struct rblk_auth_dh *dh);
/* Our public value, big-endian, left-padded to rblk_auth_dhgroup_len() bytes. */
int rblk_auth_dh_public(struct rblk_auth_dh *dh, uint8_t *out, size_t len);
/*
 * The shared secret from the peer's public value @peer (big-endian,
 * @peer_len = the group length), padded to the group length as the Linux
 * kernel computes it. -EINVAL for a peer value outside 2..p-2 or of the wrong
 * length (never a secret from a degenerate value).
 */
int rblk_auth_dh_derive(struct rblk_auth_dh *dh, const uint8_t *peer, size_t peer_len,
			uint8_t *out, size_t len);

#endif
