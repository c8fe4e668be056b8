/* SPDX-License-Identifier: MIT */
/* The TTY-only progress line (see cli/progress.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/progress.h"

double rblk_cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool rblk_cli_progress_wanted(bool no_progress)
{
	return !no_progress && isatty(STDERR_FILENO) && rblk_cli_errf == stderr;
}

void rblk_cli_progress_init(struct cli_progress *p, bool on, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->on = on;
	p->total = total;
	p->start = p->last = rblk_cli_now();
}

static void fmt_eta(char *buf, size_t len, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

void rblk_cli_progress_format(char *buf, size_t len, uint64_t done, uint64_t total, double elapsed)
{
	char d[32], t[32], eta[32];
	double rate = elapsed > 0 ? (double)done / elapsed : 0;

	rblk_cli_fmt_iec(done, d, sizeof(d));
	if (!total) {
		snprintf(buf, len, "  %s  %.1f MB/s", d, rate / 1e6);
		return;
	}
	rblk_cli_fmt_iec(total, t, sizeof(t));
	if (rate > 0 && done < total)
		fmt_eta(eta, sizeof(eta), (double)(total - done) / rate);
	else
		snprintf(eta, sizeof(eta), "%s", done >= total ? "0:00" : "-:--");
	snprintf(buf, len, "  %s / %s  %3u%%  %.1f MB/s  ETA %s", d, t,
		 (unsigned)(done >= total ? 100 : done * 100 / total), rate / 1e6, eta);
}

void rblk_cli_progress_update(struct cli_progress *p, uint64_t done, bool force)
{
	double now;
	char line[160];
	size_t n;

	if (!p->on)
		return;
	now = rblk_cli_now();
	if (!force && now - p->last < 0.25)
		return;
	p->last = now;
	rblk_cli_progress_format(line, sizeof(line), done, p->total, now - p->start);
	n = strlen(line);
	fprintf(stderr, "\r%s%*s", line, p->drawn > n ? (int)(p->drawn - n) : 0, "");
	fflush(stderr);
	p->drawn = n;
}

void rblk_cli_progress_end(struct cli_progress *p)
{
	if (!p->on || !p->drawn)
		return;
	fprintf(stderr, "\r%*s\r", (int)p->drawn, "");
	fflush(stderr);
	p->drawn = 0;
}
