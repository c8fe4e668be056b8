/* SPDX-License-Identifier: MIT */
/*
 * Files and block devices, for the kernel engines (uring, aio): opening with
 * the right flags and learning size, block size, O_DIRECT alignment and
 * capabilities; and the synchronous operations the engines fall back to
 * (fdatasync, zero range, discard) when no asynchronous form exists.
 *
 * Write zeroes: fallocate(ZERO_RANGE|KEEP_SIZE) on files, BLKZEROOUT on block
 * devices. Discard: fallocate(PUNCH_HOLE|KEEP_SIZE) on files, BLKDISCARD on
 * block devices. Each engine decides whether these run synchronously here or
 * asynchronously (uring: IORING_OP_FALLOCATE / the block discard command).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backend/internal.h"
#include "common/log.h"

/* Reads /sys/dev/block/M:m/queue/<attr>, or the parent's for a partition. */
static int sysfs_queue_attr(dev_t dev, const char *attr, char *buf, size_t len)
{
	static const char *const fmts[] = {
		"/sys/dev/block/%u:%u/queue/%s",
		"/sys/dev/block/%u:%u/../queue/%s",
	};

	for (size_t i = 0; i < 2; i++) {
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), fmts[i], major(dev), minor(dev), attr);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, len, f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		return 0;
	}
	return -ENOENT;
}

static int open_path(const char *path, int flags, enum rblk_bdev_direct direct, bool *is_direct)
{
	static int fallback_logged;
	int fd;

	*is_direct = false;
	if (direct == RBLK_DIRECT_OFF) {
		fd = open(path, flags);
		return fd < 0 ? -errno : fd;
	}
	fd = open(path, flags | O_DIRECT);
	if (fd >= 0) {
		*is_direct = true;
		return fd;
	}
	if (errno != EINVAL || direct == RBLK_DIRECT_REQUIRE)
		return -errno;
	/* Some file systems (tmpfs before Linux 6.6, some FUSE) refuse O_DIRECT. */
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	if (!__atomic_exchange_n(&fallback_logged, 1, __ATOMIC_RELAXED))
		RBLK_NOTICE("backend: %s: file system refuses O_DIRECT: using the page cache",
			    path);
	else
		RBLK_INFO("backend: %s: no O_DIRECT: using the page cache", path);
	return fd;
}

/*
 * O_DIRECT alignment of an open file: 0 where the kernel does not say, and
 * -EOPNOTSUPP where it says the file cannot do direct I/O after all (statx
 * reports zeroes then, though open(O_DIRECT) succeeded).
 */
static int dio_align(int fd, uint32_t *mem, uint32_t *off)
{
	struct statx stx;

	*mem = *off = 0;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		if (!stx.stx_dio_offset_align)
			return -EOPNOTSUPP;
		*mem = stx.stx_dio_mem_align;
		*off = stx.stx_dio_offset_align;
	}
	return 0;
}

/*
 * Whether punching holes works, asked beyond the end of file where it
 * changes nothing. (ZERO_RANGE cannot be probed that way: past EOF it would
 * allocate; it is learnt from the first request instead.)
 */
static bool file_can_punch(int fd, uint64_t size, uint32_t bs)
{
	uint64_t past = (size + bs - 1) / bs * bs + bs;

	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, past, bs) == 0;
}

/*
 * The largest read or write the queue takes without splitting it: its
 * max_sectors_kb, and no more pages than max_segments less one (a buffer that
 * starts inside a page spans one more), in whole pages; 0 when unknown. null_blk
 * says 127 KiB, many SSDs 128 or 512 KiB.
 */
static uint32_t max_io_size(dev_t rdev)
{
	uint64_t max = 0, segs;
	char buf[64];

	if (sysfs_queue_attr(rdev, "max_sectors_kb", buf, sizeof(buf)) == 0)
		max = strtoull(buf, NULL, 10) * 1024;
	if (max && sysfs_queue_attr(rdev, "max_segments", buf, sizeof(buf)) == 0) {
		segs = strtoull(buf, NULL, 10);
		if (segs > 1 && (segs - 1) * 4096 < max)
			max = (segs - 1) * 4096;
	}
	max &= ~(uint64_t)4095;
	return max > UINT32_MAX ? 0 : (uint32_t)max;
}

static void blockdev_caps(struct rblk_bdev *bdev, dev_t rdev)
{
	char buf[64];

	bdev->caps.write_cache = true;
	if (sysfs_queue_attr(rdev, "write_cache", buf, sizeof(buf)) == 0)
		bdev->caps.write_cache = strcmp(buf, "write through") != 0;
	if (!bdev->read_only && sysfs_queue_attr(rdev, "discard_max_bytes", buf, sizeof(buf)) == 0)
		bdev->caps.can_discard = strtoull(buf, NULL, 10) > 0;
	/* A device's discard promises nothing about what reads return. */
	bdev->caps.discard_zeroes = false;
	if (sysfs_queue_attr(rdev, "physical_block_size", buf, sizeof(buf)) == 0)
		bdev->limits.physical_block_size = (uint32_t)strtoul(buf, NULL, 10);
	if (sysfs_queue_attr(rdev, "optimal_io_size", buf, sizeof(buf)) == 0)
		bdev->limits.optimal_io_size = (uint32_t)strtoul(buf, NULL, 10);
	if (sysfs_queue_attr(rdev, "discard_granularity", buf, sizeof(buf)) == 0)
		bdev->limits.discard_granularity = (uint32_t)strtoul(buf, NULL, 10);
	bdev->limits.max_io_size = max_io_size(rdev);
}

static int pick_block_size(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts,
			   uint32_t dev_lbs, uint32_t off_align, uint32_t *bs)
{
	if (opts->block_size) {
		*bs = opts->block_size;
		/* Below the device's sector size every write is read-modify-write. */
		if (bdev->is_blockdev && *bs < dev_lbs) {
			RBLK_ERR("backend: %s: block size %u below the device's %u", bdev->path,
				 *bs, dev_lbs);
			return -EINVAL;
		}
	} else {
		*bs = bdev->is_blockdev ? dev_lbs : 512;
		if (bdev->direct && off_align > *bs)
			*bs = off_align;
	}
	if (bdev->direct && off_align > *bs)
		return -EOPNOTSUPP; /* O_DIRECT needs coarser offsets than asked */
	return 0;
}

/* Like nvmet: claim a writable block device so a mounted one is refused. */
static int open_flags(bool is_blockdev, bool read_only)
{
	int flags = (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC;

	if (is_blockdev && !read_only)
		flags |= O_EXCL;
	return flags;
}

/*
 * What @opts->path is (a regular file or a block device: bdev->is_blockdev)
 * and the open(2) flags for it. 0 or -errno.
 */
static int probe_path(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts, int *flags)
{
	struct stat st;
	int r;

	if (!opts->path || !opts->path[0])
		return -EINVAL;
	if (stat(opts->path, &st) < 0) {
		r = -errno;
		RBLK_ERR("backend: %s: %s", opts->path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		RBLK_ERR("backend: %s: not a regular file or block device", opts->path);
		return -EINVAL;
	}
	bdev->is_blockdev = S_ISBLK(st.st_mode);
	*flags = open_flags(bdev->is_blockdev, opts->read_only);
	return 0;
}

int rblk_bdev_path_check(const char *path, bool read_only, char *why, size_t len)
{
	struct stat st;
	int fd, r;

	if (!path || !path[0]) {
		snprintf(why, len, "no path");
		return -EINVAL;
	}
	if (stat(path, &st) < 0) {
		r = -errno;
		snprintf(why, len, "%s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		snprintf(why, len, "%s: not a regular file or block device", path);
		return -EINVAL;
	}
	fd = open(path, open_flags(S_ISBLK(st.st_mode), read_only));
	if (fd < 0) {
		r = -errno;
		snprintf(why, len, "%s: cannot open %s: %s%s", path,
			 read_only ? "read-only" : "read-write", strerror(-r),
			 r == -EBUSY ? " (mounted, or in use by another exporter?)"
			 : r == -EROFS || (r == -EACCES && !read_only)
				 ? " (export it read-only: \"ro\" / x-rblk.read_only)"
				 : "");
		return r;
	}
	close(fd);
	return 0;
}

/*
 * Size (bdev->size, in bytes) and sector size of the open file, with its
 * stat in @st. 0, -EAGAIN when the path was replaced since probe_path(),
 * or -errno.
 */
static int read_geometry(struct rblk_bdev *bdev, int fd, struct stat *st, uint32_t *dev_lbs)
{
	if (fstat(fd, st) < 0 || (bdev->is_blockdev != S_ISBLK(st->st_mode)))
		return -EAGAIN; /* replaced between stat and open */
	if (bdev->is_blockdev) {
		int lbs;

		if (ioctl(fd, BLKGETSIZE64, &bdev->size) < 0 || ioctl(fd, BLKSSZGET, &lbs) < 0)
			return -errno;
		*dev_lbs = lbs;
	} else {
		bdev->size = st->st_size;
	}
	return 0;
}

/*
 * The O_DIRECT alignments (when bdev->direct) and the block size. 0,
 * -EOPNOTSUPP when direct I/O cannot serve that block size (the caller
 * may reopen buffered), or another -errno.
 */
static int pick_alignment(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts, int fd,
			  uint32_t dev_lbs, uint32_t *mem_align, uint32_t *bs)
{
	uint32_t off_align = 0;
	int r = 0;

	*mem_align = 0;
	if (bdev->direct) {
		r = dio_align(fd, mem_align, &off_align);
		if (r)
			RBLK_NOTICE("backend: %s: the file system says no direct I/O on this file",
				    opts->path);
		/*
		 * Not reported (older kernels, tmpfs): assume the device's sector
		 * size, 512 for files. A 4Kn disk under such a kernel shows up as
		 * -EINVAL on the first I/O; set block_size to 4096 then.
		 */
		if (!*mem_align)
			*mem_align = dev_lbs;
		if (!off_align)
			off_align = dev_lbs;
	}
	if (!r) {
		r = pick_block_size(bdev, opts, dev_lbs, off_align, bs);
		if (r == -EOPNOTSUPP)
			RBLK_NOTICE("backend: %s: O_DIRECT needs %u-byte alignment, block size is %u",
				    opts->path, off_align, opts->block_size);
	}
	return r;
}

/* Flush, write zeroes and discard as the file or device can do them. */
static void set_caps(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts, const struct stat *st,
		     uint32_t bs)
{
	bdev->caps.can_flush = true;
	bdev->caps.can_write_zeroes = true;
	if (getenv("RBLK_FAULT_FLUSH_NOOP") && !strcmp(getenv("RBLK_FAULT_FLUSH_NOOP"), "1")) {
		bdev->fault_flush_noop = true;
		RBLK_WARN("backend: %s: RBLK_FAULT_FLUSH_NOOP=1: Flush completes WITHOUT syncing "
			  "(fault injection for tests: flushed data is NOT durable)", opts->path);
	}
	if (bdev->is_blockdev) {
		blockdev_caps(bdev, st->st_rdev);
		/*
		 * A write-through device is durable at completion only under
		 * O_DIRECT: opened buffered (O_DIRECT refused), the page cache is
		 * a volatile cache the host must be told about, or it never
		 * sends Flush.
		 */
		if (!bdev->direct)
			bdev->caps.write_cache = true;
	} else {
		/* Page cache, or the disk's cache under O_DIRECT: flush matters. */
		bdev->caps.write_cache = true;
		bdev->caps.can_discard = !opts->read_only && file_can_punch(bdev->fd, bdev->size, bs);
		bdev->caps.discard_zeroes = bdev->caps.can_discard;
	}
}

int rblk_file_bdev_open(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts)
{
	uint32_t dev_lbs = 512, mem_align, bs = 512;
	struct rblk_bdev_opts buffered;
	int flags, fd, r;
	struct stat st;
	bool direct;

	r = probe_path(bdev, opts, &flags);
	if (r)
		return r;
reopen:
	fd = open_path(opts->path, flags, opts->direct, &direct);
	if (fd < 0) {
		/* EACCES/EROFS/EPERM for writes: never fall back to read-only. */
		RBLK_ERR("backend: %s: open%s: %s", opts->path,
			 opts->read_only ? "" : " for writing", strerror(-fd));
		return fd;
	}
	bdev->fd = fd;
	bdev->direct = direct;
	r = read_geometry(bdev, fd, &st, &dev_lbs);
	if (r)
		goto out_close;
	r = pick_alignment(bdev, opts, fd, dev_lbs, &mem_align, &bs);
	if (r == -EOPNOTSUPP && opts->direct == RBLK_DIRECT_AUTO) {
		RBLK_NOTICE("backend: %s: using the page cache", opts->path);
		close(fd);
		bdev->fd = -1;
		buffered = *opts;
		buffered.direct = RBLK_DIRECT_OFF;
		opts = &buffered;
		goto reopen;
	}
	if (r) {
		r = -EINVAL;
		goto out_close;
	}
	bdev->lba_shift = __builtin_ctz(bs);
	bdev->buf_align = direct ? mem_align : 1;
	bdev->size -= bdev->size % bs;
	if (bdev->size == 0) {
		RBLK_ERR("backend: %s: smaller than one %u-byte block", opts->path, bs);
		r = -EINVAL;
		goto out_close;
	}
	set_caps(bdev, opts, &st, bs);
	return 0;

out_close:
	if (r != -EINVAL)
		RBLK_ERR("backend: %s: %s", opts->path, strerror(-r));
	close(fd);
	bdev->fd = -1;
	return r;
}

void rblk_file_bdev_close(struct rblk_bdev *bdev)
{
	if (bdev->fd >= 0)
		close(bdev->fd);
	bdev->fd = -1;
}

int rblk_file_datasync(struct rblk_bdev *bdev)
{
	return fdatasync(bdev->fd) < 0 ? -errno : 0;
}

int rblk_file_zero_range(struct rblk_bdev *bdev, uint64_t off, uint64_t len)
{
	if (bdev->is_blockdev) {
		uint64_t range[2] = { off, len };

		return ioctl(bdev->fd, BLKZEROOUT, range) < 0 ? -errno : 0;
	}
	return fallocate(bdev->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, off, len) < 0 ?
		       -errno :
		       0;
}

int rblk_file_discard(struct rblk_bdev *bdev, uint64_t off, uint64_t len)
{
	if (bdev->is_blockdev) {
		uint64_t range[2] = { off, len };

		return ioctl(bdev->fd, BLKDISCARD, range) < 0 ? -errno : 0;
	}
	return fallocate(bdev->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) < 0 ?
		       -errno :
		       0;
}

void rblk_file_note_no_zero_range(struct rblk_bdev *bdev, int err)
{
	if (!__atomic_exchange_n(&bdev->zero_range_unsupported, 1, __ATOMIC_RELAXED))
		RBLK_INFO("backend: %s: no %s (%s): writing zeroes instead", bdev->path,
			  bdev->is_blockdev ? "BLKZEROOUT" : "fallocate(ZERO_RANGE)",
			  strerror(-err));
}

void rblk_file_note_no_discard(struct rblk_bdev *bdev, int err)
{
	if (!__atomic_exchange_n(&bdev->discard_unsupported, 1, __ATOMIC_RELAXED))
		RBLK_INFO("backend: %s: discard not supported (%s): %s", bdev->path,
			  strerror(-err),
			  bdev->caps.discard_zeroes ? "writing zeroes instead" : "treated as a no-op");
}
