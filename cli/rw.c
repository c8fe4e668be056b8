/* SPDX-License-Identifier: MIT */
/*
 * `rblk read` and `rblk write`: dd for a remote namespace. A ring of --qd
 * slots, each a registered buffer of --bs bytes, keeps that many I/Os in
 * flight on one queue pair; completions may arrive in any order but data is
 * retired (written out, compared) strictly in order, so stdout works.
 *
 * --verify: `write` reads every chunk back once it is written and compares;
 * `read` compares the namespace with -d FILE instead of writing FILE.
 * Requests are checked before anything moves: offsets and lengths must be
 * multiples of the block size and lie inside the namespace (exit 2).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "common/fdio.h"

#define RW_DEFAULT_BS (128u * 1024)
#define RW_DEFAULT_QD 8u

enum slot_state {
	SLOT_FREE,
	SLOT_IO,		/* the read or write is in flight */
	SLOT_NEED_VERIFY,	/* write done; the read-back is still to be submitted */
	SLOT_VERIFY,		/* read-back in flight */
	SLOT_DONE,		/* waiting to be retired in order */
};

struct rw_job;

struct rw_slot {
	struct rblk_io io;
	struct rw_job *job;
	void *buf, *vbuf;
	bool buf_heap, vbuf_heap;	/* plain memory: registration failed */
	uint64_t off;		/* bytes from the start of the namespace */
	uint32_t len;
	enum slot_state st;
	uint16_t status;
	int err;
	bool verify_read;	/* the completion is the read-back */
};

struct rw_job {
	bool write, verify, fua;
	struct rblk_mpath *mpath;	/* several -a: the head (ctrl is its first connected path) */
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	struct rblk_qpair *qp;
	uint32_t lbs;		/* block size */
	uint64_t start, end;	/* byte range; end = UINT64_MAX: until the input ends */
	uint64_t next;		/* next byte to submit */
	uint32_t chunk;
	unsigned qd;
	struct rw_slot *slots;
	uint64_t nsub, nret;	/* slots submitted / retired, in order */
	int fd;
	bool input_done;
	int fail;		/* exit code of the first failure; 0 = none */
	uint64_t done_bytes;
	uint8_t *cmpbuf;	/* read --verify: the file's bytes */
};

static void usage(FILE *f, bool write)
{
	const char *v = write ? "write" : "read";

	fprintf(f, "Usage: rblk %s -t rdma -a ADDR [-s PORT] [-a ADDR [-s PORT]...] -n SUBNQN [-N NSID]\n"
		   "                  [--offset=BYTES | --lba=LBA] [--length=BYTES] [--bs=BYTES] [--qd=N]\n"
		   "                  [-d FILE] %s[--verify] [--no-progress] [-o json]\n\n",
		v, write ? "[--fua] " : "");
	if (write)
		fprintf(f, "Writes FILE (default: stdin) to the namespace starting at --offset. Without\n"
			   "--length, the whole input; its size must be a multiple of the block size.\n"
			   "--verify reads every chunk back after writing it and compares.\n\n");
	else
		fprintf(f, "Copies --length bytes (default: to the end of the namespace) from --offset to\n"
			   "FILE (default: stdout). --verify compares the namespace with FILE instead\n"
			   "of writing it (exit 6 at the first difference).\n\n");
	fputs(rblk_cli_conn_help, f);
	fprintf(f, "Data:\n"
		   "  -N, --nsid=NSID               namespace (default: the only one)\n"
		   "      --offset=BYTES            start, a multiple of the block size (default 0)\n"
		   "      --lba=LBA                 start block, instead of --offset\n"
		   "      --length=BYTES            bytes to move, a multiple of the block size\n"
		   "      --bs=BYTES                I/O size (default 128k; suffixes k, m, g)\n"
		   "      --qd=N                    I/Os in flight (default 8)\n"
		   "  -d, --data=FILE               %s (default -, %s)\n"
		   "%s"
		   "      --verify                  %s\n"
		   "      --no-progress             no progress line (it shows only on a terminal)\n"
		   "      --quiet                   no summary line on stderr\n",
		write ? "input" : "output", write ? "stdin" : "stdout",
		write ? "      --fua                     Force Unit Access on every write\n" : "",
		write ? "read back and compare every chunk" : "compare with FILE instead of writing it");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	if (write)
		fprintf(f, "\nExamples:\n"
			   "  rblk write -a 192.0.2.10 -n nqn.2024-01.io.example:disk0 -N 1 -d disk.img --verify\n"
			   "  head -c 1M /dev/urandom | rblk write -a 192.0.2.10 -n NQN --offset=4096\n");
	else
		fprintf(f, "\nExamples:\n"
			   "  rblk read -a 192.0.2.10 -n nqn.2024-01.io.example:disk0 -N 1 -d disk.img\n"
			   "  rblk read -a 192.0.2.10 -n NQN --lba=8 --length=4k | xxd | head\n"
			   "  rblk read -a 192.0.2.10 -n NQN --length=1M -d expected.bin --verify\n");
}

static void io_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct rw_slot *s = arg;

	(void)io;
	s->status = status;
	s->err = err;
	if (!status && !err && s->st == SLOT_IO && s->job->write && s->job->verify &&
	    s->io.op == RBLK_OP_WRITE)
		s->st = SLOT_NEED_VERIFY;
	else
		s->st = SLOT_DONE;
}

static int submit_io(struct rw_job *j, struct rw_slot *s, enum rblk_io_op op, void *buf)
{
	memset(&s->io, 0, sizeof(s->io));
	s->io.op = op;
	s->io.ns = j->ns;
	s->io.lba = s->off / j->lbs;
	s->io.nlb = s->len / j->lbs;
	s->io.flags = op == RBLK_OP_WRITE && j->fua ? RBLK_IO_FUA : 0;
	s->io.buf = buf;
	return rblk_submit(j->qp, &s->io, io_done, s);
}

/* Fills and submits the next slot; 1 = submitted, 0 = nothing (more) to submit, <0 failed. */
static int submit_next(struct rw_job *j)
{
	struct rw_slot *s = &j->slots[j->nsub % j->qd];
	uint64_t left = j->end == UINT64_MAX ? j->chunk : j->end - j->next;
	uint32_t len = left < j->chunk ? (uint32_t)left : j->chunk;
	int ret;

	if (j->input_done || j->fail || !len)
		return 0;
	if (j->write) {
		ssize_t n = rblk_read_all(j->fd, s->buf, len);

		if (n < 0) {
			rblk_cli_err("reading the input: %s", strerror((int)-n));
			j->fail = CLI_EXIT_FAILURE;
			return 0;
		}
		if ((uint64_t)n < len) {
			j->input_done = true;
			if (j->end != UINT64_MAX) {
				rblk_cli_err("the input ended after %" PRIu64 " bytes; --length asked for %" PRIu64,
					     j->next - j->start + (uint64_t)n, j->end - j->start);
				j->fail = CLI_EXIT_FAILURE;
				return 0;
			}
			if (n % j->lbs) {
				rblk_cli_err("the input's size (%" PRIu64 " bytes) is not a multiple of the "
					     "block size %u; pad it (e.g. truncate -s) or give --length",
					     j->next - j->start + (uint64_t)n, j->lbs);
				j->fail = CLI_EXIT_USAGE;
				return 0;
			}
			if (!n)
				return 0;
			len = (uint32_t)n;
		}
		if (j->next + len > rblk_ns_num_blocks(j->ns) * j->lbs) {
			rblk_cli_err("the input goes past the end of the namespace (%" PRIu64 " bytes)",
				     rblk_ns_num_blocks(j->ns) * j->lbs);
			j->fail = CLI_EXIT_USAGE;
			return 0;
		}
	}
	s->off = j->next;
	s->len = len;
	s->st = SLOT_IO;
	s->verify_read = false;
	ret = submit_io(j, s, j->write ? RBLK_OP_WRITE : RBLK_OP_READ, s->buf);
	if (ret) {
		s->st = SLOT_FREE;
		j->fail = rblk_cli_report(CLI_OP_IO, ret, 0, "cannot submit the %s at offset %" PRIu64,
					  j->write ? "write" : "read", s->off);
		return ret;
	}
	j->next += len;
	j->nsub++;
	return 1;
}

static uint64_t first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return len;
}

/* Retires the slot at the head of the ring (its data in order). */
static void retire(struct rw_job *j, struct rw_slot *s)
{
	if (s->status || s->err) {
		if (!j->fail)
			j->fail = rblk_cli_report(CLI_OP_IO, s->err ? s->err : -EREMOTEIO, s->status,
						  "%s of %u bytes at offset %" PRIu64 " failed",
						  s->verify_read ? "read-back" : j->write ? "write" : "read",
						  s->len, s->off);
		return;
	}
	if (j->fail)
		return;
	if (j->write && j->verify) {
		uint64_t d = first_diff(s->buf, s->vbuf, s->len);

		if (d < s->len) {
			rblk_cli_err("verify: the data read back differs at byte offset %" PRIu64,
				     s->off + d);
			j->fail = CLI_EXIT_CHECK;
			return;
		}
	} else if (!j->write && j->verify) {
		ssize_t n = pread(j->fd, j->cmpbuf, s->len, (off_t)(s->off - j->start));
		uint64_t d;

		if (n < 0) {
			rblk_cli_err("reading the file to compare: %s", strerror(errno));
			j->fail = CLI_EXIT_FAILURE;
			return;
		}
		d = first_diff(s->buf, j->cmpbuf, (size_t)n);
		if (d < (uint64_t)n || (uint64_t)n < s->len) {
			if (d == (uint64_t)n)
				rblk_cli_err("verify: the file ends at byte %" PRIu64 " of the range",
					     s->off - j->start + (uint64_t)n);
			else
				rblk_cli_err("verify: the namespace differs from the file at byte offset %" PRIu64
					     " (file offset %" PRIu64 ")",
					     s->off + d, s->off - j->start + d);
			j->fail = CLI_EXIT_CHECK;
			return;
		}
	} else if (!j->write) {
		int ret = rblk_write_all(j->fd, s->buf, s->len);

		if (ret) {
			rblk_cli_err("writing the output: %s", strerror(-ret));
			j->fail = CLI_EXIT_FAILURE;
			return;
		}
	}
	j->done_bytes += s->len;
}

static int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) < 0 && errno != EINTR ? -errno : 0;
}

static int run_job(struct rw_job *j, struct cli_progress *prog)
{
	for (;;) {
		bool progress = false;
		int n;

		while (j->nsub - j->nret < j->qd) {
			n = submit_next(j);
			if (n <= 0)
				break;
			progress = true;
		}
		if (j->nret == j->nsub)
			break;	/* nothing in flight and nothing more to submit */
		n = rblk_poll(j->qp, j->qd);
		if (n < 0) {
			rblk_cli_report(CLI_OP_IO, n, 0, "polling the queue failed");
			return CLI_EXIT_FAILURE;
		}
		if (n > 0)
			progress = true;
		/* read-backs go out from here, not from the completion callback */
		for (uint64_t q = j->nret; q < j->nsub; q++) {
			struct rw_slot *s = &j->slots[q % j->qd];
			int ret;

			if (s->st != SLOT_NEED_VERIFY)
				continue;
			s->st = SLOT_VERIFY;
			s->verify_read = true;
			ret = submit_io(j, s, RBLK_OP_READ, s->vbuf);
			if (ret) {
				s->st = SLOT_DONE;
				s->err = ret;
			}
			progress = true;
		}
		while (j->nret < j->nsub && j->slots[j->nret % j->qd].st == SLOT_DONE) {
			struct rw_slot *s = &j->slots[j->nret % j->qd];

			retire(j, s);
			s->st = SLOT_FREE;
			j->nret++;
			progress = true;
		}
		rblk_cli_progress_update(prog, j->done_bytes, false);
		if (!progress && wait_fd(rblk_qpair_fd(j->qp), 100)) {
			rblk_cli_err("waiting for completions: %s", strerror(errno));
			return CLI_EXIT_FAILURE;
		}
	}
	return j->fail;
}

/*
 * A Flush on our own queue pair: the synchronous rblk_flush() needs a queue
 * of its own, and the controller may have only the one we hold.
 */
static int flush_queue(struct rw_job *j)
{
	struct rw_slot *s = &j->slots[0];

	memset(&s->io, 0, sizeof(s->io));
	s->io.op = RBLK_OP_FLUSH;
	s->io.ns = j->ns;
	s->st = SLOT_IO;
	s->verify_read = false;
	s->status = 0;
	s->err = rblk_submit(j->qp, &s->io, io_done, s);
	if (s->err)
		s->st = SLOT_DONE;
	while (s->st != SLOT_DONE) {
		int n = rblk_poll(j->qp, 1);

		if (n < 0) {
			s->err = n;
			break;
		}
		if (!n && wait_fd(rblk_qpair_fd(j->qp), 100))
			break;
	}
	s->st = SLOT_FREE;
	if (s->err || s->status)
		return rblk_cli_report(CLI_OP_IO, s->err ? s->err : -EREMOTEIO, s->status, "flush failed");
	return CLI_EXIT_OK;
}

static void *buf_alloc(struct rblk_ctrl *ctrl, size_t len, bool *heap)
{
	static bool warned;
	void *p = rblk_buf_alloc(ctrl, len);

	*heap = false;
	if (p)
		return p;
	/* any memory works (with a copy): registration may fail on a low memlock limit */
	if (!warned) {
		rblk_cli_err("note: cannot allocate registered memory (RLIMIT_MEMLOCK? see rblk doctor); "
			     "using plain memory, which costs a copy");
		warned = true;
	}
	if (posix_memalign(&p, 4096, len))
		return NULL;
	*heap = true;
	return p;
}

static void buf_free(struct rblk_ctrl *ctrl, void *p, bool heap)
{
	if (heap)
		free(p);
	else if (p)
		rblk_buf_free(ctrl, p);
}

struct rw_args {
	uint64_t offset, lba, length, bs;
	long qd;
	bool have_offset, have_lba, have_length, have_bs;
	const char *data;
	bool fua, verify, no_progress, quiet;
};

/* Range and alignment checks against the namespace; CLI_EXIT_OK or CLI_EXIT_USAGE. */
static int check_range(struct rw_job *j, const struct rw_args *a, uint64_t input_size, bool known)
{
	uint64_t nsbytes = rblk_ns_num_blocks(j->ns) * j->lbs;

	if (a->have_lba)
		j->start = a->lba * j->lbs;
	else
		j->start = a->offset;
	if (a->have_lba && a->lba > rblk_ns_num_blocks(j->ns))
		return rblk_cli_usage_err("--lba %" PRIu64 " is past the end of the namespace (%" PRIu64
					  " blocks)", a->lba, rblk_ns_num_blocks(j->ns));
	if (j->start % j->lbs)
		return rblk_cli_usage_err("--offset %" PRIu64 " is not a multiple of the block size %u",
					  j->start, j->lbs);
	if (j->start > nsbytes)
		return rblk_cli_usage_err("--offset %" PRIu64 " is past the end of the namespace (%" PRIu64
					  " bytes = %" PRIu64 " blocks of %u)",
					  j->start, nsbytes, rblk_ns_num_blocks(j->ns), j->lbs);
	if (a->have_bs && (!a->bs || a->bs % j->lbs || a->bs > (64u << 20)))
		return rblk_cli_usage_err("--bs %" PRIu64 " must be a multiple of the block size %u, at most 64 MiB",
					  a->bs, j->lbs);
	j->chunk = a->have_bs ? (uint32_t)a->bs : (RW_DEFAULT_BS / j->lbs ? RW_DEFAULT_BS / j->lbs : 1) * j->lbs;
	if (a->have_length) {
		if (a->length % j->lbs)
			return rblk_cli_usage_err("--length %" PRIu64 " is not a multiple of the block size %u",
						  a->length, j->lbs);
		if (a->length > nsbytes - j->start)
			return rblk_cli_usage_err("--offset %" PRIu64 " + --length %" PRIu64
						  " goes past the end of the namespace (%" PRIu64
						  " bytes = %" PRIu64 " blocks of %u)",
						  j->start, a->length, nsbytes, rblk_ns_num_blocks(j->ns), j->lbs);
		j->end = j->start + a->length;
	} else if (!j->write) {
		j->end = nsbytes;
	} else if (known) {
		if (input_size % j->lbs)
			return rblk_cli_usage_err("the input's size (%" PRIu64 " bytes) is not a multiple of "
						  "the block size %u; pad it or give --length",
						  input_size, j->lbs);
		if (input_size > nsbytes - j->start)
			return rblk_cli_usage_err("the input (%" PRIu64 " bytes) does not fit between --offset %"
						  PRIu64 " and the end of the namespace (%" PRIu64 " bytes)",
						  input_size, j->start, nsbytes);
		j->end = j->start + input_size;
	} else {
		j->end = UINT64_MAX;
	}
	j->next = j->start;
	return CLI_EXIT_OK;
}

static int open_data(const struct rw_args *a, bool write, uint64_t *size, bool *known)
{
	struct stat st;
	int fd;

	*known = false;
	if (!a->data || !strcmp(a->data, "-")) {
		fd = write || a->verify ? STDIN_FILENO : STDOUT_FILENO;
		if (a->verify && !write) {
			rblk_cli_usage_err("--verify needs -d FILE to compare with");
			return -1;
		}
		if (write && isatty(fd)) {
			rblk_cli_usage_err("refusing to read data from a terminal; give -d FILE or a pipe");
			return -1;
		}
	} else if (write || a->verify) {
		fd = open(a->data, O_RDONLY | O_CLOEXEC);
	} else {
		fd = open(a->data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		rblk_cli_err("cannot open %s: %s", a->data, strerror(errno));
		return -1;
	}
	if ((write || a->verify) && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		*known = true;
	}
	return fd;
}

/* Options into @a, @c and @fmt. 0, -1 after --help, or an exit code. */
static int parse_rw(int argc, char **argv, bool write, struct rw_args *a, struct cli_conn *c,
		    enum cli_fmt *fmt)
{
	static const struct option longopts[] = {
		CLI_CONN_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ "nsid", required_argument, NULL, 'N' },
		{ "namespace-id", required_argument, NULL, 'N' },
		{ "data", required_argument, NULL, 'd' },
		{ "offset", required_argument, NULL, 1 },
		{ "lba", required_argument, NULL, 2 },
		{ "length", required_argument, NULL, 3 },
		{ "bs", required_argument, NULL, 4 },
		{ "qd", required_argument, NULL, 5 },
		{ "fua", no_argument, NULL, 6 },
		{ "verify", no_argument, NULL, 7 },
		{ "no-progress", no_argument, NULL, 8 },
		{ "quiet", no_argument, NULL, 9 },
		{ NULL, 0, NULL, 0 },
	};
	char why[160];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:d:", longopts,
				  NULL)) != -1) {
		uint64_t *dst = NULL;

		switch (opt) {
		case 'h':
			usage(rblk_cli_out, write);
			return -1;
		case '?':
		case ':':
			return rblk_cli_bad_option(opt, argc, argv);
		case 'N':
			if (rblk_nsid_parse(optarg, &c->nsid, why, sizeof(why)))
				return rblk_cli_usage_err("invalid namespace ID '%s': it %s", optarg, why);
			c->have_nsid = true;
			continue;
		case 'd':
			a->data = optarg;
			continue;
		case 1: dst = &a->offset; a->have_offset = true; break;
		case 2: dst = &a->lba; a->have_lba = true; break;
		case 3: dst = &a->length; a->have_length = true; break;
		case 4: dst = &a->bs; a->have_bs = true; break;
		case 5:
			if (rblk_cli_parse_long(optarg, 1, 1024, &a->qd))
				return rblk_cli_usage_err("invalid --qd '%s' (1..1024)", optarg);
			continue;
		case 6:
			if (!write)
				return rblk_cli_usage_err("--fua is for write");
			a->fua = true;
			continue;
		case 7: a->verify = true; continue;
		case 8: a->no_progress = true; continue;
		case 9: a->quiet = true; continue;
		default:
			ret = rblk_cli_conn_opt(c, opt, optarg);
			if (!ret)
				ret = rblk_cli_common_opt(opt, optarg, fmt);
			if (ret != 1)
				return ret;
			continue;
		}
		if (rblk_size_parse(optarg, dst, why, sizeof(why))) {
			static const char *const name[] = { "", "offset", "lba", "length", "bs" };

			return rblk_cli_usage_err("invalid size '%s' for --%s: it %s", optarg, name[opt],
						  why);
		}
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Option combinations that cannot work, before anything connects. 0 or CLI_EXIT_USAGE. */
static int validate_rw(const struct rw_args *a, bool write, enum cli_fmt fmt)
{
	if (a->have_offset && a->have_lba)
		return rblk_cli_usage_err("give --offset or --lba, not both");
	if (!write && fmt == CLI_FMT_JSON && !a->verify && (!a->data || !strcmp(a->data, "-")))
		return rblk_cli_usage_err("-o json needs -d FILE: stdout carries the data");
	return 0;
}

/*
 * The I/O queue pair and --qd slots with their buffers (and the compare
 * buffer of read --verify). 0 or an exit code; free_queue() undoes either.
 */
static int alloc_queue(struct rw_job *j, const struct rw_args *a)
{
	int ret;

	/* Multipath: buffers registered with one path, bounced on the others. */
	ret = j->mpath ? rblk_mpath_qpair_alloc(j->mpath, &j->qp) : rblk_qpair_alloc(j->ctrl, &j->qp);
	if (ret)
		return rblk_cli_report(CLI_OP_CONNECT, ret, 0, "cannot get an I/O queue");
	j->qd = (unsigned)a->qd;
	if (j->qd > rblk_qpair_depth(j->qp))
		j->qd = rblk_qpair_depth(j->qp);
	if (!j->qd)
		j->qd = 1;
	j->slots = calloc(j->qd, sizeof(*j->slots));
	j->cmpbuf = !j->write && a->verify ? malloc(j->chunk) : NULL;
	ret = !j->slots || (!j->write && a->verify && !j->cmpbuf) ? -ENOMEM : 0;
	for (unsigned i = 0; !ret && i < j->qd; i++) {
		j->slots[i].job = j;
		j->slots[i].buf = buf_alloc(j->ctrl, j->chunk, &j->slots[i].buf_heap);
		if (j->write && a->verify)
			j->slots[i].vbuf = buf_alloc(j->ctrl, j->chunk, &j->slots[i].vbuf_heap);
		if (!j->slots[i].buf || (j->write && a->verify && !j->slots[i].vbuf))
			ret = -ENOMEM;
	}
	if (ret) {
		rblk_cli_err("cannot allocate %u buffers of %u bytes", j->qd, j->chunk);
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

static void free_queue(struct rw_job *j)
{
	for (unsigned i = 0; j->slots && i < j->qd; i++) {
		buf_free(j->ctrl, j->slots[i].buf, j->slots[i].buf_heap);
		buf_free(j->ctrl, j->slots[i].vbuf, j->slots[i].vbuf_heap);
	}
	free(j->slots);
	free(j->cmpbuf);
	if (j->qp)
		rblk_qpair_free(j->qp);
}

/* The summary: a JSON object on stdout, or one line on stderr unless --quiet. */
static void report_rw(const struct rw_job *j, const struct rw_args *a, enum cli_fmt fmt, uint32_t nsid,
		      double secs)
{
	double mbps = secs > 0 ? (double)j->done_bytes / secs / 1e6 : 0;

	if (fmt == CLI_FMT_JSON) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "nsid", json_object_new_int64(nsid));
		json_object_object_add(o, "offset", json_object_new_uint64(j->start));
		json_object_object_add(o, "bytes", json_object_new_uint64(j->done_bytes));
		json_object_object_add(o, "seconds", json_object_new_double(secs));
		json_object_object_add(o, "MBps", json_object_new_double(mbps));
		json_object_object_add(o, "verified", json_object_new_boolean(j->verify));
		rblk_cli_json_print(rblk_cli_out, o);
		json_object_put(o);
	} else if (!a->quiet) {
		char h[32];

		fprintf(rblk_cli_errf, "%" PRIu64 " bytes (%s) %s%s, %.3f s, %.1f MB/s\n",
			j->done_bytes, rblk_cli_fmt_iec(j->done_bytes, h, sizeof(h)),
			j->write ? "written" : a->verify ? "compared" : "read",
			j->write && j->verify ? " and verified" : "", secs, mbps);
	}
}

/* Moves the data with a progress line; a write without --fua ends with a Flush. 0 or an exit code. */
static int transfer(struct rw_job *j, const struct rw_args *a, double *secs)
{
	struct cli_progress prog;
	double t0;
	int ret;

	rblk_cli_progress_init(&prog, rblk_cli_progress_wanted(a->no_progress),
			       j->end == UINT64_MAX ? 0 : j->end - j->start);
	t0 = rblk_cli_now();
	ret = run_job(j, &prog);
	*secs = rblk_cli_now() - t0;
	rblk_cli_progress_end(&prog);
	if (!ret && j->write && !a->fua)
		/* what is written is durable when we say so (a volatile write cache may hold it) */
		ret = flush_queue(j);
	return ret;
}

static int run(int argc, char **argv, bool write)
{
	struct rblk_connect_opts popts[RBLK_MPATH_MAX_PATHS];
	unsigned npaths = 0;
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	struct rw_args a = { .qd = RW_DEFAULT_QD };
	struct rw_job j = { .write = write, .fd = -1 };
	struct cli_conn c;
	uint64_t insize = 0;
	bool known = false;
	uint32_t nsid;
	double secs;
	int ret;

	rblk_cli_conn_init(&c);
	ret = parse_rw(argc, argv, write, &a, &c, &fmt);
	if (ret) {
		ret = ret < 0 ? CLI_EXIT_OK : ret;
		goto out;
	}
	ret = validate_rw(&a, write, fmt);
	if (ret)
		goto out;
	ret = rblk_cli_conn_finish_paths(&c, popts, &npaths);
	if (ret)
		goto out;
	j.fd = open_data(&a, write, &insize, &known);
	if (j.fd < 0) {
		ret = CLI_EXIT_USAGE;
		goto out;
	}
	ret = rblk_cli_connect_ns(popts, npaths, &c, &j.mpath, &j.ctrl, &j.ns, &nsid);
	if (ret)
		goto out_disconnect;
	j.lbs = rblk_ns_block_size(j.ns);
	j.verify = a.verify;
	j.fua = a.fua;
	ret = check_range(&j, &a, insize, known);
	if (ret)
		goto out_disconnect;
	if (write && rblk_ns_read_only(j.ns)) {
		rblk_cli_err("namespace %u is write-protected", nsid);
		ret = CLI_EXIT_REFUSED;
		goto out_disconnect;
	}
	ret = alloc_queue(&j, &a);
	if (!ret)
		ret = transfer(&j, &a, &secs);
	if (!ret)
		report_rw(&j, &a, fmt, nsid, secs);
	free_queue(&j);
out_disconnect:
	rblk_cli_disconnect_ns(j.mpath, j.ctrl, j.ns);
out:
	if (j.fd > STDERR_FILENO)
		close(j.fd);
	rblk_cli_conn_fini(&c);
	return ret;
}

int rblk_cli_read(int argc, char **argv)
{
	return run(argc, argv, false);
}

int rblk_cli_write(int argc, char **argv)
{
	return run(argc, argv, true);
}
