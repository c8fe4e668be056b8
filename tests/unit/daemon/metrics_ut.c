/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/metrics.c and metrics_http.c: the listening address,
 * label escaping, the exposition of a small statistics document (exact
 * lines, families grouped with their HELP and TYPE), and the HTTP server
 * over the fake target (200, 404, 405).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon/metrics.h"
#include "daemon/metrics_http.h"
#include "fake_target.h"
#include "ut.h"

static void test_addr_parse(void)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

	CU_ASSERT_EQUAL(rblk_metrics_addr_parse("127.0.0.1:9100", &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
	CU_ASSERT_EQUAL(ntohs(a4->sin_port), 9100);
	CU_ASSERT_EQUAL(ntohl(a4->sin_addr.s_addr), 0x7f000001);
	CU_ASSERT_EQUAL(rblk_metrics_addr_parse("0.0.0.0:1", NULL), 0);
	CU_ASSERT_EQUAL(rblk_metrics_addr_parse("[::1]:65535", &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(ntohs(a6->sin6_port), 65535);
	CU_ASSERT_EQUAL(rblk_metrics_addr_parse("[::]:9100", NULL), 0);
	static const char *const bad[] = {
		"", ":9100", "9100", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:91x", "127.0.0.1:-1", "localhost:9100", "::1:9100", "[::1]9100",
		"[::1]:", "[127.0.0.1]:80", "[::1:80", "1.2.3:80",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(rblk_metrics_addr_parse(bad[i], NULL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_metrics_addr_parse(NULL, NULL), -EINVAL);
}

static void test_label_escape(void)
{
	char buf[64];

	rblk_metrics_label_escape("nqn.x:a\"b\\c\nd", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "nqn.x:a\\\"b\\\\c\\nd");
	/* Cut short, never in the middle of an escape. */
	rblk_metrics_label_escape("ab\"", buf, 4);
	CU_ASSERT_STRING_EQUAL(buf, "ab");
	rblk_metrics_label_escape("", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "");
}

/* Two bounds (10 us, 2.5 ms) so that the fixture's histograms stay short. */
static const char fixture[] =
	"{\"latency_bounds_ns\": [10000, 2500000],"
	" \"namespaces\": [{\"subsystem\": \"nqn.t:a\\\"b\\\\c\", \"nsid\": 3,"
	"   \"read_cmds\": 10, \"write_cmds\": 4, \"other_cmds\": 2, \"read_bytes\": 40960,"
	"   \"write_bytes\": 16384, \"inflight\": 1, \"qos_waits\": 7,"
	"   \"errors_by_type\": {\"generic\": 1, \"command_specific\": 0, \"media\": 2,"
	"     \"path\": 0, \"other\": 0},"
	"   \"read_latency\": {\"buckets\": [6, 3, 1], \"sum_ns\": 12500000000},"
	"   \"write_latency\": {\"buckets\": [0, 4, 0], \"sum_ns\": 4000000}}],"
	" \"controllers\": ["
	"   {\"subsystem\": \"nqn.t:s\", \"hostnqn\": \"nqn.h:1\", \"queues\": [{}, {}, {}]},"
	"   {\"subsystem\": \"nqn.t:s\", \"hostnqn\": \"nqn.h:1\", \"queues\": [{}, {}]},"
	"   {\"subsystem\": \"nqn.t:s\", \"hostnqn\": \"nqn.h:2\", \"queues\": [{}]}],"
	" \"admission\": {\"refused\": {\"max_queues\": 5, \"max_pending_queues\": 0,"
	"   \"max_pending_per_addr\": 7}},"
	" \"auth\": {\"successes\": 8, \"failures\": 9},"
	" \"poll_groups\": [{\"id\": 0, \"busy_ns\": 1500000000, \"buf_waits\": 11},"
	"   {\"id\": 1, \"busy_ns\": 0, \"buf_waits\": 0}]}";

static char *format_fixture(void)
{
	struct rblk_metrics_info info = { .version = "0.1.0", .uptime_ns = 61000000001ull };
	struct json_object *st = json_tokener_parse(fixture);
	char *text = NULL;
	size_t len = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL_FATAL(rblk_metrics_format(st, &info, &text, &len), 0);
	json_object_put(st);
	CU_ASSERT_EQUAL(strlen(text), len);
	return text;
}

/* @line is a whole line of @text. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static void test_format_lines(void)
{
	char *t = format_fixture();
	static const char *const lines[] = {
		"# HELP rblk_namespace_reads_total Read commands completed successfully.",
		"# TYPE rblk_namespace_reads_total counter",
		"rblk_namespace_reads_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 10",
		"rblk_namespace_writes_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 4",
		"rblk_namespace_other_commands_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 2",
		"rblk_namespace_read_bytes_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 40960",
		"rblk_namespace_written_bytes_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 16384",
		"# TYPE rblk_namespace_io_in_flight gauge",
		"rblk_namespace_io_in_flight{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 1",
		"# TYPE rblk_namespace_qos_waits_total counter",
		"rblk_namespace_qos_waits_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 7",
		"rblk_namespace_errors_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",type=\"generic\"} 1",
		"rblk_namespace_errors_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",type=\"media\"} 2",
		"rblk_namespace_errors_total{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",type=\"path\"} 0",
		"# TYPE rblk_namespace_read_latency_seconds histogram",
		/* Cumulative buckets, bounds in plain decimal seconds. */
		"rblk_namespace_read_latency_seconds_bucket{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",le=\"0.00001\"} 6",
		"rblk_namespace_read_latency_seconds_bucket{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",le=\"0.0025\"} 9",
		"rblk_namespace_read_latency_seconds_bucket{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",le=\"+Inf\"} 10",
		"rblk_namespace_read_latency_seconds_sum{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 12.5",
		"rblk_namespace_read_latency_seconds_count{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 10",
		"rblk_namespace_write_latency_seconds_bucket{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",le=\"0.00001\"} 0",
		"rblk_namespace_write_latency_seconds_bucket{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\",le=\"+Inf\"} 4",
		"rblk_namespace_write_latency_seconds_sum{subsystem=\"nqn.t:a\\\"b\\\\c\",nsid=\"3\"} 0.004",
		/* Two controllers of host 1 summed; host 2 apart. */
		"rblk_subsystem_controllers{subsystem=\"nqn.t:s\",host=\"nqn.h:1\"} 2",
		"rblk_subsystem_controllers{subsystem=\"nqn.t:s\",host=\"nqn.h:2\"} 1",
		"rblk_subsystem_queues{subsystem=\"nqn.t:s\",host=\"nqn.h:1\"} 5",
		"rblk_subsystem_queues{subsystem=\"nqn.t:s\",host=\"nqn.h:2\"} 1",
		"rblk_admission_refusals_total{reason=\"max_queues\"} 5",
		"rblk_admission_refusals_total{reason=\"max_pending_queues\"} 0",
		"rblk_admission_refusals_total{reason=\"max_pending_per_addr\"} 7",
		"rblk_authentications_total{result=\"success\"} 8",
		"rblk_authentications_total{result=\"failure\"} 9",
		"rblk_buffer_pool_waits_total{pg=\"0\"} 11",
		"rblk_buffer_pool_waits_total{pg=\"1\"} 0",
		"rblk_poll_group_busy_seconds_total{pg=\"0\"} 1.5",
		"rblk_poll_group_busy_seconds_total{pg=\"1\"} 0",
		"rblk_build_info{version=\"0.1.0\"} 1",
		"rblk_uptime_seconds 61.000000001",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!has_line(t, lines[i])) {
			printf("\n  missing: %s\n", lines[i]);
			CU_FAIL("a line is missing");
		}
	CU_ASSERT_EQUAL(t[strlen(t) - 1], '\n');
	free(t);
}

/*
 * Every sample follows its family's HELP and TYPE, each family appears
 * once, and the histogram's buckets, sum and count belong to it.
 */
static void test_format_families(void)
{
	char *t = format_fixture(), *save = NULL, fam[128] = "", seen[4096] = " ";

	for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[128], key[140];

		if (strncmp(l, "# HELP ", 7) == 0) {
			sscanf(l + 7, "%127s", fam);
			snprintf(key, sizeof(key), " %s ", fam);
			CU_ASSERT_PTR_NULL(strstr(seen, key));
			strncat(seen, fam, sizeof(seen) - strlen(seen) - 2);
			strcat(seen, " ");
			continue;
		}
		if (strncmp(l, "# TYPE ", 7) == 0) {
			CU_ASSERT_EQUAL(strncmp(l + 7, fam, strlen(fam)), 0);
			continue;
		}
		sscanf(l, "%127[^{ ]", name);
		CU_ASSERT_EQUAL(strncmp(name, fam, strlen(fam)), 0);
		CU_ASSERT(strlen(name) == strlen(fam) || !strcmp(name + strlen(fam), "_bucket") ||
			  !strcmp(name + strlen(fam), "_sum") || !strcmp(name + strlen(fam), "_count"));
	}
	free(t);
}

/* Empty document: every family with HELP and TYPE, no sample that needs data. */
static void test_format_empty(void)
{
	struct rblk_metrics_info info = { .version = "0.1.0", .uptime_ns = 0 };
	struct json_object *st = json_object_new_object();
	char *text = NULL;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(rblk_metrics_format(st, &info, &text, &len), 0);
	CU_ASSERT_TRUE(has_line(text, "# TYPE rblk_namespace_read_latency_seconds histogram"));
	CU_ASSERT_TRUE(has_line(text, "rblk_uptime_seconds 0"));
	CU_ASSERT_TRUE(has_line(text, "rblk_admission_refusals_total{reason=\"max_queues\"} 0"));
	CU_ASSERT_PTR_NULL(strstr(text, "_bucket"));
	json_object_put(st);
	free(text);
}

/* One HTTP/1.0 request; the status code, and the body in @body. */
static int http(uint16_t port, const char *req, char *body, size_t cap)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char buf[65536], *b;
	size_t n = 0;
	ssize_t r;
	int fd = socket(AF_INET, SOCK_STREAM, 0), code = -1;

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = 0;
	if (sscanf(buf, "HTTP/1.%*d %d", &code) != 1)
		return -1;
	b = strstr(buf, "\r\n\r\n");
	snprintf(body, cap, "%s", b ? b + 4 : "");
	return code;
}

static void test_http(void)
{
	struct rblk_metrics_server *s = NULL;
	char addr[32], body[65536];
	uint16_t port = 0;
	int ret = -1;

	if (!RBLK_METRICS_HTTP) {
		ut_skip("built without libmicrohttpd (RBLK_METRICS)");
		return;
	}
	fake_reset();
	fake_set_stats(fixture);
	/* A free port in the dynamic range (another test may hold one). */
	for (unsigned i = 0; i < 20 && ret; i++) {
		port = (uint16_t)(40000 + (getpid() * 7 + i * 131) % 20000);
		snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
		ret = rblk_metrics_server_start(addr, (struct rblk_target *)0x1, 0, &s);
	}
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(http(port, "GET /metrics HTTP/1.0\r\n\r\n", body, sizeof(body)), 200);
	CU_ASSERT_TRUE(has_line(body, "rblk_authentications_total{result=\"failure\"} 9"));
	CU_ASSERT_EQUAL(http(port, "GET / HTTP/1.0\r\n\r\n", body, sizeof(body)), 404);
	CU_ASSERT_EQUAL(http(port, "GET /metrics/x HTTP/1.0\r\n\r\n", body, sizeof(body)), 404);
	CU_ASSERT_EQUAL(http(port, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n", body,
			     sizeof(body)), 405);
	CU_ASSERT_EQUAL(http(port, "DELETE /metrics HTTP/1.0\r\n\r\n", body, sizeof(body)), 405);
	/* The same address twice: refused. */
	struct rblk_metrics_server *s2 = NULL;

	CU_ASSERT_EQUAL(rblk_metrics_server_start(addr, (struct rblk_target *)0x1, 0, &s2),
			-EADDRINUSE);
	CU_ASSERT_EQUAL(rblk_metrics_server_start("nonsense", (struct rblk_target *)0x1, 0, &s2),
			-EINVAL);
	rblk_metrics_server_stop(s);
	fake_reset();
}

static const struct ut_case cases[] = {
	UT_CASE(test_addr_parse),
	UT_CASE(test_label_escape),
	UT_CASE(test_format_lines),
	UT_CASE(test_format_families),
	UT_CASE(test_format_empty),
	UT_CASE(test_http),
	UT_END,
};

UT_MAIN("daemon/metrics", cases)
