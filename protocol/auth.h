/* SPDX-License-Identifier: MIT */
/*
 * NVMe in-band authentication on the wire: the Authentication Send / Receive
 * fabrics commands and the DH-HMAC-CHAP messages they carry (NVMe Base 2.0,
 * "Authentication", and the Linux host and target, which are what rblk must
 * interoperate with).
 *
 * One transaction per queue: the host sends AUTH_Negotiate, receives a
 * DH-HMAC-CHAP_Challenge, sends DH-HMAC-CHAP_Reply, receives
 * DH-HMAC-CHAP_Success1 (with the controller's response when the host asked
 * for one), and in that case sends DH-HMAC-CHAP_Success2. Either side ends a
 * failed transaction with AUTH_Failure1 (controller to host, read by an
 * Authentication Receive) or AUTH_Failure2 (host to controller).
 *
 * Same rules as protocol/nvme.h: raw little-endian fields, no bitfields,
 * _Static_assert on sizes and key offsets.
 */
#ifndef RBLK_PROTOCOL_AUTH_H
#define RBLK_PROTOCOL_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/nvme.h"

/* SECP / SPSP of the Authentication Send/Receive commands for DH-HMAC-CHAP. */
#define NVMF_AUTH_SECP_NVME 0xe9
#define NVMF_AUTH_SPSP0 0x01
#define NVMF_AUTH_SPSP1 0x01

/* Authentication Send (fctype 0x05) and Receive (0x06) SQE. */
struct nvmf_auth_cmd {
	uint8_t opcode;		/* 0x7f */
	uint8_t rsvd1;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1;
	uint8_t rsvd40;
	uint8_t spsp0;
	uint8_t spsp1;
	uint8_t secp;
	uint32_t tl_al;		/* Send: transfer length; Receive: allocation length */
	uint8_t rsvd48[16];
};
_Static_assert(sizeof(struct nvmf_auth_cmd) == 64, "auth cmd size");
_Static_assert(offsetof(struct nvmf_auth_cmd, secp) == 43, "auth secp");
_Static_assert(offsetof(struct nvmf_auth_cmd, fctype) == 4, "auth fctype");
_Static_assert(offsetof(struct nvmf_auth_cmd, sgl1) == 24, "auth sgl1");
_Static_assert(offsetof(struct nvmf_auth_cmd, spsp0) == 41, "auth spsp0");
_Static_assert(offsetof(struct nvmf_auth_cmd, spsp1) == 42, "auth spsp1");
_Static_assert(offsetof(struct nvmf_auth_cmd, tl_al) == 44, "auth tl/al");

/* auth_type of every message. */
enum {
	NVMF_AUTH_TYPE_COMMON = 0x00,	/* AUTH_Negotiate, AUTH_Failure1/2 */
	NVMF_AUTH_TYPE_DHCHAP = 0x01,	/* challenge, reply, success1/2 */
};

/* auth_id: which message. */
enum {
	NVMF_AUTH_ID_NEGOTIATE = 0x00,
	NVMF_AUTH_ID_CHALLENGE = 0x01,
	NVMF_AUTH_ID_REPLY = 0x02,
	NVMF_AUTH_ID_SUCCESS1 = 0x03,
	NVMF_AUTH_ID_SUCCESS2 = 0x04,
	NVMF_AUTH_ID_FAILURE2 = 0xf0,
	NVMF_AUTH_ID_FAILURE1 = 0xf1,
};

/* AUTH_Failure reason code and explanation. */
#define NVMF_AUTH_RESCODE_FAILED 0x01
enum {
	NVMF_AUTH_FAIL_FAILED = 0x01,		/* authentication failed (wrong response) */
	NVMF_AUTH_FAIL_NOT_USABLE = 0x02,	/* no protocol in common */
	NVMF_AUTH_FAIL_CONCAT_MISMATCH = 0x03,	/* secure channel concatenation */
	NVMF_AUTH_FAIL_HASH_UNUSABLE = 0x04,
	NVMF_AUTH_FAIL_DHGROUP_UNUSABLE = 0x05,
	NVMF_AUTH_FAIL_INCORRECT_PAYLOAD = 0x06,
	NVMF_AUTH_FAIL_INCORRECT_PROTOCOL = 0x07,	/* unexpected message */
};

/* The DH-HMAC-CHAP protocol descriptor in AUTH_Negotiate. */
#define NVMF_AUTH_DHCHAP_AUTHID 0x01
#define NVMF_AUTH_IDLIST_HASH_MAX 30	/* idlist[0..29]: hash ids, [30..59]: DH group ids */
struct nvmf_auth_dhchap_desc {
	uint8_t authid;		/* NVMF_AUTH_DHCHAP_AUTHID */
	uint8_t rsvd1;
	uint8_t halen;		/* hash ids in idlist[0..] */
	uint8_t dhlen;		/* DH group ids in idlist[30..] */
	uint8_t idlist[60];
};
_Static_assert(sizeof(struct nvmf_auth_dhchap_desc) == 64, "dhchap desc size");
_Static_assert(offsetof(struct nvmf_auth_dhchap_desc, idlist) == 4, "dhchap desc idlist");

/* sc_c: secure channel concatenation; rblk speaks none (no TLS). */
#define NVMF_AUTH_SC_C_NONE 0x00

struct nvmf_auth_negotiate {
	uint8_t auth_type;	/* COMMON */
	uint8_t auth_id;	/* NEGOTIATE */
	uint16_t rsvd2;
	uint16_t t_id;
	uint8_t sc_c;
	uint8_t napd;		/* number of protocol descriptors that follow */
	struct nvmf_auth_dhchap_desc desc[];
};
_Static_assert(sizeof(struct nvmf_auth_negotiate) == 8, "negotiate header size");
_Static_assert(offsetof(struct nvmf_auth_negotiate, t_id) == 4, "negotiate t_id");
_Static_assert(offsetof(struct nvmf_auth_negotiate, napd) == 7, "negotiate napd");

struct nvmf_auth_challenge {
	uint8_t auth_type;	/* DHCHAP */
	uint8_t auth_id;	/* CHALLENGE */
	uint16_t rsvd2;
	uint16_t t_id;
	uint8_t hl;		/* hash length */
	uint8_t rsvd7;
	uint8_t hashid;
	uint8_t dhgid;
	uint16_t dhvlen;
	uint32_t seqnum;
	uint8_t cval[];		/* hl bytes of challenge, then dhvlen bytes of DH value */
};
_Static_assert(sizeof(struct nvmf_auth_challenge) == 16, "challenge header size");
_Static_assert(offsetof(struct nvmf_auth_challenge, hl) == 6, "challenge hl");
_Static_assert(offsetof(struct nvmf_auth_challenge, hashid) == 8, "challenge hashid");
_Static_assert(offsetof(struct nvmf_auth_challenge, dhvlen) == 10, "challenge dhvlen");
_Static_assert(offsetof(struct nvmf_auth_challenge, seqnum) == 12, "challenge seqnum");

#define NVMF_AUTH_CVALID 0x01
struct nvmf_auth_reply {
	uint8_t auth_type;	/* DHCHAP */
	uint8_t auth_id;	/* REPLY */
	uint16_t rsvd2;
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t cvalid;		/* NVMF_AUTH_CVALID: a challenge for the controller follows */
	uint8_t rsvd9;
	uint16_t dhvlen;
	uint32_t seqnum;	/* the host's sequence number for the controller's response */
	/*
	 * hl bytes of response, then hl bytes of challenge (always there, zeros
	 * unless cvalid: the Linux host sends both), then dhvlen bytes of DH value
	 */
	uint8_t rval[];
};
_Static_assert(sizeof(struct nvmf_auth_reply) == 16, "reply header size");
_Static_assert(offsetof(struct nvmf_auth_reply, cvalid) == 8, "reply cvalid");
_Static_assert(offsetof(struct nvmf_auth_reply, dhvlen) == 10, "reply dhvlen");
_Static_assert(offsetof(struct nvmf_auth_reply, seqnum) == 12, "reply seqnum");

#define NVMF_AUTH_RVALID 0x01
struct nvmf_auth_success1 {
	uint8_t auth_type;	/* DHCHAP */
	uint8_t auth_id;	/* SUCCESS1 */
	uint16_t rsvd2;
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t rvalid;		/* NVMF_AUTH_RVALID: the controller's response follows */
	uint8_t rsvd9[7];
	uint8_t rval[];
};
_Static_assert(sizeof(struct nvmf_auth_success1) == 16, "success1 header size");
_Static_assert(offsetof(struct nvmf_auth_success1, rvalid) == 8, "success1 rvalid");

struct nvmf_auth_success2 {
	uint8_t auth_type;	/* DHCHAP */
	uint8_t auth_id;	/* SUCCESS2 */
	uint16_t rsvd2;
	uint16_t t_id;
	uint8_t rsvd6[10];
};
_Static_assert(sizeof(struct nvmf_auth_success2) == 16, "success2 size");

struct nvmf_auth_failure {
	uint8_t auth_type;	/* COMMON */
	uint8_t auth_id;	/* FAILURE1 or FAILURE2 */
	uint16_t rsvd2;
	uint16_t t_id;
	uint8_t rescode;	/* NVMF_AUTH_RESCODE_FAILED */
	uint8_t rescode_exp;	/* NVMF_AUTH_FAIL_* */
};
_Static_assert(sizeof(struct nvmf_auth_failure) == 8, "failure size");
_Static_assert(offsetof(struct nvmf_auth_failure, rescode) == 6, "failure rescode");

#endif
