/* SPDX-License-Identifier: MIT */
/*
 * DH-HMAC-CHAP on the wire, the controller's side: decoding the
 * Authentication Send / Receive SQE, parsing the messages a host sends
 * (AUTH_Negotiate, DH-HMAC-CHAP_Reply, _Success2, AUTH_Failure2) and building
 * the ones a controller sends (DH-HMAC-CHAP_Challenge, _Success1,
 * AUTH_Failure1). Pure functions over bytes: no crypto, no state; the state
 * machine is target/auth.c's.
 *
 * Three error domains meet here. The SQE decoder returns an NVMe status
 * (the command itself is wrong). The message parsers return 0 or an
 * AUTH_Failure reason code explanation (NVMF_AUTH_FAIL_*): a bad message is
 * not a failed command, it ends the transaction with AUTH_Failure1. The
 * builders return the message length or -ENOSPC.
 *
 * The host's side is protocol/auth_host.c: a Reply parses into the same
 * struct rblk_auth_reply_info the host builds it from, and reasons are
 * named by its rblk_auth_failure_str().
 *
 * Every length is checked before a byte is read: the message must be exactly
 * as long as its header says (the Linux host and SPDK send exact lengths),
 * HL must be the chosen hash's, DHVLEN the chosen group's.
 */
#ifndef RBLK_PROTOCOL_AUTH_CTRL_H
#define RBLK_PROTOCOL_AUTH_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/auth.h"
#include "protocol/auth_host.h"
#include "protocol/nvmf.h"

/* Sizes of the fixed parts (protocol/auth.h has the layouts). */
#define RBLK_AUTH_HDR_LEN 6 /* auth_type, auth_id, rsvd, t_id: common to every message */
#define RBLK_AUTH_FAILURE_LEN ((size_t)sizeof(struct nvmf_auth_failure))

/*
 * Authentication Send (@send) or Receive: SECP must be 0xE9 and SPSP0/SPSP1
 * 0x01 (the DH-HMAC-CHAP protocol), TL/AL non-zero. 0 with *len = TL or AL,
 * or Invalid Field | DNR with *err_loc the offending SQE byte.
 */
uint16_t rblk_auth_cmd_decode(const struct nvmf_auth_cmd *c, uint32_t *len, uint16_t *err_loc);

/* The common header: which message, which transaction. */
struct rblk_auth_msg_hdr {
	uint8_t type;  /* NVMF_AUTH_TYPE_* */
	uint8_t id;    /* NVMF_AUTH_ID_* */
	uint16_t t_id;
};

/* 0, or INCORRECT_PAYLOAD when @len cannot hold the header. */
uint8_t rblk_auth_msg_peek(const void *msg, size_t len, struct rblk_auth_msg_hdr *out);

/* What an AUTH_Negotiate offers (pointers into the message). */
struct rblk_auth_negotiate_info {
	uint16_t t_id;
	uint8_t sc_c;
	uint8_t halen;               /* hash ids at hash_ids[0..halen) */
	uint8_t dhlen;               /* DH group ids at dh_ids[0..dhlen) */
	const uint8_t *hash_ids;
	const uint8_t *dh_ids;
};

/*
 * AUTH_Negotiate: NAPD descriptors of 64 bytes, exactly. The first
 * DH-HMAC-CHAP descriptor is used; HALEN and DHLEN at most 30 each. Reasons:
 * INCORRECT_PAYLOAD (lengths, NAPD 0), NOT_USABLE (no DH-HMAC-CHAP
 * descriptor). out->t_id is set whenever the header is there, so a failure
 * can echo it.
 */
uint8_t rblk_auth_negotiate_parse(const void *msg, size_t len, struct rblk_auth_negotiate_info *out);

/*
 * The controller's choice from what the host offers. Hash: @want if offered,
 * else the first offered id whose bit is set in @hash_ok (bit n = id n is
 * usable); none: HASH_UNUSABLE. DH group: exactly @want_dh, which must be
 * offered, else DHGROUP_UNUSABLE (a configured group is the minimum strength
 * the subsystem asks for, never traded down). SC_C other than 0:
 * CONCAT_MISMATCH (no secure channel on RDMA).
 */
uint8_t rblk_auth_select(const struct rblk_auth_negotiate_info *n, uint8_t want_hash,
			 uint32_t hash_ok, uint8_t want_dh, uint8_t *hash, uint8_t *dh);

/*
 * A Reply for a transaction using a hash of @hl bytes and a DH group of
 * @dhvlen bytes (0: the NULL group); pointers point into the message, c2 is
 * NULL unless CVALID. INCORRECT_PAYLOAD when the type/id, HL, DHVLEN, the
 * length (16 + 2 HL + DHVLEN), CVALID (0 or 1) or a bidirectional request
 * with sequence number 0 are wrong.
 */
uint8_t rblk_auth_reply_parse(const void *msg, size_t len, uint8_t hl, uint16_t dhvlen,
			      struct rblk_auth_reply_info *out);

/* DH-HMAC-CHAP_Success2: 16 bytes. 0 or INCORRECT_PAYLOAD. */
uint8_t rblk_auth_success2_parse(const void *msg, size_t len, uint16_t *t_id);

/* AUTH_Failure2: 8 bytes. 0 or INCORRECT_PAYLOAD; *rescode_exp is the host's reason. */
uint8_t rblk_auth_failure2_parse(const void *msg, size_t len, uint16_t *t_id,
				 uint8_t *rescode_exp);

/*
 * Builders: the message at the start of @buf (@len bytes available). Return
 * the message length, or -ENOSPC when it does not fit (nothing written).
 */
int rblk_auth_challenge_build(void *buf, size_t len, uint16_t t_id, uint8_t hashid, uint8_t hl,
			      uint32_t seqnum, const uint8_t *cval, uint8_t dhgid,
			      const uint8_t *dhv, uint16_t dhvlen);
/*
 * HL is always set: the Linux host checks it against the hash even when
 * there is no response. @rval NULL: RVALID 0 and no response bytes.
 */
int rblk_auth_success1_build(void *buf, size_t len, uint16_t t_id, uint8_t hl,
			     const uint8_t *rval);
int rblk_auth_failure1_build(void *buf, size_t len, uint16_t t_id, uint8_t rescode_exp);

#endif
