/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/trid: the fio filename as an SPDK-style transport ID
 * ("trtype=RDMA adrfam=IPv4 traddr=10.0.0.1 trsvcid=4420 subnqn=nqn... ns=1",
 * read by the library's rblk_trid_parse), merged with the engine options
 * into what one fio file connects to. Pure string handling: no fio, no
 * RDMA, so the unit test runs anywhere.
 */
#ifndef RBLK_FIO_TRID_H
#define RBLK_FIO_TRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

#include "initiator/trid.h"

/*
 * rblk_trid_parse() with @out's size set, and a hint about fio's filename
 * splitting when a token is not KEY=VALUE (fio cuts filename= at every
 * ':', so an NQN like nqn.2014-08.org.nvmexpress:uuid:... arrives in
 * pieces). 0 or -EINVAL with @why.
 */
int rblk_fio_trid_parse(const char *s, struct rblk_trid *out, char *why, size_t whylen);

/*
 * Fills the fields @t does not set from @defaults (the engine options; empty
 * strings and nsid 0 mean "not given"), then the built-in defaults (trsvcid
 * 4420, ns 1), and checks the result: traddr and subnqn present, the paths
 * well-formed (rblk_fio_trid_paths), adrfam consistent with every traddr.
 * -EINVAL with @why on a missing or bad field.
 */
int rblk_fio_trid_complete(struct rblk_trid *t, const struct rblk_trid *defaults,
			   char *why, size_t whylen);

/*
 * The paths of a completed ID (rblk_trid_paths over its traddr and trsvcid
 * lists): up to RBLK_MPATH_MAX_PATHS. The count (1 for a plain ID), or
 * -EINVAL with @why.
 */
int rblk_fio_trid_paths(const struct rblk_trid *t, struct rblk_trid_path *paths, char *why,
			size_t whylen);

/* True when two completed IDs reach the same controller (everything but nsid). */
bool rblk_fio_trid_same_ctrl(const struct rblk_trid *a, const struct rblk_trid *b);

/* "traddr=... trsvcid=... subnqn=... ns=N" for messages. */
void rblk_fio_trid_str(const struct rblk_trid *t, char *buf, size_t len);

#endif
