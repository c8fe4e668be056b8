/* SPDX-License-Identifier: MIT */
/*
 * Shared by the pieces of rdma_smoke (see rdma_smoke.c): the wire format of
 * its CM private data and messages, the per-connection state, and helpers
 * for connection setup, completions, messages and port counters.
 */
#ifndef RBLK_FUNC_SMOKE_H
#define RBLK_FUNC_SMOKE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "transport/rdma.h"

#define DEFAULT_PORT 4430
#define DEFAULT_SIZE (1u << 20)
#define CHUNK (64u << 10)	/* bytes per RDMA WRITE/READ WR */
#define MSG_SIZE 64
#define RECV_SLOTS 2

extern const char smoke_magic[8];

/* CM private data, client -> server (fits the 56 bytes a RoCE REQ carries). */
struct smoke_req {
	char magic[8];
	uint32_t size;		/* LE: bytes the client wants to move */
	uint32_t rsvd;
};
/* CM private data, server -> client. */
struct smoke_rep {
	char magic[8];
	uint64_t addr;		/* LE */
	uint32_t rkey;		/* LE */
	uint32_t len;		/* LE */
};
/* SEND messages: the client's "done" and the server's verdict. */
struct smoke_msg {
	char magic[8];
	uint32_t kind;		/* LE: 1 = done, 2 = verdict */
	uint32_t ok;		/* LE: 1 = bytes matched */
	uint64_t seed;		/* LE */
	uint64_t bad_offset;	/* LE: first mismatch, when !ok */
};
_Static_assert(sizeof(struct smoke_req) == 16, "smoke_req");
_Static_assert(sizeof(struct smoke_rep) == 24, "smoke_rep");
_Static_assert(sizeof(struct smoke_msg) <= MSG_SIZE, "smoke_msg");

enum { MSG_DONE = 1, MSG_VERDICT = 2 };

struct opts {
	bool devices;
	bool server;
	const char *addr;
	const char *src;
	uint16_t port;
	uint32_t size;
	int timeout_s;
	int connect_timeout_s;
	bool check_counters;
	bool verbose;
};

/* Everything one side holds; torn down in reverse by conn_cleanup(). */
struct conn {
	struct rblk_cm_channel *ch;
	struct rblk_cm_id *listen_id;
	struct rblk_cm_id *id;
	struct rblk_pd *pd;
	struct rblk_cq *cq;
	struct rblk_qp *qp;
	struct rblk_mr_pool *data;
	struct rblk_mr_pool *msgs;
	struct rblk_cm_port_info where;
	struct rblk_device_attr attr;
	struct rblk_port_counters before;
	void *recv_buf[RECV_SLOTS];	/* posted receives; NULL once completed */
	void *data_buf[2];		/* data units taken from the pool */
	bool connected;
};

extern const char *smoke_role;	/* "rdma_smoke server", ... for messages */
extern bool smoke_verbose;

/* "<role>: FAIL: ..." on stderr. */
void smoke_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<role>: ..." on stdout, with --verbose only. */
void smoke_info(const struct opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t smoke_now_ms(void);
/* A pattern both sides regenerate from a seed; check returns the first bad offset or -1. */
void smoke_pattern_fill(uint8_t *buf, size_t len, uint64_t seed);
int64_t smoke_pattern_check(const uint8_t *buf, size_t len, uint64_t seed);
/* Waits for a CM event of type @want; -ECONNREFUSED for REJECTED, the event status otherwise. */
int smoke_expect_event(struct conn *c, enum rblk_cm_event_type want, int timeout_ms,
		       struct rblk_cm_event *ev);
/* PD, CQ, QP, pools and posted receives on c->id's device. */
int smoke_setup_resources(struct conn *c, const struct opts *o, bool remote_data);
/* Releases everything in @c, in reverse order; safe on a partial setup. */
void smoke_conn_cleanup(struct conn *c);
/* Next completion, which must be a successful @want. */
int smoke_wait_wc(struct conn *c, enum rblk_wc_opcode want, struct rblk_wc *out, int timeout_ms);
int smoke_send_msg(struct conn *c, uint32_t kind, bool ok, uint64_t seed, uint64_t bad_offset);
int smoke_recv_msg(struct conn *c, uint32_t kind, struct smoke_msg *out, int timeout_ms);
/* Counters now vs c->before: crossed >= @moved, unless --no-counter-check. */
int smoke_check_counters(struct conn *c, const struct opts *o, uint64_t moved, char *summary,
			 size_t len);
/* Where @id lives (printed when @print) and the "before" counters there; -ENOTCONN if unbound. */
int smoke_bind_report(struct conn *c, struct rblk_cm_id *id, const char *what, bool print);
/* --devices mode. */
int smoke_run_devices(const struct opts *o, char **addrs, int naddrs);

#endif
