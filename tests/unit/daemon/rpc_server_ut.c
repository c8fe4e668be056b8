/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/rpc_server.c: the management socket with real Unix
 * sockets and the server driven by hand (as the daemon's loop drives it):
 * the file's mode and directory, a stale socket, a second daemon, clients
 * that stall, flood, overflow or half-close, and the client limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "daemon/rpc_server.h"
#include "ut.h"

static char dir[] = "/tmp/rblk-rpc-server-ut.XXXXXX";
static char path[96];

static int m_true(void *ctx, struct json_object *params, struct json_object **result,
		  struct rblk_rpc_err *e)
{
	(void)ctx;
	(void)params;
	(void)result;
	(void)e;
	return 0;
}

static const struct rblk_rpc_method methods[] = { { "true", m_true } };
static const struct rblk_rpc_table table = { methods, 1, NULL };

static void quiet(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)msg;
	(void)arg;
}

static int client(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* What the daemon's loop does: process while the server's fd has work (@wait_ms for the first). */
static void pump_ms(struct rblk_rpc_server *s, int wait_ms)
{
	for (int i = 0; i < 50; i++) {
		struct pollfd p = { .fd = rblk_rpc_server_fd(s), .events = POLLIN };

		if (poll(&p, 1, i == 0 ? wait_ms : 0) <= 0)
			break;
		rblk_rpc_server_process(s);
	}
}

static void pump(struct rblk_rpc_server *s)
{
	pump_ms(s, 20);
}

static void send_str(int fd, const char *s)
{
	CU_ASSERT_EQUAL(send(fd, s, strlen(s), MSG_NOSIGNAL), (ssize_t)strlen(s));
}

/* What has arrived on @fd (nonblocking); "" for nothing, "EOF" once closed. */
static const char *received(int fd)
{
	static char buf[8192];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	if (n == 0)
		return "EOF";
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

#define REQ "{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":1}"
#define ANS "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":true}\n"

static void test_socket_file(void)
{
	struct rblk_rpc_server *s, *s2;
	struct stat st;
	char sub[128];
	int fd;

	/* A directory that is not there yet: made, for the daemon's user only. */
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	snprintf(sub, sizeof(sub), "%s/run", dir);
	CU_ASSERT_EQUAL(stat(sub, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
	/* A second daemon on the same path is refused, and the first keeps it. */
	CU_ASSERT_EQUAL(rblk_rpc_server_create(path, &table, &s2), -EADDRINUSE);
	fd = client();
	send_str(fd, REQ);
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(fd), ANS);
	close(fd);
	rblk_rpc_server_destroy(s);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	/* A socket file nobody serves (a daemon that died) is replaced. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		CU_ASSERT_EQUAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	}
	close(fd);
	CU_ASSERT_EQUAL(rblk_rpc_server_create(path, &table, &s), 0);
	rblk_rpc_server_destroy(s);
	/* Something else at the path is not ours to remove. */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	CU_ASSERT_EQUAL(rblk_rpc_server_create(path, &table, &s), -EEXIST);
	unlink(path);
}

static void test_stalled_client_blocks_nobody(void)
{
	struct rblk_rpc_server *s;
	int stall, ok;

	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	stall = client();
	send_str(stall, "{\"jsonrpc\":\"2.0\",\"meth");
	ok = client();
	send_str(ok, REQ REQ);
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(ok), ANS ANS);
	CU_ASSERT_STRING_EQUAL(received(stall), "");
	/* The stalled one finishes later and is answered then. */
	send_str(stall, "od\":\"true\",\"id\":1}");
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(stall), ANS);
	CU_ASSERT_EQUAL(rblk_rpc_server_clients(s), 2);
	close(ok);
	close(stall);
	pump(s);
	CU_ASSERT_EQUAL(rblk_rpc_server_clients(s), 0);
	rblk_rpc_server_destroy(s);
}

static void test_bad_input_closes_only_that_client(void)
{
	struct rblk_rpc_server *s;
	int bad, big, good;
	char *chunk = malloc(65536);

	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	bad = client();
	big = client();
	good = client();
	send_str(bad, "{nope}");
	pump(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(received(bad), "-32700"));
	CU_ASSERT_STRING_EQUAL(received(bad), "EOF");
	/* Over 1 MiB without an end: an error, then the connection is closed. */
	send_str(big, "{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"params\":{\"x\":\"");
	memset(chunk, 'x', 65536);
	/* The last sends may find the connection closed already. */
	for (int i = 0; i < 17 && send(big, chunk, 65536, MSG_NOSIGNAL) > 0; i++)
		pump(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(received(big), "request larger than 1 MiB"));
	CU_ASSERT_STRING_EQUAL(received(big), "EOF");
	send_str(good, REQ);
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(good), ANS);
	close(bad);
	close(big);
	close(good);
	free(chunk);
	rblk_rpc_server_destroy(s);
}

static void test_half_close_still_answered(void)
{
	struct rblk_rpc_server *s;
	int fd;

	/* `echo REQ | nc -U -N`: the request, then the client's end shut. */
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	fd = client();
	send_str(fd, REQ);
	shutdown(fd, SHUT_WR);
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(fd), ANS);
	CU_ASSERT_STRING_EQUAL(received(fd), "EOF");
	close(fd);
	rblk_rpc_server_destroy(s);
}

static void test_client_limit(void)
{
	struct rblk_rpc_server *s;
	int fds[RBLK_RPC_MAX_CLIENTS], extra, answered = 0;

	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	for (int i = 0; i < RBLK_RPC_MAX_CLIENTS; i++) {
		fds[i] = client();
		send_str(fds[i], REQ);
		if (i % 16 == 15)
			pump(s);
	}
	pump(s);
	for (int i = 0; i < RBLK_RPC_MAX_CLIENTS; i++)
		answered += strcmp(received(fds[i]), ANS) == 0;
	CU_ASSERT_EQUAL(answered, RBLK_RPC_MAX_CLIENTS);
	/* All of them just spoke: one more is refused, not queued, and they stay. */
	extra = client();
	pump(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(received(extra), "too many clients"));
	CU_ASSERT_EQUAL(rblk_rpc_server_clients(s), RBLK_RPC_MAX_CLIENTS);
	close(extra);
	close(fds[0]);
	pump(s);
	extra = client();
	send_str(extra, REQ);
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(extra), ANS);
	close(extra);
	for (int i = 1; i < RBLK_RPC_MAX_CLIENTS; i++)
		close(fds[i]);
	rblk_rpc_server_destroy(s);
}

static void test_idle_client_gives_way(void)
{
	struct rblk_rpc_server *s;
	int fds[RBLK_RPC_MAX_CLIENTS], extra, gone = 0;

	/* Every slot held by a client that connected and went silent (a stalled script). */
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	for (int i = 0; i < RBLK_RPC_MAX_CLIENTS; i++) {
		fds[i] = client();
		if (i % 16 == 15)
			pump(s);
	}
	pump(s);
	CU_ASSERT_EQUAL(rblk_rpc_server_clients(s), RBLK_RPC_MAX_CLIENTS);
	usleep((RBLK_RPC_IDLE_EVICT_MS + 200) * 1000);
	/* After the idle bound a newcomer is served, and exactly one silent client went. */
	extra = client();
	send_str(extra, REQ);
	pump(s);
	CU_ASSERT_STRING_EQUAL(received(extra), ANS);
	for (int i = 0; i < RBLK_RPC_MAX_CLIENTS; i++)
		gone += strcmp(received(fds[i]), "EOF") == 0;
	CU_ASSERT_EQUAL(gone, 1);
	CU_ASSERT_EQUAL(rblk_rpc_server_clients(s), RBLK_RPC_MAX_CLIENTS);
	close(extra);
	for (int i = 0; i < RBLK_RPC_MAX_CLIENTS; i++)
		close(fds[i]);
	rblk_rpc_server_destroy(s);
}

static void test_unread_answers_stop_reading(void)
{
	struct rblk_rpc_server *s;
	static char reqs[(sizeof(REQ) - 1) * 1024 + 1];
	size_t got = 0;
	int refused = 0;
	char buf[65536];
	int fd;

	/*
	 * A client that sends and never reads: its answers pile up to
	 * RBLK_RPC_OUT_MAX, then the server stops reading it (no unbounded
	 * buffer) and the client's sends block; once it reads, all resumes.
	 */
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_server_create(path, &table, &s), 0);
	fd = client();
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 1024; i++)
		memcpy(reqs + i * (sizeof(REQ) - 1), REQ, sizeof(REQ) - 1);
	/* Until the server has taken nothing for 100 rounds of the loop: it stopped reading. */
	for (int round = 0; round < 20000 && refused < 100; round++) {
		if (send(fd, reqs, strlen(reqs), MSG_NOSIGNAL) < 0 && errno == EAGAIN)
			refused++;
		else
			refused = 0;
		pump_ms(s, 0);
	}
	CU_ASSERT_EQUAL(refused, 100);
	for (int idle = 0; idle < 20;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n > 0) {
			got += (size_t)n;
			idle = 0;
		} else {
			idle++;
		}
		pump_ms(s, n > 0 ? 0 : 5);
	}
	CU_ASSERT(got > RBLK_RPC_OUT_MAX);
	CU_ASSERT_EQUAL(got % (sizeof(ANS) - 1), 0);
	close(fd);
	rblk_rpc_server_destroy(s);
}

static int setup(void)
{
	rblk_log_set_handler(quiet, NULL);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/run/rpc.sock", dir);
	return 0;
}

static int teardown(void)
{
	char sub[128];

	unlink(path);
	snprintf(sub, sizeof(sub), "%s/run", dir);
	rmdir(sub);
	rmdir(dir);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_socket_file),
	UT_CASE(test_stalled_client_blocks_nobody),
	UT_CASE(test_bad_input_closes_only_that_client),
	UT_CASE(test_half_close_still_answered),
	UT_CASE(test_client_limit),
	UT_CASE(test_idle_client_gives_way),
	UT_CASE(test_unread_answers_stop_reading),
	UT_END,
};

UT_MAIN_INIT("daemon/rpc_server", cases, setup, teardown)
