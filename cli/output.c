/* SPDX-License-Identifier: MIT */
/*
 * Output for `rblk`: JSON printing, sizes, and the discovery log in nvme-cli's
 * two layouts. Field names and value strings follow libnvme (nvmf_trtype_str
 * and friends) so scripts that parse `nvme discover` parse us too.
 */
#include <inttypes.h>
#include <string.h>

#include "cli/output.h"
#include "protocol/nvmf.h"

void rblk_cli_json_print(FILE *f, struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	fputc('\n', f);
}

const char *rblk_cli_fmt_iec(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, unit[u]);
	return buf;
}

const char *rblk_cli_fmt_si(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1000 && u < 6) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%6.2f %3s", v, unit[u]);
	return buf;
}

#define NAME(tab, i) ((i) < sizeof(tab) / sizeof(tab[0]) && (tab)[i] ? (tab)[i] : "unrecognized")

const char *rblk_cli_trtype_str(uint8_t trtype)
{
	switch (trtype) {
	case NVMF_TRTYPE_RDMA: return "rdma";
	case NVMF_TRTYPE_FC: return "fc";
	case NVMF_TRTYPE_TCP: return "tcp";
	case NVMF_TRTYPE_LOOP: return "loop";
	default: return "unrecognized";
	}
}

const char *rblk_cli_adrfam_str(uint8_t adrfam)
{
	static const char *const t[] = {
		[NVMF_ADRFAM_PCI] = "pci", [NVMF_ADRFAM_IPV4] = "ipv4", [NVMF_ADRFAM_IPV6] = "ipv6",
		[NVMF_ADRFAM_IB] = "infiniband", [NVMF_ADRFAM_FC] = "fibre-channel",
	};

	if (adrfam == NVMF_ADRFAM_LOOP)
		return "loop";
	return NAME(t, adrfam);
}

const char *rblk_cli_subtype_str(uint8_t subtype)
{
	static const char *const t[] = {
		[NVMF_SUBTYPE_DISCOVERY] = "discovery subsystem referral",
		[NVMF_SUBTYPE_NVME] = "nvme subsystem",
		[NVMF_SUBTYPE_CURRENT_DISCOVERY] = "current discovery subsystem",
	};

	return NAME(t, subtype);
}

const char *rblk_cli_treq_str(uint8_t treq, char *buf, size_t len)
{
	static const char *const t[] = {
		[NVMF_TREQ_NOT_SPECIFIED] = "not specified",
		[NVMF_TREQ_REQUIRED] = "required",
		[NVMF_TREQ_NOT_REQUIRED] = "not required",
	};

	snprintf(buf, len, "%s%s", NAME(t, treq & NVMF_TREQ_SECURE_MASK),
		 treq & NVMF_TREQ_DISABLE_SQFLOW ? ", sq flow control disable supported" : "");
	return buf;
}

const char *rblk_cli_eflags_str(uint16_t eflags)
{
	/* libnvme's table: bit 0 DUPRETINFO, bit 1 EPCSD, bit 2 NCC. */
	static const char *const t[] = {
		"none",
		"duplicate discovery information",
		"explicit discovery connections",
		"explicit discovery connections, duplicate discovery information",
		"no cdc connectivity",
		"duplicate discovery information, no cdc connectivity",
		"explicit discovery connections, no cdc connectivity",
		"explicit discovery connections, duplicate discovery information, no cdc connectivity",
	};

	return NAME(t, eflags);
}

const char *rblk_cli_prtype_str(uint8_t prtype)
{
	static const char *const t[] = {
		[NVMF_RDMA_PRTYPE_NOT_SPECIFIED] = "not specified", [NVMF_RDMA_PRTYPE_IB] = "infiniband",
		[NVMF_RDMA_PRTYPE_ROCE] = "roce", [NVMF_RDMA_PRTYPE_ROCEV2] = "roce-v2",
		[NVMF_RDMA_PRTYPE_IWARP] = "iwarp",
	};

	return NAME(t, prtype);
}

const char *rblk_cli_qptype_str(uint8_t qptype)
{
	static const char *const t[] = {
		[NVMF_RDMA_QPTYPE_CONNECTED] = "connected",
		[NVMF_RDMA_QPTYPE_DATAGRAM] = "datagram",
	};

	return NAME(t, qptype);
}

const char *rblk_cli_cms_str(uint8_t cms)
{
	return cms == NVMF_RDMA_CMS_RDMA_CM ? "rdma-cm" : "unrecognized";
}

void rblk_cli_disc_print(FILE *f, const struct rblk_disc_entry *e, unsigned n, uint64_t genctr)
{
	char treq[64];

	fprintf(f, "\nDiscovery Log Number of Records %u, Generation counter %" PRIu64 "\n", n,
		genctr);
	for (unsigned i = 0; i < n; i++, e++) {
		fprintf(f, "=====Discovery Log Entry %u======\n", i);
		fprintf(f, "trtype:  %s\n", rblk_cli_trtype_str(e->trtype));
		fprintf(f, "adrfam:  %s\n", e->traddr[0] ? rblk_cli_adrfam_str(e->adrfam) : "");
		fprintf(f, "subtype: %s\n", rblk_cli_subtype_str(e->subtype));
		fprintf(f, "treq:    %s\n", rblk_cli_treq_str(e->treq, treq, sizeof(treq)));
		fprintf(f, "portid:  %u\n", e->portid);
		fprintf(f, "trsvcid: %s\n", e->trsvcid);
		fprintf(f, "subnqn:  %s\n", e->subnqn);
		fprintf(f, "traddr:  %s\n", e->traddr);
		fprintf(f, "eflags:  %s\n", rblk_cli_eflags_str(e->eflags));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			fprintf(f, "rdma_prtype: %s\n", rblk_cli_prtype_str(e->rdma_prtype));
			fprintf(f, "rdma_qptype: %s\n", rblk_cli_qptype_str(e->rdma_qptype));
			fprintf(f, "rdma_cms:    %s\n", rblk_cli_cms_str(e->rdma_cms));
			fprintf(f, "rdma_pkey: 0x%04x\n", e->rdma_pkey);
		}
	}
}

struct json_object *rblk_cli_disc_json(const struct rblk_disc_entry *e, unsigned n, uint64_t genctr)
{
	struct json_object *root = json_object_new_object();
	struct json_object *recs = json_object_new_array();
	char treq[64];

	json_object_object_add(root, "genctr", json_object_new_uint64(genctr));
	json_object_object_add(root, "records", recs);
	for (unsigned i = 0; i < n; i++, e++) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "trtype", json_object_new_string(rblk_cli_trtype_str(e->trtype)));
		json_object_object_add(r, "adrfam", json_object_new_string(rblk_cli_adrfam_str(e->adrfam)));
		json_object_object_add(r, "subtype",
				       json_object_new_string(rblk_cli_subtype_str(e->subtype)));
		json_object_object_add(r, "treq",
				       json_object_new_string(rblk_cli_treq_str(e->treq, treq, sizeof(treq))));
		json_object_object_add(r, "portid", json_object_new_int(e->portid));
		json_object_object_add(r, "trsvcid", json_object_new_string(e->trsvcid));
		json_object_object_add(r, "subnqn", json_object_new_string(e->subnqn));
		json_object_object_add(r, "traddr", json_object_new_string(e->traddr));
		json_object_object_add(r, "eflags", json_object_new_string(rblk_cli_eflags_str(e->eflags)));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			json_object_object_add(r, "rdma_prtype",
					       json_object_new_string(rblk_cli_prtype_str(e->rdma_prtype)));
			json_object_object_add(r, "rdma_qptype",
					       json_object_new_string(rblk_cli_qptype_str(e->rdma_qptype)));
			json_object_object_add(r, "rdma_cms",
					       json_object_new_string(rblk_cli_cms_str(e->rdma_cms)));
			json_object_object_add(r, "rdma_pkey", json_object_new_int(e->rdma_pkey));
		}
		json_object_array_add(recs, r);
	}
	return root;
}

void rblk_cli_id_str(char *dst, size_t dstlen, const char *field, size_t fieldlen)
{
	size_t n = fieldlen;

	while (n && (field[n - 1] == ' ' || field[n - 1] == '\0'))
		n--;
	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, field, n);
	dst[n] = '\0';
}
