/* SPDX-License-Identifier: MIT */
/*
 * Little-endian access for wire structures. Every multi-byte field in the
 * NVMe / NVMe-oF / NVMe-RDMA structs is stored raw (little-endian on the
 * wire); code reads and writes it through these helpers.
 *
 *   rblk_le16(x) / rblk_cpu_to_le16(x)  for naturally aligned struct fields
 *   rblk_get_le16(p) / rblk_put_le16(p) byte-wise, for unaligned or odd-sized
 *                                       fields (the keyed SGL: 24-bit length,
 *                                       32-bit key at offset 11)
 */
#ifndef RBLK_PROTOCOL_LE_H
#define RBLK_PROTOCOL_LE_H

#include <endian.h>
#include <stdint.h>

static inline uint16_t rblk_le16(uint16_t v) { return le16toh(v); }
static inline uint32_t rblk_le32(uint32_t v) { return le32toh(v); }
static inline uint64_t rblk_le64(uint64_t v) { return le64toh(v); }
static inline uint16_t rblk_cpu_to_le16(uint16_t v) { return htole16(v); }
static inline uint32_t rblk_cpu_to_le32(uint32_t v) { return htole32(v); }
static inline uint64_t rblk_cpu_to_le64(uint64_t v) { return htole64(v); }

static inline uint16_t rblk_get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t rblk_get_le24(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16);
}

static inline uint32_t rblk_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
	       ((uint32_t)b[3] << 24);
}

static inline uint64_t rblk_get_le64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)rblk_get_le32(b) | ((uint64_t)rblk_get_le32(b + 4) << 32);
}

static inline void rblk_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

/* Stores the low 24 bits of v. */
static inline void rblk_put_le24(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
}

static inline void rblk_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void rblk_put_le64(void *p, uint64_t v)
{
	uint8_t *b = p;

	rblk_put_le32(b, (uint32_t)v);
	rblk_put_le32(b + 4, (uint32_t)(v >> 32));
}

#endif
