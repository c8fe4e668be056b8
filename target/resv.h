/* SPDX-License-Identifier: MIT */
/*
 * Reservations, inside the target core: a namespace's reservation state and
 * the rules that change it (resv.c, pure: no I/O, no locks), the commands
 * and the I/O check (resv_cmd.c), the notification log of a controller
 * (resv_log.c) and where the state is kept (resv_store.c: memory, a file in
 * the state directory when PTPL is on, or the provider's own store).
 */
#ifndef RBLK_TARGET_RESV_H
#define RBLK_TARGET_RESV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "protocol/nvme_resv.h"

/*
 * Registrants per namespace: fixed, so that a state is a plain value to
 * copy, change and write out whole. A host past the limit is refused with
 * Namespace Insufficient Capacity (no status fits better).
 */
#define RBLK_RESV_MAX_REGS 64u

struct rblk_resv_reg {
	uint8_t hostid[16];
	uint64_t rkey;
};

/* One namespace's reservation: what the host sees and what persists. */
struct rblk_resv_state {
	uint32_t gen;                   /* Report's generation */
	uint8_t rtype;                  /* enum nvme_resv_type; NONE: no reservation */
	uint8_t holder[16];             /* the holder's host ID (not for the All Registrants types) */
	bool ptpl;                      /* persist through power loss */
	unsigned nr;
	struct rblk_resv_reg regs[RBLK_RESV_MAX_REGS];
};

/* What a change tells hosts: notices, and hosts whose commands are cut. */
struct rblk_resv_notice {
	uint8_t hostid[16];
	uint8_t type;                   /* NVME_RESV_LOG_* */
};
struct rblk_resv_events {
	unsigned nr;
	struct rblk_resv_notice n[2 * RBLK_RESV_MAX_REGS];
};

/* The access a command asks for, from the command table of the specification. */
enum rblk_resv_access {
	RBLK_RESV_ACC_NONE = 0,         /* not restricted (Reservation commands, unknown) */
	RBLK_RESV_ACC_READ,             /* Read, Compare, Verify */
	RBLK_RESV_ACC_WRITE,            /* Write, Write Zeroes, DSM, Copy, Flush */
};

/* A controller's notice (resv_log.c). */
#define RBLK_RESV_LOG_ENTRIES 64u
struct rblk_resv_log_entry {
	uint64_t count;                 /* the Log Page Count it was given */
	uint8_t type;
	uint32_t nsid;
};

/*
 * ns->resv_type while the provider's state could not be (re)loaded and the
 * last state known had registrants or a holder: not an NVMe type, so the
 * I/O path's one load still sends every command to the slow check, which
 * refuses what the reservation would judge (resv_cmd.c).
 */
#define RBLK_RESV_TYPE_STALE 0x100u

/*
 * A namespace's reservation, as the core keeps it (resv_cmd.c). op_lock
 * serialises changes, including their write-out; lock guards st for the
 * short copies in and out, so that the I/O path never waits on a write.
 *
 * stale: a load of the provider's store failed after another gateway
 * changed it (or a write-out's outcome is unknown): st is only the last
 * state known, so reservation commands and the I/O it would judge fail
 * until a load succeeds. One reload thread at a time retries it.
 */
struct rblk_tgt_resv {
	pthread_mutex_t op_lock;
	pthread_mutex_t lock;
	struct rblk_resv_state st;
	bool stale;                     /* under lock */
	bool reload_running;            /* under lock: the reload thread exists */
	bool reload_again;              /* under lock: a change was announced since it loaded */
	bool closing;                   /* under lock: no reload may start (provider closing) */
	_Atomic unsigned mask;          /* feature 82h: NVME_RESV_MASK_* */
	bool ptpl_capable;              /* a state-dir file or the provider's store */
	bool provider_store;            /* the provider keeps the state (resv_load/store) */
	char *file;                     /* the PTPL file, or NULL */
	struct rblk_tgt_ns *ns;
};

/* resv.c: the rules (keys host-endian). Each returns 0 or an NVMe status; s changes only on 0. */
uint16_t rblk_resv_register(struct rblk_resv_state *s, const uint8_t hostid[16], uint32_t cdw10,
			    const struct nvme_resv_keys *k, struct rblk_resv_events *ev);
uint16_t rblk_resv_acquire(struct rblk_resv_state *s, const uint8_t hostid[16], uint32_t cdw10,
			   const struct nvme_resv_keys *k, struct rblk_resv_events *ev);
uint16_t rblk_resv_release(struct rblk_resv_state *s, const uint8_t hostid[16], uint32_t cdw10,
			   uint64_t crkey, struct rblk_resv_events *ev);
/* May host (a registrant or not) do acc under s? */
bool rblk_resv_allows(const struct rblk_resv_state *s, const uint8_t hostid[16],
		      enum rblk_resv_access acc);
enum rblk_resv_access rblk_resv_access_of(uint8_t opc);
/* The registrant of hostid, or NULL. */
const struct rblk_resv_reg *rblk_resv_find(const struct rblk_resv_state *s,
					   const uint8_t hostid[16]);
/* Does host hold the reservation (every registrant, for the All Registrants types)? */
bool rblk_resv_is_holder(const struct rblk_resv_state *s, const uint8_t hostid[16]);
/*
 * Report: the status and registrants of s into buf (len bytes, zeroed
 * first), extended (EDS) or not. Returns 0 or a status.
 */
uint16_t rblk_resv_report(const struct rblk_resv_state *s, bool eds, void *buf, size_t len);

/*
 * resv_store.c: where the state is kept. load: 0 (st filled), -ENOENT
 * (nothing stored: empty state) or -errno. save: durable when it returns 0.
 * Both block: never on a poll group's thread.
 */
int rblk_resv_store_load(struct rblk_tgt_resv *r, struct rblk_resv_state *st);
int rblk_resv_store_save(struct rblk_tgt_resv *r, const struct rblk_resv_state *st);
/* The PTPL file of a namespace: state_dir/resv-<NGUID hex> (malloc'd), NULL on ENOMEM. */
char *rblk_resv_file_path(const char *state_dir, const uint8_t nguid[16]);

/* resv_store.c: the state as a blob (the PTPL file, a provider's object). */
#define RBLK_RESV_BLOB_MAX (64u + RBLK_RESV_MAX_REGS * 24u)
/* Bytes written to buf (at least RBLK_RESV_BLOB_MAX). */
size_t rblk_resv_encode(const struct rblk_resv_state *s, void *buf);
/* 0, or -EINVAL for a blob that is not a whole, valid state. */
int rblk_resv_decode(const void *buf, size_t len, struct rblk_resv_state *s);

#endif
