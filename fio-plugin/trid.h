/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/trid: the fio filename as an SPDK-style transport ID
 * ("trtype=RDMA adrfam=IPv4 traddr=10.0.0.1 trsvcid=4420 subnqn=nqn... ns=1"),
 * merged with the engine options into what one fio file connects to.
 * Pure string handling: no fio, no RDMA, so the unit test runs anywhere.
 */
#ifndef RBLK_FIO_TRID_H
#define RBLK_FIO_TRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

#define RBLK_FIO_ADDR_MAX 256    /* traddr / host_traddr (host names allowed) */
#define RBLK_FIO_SVC_MAX 32
#define RBLK_FIO_HOSTID_MAX 64

/* Which fields a transport ID string set (the others come from the engine options). */
enum rblk_fio_trid_field {
	RBLK_FIO_TRID_TRADDR = 1u << 0,
	RBLK_FIO_TRID_TRSVCID = 1u << 1,
	RBLK_FIO_TRID_SUBNQN = 1u << 2,
	RBLK_FIO_TRID_HOSTNQN = 1u << 3,
	RBLK_FIO_TRID_HOSTID = 1u << 4,
	RBLK_FIO_TRID_HOST_TRADDR = 1u << 5,
	RBLK_FIO_TRID_NSID = 1u << 6,
	RBLK_FIO_TRID_ADRFAM = 1u << 7,
};

enum rblk_fio_adrfam {
	RBLK_FIO_ADRFAM_ANY = 0,
	RBLK_FIO_ADRFAM_IPV4,
	RBLK_FIO_ADRFAM_IPV6,
};

/* Paths of one file: traddr and trsvcid as comma-separated lists. */
#define RBLK_FIO_PATHS_MAX RBLK_MPATH_MAX_PATHS

struct rblk_fio_path {
	char traddr[RBLK_FIO_ADDR_MAX + 1];
	char trsvcid[RBLK_FIO_SVC_MAX + 1];
};

/*
 * Where one fio file goes: the connection (every field that makes two files
 * share a controller or not) and the namespace.
 */
struct rblk_fio_trid {
	unsigned set;                              /* enum rblk_fio_trid_field bits */
	enum rblk_fio_adrfam adrfam;
	char traddr[RBLK_FIO_ADDR_MAX + 1];
	char trsvcid[RBLK_FIO_SVC_MAX + 1];
	char subnqn[RBLK_NQN_MAX + 1];
	char hostnqn[RBLK_NQN_MAX + 1];
	char hostid[RBLK_FIO_HOSTID_MAX + 1];
	char host_traddr[RBLK_FIO_ADDR_MAX + 1];
	uint32_t nsid;
};

/*
 * Parses @s: tokens separated by blanks, each KEY=VALUE or KEY:VALUE (the first
 * '=' or ':' ends the key, so values may hold ':' — IPv6 addresses, NQNs).
 * Keys (case-insensitive): trtype (RDMA only), adrfam (IPv4, IPv6), traddr,
 * trsvcid (both may be comma-separated lists: one entry per path), subnqn, ns, hostnqn, hostid, hostaddr / host_traddr. Unknown keys,
 * repeated keys, empty values and values too long fail with -EINVAL and a
 * sentence in @why saying what is wrong.
 */
int rblk_fio_trid_parse(const char *s, struct rblk_fio_trid *out, char *why, size_t whylen);

/*
 * Fills the fields @t does not set from @defaults (the engine options; empty
 * strings and nsid 0 mean "not given"), then the built-in defaults (trsvcid
 * 4420, ns 1), and checks the result: traddr and subnqn present, adrfam
 * consistent with traddr. -EINVAL with @why on a missing or bad field.
 */
int rblk_fio_trid_complete(struct rblk_fio_trid *t, const struct rblk_fio_trid *defaults,
			   char *why, size_t whylen);

/*
 * The paths of a completed ID: traddr "A,B,..." and trsvcid "P" (for every
 * path) or "P1,P2,..." (one per address) give one path per address, up to
 * RBLK_FIO_PATHS_MAX. Returns the count (1 for a plain ID), or -EINVAL with
 * @why (counts that differ, an empty entry, a bad port, too many paths).
 */
int rblk_fio_trid_paths(const struct rblk_fio_trid *t, struct rblk_fio_path *paths, char *why,
			size_t whylen);

/* True when two completed IDs reach the same controller (everything but nsid). */
bool rblk_fio_trid_same_ctrl(const struct rblk_fio_trid *a, const struct rblk_fio_trid *b);

/* "traddr=... trsvcid=... subnqn=... ns=N" for messages. */
void rblk_fio_trid_str(const struct rblk_fio_trid *t, char *buf, size_t len);

#endif
