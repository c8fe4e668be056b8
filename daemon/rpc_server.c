/* SPDX-License-Identifier: MIT */
/*
 * The management socket (rpc_server.h). Every client has its own request
 * stream and answer buffer and is never waited for: a client that connects
 * and sends half a request, or never reads its answers, holds one slot and
 * at most RBLK_RPC_REQUEST_MAX + RBLK_RPC_OUT_MAX bytes, and the others go
 * on. Only the main thread runs here; the target's poll groups never see
 * the socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "daemon/rpc_server.h"

struct client {
	int fd;
	struct rblk_rpc_stream in;
	struct rblk_rpc_buf out;
	uint64_t active_ms; /* last byte read or written */
	bool closing;       /* EOF or a fatal request: close once @out is written */
	uint32_t events;    /* what epoll waits for now */
};

struct rblk_rpc_server {
	const struct rblk_rpc_table *table;
	char *path;
	int lfd, epfd;
	struct client *clients[RBLK_RPC_MAX_CLIENTS];
	unsigned nr_clients;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ clients */

static void client_close(struct rblk_rpc_server *s, unsigned i)
{
	struct client *c = s->clients[i];

	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	rblk_rpc_stream_fini(&c->in);
	rblk_rpc_buf_free(&c->out);
	free(c);
	s->clients[i] = s->clients[--s->nr_clients];
	s->clients[s->nr_clients] = NULL;
}

static unsigned client_index(const struct rblk_rpc_server *s, const struct client *c)
{
	unsigned i;

	for (i = 0; i < s->nr_clients && s->clients[i] != c; i++)
		;
	return i;
}

/* Reads only while the client takes its answers: the buffer is its backpressure. */
static void client_rearm(struct rblk_rpc_server *s, struct client *c)
{
	size_t unsent = c->out.len - c->out.off;
	uint32_t ev = 0;

	if (!c->closing && unsent < RBLK_RPC_OUT_MAX)
		ev |= EPOLLIN;
	if (unsent)
		ev |= EPOLLOUT;
	if (ev == c->events)
		return;
	c->events = ev;
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &(struct epoll_event){ .events = ev, .data.ptr = c });
}

/* false when the client is gone. */
static bool client_write(struct client *c)
{
	while (c->out.off < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->out.off, c->out.len - c->out.off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		c->out.off += n;
		c->active_ms = now_ms();
	}
	c->out.off = c->out.len = 0;
	/* A burst's buffer is not kept by a client that went quiet. */
	if (c->out.cap > 65536)
		rblk_rpc_buf_free(&c->out);
	return !c->closing;
}

static bool client_read(struct rblk_rpc_server *s, struct client *c)
{
	char buf[65536];

	/* A few reads per turn, so one busy client cannot hold the loop. */
	for (int turn = 0; turn < 16 && !c->closing; turn++) {
		ssize_t n;
		int ret;

		if (c->out.len - c->out.off >= RBLK_RPC_OUT_MAX)
			break;
		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		if (n == 0) {
			/* Half-closed after its requests: still owed its answers. */
			c->closing = true;
			break;
		}
		c->active_ms = now_ms();
		ret = rblk_rpc_stream_feed(&c->in, s->table, buf, (size_t)n, &c->out);
		if (ret == -ENOMEM)
			return false;
		if (ret) {
			RBLK_INFO("rpc: closing a client: %s", ret == -EMSGSIZE
					  ? "request larger than 1 MiB" : "not valid JSON");
			c->closing = true;
		}
	}
	return true;
}

static void client_event(struct rblk_rpc_server *s, struct client *c, uint32_t ev)
{
	bool alive = true;

	if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))
		alive = client_read(s, c);
	if (alive)
		alive = client_write(c) || (c->out.off < c->out.len);
	if (!alive || (c->closing && c->out.off >= c->out.len)) {
		client_close(s, client_index(s, c));
		return;
	}
	client_rearm(s, c);
}

/* A slot for a new client: free, or the longest-idle client's if it idled long enough. */
static bool take_slot(struct rblk_rpc_server *s)
{
	uint64_t now = now_ms();
	unsigned oldest = 0;

	if (s->nr_clients < RBLK_RPC_MAX_CLIENTS)
		return true;
	for (unsigned i = 1; i < s->nr_clients; i++)
		if (s->clients[i]->active_ms < s->clients[oldest]->active_ms)
			oldest = i;
	if (now - s->clients[oldest]->active_ms < RBLK_RPC_IDLE_EVICT_MS)
		return false;
	RBLK_INFO("rpc: %u clients: closing one idle for %llu ms", s->nr_clients,
		  (unsigned long long)(now - s->clients[oldest]->active_ms));
	client_close(s, oldest);
	return true;
}

static void accept_clients(struct rblk_rpc_server *s)
{
	static const char busy[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,"
				   "\"message\":\"too many clients\"}}\n";

	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				RBLK_WARN("rpc: accept: %s", strerror(errno));
			return;
		}
		if (!take_slot(s)) {
			RBLK_WARN("rpc: %u clients already: refusing one more", s->nr_clients);
			if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
				/* It is refused either way. */
			}
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c || rblk_rpc_stream_init(&c->in)) {
			free(c);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->active_ms = now_ms();
		c->events = EPOLLIN;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd,
			      &(struct epoll_event){ .events = EPOLLIN, .data.ptr = c })) {
			rblk_rpc_stream_fini(&c->in);
			free(c);
			close(fd);
			continue;
		}
		s->clients[s->nr_clients++] = c;
	}
}

void rblk_rpc_server_process(struct rblk_rpc_server *s)
{
	struct epoll_event ev[64];
	int n = epoll_wait(s->epfd, ev, 64, 0);

	for (int i = 0; i < n; i++) {
		if (ev[i].data.ptr == s)
			accept_clients(s);
		else
			client_event(s, ev[i].data.ptr, ev[i].events);
	}
}

/* ------------------------------------------------------------ socket */

/* mkdir -p for the socket's directory; what we create only we may enter. */
static int make_dirs(const char *path)
{
	char *dir = strdup(path), *p;
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	p = strrchr(dir, '/');
	if (p && p != dir) {
		*p = '\0';
		for (p = dir + 1; ret == 0; p++) {
			char c = *p;

			if (c != '/' && c != '\0')
				continue;
			*p = '\0';
			if (mkdir(dir, 0700) && errno != EEXIST)
				ret = -errno;
			*p = c;
			if (c == '\0')
				break;
		}
	}
	free(dir);
	return ret;
}

/* A socket file left by a daemon that died: nobody accepts on it. */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, ret;

	if (lstat(sa->sun_path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	if (ret == 0)
		return -EADDRINUSE;
	return unlink(sa->sun_path) && errno != ENOENT ? -errno : 0;
}

int rblk_rpc_server_create(const char *path, const struct rblk_rpc_table *t,
			   struct rblk_rpc_server **out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct rblk_rpc_server *s;
	mode_t old_mask;
	int ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->table = t;
	s->lfd = s->epfd = -1;
	if (!(s->path = strdup(path))) {
		ret = -ENOMEM;
		goto out_free;
	}
	if ((ret = make_dirs(path)) || (ret = clear_stale(&sa)))
		goto out_free;
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0) {
		ret = -errno;
		goto out_free;
	}
	/*
	 * Connecting needs write permission on the socket file: only the
	 * daemon's user may manage it. The umask makes the file 0600 as bind()
	 * creates it, so there is no moment another user could connect; it
	 * can only make what another thread creates meanwhile more private.
	 */
	old_mask = umask(0177);
	ret = bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old_mask);
	if (ret)
		goto out_close;
	if (chmod(path, 0600) || listen(s->lfd, 64)) {
		ret = -errno;
		goto out_unlink;
	}
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd,
		      &(struct epoll_event){ .events = EPOLLIN, .data.ptr = s })) {
		ret = -errno;
		goto out_epoll;
	}
	*out = s;
	return 0;
out_epoll:
	if (s->epfd >= 0)
		close(s->epfd);
out_unlink:
	unlink(path);
out_close:
	close(s->lfd);
out_free:
	free(s->path);
	free(s);
	return ret;
}

void rblk_rpc_server_destroy(struct rblk_rpc_server *s)
{
	if (!s)
		return;
	while (s->nr_clients)
		client_close(s, s->nr_clients - 1);
	close(s->epfd);
	close(s->lfd);
	unlink(s->path);
	free(s->path);
	free(s);
}

int rblk_rpc_server_fd(const struct rblk_rpc_server *s)
{
	return s->epfd;
}

unsigned rblk_rpc_server_clients(const struct rblk_rpc_server *s)
{
	return s->nr_clients;
}
