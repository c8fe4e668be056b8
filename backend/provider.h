/* SPDX-License-Identifier: MIT */
/*
 * The built-in backends as the target's storage (backend/provider.c; the
 * table itself, rblk_backend_storage, is declared with its contract in
 * target/storage.h), and the path rules they share with the public
 * rblk_ns_path_check() (backend/ns_path.c).
 */
#ifndef RBLK_BACKEND_PROVIDER_H
#define RBLK_BACKEND_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

struct rblk_storage;

/*
 * The SIZE of "mem:SIZE" / "null:SIZE": rblk_size_parse() (common/parse.h:
 * "64M", "1g", "4096", "2GiB"), and not 0. 0, or -EINVAL / -ERANGE with the
 * reason in @why.
 */
int rblk_backend_mem_size(const char *s, uint64_t *out, char *why, size_t len);

/*
 * Tests only: the depth of the backend queues the poll groups attach from
 * now on (the target's max_queue_depth otherwise), to fill one on purpose.
 */
void rblk_backend_storage_set_depth(struct rblk_storage *s, unsigned depth);

#endif
