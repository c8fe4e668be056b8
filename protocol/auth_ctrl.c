/* SPDX-License-Identifier: MIT */
/* DH-HMAC-CHAP messages as the controller parses and builds them (auth_ctrl.h). */
#include <errno.h>
#include <string.h>

#include "protocol/auth_ctrl.h"
#include "protocol/le.h"

#define DESC_LEN ((size_t)sizeof(struct nvmf_auth_dhchap_desc))
#define NEGOTIATE_HDR_LEN ((size_t)sizeof(struct nvmf_auth_negotiate))
#define DHCHAP_HDR_LEN ((size_t)sizeof(struct nvmf_auth_reply)) /* challenge, reply, success1/2 */

uint16_t rblk_auth_cmd_decode(const struct nvmf_auth_cmd *c, uint32_t *len, uint16_t *err_loc)
{
	/* nvmet's order: SECP, SPSP0, SPSP1, then the length. */
	if (c->secp != NVMF_AUTH_SECP_NVME)
		*err_loc = offsetof(struct nvmf_auth_cmd, secp);
	else if (c->spsp0 != NVMF_AUTH_SPSP0)
		*err_loc = offsetof(struct nvmf_auth_cmd, spsp0);
	else if (c->spsp1 != NVMF_AUTH_SPSP1)
		*err_loc = offsetof(struct nvmf_auth_cmd, spsp1);
	else if (!rblk_le32(c->tl_al))
		*err_loc = offsetof(struct nvmf_auth_cmd, tl_al);
	else {
		*len = rblk_le32(c->tl_al);
		return 0;
	}
	return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
}

uint8_t rblk_auth_msg_peek(const void *msg, size_t len, struct rblk_auth_msg_hdr *out)
{
	const uint8_t *m = msg;

	if (len < RBLK_AUTH_HDR_LEN)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->type = m[0];
	out->id = m[1];
	out->t_id = rblk_get_le16(m + 4);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* What the host sends.                                                      */

uint8_t rblk_auth_negotiate_parse(const void *msg, size_t len, struct rblk_auth_negotiate_info *out)
{
	const uint8_t *m = msg;
	const struct nvmf_auth_dhchap_desc *d = NULL;
	uint8_t napd;

	memset(out, 0, sizeof(*out));
	if (len >= RBLK_AUTH_HDR_LEN)
		out->t_id = rblk_get_le16(m + offsetof(struct nvmf_auth_negotiate, t_id));
	if (len < NEGOTIATE_HDR_LEN || m[0] != NVMF_AUTH_TYPE_COMMON ||
	    m[1] != NVMF_AUTH_ID_NEGOTIATE)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->sc_c = m[offsetof(struct nvmf_auth_negotiate, sc_c)];
	napd = m[offsetof(struct nvmf_auth_negotiate, napd)];
	if (!napd || len != NEGOTIATE_HDR_LEN + napd * DESC_LEN)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	for (unsigned i = 0; i < napd && !d; i++) {
		const struct nvmf_auth_dhchap_desc *c =
			(const void *)(m + NEGOTIATE_HDR_LEN + i * DESC_LEN);

		if (c->authid == NVMF_AUTH_DHCHAP_AUTHID)
			d = c;
	}
	if (!d)
		return NVMF_AUTH_FAIL_NOT_USABLE;
	/* idlist is two fixed halves of 30 ids: a longer list would read the other half. */
	if (d->halen > NVMF_AUTH_IDLIST_HASH_MAX || d->dhlen > NVMF_AUTH_IDLIST_HASH_MAX)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->halen = d->halen;
	out->dhlen = d->dhlen;
	out->hash_ids = d->idlist;
	out->dh_ids = d->idlist + NVMF_AUTH_IDLIST_HASH_MAX;
	return 0;
}

uint8_t rblk_auth_select(const struct rblk_auth_negotiate_info *n, uint8_t want_hash,
			 uint32_t hash_ok, uint8_t want_dh, uint8_t *hash, uint8_t *dh)
{
	int fallback = -1, chosen = -1;

	if (n->sc_c != NVMF_AUTH_SC_C_NONE)
		return NVMF_AUTH_FAIL_CONCAT_MISMATCH;
	for (unsigned i = 0; i < n->halen; i++) {
		uint8_t id = n->hash_ids[i];

		if (id == want_hash) {
			chosen = id;
			break;
		}
		if (fallback < 0 && id < 32 && (hash_ok & (1u << id)))
			fallback = id;
	}
	/* nvmet: the configured hash when offered, else the host's first usable one. */
	if (chosen < 0)
		chosen = fallback;
	if (chosen < 0)
		return NVMF_AUTH_FAIL_HASH_UNUSABLE;
	for (unsigned i = 0; i < n->dhlen; i++) {
		if (n->dh_ids[i] == want_dh) {
			*hash = (uint8_t)chosen;
			*dh = want_dh;
			return 0;
		}
	}
	return NVMF_AUTH_FAIL_DHGROUP_UNUSABLE;
}

uint8_t rblk_auth_reply_parse(const void *msg, size_t len, uint8_t hl, uint16_t dhvlen,
			      struct rblk_auth_reply_info *out)
{
	const struct nvmf_auth_reply *r = msg;
	const uint8_t *m = msg;

	memset(out, 0, sizeof(*out));
	if (len < DHCHAP_HDR_LEN || r->auth_type != NVMF_AUTH_TYPE_DHCHAP ||
	    r->auth_id != NVMF_AUTH_ID_REPLY)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = rblk_get_le16(m + offsetof(struct nvmf_auth_reply, t_id));
	if (r->hl != hl || rblk_get_le16(m + offsetof(struct nvmf_auth_reply, dhvlen)) != dhvlen ||
	    len != DHCHAP_HDR_LEN + 2 * (size_t)hl + dhvlen)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->seqnum = rblk_get_le32(m + offsetof(struct nvmf_auth_reply, seqnum));
	/*
	 * CVALID 1 with S2 = 0 is how a host asks for a secure channel key
	 * without controller authentication (NVMe 2.1 §8.3.4.5.4): not on RDMA.
	 */
	if (r->cvalid > NVMF_AUTH_CVALID || (r->cvalid && !out->seqnum))
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->hl = hl;
	out->response = m + DHCHAP_HDR_LEN;
	/* The challenge bytes are always there; they are one only with CVALID. */
	out->c2 = r->cvalid ? out->response + hl : NULL;
	out->dhv = dhvlen ? out->response + 2 * (size_t)hl : NULL;
	out->dhvlen = dhvlen;
	return 0;
}

uint8_t rblk_auth_success2_parse(const void *msg, size_t len, uint16_t *t_id)
{
	const uint8_t *m = msg;

	if (len != sizeof(struct nvmf_auth_success2) || m[0] != NVMF_AUTH_TYPE_DHCHAP ||
	    m[1] != NVMF_AUTH_ID_SUCCESS2)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	*t_id = rblk_get_le16(m + offsetof(struct nvmf_auth_success2, t_id));
	return 0;
}

uint8_t rblk_auth_failure2_parse(const void *msg, size_t len, uint16_t *t_id,
				 uint8_t *rescode_exp)
{
	const struct nvmf_auth_failure *f = msg;

	if (len != RBLK_AUTH_FAILURE_LEN || f->auth_type != NVMF_AUTH_TYPE_COMMON ||
	    f->auth_id != NVMF_AUTH_ID_FAILURE2)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	*t_id = rblk_get_le16((const uint8_t *)msg + offsetof(struct nvmf_auth_failure, t_id));
	*rescode_exp = f->rescode_exp;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* What the controller sends.                                                */

int rblk_auth_challenge_build(void *buf, size_t len, uint16_t t_id, uint8_t hashid, uint8_t hl,
			      uint32_t seqnum, const uint8_t *cval, uint8_t dhgid,
			      const uint8_t *dhv, uint16_t dhvlen)
{
	size_t need = sizeof(struct nvmf_auth_challenge) + hl + (size_t)dhvlen;
	struct nvmf_auth_challenge *c = buf;

	if (len < need)
		return -ENOSPC;
	memset(c, 0, sizeof(*c));
	c->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	c->auth_id = NVMF_AUTH_ID_CHALLENGE;
	c->t_id = rblk_cpu_to_le16(t_id);
	c->hl = hl;
	c->hashid = hashid;
	c->dhgid = dhgid;
	c->dhvlen = rblk_cpu_to_le16(dhvlen);
	c->seqnum = rblk_cpu_to_le32(seqnum);
	memcpy(c->cval, cval, hl);
	if (dhvlen)
		memcpy(c->cval + hl, dhv, dhvlen);
	return (int)need;
}

int rblk_auth_success1_build(void *buf, size_t len, uint16_t t_id, uint8_t hl,
			     const uint8_t *rval)
{
	size_t need = sizeof(struct nvmf_auth_success1) + (rval ? hl : 0);
	struct nvmf_auth_success1 *s = buf;

	if (len < need)
		return -ENOSPC;
	memset(s, 0, sizeof(*s));
	s->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	s->auth_id = NVMF_AUTH_ID_SUCCESS1;
	s->t_id = rblk_cpu_to_le16(t_id);
	s->hl = hl;
	if (rval) {
		s->rvalid = NVMF_AUTH_RVALID;
		memcpy(s->rval, rval, hl);
	}
	return (int)need;
}

int rblk_auth_failure1_build(void *buf, size_t len, uint16_t t_id, uint8_t rescode_exp)
{
	struct nvmf_auth_failure *f = buf;

	if (len < RBLK_AUTH_FAILURE_LEN)
		return -ENOSPC;
	memset(f, 0, sizeof(*f));
	f->auth_type = NVMF_AUTH_TYPE_COMMON;
	f->auth_id = NVMF_AUTH_ID_FAILURE1;
	f->t_id = rblk_cpu_to_le16(t_id);
	f->rescode = NVMF_AUTH_RESCODE_FAILED;
	f->rescode_exp = rescode_exp;
	return (int)RBLK_AUTH_FAILURE_LEN;
}
