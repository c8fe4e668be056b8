/* SPDX-License-Identifier: MIT */
/*
 * `rblk resv-register`, `resv-acquire`, `resv-release` and `resv-report`:
 * NVMe reservations, with nvme-cli's long option names and values (--crkey,
 * --nrkey, --prkey, --rtype 1-6, --rrega, --racqa, --rrela, --cptpl,
 * --iekey, --eds). nvme-cli's short letters collide with the connection
 * flags every rblk verb takes (-a, -c, -k, -n, -r, -t), so only the long
 * names are taken. The commands go through rblk_ns_cmd() as built here.
 *
 * The reservation belongs to the host identity (--hostnqn / --hostid, or
 * /etc/nvme/hostnqn and hostid): use the same one for every call, and a
 * different one per host of the cluster.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/output.h"
#include "protocol/le.h"
#include "protocol/names.h"
#include "protocol/nvme.h"
#include "protocol/nvme_resv.h"
#include "protocol/nvme_status.h"

enum resv_verb {
	RESV_REGISTER,
	RESV_ACQUIRE,
	RESV_RELEASE,
	RESV_REPORT,
};

static const char *const verb_name[] = { "resv-register", "resv-acquire", "resv-release",
					 "resv-report" };

/* Report: room for the header and 64 extended registrants. */
#define REPORT_MAX (NVME_RESV_STATUS_EXT_LEN + 64 * sizeof(struct nvme_resv_regctl_ext))

struct resv_args {
	enum resv_verb verb;
	uint64_t crkey, nkey;		/* NRKEY (register) or PRKEY (acquire) */
	long action, rtype, cptpl;
	bool iekey, eds;
	long numd;			/* report: dwords to read, 0 = REPORT_MAX */
};

static void usage(FILE *f, enum resv_verb v)
{
	fprintf(f, "Usage: rblk %s -t rdma -a ADDR [-s PORT] -n SUBNQN [-N NSID] [-q HOSTNQN] [-I HOSTID]\n",
		verb_name[v]);
	switch (v) {
	case RESV_REGISTER:
		fprintf(f, "                 [--crkey=KEY] --nrkey=KEY [--rrega=0|1|2] [--cptpl=0|2|3] [--iekey]\n\n"
			   "Reservation Register: registers this host with NRKEY (rrega 0), unregisters\n"
			   "it (1, CRKEY the current key) or replaces its key (2). --cptpl 3 makes the\n"
			   "reservation persist through power loss, 2 stops that.\n\n");
		break;
	case RESV_ACQUIRE:
		fprintf(f, "                 --crkey=KEY --rtype=1-6 [--racqa=0|1|2] [--prkey=KEY] [--iekey]\n\n"
			   "Reservation Acquire: acquires the reservation (racqa 0), preempts the\n"
			   "registrants holding PRKEY (1), or preempts them and aborts their commands (2).\n\n");
		break;
	case RESV_RELEASE:
		fprintf(f, "                 --crkey=KEY [--rtype=1-6] [--rrela=0|1] [--iekey]\n\n"
			   "Reservation Release: releases the reservation (rrela 0, --rtype the type\n"
			   "held) or clears it and every registration (1).\n\n");
		break;
	case RESV_REPORT:
		fprintf(f, "                 [--eds] [--numd=DWORDS] [-o json]\n\n"
			   "Reservation Report: the generation, the type held, Persist Through Power\n"
			   "Loss, and every registrant with its key and 128-bit host ID (the extended\n"
			   "form, always: --eds is accepted as nvme-cli has it).\n\n");
		break;
	}
	fputs(rblk_cli_conn_help, f);
	fprintf(f, "Command:\n"
		   "  -N, --nsid=NSID               namespace (default: the only one)\n");
	if (v != RESV_REPORT)
		fprintf(f, "      --crkey=KEY               current reservation key (decimal or 0x hex)\n"
			   "      --iekey                   ignore the current key\n");
	if (v == RESV_REGISTER)
		fprintf(f, "      --nrkey=KEY               new reservation key\n"
			   "      --rrega=N                 0 register, 1 unregister, 2 replace (default 0)\n"
			   "      --cptpl=N                 0 keep, 2 clear, 3 set Persist Through Power Loss\n");
	if (v == RESV_ACQUIRE)
		fprintf(f, "      --prkey=KEY               the key to preempt (racqa 1 and 2)\n"
			   "      --racqa=N                 0 acquire, 1 preempt, 2 preempt and abort (default 0)\n");
	if (v == RESV_ACQUIRE || v == RESV_RELEASE)
		fprintf(f, "      --rtype=N                 1 Write Exclusive, 2 Exclusive Access,\n"
			   "                                3/4 the same for Registrants Only,\n"
			   "                                5/6 the same for All Registrants\n");
	if (v == RESV_RELEASE)
		fprintf(f, "      --rrela=N                 0 release, 1 clear (default 0)\n");
	if (v == RESV_REPORT)
		fprintf(f, "      --eds                     extended data structure (the default; kept for nvme-cli)\n"
			   "      --numd=N                  dwords to read (default: room for 64 registrants)\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n");
	switch (v) {
	case RESV_REGISTER:
		fprintf(f, "  rblk resv-register -a 192.0.2.10 -n NQN -N 1 --nrkey=0xabc --cptpl=3\n");
		break;
	case RESV_ACQUIRE:
		fprintf(f, "  rblk resv-acquire -a 192.0.2.10 -n NQN -N 1 --crkey=0xabc --rtype=1\n"
			   "  rblk resv-acquire -a 192.0.2.10 -n NQN --crkey=0xdef --prkey=0xabc --rtype=1 --racqa=2\n");
		break;
	case RESV_RELEASE:
		fprintf(f, "  rblk resv-release -a 192.0.2.10 -n NQN -N 1 --crkey=0xabc --rtype=1\n");
		break;
	case RESV_REPORT:
		fprintf(f, "  rblk resv-report -a 192.0.2.10 -n NQN -N 1 --eds -o json\n");
		break;
	}
}

/* Options into @a, @c and @fmt. 0, -1 after --help, or an exit code. */
static int parse_resv(int argc, char **argv, struct resv_args *a, struct cli_conn *c,
		      enum cli_fmt *fmt, bool *have_nkey, bool *have_crkey)
{
	static const struct option longopts[] = {
		CLI_CONN_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ "nsid", required_argument, NULL, 'N' },
		{ "namespace-id", required_argument, NULL, 'N' },
		{ "crkey", required_argument, NULL, 1 },
		{ "nrkey", required_argument, NULL, 2 },
		{ "prkey", required_argument, NULL, 3 },
		{ "rrega", required_argument, NULL, 4 },
		{ "racqa", required_argument, NULL, 4 },
		{ "rrela", required_argument, NULL, 4 },
		{ "rtype", required_argument, NULL, 5 },
		{ "cptpl", required_argument, NULL, 6 },
		{ "iekey", no_argument, NULL, 7 },
		{ "eds", no_argument, NULL, 8 },
		{ "numd", required_argument, NULL, 9 },
		{ NULL, 0, NULL, 0 },
	};
	/* Which of the shared option codes each verb takes. */
	static const char *const takes[] = {
		[RESV_REGISTER] = "\1\2\4\6\7", [RESV_ACQUIRE] = "\1\3\4\5\7",
		[RESV_RELEASE] = "\1\4\5\7", [RESV_REPORT] = "\10\11",
	};
	static const char *const action_opt[] = { "rrega", "racqa", "rrela", "" };
	char why[160];
	int opt, ret, idx = -1;

	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:",
				  longopts, &idx)) != -1) {
		if (opt >= 1 && opt <= 9 && !strchr(takes[a->verb], opt))
			return rblk_cli_usage_err("--%s is not an option of %s", longopts[idx].name,
						  verb_name[a->verb]);
		switch (opt) {
		case 'h':
			usage(rblk_cli_out, a->verb);
			return -1;
		case '?':
		case ':':
			return rblk_cli_bad_option(opt, argc, argv);
		case 'N':
			if (rblk_nsid_parse(optarg, &c->nsid, why, sizeof(why)))
				return rblk_cli_usage_err("invalid namespace ID '%s': it %s", optarg, why);
			c->have_nsid = true;
			break;
		case 1:
		case 2:
		case 3:
			if (rblk_u64_parse(optarg, opt == 1 ? &a->crkey : &a->nkey, why, sizeof(why)))
				return rblk_cli_usage_err("invalid key '%s': it %s", optarg, why);
			*(opt == 1 ? have_crkey : have_nkey) = true;
			break;
		case 4:
			if (strcmp(longopts[idx].name, action_opt[a->verb]))
				return rblk_cli_usage_err("--%s is not an option of %s (--%s is)",
							  longopts[idx].name, verb_name[a->verb],
							  action_opt[a->verb]);
			if (rblk_cli_parse_long(optarg, 0, a->verb == RESV_RELEASE ? 1 : 2, &a->action))
				return rblk_cli_usage_err("invalid --%s '%s' (0-%d)", longopts[idx].name, optarg,
							  a->verb == RESV_RELEASE ? 1 : 2);
			break;
		case 5:
			if (rblk_cli_parse_long(optarg, 1, 6, &a->rtype))
				return rblk_cli_usage_err("invalid --rtype '%s' (1-6)", optarg);
			break;
		case 6:
			if (rblk_cli_parse_long(optarg, 0, 3, &a->cptpl) || a->cptpl == 1)
				return rblk_cli_usage_err("invalid --cptpl '%s' (0 keep, 2 clear, 3 set)", optarg);
			break;
		case 7: a->iekey = true; break;
		case 8: break;	/* the extended form is the only one sent */
		case 9:
			if (rblk_cli_parse_long(optarg, 1, REPORT_MAX / 4, &a->numd))
				return rblk_cli_usage_err("invalid --numd '%s' (1-%zu)", optarg, REPORT_MAX / 4);
			break;
		default:
			ret = rblk_cli_conn_opt(c, opt, optarg);
			if (!ret)
				ret = rblk_cli_common_opt(opt, optarg, fmt);
			if (ret != 1)
				return ret;
			break;
		}
		idx = -1;
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Semantic checks nvme-cli leaves to the target, worth a clear word here. */
static int validate(const struct resv_args *a, bool have_nkey, bool have_crkey)
{
	switch (a->verb) {
	case RESV_REGISTER:
		if (a->action != NVME_RESV_UNREGISTER && !have_nkey)
			return rblk_cli_usage_err("resv-register needs --nrkey (the key to register with)");
		break;
	case RESV_ACQUIRE:
		if (!a->rtype)
			return rblk_cli_usage_err("resv-acquire needs --rtype (1-6)");
		if (a->action != NVME_RESV_ACQUIRE && !have_nkey)
			return rblk_cli_usage_err("--racqa %ld preempts: give --prkey (the key to preempt)",
						  a->action);
		break;
	case RESV_RELEASE:
	case RESV_REPORT:
		break;
	}
	if (a->verb != RESV_REPORT && a->verb != RESV_REGISTER && !have_crkey && !a->iekey)
		return rblk_cli_usage_err("%s needs --crkey (or --iekey)", verb_name[a->verb]);
	return 0;
}

/* The command and its data. Returns the data length. */
static uint32_t build(const struct resv_args *a, struct nvme_sqe *sqe, uint8_t *data)
{
	uint32_t cdw10 = (uint32_t)a->action | (a->iekey ? NVME_RESV_IEKEY : 0);
	uint32_t len = sizeof(struct nvme_resv_keys);

	memset(sqe, 0, sizeof(*sqe));
	rblk_put_le64(data, a->crkey);
	rblk_put_le64(data + 8, a->nkey);
	switch (a->verb) {
	case RESV_REGISTER:
		sqe->opc = NVME_IO_RESV_REGISTER;
		cdw10 |= (uint32_t)a->cptpl << 30;
		break;
	case RESV_ACQUIRE:
		sqe->opc = NVME_IO_RESV_ACQUIRE;
		cdw10 |= (uint32_t)a->rtype << 8;
		break;
	case RESV_RELEASE:
		sqe->opc = NVME_IO_RESV_RELEASE;
		cdw10 |= (uint32_t)a->rtype << 8;
		len = 8;
		break;
	case RESV_REPORT:
		sqe->opc = NVME_IO_RESV_REPORT;
		len = a->numd ? (uint32_t)a->numd * 4 : (uint32_t)REPORT_MAX;
		cdw10 = len / 4 - 1;	/* NUMD, 0-based */
		sqe->cdw11 = rblk_cpu_to_le32(a->eds ? NVME_RESV_REPORT_EDS : 0);
		memset(data, 0, len);
		break;
	}
	sqe->cdw10 = rblk_cpu_to_le32(cdw10);
	return len;
}

static void hostid_hex(const uint8_t *id, unsigned len, char *out)
{
	for (unsigned i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* Prints the report in @data (@len bytes read). */
static void print_report(const struct resv_args *a, enum cli_fmt fmt, uint32_t nsid,
			 const uint8_t *data, uint32_t len)
{
	const struct nvme_resv_status *h = (const void *)data;
	unsigned regctl = rblk_get_le16(h->regctl), hdr = a->eds ? NVME_RESV_STATUS_EXT_LEN : 24;
	unsigned esz = a->eds ? 64 : 24, shown = len > hdr ? (len - hdr) / esz : 0;
	struct json_object *o = NULL, *regs = NULL;

	if (shown > regctl)
		shown = regctl;
	if (fmt == CLI_FMT_JSON) {
		o = json_object_new_object();
		regs = json_object_new_array();
		json_object_object_add(o, "nsid", json_object_new_int64(nsid));
		json_object_object_add(o, "gen", json_object_new_int64(rblk_le32(h->gen)));
		json_object_object_add(o, "rtype", json_object_new_int(h->rtype));
		json_object_object_add(o, "rtype_name",
				       json_object_new_string(rblk_nvme_resv_type_str(h->rtype)));
		json_object_object_add(o, "regctl", json_object_new_int((int)regctl));
		json_object_object_add(o, "ptpls", json_object_new_boolean(h->ptpls & 1));
	} else {
		fprintf(rblk_cli_out, "NVME Reservation status:\n\n"
				      "gen       : %u\nrtype     : %u (%s)\nregctl    : %u\nptpls     : %u\n",
			rblk_le32(h->gen), h->rtype, rblk_nvme_resv_type_str(h->rtype), regctl,
			h->ptpls & 1);
	}
	for (unsigned i = 0; i < shown; i++) {
		const uint8_t *e = data + hdr + (size_t)i * esz;
		uint16_t cntlid = rblk_get_le16(e);
		uint8_t rcsts = e[2];
		uint64_t rkey = rblk_get_le64(e + (a->eds ? 8 : 16));
		char hid[33];

		hostid_hex(e + (a->eds ? 16 : 8), a->eds ? 16 : 8, hid);
		if (o) {
			struct json_object *r = json_object_new_object();
			char key[24];

			snprintf(key, sizeof(key), "%#" PRIx64, rkey);
			json_object_object_add(r, "cntlid", json_object_new_int(cntlid));
			json_object_object_add(r, "holder", json_object_new_boolean(rcsts & 1));
			json_object_object_add(r, "hostid", json_object_new_string(hid));
			json_object_object_add(r, "rkey", json_object_new_string(key));
			json_object_array_add(regs, r);
		} else {
			fprintf(rblk_cli_out, "\nregctl[%u] :\n  cntlid  : %#x\n  rcsts   : %#x%s\n"
					      "  hostid  : %s\n  rkey    : %#" PRIx64 "\n",
				i, cntlid, rcsts, rcsts & 1 ? " (holds the reservation)" : "", hid, rkey);
		}
	}
	if (o) {
		json_object_object_add(o, "registrants", regs);
		rblk_cli_json_print(rblk_cli_out, o);
		json_object_put(o);
	} else if (shown < regctl) {
		fprintf(rblk_cli_out, "\n(%u more registrants than --numd has room for)\n",
			regctl - shown);
	}
}

static int run(int argc, char **argv, enum resv_verb verb)
{
	struct rblk_connect_opts popts[RBLK_MPATH_MAX_PATHS];
	/*
	 * Report always asks for the extended form: rblk-target and the Linux
	 * target (6.13+) answer only that, as 128-bit host IDs do not fit the
	 * 64-bit one; --eds is taken for nvme-cli's sake.
	 */
	struct resv_args a = { .verb = verb, .eds = true };
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	bool have_nkey = false, have_crkey = false;
	struct rblk_mpath *mp = NULL;
	struct rblk_ctrl *ctrl = NULL;
	struct rblk_ns *ns = NULL;
	uint8_t *data = NULL;
	struct nvme_sqe sqe;
	unsigned npaths = 0;
	struct cli_conn c;
	uint32_t nsid, len;
	uint16_t st = 0;
	int ret;

	rblk_cli_conn_init(&c);
	ret = parse_resv(argc, argv, &a, &c, &fmt, &have_nkey, &have_crkey);
	if (ret) {
		ret = ret < 0 ? CLI_EXIT_OK : ret;
		goto out;
	}
	ret = validate(&a, have_nkey, have_crkey);
	if (!ret)
		ret = rblk_cli_conn_finish_paths(&c, popts, &npaths);
	if (ret)
		goto out;
	data = calloc(1, REPORT_MAX);
	if (!data) {
		rblk_cli_err("out of memory");
		ret = CLI_EXIT_FAILURE;
		goto out;
	}
	ret = rblk_cli_connect_ns(popts, npaths, &c, &mp, &ctrl, &ns, &nsid);
	if (ret)
		goto out_disconnect;
	len = build(&a, &sqe, data);
	ret = rblk_ns_cmd(ns, &sqe, data, len, NULL, &st);
	if (ret) {
		ret = rblk_cli_report(CLI_OP_IO, ret, st, "%s failed", verb_name[verb]);
		goto out_disconnect;
	}
	if (verb == RESV_REPORT)
		print_report(&a, fmt, nsid, data, len);
	else if (fmt == CLI_FMT_JSON)
		fprintf(rblk_cli_out, "{\n  \"nsid\": %u,\n  \"result\": \"success\"\n}\n", nsid);
	else
		fprintf(rblk_cli_out, "NVME Reservation %s success\n",
			verb == RESV_REGISTER ? "Register" : verb == RESV_ACQUIRE ? "Acquire" : "Release");
out_disconnect:
	rblk_cli_disconnect_ns(mp, ctrl, ns);
out:
	free(data);
	rblk_cli_conn_fini(&c);
	return ret;
}

int rblk_cli_resv_register(int argc, char **argv)
{
	return run(argc, argv, RESV_REGISTER);
}

int rblk_cli_resv_acquire(int argc, char **argv)
{
	return run(argc, argv, RESV_ACQUIRE);
}

int rblk_cli_resv_release(int argc, char **argv)
{
	return run(argc, argv, RESV_RELEASE);
}

int rblk_cli_resv_report(int argc, char **argv)
{
	return run(argc, argv, RESV_REPORT);
}
