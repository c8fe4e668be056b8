/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/host_id.c on a temporary root: /etc/nvme files,
 * overrides, the hostid taken from a uuid-form NQN, and gen-hostnqn's
 * order (DMI product_uuid, the SMBIOS type-1 entry, the device tree,
 * random), plus the UUID text helpers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/uuid.h"
#include "initiator/host_id.h"
#include "ut.h"

static char root[256];

static void put(const char *rel, const void *data, size_t len)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(data, 1, len, f);
	fclose(f);
}

static void puts_file(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

static int setup(void)
{
	snprintf(root, sizeof(root), "/tmp/rblk-hostid-ut-XXXXXX");
	return mkdtemp(root) ? 0 : 1;
}

static void rm_tree(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s%s'", root, rel);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static int teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? 1 : 0;
}

static void test_files(void)
{
	struct rblk_host_id id;

	puts_file("/etc/nvme/hostnqn", "  nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555 \n");
	puts_file("/etc/nvme/hostid", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n");
	CU_ASSERT_EQUAL(rblk_host_id_load_at(root, NULL, NULL, &id), 0);
	CU_ASSERT_STRING_EQUAL(id.hostnqn,
			       "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
	CU_ASSERT_EQUAL(id.hostid[0], 0xAA);
	CU_ASSERT_EQUAL(id.hostid[15], 0xEE);

	/* Overrides win over both files. */
	CU_ASSERT_EQUAL(rblk_host_id_load_at(root, "nqn.2024-01.io.example:h1",
					     "01234567-89ab-cdef-0123-456789abcdef", &id), 0);
	CU_ASSERT_STRING_EQUAL(id.hostnqn, "nqn.2024-01.io.example:h1");
	CU_ASSERT_EQUAL(id.hostid[0], 0x01);
	CU_ASSERT_EQUAL(id.hostid[15], 0xEF);

	/* Without a hostid file, a uuid-form NQN gives its UUID. */
	rm_tree("/etc/nvme/hostid");
	CU_ASSERT_EQUAL(rblk_host_id_load_at(root, NULL, NULL, &id), 0);
	CU_ASSERT_EQUAL(id.hostid[0], 0x11);
	CU_ASSERT_EQUAL(id.hostid[15], 0x55);

	/* ... and another NQN form a random one. */
	CU_ASSERT_EQUAL(rblk_host_id_load_at(root, "nqn.2024-01.io.example:h2", NULL, &id), 0);
	CU_ASSERT_EQUAL(id.hostid[6] >> 4, 4);

	/* Bad overrides are refused, never truncated. */
	{
		char longnqn[300];

		memset(longnqn, 'a', sizeof(longnqn) - 1);
		longnqn[sizeof(longnqn) - 1] = '\0';
		CU_ASSERT_EQUAL(rblk_host_id_load_at(root, longnqn, NULL, &id), -EINVAL);
	}
	CU_ASSERT_EQUAL(rblk_host_id_load_at(root, NULL, "not-a-uuid", &id), -EINVAL);
	rm_tree("/etc");
}

static void test_generate_order(void)
{
	/* SMBIOS type 1: 4-byte header, 4 string bytes, then the UUID (fields 1-3 little-endian). */
	static const uint8_t raw[24] = { 1, 27, 0, 1, 1, 2, 3, 4,
					 0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
					 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF };
	char nqn[RBLK_NQN_MAX + 1];
	struct rblk_host_id id;

	puts_file("/sys/class/dmi/id/product_uuid", "AB8D1A5E-5B3F-4E0C-9A9B-0123456789AB\n");
	puts_file("/sys/firmware/dmi/entries/1-0/type", "1\n");
	put("/sys/firmware/dmi/entries/1-0/raw", raw, sizeof(raw));
	puts_file("/proc/device-tree/ibm,partition-uuid", "c0ffee00-0000-4000-8000-000000000001");

	CU_ASSERT_EQUAL(rblk_hostnqn_generate_at(root, nqn, sizeof(nqn)), 0);
	CU_ASSERT_STRING_EQUAL(nqn, "nqn.2014-08.org.nvmexpress:uuid:ab8d1a5e-5b3f-4e0c-9a9b-0123456789ab");

	/* An all-zero product_uuid ("not settable") is skipped: the SMBIOS entry. */
	puts_file("/sys/class/dmi/id/product_uuid", "00000000-0000-0000-0000-000000000000\n");
	CU_ASSERT_EQUAL(rblk_hostnqn_generate_at(root, nqn, sizeof(nqn)), 0);
	CU_ASSERT_STRING_EQUAL(nqn, "nqn.2014-08.org.nvmexpress:uuid:00112233-4455-6677-8899-aabbccddeeff");

	/* No DMI at all: the device tree. */
	rm_tree("/sys");
	CU_ASSERT_EQUAL(rblk_hostnqn_generate_at(root, nqn, sizeof(nqn)), 0);
	CU_ASSERT_STRING_EQUAL(nqn, "nqn.2014-08.org.nvmexpress:uuid:c0ffee00-0000-4000-8000-000000000001");

	/* Nothing: random, still the uuid form; and the loader uses it with its UUID as hostid. */
	rm_tree("/proc");
	CU_ASSERT_EQUAL(rblk_hostnqn_generate_at(root, nqn, sizeof(nqn)), 0);
	CU_ASSERT_EQUAL(strncmp(nqn, "nqn.2014-08.org.nvmexpress:uuid:", 32), 0);
	CU_ASSERT_EQUAL(strlen(nqn), 32 + 36);
	CU_ASSERT_EQUAL(nqn[32 + 14], '4');
	CU_ASSERT_EQUAL(rblk_host_id_load_at(root, NULL, NULL, &id), 0);
	CU_ASSERT_EQUAL(strncmp(id.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:", 32), 0);
	{
		uint8_t u[16];

		CU_ASSERT_EQUAL(rblk_uuid_parse(id.hostnqn + 32, u), 0);
		CU_ASSERT_EQUAL(memcmp(u, id.hostid, 16), 0);
	}
	CU_ASSERT_EQUAL(rblk_hostnqn_generate_at(root, nqn, 40), -ENOSPC);
}

static const struct ut_case cases[] = {
	UT_CASE(test_files),
	UT_CASE(test_generate_order),
	UT_END,
};

UT_MAIN_INIT("initiator/host_id", cases, setup, teardown)
