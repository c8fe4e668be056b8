/* SPDX-License-Identifier: MIT */
/* Tests for cli/output.c and cli/output_id.c: normal and JSON output against expected text. */
#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
#include "protocol/nvme.h"
#include "protocol/nvmf.h"
#include "ut.h"

static char *out;
static size_t outlen;

static FILE *mem(void)
{
	free(out);
	out = NULL;
	return open_memstream(&out, &outlen);
}

static void entries(struct rblk_disc_entry e[2])
{
	memset(e, 0, 2 * sizeof(*e));
	e[0].trtype = NVMF_TRTYPE_RDMA;
	e[0].adrfam = NVMF_ADRFAM_IPV4;
	e[0].subtype = NVMF_SUBTYPE_NVME;
	e[0].treq = NVMF_TREQ_NOT_SPECIFIED | NVMF_TREQ_DISABLE_SQFLOW;
	e[0].portid = 3;
	strcpy(e[0].trsvcid, "4420");
	strcpy(e[0].traddr, "10.99.0.1");
	strcpy(e[0].subnqn, "nqn.2024-01.io.rblk:disk0");
	e[0].rdma_qptype = NVMF_RDMA_QPTYPE_CONNECTED;
	e[0].rdma_prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
	e[0].rdma_cms = NVMF_RDMA_CMS_RDMA_CM;
	e[1].trtype = NVMF_TRTYPE_TCP;
	e[1].adrfam = NVMF_ADRFAM_IPV6;
	e[1].subtype = NVMF_SUBTYPE_DISCOVERY;
	e[1].treq = NVMF_TREQ_REQUIRED;
	e[1].portid = 65535;
	e[1].eflags = 2;
	strcpy(e[1].trsvcid, "8009");
	strcpy(e[1].traddr, "fe80::1");
	strcpy(e[1].subnqn, "nqn.2014-08.org.nvmexpress.discovery");
}

static void test_disc_normal_matches_nvme_cli(void)
{
	static const char want[] =
		"\nDiscovery Log Number of Records 2, Generation counter 42\n"
		"=====Discovery Log Entry 0======\n"
		"trtype:  rdma\n"
		"adrfam:  ipv4\n"
		"subtype: nvme subsystem\n"
		"treq:    not specified, sq flow control disable supported\n"
		"portid:  3\n"
		"trsvcid: 4420\n"
		"subnqn:  nqn.2024-01.io.rblk:disk0\n"
		"traddr:  10.99.0.1\n"
		"eflags:  none\n"
		"rdma_prtype: not specified\n"
		"rdma_qptype: connected\n"
		"rdma_cms:    rdma-cm\n"
		"rdma_pkey: 0x0000\n"
		"=====Discovery Log Entry 1======\n"
		"trtype:  tcp\n"
		"adrfam:  ipv6\n"
		"subtype: discovery subsystem referral\n"
		"treq:    required\n"
		"portid:  65535\n"
		"trsvcid: 8009\n"
		"subnqn:  nqn.2014-08.org.nvmexpress.discovery\n"
		"traddr:  fe80::1\n"
		"eflags:  explicit discovery connections\n";
	struct rblk_disc_entry e[2];
	FILE *f = mem();

	entries(e);
	rblk_cli_disc_print(f, e, 2, 42);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, want);
}

static void test_disc_json_keys(void)
{
	static const char want[] =
		"{\n"
		"  \"genctr\": 42,\n"
		"  \"records\": [\n"
		"    {\n"
		"      \"trtype\": \"rdma\",\n"
		"      \"adrfam\": \"ipv4\",\n"
		"      \"subtype\": \"nvme subsystem\",\n"
		"      \"treq\": \"not specified, sq flow control disable supported\",\n"
		"      \"portid\": 3,\n"
		"      \"trsvcid\": \"4420\",\n"
		"      \"subnqn\": \"nqn.2024-01.io.rblk:disk0\",\n"
		"      \"traddr\": \"10.99.0.1\",\n"
		"      \"eflags\": \"none\",\n"
		"      \"rdma_prtype\": \"not specified\",\n"
		"      \"rdma_qptype\": \"connected\",\n"
		"      \"rdma_cms\": \"rdma-cm\",\n"
		"      \"rdma_pkey\": 0\n"
		"    }\n"
		"  ]\n"
		"}\n";
	struct rblk_disc_entry e[2];
	struct json_object *o;
	FILE *f = mem();

	entries(e);
	o = rblk_cli_disc_json(e, 1, 42);
	rblk_cli_json_print(f, o);
	json_object_put(o);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, want);
}

static void test_field_strings(void)
{
	char b[80];

	CU_ASSERT_STRING_EQUAL(rblk_cli_trtype_str(9), "unrecognized");
	CU_ASSERT_STRING_EQUAL(rblk_cli_trtype_str(NVMF_TRTYPE_LOOP), "loop");
	CU_ASSERT_STRING_EQUAL(rblk_cli_adrfam_str(NVMF_ADRFAM_IB), "infiniband");
	CU_ASSERT_STRING_EQUAL(rblk_cli_adrfam_str(77), "unrecognized");
	CU_ASSERT_STRING_EQUAL(rblk_cli_subtype_str(NVMF_SUBTYPE_CURRENT_DISCOVERY),
			       "current discovery subsystem");
	CU_ASSERT_STRING_EQUAL(rblk_cli_subtype_str(0), "unrecognized");
	CU_ASSERT_STRING_EQUAL(rblk_cli_treq_str(NVMF_TREQ_NOT_REQUIRED, b, sizeof(b)), "not required");
	CU_ASSERT_STRING_EQUAL(rblk_cli_treq_str(3, b, sizeof(b)), "unrecognized");
	CU_ASSERT_STRING_EQUAL(rblk_cli_eflags_str(3),
			       "explicit discovery connections, duplicate discovery information");
	CU_ASSERT_STRING_EQUAL(rblk_cli_eflags_str(8), "unrecognized");
	CU_ASSERT_STRING_EQUAL(rblk_cli_prtype_str(NVMF_RDMA_PRTYPE_ROCEV2), "roce-v2");
	CU_ASSERT_STRING_EQUAL(rblk_cli_prtype_str(0), "unrecognized");
	CU_ASSERT_STRING_EQUAL(rblk_cli_qptype_str(NVMF_RDMA_QPTYPE_DATAGRAM), "datagram");
	CU_ASSERT_STRING_EQUAL(rblk_cli_cms_str(2), "unrecognized");
}

static void test_sizes(void)
{
	char b[32];

	CU_ASSERT_STRING_EQUAL(rblk_cli_fmt_iec(512, b, sizeof(b)), "512 B");
	CU_ASSERT_STRING_EQUAL(rblk_cli_fmt_iec(1536, b, sizeof(b)), "1.50 KiB");
	CU_ASSERT_STRING_EQUAL(rblk_cli_fmt_iec(1ULL << 30, b, sizeof(b)), "1.00 GiB");
	CU_ASSERT_STRING_EQUAL(rblk_cli_fmt_si(1073741824, b, sizeof(b)), "  1.07  GB");
	CU_ASSERT_STRING_EQUAL(rblk_cli_fmt_si(999, b, sizeof(b)), "999.00   B");
}

static struct nvme_id_ctrl *make_ctrl(void)
{
	struct nvme_id_ctrl *c = calloc(1, sizeof(*c));

	c->vid = htole16(0x1b36);
	memcpy(c->sn, "SN123               ", 20);
	memcpy(c->mn, "rblk                                    ", 40);
	memcpy(c->fr, "0.1.0   ", 8);
	c->ieee[0] = 0x56;
	c->ieee[1] = 0x34;
	c->ieee[2] = 0x12;
	c->cntlid = htole16(5);
	c->ver = htole32(0x10400);
	c->nn = htole32(1024);
	c->tnvmcap[0] = 0x00;
	c->tnvmcap[1] = 0x10;
	c->unvmcap[8] = 1;	/* 2^64: beyond uint64 */
	c->ioccsz = htole32(260);
	strcpy(c->subnqn, "nqn.2024-01.io.rblk:disk0");
	c->npss = 0;
	c->psd[0].max_power = htole16(2500);
	return c;
}

static void test_id_ctrl_normal(void)
{
	struct nvme_id_ctrl *c = make_ctrl();
	FILE *f = mem();

	rblk_cli_id_ctrl_print(f, c);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "NVME Identify Controller:\nvid       : 0x1b36\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nsn        : SN123\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nmn        : rblk\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nieee      : 123456\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ncntlid    : 0x5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nver       : 0x10400\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nnn        : 1024\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ntnvmcap   : 4096\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nunvmcap   : 18446744073709551616\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nsubnqn    : nqn.2024-01.io.rblk:disk0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nioccsz    : 260\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nps    0 : mp:25.00W operational"));
	free(c);
}

static void test_id_ctrl_json(void)
{
	struct nvme_id_ctrl *c = make_ctrl();
	struct json_object *o = rblk_cli_id_ctrl_json(c), *v;

	CU_ASSERT_TRUE(json_object_object_get_ex(o, "vid", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 0x1b36);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "sn", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "SN123");
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "ieee", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 0x123456);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "tnvmcap", &v));
	CU_ASSERT_EQUAL(json_object_get_int64(v), 4096);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "unvmcap", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "18446744073709551616");
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "psds", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 1);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "subnqn", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "nqn.2024-01.io.rblk:disk0");
	json_object_put(o);
	free(c);
}

static struct nvme_id_ns *make_ns(void)
{
	struct nvme_id_ns *n = calloc(1, sizeof(*n));

	n->nsze = htole64(262144);
	n->ncap = htole64(262144);
	n->nuse = htole64(1000);
	n->nlbaf = 1;
	n->flbas = 1;
	n->lbaf[0].ds = 9;
	n->lbaf[1].ds = 12;
	n->lbaf[1].ms = htole16(8);
	n->nguid[0] = 0x01;
	n->nguid[15] = 0xff;
	return n;
}

static void test_id_ns(void)
{
	struct nvme_id_ns *n = make_ns();
	struct json_object *o, *v;
	FILE *f = mem();

	rblk_cli_id_ns_print(f, 7, n);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "NVME Identify Namespace 7:\nnsze      : 0x40000\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nnguid     : 010000000000000000000000000000ff\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nlbaf  0 : ms:0   lbads:9  rp:0 \n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nlbaf  1 : ms:8   lbads:12 rp:0 (in use)\n"));
	o = rblk_cli_id_ns_json(n);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "nsze", &v));
	CU_ASSERT_EQUAL(json_object_get_int64(v), 262144);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "lbafs", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 2);
	json_object_put(o);
	free(n);
}

static void test_list(void)
{
	struct nvme_id_ctrl *c = make_ctrl();
	struct nvme_id_ns *n = make_ns();
	struct cli_list_row row;
	struct json_object *o, *d, *v;
	FILE *f;

	memset(&row, 0, sizeof(row));
	rblk_cli_list_row_ctrl(&row, c);
	rblk_cli_list_row_ns(&row, 1, n);
	CU_ASSERT_EQUAL(row.lba_size, 4096);
	CU_ASSERT_EQUAL(row.ms, 8);
	CU_ASSERT_EQUAL(row.nsze, 262144);
	CU_ASSERT_STRING_EQUAL(row.sn, "SN123");
	f = mem();
	rblk_cli_list_print(f, "nqn.a:b", "10.99.0.1", "4420", &row, 1);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Subsystem nqn.a:b at rdma traddr=10.99.0.1,trsvcid=4420\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n1          SN123                rblk"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  4.10  MB /   1.07  GB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "4096   B +  8 B"));
	o = rblk_cli_list_json("nqn.a:b", "10.99.0.1", "4420", &row, 1);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "Devices", &d));
	d = json_object_array_get_idx(d, 0);
	CU_ASSERT_TRUE(json_object_object_get_ex(d, "PhysicalSize", &v));
	CU_ASSERT_EQUAL(json_object_get_int64(v), 262144LL * 4096);
	CU_ASSERT_TRUE(json_object_object_get_ex(d, "SectorSize", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 4096);
	CU_ASSERT_TRUE(json_object_object_get_ex(d, "UsedBytes", &v));
	CU_ASSERT_EQUAL(json_object_get_int64(v), 4096000);
	CU_ASSERT_TRUE(json_object_object_get_ex(d, "ModelNumber", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "rblk");
	json_object_put(o);
	free(c);
	free(n);
}

static int fini(void)
{
	free(out);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_disc_normal_matches_nvme_cli),
	UT_CASE(test_disc_json_keys),
	UT_CASE(test_field_strings),
	UT_CASE(test_sizes),
	UT_CASE(test_id_ctrl_normal),
	UT_CASE(test_id_ctrl_json),
	UT_CASE(test_id_ns),
	UT_CASE(test_list),
	UT_END,
};

UT_MAIN_INIT("cli/output", cases, NULL, fini)
