/* SPDX-License-Identifier: MIT */
/* Tests for transport/addr.c: numeric address and ADDR[:PORT] parsing, printing, GIDs. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "transport/addr.h"
#include "ut.h"

static const struct sockaddr_in *in4(const struct sockaddr_storage *ss)
{
	return (const struct sockaddr_in *)ss;
}

static const struct sockaddr_in6 *in6(const struct sockaddr_storage *ss)
{
	return (const struct sockaddr_in6 *)ss;
}

static void test_parse_ipv4(void)
{
	struct sockaddr_storage ss;

	CU_ASSERT_EQUAL(rblk_addr_parse("10.99.0.1", 4420, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
	CU_ASSERT_EQUAL(in4(&ss)->sin_addr.s_addr, htonl(0x0a630001));
	CU_ASSERT_EQUAL(in4(&ss)->sin_port, htons(4420));
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4420);
	CU_ASSERT_EQUAL(rblk_addr_len((struct sockaddr *)&ss), sizeof(struct sockaddr_in));
	CU_ASSERT_FALSE(rblk_addr_is_any((struct sockaddr *)&ss));
}

static void test_parse_wildcards(void)
{
	struct sockaddr_storage ss;

	CU_ASSERT_EQUAL(rblk_addr_parse(NULL, 1, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET);
	CU_ASSERT_TRUE(rblk_addr_is_any((struct sockaddr *)&ss));
	CU_ASSERT_EQUAL(rblk_addr_parse("", 1, &ss), 0);
	CU_ASSERT_TRUE(rblk_addr_is_any((struct sockaddr *)&ss));
	CU_ASSERT_EQUAL(rblk_addr_parse("*", 1, &ss), 0);
	CU_ASSERT_TRUE(rblk_addr_is_any((struct sockaddr *)&ss));
	CU_ASSERT_EQUAL(rblk_addr_parse("::", 1, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_TRUE(rblk_addr_is_any((struct sockaddr *)&ss));
}

static void test_parse_ipv6_forms(void)
{
	struct sockaddr_storage ss;
	unsigned lo = if_nametoindex("lo");

	CU_ASSERT_EQUAL(rblk_addr_parse("fe80::1", 4420, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_addr.s6_addr[0], 0xfe);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_addr.s6_addr[15], 1);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_port, htons(4420));
	CU_ASSERT_EQUAL(in6(&ss)->sin6_scope_id, 0);
	CU_ASSERT_EQUAL(rblk_addr_len((struct sockaddr *)&ss), sizeof(struct sockaddr_in6));
	CU_ASSERT_EQUAL(rblk_addr_parse("[2001:db8::5]", 1, &ss), 0);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_addr.s6_addr[2], 0x0d);
	CU_ASSERT_EQUAL(rblk_addr_parse("fe80::1%7", 1, &ss), 0);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_scope_id, 7);
	if (lo) {
		CU_ASSERT_EQUAL(rblk_addr_parse("[fe80::1%lo]", 1, &ss), 0);
		CU_ASSERT_EQUAL(in6(&ss)->sin6_scope_id, lo);
	}
	CU_ASSERT_EQUAL(rblk_addr_parse("fe80::1%nosuchif0", 1, &ss), -ENODEV);
	CU_ASSERT_EQUAL(ss.ss_family, 0);
}

static void test_parse_rejects_junk(void)
{
	static const char *const bad[] = {
		"10.99.0", "10.99.0.1.2", "10.99.0.256", "host.example", "::g", "[::1", "::1]",
		"[]", "fe80::1%", "1.2.3.4:4420", "[1.2.3.4]", " 10.0.0.1",
	};
	struct sockaddr_storage ss;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(rblk_addr_parse(bad[i], 1, &ss), -EINVAL);
		if (rblk_addr_parse(bad[i], 1, &ss) != -EINVAL)
			fprintf(stderr, "accepted '%s'\n", bad[i]);
	}
}

static void test_hostport(void)
{
	struct sockaddr_storage ss;

	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:4421", 4420, &ss), 0);
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4421);
	CU_ASSERT_EQUAL(in4(&ss)->sin_addr.s_addr, htonl(0x0a000001));
	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1", 4420, &ss), 0);
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4420);
	CU_ASSERT_EQUAL(rblk_hostport_parse("[::1]:4422", 4420, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4422);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_addr.s6_addr[15], 1);
	CU_ASSERT_EQUAL(rblk_hostport_parse("[::1]", 4420, &ss), 0);
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4420);
	/* A bare IPv6 address never carries a port. */
	CU_ASSERT_EQUAL(rblk_hostport_parse("::1:4420", 4420, &ss), 0);
	CU_ASSERT_EQUAL(ss.ss_family, AF_INET6);
	CU_ASSERT_EQUAL(in6(&ss)->sin6_addr.s6_addr[14], 0x44);
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4420);
	CU_ASSERT_EQUAL(rblk_hostport_parse(":4423", 4420, &ss), 0);
	CU_ASSERT_TRUE(rblk_addr_is_any((struct sockaddr *)&ss));
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 4423);

	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:65536", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:-1", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:44x", 4420, &ss), -EINVAL);
	/* the port rule of every rblk program: 0 is no port, no hex */
	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:0", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("10.0.0.1:0x1144", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("[::1]:+4420", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("[::1]4420", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse("[::1", 4420, &ss), -EINVAL);
	CU_ASSERT_EQUAL(rblk_hostport_parse(NULL, 4420, &ss), -EINVAL);
}

static void test_print(void)
{
	struct sockaddr_storage ss;
	char buf[RBLK_ADDR_STRLEN], small[8];

	rblk_addr_parse("10.99.0.1", 4420, &ss);
	CU_ASSERT_STRING_EQUAL(rblk_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "10.99.0.1:4420");
	CU_ASSERT_STRING_EQUAL(rblk_addr_host_str((struct sockaddr *)&ss, buf, sizeof(buf)), "10.99.0.1");
	rblk_addr_parse("fe80::1%3", 4420, &ss);
	CU_ASSERT_STRING_EQUAL(rblk_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "[fe80::1%3]:4420");
	rblk_addr_set_port((struct sockaddr *)&ss, 7);
	CU_ASSERT_STRING_EQUAL(rblk_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "[fe80::1%3]:7");
	/* Truncates, never overflows. */
	CU_ASSERT_EQUAL(strlen(rblk_addr_str((struct sockaddr *)&ss, small, sizeof(small))), 7);
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	CU_ASSERT_STRING_EQUAL(rblk_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "?");
	CU_ASSERT_EQUAL(rblk_addr_len((struct sockaddr *)&ss), 0);
	CU_ASSERT_EQUAL(rblk_addr_port((struct sockaddr *)&ss), 0);
}

static void test_gid_of_address(void)
{
	static const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 1 };
	struct sockaddr_storage ss;
	uint8_t gid[16];

	rblk_addr_parse("10.99.0.1", 0, &ss);
	CU_ASSERT_EQUAL(rblk_addr_to_gid((struct sockaddr *)&ss, gid), 0);
	CU_ASSERT_EQUAL(memcmp(gid, mapped, 16), 0);
	rblk_addr_parse("fe80::ec98:4fff:fe10:6a56", 0, &ss);
	CU_ASSERT_EQUAL(rblk_addr_to_gid((struct sockaddr *)&ss, gid), 0);
	CU_ASSERT_EQUAL(gid[0], 0xfe);
	CU_ASSERT_EQUAL(gid[15], 0x56);
	ss.ss_family = AF_UNIX;
	CU_ASSERT_EQUAL(rblk_addr_to_gid((struct sockaddr *)&ss, gid), -EAFNOSUPPORT);
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_ipv4),
	UT_CASE(test_parse_wildcards),
	UT_CASE(test_parse_ipv6_forms),
	UT_CASE(test_parse_rejects_junk),
	UT_CASE(test_hostport),
	UT_CASE(test_print),
	UT_CASE(test_gid_of_address),
	UT_END,
};

UT_MAIN("transport/addr", cases)
