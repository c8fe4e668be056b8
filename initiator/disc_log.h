/* SPDX-License-Identifier: MIT */
/*
 * Reading the discovery log (LID 70h) consistently, as libnvme 1.3 does
 * (docs/interop.md §14.2): read the 1024-byte header; if NUMREC is not zero,
 * read header + NUMREC entries from offset 0 in 4 KiB chunks (RAE on every
 * chunk but the last); start over while GENCTR changed between the two
 * reads (up to a retry limit); a NUMREC that changed under an unchanged
 * GENCTR is an error. The transport is a callback, so unit tests replay a
 * log that changes between reads.
 */
#ifndef RBLK_INITIATOR_DISC_LOG_H
#define RBLK_INITIATOR_DISC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

#define RBLK_DISC_CHUNK 4096
#define RBLK_DISC_RETRIES 10
#define RBLK_DISC_MAX_RECORDS 4096	/* 4 MiB of log: far beyond any real port */

/*
 * Reads @len bytes (<= RBLK_DISC_CHUNK, a multiple of 4) of the discovery
 * log at byte offset @lpo. Returns 0, -EREMOTEIO with *status set when the
 * controller failed the command, or another -errno.
 */
typedef int (*rblk_disc_read_fn)(void *ctx, uint64_t lpo, void *buf, uint32_t len, bool rae,
				 uint16_t *status);

/*
 * The whole log: *log (malloc'ed, free()) of *len bytes, header first.
 * -EAGAIN when GENCTR still changed after @max_retries attempts, -EBADMSG
 * when NUMREC changed under the same GENCTR or the log is larger than
 * RBLK_DISC_MAX_RECORDS, -ENOMEM, or what @read returned.
 */
int rblk_disc_log_fetch(rblk_disc_read_fn read, void *ctx, unsigned max_retries, void **log,
			size_t *len, uint16_t *status);

/*
 * Parses a fetched log into public entries (*entries malloc'ed, possibly
 * NULL when *n is 0), leaving out subtype 3 (the discovery subsystem's own
 * entries) unless @all. -EINVAL for a malformed log, -ENOMEM.
 */
int rblk_disc_log_entries(const void *log, size_t len, bool all, struct rblk_disc_entry **entries,
			  unsigned *n, uint64_t *genctr);

#endif
