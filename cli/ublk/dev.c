/* SPDX-License-Identifier: MIT */
/*
 * A ublk device's lifecycle for `rblk attach` and `rblk detach` (see
 * cli/ublk/dev.h).
 *
 * Order matters to the kernel:
 *  - every FETCH_REQ of a queue must come from one task, and START_DEV waits
 *    until all queues have fetched all tags, then reads the partition table
 *    through them: the queue threads fetch and serve, the main thread waits
 *    for their "ready" and only then sends START_DEV;
 *  - STOP_DEV waits for the requests in flight, then aborts every tag;
 *  - DEL_DEV waits until /dev/ublkcN is released (fd closed, descriptors
 *    unmapped, rings gone), so it comes after the threads are joined.
 *
 * The devices we add carry our mark and pid in ublksrv_flags, which the
 * kernel keeps for the server and shows in GET_DEV_INFO: after a kill -9 the
 * kernel resets ublksrv_pid, and this is how a later attach or detach knows
 * the device was ours and that its server is dead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "cli/ublk/ctrl.h"
#include "cli/ublk/dev.h"
#include "cli/ublk/params.h"
#include "cli/ublk/rblk.h"
#include "protocol/nvme.h"

#define MAX_QUEUES 64
#define TAG_BUF_MAX (1u << 20)		/* the target's largest transfer by default */
#define OWNER_MARK 0x72626c6bull	/* "rblk" in the high half of ublksrv_flags */

struct queue_thread {
	pthread_t tid;
	struct rblk_ublk_dev *d;
	struct rblk_ublk_serve_opts o;
	struct rblk_ublk_queue_stats stats;
	int ret, setup_ret;
	bool started;
};

struct rblk_ublk_dev {
	struct rblk_ublk_ctrl *ctl;
	struct ublksrv_ctrl_dev_info info;
	bool added;
	int char_fd, stop_fd, ready_fd, done_fd;
	unsigned nthreads;
	struct queue_thread threads[MAX_QUEUES];
};

/* "@fmt...: strerror(-@err)" into the caller's message buffer. */
static void say(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(why, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		snprintf(why + n, len - (size_t)n, ": %s", strerror(-err));
}

static uint64_t owner_stamp(pid_t pid)
{
	return OWNER_MARK << 32 | (uint32_t)pid;
}

/* The pid of the rblk attach that made the device, or 0 when someone else made it. */
static pid_t owner_of(const struct ublksrv_ctrl_dev_info *info)
{
	if (info->ublksrv_flags >> 32 != OWNER_MARK)
		return 0;
	return (pid_t)(uint32_t)info->ublksrv_flags;
}

static bool alive(pid_t pid)
{
	return pid > 0 && (!kill(pid, 0) || errno != ESRCH);
}

/* Ours and nobody serves it: its attach process is gone. */
static bool stale(const struct ublksrv_ctrl_dev_info *info)
{
	pid_t owner = owner_of(info);

	return owner && owner != getpid() && !alive(owner) && !alive(info->ublksrv_pid);
}

/* ---- serving threads */

static void thread_ready(void *arg, int ret)
{
	struct queue_thread *t = arg;
	uint64_t one = 1;

	t->setup_ret = ret;
	if (write(t->d->ready_fd, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only on overflow */
	}
}

static void *thread_main(void *arg)
{
	struct queue_thread *t = arg;
	uint64_t one = 1;

	t->ret = rblk_ublk_serve(&t->o, &t->stats);
	if (t->d->done_fd >= 0 && write(t->d->done_fd, &one, sizeof(one)) < 0) {
		/* the main thread joins us anyway */
	}
	return NULL;
}

/* One thread per queue; waits until each has fetched its tags or failed. */
static int start_threads(struct rblk_ublk_dev *d, const struct rblk_ublk_dev_opts *o, char *why, size_t len)
{
	unsigned ready = 0;
	int ret = 0;

	for (d->nthreads = 0; d->nthreads < d->info.nr_hw_queues; d->nthreads++) {
		struct queue_thread *t = &d->threads[d->nthreads];

		t->d = d;
		t->o = (struct rblk_ublk_serve_opts){
			.char_fd = d->char_fd,
			.q_id = d->nthreads,
			.depth = d->info.queue_depth,
			.buf_bytes = d->info.max_io_buf_bytes,
			.ctrl = o->ctrl,
			.ns = o->ns,
			.mpath = o->mpath,
			.stop_fd = d->stop_fd,
			.ready = thread_ready,
			.ready_arg = t,
		};
		ret = -pthread_create(&t->tid, NULL, thread_main, t);
		if (ret) {
			say(why, len, ret, "cannot start a queue thread");
			break;
		}
		t->started = true;
	}
	for (; ready < d->nthreads; ready++) {
		uint64_t v;

		if (read(d->ready_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			return -errno;
	}
	for (unsigned i = 0; i < d->nthreads; i++) {
		if (d->threads[i].setup_ret) {
			say(why, len, d->threads[i].setup_ret, "cannot set up queue %u", i);
			return d->threads[i].setup_ret;
		}
	}
	return d->nthreads == d->info.nr_hw_queues ? 0 : ret;
}

/* Ends the threads: any still waiting for the kernel give up after a while. */
static int join_threads(struct rblk_ublk_dev *d, struct rblk_ublk_queue_stats *stats)
{
	uint64_t one = 1;
	int ret = 0;

	if (write(d->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail on an eventfd we made */
	}
	for (unsigned i = 0; i < d->nthreads; i++) {
		struct queue_thread *t = &d->threads[i];

		if (!t->started)
			continue;
		pthread_join(t->tid, NULL);
		t->started = false;
		if (t->ret && !ret)
			ret = t->ret;
		if (stats)
			stats[i] = t->stats;
	}
	return ret;
}

/* ---- the device */

/* /dev/ublkcN appears as ADD_DEV returns (devtmpfs), or a moment later with udev. */
static int open_char(uint32_t id)
{
	char path[64];

	snprintf(path, sizeof(path), UBLK_CHAR_PREFIX "%u", id);
	for (int i = 0; i < 50; i++) {
		int fd = open(path, O_RDWR | O_CLOEXEC);

		if (fd >= 0)
			return fd;
		if (errno != ENOENT)
			return -errno;
		usleep(100 * 1000);
	}
	return -ENOENT;
}

static int fill_params(const struct rblk_ublk_dev_opts *o, uint32_t buf_bytes, struct ublk_params *p)
{
	struct rblk_ublk_geometry g = {
		.block_size = rblk_ns_block_size(o->ns),
		.blocks = rblk_ns_num_blocks(o->ns),
		.max_xfer = rblk_ctrl_max_xfer(o->ctrl),
		.buf_bytes = buf_bytes,
		.read_only = o->read_only,
	};

	return rblk_ublk_params_build(rblk_ctrl_identify(o->ctrl), rblk_ns_identify(o->ns), &g, p);
}

static void dev_free(struct rblk_ublk_dev *d)
{
	if (d->char_fd >= 0)
		close(d->char_fd);
	if (d->added) {
		int ret = rblk_ublk_ctrl_del(d->ctl, d->info.dev_id);

		if (ret && ret != -ENODEV)
			RBLK_WARN("ublk: DEL_DEV of device %u failed: %s", d->info.dev_id, strerror(-ret));
	}
	if (d->stop_fd >= 0)
		close(d->stop_fd);
	if (d->ready_fd >= 0)
		close(d->ready_fd);
	rblk_ublk_ctrl_close(d->ctl);
	free(d);
}

static int clean_stale(struct rblk_ublk_ctrl *ctl);

int rblk_ublk_dev_start(const struct rblk_ublk_dev_opts *o, struct rblk_ublk_dev **out, char *why,
			size_t whylen)
{
	struct rblk_ublk_dev *d = calloc(1, sizeof(*d));
	struct ublk_params p;
	uint32_t buf = rblk_ctrl_max_xfer(o->ctrl);
	int ret;

	if (!d)
		return -ENOMEM;
	d->char_fd = d->stop_fd = d->ready_fd = -1;
	d->done_fd = o->done_fd;
	/* one buffer per tag, as large as one request may be */
	if (!buf || buf > TAG_BUF_MAX)
		buf = TAG_BUF_MAX;
	buf &= ~4095u;
	ret = fill_params(o, buf, &p);
	if (ret) {
		snprintf(why, whylen, "ublk cannot export a namespace with %u-byte blocks",
			 rblk_ns_block_size(o->ns));
		goto out_free;
	}
	d->stop_fd = eventfd(0, EFD_CLOEXEC);
	d->ready_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (d->stop_fd < 0 || d->ready_fd < 0) {
		ret = -errno;
		say(why, whylen, ret, "eventfd");
		goto out_free;
	}
	ret = rblk_ublk_ctrl_open(&d->ctl);
	if (ret) {
		say(why, whylen, ret, "cannot open %s", UBLK_CONTROL_PATH);
		goto out_free;
	}
	clean_stale(d->ctl);

	d->info = (struct ublksrv_ctrl_dev_info){
		.nr_hw_queues = (uint16_t)(o->nr_queues > MAX_QUEUES ? MAX_QUEUES : o->nr_queues),
		.queue_depth = (uint16_t)o->depth,
		.max_io_buf_bytes = p.basic.max_sectors << 9,
		.dev_id = o->index < 0 ? UBLK_DEV_ID_ANY : (uint32_t)o->index,
		.ublksrv_pid = getpid(),
		/* no UBLK_F_USER_RECOVERY: a dead server must not leave I/O hanging */
		.flags = UBLK_F_CMD_IOCTL_ENCODE,
		.ublksrv_flags = owner_stamp(getpid()),
	};
	ret = rblk_ublk_ctrl_add(d->ctl, &d->info);
	if (ret) {
		say(why, whylen, ret, "ublk ADD_DEV failed");
		goto out_free;
	}
	d->added = true;
	RBLK_INFO("ublk: device %u: %u queues of %u tags, %u-byte buffers, flags %#llx", d->info.dev_id,
		  d->info.nr_hw_queues, d->info.queue_depth, d->info.max_io_buf_bytes,
		  (unsigned long long)d->info.flags);
	if (d->info.max_io_buf_bytes < p.basic.max_sectors << 9)
		p.basic.max_sectors = d->info.max_io_buf_bytes >> 9;	/* the kernel rounds it down */
	ret = rblk_ublk_ctrl_set_params(d->ctl, d->info.dev_id, &p);
	if (ret) {
		say(why, whylen, ret, "ublk SET_PARAMS failed");
		goto out_free;
	}
	ret = open_char(d->info.dev_id);
	if (ret < 0) {
		say(why, whylen, ret, "cannot open " UBLK_CHAR_PREFIX "%u", d->info.dev_id);
		goto out_free;
	}
	d->char_fd = ret;
	ret = start_threads(d, o, why, whylen);
	if (ret)
		goto out_threads;
	/* our pid, not the thread's: the kernel shows the process */
	ret = rblk_ublk_ctrl_start(d->ctl, d->info.dev_id, getpid());
	if (ret) {
		say(why, whylen, ret, "ublk START_DEV failed");
		goto out_threads;
	}
	*out = d;
	return 0;

out_threads:
	/* aborts the tags fetched so far, so the threads end */
	rblk_ublk_ctrl_stop(d->ctl, d->info.dev_id);
	join_threads(d, NULL);
out_free:
	dev_free(d);
	return ret;
}

int rblk_ublk_dev_id(const struct rblk_ublk_dev *d)
{
	return (int)d->info.dev_id;
}

unsigned rblk_ublk_dev_nr_queues(const struct rblk_ublk_dev *d)
{
	return d->info.nr_hw_queues;
}

int rblk_ublk_dev_stop(struct rblk_ublk_dev *d)
{
	uint64_t one = 1;

	/*
	 * STOP_DEV waits for the requests in flight; with the target away
	 * they could wait for ctrl_loss_tmo. The stop fd bounds that: the
	 * threads fail what is left after 10 s.
	 */
	if (write(d->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail on an eventfd we made */
	}
	return rblk_ublk_ctrl_stop(d->ctl, d->info.dev_id);
}

int rblk_ublk_dev_destroy(struct rblk_ublk_dev *d, struct rblk_ublk_queue_stats *stats)
{
	int ret;

	if (!d)
		return 0;
	ret = join_threads(d, stats);
	dev_free(d);
	return ret;
}

/* ---- devices of other processes */

int rblk_ublk_parse_device(const char *s, int *id)
{
	const char *p = s;
	char *end;
	long v;

	if (!strncmp(p, "/dev/", 5))
		p += 5;
	if (strncmp(p, "ublkb", 5) || p[5] < '0' || p[5] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(p + 5, &end, 10);
	if (errno || *end || v < 0 || v >= 1 << 20)	/* the kernel numbers devices in 20 bits */
		return -EINVAL;
	*id = (int)v;
	return 0;
}

bool rblk_ublk_available(void)
{
	pid_t pid;
	int st;

	if (!access(UBLK_CONTROL_PATH, F_OK))
		return true;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("modprobe", "modprobe", "-q", "ublk_drv", (char *)NULL);
		execl("/sbin/modprobe", "modprobe", "-q", "ublk_drv", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return false;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* the misc device shows up as the module loads (devtmpfs), or just after with udev */
	for (int i = 0; i < 20; i++) {
		if (!access(UBLK_CONTROL_PATH, F_OK))
			return true;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			break;
		usleep(50 * 1000);
	}
	return false;
}

static int delete_stale(struct rblk_ublk_ctrl *ctl, const struct ublksrv_ctrl_dev_info *info)
{
	int ret;

	/* STOP_DEV first: a no-op when the kernel already removed the disk */
	rblk_ublk_ctrl_stop(ctl, info->dev_id);
	ret = rblk_ublk_ctrl_del(ctl, info->dev_id);
	/* a warning, so that the user sees where the device went */
	if (!ret)
		RBLK_WARN("ublk: deleted device %u, left behind by rblk attach (pid %u) which is gone",
			  info->dev_id, (unsigned)owner_of(info));
	return ret == -ENODEV ? 0 : ret;
}

static int clean_stale(struct rblk_ublk_ctrl *ctl)
{
	DIR *dir = opendir("/dev");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		struct ublksrv_ctrl_dev_info info;
		int id;
		char c;

		if (sscanf(e->d_name, "ublkc%d%c", &id, &c) != 1 || id < 0)
			continue;
		if (rblk_ublk_ctrl_get_info(ctl, (uint32_t)id, &info) || !stale(&info))
			continue;
		if (!delete_stale(ctl, &info))
			n++;
	}
	closedir(dir);
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rblk_ublk_detach(int id, double wait_s, char *why, size_t whylen)
{
	struct rblk_ublk_ctrl *ctl;
	struct ublksrv_ctrl_dev_info info;
	double end;
	int ret;

	ret = rblk_ublk_ctrl_open(&ctl);
	if (ret) {
		say(why, whylen, ret, "cannot open %s", UBLK_CONTROL_PATH);
		return ret == -ENOENT ? -ENODEV : ret;
	}
	ret = rblk_ublk_ctrl_get_info(ctl, (uint32_t)id, &info);
	if (ret) {
		say(why, whylen, ret, "GET_DEV_INFO");
		goto out;
	}
	if (stale(&info)) {
		/* nobody will delete it: its attach process is gone */
		ret = delete_stale(ctl, &info);
		if (ret)
			say(why, whylen, ret, "DEL_DEV");
		goto out;
	}
	ret = rblk_ublk_ctrl_stop(ctl, (uint32_t)id);
	if (ret) {
		say(why, whylen, ret, "STOP_DEV");
		goto out;
	}
	/* the attach process deletes the device once its queues have ended */
	end = now_s() + wait_s;
	while (!(ret = rblk_ublk_ctrl_get_info(ctl, (uint32_t)id, &info)) && now_s() < end)
		usleep(100 * 1000);
	if (ret == -ENODEV) {
		ret = 0;
	} else if (!ret) {
		ret = -ETIMEDOUT;
		snprintf(why, whylen, "the device is stopped but still not deleted after %.0f s (pid %d)",
			 wait_s, (int)owner_of(&info));
	} else {
		say(why, whylen, ret, "GET_DEV_INFO");
	}
out:
	rblk_ublk_ctrl_close(ctl);
	return ret;
}
