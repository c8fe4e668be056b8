/* SPDX-License-Identifier: MIT */
/*
 * rblk: things every embedder of the rblk libraries sees — the export macro,
 * the version, and the log hook. The libraries never print on their own: every
 * message goes through the hook, which defaults to stderr and can be replaced.
 */
#ifndef RBLK_COMMON_H
#define RBLK_COMMON_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBLK_EXPORT __attribute__((visibility("default")))

#define RBLK_VERSION_MAJOR 0
#define RBLK_VERSION_MINOR 1
#define RBLK_VERSION_PATCH 0

/* "0.1.0": the version of the library actually loaded. */
const char *rblk_version(void) RBLK_EXPORT;

/* syslog(3) numbering, so a handler can pass the level straight to syslog(). */
enum rblk_log_level {
	RBLK_LOG_ERR = 3,
	RBLK_LOG_WARN = 4,
	RBLK_LOG_NOTICE = 5,
	RBLK_LOG_INFO = 6,
	RBLK_LOG_DEBUG = 7,
};

/*
 * Receives one formatted message, without a trailing newline. Called from
 * whichever thread logged; must be thread-safe and must not call back into rblk.
 */
typedef void (*rblk_log_fn)(enum rblk_log_level level, const char *msg, void *arg);

/* Replace the handler; NULL restores the default (stderr). */
void rblk_log_set_handler(rblk_log_fn fn, void *arg) RBLK_EXPORT;
/* Messages above @level are dropped before formatting. Default: RBLK_LOG_NOTICE. */
void rblk_log_set_level(enum rblk_log_level level) RBLK_EXPORT;
enum rblk_log_level rblk_log_get_level(void) RBLK_EXPORT;
/* "err", "warn", "notice", "info", "debug". */
const char *rblk_log_level_str(enum rblk_log_level level) RBLK_EXPORT;
/* Parses the names above (and syslog digits); 0 or -EINVAL. */
int rblk_log_level_parse(const char *s, enum rblk_log_level *out) RBLK_EXPORT;

/*
 * Asymmetric Namespace Access states in the NVMe encoding (ANA log page,
 * Asymmetric Namespace Access State): the target sets them per port and
 * group, the initiator's multipath head reads them.
 */
enum rblk_ana_state {
	RBLK_ANA_OPTIMIZED = 0x01,
	RBLK_ANA_NON_OPTIMIZED = 0x02,
	RBLK_ANA_INACCESSIBLE = 0x03,
	RBLK_ANA_PERSISTENT_LOSS = 0x04,
	RBLK_ANA_CHANGE = 0x0F,
};

#ifdef __cplusplus
}
#endif
#endif
