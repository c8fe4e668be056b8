/* SPDX-License-Identifier: MIT */
/*
 * systemd's readiness protocol (sd_notify(3)) without libsystemd: one
 * datagram of "KEY=VALUE\n" lines to the socket named by $NOTIFY_SOCKET.
 * The protocol is documented as stable for reimplementation, and keeping
 * libsystemd out leaves the daemon's dependencies those of the library.
 */
#ifndef RBLK_TARGET_NOTIFY_H
#define RBLK_TARGET_NOTIFY_H

/*
 * Sends @state ("READY=1", "STATUS=...", "RELOADING=1", "STOPPING=1").
 * Returns 1 when sent, 0 when not running under a notify-aware manager
 * ($NOTIFY_SOCKET unset), -errno on failure. Thread-safe; not
 * async-signal-safe (it reads the environment).
 */
int rblk_notify(const char *state);
int rblk_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
