/* SPDX-License-Identifier: MIT */
/*
 * The host's side of the DH-HMAC-CHAP messages (protocol/auth.h): builders
 * for what the host sends (AUTH_Negotiate, DH-HMAC-CHAP_Reply, _Success2,
 * AUTH_Failure2) and parsers for what it receives (DH-HMAC-CHAP_Challenge,
 * _Success1, or an AUTH_Failure1 in their place). Pure functions over
 * buffers: no crypto, no I/O; the state machine that strings them together
 * is initiator/auth.c.
 *
 * Every parser checks every length against the buffer it was given before
 * reading past the header, and says what went wrong as the AUTH_Failure2
 * reason code explanation the host must send (NVMF_AUTH_FAIL_*), with the
 * same choices as the Linux host (drivers/nvme/host/auth.c).
 */
#ifndef RBLK_PROTOCOL_AUTH_HOST_H
#define RBLK_PROTOCOL_AUTH_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"
#include "protocol/auth.h"

/*
 * Allocation length of every Authentication Receive: the Linux host's 4 KiB,
 * which holds the largest challenge (16 + 64 + 1024 bytes for ffdhe8192).
 */
#define RBLK_AUTH_RECV_LEN 4096u
/* Largest message the host sends: a Reply with two SHA-512 values and an ffdhe8192 value. */
#define RBLK_AUTH_SEND_MAX (sizeof(struct nvmf_auth_reply) + 2 * RBLK_AUTH_MAX_HASH_LEN + \
			    RBLK_AUTH_MAX_DH_LEN)

/*
 * AUTH_Negotiate for transaction @t_id: one DH-HMAC-CHAP descriptor offering
 * SHA-256, SHA-384, SHA-512 and the groups null, ffdhe2048 ... ffdhe8192 (the
 * Linux host's list), no secure channel. Bytes written (72) or -ENOSPC.
 */
int rblk_auth_negotiate_build(uint16_t t_id, void *buf, size_t len);

/* A usable DH-HMAC-CHAP_Challenge; pointers point into the parsed buffer. */
struct rblk_auth_challenge_info {
	enum rblk_auth_hash hash;
	enum rblk_auth_dhgroup dhgroup;
	uint8_t hl;			/* rblk_auth_hash_len(hash) */
	uint32_t seqnum;		/* S1, for the host's response */
	const uint8_t *c1;		/* hl bytes */
	const uint8_t *dhv;		/* the controller's public value, NULL for the null group */
	uint16_t dhvlen;		/* rblk_auth_dhgroup_len(dhgroup) */
};

/*
 * Reads the answer to AUTH_Negotiate from @len bytes at @buf.
 *   0        a challenge the host can answer: *out filled
 *   -EACCES  the controller ended the transaction with AUTH_Failure1: *exp
 *            is its reason code explanation
 *   -EPROTO  the host must end it with AUTH_Failure2 saying *exp:
 *            INCORRECT_PROTOCOL  another message, or another transaction ID
 *            INCORRECT_PAYLOAD   lengths beyond @len, a DH value of the wrong
 *                                size, or one with the null group
 *            HASH_UNUSABLE       an unknown hash, or hl not its length
 *            DHGROUP_UNUSABLE    an unknown group, or no DH value for one
 */
int rblk_auth_challenge_parse(const void *buf, size_t len, uint16_t t_id,
			      struct rblk_auth_challenge_info *out, uint8_t *exp);

/* What DH-HMAC-CHAP_Reply carries. */
struct rblk_auth_reply_info {
	uint16_t t_id;
	uint8_t hl;
	const uint8_t *response;	/* hl bytes: the host's response */
	const uint8_t *c2;		/* hl bytes of challenge for the controller, NULL: none */
	uint32_t seqnum;		/* S2 with @c2 (never 0 then), else ignored (0 is sent) */
	const uint8_t *dhv;		/* the host's public value, NULL for the null group */
	uint16_t dhvlen;
};

/*
 * DH-HMAC-CHAP_Reply: header, response, the controller's challenge (zeros
 * with cvalid clear when there is none, as Linux sends it), DH value. Bytes
 * written, -EINVAL (hl not 32/48/64, a challenge with seqnum 0, a DH length
 * without a value), -ENOSPC.
 */
int rblk_auth_reply_build(const struct rblk_auth_reply_info *in, void *buf, size_t len);

/*
 * Reads the answer to the Reply. 0 with *rval pointing at the controller's
 * response (hl bytes) when rvalid is set, else NULL; -EACCES (AUTH_Failure1)
 * and -EPROTO as for the challenge (hl other than the challenge's:
 * HASH_UNUSABLE).
 */
int rblk_auth_success1_parse(const void *buf, size_t len, uint16_t t_id, uint8_t hl,
			     const uint8_t **rval, uint8_t *exp);

/* DH-HMAC-CHAP_Success2 (16 bytes) or -ENOSPC. */
int rblk_auth_success2_build(uint16_t t_id, void *buf, size_t len);
/* AUTH_Failure2 with reason "failed" and explanation @exp (8 bytes) or -ENOSPC. */
int rblk_auth_failure2_build(uint16_t t_id, uint8_t exp, void *buf, size_t len);

/* The name of a reason code explanation (NVMF_AUTH_FAIL_*), for logs. */
const char *rblk_auth_failure_str(uint8_t exp);

#endif
