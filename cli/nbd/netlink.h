/* SPDX-License-Identifier: MIT */
/*
 * Configuring the kernel's NBD client over generic netlink (family "nbd",
 * linux/nbd-netlink.h), as nbd-client does: NBD_CMD_CONNECT hands the kernel
 * our socket ends and the export's size, block size and flags, and answers
 * with the device index; NBD_CMD_RECONFIGURE gives a connected device a new
 * size; NBD_CMD_DISCONNECT ends it. Message building is
 * separate from sending so tests can check the attributes without a kernel.
 */
#ifndef RBLK_NBD_NETLINK_H
#define RBLK_NBD_NETLINK_H

#include <stddef.h>
#include <stdint.h>

struct nl_msg;

struct rblk_nbd_nl_connect {
	int index;			/* /dev/nbdN to use; -1 = the kernel picks a free one */
	uint64_t size_bytes;
	uint64_t block_size;
	uint64_t server_flags;		/* NBD transmission flags (cli/nbd/proto.h) */
	uint64_t client_flags;		/* NBD_CFLAG_*; 0 = none */
	uint64_t timeout;		/* request timeout in seconds; 0 = not sent (no timeout) */
	uint64_t dead_conn_timeout;	/* seconds; 0 = not sent */
	const int *fds;			/* one socket per connection */
	unsigned nfds;
	const char *backend_id;		/* shown in /sys/block/nbdN/backend; NULL = none */
};

/* The NBD_CMD_CONNECT message for generic-netlink family id @family. 0 or -errno. */
int rblk_nbd_nl_build_connect(struct nl_msg **out, int family, const struct rblk_nbd_nl_connect *c);
/* NBD_CMD_DISCONNECT of /dev/nbd@index. */
int rblk_nbd_nl_build_disconnect(struct nl_msg **out, int family, int index);
/*
 * NBD_CMD_RECONFIGURE of /dev/nbd@index to @size_bytes (and @block_size).
 * @backend_id: what the connect gave (the kernel refuses to reconfigure a
 * device with a backend identifier without the same one); NULL = none.
 */
int rblk_nbd_nl_build_resize(struct nl_msg **out, int family, int index, uint64_t size_bytes,
			     uint64_t block_size, const char *backend_id);
/* NBD_ATTR_INDEX from a reply message; 0, or -ENOENT when it has none. */
int rblk_nbd_nl_reply_index(struct nl_msg *msg, int *index);

/*
 * Sends NBD_CMD_CONNECT; *index gets the device the kernel used. 0 or
 * -errno: -ENOENT (no "nbd" family: load the nbd module), -EPERM (needs
 * CAP_SYS_ADMIN), -EBUSY (that device is in use), ... with the kernel's or
 * libnl's words in @err.
 */
int rblk_nbd_nl_connect(const struct rblk_nbd_nl_connect *c, int *index, char *err, size_t errlen);
int rblk_nbd_nl_disconnect(int index, char *err, size_t errlen);
/*
 * Tells the kernel /dev/nbd@index now has @size_bytes; it updates the
 * capacity and sends a change uevent. 0 or -errno with words in @err.
 */
int rblk_nbd_nl_resize(int index, uint64_t size_bytes, uint64_t block_size, const char *backend_id,
		       char *err, size_t errlen);

/* "/dev/nbd3", "nbd3" or "3" -> 3; -EINVAL otherwise. */
int rblk_nbd_parse_device(const char *s, int *index);

#endif
