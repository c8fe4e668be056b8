/* SPDX-License-Identifier: MIT */
/*
 * Small helpers every part of rblk uses, defined once.
 *
 * rblk_container_of(): a completion or a mailbox message finds the object it
 * is embedded in, with no lookup table. The (void *) step keeps -Wcast-align quiet on
 * the char * arithmetic: the member's address came from that object, so the
 * result is aligned.
 *
 * rblk_calloc_lines(): zeroed memory for state that one poll group's thread
 * writes on the I/O path, in whole cache lines of its own. calloc() packs
 * objects made one after another by the set-up thread (two groups' queues,
 * their QPs and CQs) next to each other, so the tail of one shares a line
 * with the head of the next, and two groups writing their own state stall
 * each other: the target's per-I/O cost rose by half with two groups until
 * these objects stopped sharing lines. Freed with free().
 */
#ifndef RBLK_COMMON_UTIL_H
#define RBLK_COMMON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define rblk_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#define RBLK_CACHE_LINE 64

static inline void *rblk_calloc_lines(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	if (bytes > SIZE_MAX - RBLK_CACHE_LINE)
		return NULL;
	bytes = (bytes + RBLK_CACHE_LINE - 1) & ~(size_t)(RBLK_CACHE_LINE - 1);
	if (!bytes)
		bytes = RBLK_CACHE_LINE;
	if (posix_memalign(&p, RBLK_CACHE_LINE, bytes))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

#endif
