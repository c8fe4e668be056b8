/* SPDX-License-Identifier: MIT */
/*
 * The log hook: one process-wide handler and level. Formatting happens into a
 * stack buffer so a handler never sees a partially written message and the
 * default handler writes each message with a single write(2).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

enum rblk_log_level rblk_log_level_cur = RBLK_LOG_NOTICE;

static void log_stderr(enum rblk_log_level level, const char *msg, void *arg)
{
	char line[1100];
	int n;

	(void)arg;
	n = snprintf(line, sizeof(line), "rblk %s: %s\n", rblk_log_level_str(level), msg);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (write(STDERR_FILENO, line, n) < 0) {
		/* Nowhere left to report it. */
	}
}

static rblk_log_fn log_fn = log_stderr;
static void *log_arg;

const char *rblk_version(void)
{
	return "0.1.0";
}

void rblk_log_set_handler(rblk_log_fn fn, void *arg)
{
	log_fn = fn ? fn : log_stderr;
	log_arg = fn ? arg : NULL;
}

void rblk_log_set_level(enum rblk_log_level level)
{
	if (level < RBLK_LOG_ERR)
		level = RBLK_LOG_ERR;
	if (level > RBLK_LOG_DEBUG)
		level = RBLK_LOG_DEBUG;
	rblk_log_level_cur = level;
}

enum rblk_log_level rblk_log_get_level(void)
{
	return rblk_log_level_cur;
}

static const char *const level_names[] = {
	[RBLK_LOG_ERR] = "err",       [RBLK_LOG_WARN] = "warn", [RBLK_LOG_NOTICE] = "notice",
	[RBLK_LOG_INFO] = "info",     [RBLK_LOG_DEBUG] = "debug",
};

const char *rblk_log_level_str(enum rblk_log_level level)
{
	if (level < RBLK_LOG_ERR || level > RBLK_LOG_DEBUG)
		return "?";
	return level_names[level];
}

int rblk_log_level_parse(const char *s, enum rblk_log_level *out)
{
	for (int l = RBLK_LOG_ERR; l <= RBLK_LOG_DEBUG; l++) {
		if (strcmp(s, level_names[l]) == 0) {
			*out = l;
			return 0;
		}
	}
	if (s[0] >= '3' && s[0] <= '7' && s[1] == '\0') {
		*out = s[0] - '0';
		return 0;
	}
	return -EINVAL;
}

void rblk_vlog(enum rblk_log_level level, const char *fmt, va_list ap)
{
	char msg[1024];
	int saved = errno;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	log_fn(level, msg, log_arg);
	errno = saved;
}

void rblk_log(enum rblk_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rblk_vlog(level, fmt, ap);
	va_end(ap);
}
