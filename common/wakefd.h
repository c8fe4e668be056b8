/* SPDX-License-Identifier: MIT */
/*
 * An eventfd that a poller drains only when it was kicked. A poll loop that
 * read its wakeup eventfd on every pass made one failed read() per pass;
 * here the kicker sets a flag after writing, and the poller reads only when
 * it finds the flag set.
 *
 * Order matters: the write comes before the flag. A poller that takes the
 * flag first and then reads an empty eventfd would leave the coming write
 * behind with no flag, and a caller sleeping on the fd would spin on it.
 * With write-then-flag, the fd may be readable for the moment before the
 * flag is set (a sleeper wakes once more) but never stays so.
 */
#ifndef RBLK_COMMON_WAKEFD_H
#define RBLK_COMMON_WAKEFD_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct rblk_wakefd {
	int fd;			/* -1 when closed */
	atomic_bool kicked;
};

static inline int rblk_wakefd_open(struct rblk_wakefd *w)
{
	atomic_init(&w->kicked, false);
	w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

static inline void rblk_wakefd_close(struct rblk_wakefd *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* Any thread. 0 or -errno of the write. */
static inline int rblk_wakefd_kick(struct rblk_wakefd *w)
{
	uint64_t one = 1;

	if (w->fd < 0)
		return 0;
	if (write(w->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return -errno;
	atomic_store(&w->kicked, true);
	return 0;
}

/* The poller: consumes the kicks so far; no system call when there were none. */
static inline void rblk_wakefd_drain(struct rblk_wakefd *w)
{
	uint64_t n;

	if (w->fd >= 0 && atomic_exchange(&w->kicked, false))
		(void)!read(w->fd, &n, sizeof(n));
}

#endif
