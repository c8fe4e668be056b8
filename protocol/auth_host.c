/* SPDX-License-Identifier: MIT */
/*
 * Host-side DH-HMAC-CHAP message builders and parsers (see auth_host.h).
 * Lengths come from the wire: nothing is read before it is known to lie
 * inside the buffer.
 */
#include <errno.h>
#include <string.h>

#include "protocol/auth_host.h"
#include "protocol/le.h"

/* What the host offers, in the Linux host's order (idlist[0..2], idlist[30..35]). */
static const uint8_t offered_hashes[] = {
	RBLK_AUTH_HASH_SHA256, RBLK_AUTH_HASH_SHA384, RBLK_AUTH_HASH_SHA512,
};
static const uint8_t offered_groups[] = {
	RBLK_AUTH_DHGROUP_NULL, RBLK_AUTH_DHGROUP_2048, RBLK_AUTH_DHGROUP_3072,
	RBLK_AUTH_DHGROUP_4096, RBLK_AUTH_DHGROUP_6144, RBLK_AUTH_DHGROUP_8192,
};

int rblk_auth_negotiate_build(uint16_t t_id, void *buf, size_t len)
{
	struct nvmf_auth_negotiate *m = buf;
	struct nvmf_auth_dhchap_desc *d;
	size_t size = sizeof(*m) + sizeof(*d);

	if (len < size)
		return -ENOSPC;
	memset(buf, 0, size);
	m->auth_type = NVMF_AUTH_TYPE_COMMON;
	m->auth_id = NVMF_AUTH_ID_NEGOTIATE;
	m->t_id = rblk_cpu_to_le16(t_id);
	m->sc_c = NVMF_AUTH_SC_C_NONE;
	m->napd = 1;
	d = &m->desc[0];
	d->authid = NVMF_AUTH_DHCHAP_AUTHID;
	d->halen = sizeof(offered_hashes);
	d->dhlen = sizeof(offered_groups);
	memcpy(d->idlist, offered_hashes, sizeof(offered_hashes));
	memcpy(d->idlist + NVMF_AUTH_IDLIST_HASH_MAX, offered_groups, sizeof(offered_groups));
	return (int)size;
}

/*
 * The checks every received message starts with: AUTH_Failure1 ends the
 * transaction whatever we expected (its t_id is not checked, as in Linux);
 * anything else must be @want of our transaction.
 */
static int check_header(const void *buf, size_t len, uint16_t t_id, uint8_t want, uint8_t *exp)
{
	const struct nvmf_auth_failure *f = buf;

	if (len < sizeof(*f)) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
		return -EPROTO;
	}
	if (f->auth_type == NVMF_AUTH_TYPE_COMMON && f->auth_id == NVMF_AUTH_ID_FAILURE1) {
		*exp = f->rescode_exp;
		return -EACCES;
	}
	if (f->auth_type != NVMF_AUTH_TYPE_DHCHAP || f->auth_id != want ||
	    rblk_le16(f->t_id) != t_id) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PROTOCOL;
		return -EPROTO;
	}
	return 0;
}

static bool hash_offered(uint8_t id)
{
	return memchr(offered_hashes, id, sizeof(offered_hashes)) != NULL;
}

static bool group_offered(uint8_t id)
{
	return memchr(offered_groups, id, sizeof(offered_groups)) != NULL;
}

int rblk_auth_challenge_parse(const void *buf, size_t len, uint16_t t_id,
			      struct rblk_auth_challenge_info *out, uint8_t *exp)
{
	const struct nvmf_auth_challenge *m = buf;
	uint16_t dhvlen;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = check_header(buf, len, t_id, NVMF_AUTH_ID_CHALLENGE, exp);
	if (ret)
		return ret;
	if (len < sizeof(*m)) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
		return -EPROTO;
	}
	dhvlen = rblk_le16(m->dhvlen);
	if (sizeof(*m) + (size_t)m->hl + dhvlen > len) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
		return -EPROTO;
	}
	/* A hash we did not offer is one we cannot use; hl must be its digest size. */
	if (!hash_offered(m->hashid) || m->hl != rblk_auth_hash_len(m->hashid)) {
		*exp = NVMF_AUTH_FAIL_HASH_UNUSABLE;
		return -EPROTO;
	}
	if (!group_offered(m->dhgid)) {
		*exp = NVMF_AUTH_FAIL_DHGROUP_UNUSABLE;
		return -EPROTO;
	}
	if (m->dhgid == RBLK_AUTH_DHGROUP_NULL) {
		if (dhvlen) {
			*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
			return -EPROTO;
		}
	} else if (!dhvlen) {
		/* Linux's choice for a group without a value. */
		*exp = NVMF_AUTH_FAIL_DHGROUP_UNUSABLE;
		return -EPROTO;
	} else if (dhvlen != rblk_auth_dhgroup_len(m->dhgid)) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
		return -EPROTO;
	}
	out->hash = m->hashid;
	out->dhgroup = m->dhgid;
	out->hl = m->hl;
	out->seqnum = rblk_le32(m->seqnum);
	out->c1 = m->cval;
	out->dhv = dhvlen ? m->cval + m->hl : NULL;
	out->dhvlen = dhvlen;
	return 0;
}

int rblk_auth_reply_build(const struct rblk_auth_reply_info *in, void *buf, size_t len)
{
	struct nvmf_auth_reply *m = buf;
	size_t size = sizeof(*m) + 2 * (size_t)in->hl + in->dhvlen;

	if ((in->hl != 32 && in->hl != 48 && in->hl != 64) || !in->response ||
	    (in->c2 && !in->seqnum) || (in->dhvlen && !in->dhv))
		return -EINVAL;
	if (len < size)
		return -ENOSPC;
	memset(buf, 0, size);
	m->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	m->auth_id = NVMF_AUTH_ID_REPLY;
	m->t_id = rblk_cpu_to_le16(in->t_id);
	m->hl = in->hl;
	m->dhvlen = rblk_cpu_to_le16(in->dhvlen);
	memcpy(m->rval, in->response, in->hl);
	if (in->c2) {
		m->cvalid = NVMF_AUTH_CVALID;
		m->seqnum = rblk_cpu_to_le32(in->seqnum);
		memcpy(m->rval + in->hl, in->c2, in->hl);
	}
	if (in->dhvlen)
		memcpy(m->rval + 2 * in->hl, in->dhv, in->dhvlen);
	return (int)size;
}

int rblk_auth_success1_parse(const void *buf, size_t len, uint16_t t_id, uint8_t hl,
			     const uint8_t **rval, uint8_t *exp)
{
	const struct nvmf_auth_success1 *m = buf;
	int ret;

	*rval = NULL;
	ret = check_header(buf, len, t_id, NVMF_AUTH_ID_SUCCESS1, exp);
	if (ret)
		return ret;
	if (len < sizeof(*m)) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
		return -EPROTO;
	}
	if (m->hl != hl) {
		*exp = NVMF_AUTH_FAIL_HASH_UNUSABLE;
		return -EPROTO;
	}
	if (!(m->rvalid & NVMF_AUTH_RVALID))
		return 0;
	if (sizeof(*m) + (size_t)hl > len) {
		*exp = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
		return -EPROTO;
	}
	*rval = m->rval;
	return 0;
}

int rblk_auth_success2_build(uint16_t t_id, void *buf, size_t len)
{
	struct nvmf_auth_success2 *m = buf;

	if (len < sizeof(*m))
		return -ENOSPC;
	memset(m, 0, sizeof(*m));
	m->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	m->auth_id = NVMF_AUTH_ID_SUCCESS2;
	m->t_id = rblk_cpu_to_le16(t_id);
	return (int)sizeof(*m);
}

int rblk_auth_failure2_build(uint16_t t_id, uint8_t exp, void *buf, size_t len)
{
	struct nvmf_auth_failure *m = buf;

	if (len < sizeof(*m))
		return -ENOSPC;
	memset(m, 0, sizeof(*m));
	m->auth_type = NVMF_AUTH_TYPE_COMMON;
	m->auth_id = NVMF_AUTH_ID_FAILURE2;
	m->t_id = rblk_cpu_to_le16(t_id);
	m->rescode = NVMF_AUTH_RESCODE_FAILED;
	m->rescode_exp = exp;
	return (int)sizeof(*m);
}

const char *rblk_auth_failure_str(uint8_t exp)
{
	switch (exp) {
	case NVMF_AUTH_FAIL_FAILED:
		return "authentication failed";
	case NVMF_AUTH_FAIL_NOT_USABLE:
		return "authentication protocol not usable";
	case NVMF_AUTH_FAIL_CONCAT_MISMATCH:
		return "secure channel concatenation mismatch";
	case NVMF_AUTH_FAIL_HASH_UNUSABLE:
		return "hash function not usable";
	case NVMF_AUTH_FAIL_DHGROUP_UNUSABLE:
		return "DH group not usable";
	case NVMF_AUTH_FAIL_INCORRECT_PAYLOAD:
		return "incorrect payload";
	case NVMF_AUTH_FAIL_INCORRECT_PROTOCOL:
		return "incorrect protocol message";
	default:
		return "unknown reason";
	}
}
