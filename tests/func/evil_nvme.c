/* SPDX-License-Identifier: MIT */
/*
 * evil_host's NVMe side: SQE builders that can write any SGL, the "send this
 * and expect that status" check every scenario is made of, and an honest
 * controller bring-up (admin Connect, CC.EN, CSTS.RDY, Identify, I/O queue
 * Connect) for the scenarios that misbehave only later.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "evil.h"
#include "protocol/connect.h"
#include "protocol/names.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_regs.h"
#include "protocol/sgl.h"

#define CMD_TIMEOUT_MS 10000

int evil_failures;

void evil_say(const char *fmt, ...)
{
	va_list ap;

	printf("evil_host: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void evil_fail(const char *fmt, ...)
{
	va_list ap;

	printf("evil_host: FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	evil_failures++;
}

void evil_sqe(struct nvme_sqe *s, uint8_t opc, uint16_t cid)
{
	memset(s, 0, sizeof(*s));
	s->opc = opc;
	s->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	s->cid = rblk_cpu_to_le16(cid);
	rblk_sgl_encode_null(&s->sgl1);
}

void evil_sgl_data(struct nvme_sqe *s, const struct evil_conn *c, size_t off, uint32_t len)
{
	rblk_sgl_encode_keyed(&s->sgl1, (uint64_t)(uintptr_t)(c->data + off), len,
			      rblk_mr_rkey(c->data_mr), false);
}

void evil_sgl_raw(struct nvme_sqe *s, uint8_t type, uint64_t addr, uint32_t len, uint32_t key)
{
	struct nvme_sgl_desc *d = &s->sgl1;

	memset(d, 0, sizeof(*d));
	d->addr = rblk_cpu_to_le64(addr);
	rblk_put_le24(d->keyed.length, len);
	rblk_put_le32(d->keyed.key, key);
	d->keyed.type = type;
}

void evil_rw(struct nvme_sqe *s, uint8_t opc, uint16_t cid, uint64_t slba, uint32_t nblocks)
{
	struct nvme_rw_cmd *rw = (struct nvme_rw_cmd *)s;

	evil_sqe(s, opc, cid);
	rw->nsid = rblk_cpu_to_le32(1);
	rw->slba = rblk_cpu_to_le64(slba);
	rw->nlb = rblk_cpu_to_le16((uint16_t)(nblocks - 1));
}

static const char *status_name(uint16_t st, uint8_t opc)
{
	return st ? rblk_nvme_cmd_status_str(st, opc) : "success";
}

int evil_expect(struct evil_conn *c, const char *what, const void *sqe, const void *icd,
		uint32_t icd_len, uint16_t want, int64_t dw0_want)
{
	const struct nvme_sqe *s = sqe;
	uint16_t cid = rblk_le16(s->cid);
	struct nvme_cqe cqe;
	uint16_t st, code;
	uint32_t dw0;
	int ret;

	ret = evil_send(c, sqe, icd, icd_len);
	if (!ret)
		ret = evil_wait_cqe(c, cid, &cqe, CMD_TIMEOUT_MS);
	if (ret) {
		evil_fail("%s: %s: no CQE for cid %#x: %s%s", c->name, what, cid, strerror(-ret),
			  c->broken ? " (the queue broke)" : c->disconnected ? " (disconnected)" : "");
		return -1;
	}
	st = nvme_cqe_status(&cqe);
	code = st & NVME_STATUS_CODE_MASK;
	dw0 = rblk_le32(cqe.dw0);
	if (code != want || (want && !(st & NVME_SC_DNR)) ||
	    (dw0_want >= 0 && dw0 != (uint32_t)dw0_want)) {
		evil_fail("%s: %s: cid %#x: got %s (%#x) dw0 %#x, want %s (%#x)%s", c->name, what,
			  cid, status_name(st, s->opc), st, dw0, status_name(want, s->opc), want,
			  want ? " with DNR" : "");
		return -1;
	}
	evil_say("ok: %s: %s: cid %#x -> %s (%#x) dw0 %#x", c->name, what, cid,
		 status_name(st, s->opc), st, dw0);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Bring-up.                                                                 */

#define CONNECT_DATA_OFF 0

void evil_connect_cmd(struct nvme_sqe *s, struct evil_conn *c, const struct evil_target *t,
		      uint16_t cid, uint16_t qid, uint16_t sqsize, uint16_t cntlid)
{
	struct rblk_connect_info ci;
	struct nvmf_connect_data *d = (struct nvmf_connect_data *)(c->data + CONNECT_DATA_OFF);

	memset(&ci, 0, sizeof(ci));
	ci.qid = qid;
	ci.sqsize = sqsize;
	ci.kato_ms = 0; /* no keep-alive: scenarios pause as they like */
	ci.cntlid = cntlid;
	memcpy(ci.hostid, t->hostid, sizeof(ci.hostid));
	snprintf(ci.subnqn, sizeof(ci.subnqn), "%s", t->subnqn);
	snprintf(ci.hostnqn, sizeof(ci.hostnqn), "%s", t->hostnqn);
	rblk_connect_encode(&ci, cid, (struct nvmf_connect_cmd *)s, d);
	evil_sgl_data(s, c, CONNECT_DATA_OFF, NVMF_CONNECT_DATA_SIZE);
}

static int run(struct evil_conn *c, struct nvme_sqe *s, struct nvme_cqe *cqe, const char *what)
{
	int ret = evil_send(c, s, NULL, 0);

	if (!ret)
		ret = evil_wait_cqe(c, rblk_le16(s->cid), cqe, CMD_TIMEOUT_MS);
	if (ret) {
		evil_fail("%s: %s: %s", c->name, what, strerror(-ret));
		return -1;
	}
	if (nvme_cqe_status(cqe)) {
		evil_fail("%s: %s: %s (%#x)", c->name, what,
			  status_name(nvme_cqe_status(cqe), s->opc), nvme_cqe_status(cqe));
		return -1;
	}
	return 0;
}

static void prop_cmd(struct nvme_sqe *s, uint16_t cid, uint8_t fctype, uint32_t ofst,
		     uint32_t value)
{
	struct nvmf_property_set_cmd *p = (struct nvmf_property_set_cmd *)s;

	evil_sqe(s, NVME_ADMIN_FABRICS, cid);
	p->fctype = fctype;
	p->attrib = 0; /* 4 bytes */
	p->ofst = rblk_cpu_to_le32(ofst);
	p->value = rblk_cpu_to_le64(value);
}

int evil_ctrl_up(struct evil_ctrl *x, const struct evil_target *t)
{
	const struct nvme_id_ns *ns;
	struct nvme_sqe s;
	struct nvme_cqe cqe;
	struct evil_cm cm;
	uint32_t cc;
	int ret;

	x->admin.name = "admin";
	x->next_cid = 0x100;
	evil_cm_std(&cm, 0, 32, 31);
	ret = evil_conn_open(&x->admin, t, &cm);
	if (ret) {
		evil_fail("admin queue: connect: %s", strerror(-ret));
		return -1;
	}
	evil_connect_cmd(&s, &x->admin, t, x->next_cid++, 0, 31, NVMF_CNTLID_DYNAMIC);
	if (run(&x->admin, &s, &cqe, "Connect"))
		return -1;
	x->cntlid = (uint16_t)rblk_le32(cqe.dw0);

	cc = NVME_CC_EN | (6u << NVME_CC_IOSQES_SHIFT) | (4u << NVME_CC_IOCQES_SHIFT);
	prop_cmd(&s, x->next_cid++, NVMF_FCTYPE_PROP_SET, NVME_REG_CC, cc);
	if (run(&x->admin, &s, &cqe, "Property Set CC.EN"))
		return -1;
	for (int i = 0;; i++) {
		prop_cmd(&s, x->next_cid++, NVMF_FCTYPE_PROP_GET, NVME_REG_CSTS, 0);
		if (run(&x->admin, &s, &cqe, "Property Get CSTS"))
			return -1;
		if (rblk_le32(cqe.dw0) & NVME_CSTS_RDY)
			break;
		if (i == 100) {
			evil_fail("admin: CSTS.RDY not set 5 s after CC.EN");
			return -1;
		}
		usleep(50000);
	}

	evil_sqe(&s, NVME_ADMIN_IDENTIFY, x->next_cid++);
	s.nsid = rblk_cpu_to_le32(1);
	s.cdw10 = rblk_cpu_to_le32(NVME_ID_CNS_NS);
	evil_sgl_data(&s, &x->admin, 0, 4096);
	if (run(&x->admin, &s, &cqe, "Identify Namespace 1"))
		return -1;
	ns = (const struct nvme_id_ns *)x->admin.data;
	x->lba_size = 1u << ns->lbaf[nvme_ns_flbas_index(ns->flbas)].ds;
	if (x->lba_size < 512 || x->lba_size > 65536) {
		evil_fail("admin: Identify Namespace says the block size is %u", x->lba_size);
		return -1;
	}
	return 0;
}

int evil_io_up(struct evil_ctrl *x, const struct evil_target *t, uint16_t qid, uint16_t depth,
	       const struct evil_cm *tweak)
{
	struct nvme_sqe s;
	struct nvme_cqe cqe;
	struct evil_cm cm;
	int ret;

	x->io.name = "io";
	if (tweak)
		cm = *tweak;
	else
		evil_cm_std(&cm, qid, depth, (uint16_t)(depth - 1));
	ret = evil_conn_open(&x->io, t, &cm);
	if (ret) {
		evil_fail("I/O queue %u: connect: %s", qid, strerror(-ret));
		return -1;
	}
	evil_connect_cmd(&s, &x->io, t, x->next_cid++, qid, (uint16_t)(depth - 1), x->cntlid);
	return run(&x->io, &s, &cqe, "I/O queue Connect");
}

void evil_ctrl_down(struct evil_ctrl *x)
{
	if (x->io.ch)
		evil_conn_close(&x->io);
	if (x->admin.ch)
		evil_conn_close(&x->admin);
}

static void pattern(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t v = seed * 0x9E3779B97F4A7C15ULL + 1;

	for (size_t i = 0; i < len; i++) {
		v ^= v << 13;
		v ^= v >> 7;
		v ^= v << 17;
		p[i] = (uint8_t)v;
	}
}

int evil_verify_io(struct evil_ctrl *x, uint64_t slba, uint32_t nblocks, uint64_t seed)
{
	struct evil_conn *c = &x->io;
	size_t len = (size_t)nblocks * x->lba_size;
	uint8_t *want = malloc(len);
	struct nvme_sqe s;
	struct nvme_cqe cqe;
	int ret = -1;

	if (!want || len > EVIL_DATA_SIZE / 2) {
		evil_fail("verify: cannot check %zu bytes", len);
		free(want);
		return -1;
	}
	pattern(want, len, seed);
	memcpy(c->data, want, len);
	evil_rw(&s, NVME_IO_WRITE, x->next_cid++, slba, nblocks);
	evil_sgl_data(&s, c, 0, (uint32_t)len);
	if (run(c, &s, &cqe, "verify: Write"))
		goto out;
	memset(c->data + len, 0, len);
	evil_rw(&s, NVME_IO_READ, x->next_cid++, slba, nblocks);
	evil_sgl_data(&s, c, len, (uint32_t)len);
	if (run(c, &s, &cqe, "verify: Read"))
		goto out;
	if (memcmp(c->data + len, want, len)) {
		evil_fail("verify: %zu bytes at LBA %llu read back differ from what was written",
			  len, (unsigned long long)slba);
		goto out;
	}
	ret = 0;
out:
	free(want);
	return ret;
}
