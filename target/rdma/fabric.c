/* SPDX-License-Identifier: MIT */
/*
 * The RDMA engine as the core's fabric (struct rblk_fabric_ops), and the
 * public constructor that puts a target on it, with the built-in backends
 * as its storage. The core reaches the engine only through this table and
 * the storage only through target/storage.h, so target/ builds and is
 * unit-tested without either, and they depend on the core, not the other
 * way round.
 */
#include "target/rdma/listener.h"

const struct rblk_fabric_ops rblk_rdma_fabric = {
	.name = "rdma",
	.create = rblk_rdma_transport_create,
	.destroy = rblk_rdma_transport_destroy,
	.listen = rblk_rdma_transport_listen,
	.start = rblk_rdma_transport_start,
	.stop = rblk_rdma_transport_stop,
	.idle_wait = rblk_rdma_transport_idle_wait,
	.fd = rblk_rdma_transport_fd,
	.poll = rblk_rdma_transport_poll,
	.admit_stats = rblk_rdma_admit_stats,
};

int rblk_target_create(const struct rblk_target_opts *opts, struct rblk_target **out)
{
	return rblk_tgt_create(opts, &rblk_rdma_fabric, &rblk_backend_storage, out);
}
