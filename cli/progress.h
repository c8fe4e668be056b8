/* SPDX-License-Identifier: MIT */
/*
 * A one-line progress report on stderr (bytes, MB/s, ETA), redrawn in place
 * at most four times a second and only when stderr is a terminal, so logs and
 * pipelines never see it.
 */
#ifndef RBLK_CLI_PROGRESS_H
#define RBLK_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cli_progress {
	bool on;
	uint64_t total;		/* 0 = unknown */
	double start, last;
	size_t drawn;		/* characters on the line now */
};

/* Monotonic seconds. */
double rblk_cli_now(void);
/* True when stderr is a terminal and the user did not say --no-progress. */
bool rblk_cli_progress_wanted(bool no_progress);
void rblk_cli_progress_init(struct cli_progress *p, bool on, uint64_t total);
/* Redraws when due (or when @force). */
void rblk_cli_progress_update(struct cli_progress *p, uint64_t done, bool force);
/* Erases the line. */
void rblk_cli_progress_end(struct cli_progress *p);
/* "  12.00 MiB / 64.00 MiB  18%  45.6 MB/s  ETA 0:03" (no total: no % and ETA). */
void rblk_cli_progress_format(char *buf, size_t len, uint64_t done, uint64_t total, double elapsed);

#endif
