/* SPDX-License-Identifier: MIT */
/*
 * NBD over generic netlink with libnl-genl-3 (see cli/nbd/netlink.h). Attribute
 * types follow the kernel's nbd_attr_policy (drivers/block/nbd.c): sizes,
 * flags and timeouts are u64, the index and socket fds u32, sockets nested
 * as SOCKETS { SOCK_ITEM { SOCK_FD } ... }.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/nbd-netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "cli/nbd/netlink.h"

static int put_header(struct nl_msg *m, int family, uint8_t cmd)
{
	return genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, cmd, NBD_GENL_VERSION) ? 0 : -ENOMEM;
}

int rblk_nbd_nl_build_connect(struct nl_msg **out, int family, const struct rblk_nbd_nl_connect *c)
{
	struct nlattr *socks;
	struct nl_msg *m;

	*out = NULL;
	if (!c->nfds || !c->size_bytes || !c->block_size)
		return -EINVAL;
	m = nlmsg_alloc();
	if (!m)
		return -ENOMEM;
	if (put_header(m, family, NBD_CMD_CONNECT))
		goto nomem;
	if (c->index >= 0 && nla_put_u32(m, NBD_ATTR_INDEX, (uint32_t)c->index))
		goto nomem;
	if (nla_put_u64(m, NBD_ATTR_SIZE_BYTES, c->size_bytes) ||
	    nla_put_u64(m, NBD_ATTR_BLOCK_SIZE_BYTES, c->block_size) ||
	    nla_put_u64(m, NBD_ATTR_SERVER_FLAGS, c->server_flags))
		goto nomem;
	if (c->client_flags && nla_put_u64(m, NBD_ATTR_CLIENT_FLAGS, c->client_flags))
		goto nomem;
	if (c->timeout && nla_put_u64(m, NBD_ATTR_TIMEOUT, c->timeout))
		goto nomem;
	if (c->dead_conn_timeout && nla_put_u64(m, NBD_ATTR_DEAD_CONN_TIMEOUT, c->dead_conn_timeout))
		goto nomem;
	if (c->backend_id && nla_put_string(m, NBD_ATTR_BACKEND_IDENTIFIER, c->backend_id))
		goto nomem;
	socks = nla_nest_start(m, NBD_ATTR_SOCKETS);
	if (!socks)
		goto nomem;
	for (unsigned i = 0; i < c->nfds; i++) {
		struct nlattr *item = nla_nest_start(m, NBD_SOCK_ITEM);

		if (!item || nla_put_u32(m, NBD_SOCK_FD, (uint32_t)c->fds[i]))
			goto nomem;
		nla_nest_end(m, item);
	}
	nla_nest_end(m, socks);
	*out = m;
	return 0;
nomem:
	nlmsg_free(m);
	return -ENOMEM;
}

int rblk_nbd_nl_build_disconnect(struct nl_msg **out, int family, int index)
{
	struct nl_msg *m = nlmsg_alloc();

	*out = NULL;
	if (!m)
		return -ENOMEM;
	if (put_header(m, family, NBD_CMD_DISCONNECT) || nla_put_u32(m, NBD_ATTR_INDEX, (uint32_t)index)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

int rblk_nbd_nl_build_resize(struct nl_msg **out, int family, int index, uint64_t size_bytes,
			     uint64_t block_size, const char *backend_id)
{
	struct nl_msg *m;

	*out = NULL;
	if (index < 0 || !size_bytes || !block_size)
		return -EINVAL;
	m = nlmsg_alloc();
	if (!m)
		return -ENOMEM;
	/* The kernel's reconfigure sets the size from these (nbd_genl_size_set()). */
	if (put_header(m, family, NBD_CMD_RECONFIGURE) || nla_put_u32(m, NBD_ATTR_INDEX, (uint32_t)index) ||
	    nla_put_u64(m, NBD_ATTR_SIZE_BYTES, size_bytes) ||
	    nla_put_u64(m, NBD_ATTR_BLOCK_SIZE_BYTES, block_size) ||
	    (backend_id && nla_put_string(m, NBD_ATTR_BACKEND_IDENTIFIER, backend_id))) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

int rblk_nbd_nl_reply_index(struct nl_msg *msg, int *index)
{
	struct nlattr *attrs[NBD_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, attrs, NBD_ATTR_MAX, NULL) || !attrs[NBD_ATTR_INDEX])
		return -ENOENT;
	*index = (int)nla_get_u32(attrs[NBD_ATTR_INDEX]);
	return 0;
}

static int on_reply(struct nl_msg *msg, void *arg)
{
	int *index = arg;

	rblk_nbd_nl_reply_index(msg, index);
	return NL_OK;
}

/* libnl's error codes back to errno, for the ones the kernel's nbd answers with. */
static int nlerr_to_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_PERM: return -EPERM;
	case NLE_BUSY: return -EBUSY;
	case NLE_INVAL: return -EINVAL;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_EXIST: return -EEXIST;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_NODEV: return -ENODEV;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_AGAIN: return -EAGAIN;
	default: return -EIO;
	}
}

/* Opens a generic-netlink socket and resolves the "nbd" family. */
static int open_nbd(struct nl_sock **sk, int *family, char *err, size_t errlen)
{
	int ret;

	*sk = nl_socket_alloc();
	if (!*sk) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = genl_connect(*sk);
	if (ret < 0) {
		snprintf(err, errlen, "generic netlink: %s", nl_geterror(ret));
		goto fail;
	}
	ret = genl_ctrl_resolve(*sk, NBD_GENL_FAMILY_NAME);
	if (ret < 0) {
		snprintf(err, errlen, "no \"nbd\" generic netlink family (%s): load the module with "
			 "`modprobe nbd`", nl_geterror(ret));
		ret = -NLE_OBJ_NOTFOUND;
		goto fail;
	}
	*family = ret;
	return 0;
fail:
	nl_socket_free(*sk);
	*sk = NULL;
	return nlerr_to_errno(ret);
}

static int send_msg(struct nl_sock *sk, struct nl_msg *m, int *index, char *err, size_t errlen)
{
	int ret;

	if (index)
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, index);
	ret = nl_send_sync(sk, m);	/* frees m */
	if (ret < 0) {
		snprintf(err, errlen, "%s", nl_geterror(ret));
		return nlerr_to_errno(ret);
	}
	return 0;
}

int rblk_nbd_nl_connect(const struct rblk_nbd_nl_connect *c, int *index, char *err, size_t errlen)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	int family, ret;

	*index = -1;
	ret = open_nbd(&sk, &family, err, errlen);
	if (ret)
		return ret;
	ret = rblk_nbd_nl_build_connect(&m, family, c);
	if (ret) {
		snprintf(err, errlen, "cannot build the request: %s", strerror(-ret));
		goto out;
	}
	ret = send_msg(sk, m, index, err, errlen);
	if (!ret && *index < 0) {
		snprintf(err, errlen, "the kernel did not say which device it used");
		ret = -EIO;
	}
out:
	nl_socket_free(sk);
	return ret;
}

/* A request about one device that needs no reply: NBD_CMD_DISCONNECT or NBD_CMD_RECONFIGURE (a resize). */
static int send_device_cmd(uint8_t cmd, int index, uint64_t size_bytes, uint64_t block_size,
			   const char *backend_id, char *err, size_t errlen)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	int family, ret;

	ret = open_nbd(&sk, &family, err, errlen);
	if (ret)
		return ret;
	ret = cmd == NBD_CMD_RECONFIGURE
		      ? rblk_nbd_nl_build_resize(&m, family, index, size_bytes, block_size, backend_id)
		      : rblk_nbd_nl_build_disconnect(&m, family, index);
	if (!ret)
		ret = send_msg(sk, m, NULL, err, errlen);
	else
		snprintf(err, errlen, "cannot build the request: %s", strerror(-ret));
	nl_socket_free(sk);
	return ret;
}

int rblk_nbd_nl_disconnect(int index, char *err, size_t errlen)
{
	return send_device_cmd(NBD_CMD_DISCONNECT, index, 0, 0, NULL, err, errlen);
}

int rblk_nbd_nl_resize(int index, uint64_t size_bytes, uint64_t block_size, const char *backend_id,
		       char *err, size_t errlen)
{
	return send_device_cmd(NBD_CMD_RECONFIGURE, index, size_bytes, block_size, backend_id, err, errlen);
}

int rblk_nbd_parse_device(const char *s, int *index)
{
	char *end;
	long v;

	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (!strncmp(s, "nbd", 3))
		s += 3;
	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 1000000)
		return -EINVAL;
	*index = (int)v;
	return 0;
}
