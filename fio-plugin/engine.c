/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/engine: the fio ioengine "rblk" (librblk_fio.so): NVMe over
 * Fabrics/RDMA from fio through rblk's initiator library, with no kernel host.
 *
 *   fio --ioengine=external:/path/librblk_fio.so --thread=1 \
 *       --filename='trtype=RDMA adrfam=IPv4 traddr=10.0.0.1 trsvcid=4420 subnqn=nqn.2024-01.io.example\:disk ns=1'
 *
 * This file owns the life cycle; engine_io.c the data path. fio calls, in order:
 *   setup (main thread, once per job, before any job runs): parse each file's
 *     transport ID, connect or share a controller, size the file from
 *     Identify Namespace;
 *   init (job thread or process): one I/O queue pair per distinct controller
 *     of the job's files — with thread=1 jobs are threads of one process, so
 *     the controllers made in setup serve them all;
 *   iomem_alloc: fio's I/O buffers from registered memory (zero-copy);
 *   open_file/close_file, then the data path, then iomem_free and cleanup.
 * With thread=1 (recommended) jobs share controllers. With processes (fio's
 * default) setup sizes the files from a helper child and each job process
 * connects its own controller in init (RDMA resources do not cross fork()).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rblk/common.h>

#include "common/fdio.h"
#include "fio-plugin/engine.h"

_Static_assert(FIO_IOOPS_VERSION >= 31, "built against fio >= 3.33's engine ABI (errdetails)");

#define WHY_LEN 512

/* ---- logging: the library's messages go through fio's log */

static void log_to_fio(enum rblk_log_level level, const char *msg, void *arg)
{
	if (level <= RBLK_LOG_WARN)
		log_err("rblk: %s\n", msg);
	else
		log_info("rblk: %s\n", msg);
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static char log_level_name[16] = "warn";

static void log_setup(void)
{
	enum rblk_log_level lvl = RBLK_LOG_WARN;

	if (rblk_log_level_parse(log_level_name, &lvl))
		log_err("rblk: rblk_log=%s: not err, warn, notice, info or debug; using warn\n",
			log_level_name);
	rblk_log_set_level(lvl);
	rblk_log_set_handler(log_to_fio, NULL);
}

/* Reports a setup error the way fio's own do: the message, then td's error. */
static int fail(struct thread_data *td, struct fio_file *f, int err, const char *what,
		const char *why)
{
	if (f)
		log_err("rblk: %s: %s\n", f->file_name, why);
	else
		log_err("rblk: %s\n", why);
	td_vmsg(td, err, why, what);
	return 1;
}

/* ---- files */

static void file_release(struct fio_file *f)
{
	struct rblk_fio_file *rf = FILE_ENG_DATA(f);

	if (!rf)
		return;
	rblk_fio_ctrl_put(rf->setup_rc);
	free(rf);
	FILE_SET_ENG_DATA(f, NULL);
}

/* Pass 1: every file's transport ID, before anything connects. */
static int file_parse(struct thread_data *td, struct fio_file *f, const struct rblk_trid *defaults)
{
	struct rblk_fio_file *rf;
	char why[WHY_LEN] = "";
	int ret;

	if (FILE_ENG_DATA(f))
		return 0;
	rf = calloc(1, sizeof(*rf));
	if (!rf)
		return fail(td, f, ENOMEM, "rblk setup", "out of memory");
	FILE_SET_ENG_DATA(f, rf);
	ret = rblk_fio_trid_parse(f->file_name, &rf->trid, why, sizeof(why));
	if (!ret)
		ret = rblk_fio_trid_complete(&rf->trid, defaults, why, sizeof(why));
	if (ret)
		return fail(td, f, EINVAL, "rblk filename", why);
	return 0;
}

/* What sizing a namespace found (also the message a probe process sends back). */
struct probe {
	int ret;
	uint32_t lba_shift;
	uint64_t size;
	char why[WHY_LEN];
};

/* Connects (or shares) a controller for @rf and sizes its namespace; keeps the reference. */
static void probe_here(struct rblk_fio_file *rf, const struct rblk_fio_conn_params *p,
		       struct probe *r)
{
	struct rblk_ns *ns;

	r->ret = rblk_fio_ctrl_get(&rf->trid, p, &rf->setup_rc, r->why, sizeof(r->why));
	if (r->ret)
		return;
	r->ret = rblk_fio_ctrl_ns(rf->setup_rc, rf->trid.nsid, &ns, r->why, sizeof(r->why));
	if (r->ret)
		return;
	r->lba_shift = (uint32_t)__builtin_ctz(rblk_ns_block_size(ns));
	r->size = rblk_ns_num_blocks(ns) << r->lba_shift;
}

/*
 * The same from a short-lived child process. With processes (thread=0), fio runs
 * setup in its main process and then forks the jobs; RDMA resources do not
 * survive fork(), and a main process that had used verbs would hand its children
 * a half-initialised librdmacm. So the main process never touches RDMA: a child
 * sizes the namespace and exits, and each job connects on its own in init.
 */
static void probe_forked(struct rblk_fio_file *rf, const struct rblk_fio_conn_params *p,
			 struct probe *r)
{
	int fds[2], status;
	ssize_t n = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		r->ret = -errno;
		snprintf(r->why, sizeof(r->why), "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		probe_here(rf, p, r);
		rblk_fio_ctrl_put(rf->setup_rc);
		if (write(fds[1], r, sizeof(*r)) != (ssize_t)sizeof(*r))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		n = rblk_read_all(fds[0], r, sizeof(*r));
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	if (pid < 0 || n != (ssize_t)sizeof(*r)) {
		r->ret = pid < 0 ? -errno : -EIO;
		snprintf(r->why, sizeof(r->why), "the process that sizes the namespace %s",
			 pid < 0 ? "could not be started" : "died");
	}
}

/* Pass 2: a controller for each file, and its size from Identify Namespace. */
static int file_connect(struct thread_data *td, struct fio_file *f,
			const struct rblk_fio_conn_params *p)
{
	struct rblk_fio_file *rf = FILE_ENG_DATA(f);
	struct probe r = { 0 };

	if (rf->size)
		return 0;
	if (td->o.use_thread)
		probe_here(rf, p, &r);
	else
		probe_forked(rf, p, &r);
	if (r.ret)
		return fail(td, f, -r.ret, "rblk connect", r.why);
	rf->lba_shift = r.lba_shift;
	rf->size = r.size;
	if (p->private_ctrl && rf->setup_rc) {
		/* The job connects its own controller in init: this one only sized the file. */
		rblk_fio_ctrl_put(rf->setup_rc);
		rf->setup_rc = NULL;
	}
	/* No local file behind the name: never lay one out or stat it as a file. */
	f->filetype = FIO_TYPE_BLOCK;
	f->real_file_size = rf->size;
	fio_file_set_size_known(f);
	return 0;
}

static int rblk_fio_setup(struct thread_data *td)
{
	char why[WHY_LEN] = "";
	struct rblk_fio_opts *o = td->eo;
	struct rblk_fio_conn_params p;
	struct rblk_trid defaults;
	struct fio_file *f;
	unsigned int i;
	int err = 0;

	if (o->log_level && strlen(o->log_level) < sizeof(log_level_name))
		strcpy(log_level_name, o->log_level);
	pthread_once(&log_once, log_setup);

	if (rblk_fio_opts_check(o, why, sizeof(why)))
		return fail(td, NULL, EINVAL, "rblk options", why);
	rblk_fio_opts_defaults(o, &defaults, &p);
	for_each_file(td, f, i)
		if ((err = file_parse(td, f, &defaults)))
			break;
	if (!err)
		for_each_file(td, f, i)
			if ((err = file_connect(td, f, &p)))
				break;
	if (err)
		for_each_file(td, f, i)
			file_release(f);
	return err;
}

static int rblk_fio_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct rblk_fio_file *rf = FILE_ENG_DATA(f);

	if (!rf)
		return fail(td, f, EINVAL, "rblk get_file_size", "the file was not set up");
	f->real_file_size = rf->size;
	fio_file_set_size_known(f);
	return 0;
}

/* ---- jobs */

static void td_free(struct rblk_fio_td *d)
{
	for (unsigned i = 0; i < d->nqp; i++)
		rblk_fio_ctrl_put_qpair(d->qps[i].rc, d->qps[i].qp);
	free(d->qps);
	free(d->pfds);
	free(d->events);
	free(d->staged);
	free(d);
}

/* The job's qpairs for @rf's controller, allocating them the first time. */
static int bind_file(struct thread_data *td, struct rblk_fio_td *d, struct fio_file *f,
		     const struct rblk_fio_conn_params *p, unsigned nqp)
{
	struct rblk_fio_file *rf = FILE_ENG_DATA(f);
	struct rblk_qpair *qps[RBLK_FIO_QPAIRS_MAX];
	struct rblk_fio_qp *q = NULL;
	struct rblk_fio_ctrl *rc;
	char why[WHY_LEN] = "";
	int ret;

	if (!rf)
		return fail(td, f, EINVAL, "rblk init", "the file was not set up");
	for (unsigned i = 0; i < d->nqp && !q; i += nqp)
		if (rblk_fio_trid_same_ctrl(&d->qps[i].trid, &rf->trid))
			q = &d->qps[i];
	if (!q) {
		ret = rblk_fio_ctrl_get_qpairs(&rf->trid, p, nqp, &rc, qps, why, sizeof(why));
		if (ret)
			return fail(td, f, -ret, "rblk qpair", why);
		q = &d->qps[d->nqp];
		for (unsigned i = 0; i < nqp; i++, d->nqp++) {
			d->qps[d->nqp] = (struct rblk_fio_qp){ .rc = rc, .qp = qps[i], .trid = rf->trid };
			/* getevents arms only before it sleeps (rblk_qpair_prepare_sleep) */
			rblk_qpair_set_lazy_arm(qps[i], true);
			d->pfds[d->nqp].fd = rblk_qpair_fd(qps[i]);
			d->pfds[d->nqp].events = POLLIN;
		}
		if (td->o.iodepth > nqp * rblk_qpair_depth(q->qp))
			log_info("rblk: %s: iodepth=%u is more than the %u entries of the job's I/O "
				 "queue%s: the rest waits (raise queue_size= or qpairs=)\n", td->o.name,
				 td->o.iodepth, nqp * rblk_qpair_depth(q->qp), nqp == 1 ? "" : "s");
	}
	ret = rblk_fio_ctrl_ns(q->rc, rf->trid.nsid, &rf->ns, why, sizeof(why));
	if (ret)
		return fail(td, f, -ret, "rblk namespace", why);
	rf->qp = q;
	rf->nqp = nqp;
	rf->next = 0;
	return 0;
}

static int rblk_fio_init(struct thread_data *td)
{
	struct rblk_fio_opts *o = td->eo;
	struct rblk_fio_conn_params p;
	struct rblk_trid defaults;
	struct rblk_fio_td *d;
	struct fio_file *f;
	unsigned int i, nqp;

	d = calloc(1, sizeof(*d));
	if (!d)
		return fail(td, NULL, ENOMEM, "rblk init", "out of memory");
	td->io_ops_data = d;
	d->cap = td->o.iodepth ? td->o.iodepth : 1;
	nqp = (td->o.nr_files ? td->o.nr_files : 1) * o->qpairs;
	d->qps = calloc(nqp, sizeof(*d->qps));
	d->pfds = calloc(nqp, sizeof(*d->pfds));
	d->events = calloc(d->cap, sizeof(*d->events));
	d->staged = calloc(d->cap, sizeof(*d->staged));
	if (!d->qps || !d->pfds || !d->events || !d->staged)
		return fail(td, NULL, ENOMEM, "rblk init", "out of memory");
	d->fua = o->fua;
	d->busy_poll = o->busy_poll;
	d->spin_us = o->spin_us;
	d->spin.idle_us = o->spin_us;

	rblk_fio_opts_defaults(o, &defaults, &p);
	if (!td->o.use_thread && !p.nr_io_queues)
		p.nr_io_queues = o->qpairs;	/* a process holds one job: its queues per target */
	for_each_file(td, f, i)
		if (bind_file(td, d, f, &p, o->qpairs))
			return 1;
	return 0;
}

static void rblk_fio_cleanup(struct thread_data *td)
{
	struct rblk_fio_td *d = td->io_ops_data;
	struct fio_file *f;
	unsigned int i;

	if (d)
		td_free(d);
	td->io_ops_data = NULL;
	for_each_file(td, f, i)
		file_release(f);
}

static int rblk_fio_open_file(struct thread_data *td, struct fio_file *f)
{
	struct rblk_fio_file *rf = FILE_ENG_DATA(f);
	char why[WHY_LEN];

	if (!rf || !rf->ns)
		return fail(td, f, EINVAL, "rblk open", "the file was not set up");
	if (f->file_offset + f->io_size > rf->size) {
		snprintf(why, sizeof(why), "offset %llu + size %llu is beyond the namespace's "
			 "%llu bytes", (unsigned long long)f->file_offset,
			 (unsigned long long)f->io_size, (unsigned long long)rf->size);
		return fail(td, f, EINVAL, "rblk open", why);
	}
	if (td_write(td) && rblk_ns_read_only(rf->ns))
		return fail(td, f, EROFS, "rblk open", "the namespace is write-protected");
	return 0;
}

static int rblk_fio_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

/* Nothing is cached on this side of the fabric. */
static int rblk_fio_invalidate(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

/* ---- buffers: registered with every controller the job uses */

/* Whether a qpair before @i belongs to qpair @i's controller (qpairs= gives several). */
static bool ctrl_seen(const struct rblk_fio_td *d, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (d->qps[j].rc == d->qps[i].rc)
			return true;
	return false;
}

/* Unregisters the buffers from the controllers of qpairs 1..@n-1 (qpair 0's allocated them). */
static void iomem_unregister(struct rblk_fio_td *d, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		if (!ctrl_seen(d, i))
			rblk_mem_unregister(rblk_fio_ctrl_handle(d->qps[i].rc), d->buf);
}

static int rblk_fio_iomem_alloc(struct thread_data *td, size_t total)
{
	struct rblk_fio_td *d = td->io_ops_data;
	unsigned i;
	int ret;

	if (!d || !d->nqp)
		return 1;
	d->buf = rblk_buf_alloc(rblk_fio_ctrl_handle(d->qps[0].rc), total);
	if (!d->buf) {
		log_err("rblk: %s: cannot allocate %zu bytes of registered memory for the I/O "
			"buffers (check ulimit -l)\n", td->o.name, total);
		return 1;
	}
	d->buf_len = total;
	for (i = 1; i < d->nqp; i++) {
		if (ctrl_seen(d, i))
			continue;
		ret = rblk_mem_register(rblk_fio_ctrl_handle(d->qps[i].rc), d->buf, total);
		if (ret) {
			log_err("rblk: %s: registering the I/O buffers with a second controller: "
				"%s\n", td->o.name, strerror(-ret));
			iomem_unregister(d, i);
			rblk_buf_free(rblk_fio_ctrl_handle(d->qps[0].rc), d->buf);
			d->buf = NULL;
			return 1;
		}
	}
	td->orig_buffer = d->buf;
	return 0;
}

static void rblk_fio_iomem_free(struct thread_data *td)
{
	struct rblk_fio_td *d = td->io_ops_data;

	if (!d || !d->buf)
		return;
	iomem_unregister(d, d->nqp);
	rblk_buf_free(rblk_fio_ctrl_handle(d->qps[0].rc), d->buf);
	d->buf = NULL;
	td->orig_buffer = NULL;
}

static int rblk_fio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct rblk_fio_req *r = calloc(1, sizeof(*r));

	if (!r)
		return 1;
	r->io_u = io_u;
	r->d = td->io_ops_data;
	io_u->engine_data = r;
	return 0;
}

static void rblk_fio_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

/*
 * The symbol fio looks up after dlopen(). FIO_DISKLESSIO: the filename is not a
 * local path, so fio must not stat, create, fadvise or invalidate it.
 * FIO_NO_OFFLOAD: a qpair belongs to the job's thread (io_submit_mode=offload
 * would queue from another one).
 */
struct ioengine_ops ioengine __attribute__((visibility("default"))) = {
	.name = "rblk",
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_RAWIO | FIO_NOEXTEND | FIO_NODISKUTIL | FIO_MEMALIGN | FIO_DISKLESSIO |
		 FIO_NO_OFFLOAD | FIO_ASYNCIO_SETS_ISSUE_TIME,
	.setup = rblk_fio_setup,
	.init = rblk_fio_init,
	.queue = rblk_fio_queue,
	.commit = rblk_fio_commit,
	.getevents = rblk_fio_getevents,
	.event = rblk_fio_event,
	.errdetails = rblk_fio_errdetails,
	.cleanup = rblk_fio_cleanup,
	.open_file = rblk_fio_open_file,
	.close_file = rblk_fio_close_file,
	.invalidate = rblk_fio_invalidate,
	.get_file_size = rblk_fio_get_file_size,
	.iomem_alloc = rblk_fio_iomem_alloc,
	.iomem_free = rblk_fio_iomem_free,
	.io_u_init = rblk_fio_io_u_init,
	.io_u_free = rblk_fio_io_u_free,
	.option_struct_size = sizeof(struct rblk_fio_opts),
	.options = rblk_fio_options,
};
