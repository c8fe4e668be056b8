/* SPDX-License-Identifier: MIT */
/*
 * Internal logging front end. Library code logs with RBLK_ERR()/RBLK_WARN()/...;
 * the level check happens before any formatting so debug logs on the I/O path
 * cost one load and a compare when disabled.
 */
#ifndef RBLK_INTERNAL_LOG_H
#define RBLK_INTERNAL_LOG_H

#include <rblk/common.h>

/*
 * The log state lives once per process, in librblk-common, whichever rblk
 * libraries a program loads: one handler and one level for all of them.
 * These three are exported from it in the RBLK_COMMON_PRIVATE version node
 * (for rblk's own libraries, not an API).
 */
extern enum rblk_log_level rblk_log_level_cur RBLK_EXPORT;

void rblk_log(enum rblk_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) RBLK_EXPORT;
void rblk_vlog(enum rblk_log_level level, const char *fmt, va_list ap) RBLK_EXPORT;

#define RBLK_LOG_ON(lvl) ((lvl) <= rblk_log_level_cur)
#define RBLK_LOG_AT(lvl, ...)                                                  \
	do {                                                                   \
		if (RBLK_LOG_ON(lvl))                                          \
			rblk_log((lvl), __VA_ARGS__);                          \
	} while (0)
#define RBLK_ERR(...) RBLK_LOG_AT(RBLK_LOG_ERR, __VA_ARGS__)
#define RBLK_WARN(...) RBLK_LOG_AT(RBLK_LOG_WARN, __VA_ARGS__)
#define RBLK_NOTICE(...) RBLK_LOG_AT(RBLK_LOG_NOTICE, __VA_ARGS__)
#define RBLK_INFO(...) RBLK_LOG_AT(RBLK_LOG_INFO, __VA_ARGS__)
#define RBLK_DEBUG(...) RBLK_LOG_AT(RBLK_LOG_DEBUG, __VA_ARGS__)

#endif
