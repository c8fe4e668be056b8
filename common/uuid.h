/* SPDX-License-Identifier: MIT */
/*
 * UUID text and random UUIDs, shared by the target daemon (namespace uuid /
 * nguid options), the initiator (host ID), the CLI (--hostid) and NQN
 * validation (the nqn.2014-08.org.nvmexpress:uuid: form). The stable
 * per-namespace UUID/NGUID of the target are generated in target/ns.c
 * (rblk_gen_uuid, rblk_gen_nguid).
 */
#ifndef RBLK_COMMON_UUID_H
#define RBLK_COMMON_UUID_H

#include <stdbool.h>
#include <stdint.h>

#define RBLK_UUID_STRLEN 37	/* 36 characters and the NUL */

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (or 32 bare hex digits), any case. 0 or -EINVAL. */
int rblk_uuid_parse(const char *s, uint8_t uuid[16]);
/* Exactly the 36-character 8-4-4-4-12 form, any case (what NQNs and --hostid take). */
bool rblk_uuid_valid(const char *s);
/* Lower-case 8-4-4-4-12 form into @buf (>= RBLK_UUID_STRLEN bytes). Returns @buf. */
char *rblk_uuid_format(const uint8_t uuid[16], char *buf);
/* A random (version 4) UUID from getrandom(). 0 or -errno. */
int rblk_uuid_random(uint8_t uuid[16]);

#endif
