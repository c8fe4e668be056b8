/* SPDX-License-Identifier: MIT */
/*
 * `rblk compare`, `compare-write`, `verify` and `copy`: the NVM commands
 * beyond read and write, one command each, with nvme-cli's option names
 * where nvme-cli has the command (--start-block, --block-count, which like
 * nvme-cli's counts blocks minus one, --data, --data-size; copy's --sdlba,
 * --slbs, --blocks). The fused Compare and Write has no nvme-cli verb: the
 * Linux host's passthrough cannot send fused commands, which is why rblk has
 * one.
 *
 * A Compare or Compare and Write whose data differs exits 6 (the check
 * failed), not 3: the namespace answered as asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/output.h"
#include "common/fdio.h"
#include "protocol/nvme_status.h"

enum nvm_verb {
	NVM_COMPARE,
	NVM_COMPARE_WRITE,
	NVM_VERIFY,
	NVM_COPY,
};

/* What the library moves of unregistered data in one command (its bounce unit). */
#define RBLK_CLI_CW_MAX (128u << 10)

static const char *const verb_name[] = { "compare", "compare-write", "verify", "copy" };

struct nvm_args {
	enum nvm_verb verb;
	uint64_t slba;
	uint64_t nlb;			/* blocks (the option's value + 1) */
	uint64_t data_size;
	bool have_slba, have_nlb, have_data_size;
	const char *data, *expect;
	const char *slbs, *blocks;	/* copy: comma-separated lists */
	uint64_t sdlba;
	bool have_sdlba;
	struct rblk_copy_range ranges[RBLK_COPY_MAX_RANGES];
	unsigned nr;
};

static void usage(FILE *f, enum nvm_verb v)
{
	static const char *const what[] = {
		"Compares --block-count + 1 blocks from --start-block with FILE (Compare):\n"
		"exit 0 when they match, 6 when they differ.\n",
		"Writes FILE over --block-count + 1 blocks from --start-block only if they\n"
		"hold EXPECT, atomically against every other write to them (fused Compare\n"
		"and Write, one command each: the range must fit one command). Exit 6,\n"
		"nothing written, when they differ.\n",
		"Checks that --block-count + 1 blocks from --start-block are readable\n"
		"(Verify): no data moves.\n",
		"Copies source ranges (--slbs, with --blocks each) in order to --sdlba\n"
		"onwards inside the namespace (Copy, descriptor format 0), in one command.\n",
	};

	if (v == NVM_COPY)
		fprintf(f, "Usage: rblk copy -t rdma -a ADDR [-s PORT] -n SUBNQN [-N NSID]\n"
			   "                 --sdlba=LBA --slbs=LBA[,LBA...] --blocks=N[,N...] [-o json]\n\n");
	else
		fprintf(f, "Usage: rblk %s -t rdma -a ADDR [-s PORT] -n SUBNQN [-N NSID]\n"
			   "                 --start-block=LBA --block-count=N%s [-o json]\n\n",
			verb_name[v], v == NVM_COMPARE ? " -d FILE [--data-size=BYTES]"
				      : v == NVM_COMPARE_WRITE ? " --expect=FILE -d FILE" : "");
	fputs(what[v], f);
	fputc('\n', f);
	fputs(rblk_cli_conn_help, f);
	fprintf(f, "Command:\n"
		   "  -N, --nsid=NSID               namespace (default: the only one)\n");
	if (v == NVM_COPY) {
		fprintf(f, "      --sdlba=LBA               first destination block\n"
			   "      --slbs=LBA[,LBA...]       first block of each source range (up to %u)\n"
			   "      --blocks=N[,N...]         blocks of each range minus one, as nvme-cli\n"
			   "                                (0 = one block), one per --slbs entry\n",
			RBLK_COPY_MAX_RANGES);
	} else {
		fprintf(f, "      --start-block=LBA         first block (also --lba)\n"
			   "      --block-count=N           blocks minus one, as nvme-cli (0 = one block)\n");
	}
	if (v == NVM_COMPARE)
		fprintf(f, "  -d, --data=FILE               the data expected\n"
			   "      --data-size=BYTES         checked against the range's size, as nvme-cli\n");
	if (v == NVM_COMPARE_WRITE)
		fprintf(f, "      --expect=FILE             the data the blocks must hold\n"
			   "  -d, --data=FILE               the data written when they do\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n");
	switch (v) {
	case NVM_COMPARE:
		fprintf(f, "  rblk compare -a 192.0.2.10 -n NQN -N 1 --start-block=0 --block-count=7 -d expected.bin\n");
		break;
	case NVM_COMPARE_WRITE:
		fprintf(f, "  rblk compare-write -a 192.0.2.10 -n NQN --start-block=100 --block-count=0 \\\n"
			   "      --expect=old.bin -d new.bin\n");
		break;
	case NVM_VERIFY:
		fprintf(f, "  rblk verify -a 192.0.2.10 -n NQN --start-block=0 --block-count=65535\n");
		break;
	case NVM_COPY:
		fprintf(f, "  rblk copy -a 192.0.2.10 -n NQN --sdlba=4096 --slbs=0,100 --blocks=7,15\n");
		break;
	}
}

/* A comma-separated list of numbers into @out (at most @max). Count, or -1. */
static int parse_list(const char *s, uint64_t *out, unsigned max)
{
	char *dup = strdup(s), *save = NULL, *tok;
	int n = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if ((unsigned)n == max || rblk_u64_parse(tok, &out[n], NULL, 0)) {
			n = -1;
			break;
		}
		n++;
	}
	free(dup);
	return n;
}

static int parse_copy_ranges(struct nvm_args *a)
{
	uint64_t slbs[RBLK_COPY_MAX_RANGES], blocks[RBLK_COPY_MAX_RANGES];
	int ns, nb;

	if (!a->have_sdlba || !a->slbs || !a->blocks)
		return rblk_cli_usage_err("copy needs --sdlba, --slbs and --blocks");
	ns = parse_list(a->slbs, slbs, RBLK_COPY_MAX_RANGES);
	nb = parse_list(a->blocks, blocks, RBLK_COPY_MAX_RANGES);
	if (ns <= 0)
		return rblk_cli_usage_err("invalid --slbs '%s': up to %u block numbers, comma-separated",
					  a->slbs, RBLK_COPY_MAX_RANGES);
	if (nb != ns)
		return rblk_cli_usage_err("--blocks '%s' must give one count per --slbs entry (%d)",
					  a->blocks, ns);
	for (int i = 0; i < ns; i++) {
		if (blocks[i] > 65535)
			return rblk_cli_usage_err("--blocks entry %" PRIu64 " is more than 65535 (65536 blocks)",
						  blocks[i]);
		a->ranges[i] = (struct rblk_copy_range){ .slba = slbs[i], .nlb = (uint32_t)blocks[i] + 1 };
	}
	a->nr = (unsigned)ns;
	return 0;
}

/* Options into @a, @c and @fmt. 0, -1 after --help, or an exit code. */
static int parse_nvm(int argc, char **argv, struct nvm_args *a, struct cli_conn *c,
		     enum cli_fmt *fmt)
{
	static const struct option longopts[] = {
		CLI_CONN_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ "nsid", required_argument, NULL, 'N' },
		{ "namespace-id", required_argument, NULL, 'N' },
		{ "data", required_argument, NULL, 'd' },
		{ "start-block", required_argument, NULL, 1 },
		{ "lba", required_argument, NULL, 1 },
		{ "block-count", required_argument, NULL, 2 },
		{ "data-size", required_argument, NULL, 3 },
		{ "expect", required_argument, NULL, 4 },
		{ "sdlba", required_argument, NULL, 5 },
		{ "slbs", required_argument, NULL, 6 },
		{ "blocks", required_argument, NULL, 7 },
		{ NULL, 0, NULL, 0 },
	};
	char why[160];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:d:",
				  longopts, NULL)) != -1) {
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
		case 'd':
			a->data = optarg;
			break;
		case 1:
		case 5:
			if (rblk_u64_parse(optarg, opt == 1 ? &a->slba : &a->sdlba, why, sizeof(why)))
				return rblk_cli_usage_err("invalid block '%s': it %s", optarg, why);
			*(opt == 1 ? &a->have_slba : &a->have_sdlba) = true;
			break;
		case 2:
			if (rblk_u64_parse(optarg, &a->nlb, why, sizeof(why)) || a->nlb > 65535)
				return rblk_cli_usage_err("invalid --block-count '%s': blocks minus one, 0-65535",
							  optarg);
			a->nlb++;
			a->have_nlb = true;
			break;
		case 3:
			if (rblk_size_parse(optarg, &a->data_size, why, sizeof(why)))
				return rblk_cli_usage_err("invalid --data-size '%s': it %s", optarg, why);
			a->have_data_size = true;
			break;
		case 4: a->expect = optarg; break;
		case 6: a->slbs = optarg; break;
		case 7: a->blocks = optarg; break;
		default:
			ret = rblk_cli_conn_opt(c, opt, optarg);
			if (!ret)
				ret = rblk_cli_common_opt(opt, optarg, fmt);
			if (ret != 1)
				return ret;
			break;
		}
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	if (a->verb == NVM_COPY)
		return parse_copy_ranges(a);
	if (!a->have_slba || !a->have_nlb)
		return rblk_cli_usage_err("%s needs --start-block and --block-count", verb_name[a->verb]);
	if (a->verb != NVM_VERIFY && !a->data)
		return rblk_cli_usage_err("%s needs -d FILE", verb_name[a->verb]);
	if (a->verb == NVM_COMPARE_WRITE && !a->expect)
		return rblk_cli_usage_err("compare-write needs --expect=FILE");
	return 0;
}

/* Exactly @len bytes of @path into a new buffer, or NULL after saying why. */
static void *load_file(const char *path, size_t len)
{
	void *buf = malloc(len ? len : 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf) {
		rblk_cli_err("cannot open %s: %s", path, strerror(fd < 0 ? errno : ENOMEM));
		goto fail;
	}
	n = rblk_read_all(fd, buf, len);
	if (n < 0) {
		rblk_cli_err("reading %s: %s", path, strerror((int)-n));
		goto fail;
	}
	if ((size_t)n < len) {
		rblk_cli_err("%s holds %zd bytes; the range is %zu bytes", path, n, len);
		goto fail;
	}
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* The range against the namespace. CLI_EXIT_OK or CLI_EXIT_USAGE. */
static int check_range(const struct nvm_args *a, struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	uint64_t nsze = rblk_ns_num_blocks(ns);
	uint32_t max = rblk_ctrl_max_xfer(ctrl);

	if (a->verb == NVM_COPY) {
		uint64_t total = 0;

		for (unsigned i = 0; i < a->nr; i++) {
			if (a->ranges[i].slba >= nsze || a->ranges[i].nlb > nsze - a->ranges[i].slba)
				return rblk_cli_usage_err("source range %u (%" PRIu64 "+%u) is past the end of "
							  "the namespace (%" PRIu64 " blocks)",
							  i, a->ranges[i].slba, a->ranges[i].nlb, nsze);
			total += a->ranges[i].nlb;
		}
		if (a->sdlba >= nsze || total > nsze - a->sdlba)
			return rblk_cli_usage_err("the destination (%" PRIu64 " blocks from %" PRIu64
						  ") is past the end of the namespace (%" PRIu64 " blocks)",
						  total, a->sdlba, nsze);
		return CLI_EXIT_OK;
	}
	if (a->slba >= nsze || a->nlb > nsze - a->slba)
		return rblk_cli_usage_err("blocks %" PRIu64 "..%" PRIu64 " are past the end of the "
					  "namespace (%" PRIu64 " blocks)",
					  a->slba, a->slba + a->nlb - 1, nsze);
	/* Each half is one command, its data copied through one 128 KiB unit. */
	if (max > RBLK_CLI_CW_MAX)
		max = RBLK_CLI_CW_MAX;
	if (a->verb == NVM_COMPARE_WRITE && a->nlb * rblk_ns_block_size(ns) > max)
		return rblk_cli_usage_err("compare-write is one command: at most %u bytes (%u blocks) here",
					  max, max / rblk_ns_block_size(ns));
	if (a->have_data_size && a->data_size != a->nlb * rblk_ns_block_size(ns))
		return rblk_cli_usage_err("--data-size %" PRIu64 " is not --block-count + 1 blocks of "
					  "%u bytes (%" PRIu64 ")",
					  a->data_size, rblk_ns_block_size(ns),
					  a->nlb * rblk_ns_block_size(ns));
	return CLI_EXIT_OK;
}

/* Sends the command. 0, -EREMOTEIO (status in *status), -errno, or an exit code via *exit. */
static int execute(const struct nvm_args *a, struct rblk_ns *ns, int *exit_code)
{
	size_t len = (size_t)a->nlb * rblk_ns_block_size(ns);
	void *data = NULL, *expect = NULL;
	int ret = 0;

	*exit_code = CLI_EXIT_OK;
	if (a->verb == NVM_COMPARE || a->verb == NVM_COMPARE_WRITE) {
		data = load_file(a->data, len);
		if (data && a->verb == NVM_COMPARE_WRITE)
			expect = load_file(a->expect, len);
		if (!data || (a->verb == NVM_COMPARE_WRITE && !expect)) {
			*exit_code = CLI_EXIT_USAGE;
			goto out;
		}
	}
	switch (a->verb) {
	case NVM_COMPARE:
		ret = rblk_compare(ns, data, a->slba, (uint32_t)a->nlb);
		break;
	case NVM_COMPARE_WRITE:
		ret = rblk_compare_write(ns, expect, data, a->slba, (uint32_t)a->nlb);
		break;
	case NVM_VERIFY:
		ret = rblk_verify(ns, a->slba, (uint32_t)a->nlb);
		break;
	case NVM_COPY:
		ret = rblk_copy(ns, a->ranges, a->nr, a->sdlba);
		break;
	}
out:
	free(data);
	free(expect);
	return ret;
}

static void report(const struct nvm_args *a, enum cli_fmt fmt, uint32_t nsid, bool match)
{
	if (fmt == CLI_FMT_JSON) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "nsid", json_object_new_int64(nsid));
		if (a->verb == NVM_COPY) {
			json_object_object_add(o, "sdlba", json_object_new_uint64(a->sdlba));
			json_object_object_add(o, "ranges", json_object_new_int((int)a->nr));
		} else {
			json_object_object_add(o, "slba", json_object_new_uint64(a->slba));
			json_object_object_add(o, "nlb", json_object_new_uint64(a->nlb));
		}
		if (a->verb == NVM_COMPARE || a->verb == NVM_COMPARE_WRITE)
			json_object_object_add(o, "match", json_object_new_boolean(match));
		if (a->verb == NVM_COMPARE_WRITE)
			json_object_object_add(o, "written", json_object_new_boolean(match));
		rblk_cli_json_print(rblk_cli_out, o);
		json_object_put(o);
		return;
	}
	switch (a->verb) {
	case NVM_COMPARE:
		fprintf(rblk_cli_out, "%s\n", match ? "compare: the blocks match"
						     : "compare: the blocks differ");
		break;
	case NVM_COMPARE_WRITE:
		fprintf(rblk_cli_out, "%s\n", match ? "compare-write: matched, written"
						     : "compare-write: the blocks differ, nothing written");
		break;
	case NVM_VERIFY:
		fprintf(rblk_cli_out, "verify: %" PRIu64 " blocks from %" PRIu64 " are readable\n",
			a->nlb, a->slba);
		break;
	case NVM_COPY:
		fprintf(rblk_cli_out, "copy: %u range%s copied to block %" PRIu64 "\n", a->nr,
			a->nr == 1 ? "" : "s", a->sdlba);
		break;
	}
}

static int run(int argc, char **argv, enum nvm_verb verb)
{
	struct rblk_connect_opts popts[RBLK_MPATH_MAX_PATHS];
	struct nvm_args a = { .verb = verb };
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	struct rblk_mpath *mp = NULL;
	struct rblk_ctrl *ctrl = NULL;
	struct rblk_ns *ns = NULL;
	struct cli_conn c;
	unsigned npaths = 0;
	int ret, code;
	uint32_t nsid;
	uint16_t st;

	rblk_cli_conn_init(&c);
	ret = parse_nvm(argc, argv, &a, &c, &fmt);
	if (ret) {
		ret = ret < 0 ? CLI_EXIT_OK : ret;
		goto out;
	}
	ret = rblk_cli_conn_finish_paths(&c, popts, &npaths);
	if (ret)
		goto out;
	ret = rblk_cli_connect_ns(popts, npaths, &c, &mp, &ctrl, &ns, &nsid);
	if (!ret)
		ret = check_range(&a, ctrl, ns);
	if (ret)
		goto out_disconnect;
	ret = execute(&a, ns, &code);
	st = ret == -EREMOTEIO ? rblk_ns_last_status(ns) : 0;
	if (code) {
		ret = code;
	} else if ((st & NVME_STATUS_CODE_MASK) == NVME_SC_COMPARE_FAILED) {
		report(&a, fmt, nsid, false);
		ret = CLI_EXIT_CHECK;
	} else if (ret == -EOPNOTSUPP) {
		rblk_cli_err("the controller does not support %s (Identify Controller %s)",
			     verb_name[verb], verb == NVM_COMPARE_WRITE ? "FUSES" : "ONCS");
		ret = CLI_EXIT_REFUSED;
	} else if (ret) {
		ret = rblk_cli_report(CLI_OP_IO, ret, st, "%s failed", verb_name[verb]);
	} else {
		report(&a, fmt, nsid, true);
	}
out_disconnect:
	rblk_cli_disconnect_ns(mp, ctrl, ns);
out:
	rblk_cli_conn_fini(&c);
	return ret;
}

int rblk_cli_compare(int argc, char **argv)
{
	return run(argc, argv, NVM_COMPARE);
}

int rblk_cli_compare_write(int argc, char **argv)
{
	return run(argc, argv, NVM_COMPARE_WRITE);
}

int rblk_cli_verify(int argc, char **argv)
{
	return run(argc, argv, NVM_VERIFY);
}

int rblk_cli_copy(int argc, char **argv)
{
	return run(argc, argv, NVM_COPY);
}
