/* SPDX-License-Identifier: MIT */
/*
 * Private to transport/: the one place where rdma-core's four error
 * conventions become rblk's single one (0 or -errno).
 *
 *   positive errno returned        ibv_post_send/recv, ibv_req_notify_cq,
 *                                  ibv_query_device/port, ibv_dealloc_pd, ...
 *   negative return                ibv_poll_cq (the value is not an errno)
 *   NULL with errno                ibv_alloc_pd, ibv_reg_mr, ibv_create_cq, ...
 *   -1 with errno                  every rdma_*() call, ibv_get_cq_event
 *
 * Providers are not always careful to set errno on the NULL/-1 paths, so a
 * zero errno becomes -EIO rather than a false success.
 */
#ifndef RBLK_TRANSPORT_ERR_H
#define RBLK_TRANSPORT_ERR_H

#include <errno.h>

/* After a NULL or -1 return: the errno it left, as -errno (never 0). */
static inline int err_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/*
 * After a call whose int result is 0 on success, a positive errno, or a
 * negative value (-1 with errno, or already -errno).
 */
static inline int err_ret(int ret)
{
	if (ret == 0)
		return 0;
	if (ret > 0)
		return -ret;
	if (ret == -1)
		return err_errno();
	return ret;
}

#endif
