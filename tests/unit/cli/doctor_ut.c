/* SPDX-License-Identifier: MIT */
/* Tests for cli/doctor*.c: every verdict over fake /sys, /proc and /dev trees. */
#include <string.h>

#include "cli/doctor.h"
#include "transport/fake_sysfs.h"
#include "ut.h"

static char *root;
static char sys_root[4096];

static void tree(void)
{
	fs_destroy(root);
	root = fs_create();
	snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
	fs_mkdirs(sys_root);
}

/* A host that is fine: rxe0 on veth0, modules loaded, device nodes, 4 CPUs, memlock 128 MiB. */
static void healthy(void)
{
	tree();
	fs_add_rxe0(sys_root, 10, 20);
	fs_write(sys_root, "class/net/veth0/operstate", "up");
	fs_write(sys_root, "class/net/veth0/mtu", "1500");
	fs_write(sys_root, "devices/system/cpu/online", "0-3");
	fs_write(sys_root, "kernel/mm/transparent_hugepage/enabled", "always [madvise] never");
	fs_write(root, "proc/modules", "rdma_rxe 131072 0 - Live 0x0\nib_uverbs 163840 1 rdma_rxe, Live 0x0\n"
				       "rdma_ucm 32768 0 - Live 0x0\nnbd 57344 0 - Live 0x0");
	fs_write(root, "proc/meminfo", "MemTotal: 1000 kB\nHugePages_Total:       0\nHugePages_Free:        0\n"
				       "Hugepagesize:       2048 kB");
	fs_write(root, "proc/self/status", "Name: rblk\nCapEff:\t0000000000000000");
	fs_write(root, "proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units\n"
					   "Max locked memory         134217728            134217728            bytes");
	fs_write(root, "dev/infiniband/uverbs0", "%s", "");
	fs_write(root, "dev/infiniband/rdma_cm", "%s", "");
}

static const char *rel(const char *r, const char *p)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", r, p);
	return buf;
}

static const struct cli_check *find(const struct cli_doctor *d, const char *name)
{
	const struct cli_check *c = rblk_cli_doctor_find(d, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	return c;
}

static void test_no_rdma_at_all(void)
{
	struct cli_doctor d;
	const struct cli_check *c;

	tree();
	fs_write(sys_root, "class/net/lo/operstate", "unknown");
	fs_write(sys_root, "class/net/ens3/operstate", "up");
	rblk_cli_doctor_run(&d, root, NULL);
	c = find(&d, "rdma devices");
	CU_ASSERT_EQUAL(c->v, CLI_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "no RDMA device"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c->fix, "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev ens3"));
	/* without devices, missing modules and nodes are warnings, not failures */
	CU_ASSERT_EQUAL(find(&d, "module ib_uverbs")->v, CLI_WARN);
	CU_ASSERT_EQUAL(find(&d, "/dev/infiniband/rdma_cm")->v, CLI_WARN);
	CU_ASSERT_EQUAL(rblk_cli_doctor_count(&d, CLI_FAIL), 1);
	rblk_cli_doctor_free(&d);
}

static void test_healthy_rxe(void)
{
	struct cli_doctor d;
	const struct cli_check *c;

	healthy();
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "rdma devices")->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "rdma devices")->detail, "rxe0 (on veth0)"));
	CU_ASSERT_EQUAL(find(&d, "rxe0 port 1 state")->v, CLI_OK);
	CU_ASSERT_EQUAL(find(&d, "rxe0 port 1 physical state")->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "rxe0 port 1 link")->detail, "Ethernet (RoCE), 10 Gb/sec"));
	c = find(&d, "rxe0 port 1 mtu");
	CU_ASSERT_EQUAL(c->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "netdev veth0 MTU 1500: RoCE MTU 1024"));
	c = find(&d, "rxe0 port 1 gids");
	CU_ASSERT_EQUAL(c->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "1 ::ffff:10.99.0.1 (RoCE v2)"));
	CU_ASSERT_EQUAL(find(&d, "rxe0 port 1 netdev")->v, CLI_OK);
	/* the fake rxe0 has retry_exceeded_err = 3 */
	c = find(&d, "rxe0 port 1 error counters");
	CU_ASSERT_EQUAL(c->v, CLI_WARN);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "hw_counters/retry_exceeded_err 3"));
	CU_ASSERT_EQUAL(find(&d, "module ib_uverbs")->v, CLI_OK);
	CU_ASSERT_EQUAL(find(&d, "module nbd")->v, CLI_OK);
	/* NBD is there, so a missing ublk_drv is only information */
	c = find(&d, "module ublk_drv");
	CU_ASSERT_EQUAL(c->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "not loaded"));
	CU_ASSERT_EQUAL(find(&d, "/dev/infiniband/uverbs*")->v, CLI_OK);
	CU_ASSERT_EQUAL(find(&d, "/dev/infiniband/rdma_cm")->v, CLI_OK);
	/* 128 MiB: enough for both with 4 CPUs (target: 4 x ~17 MiB) */
	CU_ASSERT_EQUAL(find(&d, "memlock")->v, CLI_OK);
	c = find(&d, "hugepages");
	CU_ASSERT_EQUAL(c->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "transparent hugepages: madvise"));
	CU_ASSERT_EQUAL(rblk_cli_doctor_count(&d, CLI_FAIL), 0);
	rblk_cli_doctor_free(&d);
}

static void test_port_down_and_missing_modules(void)
{
	struct cli_doctor d;

	healthy();
	fs_write(sys_root, RXE0P "state", "1: DOWN");
	fs_write(sys_root, RXE0P "phys_state", "3: Disabled");
	fs_write(sys_root, "class/net/veth0/operstate", "down");
	fs_write(root, "proc/modules", "rdma_rxe 131072 0 - Live 0x0");
	remove(rel(root, "dev/infiniband/uverbs0"));
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "rxe0 port 1 state")->v, CLI_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "rxe0 port 1 state")->fix, "ip link set veth0 up"));
	CU_ASSERT_EQUAL(find(&d, "rxe0 port 1 physical state")->v, CLI_FAIL);
	CU_ASSERT_EQUAL(find(&d, "rxe0 port 1 netdev")->v, CLI_FAIL);
	CU_ASSERT_EQUAL(find(&d, "module ib_uverbs")->v, CLI_FAIL);
	CU_ASSERT_STRING_EQUAL(find(&d, "module ib_uverbs")->fix, "modprobe ib_uverbs");
	/* neither attach driver: both say so */
	CU_ASSERT_EQUAL(find(&d, "module nbd")->v, CLI_WARN);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "module nbd")->detail, "needs nbd or ublk_drv"));
	CU_ASSERT_EQUAL(find(&d, "module ublk_drv")->v, CLI_WARN);
	CU_ASSERT_EQUAL(find(&d, "/dev/infiniband/uverbs*")->v, CLI_FAIL);
	rblk_cli_doctor_free(&d);
}

static void test_builtin_module_counts(void)
{
	struct cli_doctor d;

	healthy();
	fs_write(root, "proc/modules", "rdma_rxe 131072 0 - Live 0x0");
	fs_mkdirs(rel(root, "sys/module/ib_uverbs"));
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "module ib_uverbs")->v, CLI_OK);
	CU_ASSERT_EQUAL(find(&d, "module rdma_ucm")->v, CLI_FAIL);
	rblk_cli_doctor_free(&d);
}

/* ublk alone (module or just its control node) serves attach: no NBD warning */
static void test_attach_drivers(void)
{
	struct cli_doctor d;
	const struct cli_check *c;

	healthy();
	fs_write(root, "proc/modules", "ib_uverbs 163840 1 rdma_rxe, Live 0x0\nrdma_ucm 32768 0 - Live 0x0\n"
				       "ublk_drv 45056 0 - Live 0x0");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "module ublk_drv")->v, CLI_OK);
	c = find(&d, "module nbd");
	CU_ASSERT_EQUAL(c->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "only needed for rblk attach --nbd"));
	rblk_cli_doctor_free(&d);

	fs_write(root, "proc/modules", "ib_uverbs 163840 1 rdma_rxe, Live 0x0\nrdma_ucm 32768 0 - Live 0x0");
	fs_write(root, "dev/ublk-control", "%s", "");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "module ublk_drv")->v, CLI_OK);
	CU_ASSERT_EQUAL(find(&d, "module nbd")->v, CLI_OK);
	rblk_cli_doctor_free(&d);
}

static void test_memlock(void)
{
	struct cli_doctor d;
	const struct cli_check *c;

	healthy();
	fs_write(root, "proc/self/limits", "Max locked memory         8388608              8388608              bytes");
	rblk_cli_doctor_run(&d, root, NULL);
	c = find(&d, "memlock");
	CU_ASSERT_EQUAL(c->v, CLI_WARN);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->detail, "RLIMIT_MEMLOCK is 8.00 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c->fix, "ulimit -l unlimited"));
	rblk_cli_doctor_free(&d);

	fs_write(root, "proc/self/limits", "Max locked memory         65536                65536                bytes");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "memlock")->v, CLI_FAIL);
	rblk_cli_doctor_free(&d);

	fs_write(root, "proc/self/limits", "Max locked memory         unlimited            unlimited            bytes");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "memlock")->v, CLI_OK);
	rblk_cli_doctor_free(&d);

	fs_write(root, "proc/self/limits", "Max locked memory         65536                65536                bytes");
	fs_write(root, "proc/self/status", "CapEff:\t0000000000004000");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "memlock")->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "memlock")->detail, "CAP_IPC_LOCK"));
	rblk_cli_doctor_free(&d);

	CU_ASSERT_EQUAL(rblk_cli_memlock_initiator(1), 2 * 128 * 4096 + 8 * 131072);
	CU_ASSERT_TRUE(rblk_cli_memlock_target(4) > 4 * 16 * 1048576ULL);
}

static void test_hugepages(void)
{
	struct cli_doctor d;

	healthy();
	fs_write(root, "proc/meminfo", "HugePages_Total:      10\nHugePages_Free:        0\nHugepagesize:       2048 kB");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "hugepages")->v, CLI_WARN);
	rblk_cli_doctor_free(&d);
	fs_write(root, "proc/meminfo", "HugePages_Total:      10\nHugePages_Free:        4\nHugepagesize:       2048 kB");
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "hugepages")->v, CLI_OK);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "hugepages")->detail, "4 of 10 reserved pages of 2048 kB free"));
	rblk_cli_doctor_free(&d);
}

static void test_ib_port_and_json(void)
{
	struct cli_doctor d;
	struct json_object *o, *v, *dev;
	char *out = NULL;
	size_t len;
	FILE *f;

	healthy();
	fs_add_mlx5(sys_root, 100, 100);
	rblk_cli_doctor_run(&d, root, NULL);
	CU_ASSERT_EQUAL(find(&d, "mlx5_0 port 1 state")->v, CLI_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "mlx5_0 port 1 state")->fix, "opensm"));
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "mlx5_0 port 1 error counters")->detail,
				      "counters/port_rcv_errors 2"));
	o = rblk_cli_doctor_json(&d);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "summary", &v));
	CU_ASSERT_TRUE(json_object_object_get_ex(v, "fail", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), (int)rblk_cli_doctor_count(&d, CLI_FAIL));
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "devices", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 2);
	dev = json_object_array_get_idx(v, 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(dev, "ports", &v));
	v = json_object_array_get_idx(v, 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(v, "gids", &v));
	CU_ASSERT_TRUE(json_object_array_length(v) >= 1);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "checks", &v));
	CU_ASSERT_TRUE(json_object_object_get_ex(json_object_array_get_idx(v, 0), "verdict", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "ok");
	json_object_put(o);
	f = open_memstream(&out, &len);
	rblk_cli_doctor_print(f, &d);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "[FAIL] mlx5_0 port 1 state: DOWN"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "       fix: check the cable"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL: fix the FAIL lines first"));
	free(out);
	rblk_cli_doctor_free(&d);
}

static void test_route_check(void)
{
	struct cli_doctor d;

	healthy();
	/* 127.0.0.1 is reached from 127.0.0.1, which no fake device holds */
	rblk_cli_doctor_run(&d, root, "127.0.0.1");
	CU_ASSERT_EQUAL(find(&d, "route to 127.0.0.1")->v, CLI_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&d, "route to 127.0.0.1")->detail, "no RDMA device holds"));
	rblk_cli_doctor_free(&d);
}

static int fini(void)
{
	fs_destroy(root);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_no_rdma_at_all),
	UT_CASE(test_healthy_rxe),
	UT_CASE(test_port_down_and_missing_modules),
	UT_CASE(test_builtin_module_counts),
	UT_CASE(test_attach_drivers),
	UT_CASE(test_memlock),
	UT_CASE(test_hugepages),
	UT_CASE(test_ib_port_and_json),
	UT_CASE(test_route_check),
	UT_END,
};

UT_MAIN_INIT("cli/doctor", cases, NULL, fini)
