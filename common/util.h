/* SPDX-License-Identifier: MIT */
/* Small helpers every component uses. */
#ifndef RBLK_COMMON_UTIL_H
#define RBLK_COMMON_UTIL_H

#include <stddef.h>

/* The object that embeds member, from a pointer to that member. */
#define rblk_container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#endif
