/* SPDX-License-Identifier: MIT */
/*
 * target_cpu's NVMe host, living inside the in-process fabric: brings one
 * controller up the way the Linux host does (CM connect with NVMe/RDMA
 * private data, Fabrics Connect on the admin queue, CC.EN = 1, wait for
 * CSTS.RDY, Identify, then I/O queues connected with the controller's
 * CNTLID), and then drives each I/O queue as a closed loop: every response
 * the target SENDs is checked (status, CID) and answered at once, in the
 * same thread, with the next command on that slot, so the queue depth stays
 * at what was asked.
 *
 * Set-up runs on the caller's thread and waits for each response; the loop
 * runs on the poll group's thread, inside the fabric's flush of the target's
 * response.
 */
#ifndef RBLK_BENCH_TARGET_CPU_HOST_H
#define RBLK_BENCH_TARGET_CPU_HOST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "bench/fabric/fabric.h"

/* One queue's workload. */
struct host_wl {
	const char *name;
	bool write;               /* else read */
	uint32_t bs;              /* bytes per I/O */
	unsigned qd;              /* outstanding per queue */
	/*
	 * Half the I/Os write, half read, and reads check what they get: each
	 * block either never written (zeroes) or stamped with its own LBA.
	 */
	bool verify;
};

struct host_ctrl;

/* Figures of one queue; the loop's thread writes them, any thread reads. */
struct host_qstats {
	uint64_t done;            /* I/Os completed */
	uint64_t verified;        /* blocks read back with their written stamp */
};

/* What the controller told the host. */
struct host_info {
	uint16_t cntlid;
	uint32_t icd_bytes;       /* in-capsule data the I/O queues take (IOCCSZ - 64) */
	uint32_t mdts_bytes;      /* 0: no limit */
	uint64_t nsze;            /* namespace 1, blocks */
	uint32_t lba_size;
};

/*
 * Connects a controller to subnqn at dst with nio I/O queues of depth
 * entries. On failure err says which step and why.
 */
int host_ctrl_connect(const struct sockaddr *dst, const char *subnqn, unsigned nio,
		      unsigned depth, struct host_ctrl **out, char *err, size_t errlen);
const struct host_info *host_ctrl_info(const struct host_ctrl *c);
/* The poll group thread that serves I/O queue i (0-based), known once it answered. */
struct fab_thread *host_queue_thread(const struct host_ctrl *c, unsigned i);
/* Whether writes of wl go in the capsule (else keyed SGL, pulled by RDMA READ). */
bool host_wl_incapsule(const struct host_ctrl *c, const struct host_wl *wl);
/* Starts the loop on I/O queue i: wl.qd commands, then one per response. */
int host_queue_start(struct host_ctrl *c, unsigned i, const struct host_wl *wl, uint64_t seed);
void host_queue_stats(const struct host_ctrl *c, unsigned i, struct host_qstats *out);
/*
 * Stops every loop: no new commands, waits (up to timeout_ms) for the
 * outstanding ones. -ETIMEDOUT.
 */
int host_ctrl_stop(struct host_ctrl *c, int timeout_ms);
/* CC.SHN normal and CSTS.SHST complete, after host_ctrl_stop(). */
int host_ctrl_shutdown(struct host_ctrl *c, char *err, size_t errlen);
/* After the target went away (its DISCONNECTED events are acked here). NULL is fine. */
void host_ctrl_destroy(struct host_ctrl *c);

#endif
