/* SPDX-License-Identifier: MIT */
/*
 * Tests for cli/ublk/rblk.c: ublk request descriptors as rblk_io (op, range,
 * flags, buffer, the answer on success), and NVMe status / library errors
 * as the -errno the kernel gets. On the fake initiator library's namespaces
 * (ns 1: 512-byte blocks, ns 2: 4 KiB blocks).
 */
#include <errno.h>
#include <string.h>

#include "cli/ublk/rblk.h"
#include "protocol/nvme_status.h"
#include "ut.h"

static struct rblk_ctrl *ctrl;
static struct rblk_ns *ns512, *ns4k;
static uint8_t buf[64 << 10];

static int setup(void)
{
	struct rblk_connect_opts o;

	rblk_connect_opts_init(&o);
	o.traddr = "192.0.2.1";
	o.subnqn = "nqn.2024-01.io.rblk:fake";
	if (rblk_connect(&o, &ctrl, NULL) || rblk_ns_open(ctrl, 1, &ns512) || rblk_ns_open(ctrl, 2, &ns4k))
		return 1;
	return 0;
}

static int teardown(void)
{
	rblk_ns_close(ns512);
	rblk_ns_close(ns4k);
	rblk_disconnect(ctrl);
	return 0;
}

static struct ublksrv_io_desc desc(unsigned op, uint32_t flags, uint64_t sector, uint32_t sectors)
{
	return (struct ublksrv_io_desc){ .op_flags = op | flags, .nr_sectors = sectors, .start_sector = sector,
					 .addr = (uint64_t)(uintptr_t)buf };
}

static void test_read_write_fua(void)
{
	struct ublksrv_io_desc d = desc(UBLK_IO_OP_READ, 0, 100, 16);
	struct rblk_io io;
	int32_t bytes = -1;

	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.op, RBLK_OP_READ);
	CU_ASSERT_PTR_EQUAL(io.ns, ns512);
	CU_ASSERT_EQUAL(io.lba, 100);
	CU_ASSERT_EQUAL(io.nlb, 16);
	CU_ASSERT_PTR_EQUAL(io.buf, buf);
	CU_ASSERT_EQUAL(io.flags, 0);
	CU_ASSERT_EQUAL(bytes, 8192);

	/* sectors are always 512 bytes: on a 4 KiB namespace sector 80 is LBA 10 */
	d = desc(UBLK_IO_OP_WRITE, UBLK_IO_F_FUA, 80, 24);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns4k, 4096, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.op, RBLK_OP_WRITE);
	CU_ASSERT_EQUAL(io.lba, 10);
	CU_ASSERT_EQUAL(io.nlb, 3);
	CU_ASSERT_EQUAL(io.flags, RBLK_IO_FUA);
	CU_ASSERT_EQUAL(bytes, 12288);

	d = desc(UBLK_IO_OP_WRITE, 0, 0, 1);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.flags, 0);
	/* FUA on a read means nothing to NVMe */
	d = desc(UBLK_IO_OP_READ, UBLK_IO_F_FUA, 0, 1);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.flags, 0);
}

static void test_flush_discard_write_zeroes(void)
{
	struct ublksrv_io_desc d = desc(UBLK_IO_OP_FLUSH, 0, 0, 0);
	struct rblk_io io;
	int32_t bytes = -1;

	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.op, RBLK_OP_FLUSH);
	CU_ASSERT_EQUAL(io.nlb, 0);
	CU_ASSERT_EQUAL(bytes, 0);

	/* no data: longer than the buffer is fine */
	d = desc(UBLK_IO_OP_DISCARD, 0, 8, 1 << 20);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns4k, 4096, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.op, RBLK_OP_DEALLOCATE);
	CU_ASSERT_EQUAL(io.lba, 1);
	CU_ASSERT_EQUAL(io.nlb, 1 << 17);
	CU_ASSERT_PTR_NULL(io.buf);
	CU_ASSERT_EQUAL(bytes, 0);

	d = desc(UBLK_IO_OP_WRITE_ZEROES, UBLK_IO_F_NOUNMAP, 16, 8);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), 0);
	CU_ASSERT_EQUAL(io.op, RBLK_OP_WRITE_ZEROES);
	CU_ASSERT_EQUAL(io.lba, 16);
	CU_ASSERT_EQUAL(io.nlb, 8);
	CU_ASSERT_EQUAL(bytes, 0);
}

static void test_requests_we_refuse(void)
{
	struct ublksrv_io_desc d;
	struct rblk_io io;
	int32_t bytes;

	d = desc(UBLK_IO_OP_WRITE_SAME, 0, 0, 8);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), -EOPNOTSUPP);
	d = desc(10, 0, 0, 8);	/* a zone operation */
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), -EOPNOTSUPP);
	/* part of a 4 KiB block */
	d = desc(UBLK_IO_OP_READ, 0, 1, 8);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns4k, 4096, buf, sizeof(buf), &io, &bytes), -EINVAL);
	d = desc(UBLK_IO_OP_READ, 0, 8, 4);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns4k, 4096, buf, sizeof(buf), &io, &bytes), -EINVAL);
	/* more than the tag's buffer */
	d = desc(UBLK_IO_OP_WRITE, 0, 0, sizeof(buf) / 512 + 1);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), -EINVAL);
	d = desc(UBLK_IO_OP_READ, 0, 0, 0);
	CU_ASSERT_EQUAL(rblk_ublk_io_from_desc(&d, ns512, 512, buf, sizeof(buf), &io, &bytes), -EINVAL);
}

static void test_status_errno(void)
{
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(0), 0);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR), -EPERM);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_ACCESS_DENIED), -EPERM);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_CAP_EXCEEDED), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_LBA_RANGE | NVME_SC_DNR), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_INVALID_OPCODE), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_READ_ERROR), -EIO);
	CU_ASSERT_EQUAL(rblk_ublk_status_errno(NVME_SC_INTERNAL), -EIO);
}

static void test_io_errno(void)
{
	/* a status wins over the transport result */
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(NVME_SC_CAP_EXCEEDED, 0), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(0, 0), 0);
	/* the controller lost for good (ctrl_loss_tmo): EIO, as a disk would say */
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(0, -ENOTCONN), -EIO);
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(0, -ECONNRESET), -EIO);
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(0, -EROFS), -EPERM);
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(0, -EINVAL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_io_errno(0, -EOPNOTSUPP), -EOPNOTSUPP);
}

static const struct ut_case cases[] = {
	UT_CASE(test_read_write_fua),
	UT_CASE(test_flush_discard_write_zeroes),
	UT_CASE(test_requests_we_refuse),
	UT_CASE(test_status_errno),
	UT_CASE(test_io_errno),
	UT_END,
};

UT_MAIN_INIT("cli/ublk/rblk", cases, setup, teardown)
