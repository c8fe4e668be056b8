/* SPDX-License-Identifier: MIT */
/*
 * Small helpers every part of rblk uses, defined once.
 *
 * rblk_container_of(): a completion or a mailbox message finds the object it
 * is embedded in, with no lookup table. The (void *) step keeps -Wcast-align quiet on
 * the char * arithmetic: the member's address came from that object, so the
 * result is aligned.
 */
#ifndef RBLK_COMMON_UTIL_H
#define RBLK_COMMON_UTIL_H

#include <stddef.h>

#define rblk_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif
