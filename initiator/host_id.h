/* SPDX-License-Identifier: MIT */
/*
 * Host identity internals: the loaders of host_id.c with every path under a
 * root directory, so tests run them on a temp tree.
 */
#ifndef RBLK_INITIATOR_HOST_ID_H
#define RBLK_INITIATOR_HOST_ID_H

#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

/*
 * rblk_hostnqn_generate() reading <root>/sys/class/dmi/id/product_uuid,
 * <root>/sys/firmware/dmi/entries/<type 1>/raw and
 * <root>/proc/device-tree/ibm,partition-uuid ("" = the real system).
 */
int rblk_hostnqn_generate_at(const char *root, char *buf, size_t len);
/* rblk_host_id_load() reading <root>/etc/nvme/{hostnqn,hostid} and generating under <root>. */
int rblk_host_id_load_at(const char *root, const char *hostnqn, const char *hostid,
			 struct rblk_host_id *out);

#endif
