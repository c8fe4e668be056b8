/* SPDX-License-Identifier: MIT */
/*
 * evil_host: a hostile NVMe/RDMA host for rblk-target, run by
 * tests/vm/t/47-target-hostile.sh inside the Soft-RoCE VM. It speaks raw
 * rdma_cm and verbs (through transport/) so it can send what no honest
 * initiator would, one scenario per subcommand, and checks the target's
 * answers against nvmet's (docs/interop.md §2.3, §6.6, §4.2, §4.3):
 *
 *   cm            bad CM private data / parameters -> REJECT with the right status
 *   admin         commands before Connect, malformed Connects -> the right status, CID echoed
 *   io            malformed I/O commands (SGL length/type/offset, MDTS, in-capsule) and
 *                 I/O queue Connects -> the right status
 *   rdma-rkey     a Write whose keyed SGL has a bad rkey (the target's RDMA READ fails)
 *   rdma-tiny     a Read into a 512-byte MR (the target's RDMA WRITE fails)
 *   rdma-long     a capsule longer than the target's receive buffer
 *   rdma-short    a capsule shorter than an SQE
 *   rdma-connect  an admin Connect whose data cannot be read
 *                 (each rdma-*: that queue fails or errors, never a success; another
 *                 controller connected before keeps working; a new one works)
 *   flood         more commands than the queue has entries, posted at once
 *   abort-exit    64 commands in flight (128 KiB writes and reads), then _exit()
 *   abort-qp      the same, then destroy the QP but keep the CM id for 15 s
 *   abort-norecv  the same without receives for the responses, then _exit() after 3 s
 *   check         an honest controller: connect, write, read back, compare
 *
 * Exit: 0 every check passed, 1 a check failed, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evil.h"
#include "protocol/cm.h"
#include "protocol/nvme_log.h"
#include "protocol/nvme_rdma.h"
#include "protocol/nvmf.h"
#include "protocol/sgl.h"

static struct evil_target T;
static uint32_t mdts = 128 * 1024;   /* the target's --max-io-size */
static uint32_t icd_size = 8192;     /* the target's --in-capsule */
static uint16_t max_depth = 128;     /* the target's --queue-depth */
static uint16_t max_qid = 64;        /* the target's I/O queues per controller */

#define NOSUCH_NQN "nqn.2024-01.io.rblk:evil-nosuch"

/* ------------------------------------------------------------------------ */
/* cm                                                                        */

/*
 * One rejected CONNECT_REQUEST. A RoCE REQ does not carry the private data
 * length: the CM pads it to 56 bytes, so short or missing data reads as
 * zeros (HRQSIZE 0) at the target; @alt accepts the status a transport
 * that does carry the length would give.
 */
static void expect_reject(const char *what, const struct evil_cm *cm, uint16_t want, uint16_t alt)
{
	struct evil_conn c = { .name = "cm" };
	int ret = evil_conn_open(&c, &T, cm);

	if (ret != -ECONNREFUSED)
		evil_fail("cm: %s: %s, want a reject with status %#x (%s)", what,
			  ret ? strerror(-ret) : "accepted", want, rblk_cm_rej_str(want));
	else if (!c.rej_has_sts)
		evil_fail("cm: %s: rejected without NVMe/RDMA private data", what);
	else if (c.rej_sts != want && c.rej_sts != alt)
		evil_fail("cm: %s: rejected with %#x (%s), want %#x (%s)", what, c.rej_sts,
			  rblk_cm_rej_str(c.rej_sts), want, rblk_cm_rej_str(want));
	else
		evil_say("ok: cm: %s -> reject %#x (%s)", what, c.rej_sts,
			 rblk_cm_rej_str(c.rej_sts));
	evil_conn_close(&c);
}

static void scenario_cm(void)
{
	struct evil_conn c = { .name = "cm" };
	struct evil_cm cm;

	evil_cm_std(&cm, 0, 32, 31);
	cm.priv[0] = 1;
	expect_reject("RECFMT 1", &cm, NVME_RDMA_CM_INVALID_RECFMT, 0);
	evil_cm_std(&cm, 0, 32, 31);
	memset(cm.priv, 0xff, sizeof(cm.priv));
	cm.priv_len = sizeof(cm.priv);
	expect_reject("all private data bytes 0xff", &cm, NVME_RDMA_CM_INVALID_RECFMT, 0);
	evil_cm_std(&cm, 0, 32, 32);
	expect_reject("admin HSQSIZE 32 (33 entries)", &cm, NVME_RDMA_CM_INVALID_HSQSIZE, 0);
	evil_cm_std(&cm, 0, 32, 0xffff);
	expect_reject("admin HSQSIZE 0xffff", &cm, NVME_RDMA_CM_INVALID_HSQSIZE, 0);
	evil_cm_std(&cm, 1, 128, max_depth);
	expect_reject("I/O HSQSIZE one past --queue-depth", &cm, NVME_RDMA_CM_INVALID_HSQSIZE, 0);
	evil_cm_std(&cm, 7, 128, 0xffff);
	expect_reject("I/O HSQSIZE 0xffff", &cm, NVME_RDMA_CM_INVALID_HSQSIZE, 0);
	evil_cm_std(&cm, 1, 1, 0);
	expect_reject("I/O HSQSIZE 0 (one entry)", &cm, NVME_RDMA_CM_INVALID_HSQSIZE, 0);
	evil_cm_std(&cm, 0, 0, 31);
	expect_reject("HRQSIZE 0", &cm, NVME_RDMA_CM_INVALID_HRQSIZE, 0);
	evil_cm_std(&cm, 0, 32, 31);
	cm.priv_len = 4;
	expect_reject("4 bytes of private data", &cm, NVME_RDMA_CM_INVALID_HRQSIZE,
		      NVME_RDMA_CM_INVALID_LEN);
	evil_cm_std(&cm, 0, 32, 31);
	cm.priv_len = 0;
	expect_reject("no private data", &cm, NVME_RDMA_CM_INVALID_HRQSIZE,
		      NVME_RDMA_CM_INVALID_LEN);
	evil_cm_std(&cm, 0, 32, 31);
	cm.responder_resources = 0;
	expect_reject("responder_resources 0 (no RDMA READ possible)", &cm,
		      NVME_RDMA_CM_INVALID_IRD, 0);

	/* A QID no controller can have (nvmet would wait for the Connect to say so). */
	evil_cm_std(&cm, (uint16_t)(max_qid + 1), 32, 31);
	expect_reject("QID one past the I/O queues a controller may have", &cm,
		      NVME_RDMA_CM_INVALID_QID, 0);
	evil_cm_std(&cm, 0xffff, 32, 31);
	expect_reject("QID 0xffff", &cm, NVME_RDMA_CM_INVALID_QID, 0);

	/*
	 * HRQSIZE has no bound in nvmet (it sizes its send queue by it; we do
	 * not need to). Accept, then leave without a word: the target must
	 * close the queue.
	 */
	evil_cm_std(&cm, max_qid, 0xffff, 31);
	if (evil_conn_open(&c, &T, &cm))
		evil_fail("cm: the last QID with HRQSIZE 0xffff: not accepted (nvmet accepts it)");
	else
		evil_say("ok: cm: the last QID with HRQSIZE 0xffff -> accepted, as nvmet does");
	evil_conn_close(&c);
	evil_cm_std(&cm, 0, 32, 31);
	if (evil_conn_open(&c, &T, &cm))
		evil_fail("cm: a valid admin queue was refused after the bad ones");
	else
		evil_say("ok: cm: a valid admin queue is accepted after the bad ones");
	evil_conn_close(&c);
}

/* ------------------------------------------------------------------------ */
/* admin                                                                     */

static void connect_variant(struct evil_conn *c, const char *what, uint16_t cid,
			    void (*tweak)(struct nvme_sqe *, struct nvmf_connect_data *,
					  struct evil_conn *),
			    uint16_t want, int64_t dw0)
{
	struct nvme_sqe s;

	evil_connect_cmd(&s, c, &T, cid, 0, 31, NVMF_CNTLID_DYNAMIC);
	if (tweak)
		tweak(&s, (struct nvmf_connect_data *)c->data, c);
	evil_expect(c, what, &s, NULL, 0, want, dw0);
}

static void t_psdt_prp(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	s->flags = NVME_CMD_PSDT_PRP;
}
static void t_fused(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	s->flags |= NVME_CMD_FUSE_FIRST;
}
static void t_sgl_segment(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	s->sgl1.keyed.type = NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_SEGMENT, 0);
}
static void t_sgl_last_seg(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	s->sgl1.keyed.type = NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_LAST_SEGMENT, 0);
}
static void t_sgl_data_addr(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	s->sgl1.keyed.type = NVME_SGL_DATA;
}
static void t_sgl_keyed_sub5(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	s->sgl1.keyed.type = NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_KEYED_DATA_BLOCK, 5);
}
static void t_sgl_len0(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	evil_sgl_data(s, c, 0, 0);
}
static void t_sgl_len512(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	evil_sgl_data(s, c, 0, 512);
}
static void t_sgl_len4096(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	evil_sgl_data(s, c, 0, 4096);
}
static void t_sgl_len_max(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	evil_sgl_data(s, c, 0, NVME_SGL_KEYED_MAX_LEN);
}
static void t_incapsule(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	rblk_sgl_encode_incapsule(&s->sgl1, 0, NVMF_CONNECT_DATA_SIZE);
}
static void t_recfmt(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	((struct nvmf_connect_cmd *)s)->recfmt = rblk_cpu_to_le16(1);
}
static void t_sqsize0(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	((struct nvmf_connect_cmd *)s)->sqsize = 0;
}
static void t_sqsize_big(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	((struct nvmf_connect_cmd *)s)->sqsize = rblk_cpu_to_le16(63);
}
static void t_qid1(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	((struct nvmf_connect_cmd *)s)->qid = rblk_cpu_to_le16(1);
}
static void t_cntlid(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	d->cntlid = rblk_cpu_to_le16(0x1234);
}
static void t_hostnqn_unterm(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	memset(d->hostnqn, 'a', sizeof(d->hostnqn));
}
static void t_subnqn_unterm(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	memset(d->subnqn, 'b', sizeof(d->subnqn));
}
static void t_subnqn_unknown(struct nvme_sqe *s, struct nvmf_connect_data *d, struct evil_conn *c)
{
	memset(d->subnqn, 0, sizeof(d->subnqn));
	strcpy(d->subnqn, NOSUCH_NQN);
}

#define SQE_IPO(field) nvmf_connect_ipo_dw0(NVMF_IATTR_SQE, offsetof(struct nvmf_connect_cmd, field))
#define DATA_IPO(field) nvmf_connect_ipo_dw0(NVMF_IATTR_DATA, offsetof(struct nvmf_connect_data, field))

static void scenario_admin(void)
{
	struct evil_conn c = { .name = "admin" };
	struct nvme_sqe s;
	struct evil_cm cm;
	uint16_t cid = 0xa000;

	evil_cm_std(&cm, 0, 32, 31);
	if (evil_conn_open(&c, &T, &cm)) {
		evil_fail("admin: the admin queue was not accepted");
		evil_conn_close(&c);
		return;
	}
	/* Before any Connect: only Connect is valid (nvmet: Invalid Opcode). */
	evil_sqe(&s, NVME_ADMIN_IDENTIFY, 0xffff);
	s.cdw10 = rblk_cpu_to_le32(1);
	evil_sgl_data(&s, &c, 0, 4096);
	evil_expect(&c, "Identify before Connect", &s, NULL, 0, NVME_SC_INVALID_OPCODE, -1);
	evil_sqe(&s, NVME_ADMIN_KEEP_ALIVE, 0);
	evil_expect(&c, "Keep Alive before Connect", &s, NULL, 0, NVME_SC_INVALID_OPCODE, -1);
	evil_sqe(&s, NVME_ADMIN_FABRICS, cid++);
	((struct nvmf_property_get_cmd *)&s)->fctype = NVMF_FCTYPE_PROP_GET;
	evil_expect(&c, "Property Get before Connect", &s, NULL, 0, NVME_SC_INVALID_OPCODE, -1);
	evil_sqe(&s, 0xC5, cid++);
	evil_expect(&c, "vendor opcode 0xC5 before Connect", &s, NULL, 0, NVME_SC_INVALID_OPCODE,
		    -1);

	/* Malformed Connects: the queue stays unconnected after each. */
	connect_variant(&c, "Connect with PSDT 00b (PRP)", cid++, t_psdt_prp,
			NVME_SC_INVALID_FIELD, -1);
	connect_variant(&c, "Connect fused", cid++, t_fused, NVME_SC_INVALID_FIELD, -1);
	connect_variant(&c, "Connect with a Segment SGL", cid++, t_sgl_segment,
			NVME_SC_SGL_INVALID_TYPE, -1);
	connect_variant(&c, "Connect with a Last Segment SGL", cid++, t_sgl_last_seg,
			NVME_SC_SGL_INVALID_TYPE, -1);
	connect_variant(&c, "Connect with a Data Block (address) SGL", cid++, t_sgl_data_addr,
			NVME_SC_INVALID_FIELD, -1);
	connect_variant(&c, "Connect with keyed SGL subtype 5", cid++, t_sgl_keyed_sub5,
			NVME_SC_INVALID_FIELD, -1);
	connect_variant(&c, "Connect with SGL length 0", cid++, t_sgl_len0,
			NVME_SC_SGL_INVALID_DATA, -1);
	connect_variant(&c, "Connect with SGL length 512", cid++, t_sgl_len512,
			NVME_SC_SGL_INVALID_DATA, -1);
	connect_variant(&c, "Connect with SGL length 4096", cid++, t_sgl_len4096,
			NVME_SC_SGL_INVALID_DATA, -1);
	connect_variant(&c, "Connect with SGL length 16 MiB - 1", cid++, t_sgl_len_max,
			NVME_SC_SGL_INVALID_DATA, -1);
	connect_variant(&c, "Connect with in-capsule data on the admin queue", cid++, t_incapsule,
			NVME_SC_SGL_INVALID_OFFSET, -1);
	connect_variant(&c, "Connect RECFMT 1", cid++, t_recfmt, NVME_SC_CONNECT_FORMAT, -1);
	connect_variant(&c, "Connect SQSIZE 0", cid++, t_sqsize0, NVME_SC_CONNECT_INVALID_PARAM,
			SQE_IPO(sqsize));
	connect_variant(&c, "Connect SQSIZE 63 on a 32-entry queue", cid++, t_sqsize_big,
			NVME_SC_CONNECT_INVALID_PARAM, SQE_IPO(sqsize));
	connect_variant(&c, "Connect QID 1 on the CM's admin queue", cid++, t_qid1,
			NVME_SC_CONNECT_INVALID_PARAM, SQE_IPO(qid));
	connect_variant(&c, "admin Connect with CNTLID 0x1234", cid++, t_cntlid,
			NVME_SC_CONNECT_INVALID_PARAM, DATA_IPO(cntlid));
	connect_variant(&c, "Connect with an unterminated HOSTNQN", cid++, t_hostnqn_unterm,
			NVME_SC_CONNECT_INVALID_PARAM, DATA_IPO(hostnqn));
	connect_variant(&c, "Connect with an unterminated SUBNQN", cid++, t_subnqn_unterm,
			NVME_SC_CONNECT_INVALID_PARAM, DATA_IPO(subnqn));
	connect_variant(&c, "Connect to an unknown SUBNQN", cid++, t_subnqn_unknown,
			NVME_SC_CONNECT_INVALID_PARAM, DATA_IPO(subnqn));

	/* Then an honest Connect works, and a second one is out of sequence. */
	connect_variant(&c, "valid Connect after the bad ones", cid++, NULL, 0, -1);
	connect_variant(&c, "second Connect on a connected queue", cid++, NULL,
			NVME_SC_CMD_SEQ_ERROR, -1);
	evil_sqe(&s, NVME_ADMIN_IDENTIFY, cid++);
	s.cdw10 = rblk_cpu_to_le32(1);
	evil_sgl_data(&s, &c, 0, 4096);
	evil_expect(&c, "Identify before CC.EN", &s, NULL, 0, NVME_SC_CMD_SEQ_ERROR, -1);
	evil_conn_close(&c);
}

/* ------------------------------------------------------------------------ */
/* io                                                                        */

static void read_sgl(struct evil_ctrl *x, const char *what, uint32_t nblocks, uint8_t type,
		     uint32_t len, uint16_t want)
{
	struct nvme_sqe s;

	evil_rw(&s, NVME_IO_READ, x->next_cid++, 0, nblocks);
	evil_sgl_raw(&s, type, (uint64_t)(uintptr_t)x->io.data, len, rblk_mr_rkey(x->io.data_mr));
	evil_expect(&x->io, what, &s, NULL, 0, want, -1);
}

static void write_icd(struct evil_ctrl *x, const char *what, uint32_t nblocks, uint64_t off,
		      uint32_t sgl_len, uint32_t sent, uint16_t want)
{
	struct nvme_sqe s;

	evil_rw(&s, NVME_IO_WRITE, x->next_cid++, 0, nblocks);
	rblk_sgl_encode_incapsule(&s.sgl1, 0, sgl_len);
	s.sgl1.addr = rblk_cpu_to_le64(off);
	evil_expect(&x->io, what, &s, NULL, sent, want, -1);
}

/* An extra I/O queue of controller @x whose Connect is broken by the caller's values. */
static void io_connect_variant(struct evil_ctrl *x, const char *what, uint16_t cm_qid,
			       uint16_t qid, uint16_t sqsize, uint16_t cntlid, bool bad_hostid,
			       uint16_t want, int64_t dw0)
{
	struct evil_conn c = { .name = "io-extra" };
	struct evil_target t = T;
	struct nvme_sqe s;
	struct evil_cm cm;

	evil_cm_std(&cm, cm_qid, 16, 15);
	if (evil_conn_open(&c, &T, &cm)) {
		evil_fail("%s: the CM connect was refused", what);
		evil_conn_close(&c);
		return;
	}
	if (bad_hostid)
		t.hostid[0] ^= 0xff;
	evil_connect_cmd(&s, &c, &t, x->next_cid++, qid, sqsize, cntlid);
	evil_expect(&c, what, &s, NULL, 0, want, dw0);
	evil_conn_close(&c);
}

static void scenario_io(void)
{
	struct evil_ctrl x;
	struct nvme_sqe s;
	uint32_t L, nb;

	memset(&x, 0, sizeof(x));
	if (evil_ctrl_up(&x, &T))
		goto out;
	/* Two I/O queues (0-based 1 and 1): a Connect for QID 3 must fail below. */
	evil_sqe(&s, NVME_ADMIN_SET_FEATURES, x.next_cid++);
	s.cdw10 = rblk_cpu_to_le32(NVME_FEAT_NUM_QUEUES);
	s.cdw11 = rblk_cpu_to_le32(1u | 1u << 16);
	evil_expect(&x.admin, "Set Features Number of Queues 2", &s, NULL, 0, 0, 0x00010001);
	if (evil_io_up(&x, &T, 1, 32, NULL))
		goto out;
	L = x.lba_size;
	nb = 4096 / L ? 4096 / L : 1;

	/* The keyed SGL must describe exactly NLB x block size (docs/interop.md §4.3). */
	read_sgl(&x, "Read with SGL half the transfer", nb, NVME_SGL_KEYED_DATA, nb * L / 2,
		 NVME_SC_SGL_INVALID_DATA);
	read_sgl(&x, "Read with SGL twice the transfer", nb, NVME_SGL_KEYED_DATA, nb * L * 2,
		 NVME_SC_SGL_INVALID_DATA);
	read_sgl(&x, "Read with a null SGL", nb, NVME_SGL_KEYED_DATA, 0,
		 NVME_SC_SGL_INVALID_DATA);
	read_sgl(&x, "Read with SGL length 16 MiB - 1", nb, NVME_SGL_KEYED_DATA,
		 NVME_SGL_KEYED_MAX_LEN, NVME_SC_SGL_INVALID_DATA);
	read_sgl(&x, "Read of 2 x MDTS", 2 * mdts / L, NVME_SGL_KEYED_DATA, 2 * mdts,
		 NVME_SC_INVALID_FIELD);
	/* Descriptor types nvmet-rdma does not take (docs/interop.md §4.2). */
	read_sgl(&x, "Read with a Segment SGL", nb, NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_SEGMENT, 0),
		 nb * L, NVME_SC_SGL_INVALID_TYPE);
	read_sgl(&x, "Read with a Bit Bucket SGL", nb,
		 NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_BIT_BUCKET, 0), nb * L, NVME_SC_SGL_INVALID_TYPE);
	read_sgl(&x, "Read with a Transport Data Block SGL", nb,
		 NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_TRANSPORT_DATA_BLOCK, 0), nb * L,
		 NVME_SC_SGL_INVALID_TYPE);
	read_sgl(&x, "Read with a vendor SGL", nb, NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_VENDOR, 0),
		 nb * L, NVME_SC_SGL_INVALID_TYPE);
	read_sgl(&x, "Read with a Data Block (address) SGL", nb, NVME_SGL_DATA, nb * L,
		 NVME_SC_INVALID_FIELD);
	read_sgl(&x, "Read with keyed SGL subtype 0xA", nb,
		 NVME_SGL_TYPE_BYTE(NVME_SGL_TYPE_KEYED_DATA_BLOCK, 0xA), nb * L,
		 NVME_SC_INVALID_FIELD);
	read_sgl(&x, "Read with in-capsule data", nb, NVME_SGL_DATA_OFFSET, nb * L,
		 NVME_SC_INVALID_FIELD);

	/* In-capsule: within IOCCSZ, and really in the capsule. */
	write_icd(&x, "in-capsule Write at offset IOCCSZ", 1, icd_size, L, L,
		  NVME_SC_SGL_INVALID_OFFSET);
	write_icd(&x, "in-capsule Write crossing the end of the in-capsule area", 1,
		  icd_size - L / 2, L, L, NVME_SC_SGL_INVALID_OFFSET);
	write_icd(&x, "in-capsule Write at offset 2^63", 1, 1ull << 63, L, L,
		  NVME_SC_SGL_INVALID_OFFSET);
	write_icd(&x, "in-capsule Write longer than the in-capsule area", icd_size / L + 1, 0,
		  icd_size + L, 0, NVME_SC_SGL_INVALID_OFFSET);
	write_icd(&x, "in-capsule Write whose data is not in the capsule", nb, 0, nb * L, L,
		  NVME_SC_SGL_INVALID_DATA);
	write_icd(&x, "in-capsule Write with SGL length != NLB", 1, 0, 2 * L, 2 * L,
		  NVME_SC_SGL_INVALID_DATA);

	evil_rw(&s, NVME_IO_WRITE, x.next_cid++, 0, 1);
	s.flags |= NVME_CMD_FUSE_FIRST;
	evil_sgl_data(&s, &x.io, 0, L);
	evil_expect(&x.io, "fused Write", &s, NULL, 0, NVME_SC_INVALID_FIELD, -1);
	evil_rw(&s, NVME_IO_WRITE, x.next_cid++, 0, 1);
	s.flags = NVME_CMD_PSDT_SGL_MPTR_SGL;
	evil_sgl_data(&s, &x.io, 0, L);
	evil_expect(&x.io, "Write with PSDT 10b", &s, NULL, 0, NVME_SC_INVALID_FIELD, -1);
	evil_sqe(&s, 0x7E, x.next_cid++);
	s.nsid = rblk_cpu_to_le32(1);
	evil_expect(&x.io, "I/O opcode 0x7E", &s, NULL, 0, NVME_SC_INVALID_OPCODE, -1);
	evil_connect_cmd(&s, &x.io, &T, x.next_cid++, 1, 31, x.cntlid);
	evil_expect(&x.io, "Connect on a live I/O queue", &s, NULL, 0, NVME_SC_CMD_SEQ_ERROR, -1);

	/* After all that, the queue still moves data. */
	if (!evil_verify_io(&x, 8, 64 * 1024 / L, 1))
		evil_say("ok: io: the queue still writes and reads back correctly");

	/* I/O queue Connects with wrong values (nvmet's fabrics-cmd.c rules, docs/interop.md §6.6). */
	io_connect_variant(&x, "I/O Connect QID 3 on CM QID 2", 2, 3, 15, x.cntlid, false,
			   NVME_SC_CONNECT_INVALID_PARAM, SQE_IPO(qid));
	io_connect_variant(&x, "I/O Connect QID 3 (past Number of Queues = 2)", 3, 3, 15,
			   x.cntlid, false, NVME_SC_CONNECT_INVALID_PARAM, SQE_IPO(qid));
	io_connect_variant(&x, "I/O Connect SQSIZE past the CM's HSQSIZE", 2, 2, 31, x.cntlid,
			   false, NVME_SC_CONNECT_INVALID_PARAM, SQE_IPO(sqsize));
	io_connect_variant(&x, "I/O Connect to another CNTLID", 2, 2, 15,
			   (uint16_t)(x.cntlid + 100), false, NVME_SC_CONNECT_INVALID_PARAM,
			   DATA_IPO(cntlid));
	io_connect_variant(&x, "I/O Connect with another HOSTID", 2, 2, 15, x.cntlid, true,
			   NVME_SC_CONNECT_INVALID_PARAM, DATA_IPO(hostid));
	io_connect_variant(&x, "I/O Connect QID 1 twice", 1, 1, 15, x.cntlid, false,
			   NVME_SC_CMD_SEQ_ERROR, -1);
out:
	evil_ctrl_down(&x);
}

/* ------------------------------------------------------------------------ */
/* rdma-*: the target's own RDMA operations fail                             */

/* A second controller, up before the attack: it must not notice it. */
static int bystander_up(struct evil_ctrl *b)
{
	memset(b, 0, sizeof(*b));
	if (evil_ctrl_up(b, &T) || evil_io_up(b, &T, 1, 32, NULL))
		return -1;
	b->admin.name = "bystander-admin";
	b->io.name = "bystander-io";
	return evil_verify_io(b, 1024, 16, 7);
}

/*
 * What a failed RDMA operation of the target may look like from here: an
 * error CQE for that command, or the queue going away. Never success.
 */
static void expect_fail_or_drop(struct evil_conn *c, const char *what, uint16_t cid)
{
	struct nvme_cqe cqe;
	int ret = evil_wait_cqe(c, cid, &cqe, 30000);

	if (ret == 0 && nvme_cqe_status(&cqe) == 0)
		evil_fail("%s: %s: the target reported success", c->name, what);
	else if (ret == 0)
		evil_say("ok: %s: %s -> error %#x", c->name, what, nvme_cqe_status(&cqe));
	else if (ret == -ECONNRESET)
		evil_say("ok: %s: %s -> the queue went down (%s%s)", c->name, what,
			 c->disconnected ? "target disconnected" : "",
			 c->broken && !c->disconnected ? rblk_wc_status_str(c->first_wc_status) : "");
	else
		evil_fail("%s: %s: neither a CQE nor a disconnect in 30 s", c->name, what);
}

static void after_attack(struct evil_ctrl *b, const char *what)
{
	struct evil_ctrl f;

	if (evil_verify_io(b, 1024, 16, 8))
		evil_fail("%s: the bystander controller stopped working", what);
	else
		evil_say("ok: %s: a controller connected before still works", what);
	memset(&f, 0, sizeof(f));
	if (!evil_ctrl_up(&f, &T) && !evil_io_up(&f, &T, 1, 32, NULL) &&
	    !evil_verify_io(&f, 2048, 16, 9))
		evil_say("ok: %s: a new controller works", what);
	else
		evil_fail("%s: a new controller does not work", what);
	evil_ctrl_down(&f);
}

static void scenario_rdma(const char *which)
{
	struct evil_ctrl b, x;
	struct nvme_sqe s;
	uint16_t cid;

	memset(&x, 0, sizeof(x));
	if (bystander_up(&b))
		goto out;
	if (!strcmp(which, "connect")) {
		/* The admin Connect's data is the target's first RDMA READ. */
		struct evil_cm cm;

		x.admin.name = "victim-admin";
		evil_cm_std(&cm, 0, 32, 31);
		if (evil_conn_open(&x.admin, &T, &cm)) {
			evil_fail("victim: admin queue not accepted");
			goto out;
		}
		evil_connect_cmd(&s, &x.admin, &T, 0x77, 0, 31, NVMF_CNTLID_DYNAMIC);
		evil_sgl_raw(&s, NVME_SGL_KEYED_DATA, (uint64_t)(uintptr_t)x.admin.data,
			     NVMF_CONNECT_DATA_SIZE, rblk_mr_rkey(x.admin.data_mr) ^ 0xffff00);
		evil_send(&x.admin, &s, NULL, 0);
		expect_fail_or_drop(&x.admin, "Connect with a bad rkey", 0x77);
		goto done;
	}
	if (evil_ctrl_up(&x, &T) || evil_io_up(&x, &T, 1, 32, NULL))
		goto out;
	x.admin.name = "victim-admin";
	x.io.name = "victim-io";
	cid = x.next_cid++;
	if (!strcmp(which, "rkey")) {
		evil_rw(&s, NVME_IO_WRITE, cid, 0, 4096 / x.lba_size);
		evil_sgl_raw(&s, NVME_SGL_KEYED_DATA, (uint64_t)(uintptr_t)x.io.data, 4096,
			     rblk_mr_rkey(x.io.data_mr) ^ 0xffff00);
		evil_send(&x.io, &s, NULL, 0);
		expect_fail_or_drop(&x.io, "Write with a bad rkey", cid);
	} else if (!strcmp(which, "tiny")) {
		evil_rw(&s, NVME_IO_READ, cid, 0, 4096 / x.lba_size);
		evil_sgl_raw(&s, NVME_SGL_KEYED_DATA, (uint64_t)(uintptr_t)x.io.tiny, 4096,
			     rblk_mr_rkey(x.io.tiny_mr));
		evil_send(&x.io, &s, NULL, 0);
		expect_fail_or_drop(&x.io, "Read of 4 KiB into a 512-byte MR", cid);
	} else if (!strcmp(which, "long")) {
		/* More than the receive buffer holds: the target's RECV fails. */
		evil_rw(&s, NVME_IO_WRITE, cid, 0, 1);
		rblk_sgl_encode_incapsule(&s.sgl1, 0, x.lba_size);
		evil_send(&x.io, &s, NULL, icd_size + 4096);
		expect_fail_or_drop(&x.io, "a capsule longer than the receive buffer", cid);
	} else if (!strcmp(which, "short")) {
		evil_rw(&s, NVME_IO_READ, cid, 0, 1);
		evil_sgl_data(&s, &x.io, 0, x.lba_size);
		/* 32 bytes of an SQE: evil_queue always sends 64, so post it by hand. */
		{
			struct rblk_sge sge = { (uint64_t)(uintptr_t)x.io.slots, 32,
						rblk_mr_lkey(x.io.slots_mr) };
			struct rblk_send_wr wr = { .wr_id = 0, .opcode = RBLK_WR_SEND,
						   .flags = RBLK_SEND_SIGNALED, .sge = &sge,
						   .num_sge = 1 };

			memcpy(x.io.slots, &s, 64);
			x.io.next_slot = 1;
			x.io.sends_posted++;
			if (rblk_qp_queue_send(x.io.qp, &wr) || evil_flush(&x.io))
				evil_fail("could not post a 32-byte SEND");
		}
		expect_fail_or_drop(&x.io, "a 32-byte capsule", cid);
	} else {
		evil_fail("unknown rdma scenario '%s'", which);
		goto out;
	}
done:
	after_attack(&b, which);
out:
	evil_ctrl_down(&x);
	evil_ctrl_down(&b);
}

/* ------------------------------------------------------------------------ */
/* flood                                                                     */

/*
 * @n commands posted at once on a queue of @depth entries: one-block Reads
 * (answered fast, so receives come back quickly), or Writes of MDTS (each
 * holds its receive through an RDMA READ and the backend, so the SENDs past
 * @depth meet no receive: RNR NAKs, fatal to us with @rnr_retry 0).
 */
static void flood_io(unsigned n, uint16_t depth, uint8_t rnr_retry, bool big_writes)
{
	const char *what = big_writes ? "Writes of MDTS" : "one-block Reads";
	struct evil_ctrl x;
	struct nvme_cqe cqe;
	struct evil_cm cm;
	unsigned ok = 0, errors = 0;
	uint16_t first;
	int ret = 0;

	memset(&x, 0, sizeof(x));
	evil_cm_std(&cm, 1, depth, (uint16_t)(depth - 1));
	cm.nrecv = EVIL_SLOTS; /* room for every response: the flood is in the commands */
	cm.rnr_retry_count = rnr_retry;
	if (evil_ctrl_up(&x, &T) || evil_io_up(&x, &T, 1, depth, &cm))
		goto out;
	first = x.next_cid;
	for (unsigned i = 0; i < n; i++) {
		uint32_t nb = big_writes ? mdts / x.lba_size : 1;
		size_t off = big_writes ? (size_t)i * EVIL_DATA_UNIT % EVIL_DATA_SIZE
					: (size_t)i * x.lba_size;
		struct nvme_sqe s;

		evil_rw(&s, big_writes ? NVME_IO_WRITE : NVME_IO_READ, x.next_cid++,
			(uint64_t)i * nb, nb);
		evil_sgl_data(&s, &x.io, off, nb * x.lba_size);
		if (evil_queue(&x.io, &s, NULL, 0))
			break;
	}
	evil_flush(&x.io);
	for (unsigned i = 0; i < n; i++) {
		ret = evil_wait_cqe(&x.io, (uint16_t)(first + i), &cqe, 30000);
		if (ret)
			break;
		if (nvme_cqe_status(&cqe))
			errors++;
		else
			ok++;
	}
	if (ret == -ETIMEDOUT)
		evil_fail("flood: %u %s on %u entries (rnr_retry %u): %u answered, then "
			  "nothing for 30 s and no disconnect", n, what, depth, rnr_retry,
			  ok + errors);
	else if (errors)
		evil_fail("flood: %u %s on %u entries: %u failed", n, what, depth, errors);
	else
		evil_say("ok: flood: %u %s on %u entries (rnr_retry %u): %u succeeded%s%s", n,
			 what, depth, rnr_retry, ok,
			 ret ? ", then the connection went down: " : "",
			 !ret ? "" : x.io.broken ? rblk_wc_status_str(x.io.first_wc_status)
				   : "target disconnected");
out:
	evil_ctrl_down(&x);
}

static void scenario_flood(void)
{
	struct evil_conn c = { .name = "flood-admin" };
	struct evil_cm cm;
	unsigned answered = 0;
	struct evil_ctrl b;

	if (bystander_up(&b))
		goto out;
	/* An unconnected admin queue (32 entries): 96 commands, each answered or the queue dropped. */
	evil_cm_std(&cm, 0, 32, 31);
	cm.nrecv = EVIL_SLOTS;
	if (!evil_conn_open(&c, &T, &cm)) {
		struct nvme_sqe s;
		struct nvme_cqe cqe;
		int ret = 0;

		for (uint16_t i = 0; i < 96; i++) {
			evil_sqe(&s, NVME_ADMIN_IDENTIFY, i);
			evil_queue(&c, &s, NULL, 0);
		}
		evil_flush(&c);
		for (uint16_t i = 0; i < 96 && !ret; i++) {
			ret = evil_wait_cqe(&c, i, &cqe, 30000);
			if (!ret && (nvme_cqe_status(&cqe) & NVME_STATUS_CODE_MASK) !=
					    NVME_SC_INVALID_OPCODE)
				evil_fail("flood: admin cid %u: status %#x, want Invalid Opcode", i,
					  nvme_cqe_status(&cqe));
			answered += !ret;
		}
		if (ret == -ETIMEDOUT)
			evil_fail("flood: 96 commands on an unconnected admin queue: %u answered, "
				  "then silence", answered);
		else
			evil_say("ok: flood: 96 commands on an unconnected admin queue: %u answered%s",
				 answered, ret ? ", then the connection went down" : "");
	} else {
		evil_fail("flood: admin queue not accepted");
	}
	evil_conn_close(&c);
	flood_io(96, 16, 7, false);
	flood_io(96, 16, 0, false);
	flood_io(96, 16, 7, true);
	flood_io(96, 16, 0, true);
	after_attack(&b, "flood");
out:
	evil_ctrl_down(&b);
}

/* ------------------------------------------------------------------------ */
/* abort-*                                                                   */

static int scenario_abort(const char *how)
{
	struct evil_ctrl x;
	struct evil_cm cm;
	bool norecv = !strcmp(how, "norecv");
	uint32_t nb;

	memset(&x, 0, sizeof(x));
	evil_cm_std(&cm, 1, 128, 127);
	if (norecv) {
		cm.nrecv = 1;
	} else if (!strcmp(how, "qp")) {
		/* The target's WRs to a QP that is gone time out: let them do so soon. */
		cm.retry_count = 1;
	} else if (strcmp(how, "exit")) {
		evil_fail("unknown abort mode '%s'", how);
		return 1;
	}
	if (evil_ctrl_up(&x, &T) || evil_io_up(&x, &T, 1, 128, &cm))
		return 1;
	x.io.repost = !norecv;
	nb = EVIL_DATA_UNIT / x.lba_size;
	if (nb * x.lba_size > mdts)
		nb = mdts / x.lba_size;
	for (unsigned i = 0; i < 64; i++) {
		struct nvme_sqe s;

		evil_rw(&s, i % 2 ? NVME_IO_READ : NVME_IO_WRITE, x.next_cid++,
			(uint64_t)i * nb, nb);
		evil_sgl_data(&s, &x.io, (size_t)i * EVIL_DATA_UNIT, nb * x.lba_size);
		if (evil_queue(&x.io, &s, NULL, 0)) {
			evil_fail("abort: could not queue command %u", i);
			return 1;
		}
	}
	evil_flush(&x.io);
	evil_say("abort-%s: 64 commands of %u bytes posted", how, nb * x.lba_size);
	if (!strcmp(how, "qp")) {
		evil_poll(&x.io, 20);
		rblk_qp_destroy(x.io.qp);
		x.io.qp = NULL;
		evil_say("abort-qp: QP destroyed, the CM id stays for 15 s");
		sleep(15);
	} else if (norecv) {
		sleep(3);
	} else {
		evil_poll(&x.io, 100);
	}
	evil_say("abort-%s: exiting without cleanup", how);
	/* No disconnect, no deregistration: the kernel tears it all down. */
	_exit(evil_failures ? 1 : 0);
}

/* ------------------------------------------------------------------------ */

static int scenario_check(void)
{
	struct evil_ctrl x;

	memset(&x, 0, sizeof(x));
	if (!evil_ctrl_up(&x, &T) && !evil_io_up(&x, &T, 1, 32, NULL) &&
	    !evil_verify_io(&x, 4096, 128, 3))
		evil_say("ok: check: connect, write and read back 64 KiB");
	evil_ctrl_down(&x);
	return evil_failures ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: evil_host -a ADDR[:PORT] [-w SRC] -n SUBNQN [-q HOSTNQN] [-M MAX_IO]\n"
		"                 [-C IN_CAPSULE] [-D QUEUE_DEPTH] [-Q MAX_IO_QUEUES] SCENARIO\n"
		"scenarios: cm admin io rdma-rkey rdma-tiny rdma-long rdma-short rdma-connect\n"
		"           flood abort-exit abort-qp abort-norecv check\n");
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *src = NULL, *scenario;
	int opt;

	T.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:e0e0e0e0-0bad-4bad-8bad-0badc0ffee00";
	for (int i = 0; i < 16; i++)
		T.hostid[i] = (uint8_t)(0xe0 + i);
	while ((opt = getopt(argc, argv, "a:w:n:q:M:C:D:Q:h")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'w': src = optarg; break;
		case 'n': T.subnqn = optarg; break;
		case 'q': T.hostnqn = optarg; break;
		case 'M': mdts = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'C': icd_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'D': max_depth = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'Q': max_qid = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!addr || !T.subnqn || optind + 1 != argc || mdts < 4096 || !icd_size) {
		usage(stderr);
		return 2;
	}
	scenario = argv[optind];
	if (rblk_hostport_parse(addr, 4420, &T.dst) ||
	    (src && rblk_addr_parse(src, 0, &T.src))) {
		fprintf(stderr, "evil_host: bad address\n");
		return 2;
	}
	T.have_src = src != NULL;

	if (!strcmp(scenario, "cm"))
		scenario_cm();
	else if (!strcmp(scenario, "admin"))
		scenario_admin();
	else if (!strcmp(scenario, "io"))
		scenario_io();
	else if (!strncmp(scenario, "rdma-", 5))
		scenario_rdma(scenario + 5);
	else if (!strcmp(scenario, "flood"))
		scenario_flood();
	else if (!strncmp(scenario, "abort-", 6))
		return scenario_abort(scenario + 6);
	else if (!strcmp(scenario, "check"))
		return scenario_check();
	else {
		usage(stderr);
		return 2;
	}
	evil_say("%s: %s", scenario, evil_failures ? "FAILED" : "all checks passed");
	return evil_failures ? 1 : 0;
}
