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

struct rblk_req;
struct rblk_sq;
struct rblk_host_auth;

/* Largest Authentication Send the target takes (a Reply is 16 + 2 x 64 + 1024). */
#define RBLK_TGT_AUTH_SEND_MAX 4096u

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

/* ------------------------------------------------------------------------ */
/* The protocol (auth.c).                                                    */

/*
 * Where a queue's transaction stands. Each state names what the controller
 * waits for; the transitions are auth.c's enter() and nowhere else.
 */
enum rblk_tgt_auth_state {
	RBLK_TGT_AUTH_NEGOTIATE = 0, /* waits for AUTH_Negotiate (from Connect on) */
	RBLK_TGT_AUTH_CHALLENGE,     /* Challenge ready: waits for the Receive that reads it */
	RBLK_TGT_AUTH_REPLY,         /* Challenge read: waits for the host's Reply */
	RBLK_TGT_AUTH_SUCCESS1,      /* host verified: waits for the Receive of Success1 */
	RBLK_TGT_AUTH_SUCCESS2,      /* bidirectional: waits for the host's Success2 */
	RBLK_TGT_AUTH_DONE,          /* authenticated; a Negotiate starts re-authentication */
	RBLK_TGT_AUTH_FAILURE1,      /* refused: waits for the Receive of Failure1 */
	RBLK_TGT_AUTH_FAILED,        /* over: the controller fails (at deadline_ms, see auth.c) */
};

const char *rblk_tgt_auth_state_str(enum rblk_tgt_auth_state s);

/*
 * A queue's authentication, embedded in struct rblk_sq, touched only on the
 * sq's thread. All zero (rblk_sq_init) is "NEGOTIATE, not authenticated".
 */
struct rblk_tgt_auth_q {
	enum rblk_tgt_auth_state state;
	/*
	 * Whether commands other than authentication may run. Not the state:
	 * a re-authentication runs on a queue that stays usable meanwhile
	 * (nvmet keeps sq->authenticated too), and any failure clears it.
	 */
	bool authenticated;
	uint8_t reason;                   /* FAILURE1/FAILED: the reason explanation */
	uint16_t t_id;                    /* the transaction's id, echoed in every message */
	enum rblk_auth_hash hash;         /* chosen at Negotiate */
	enum rblk_auth_dhgroup dhgroup;
	uint8_t hl;                       /* the hash's length */
	bool bidirectional;               /* the host asked for our response */
	uint32_t s1;                      /* our sequence number */
	uint64_t deadline_ms;             /* an unfinished transaction fails then; FAILED: the
					   * controller is failed then */
	uint8_t c1[RBLK_AUTH_MAX_HASH_LEN];   /* our challenge */
	uint8_t resp[RBLK_AUTH_MAX_HASH_LEN]; /* our response to the host's challenge */
	struct rblk_auth_dh *dh;          /* our ephemeral key pair (DH groups) */
};

/*
 * The queue joined a controller (Connect; the caller holds ctrl->lock):
 * a fresh transaction with the target's connect_timeout_ms to finish it.
 */
void rblk_tgt_auth_sq_start(struct rblk_sq *sq, uint64_t now_ms);
/* Frees what a transaction holds, wiped (rblk_sq_destroy). */
void rblk_tgt_auth_sq_release(struct rblk_sq *sq);
/* Whether sq may run commands other than authentication (Connect done). */
bool rblk_tgt_auth_sq_open(const struct rblk_sq *sq);
/* Authentication Send / Receive execute handlers (fabrics.c parses them). */
void rblk_tgt_auth_send(struct rblk_req *req);
void rblk_tgt_auth_receive(struct rblk_req *req);
/*
 * Periodic (rblk_sq_tick): a transaction past its deadline fails the
 * controller, and so does a failed one past its grace (auth.c).
 */
void rblk_tgt_auth_tick(struct rblk_sq *sq, uint64_t now_ms);
/* When rblk_tgt_auth_tick() next has to look at sq: UINT64_MAX when no transaction runs. */
uint64_t rblk_tgt_auth_next_ms(const struct rblk_sq *sq);

#endif
