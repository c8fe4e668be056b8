/* SPDX-License-Identifier: MIT */
/*
 * Tests for transport/cm.c and cq.c that need no RDMA device: names that
 * pass through to rdma-core, and clean -errno failures on a host without
 * RDMA (this one). Connection setup itself runs in the VM (tests/func).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "transport/rdma.h"
#include "ut.h"

static bool host_has_rdma(void)
{
	struct stat st;

	return !stat("/dev/infiniband/rdma_cm", &st);
}

static void test_event_and_status_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_cm_event_str(RBLK_CM_EVENT_ESTABLISHED),
			       "RDMA_CM_EVENT_ESTABLISHED");
	CU_ASSERT_STRING_EQUAL(rblk_cm_event_str(RBLK_CM_EVENT_CONNECT_REQUEST),
			       "RDMA_CM_EVENT_CONNECT_REQUEST");
	CU_ASSERT_STRING_EQUAL(rblk_cm_event_str(RBLK_CM_EVENT_TIMEWAIT_EXIT),
			       "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	CU_ASSERT_STRING_EQUAL(rblk_wc_status_str(RBLK_WC_SUCCESS), "success");
	CU_ASSERT_STRING_EQUAL(rblk_wc_status_str(RBLK_WC_WR_FLUSH_ERR),
			       "Work Request Flushed Error");
	CU_ASSERT_STRING_EQUAL(rblk_wc_status_str(RBLK_WC_REM_ACCESS_ERR),
			       "remote access error");
	CU_ASSERT_STRING_EQUAL(rblk_wc_opcode_str(RBLK_WC_RDMA_READ), "RDMA_READ");
	CU_ASSERT_STRING_EQUAL(rblk_wc_opcode_str(RBLK_WC_RECV), "RECV");
	CU_ASSERT_STRING_EQUAL(rblk_wc_opcode_str((enum rblk_wc_opcode)77), "?");
}

static void test_channel_without_rdma_fails_cleanly(void)
{
	struct rblk_cm_channel *ch = (void *)1;
	int ret;

	if (host_has_rdma()) {
		ut_skip("this host has RDMA: the no-RDMA failure path cannot be reached");
		return;
	}
	ret = rblk_cm_channel_create(true, &ch);
	CU_ASSERT_TRUE(ret < 0);
	CU_ASSERT_PTR_NULL(ch);
	rblk_cm_channel_destroy(NULL);
	rblk_cm_id_destroy(NULL);
}

static void test_null_destroys_are_no_ops(void)
{
	struct rblk_cm_event ev;

	memset(&ev, 0, sizeof(ev));
	rblk_cm_ack_event(&ev);	/* nothing to ack */
	rblk_cq_destroy(NULL);
	CU_ASSERT_EQUAL(rblk_pd_dealloc(NULL), 0);
	CU_ASSERT_EQUAL(rblk_mr_dereg(NULL), 0);
}

static const struct ut_case cases[] = {
	UT_CASE(test_event_and_status_names),
	UT_CASE(test_channel_without_rdma_fails_cleanly),
	UT_CASE(test_null_destroys_are_no_ops),
	UT_END,
};

UT_MAIN("transport/cm", cases)
