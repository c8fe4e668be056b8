/* SPDX-License-Identifier: MIT */
/*
 * The NBD transmission phase (github.com/NetworkBlockDevice/nbd, doc/proto.md):
 * request and simple-reply wire formats, command and flag values, and the
 * checks a server makes before any backend sees a request. Pure functions, no
 * I/O. When the kernel is configured over netlink there is no handshake: the
 * socket starts in the transmission phase with the flags we gave the kernel.
 *
 * Request (28 bytes, big-endian): magic 0x25609513, flags u16, type u16,
 * cookie (handle) 8 bytes, offset u64, length u32; a WRITE is followed by
 * length bytes. Simple reply (16 bytes): magic 0x67446698, error u32, the
 * request's cookie; a successful READ is followed by length bytes.
 */
#ifndef RBLK_NBD_PROTO_H
#define RBLK_NBD_PROTO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define RBLK_NBD_REQUEST_MAGIC 0x25609513u
#define RBLK_NBD_REPLY_MAGIC 0x67446698u
#define RBLK_NBD_REQ_SIZE 28
#define RBLK_NBD_REPLY_SIZE 16
/* Longest request data we accept; the kernel sends at most max_hw_sectors (32 MiB). */
#define RBLK_NBD_MAX_LEN (32u << 20)

enum rblk_nbd_cmd {
	RBLK_NBD_CMD_READ = 0,
	RBLK_NBD_CMD_WRITE = 1,
	RBLK_NBD_CMD_DISC = 2,
	RBLK_NBD_CMD_FLUSH = 3,
	RBLK_NBD_CMD_TRIM = 4,
	RBLK_NBD_CMD_CACHE = 5,
	RBLK_NBD_CMD_WRITE_ZEROES = 6,
	RBLK_NBD_CMD_BLOCK_STATUS = 7,
	RBLK_NBD_CMD_RESIZE = 8,
};

/* Command flags (the request's u16 flags). */
#define RBLK_NBD_CMD_FLAG_FUA (1u << 0)
#define RBLK_NBD_CMD_FLAG_NO_HOLE (1u << 1)
#define RBLK_NBD_CMD_FLAG_DF (1u << 2)
#define RBLK_NBD_CMD_FLAG_REQ_ONE (1u << 3)
#define RBLK_NBD_CMD_FLAG_FAST_ZERO (1u << 4)

/* Transmission flags (NBD_ATTR_SERVER_FLAGS). */
#define RBLK_NBD_FLAG_HAS_FLAGS (1u << 0)
#define RBLK_NBD_FLAG_READ_ONLY (1u << 1)
#define RBLK_NBD_FLAG_SEND_FLUSH (1u << 2)
#define RBLK_NBD_FLAG_SEND_FUA (1u << 3)
#define RBLK_NBD_FLAG_ROTATIONAL (1u << 4)
#define RBLK_NBD_FLAG_SEND_TRIM (1u << 5)
#define RBLK_NBD_FLAG_SEND_WRITE_ZEROES (1u << 6)
#define RBLK_NBD_FLAG_SEND_DF (1u << 7)
#define RBLK_NBD_FLAG_CAN_MULTI_CONN (1u << 8)
#define RBLK_NBD_FLAG_SEND_CACHE (1u << 10)
#define RBLK_NBD_FLAG_SEND_FAST_ZERO (1u << 11)

/* Error values on the wire (the protocol fixes them; they match Linux errno). */
enum {
	RBLK_NBD_OK = 0,
	RBLK_NBD_EPERM = 1,
	RBLK_NBD_EIO = 5,
	RBLK_NBD_ENOMEM = 12,
	RBLK_NBD_EINVAL = 22,
	RBLK_NBD_ENOSPC = 28,
	RBLK_NBD_EOVERFLOW = 75,
	RBLK_NBD_ENOTSUP = 95,
	RBLK_NBD_ESHUTDOWN = 108,
};

struct rblk_nbd_request {
	uint16_t flags;
	uint16_t type;
	uint64_t cookie;	/* opaque: the 8 wire bytes as they came, echoed unchanged */
	uint64_t offset;
	uint32_t length;
};

/* What the server exports. */
struct rblk_nbd_export {
	uint64_t size;		/* bytes */
	uint32_t block_size;	/* requests must be multiples of it */
	uint16_t tflags;	/* transmission flags given to the client */
	/*
	 * When set, the size now, in bytes, read for every request instead of
	 * @size: an export whose namespace was resized while it is served.
	 */
	const _Atomic uint64_t *live_size;
};

/* 0, or -EPROTO when the magic is wrong (the stream cannot be trusted any more). */
int rblk_nbd_req_decode(const uint8_t b[RBLK_NBD_REQ_SIZE], struct rblk_nbd_request *r);
void rblk_nbd_req_encode(uint8_t b[RBLK_NBD_REQ_SIZE], const struct rblk_nbd_request *r);
void rblk_nbd_reply_encode(uint8_t b[RBLK_NBD_REPLY_SIZE], uint32_t error, uint64_t cookie);
/* 0, or -EPROTO on a wrong magic. */
int rblk_nbd_reply_decode(const uint8_t b[RBLK_NBD_REPLY_SIZE], uint32_t *error, uint64_t *cookie);

/* True when @r is followed by @r->length bytes of data (NBD_CMD_WRITE). */
static inline bool rblk_nbd_req_has_payload(const struct rblk_nbd_request *r)
{
	return r->type == RBLK_NBD_CMD_WRITE;
}

/*
 * Validates @r against the export: 0, or the NBD error to reply with:
 * EINVAL (unknown command or flag, unaligned, a read or trim past the end,
 * a command the flags did not offer), ENOSPC (a write past the end), EPERM
 * (a write to a read-only export), EOVERFLOW (longer than RBLK_NBD_MAX_LEN).
 */
uint32_t rblk_nbd_req_check(const struct rblk_nbd_export *e, const struct rblk_nbd_request *r);

/* Transmission flags for an export with these capabilities. */
uint16_t rblk_nbd_tflags(bool read_only, bool trim, bool write_zeroes, bool multi_conn);

/* An -errno as an NBD error (unknown ones become EIO). */
uint32_t rblk_nbd_error(int err);
/* "READ", "WRITE", ...; "?" for unknown. */
const char *rblk_nbd_cmd_str(uint16_t type);

#endif
