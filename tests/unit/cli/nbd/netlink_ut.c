/* SPDX-License-Identifier: MIT */
/* Tests for cli/nbd/netlink.c: the generic-netlink messages, checked attribute by attribute. */
#include <errno.h>
#include <string.h>

#include <linux/nbd-netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "cli/nbd/netlink.h"
#include "cli/nbd/proto.h"
#include "ut.h"

#define FAMILY 0x1d

static void parse(struct nl_msg *m, struct nlattr **attrs, uint8_t want_cmd)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	struct genlmsghdr *g = nlmsg_data(h);

	CU_ASSERT_EQUAL(h->nlmsg_type, FAMILY);
	CU_ASSERT_EQUAL(g->cmd, want_cmd);
	CU_ASSERT_EQUAL(g->version, NBD_GENL_VERSION);
	CU_ASSERT_EQUAL_FATAL(genlmsg_parse(h, 0, attrs, NBD_ATTR_MAX, NULL), 0);
}

static void test_connect_message(void)
{
	int fds[3] = { 7, 9, 11 };
	struct rblk_nbd_nl_connect c = {
		.index = -1,
		.size_bytes = 1ULL << 30,
		.block_size = 4096,
		.server_flags = rblk_nbd_tflags(false, true, true, true),
		.fds = fds,
		.nfds = 3,
		.backend_id = "rblk:rdma:10.99.0.1:4420:nqn.a:b:ns1",
	};
	struct nlattr *attrs[NBD_ATTR_MAX + 1], *item;
	struct nl_msg *m;
	int rem, n = 0;

	CU_ASSERT_EQUAL_FATAL(rblk_nbd_nl_build_connect(&m, FAMILY, &c), 0);
	parse(m, attrs, NBD_CMD_CONNECT);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_INDEX]);	/* the kernel picks */
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_TIMEOUT]);	/* none: requests wait */
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_DEAD_CONN_TIMEOUT]);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_CLIENT_FLAGS]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(attrs[NBD_ATTR_SIZE_BYTES]);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_SIZE_BYTES]), 1ULL << 30);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_BLOCK_SIZE_BYTES]), 4096);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_SERVER_FLAGS]), c.server_flags);
	CU_ASSERT_TRUE(nla_get_u64(attrs[NBD_ATTR_SERVER_FLAGS]) & RBLK_NBD_FLAG_CAN_MULTI_CONN);
	CU_ASSERT_STRING_EQUAL(nla_get_string(attrs[NBD_ATTR_BACKEND_IDENTIFIER]), c.backend_id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(attrs[NBD_ATTR_SOCKETS]);
	nla_for_each_nested(item, attrs[NBD_ATTR_SOCKETS], rem) {
		struct nlattr *s[NBD_SOCK_MAX + 1];

		CU_ASSERT_EQUAL(nla_type(item), NBD_SOCK_ITEM);
		CU_ASSERT_EQUAL_FATAL(nla_parse_nested(s, NBD_SOCK_MAX, item, NULL), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s[NBD_SOCK_FD]);
		CU_ASSERT_EQUAL(nla_get_u32(s[NBD_SOCK_FD]), (uint32_t)fds[n]);
		n++;
	}
	CU_ASSERT_EQUAL(n, 3);
	nlmsg_free(m);
}

static void test_connect_options(void)
{
	int fd = 3;
	struct rblk_nbd_nl_connect c = { .index = 5, .size_bytes = 512, .block_size = 512, .fds = &fd,
					 .nfds = 1, .timeout = 30, .dead_conn_timeout = 10, .client_flags = 2 };
	struct nlattr *attrs[NBD_ATTR_MAX + 1];
	struct nl_msg *m;

	CU_ASSERT_EQUAL_FATAL(rblk_nbd_nl_build_connect(&m, FAMILY, &c), 0);
	parse(m, attrs, NBD_CMD_CONNECT);
	CU_ASSERT_EQUAL(nla_get_u32(attrs[NBD_ATTR_INDEX]), 5);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_TIMEOUT]), 30);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_DEAD_CONN_TIMEOUT]), 10);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_CLIENT_FLAGS]), 2);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_BACKEND_IDENTIFIER]);
	nlmsg_free(m);
	/* a connect without sockets or size is a caller bug */
	c.nfds = 0;
	CU_ASSERT_EQUAL(rblk_nbd_nl_build_connect(&m, FAMILY, &c), -EINVAL);
	CU_ASSERT_PTR_NULL(m);
	c.nfds = 1;
	c.size_bytes = 0;
	CU_ASSERT_EQUAL(rblk_nbd_nl_build_connect(&m, FAMILY, &c), -EINVAL);
}

static void test_disconnect_message(void)
{
	struct nlattr *attrs[NBD_ATTR_MAX + 1];
	struct nl_msg *m;

	CU_ASSERT_EQUAL_FATAL(rblk_nbd_nl_build_disconnect(&m, FAMILY, 12), 0);
	parse(m, attrs, NBD_CMD_DISCONNECT);
	CU_ASSERT_EQUAL(nla_get_u32(attrs[NBD_ATTR_INDEX]), 12);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_SOCKETS]);
	nlmsg_free(m);
}

static void test_resize_message(void)
{
	struct nlattr *attrs[NBD_ATTR_MAX + 1];
	struct nl_msg *m;

	CU_ASSERT_EQUAL_FATAL(rblk_nbd_nl_build_resize(&m, FAMILY, 4, 96ULL << 20, 512, "rblk:x:ns1"), 0);
	parse(m, attrs, NBD_CMD_RECONFIGURE);
	CU_ASSERT_EQUAL(nla_get_u32(attrs[NBD_ATTR_INDEX]), 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(attrs[NBD_ATTR_SIZE_BYTES]);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_SIZE_BYTES]), 96ULL << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(attrs[NBD_ATTR_BLOCK_SIZE_BYTES]);
	CU_ASSERT_EQUAL(nla_get_u64(attrs[NBD_ATTR_BLOCK_SIZE_BYTES]), 512);
	/* the kernel refuses to reconfigure a device connected with a backend id without it */
	CU_ASSERT_PTR_NOT_NULL_FATAL(attrs[NBD_ATTR_BACKEND_IDENTIFIER]);
	CU_ASSERT_STRING_EQUAL(nla_get_string(attrs[NBD_ATTR_BACKEND_IDENTIFIER]), "rblk:x:ns1");
	/* nothing else changes: no sockets, timeouts or flags */
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_SOCKETS]);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_TIMEOUT]);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_CLIENT_FLAGS]);
	CU_ASSERT_PTR_NULL(attrs[NBD_ATTR_SERVER_FLAGS]);
	nlmsg_free(m);
	/* no device, no size or no block size is a caller bug */
	CU_ASSERT_EQUAL(rblk_nbd_nl_build_resize(&m, FAMILY, -1, 1 << 20, 512, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_EQUAL(rblk_nbd_nl_build_resize(&m, FAMILY, 4, 0, 512, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_nbd_nl_build_resize(&m, FAMILY, 4, 1 << 20, 0, NULL), -EINVAL);
}

static void test_reply_index(void)
{
	struct nl_msg *m = nlmsg_alloc();
	int index = -1;

	/* the kernel's connect reply: a genl message carrying NBD_ATTR_INDEX */
	CU_ASSERT_PTR_NOT_NULL_FATAL(genlmsg_put(m, 0, 0, FAMILY, 0, 0, NBD_CMD_CONNECT, NBD_GENL_VERSION));
	CU_ASSERT_EQUAL(rblk_nbd_nl_reply_index(m, &index), -ENOENT);
	CU_ASSERT_EQUAL(nla_put_u32(m, NBD_ATTR_INDEX, 3), 0);
	CU_ASSERT_EQUAL(rblk_nbd_nl_reply_index(m, &index), 0);
	CU_ASSERT_EQUAL(index, 3);
	nlmsg_free(m);
}

static void test_parse_device(void)
{
	int i = -1;

	CU_ASSERT_EQUAL(rblk_nbd_parse_device("/dev/nbd3", &i), 0);
	CU_ASSERT_EQUAL(i, 3);
	CU_ASSERT_EQUAL(rblk_nbd_parse_device("nbd12", &i), 0);
	CU_ASSERT_EQUAL(i, 12);
	CU_ASSERT_EQUAL(rblk_nbd_parse_device("0", &i), 0);
	CU_ASSERT_EQUAL(i, 0);
	CU_ASSERT_EQUAL(rblk_nbd_parse_device("/dev/sda", &i), -EINVAL);
	CU_ASSERT_EQUAL(rblk_nbd_parse_device("/dev/nbd", &i), -EINVAL);
	CU_ASSERT_EQUAL(rblk_nbd_parse_device("/dev/nbd1p1", &i), -EINVAL);
	CU_ASSERT_EQUAL(rblk_nbd_parse_device("nbd-1", &i), -EINVAL);
}

static const struct ut_case cases[] = {
	UT_CASE(test_connect_message),
	UT_CASE(test_connect_options),
	UT_CASE(test_disconnect_message),
	UT_CASE(test_resize_message),
	UT_CASE(test_reply_index),
	UT_CASE(test_parse_device),
	UT_END,
};

UT_MAIN("cli/nbd/netlink", cases)
