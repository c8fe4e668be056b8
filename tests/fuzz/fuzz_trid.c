/* SPDX-License-Identifier: MIT */
/*
 * Drives every parser of transport IDs and addresses with the same string:
 * the CLI's -r (cli/args.c), the fio plugin's filename (fio-plugin/trid.c)
 * and the transport's ADDR[:PORT] and address parsers (transport/addr.c).
 * Checks: a fio ID that parses and completes prints (rblk_fio_trid_str) to a
 * string that parses back to the same controller and namespace; an address
 * that parses prints (rblk_addr_str) to one that parses back to the same
 * socket address; CLI fields point into its own parsed copy.
 */
#include <errno.h>
#include <netinet/in.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "fio-plugin/trid.h"
#include "fuzz.h"
#include "transport/addr.h"

static void fio(const char *s)
{
	struct rblk_trid t, back, none;
	char why[256], str[1024];

	memset(&none, 0, sizeof(none));
	if (rblk_fio_trid_parse(s, &t, why, sizeof(why)))
		return;
	if (rblk_fio_trid_complete(&t, &none, why, sizeof(why)))
		return;
	FUZZ_CHECK(t.traddr[0] && t.subnqn[0] && t.nsid);
	rblk_fio_trid_str(&t, str, sizeof(str));
	FUZZ_CHECK(rblk_fio_trid_parse(str, &back, why, sizeof(why)) == 0);
	FUZZ_CHECK(rblk_fio_trid_complete(&back, &t, why, sizeof(why)) == 0);
	FUZZ_CHECK(rblk_fio_trid_same_ctrl(&t, &back) && t.nsid == back.nsid);
}

static bool same_sa(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return !memcmp(a, b, sizeof(struct sockaddr_in));
	return !memcmp(a, b, sizeof(struct sockaddr_in6));
}

static void addr(const char *s)
{
	struct sockaddr_storage sa, back;
	char str[128];

	if (rblk_hostport_parse(s, 4420, &sa) == 0) {
		FUZZ_CHECK(sa.ss_family == AF_INET || sa.ss_family == AF_INET6);
		FUZZ_CHECK(rblk_addr_port((struct sockaddr *)&sa) != 0);
		rblk_addr_str((struct sockaddr *)&sa, str, sizeof(str));
		FUZZ_CHECK(rblk_hostport_parse(str, 1, &back) == 0);
		FUZZ_CHECK(same_sa(&sa, &back));
	}
	if (rblk_addr_parse(s, 4420, &sa) == 0) {
		rblk_addr_host_str((struct sockaddr *)&sa, str, sizeof(str));
		FUZZ_CHECK(rblk_addr_parse(str, 4420, &back) == 0);
		FUZZ_CHECK(same_sa(&sa, &back));
	}
}

static void cli(const char *s)
{
	static FILE *null;
	struct cli_conn c;
	char why[256];

	if (!null)
		null = fopen("/dev/null", "w");
	rblk_cli_errf = rblk_cli_out = null;
	rblk_cli_conn_init(&c);
	if (rblk_cli_conn_trid(&c, s, why, sizeof(why)) == 0 && c.n_trid) {
		const char *lo = (const char *)c.trid[c.n_trid - 1];
		const char *hi = lo + sizeof(*c.trid[0]);
		const char *f[] = { c.traddr, c.trsvcid, c.subnqn, c.hostnqn, c.host_traddr };

		for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			FUZZ_CHECK(!f[i] || (f[i] >= lo && f[i] < hi));
	}
	rblk_cli_conn_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FUZZ_CHECK(s != NULL);
	memcpy(s, data, size);
	s[size] = '\0';
	fio(s);
	addr(s);
	cli(s);
	free(s);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static const char *const seeds[] = {
		"trtype=RDMA adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=nqn.2024-01.io.rblk:disk0 ns=1",
		"trtype:rdma traddr:fe80::1%lo subnqn=nqn.2014-08.org.nvmexpress\\:uuid\\:5b0c1d7e ns=0x2 hostaddr=10.0.0.2",
		"traddr=10.0.0.1 subnqn=nqn.x hostnqn=nqn.y hostid=5b0c1d7e-0000-4000-8000-000000000001",
		"10.99.0.1:4420",
		"[fe80::1%1]:4421",
		":4420",
	};
	size_t n;

	if (idx >= sizeof(seeds) / sizeof(seeds[0]))
		return 0;
	n = strlen(seeds[idx]);
	if (n > max)
		return 0;
	memcpy(buf, seeds[idx], n);
	return n;
}
