/* SPDX-License-Identifier: MIT */
/* The host's side of DH-HMAC-CHAP for the target's unit tests (auth_host.h). */
#include <CUnit/Basic.h>
#include <string.h>

#include "auth_host.h"
#include "protocol/auth.h"
#include "protocol/le.h"

void ah_init(struct ah_host *h, const char *hostnqn, const char *subnqn, const char *key,
	     const char *ctrl_key)
{
	memset(h, 0, sizeof(*h));
	h->hostnqn = hostnqn;
	h->subnqn = subnqn;
	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_parse(key, &h->key), 0);
	if (ctrl_key) {
		CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_parse(ctrl_key, &h->ctrl_key), 0);
		h->bidirectional = true;
	}
	h->nr_hashes = 3;
	for (uint8_t i = 0; i < 3; i++)
		h->hashes[i] = (uint8_t)(RBLK_AUTH_HASH_SHA256 + i);
	h->nr_groups = 6;
	for (uint8_t i = 0; i < 6; i++)
		h->groups[i] = i;
	h->t_id = 0x0101;
}

void ah_key(char *buf, size_t len, enum rblk_auth_hash transform, size_t keylen, uint8_t fill)
{
	struct rblk_auth_secret s;
	uint8_t raw[RBLK_AUTH_MAX_KEY_LEN];

	memset(raw, fill, sizeof(raw));
	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_generate(transform, keylen, raw, &s), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_format(&s, buf, len), 0);
}

void ah_sqe(struct nvme_sqe *sqe, bool send, uint32_t len)
{
	struct nvmf_auth_cmd *c = (struct nvmf_auth_cmd *)sqe;

	tt_fabrics_sqe(sqe, send ? NVMF_FCTYPE_AUTH_SEND : NVMF_FCTYPE_AUTH_RECV, 0xA5);
	c->secp = NVMF_AUTH_SECP_NVME;
	c->spsp0 = NVMF_AUTH_SPSP0;
	c->spsp1 = NVMF_AUTH_SPSP1;
	c->tl_al = rblk_cpu_to_le32(len);
}

uint16_t ah_send(struct tt_queue *q, const void *msg, size_t len)
{
	struct nvme_sqe sqe;

	ah_sqe(&sqe, true, (uint32_t)len);
	return tt_cmd(q, &sqe, msg, len, NULL, NULL, 0);
}

uint16_t ah_recv(struct tt_queue *q, uint32_t al, uint8_t *buf)
{
	struct nvme_sqe sqe;

	ah_sqe(&sqe, false, al);
	memset(buf, 0xEE, AH_BUF);
	return tt_cmd(q, &sqe, NULL, al, NULL, buf, AH_BUF);
}

size_t ah_negotiate(struct ah_host *h, uint8_t *msg)
{
	memset(msg, 0, 72);
	msg[0] = NVMF_AUTH_TYPE_COMMON;
	msg[1] = NVMF_AUTH_ID_NEGOTIATE;
	msg[4] = (uint8_t)h->t_id;
	msg[5] = (uint8_t)(h->t_id >> 8);
	msg[7] = 1;
	msg[8] = NVMF_AUTH_DHCHAP_AUTHID;
	msg[10] = h->nr_hashes;
	msg[11] = h->nr_groups;
	memcpy(msg + 12, h->hashes, h->nr_hashes);
	memcpy(msg + 12 + 30, h->groups, h->nr_groups);
	return 72;
}

int ah_challenge(struct ah_host *h, const uint8_t *m)
{
	if (m[0] != NVMF_AUTH_TYPE_DHCHAP || m[1] != NVMF_AUTH_ID_CHALLENGE ||
	    rblk_get_le16(m + 4) != h->t_id)
		return -1;
	h->hl = m[6];
	h->hashid = m[8];
	h->dhgid = m[9];
	h->dhvlen = rblk_get_le16(m + 10);
	h->s1 = rblk_get_le32(m + 12);
	/* What the Linux host checks: HL of the hash, DHVLEN of the group. */
	if (h->hl != rblk_auth_hash_len(h->hashid) ||
	    h->dhvlen != rblk_auth_dhgroup_len(h->dhgid))
		return -1;
	memcpy(h->c1, m + 16, h->hl);
	memcpy(h->ctrl_pub, m + 16 + h->hl, h->dhvlen);
	return 0;
}

/* The challenge as the response covers it: augmented when a DH group is in use. */
static void chal(struct ah_host *h, const uint8_t *c, uint8_t *out)
{
	if (h->dhvlen) {
		CU_ASSERT_EQUAL_FATAL(rblk_auth_augmented_challenge(h->hashid, h->secret, h->dhvlen,
								    c, out), 0);
	} else {
		memcpy(out, c, h->hl);
	}
}

size_t ah_reply(struct ah_host *h, uint8_t *m)
{
	uint8_t tkey[RBLK_AUTH_MAX_KEY_LEN], c[64], pub[RBLK_AUTH_MAX_DH_LEN];
	struct rblk_auth_dh *dh = NULL;
	size_t tlen;

	if (h->dhvlen) {
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(h->dhgid, &dh), 0);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_public(dh, pub, h->dhvlen), 0);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_derive(dh, h->ctrl_pub, h->dhvlen, h->secret,
							  h->dhvlen), 0);
		rblk_auth_dh_destroy(dh);
	}
	memset(m, 0, 16);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_REPLY;
	m[4] = (uint8_t)h->t_id;
	m[5] = (uint8_t)(h->t_id >> 8);
	m[6] = h->hl;
	m[8] = h->bidirectional;
	m[10] = (uint8_t)h->dhvlen;
	m[11] = (uint8_t)(h->dhvlen >> 8);
	/* The host's own key, transformed with its NQN, over our challenge and S1. */
	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_transform(&h->key, h->hostnqn, tkey, &tlen), 0);
	chal(h, h->c1, c);
	CU_ASSERT_EQUAL_FATAL(rblk_auth_host_response(h->hashid, tkey, tlen, c, h->s1, h->t_id, 0,
						      h->hostnqn, h->subnqn, m + 16), 0);
	memset(m + 16 + h->hl, 0, h->hl);
	if (h->bidirectional) {
		h->s2 = 0x5eed0000u + h->t_id;
		memset(h->c2, 0x3c, h->hl);
		memcpy(m + 16 + h->hl, h->c2, h->hl);
		m[12] = (uint8_t)h->s2;
		m[13] = (uint8_t)(h->s2 >> 8);
		m[14] = (uint8_t)(h->s2 >> 16);
		m[15] = (uint8_t)(h->s2 >> 24);
		/* The controller's key is transformed with the subsystem NQN. */
		CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_transform(&h->ctrl_key, h->subnqn, tkey,
								 &tlen), 0);
		chal(h, h->c2, c);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_ctrl_response(h->hashid, tkey, tlen, c, h->s2,
							      h->t_id, 0, h->hostnqn, h->subnqn,
							      h->ctrl_resp), 0);
	}
	if (h->dhvlen)
		memcpy(m + 16 + 2 * h->hl, pub, h->dhvlen);
	return 16 + 2 * (size_t)h->hl + h->dhvlen;
}

int ah_success1(struct ah_host *h, const uint8_t *m)
{
	if (m[0] != NVMF_AUTH_TYPE_DHCHAP || m[1] != NVMF_AUTH_ID_SUCCESS1 ||
	    rblk_get_le16(m + 4) != h->t_id || m[6] != h->hl)
		return -1;
	if (!h->bidirectional)
		return m[8] == 0 ? 0 : -1;
	if (m[8] != NVMF_AUTH_RVALID || memcmp(m + 16, h->ctrl_resp, h->hl))
		return -1;
	return 0;
}

size_t ah_success2(struct ah_host *h, uint8_t *m)
{
	memset(m, 0, 16);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_SUCCESS2;
	m[4] = (uint8_t)h->t_id;
	m[5] = (uint8_t)(h->t_id >> 8);
	return 16;
}

/* The Failure1's reason, -1 for any other message. */
static int failure1(struct ah_host *h, const uint8_t *m)
{
	if (m[0] != NVMF_AUTH_TYPE_COMMON || m[1] != NVMF_AUTH_ID_FAILURE1 ||
	    rblk_get_le16(m + 4) != h->t_id || m[6] != NVMF_AUTH_RESCODE_FAILED)
		return -1;
	return m[7];
}

int ah_authenticate(struct ah_host *h, struct tt_queue *q)
{
	static uint8_t m[AH_BUF];

	if (ah_send(q, m, ah_negotiate(h, m)) || ah_recv(q, AH_BUF, m))
		return -1;
	if (m[1] == NVMF_AUTH_ID_FAILURE1 || ah_challenge(h, m))
		return failure1(h, m);
	if (ah_send(q, m, ah_reply(h, m)) || ah_recv(q, AH_BUF, m))
		return -1;
	if (m[1] == NVMF_AUTH_ID_FAILURE1 || ah_success1(h, m))
		return failure1(h, m);
	if (h->bidirectional && ah_send(q, m, ah_success2(h, m)))
		return -1;
	return 0;
}
