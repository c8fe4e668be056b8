/* SPDX-License-Identifier: MIT */
/*
 * The host's side of DH-HMAC-CHAP, played by the target's unit tests over
 * the test transport: it builds the messages a Linux host sends and computes
 * its responses with the auth/ library, so the controller is checked
 * against the real crypto, not against itself.
 */
#ifndef RBLK_TEST_AUTH_HOST_H
#define RBLK_TEST_AUTH_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"
#include "test_transport.h"

#define AH_BUF 4096 /* the Linux host's buffer for every message */

struct ah_host {
	const char *hostnqn, *subnqn;
	struct rblk_auth_secret key;       /* the host's secret */
	bool bidirectional;                /* ask for the controller's response */
	struct rblk_auth_secret ctrl_key;  /* what the controller's response must use */
	uint8_t hashes[30], groups[30];    /* offered, in order */
	uint8_t nr_hashes, nr_groups;
	uint16_t t_id;
	/* From the Challenge. */
	uint8_t hashid, hl, dhgid;
	uint16_t dhvlen;
	uint32_t s1;
	uint8_t c1[64];
	uint8_t ctrl_pub[RBLK_AUTH_MAX_DH_LEN];
	/* The host's own. */
	uint32_t s2;
	uint8_t c2[64];
	uint8_t secret[RBLK_AUTH_MAX_DH_LEN]; /* the DH shared secret */
	uint8_t ctrl_resp[64];                /* the controller's response we expect */
};

/*
 * A host offering what the Linux host offers (SHA-256/384/512; NULL and
 * FFDHE 2048..8192). @ctrl_key NULL: unidirectional.
 */
void ah_init(struct ah_host *h, const char *hostnqn, const char *subnqn, const char *key,
	     const char *ctrl_key);
/* A DHHC-1 string of @keylen bytes of @fill, tagged with @transform. */
void ah_key(char *buf, size_t len, enum rblk_auth_hash transform, size_t keylen, uint8_t fill);

/* Authentication Send of @len bytes / Receive of AL @al into @buf (AH_BUF): the NVMe status. */
uint16_t ah_send(struct tt_queue *q, const void *msg, size_t len);
uint16_t ah_recv(struct tt_queue *q, uint32_t al, uint8_t *buf);
/* An Authentication Send/Receive SQE with the right SECP/SPSP and TL/AL @len. */
void ah_sqe(struct nvme_sqe *sqe, bool send, uint32_t len);

/* The messages, into @msg; each returns its length. */
size_t ah_negotiate(struct ah_host *h, uint8_t *msg);
/* Takes the controller's Challenge in: 0, or -1 when it is not one this host can answer. */
int ah_challenge(struct ah_host *h, const uint8_t *msg);
size_t ah_reply(struct ah_host *h, uint8_t *msg);
/* Checks Success1 (HL, RVALID, the controller's response): 0 or -1. */
int ah_success1(struct ah_host *h, const uint8_t *msg);
size_t ah_success2(struct ah_host *h, uint8_t *msg);

/*
 * A whole transaction on @q. 0 when the queue authenticated; the
 * Failure1's reason explanation when the controller refused; -1 on anything
 * else (an NVMe error, a message the host did not expect).
 */
int ah_authenticate(struct ah_host *h, struct tt_queue *q);

#endif
