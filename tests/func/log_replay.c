/* SPDX-License-Identifier: MIT */
/*
 * log_replay: "cut the power" at a point of a dm-log-writes log. Applies the
 * logged writes, in log order, to an image of the logged device (which must
 * have been all zeroes when logging started) and stops at a named mark: the
 * image is then what the device would hold had the power gone at that point.
 *
 *   log_replay LOGDEV IMAGE MARK       replay up to MARK into IMAGE
 *   log_replay LOGDEV --list           print every entry
 *
 * The log format, as the kernel's dm-log-writes target writes it (restated
 * from its documented layout): block 0 is a super block {le64 magic
 * 0x6a736677736872, le64 version 1, le64 nr_entries, le32 sectorsize}; the
 * entries follow from block 1, each one block holding {le64 sector, le64
 * nr_sectors, le64 flags, le64 data_len} (a mark's name right after it), then,
 * unless it is a discard, nr_sectors blocks of data. Sectors are in units of
 * sectorsize, the logged device's logical block size. The target logs a write
 * only once a flush made it durable (FUA writes at once), so a replay shows
 * exactly what had been flushed.
 * Exit: 0 done (for a replay: the mark was found), 1 the mark is not in the log,
 * 2 bad usage or a malformed log.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_MAGIC 0x6a736677736872ULL
#define LOG_FLUSH (1u << 0)
#define LOG_FUA (1u << 1)
#define LOG_DISCARD (1u << 2)
#define LOG_MARK (1u << 3)

struct log_super {
	uint64_t magic, version, nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct log_entry {
	uint64_t sector, nr_sectors, flags, data_len;
};

static int die(const char *what)
{
	fprintf(stderr, "log_replay: %s\n", what);
	return 2;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	struct log_super sup;
	uint32_t bs;
	uint64_t pos, n, nr, applied = 0, flushes = 0;
	uint8_t *blk, *data = NULL;
	size_t cap = 0;
	bool list;
	int lfd, ofd = -1;

	if (argc != 4 && !(argc == 3 && !strcmp(argv[2], "--list")))
		return die("usage: log_replay LOGDEV IMAGE MARK | log_replay LOGDEV --list");
	list = argc == 3;
	lfd = open(argv[1], O_RDONLY);
	if (lfd < 0)
		return die("cannot open the log");
	if (!list && (ofd = open(argv[2], O_WRONLY)) < 0)
		return die("cannot open the image");
	if (read_at(lfd, &sup, sizeof(sup), 0))
		return die("cannot read the super block");
	bs = le32toh(sup.sectorsize);
	nr = le64toh(sup.nr_entries);
	if (le64toh(sup.magic) != LOG_MAGIC || le64toh(sup.version) != 1 || bs < 512 ||
	    bs > 65536 || (bs & (bs - 1)))
		return die("not a dm-log-writes log (magic, version or sector size)");
	blk = malloc(bs);
	if (!blk)
		return die("out of memory");
	pos = bs;
	for (n = 0; n < nr; n++) {
		struct log_entry e;
		uint64_t len;
		char mark[512] = "";

		if (read_at(lfd, blk, bs, pos))
			return die("the log ends before its last entry");
		memcpy(&e, blk, sizeof(e));
		e.sector = le64toh(e.sector);
		e.nr_sectors = le64toh(e.nr_sectors);
		e.flags = le64toh(e.flags);
		e.data_len = le64toh(e.data_len);
		pos += bs;
		if (e.flags & LOG_MARK) {
			len = e.data_len < sizeof(mark) - 1 ? e.data_len : sizeof(mark) - 1;
			if (len > bs - sizeof(e))
				return die("a mark longer than its block");
			memcpy(mark, blk + sizeof(e), len);
		}
		if (list)
			printf("%llu: sector %llu +%llu flags%s%s%s%s %s\n", (unsigned long long)n,
			       (unsigned long long)e.sector, (unsigned long long)e.nr_sectors,
			       e.flags & LOG_FLUSH ? " flush" : "", e.flags & LOG_FUA ? " fua" : "",
			       e.flags & LOG_DISCARD ? " discard" : "",
			       e.flags & LOG_MARK ? " mark" : "", mark);
		if (e.flags & LOG_MARK) {
			if (!list && !strcmp(mark, argv[3])) {
				printf("log_replay: mark %s: %llu writes applied, %llu flushes\n",
				       mark, (unsigned long long)applied,
				       (unsigned long long)flushes);
				return fsync(ofd) ? die("fsync of the image failed") : 0;
			}
			continue;
		}
		flushes += !!(e.flags & LOG_FLUSH);
		if (!e.nr_sectors)
			continue;
		if (e.nr_sectors > (1u << 20))
			return die("an entry larger than 4 GiB");
		len = e.nr_sectors * bs;
		if (e.flags & LOG_DISCARD) {
			/* Discarded blocks read as zeroes on the image. */
			if (len > cap && !(data = realloc(data, cap = len)))
				return die("out of memory");
			memset(data, 0, len);
		} else {
			if (len > cap && !(data = realloc(data, cap = len)))
				return die("out of memory");
			if (read_at(lfd, data, len, pos))
				return die("the log ends inside a write's data");
			pos += len;
		}
		if (!list && pwrite(ofd, data, len, (off_t)(e.sector * bs)) != (ssize_t)len)
			return die("writing the image failed");
		applied++;
	}
	if (list)
		return 0;
	fprintf(stderr, "log_replay: mark %s not in the log (%llu entries)\n", argv[3],
		(unsigned long long)nr);
	return 1;
}
