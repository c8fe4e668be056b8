/* SPDX-License-Identifier: MIT */
/*
 * Identify Controller / Namespace dumps and the `rblk list` table. One table
 * per structure names each field, where it lives and how to show it, so the
 * normal and the JSON output cannot drift apart. Field names are the spec
 * mnemonics, as nvme id-ctrl / id-ns print them.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "cli/output.h"
#include "protocol/le.h"
#include "protocol/nvme.h"

enum fkind {
	F_DEC,		/* little-endian unsigned, decimal */
	F_HEX,		/* little-endian unsigned, 0x hex */
	F_STR,		/* space/NUL padded ASCII */
	F_U128,		/* 16-byte little-endian count */
	F_IEEE,		/* 3-byte OUI, printed most significant byte first */
	F_BYTES,	/* GUID/EUI-64: hex string in wire order */
};

struct field {
	const char *name;
	uint16_t off, len;
	enum fkind kind;
};

#define FC(n, k) { #n, offsetof(struct nvme_id_ctrl, n), sizeof(((struct nvme_id_ctrl *)0)->n), k }
#define FN(n, k) { #n, offsetof(struct nvme_id_ns, n), sizeof(((struct nvme_id_ns *)0)->n), k }

static const struct field ctrl_fields[] = {
	FC(vid, F_HEX),	       FC(ssvid, F_HEX),     FC(sn, F_STR),	 FC(mn, F_STR),
	FC(fr, F_STR),	       FC(rab, F_DEC),	     FC(ieee, F_IEEE),	 FC(cmic, F_HEX),
	FC(mdts, F_DEC),       FC(cntlid, F_HEX),    FC(ver, F_HEX),	 FC(rtd3r, F_HEX),
	FC(rtd3e, F_HEX),      FC(oaes, F_HEX),	     FC(ctratt, F_HEX),	 FC(rrls, F_HEX),
	FC(cntrltype, F_DEC),  FC(fguid, F_BYTES),   FC(crdt1, F_DEC),	 FC(crdt2, F_DEC),
	FC(crdt3, F_DEC),      FC(nvmsr, F_DEC),     FC(vwci, F_DEC),	 FC(mec, F_DEC),
	FC(oacs, F_HEX),       FC(acl, F_DEC),	     FC(aerl, F_DEC),	 FC(frmw, F_HEX),
	FC(lpa, F_HEX),	       FC(elpe, F_DEC),	     FC(npss, F_DEC),	 FC(avscc, F_HEX),
	FC(apsta, F_HEX),      FC(wctemp, F_DEC),    FC(cctemp, F_DEC),	 FC(mtfa, F_DEC),
	FC(hmpre, F_DEC),      FC(hmmin, F_DEC),     FC(tnvmcap, F_U128), FC(unvmcap, F_U128),
	FC(rpmbs, F_HEX),      FC(edstt, F_DEC),     FC(dsto, F_DEC),	 FC(fwug, F_DEC),
	FC(kas, F_DEC),	       FC(hctma, F_HEX),     FC(mntmt, F_DEC),	 FC(mxtmt, F_DEC),
	FC(sanicap, F_HEX),    FC(hmminds, F_DEC),   FC(hmmaxd, F_DEC),	 FC(nsetidmax, F_DEC),
	FC(endgidmax, F_DEC),  FC(anatt, F_DEC),     FC(anacap, F_HEX),	 FC(anagrpmax, F_DEC),
	FC(nanagrpid, F_DEC),  FC(pels, F_DEC),	     FC(domainid, F_DEC), FC(megcap, F_U128),
	FC(sqes, F_HEX),       FC(cqes, F_HEX),	     FC(maxcmd, F_DEC),	 FC(nn, F_DEC),
	FC(oncs, F_HEX),       FC(fuses, F_HEX),     FC(fna, F_HEX),	 FC(vwc, F_HEX),
	FC(awun, F_DEC),       FC(awupf, F_DEC),     FC(icsvscc, F_DEC), FC(nwpc, F_DEC),
	FC(acwu, F_DEC),       FC(ocfs, F_HEX),	     FC(sgls, F_HEX),	 FC(mnan, F_DEC),
	FC(maxdna, F_U128),    FC(maxcna, F_DEC),    FC(subnqn, F_STR),	 FC(ioccsz, F_DEC),
	FC(iorcsz, F_DEC),     FC(icdoff, F_DEC),    FC(fcatt, F_HEX),	 FC(msdbd, F_DEC),
	FC(ofcs, F_HEX),
};

static const struct field ns_fields[] = {
	FN(nsze, F_HEX),      FN(ncap, F_HEX),	    FN(nuse, F_HEX),	  FN(nsfeat, F_HEX),
	FN(nlbaf, F_DEC),     FN(flbas, F_HEX),	    FN(mc, F_HEX),	  FN(dpc, F_HEX),
	FN(dps, F_HEX),	      FN(nmic, F_DEC),	    FN(rescap, F_HEX),	  FN(fpi, F_HEX),
	FN(dlfeat, F_DEC),    FN(nawun, F_DEC),	    FN(nawupf, F_DEC),	  FN(nacwu, F_DEC),
	FN(nabsn, F_DEC),     FN(nabo, F_DEC),	    FN(nabspf, F_DEC),	  FN(noiob, F_DEC),
	FN(nvmcap, F_U128),   FN(npwg, F_DEC),	    FN(npwa, F_DEC),	  FN(npdg, F_DEC),
	FN(npda, F_DEC),      FN(nows, F_DEC),	    FN(mssrl, F_DEC),	  FN(mcl, F_DEC),
	FN(msrc, F_DEC),      FN(nulbaf, F_DEC),    FN(anagrpid, F_DEC),  FN(nsattr, F_DEC),
	FN(nvmsetid, F_DEC),  FN(endgid, F_DEC),    FN(nguid, F_BYTES),	  FN(eui64, F_BYTES),
};

static uint64_t get_le(const uint8_t *p, unsigned len)
{
	uint64_t v = 0;

	for (unsigned i = len; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

/* A 128-bit little-endian count in decimal. */
static const char *u128_str(const uint8_t *p, char *buf, size_t len)
{
	unsigned __int128 v = 0;
	char tmp[48];
	int i = sizeof(tmp) - 1;

	for (int b = 15; b >= 0; b--)
		v = (v << 8) | p[b];
	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v);
	snprintf(buf, len, "%s", &tmp[i]);
	return buf;
}

static const char *bytes_str(const uint8_t *p, unsigned n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && o + 3 <= len; i++)
		o += snprintf(buf + o, len - o, "%02x", p[i]);
	return buf;
}

static void field_text(const struct field *fd, const uint8_t *base, char *buf, size_t len)
{
	const uint8_t *p = base + fd->off;

	switch (fd->kind) {
	case F_DEC:
		snprintf(buf, len, "%" PRIu64, get_le(p, fd->len));
		break;
	case F_HEX:
		snprintf(buf, len, "%#" PRIx64, get_le(p, fd->len));
		break;
	case F_STR:
		rblk_cli_id_str(buf, len, (const char *)p, fd->len);
		break;
	case F_U128:
		u128_str(p, buf, len);
		break;
	case F_IEEE:
		snprintf(buf, len, "%02x%02x%02x", p[2], p[1], p[0]);
		break;
	case F_BYTES:
		bytes_str(p, fd->len, buf, len);
		break;
	}
}

static struct json_object *field_json(const struct field *fd, const uint8_t *base)
{
	const uint8_t *p = base + fd->off;
	char buf[300];

	switch (fd->kind) {
	case F_DEC:
	case F_HEX:
		return json_object_new_uint64(get_le(p, fd->len));
	case F_IEEE:
		return json_object_new_uint64(get_le(p, 3));
	case F_U128:
		if (!get_le(p + 8, 8))
			return json_object_new_uint64(get_le(p, 8));
		/* beyond 64 bits: a decimal string */
		field_text(fd, base, buf, sizeof(buf));
		return json_object_new_string(buf);
	default:
		field_text(fd, base, buf, sizeof(buf));
		return json_object_new_string(buf);
	}
}

static void print_fields(FILE *f, const struct field *t, size_t n, const uint8_t *base)
{
	char buf[300];

	for (size_t i = 0; i < n; i++) {
		field_text(&t[i], base, buf, sizeof(buf));
		fprintf(f, "%-10s: %s\n", t[i].name, buf);
	}
}

static struct json_object *fields_json(const struct field *t, size_t n, const uint8_t *base)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, t[i].name, field_json(&t[i], base));
	return o;
}

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

void rblk_cli_id_ctrl_print(FILE *f, const void *id)
{
	const struct nvme_id_ctrl *c = id;

	fprintf(f, "NVME Identify Controller:\n");
	print_fields(f, ctrl_fields, NFIELDS(ctrl_fields), id);
	for (unsigned i = 0; i <= c->npss && i < 32; i++) {
		const struct nvme_id_power_state *ps = &c->psd[i];
		unsigned mp = rblk_le16(ps->max_power);

		fprintf(f, "ps %4u : mp:%u.%02uW %soperational enlat:%u exlat:%u rrt:%u rrl:%u\n", i,
			mp / 100, mp % 100, ps->flags & 0x2 ? "non-" : "", rblk_le32(ps->entry_lat),
			rblk_le32(ps->exit_lat), ps->read_tput, ps->read_lat);
	}
}

struct json_object *rblk_cli_id_ctrl_json(const void *id)
{
	const struct nvme_id_ctrl *c = id;
	struct json_object *o = fields_json(ctrl_fields, NFIELDS(ctrl_fields), id);
	struct json_object *psds = json_object_new_array();

	for (unsigned i = 0; i <= c->npss && i < 32; i++) {
		const struct nvme_id_power_state *ps = &c->psd[i];
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "max_power", json_object_new_int(rblk_le16(ps->max_power)));
		json_object_object_add(p, "flags", json_object_new_int(ps->flags));
		json_object_object_add(p, "entry_lat", json_object_new_int64(rblk_le32(ps->entry_lat)));
		json_object_object_add(p, "exit_lat", json_object_new_int64(rblk_le32(ps->exit_lat)));
		json_object_object_add(p, "read_tput", json_object_new_int(ps->read_tput));
		json_object_object_add(p, "read_lat", json_object_new_int(ps->read_lat));
		json_object_object_add(p, "write_tput", json_object_new_int(ps->write_tput));
		json_object_object_add(p, "write_lat", json_object_new_int(ps->write_lat));
		json_object_array_add(psds, p);
	}
	json_object_object_add(o, "psds", psds);
	return o;
}

void rblk_cli_id_ns_print(FILE *f, uint32_t nsid, const void *id)
{
	const struct nvme_id_ns *ns = id;
	unsigned inuse = nvme_ns_flbas_index(ns->flbas);

	fprintf(f, "NVME Identify Namespace %u:\n", nsid);
	print_fields(f, ns_fields, NFIELDS(ns_fields), id);
	for (unsigned i = 0; i <= ns->nlbaf && i < 64; i++)
		fprintf(f, "lbaf %2u : ms:%-3u lbads:%-2u rp:%#x %s\n", i, rblk_le16(ns->lbaf[i].ms),
			ns->lbaf[i].ds, ns->lbaf[i].rp & 3, i == inuse ? "(in use)" : "");
}

struct json_object *rblk_cli_id_ns_json(const void *id)
{
	const struct nvme_id_ns *ns = id;
	struct json_object *o = fields_json(ns_fields, NFIELDS(ns_fields), id);
	struct json_object *lbafs = json_object_new_array();

	for (unsigned i = 0; i <= ns->nlbaf && i < 64; i++) {
		struct json_object *l = json_object_new_object();

		json_object_object_add(l, "ms", json_object_new_int(rblk_le16(ns->lbaf[i].ms)));
		json_object_object_add(l, "ds", json_object_new_int(ns->lbaf[i].ds));
		json_object_object_add(l, "rp", json_object_new_int(ns->lbaf[i].rp & 3));
		json_object_array_add(lbafs, l);
	}
	json_object_object_add(o, "lbafs", lbafs);
	return o;
}

void rblk_cli_list_row_ctrl(struct cli_list_row *row, const void *id_ctrl)
{
	const struct nvme_id_ctrl *c = id_ctrl;

	rblk_cli_id_str(row->sn, sizeof(row->sn), c->sn, sizeof(c->sn));
	rblk_cli_id_str(row->mn, sizeof(row->mn), c->mn, sizeof(c->mn));
	rblk_cli_id_str(row->fr, sizeof(row->fr), c->fr, sizeof(c->fr));
}

void rblk_cli_list_row_ns(struct cli_list_row *row, uint32_t nsid, const void *id_ns)
{
	const struct nvme_id_ns *ns = id_ns;
	unsigned fmt = nvme_ns_flbas_index(ns->flbas);

	row->nsid = nsid;
	row->nsze = rblk_le64(ns->nsze);
	row->nuse = rblk_le64(ns->nuse);
	row->lba_size = ns->lbaf[fmt].ds >= 9 && ns->lbaf[fmt].ds < 32 ? 1u << ns->lbaf[fmt].ds : 0;
	row->ms = rblk_le16(ns->lbaf[fmt].ms);
}

void rblk_cli_list_print(FILE *f, const char *subnqn, const char *traddr, const char *trsvcid,
			 const struct cli_list_row *rows, unsigned n)
{
	char used[32], total[32], fmt[48], lba[16];

	fprintf(f, "Subsystem %s at rdma traddr=%s,trsvcid=%s\n\n", subnqn, traddr, trsvcid);
	fprintf(f, "%-10s %-20s %-40s %-26s %-16s %-8s\n", "Namespace", "SN", "Model", "Usage",
		"Format", "FW Rev");
	fprintf(f, "%-10s %-20s %-40s %-26s %-16s %-8s\n", "----------", "--------------------",
		"----------------------------------------", "--------------------------",
		"----------------", "--------");
	for (unsigned i = 0; i < n; i++) {
		const struct cli_list_row *r = &rows[i];
		char usage[80];

		rblk_cli_fmt_si(r->nuse * r->lba_size, used, sizeof(used));
		rblk_cli_fmt_si(r->nsze * r->lba_size, total, sizeof(total));
		snprintf(usage, sizeof(usage), "%s / %s", used, total);
		snprintf(lba, sizeof(lba), "%u", r->lba_size);
		snprintf(fmt, sizeof(fmt), "%-6s B + %2u B", lba, r->ms);
		fprintf(f, "%-10u %-20s %-40s %-26s %-16s %-8s\n", r->nsid, r->sn, r->mn, usage, fmt,
			r->fr);
	}
}

struct json_object *rblk_cli_list_json(const char *subnqn, const char *traddr, const char *trsvcid,
				       const struct cli_list_row *rows, unsigned n)
{
	struct json_object *root = json_object_new_object();
	struct json_object *devs = json_object_new_array();
	char addr[320];

	snprintf(addr, sizeof(addr), "traddr=%s,trsvcid=%s", traddr, trsvcid);
	for (unsigned i = 0; i < n; i++) {
		const struct cli_list_row *r = &rows[i];
		struct json_object *d = json_object_new_object();

		json_object_object_add(d, "NameSpace", json_object_new_int64(r->nsid));
		json_object_object_add(d, "Firmware", json_object_new_string(r->fr));
		json_object_object_add(d, "ModelNumber", json_object_new_string(r->mn));
		json_object_object_add(d, "SerialNumber", json_object_new_string(r->sn));
		json_object_object_add(d, "UsedBytes", json_object_new_uint64(r->nuse * r->lba_size));
		json_object_object_add(d, "MaximumLBA", json_object_new_uint64(r->nsze));
		json_object_object_add(d, "PhysicalSize", json_object_new_uint64(r->nsze * r->lba_size));
		json_object_object_add(d, "SectorSize", json_object_new_int64(r->lba_size));
		json_object_object_add(d, "SubsystemNQN", json_object_new_string(subnqn));
		json_object_object_add(d, "Transport", json_object_new_string("rdma"));
		json_object_object_add(d, "Address", json_object_new_string(addr));
		json_object_array_add(devs, d);
	}
	json_object_object_add(root, "Devices", devs);
	return root;
}
