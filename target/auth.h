/* SPDX-License-Identifier: MIT */
/*
 * In-band authentication on the target (DH-HMAC-CHAP, the controller's side;
 * core internal, included by target/core.h).
 *
 * Two halves:
 *  - auth_keys.c: what is configured. rblk_subsystem_set_host_auth() parses
 *    a host's secrets once (a bad key fails there, not at connect time) into
 *    a struct rblk_tgt_auth_cfg kept with the allowed host; an admin Connect
 *    of that host snapshots it into the controller as struct
 *    rblk_tgt_auth_keys, the keys already transformed for the host and
 *    subsystem NQNs. The snapshot never changes: a new or removed key fails
 *    the host's controllers instead (subsys.c), so no queue ever runs on a
 *    key the administrator took back.
 *  - auth.c: the protocol. Each queue of a controller with keys runs its own
 *    transaction (the Linux host authenticates every queue) and, until one
 *    succeeds, the queue accepts nothing but Authentication Send/Receive:
 *    every other command fails with Authentication Required.
 *
 * Nothing here logs a secret, a key, a challenge or a response: only NQNs,
 * queue ids, hash/group names and reason names.
 */
#ifndef RBLK_TARGET_AUTH_H
#define RBLK_TARGET_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"

struct rblk_host_auth;

/* ------------------------------------------------------------------------ */
/* Configuration (auth_keys.c).                                              */

/* One host's DH-HMAC-CHAP configuration on one subsystem, parsed. */
struct rblk_tgt_auth_cfg {
	enum rblk_auth_hash hash;          /* preferred (nvmet: hosts/<nqn>/dhchap_hash) */
	enum rblk_auth_dhgroup dhgroup;    /* required */
	struct rblk_auth_secret key;       /* the host's secret */
	bool has_ctrl_key;
	struct rblk_auth_secret ctrl_key;  /* the controller's, for bidirectional */
};

/*
 * The public struct into *out (allocated), or *out NULL when it asks for no
 * authentication (NULL @a, or an empty key). -EINVAL, logged with the
 * subsystem and host NQN and which field is wrong, never the secret.
 */
int rblk_tgt_auth_cfg_parse(const struct rblk_host_auth *a, const char *subnqn,
			    const char *hostnqn, struct rblk_tgt_auth_cfg **out);
/* Wipes and frees (NULL allowed). */
void rblk_tgt_auth_cfg_free(struct rblk_tgt_auth_cfg *cfg);
/* Same hash, group and secrets (both may be NULL). */
bool rblk_tgt_auth_cfg_equal(const struct rblk_tgt_auth_cfg *a, const struct rblk_tgt_auth_cfg *b);

/* What a controller authenticates with; read-only for its whole life. */
struct rblk_tgt_auth_keys {
	enum rblk_auth_hash hash;
	enum rblk_auth_dhgroup dhgroup;
	uint8_t host_key[RBLK_AUTH_MAX_KEY_LEN];  /* transformed with the host NQN */
	size_t host_key_len;
	uint8_t ctrl_key[RBLK_AUTH_MAX_KEY_LEN];  /* transformed with the subsystem NQN */
	size_t ctrl_key_len;                      /* 0: no controller key */
};

/* The snapshot of @cfg for a controller of @hostnqn on @subnqn. 0 or -errno. */
int rblk_tgt_auth_keys_create(const struct rblk_tgt_auth_cfg *cfg, const char *hostnqn,
			      const char *subnqn, struct rblk_tgt_auth_keys **out);
void rblk_tgt_auth_keys_free(struct rblk_tgt_auth_keys *keys);

#endif
