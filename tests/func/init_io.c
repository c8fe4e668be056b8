/* SPDX-License-Identifier: MIT */
/*
 * rblk-init-io: the initiator library end to end, for the VM tests
 * (tests/vm/t/2x-*.sh). Connects, identifies, writes a deterministic
 * pattern, reads it back and verifies it; or discovers; or loops
 * write+verify for a while (reconnect tests); or dumps/generates the
 * pattern so data can be compared with what the kernel host reads and
 * writes. Patterns depend only on (seed, byte offset), not on the block
 * size or the I/O size.
 *
 * Exit: 0 ok, 1 I/O error or data mismatch, 2 usage, 3 connect failed,
 * 4 controller lost (-ENOTCONN).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rblk/initiator.h>

enum mode { M_IDENTIFY, M_WRITE, M_VERIFY, M_WRITEVERIFY, M_LOOP, M_DISCOVER, M_DUMP, M_GEN, M_MISC, M_IDLE };

struct tool {
	struct rblk_connect_opts o;
	enum mode mode;
	uint32_t nsid;
	uint64_t offset;	/* LBA */
	uint64_t blocks;	/* 0: up to 64 MiB or the namespace */
	uint32_t bs;		/* bytes per I/O */
	unsigned qd;
	uint64_t seed;
	bool unregistered, sync, fua;
	unsigned duration;	/* s, loop mode */
	unsigned io_timeout;	/* s without progress = hang */
	const char *out;
	uint64_t gen_bytes, gen_off;
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	struct rblk_qpair *qp;
	uint32_t lbs;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t pat_word(uint64_t seed, uint64_t idx)
{
	uint64_t x = seed ^ (idx * 0x9E3779B97F4A7C15ull);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static void pat_fill(uint8_t *buf, uint64_t byte_off, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = pat_word(seed, (byte_off + i) / 8);

		memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* Offset (within buf) of the first byte that differs, or -1. */
static int64_t pat_check(const uint8_t *buf, uint64_t byte_off, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = pat_word(seed, (byte_off + i) / 8);
		size_t n = len - i < 8 ? len - i : 8;

		if (memcmp(buf + i, &w, n))
			return (int64_t)i;
	}
	return -1;
}

struct req {
	struct rblk_io io;
	uint8_t *buf;
	bool busy, done;
	uint16_t status;
	int err;
};

static void req_cb(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct req *r = arg;

	r->status = status;
	r->err = err;
	r->done = true;
}

static int fail_io(const char *what, uint64_t lba, uint16_t status, int err)
{
	if (err == -ENOTCONN) {
		fprintf(stderr, "init_io: %s at LBA %" PRIu64 ": controller lost (%s)\n", what, lba,
			strerror(-err));
		return 4;
	}
	if (err)
		fprintf(stderr, "init_io: %s at LBA %" PRIu64 ": %s\n", what, lba, strerror(-err));
	else
		fprintf(stderr, "init_io: %s at LBA %" PRIu64 ": NVMe status %#x (%s)\n", what, lba,
			status, rblk_status_str(status));
	return 1;
}

static int check_read(struct tool *t, struct req *r, uint64_t seed)
{
	int64_t bad = pat_check(r->buf, r->io.lba * t->lbs, (size_t)r->io.nlb * t->lbs, seed);

	if (bad < 0)
		return 0;
	fprintf(stderr, "init_io: data mismatch at LBA %" PRIu64 " + byte %" PRId64 " (seed %#" PRIx64 ")\n",
		r->io.lba, bad, seed);
	return 1;
}

/* Writes (or reads and verifies, or dumps) [first, first + n) with t->qd requests in flight. */
static int run_range(struct tool *t, bool write, uint64_t first, uint64_t n, uint64_t seed,
		     FILE *dump)
{
	uint32_t per = t->bs / t->lbs;
	struct req *reqs = calloc(t->qd, sizeof(*reqs));
	uint64_t next = first, end = first + n, last_progress = now_ms();
	unsigned busy = 0;
	int ret = 0;

	if (!reqs)
		return 1;
	for (unsigned i = 0; i < t->qd; i++) {
		reqs[i].buf = t->unregistered ? aligned_alloc(4096, t->bs) : rblk_buf_alloc(t->ctrl, t->bs);
		if (!reqs[i].buf) {
			fprintf(stderr, "init_io: cannot allocate %u-byte buffers\n", t->bs);
			ret = 1;
			goto out;
		}
	}
	while (!ret && (next < end || busy)) {
		int got = 0;

		for (unsigned i = 0; i < t->qd && next < end && !ret; i++) {
			struct req *r = &reqs[i];
			uint32_t nlb = end - next < per ? (uint32_t)(end - next) : per;

			if (r->busy)
				continue;
			if (t->sync) {
				int e;

				if (write) {
					pat_fill(r->buf, next * t->lbs, (size_t)nlb * t->lbs, seed);
					e = rblk_write(t->ns, r->buf, next, nlb, t->fua ? RBLK_IO_FUA : 0);
				} else {
					e = rblk_read(t->ns, r->buf, next, nlb);
				}
				r->io.lba = next;
				r->io.nlb = nlb;
				if (e)
					ret = fail_io(write ? "write" : "read", next,
						      rblk_ns_last_status(t->ns), e == -EREMOTEIO ? 0 : e);
				else if (!write && dump)
					fwrite(r->buf, t->lbs, nlb, dump);
				else if (!write)
					ret = check_read(t, r, seed);
				next += nlb;
				last_progress = now_ms();
				continue;
			}
			r->io = (struct rblk_io){ .op = write ? RBLK_OP_WRITE : RBLK_OP_READ,
						  .ns = t->ns, .lba = next, .nlb = nlb,
						  .flags = t->fua ? RBLK_IO_FUA : 0, .buf = r->buf };
			if (write)
				pat_fill(r->buf, next * t->lbs, (size_t)nlb * t->lbs, seed);
			r->done = false;
			int e = rblk_submit(t->qp, &r->io, req_cb, r);
			if (e == -EAGAIN)
				break;
			if (e) {
				ret = fail_io("submit", next, 0, e);
				break;
			}
			r->busy = true;
			busy++;
			next += nlb;
		}
		if (!busy)
			continue;
		got = rblk_poll(t->qp, 0);
		if (got < 0 && got != -ENOTCONN) {
			ret = fail_io("poll", next, 0, got);
			break;
		}
		/* Completions are checked in submission order for dumps (LBA order). */
		for (unsigned i = 0; i < t->qd; i++) {
			struct req *r = &reqs[i];

			if (!r->busy || !r->done)
				continue;
			if (dump)
				continue;
			r->busy = false;
			busy--;
			last_progress = now_ms();
			if (r->err || r->status)
				ret = ret ? ret : fail_io(write ? "write" : "read", r->io.lba, r->status, r->err);
			else if (!write)
				ret = ret ? ret : check_read(t, r, seed);
		}
		if (dump) {
			/* Dumps keep LBA order: retire the oldest request first. */
			for (;;) {
				struct req *oldest = NULL;

				for (unsigned i = 0; i < t->qd; i++)
					if (reqs[i].busy && (!oldest || reqs[i].io.lba < oldest->io.lba))
						oldest = &reqs[i];
				if (!oldest || !oldest->done)
					break;
				oldest->busy = false;
				busy--;
				last_progress = now_ms();
				if (oldest->err || oldest->status) {
					ret = ret ? ret : fail_io("read", oldest->io.lba, oldest->status, oldest->err);
					break;
				}
				fwrite(oldest->buf, t->lbs, oldest->io.nlb, dump);
			}
		}
		if (got == 0) {
			struct pollfd pfd = { .fd = rblk_qpair_fd(t->qp), .events = POLLIN };

			poll(&pfd, 1, 200);
		}
		if (now_ms() - last_progress > t->io_timeout * 1000ull) {
			fprintf(stderr, "init_io: no I/O completed for %u s (controller %s): hang\n",
				t->io_timeout, rblk_ctrl_state_str(rblk_ctrl_state(t->ctrl)));
			ret = 1;
		}
	}
	/* Never free buffers the target may still write. */
	while (busy && ret != 1) {
		if (rblk_poll(t->qp, 0) <= 0) {
			struct pollfd pfd = { .fd = rblk_qpair_fd(t->qp), .events = POLLIN };

			poll(&pfd, 1, 200);
		}
		busy = 0;
		for (unsigned i = 0; i < t->qd; i++)
			if (reqs[i].busy && !reqs[i].done)
				busy++;
	}
out:
	for (unsigned i = 0; i < t->qd; i++) {
		if (!reqs[i].buf || (reqs[i].busy && !reqs[i].done))
			continue;
		if (t->unregistered)
			free(reqs[i].buf);
		else
			rblk_buf_free(t->ctrl, reqs[i].buf);
	}
	free(reqs);
	return ret;
}

static void print_identify(struct tool *t)
{
	const uint8_t *id = rblk_ctrl_identify(t->ctrl);
	char mn[41], sn[21], subnqn[257];

	memcpy(mn, id + 24, 40);
	mn[40] = 0;
	memcpy(sn, id + 4, 20);
	sn[20] = 0;
	memcpy(subnqn, id + 768, 256);
	subnqn[256] = 0;
	printf("cntlid %u\nmn %.40s\nsn %.20s\nsubnqn %s\nmdts %u\nmax_xfer %u\nio_queues %u\nqueue_size %u\n",
	       rblk_ctrl_cntlid(t->ctrl), mn, sn, subnqn, id[77], rblk_ctrl_max_xfer(t->ctrl),
	       rblk_ctrl_num_io_queues(t->ctrl), rblk_ctrl_io_queue_size(t->ctrl));
	if (t->ns)
		printf("nsid %u\nblocks %" PRIu64 "\nblock_size %u\nread_only %d\n", t->nsid,
		       rblk_ns_num_blocks(t->ns), rblk_ns_block_size(t->ns), rblk_ns_read_only(t->ns));
}

static int do_discover(struct tool *t)
{
	struct rblk_disc_entry *e;
	uint64_t genctr = 0;
	uint16_t status = 0;
	unsigned n = 0;
	int ret;

	t->o.subnqn = NULL;
	ret = rblk_discover(&t->o, &e, &n, &genctr, &status);
	if (ret) {
		fprintf(stderr, "init_io: discover: %s (status %#x)\n", strerror(-ret), status);
		return 3;
	}
	printf("genctr %" PRIu64 " records %u\n", genctr, n);
	for (unsigned i = 0; i < n; i++)
		printf("entry %u: trtype %u adrfam %u subtype %u treq %u portid %u trsvcid %s traddr %s subnqn %s\n",
		       i, e[i].trtype, e[i].adrfam, e[i].subtype, e[i].treq, e[i].portid,
		       e[i].trsvcid, e[i].traddr, e[i].subnqn);
	free(e);
	return 0;
}

/* Flush, FUA write, Write Zeroes, Deallocate, and an out-of-range read. */
static int do_misc(struct tool *t)
{
	uint8_t *buf = rblk_buf_alloc(t->ctrl, 8 * t->lbs);
	uint64_t lba = t->offset;
	uint16_t st;
	int ret;

	if (!buf)
		return 1;
	pat_fill(buf, lba * t->lbs, 8 * t->lbs, t->seed);
	ret = rblk_write(t->ns, buf, lba, 8, RBLK_IO_FUA);
	if (!ret)
		ret = rblk_flush(t->ns);
	if (!ret)
		ret = rblk_write_zeroes(t->ns, lba + 2, 4);
	if (!ret)
		ret = rblk_read(t->ns, buf, lba, 8);
	if (ret) {
		ret = fail_io("misc", lba, rblk_ns_last_status(t->ns), ret == -EREMOTEIO ? 0 : ret);
		goto out;
	}
	for (uint32_t i = 2 * t->lbs; i < 6 * t->lbs; i++) {
		if (buf[i]) {
			fprintf(stderr, "init_io: write zeroes left byte %u non-zero\n", i);
			ret = 1;
			goto out;
		}
	}
	if (pat_check(buf, lba * t->lbs, 2 * t->lbs, t->seed) >= 0 ||
	    pat_check(buf + 6 * t->lbs, (lba + 6) * t->lbs, 2 * t->lbs, t->seed) >= 0) {
		fprintf(stderr, "init_io: write zeroes touched blocks around its range\n");
		ret = 1;
		goto out;
	}
	ret = rblk_deallocate(t->ns, lba, 8);
	if (ret) {
		ret = fail_io("deallocate", lba, rblk_ns_last_status(t->ns), ret == -EREMOTEIO ? 0 : ret);
		goto out;
	}
	ret = rblk_read(t->ns, buf, rblk_ns_num_blocks(t->ns) - 1, 2);
	st = rblk_ns_last_status(t->ns);
	/* rblk-target says LBA Out of Range; nvmet passes the block layer's error on. */
	if (ret != -EREMOTEIO || !st) {
		fprintf(stderr, "init_io: a read past the end gave %d, status %#x (want an NVMe error)\n",
			ret, st);
		ret = 1;
		goto out;
	}
	printf("misc: FUA write, flush, write zeroes, deallocate OK; read past the end: %s (%#x)\n",
	       rblk_status_str(st), st);
	ret = 0;
out:
	rblk_buf_free(t->ctrl, buf);
	return ret;
}

static int do_loop(struct tool *t, uint64_t blocks)
{
	uint64_t end = now_ms() + t->duration * 1000ull;
	unsigned iter = 0;
	int ret = 0;

	while (!ret && now_ms() < end) {
		uint64_t seed = t->seed + iter;

		ret = run_range(t, true, t->offset, blocks, seed, NULL);
		if (!ret)
			ret = run_range(t, false, t->offset, blocks, seed, NULL);
		printf("loop %u: write+verify %" PRIu64 " blocks: %s (controller %s)\n", iter, blocks,
		       ret ? "FAILED" : "ok", rblk_ctrl_state_str(rblk_ctrl_state(t->ctrl)));
		fflush(stdout);
		iter++;
	}
	if (!ret)
		printf("loop done: %u iterations, last seed %#" PRIx64 "\n", iter,
		       t->seed + iter - 1);
	return ret;
}

static int gen_file(struct tool *t)
{
	FILE *f = fopen(t->out, "wb");
	uint8_t buf[65536];
	int ret = 0;

	if (!f) {
		perror(t->out);
		return 1;
	}
	for (uint64_t off = 0; off < t->gen_bytes; off += sizeof(buf)) {
		size_t n = t->gen_bytes - off < sizeof(buf) ? t->gen_bytes - off : sizeof(buf);

		pat_fill(buf, t->gen_off + off, n, t->seed);
		if (fwrite(buf, 1, n, f) != n)
			ret = 1;
	}
	if (fclose(f))
		ret = 1;
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rblk-init-io -a TRADDR -n SUBNQN [options]\n"
		"  -s PORT -w HOST_TRADDR -q HOSTNQN -I HOSTID -N NSID (1)\n"
		"  -m identify|write|verify|writeverify|loop|discover|dump|gen|misc|idle (writeverify)\n"
		"  -o LBA  -b BLOCKS  -B IO_BYTES (65536)  -d QD (16)  -S SEED  -t SECONDS (loop)\n"
		"  -u (unregistered buffers)  -y (synchronous calls)  -f (FUA)\n"
		"  -i NR_IO_QUEUES -Q QUEUE_SIZE -k KATO -c RECONNECT_DELAY -l CTRL_LOSS_TMO\n"
		"  -O FILE (dump/gen output)  -G BYTES -g BYTE_OFFSET (gen)  -T IO_TIMEOUT (120)  -v\n");
}

int main(int argc, char **argv)
{
	static const char *modes[] = { "identify", "write", "verify", "writeverify", "loop",
				       "discover", "dump", "gen", "misc", "idle" };
	struct tool t = { .nsid = 1, .bs = 65536, .qd = 16, .seed = 0x5eed, .io_timeout = 120 };
	uint16_t status = 0;
	uint64_t blocks;
	FILE *dump = NULL;
	int c, ret;

	rblk_connect_opts_init(&t.o);
	t.mode = M_WRITEVERIFY;
	while ((c = getopt(argc, argv, "a:n:s:w:q:I:N:m:o:b:B:d:S:t:uyfi:Q:k:c:l:O:G:g:T:v")) != -1) {
		switch (c) {
		case 'a': t.o.traddr = optarg; break;
		case 'n': t.o.subnqn = optarg; break;
		case 's': t.o.trsvcid = optarg; break;
		case 'w': t.o.host_traddr = optarg; break;
		case 'q': t.o.hostnqn = optarg; break;
		case 'I': t.o.hostid = optarg; break;
		case 'N': t.nsid = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'm':
			for (ret = 0; ret < (int)(sizeof(modes) / sizeof(modes[0])); ret++)
				if (!strcmp(optarg, modes[ret]))
					break;
			if (ret == (int)(sizeof(modes) / sizeof(modes[0]))) {
				usage();
				return 2;
			}
			t.mode = (enum mode)ret;
			break;
		case 'o': t.offset = strtoull(optarg, NULL, 0); break;
		case 'b': t.blocks = strtoull(optarg, NULL, 0); break;
		case 'B': t.bs = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': t.qd = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'S': t.seed = strtoull(optarg, NULL, 0); break;
		case 't': t.duration = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'u': t.unregistered = true; break;
		case 'y': t.sync = true; break;
		case 'f': t.fua = true; break;
		case 'i': t.o.nr_io_queues = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'Q': t.o.queue_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'k': t.o.keep_alive_tmo = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'c': t.o.reconnect_delay = (int32_t)strtol(optarg, NULL, 0); break;
		case 'l': t.o.ctrl_loss_tmo = (int32_t)strtol(optarg, NULL, 0); break;
		case 'O': t.out = optarg; break;
		case 'G': t.gen_bytes = strtoull(optarg, NULL, 0); break;
		case 'g': t.gen_off = strtoull(optarg, NULL, 0); break;
		case 'T': t.io_timeout = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'v': rblk_log_set_level(RBLK_LOG_DEBUG); break;
		default: usage(); return 2;
		}
	}
	if (t.mode == M_GEN) {
		if (!t.out || !t.gen_bytes) {
			usage();
			return 2;
		}
		return gen_file(&t);
	}
	if (!t.o.traddr || (!t.o.subnqn && t.mode != M_DISCOVER) || !t.qd || !t.bs) {
		usage();
		return 2;
	}
	if (t.mode == M_DISCOVER)
		return do_discover(&t);
	ret = rblk_connect(&t.o, &t.ctrl, &status);
	if (ret) {
		fprintf(stderr, "init_io: connect: %s (NVMe status %#x %s)\n", strerror(-ret), status,
			status ? rblk_status_str(status) : "");
		return 3;
	}
	ret = rblk_ns_open(t.ctrl, t.nsid, &t.ns);
	if (ret) {
		fprintf(stderr, "init_io: namespace %u: %s\n", t.nsid, strerror(-ret));
		ret = 1;
		goto out_disconnect;
	}
	t.lbs = rblk_ns_block_size(t.ns);
	if (t.bs % t.lbs) {
		fprintf(stderr, "init_io: -B %u is not a multiple of the %u-byte block\n", t.bs, t.lbs);
		ret = 2;
		goto out_close;
	}
	blocks = t.blocks ? t.blocks : (64ull << 20) / t.lbs;
	if (t.offset + blocks > rblk_ns_num_blocks(t.ns))
		blocks = rblk_ns_num_blocks(t.ns) > t.offset ? rblk_ns_num_blocks(t.ns) - t.offset : 0;
	if (!t.sync && (ret = rblk_qpair_alloc(t.ctrl, &t.qp))) {
		fprintf(stderr, "init_io: qpair: %s\n", strerror(-ret));
		ret = 1;
		goto out_close;
	}
	if (t.sync) {
		/* Synchronous calls borrow their own qpair; run_range needs one for nothing. */
		t.qd = 1;
	}
	switch (t.mode) {
	case M_IDENTIFY:
		print_identify(&t);
		ret = 0;
		break;
	case M_WRITE:
		ret = run_range(&t, true, t.offset, blocks, t.seed, NULL);
		break;
	case M_VERIFY:
		ret = run_range(&t, false, t.offset, blocks, t.seed, NULL);
		break;
	case M_WRITEVERIFY:
		ret = run_range(&t, true, t.offset, blocks, t.seed, NULL);
		if (!ret)
			ret = run_range(&t, false, t.offset, blocks, t.seed, NULL);
		break;
	case M_LOOP:
		ret = do_loop(&t, blocks);
		break;
	case M_DUMP:
		dump = fopen(t.out ? t.out : "/dev/stdout", "wb");
		if (!dump) {
			perror(t.out);
			ret = 1;
			break;
		}
		ret = run_range(&t, false, t.offset, blocks, t.seed, dump);
		if (fclose(dump))
			ret = 1;
		break;
	case M_MISC:
		ret = do_misc(&t);
		break;
	case M_IDLE:
		/* Nobody polls: keep-alive must come from the library's own thread. */
		sleep(t.duration);
		ret = run_range(&t, true, t.offset, blocks, t.seed, NULL);
		if (!ret)
			ret = run_range(&t, false, t.offset, blocks, t.seed, NULL);
		printf("idle %u s, then write+verify: %s (controller %s)\n", t.duration,
		       ret ? "FAILED" : "ok", rblk_ctrl_state_str(rblk_ctrl_state(t.ctrl)));
		break;
	default:
		ret = 2;
	}
	if (!ret && t.mode != M_IDENTIFY && t.mode != M_MISC && t.mode != M_IDLE)
		printf("%s: %" PRIu64 " blocks of %u bytes from LBA %" PRIu64 ": OK\n",
		       modes[t.mode], blocks, t.lbs, t.offset);
	rblk_qpair_free(t.qp);
out_close:
	rblk_ns_close(t.ns);
out_disconnect:
	rblk_disconnect(t.ctrl);
	return ret;
}
