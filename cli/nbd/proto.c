/* SPDX-License-Identifier: MIT */
/*
 * NBD transmission-phase wire format and request checks (see cli/nbd/proto.h).
 * The checks follow doc/proto.md's "Request message requirements": a server
 * validates before it acts, so the backend never sees a request it would
 * have to second-guess.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "cli/nbd/proto.h"

static uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

/* Byte offsets of the request fields. */
enum {
	REQ_MAGIC = 0,
	REQ_FLAGS = 4,
	REQ_TYPE = 6,
	REQ_COOKIE = 8,
	REQ_OFFSET = 16,
	REQ_LENGTH = 24,
};
_Static_assert(REQ_LENGTH + 4 == RBLK_NBD_REQ_SIZE, "NBD request is 28 bytes");

int rblk_nbd_req_decode(const uint8_t b[RBLK_NBD_REQ_SIZE], struct rblk_nbd_request *r)
{
	if (get_be32(b + REQ_MAGIC) != RBLK_NBD_REQUEST_MAGIC)
		return -EPROTO;
	r->flags = (uint16_t)(b[REQ_FLAGS] << 8 | b[REQ_FLAGS + 1]);
	r->type = (uint16_t)(b[REQ_TYPE] << 8 | b[REQ_TYPE + 1]);
	memcpy(&r->cookie, b + REQ_COOKIE, 8);
	r->offset = get_be64(b + REQ_OFFSET);
	r->length = get_be32(b + REQ_LENGTH);
	return 0;
}

void rblk_nbd_req_encode(uint8_t b[RBLK_NBD_REQ_SIZE], const struct rblk_nbd_request *r)
{
	put_be32(b + REQ_MAGIC, RBLK_NBD_REQUEST_MAGIC);
	b[REQ_FLAGS] = (uint8_t)(r->flags >> 8);
	b[REQ_FLAGS + 1] = (uint8_t)r->flags;
	b[REQ_TYPE] = (uint8_t)(r->type >> 8);
	b[REQ_TYPE + 1] = (uint8_t)r->type;
	memcpy(b + REQ_COOKIE, &r->cookie, 8);
	put_be64(b + REQ_OFFSET, r->offset);
	put_be32(b + REQ_LENGTH, r->length);
}

void rblk_nbd_reply_encode(uint8_t b[RBLK_NBD_REPLY_SIZE], uint32_t error, uint64_t cookie)
{
	put_be32(b, RBLK_NBD_REPLY_MAGIC);
	put_be32(b + 4, error);
	memcpy(b + 8, &cookie, 8);
}

int rblk_nbd_reply_decode(const uint8_t b[RBLK_NBD_REPLY_SIZE], uint32_t *error, uint64_t *cookie)
{
	if (get_be32(b) != RBLK_NBD_REPLY_MAGIC)
		return -EPROTO;
	*error = get_be32(b + 4);
	memcpy(cookie, b + 8, 8);
	return 0;
}

/* Flags each command may carry (FUA only when offered). */
static uint16_t allowed_flags(const struct rblk_nbd_export *e, uint16_t type)
{
	uint16_t fua = e->tflags & RBLK_NBD_FLAG_SEND_FUA ? RBLK_NBD_CMD_FLAG_FUA : 0;

	switch (type) {
	case RBLK_NBD_CMD_WRITE:
	case RBLK_NBD_CMD_TRIM:
		return fua;
	case RBLK_NBD_CMD_WRITE_ZEROES:
		return fua | RBLK_NBD_CMD_FLAG_NO_HOLE |
		       (e->tflags & RBLK_NBD_FLAG_SEND_FAST_ZERO ? RBLK_NBD_CMD_FLAG_FAST_ZERO : 0);
	default:
		return 0;
	}
}

uint32_t rblk_nbd_req_check(const struct rblk_nbd_export *e, const struct rblk_nbd_request *r)
{
	bool ro = e->tflags & RBLK_NBD_FLAG_READ_ONLY;
	uint64_t size = e->live_size ? atomic_load_explicit(e->live_size, memory_order_acquire) : e->size;
	bool past_end;

	switch (r->type) {
	case RBLK_NBD_CMD_READ:
	case RBLK_NBD_CMD_WRITE:
	case RBLK_NBD_CMD_CACHE:
		break;
	case RBLK_NBD_CMD_FLUSH:
		if (!(e->tflags & RBLK_NBD_FLAG_SEND_FLUSH))
			return RBLK_NBD_EINVAL;
		/* offset and length are meaningless for a flush */
		return r->flags ? RBLK_NBD_EINVAL : RBLK_NBD_OK;
	case RBLK_NBD_CMD_TRIM:
		if (!(e->tflags & RBLK_NBD_FLAG_SEND_TRIM))
			return RBLK_NBD_EINVAL;
		break;
	case RBLK_NBD_CMD_WRITE_ZEROES:
		if (!(e->tflags & RBLK_NBD_FLAG_SEND_WRITE_ZEROES))
			return RBLK_NBD_EINVAL;
		break;
	default:
		/* DISC never gets here; BLOCK_STATUS and RESIZE were not negotiated */
		return RBLK_NBD_EINVAL;
	}
	if (r->flags & ~allowed_flags(e, r->type))
		return RBLK_NBD_EINVAL;
	if (ro && r->type != RBLK_NBD_CMD_READ && r->type != RBLK_NBD_CMD_CACHE)
		return RBLK_NBD_EPERM;
	if (r->length > RBLK_NBD_MAX_LEN &&
	    (r->type == RBLK_NBD_CMD_READ || r->type == RBLK_NBD_CMD_WRITE))
		return RBLK_NBD_EOVERFLOW;
	past_end = r->offset > size || r->length > size - r->offset;
	if (past_end)
		return r->type == RBLK_NBD_CMD_WRITE || r->type == RBLK_NBD_CMD_WRITE_ZEROES ?
			       RBLK_NBD_ENOSPC : RBLK_NBD_EINVAL;
	/* NVMe moves whole blocks: the kernel honours BLOCK_SIZE_BYTES, others must too */
	if (e->block_size && (r->offset % e->block_size || r->length % e->block_size))
		return RBLK_NBD_EINVAL;
	return RBLK_NBD_OK;
}

uint16_t rblk_nbd_tflags(bool read_only, bool trim, bool write_zeroes, bool multi_conn)
{
	uint16_t f = RBLK_NBD_FLAG_HAS_FLAGS | RBLK_NBD_FLAG_SEND_FLUSH | RBLK_NBD_FLAG_SEND_FUA;

	if (read_only)
		f |= RBLK_NBD_FLAG_READ_ONLY;
	if (trim && !read_only)
		f |= RBLK_NBD_FLAG_SEND_TRIM;
	if (write_zeroes && !read_only)
		f |= RBLK_NBD_FLAG_SEND_WRITE_ZEROES;
	/* NVMe keeps one namespace consistent across queues, and a flush covers all of them */
	if (multi_conn)
		f |= RBLK_NBD_FLAG_CAN_MULTI_CONN;
	return f;
}

uint32_t rblk_nbd_error(int err)
{
	switch (-err) {
	case 0: return RBLK_NBD_OK;
	case EPERM:
	case EACCES:
	case EROFS: return RBLK_NBD_EPERM;
	case ENOMEM: return RBLK_NBD_ENOMEM;
	case EINVAL: return RBLK_NBD_EINVAL;
	case ENOSPC: return RBLK_NBD_ENOSPC;
	case EOVERFLOW: return RBLK_NBD_EOVERFLOW;
	case ENOTSUP: return RBLK_NBD_ENOTSUP;
	case ESHUTDOWN: return RBLK_NBD_ESHUTDOWN;
	default: return RBLK_NBD_EIO;
	}
}

const char *rblk_nbd_cmd_str(uint16_t type)
{
	static const char *const n[] = {
		"READ", "WRITE", "DISC", "FLUSH", "TRIM", "CACHE", "WRITE_ZEROES", "BLOCK_STATUS", "RESIZE",
	};

	return type < sizeof(n) / sizeof(n[0]) ? n[type] : "?";
}
