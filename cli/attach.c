/* SPDX-License-Identifier: MIT */
/*
 * `rblk attach` and `rblk detach`: a remote namespace as /dev/ublkbN (the
 * kernel's ublk driver, cli/ublk/) or /dev/nbdN (NBD, cli/nbd/).
 *
 * The driver: --ublk or --nbd, else ublk when /dev/ublk-control exists or
 * `modprobe ublk_drv` makes it exist. With ublk, attach makes one ublk
 * queue per --connections, each served by a thread with its own queue pair
 * and io_uring (cli/ublk/dev.c); SIGINT/SIGTERM send STOP_DEV, and so does
 * `rblk detach /dev/ublkbN` from elsewhere; the threads end when the kernel
 * aborts their tags, and the device is deleted (DEL_DEV) on the way out.
 *
 * With NBD, attach connects the controller, makes one socket pair per --connections,
 * starts one serving thread per pair (each with its own queue pair, see
 * cli/nbd/rblk.c), and hands the other ends to the kernel with NBD_CMD_CONNECT
 * over netlink (cli/nbd/netlink.c). When the namespace is resized on the
 * target, /dev/nbdN follows (NBD_CMD_RECONFIGURE; a ublk device keeps its
 * size). It then waits: SIGINT/SIGTERM disconnect the
 * device (NBD_CMD_DISCONNECT; the kernel sends NBD_CMD_DISC on every socket
 * and the threads finish what is in flight), and so does `rblk detach` from
 * elsewhere. --daemon forks before anything touches RDMA (registered memory
 * and fork do not mix) and the parent reports the device and exits.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/output.h"
#include "cli/nbd/netlink.h"
#include "cli/nbd/rblk.h"
#include "cli/ublk/dev.h"
#include "protocol/nvme.h"

#define MAX_CONNECTIONS 64
/* How often an NBD attach looks at the namespace's size (one wakeup a second, idle or not). */
#define SIZE_CHECK_MS 1000

struct conn_thread {
	pthread_t tid;
	struct rblk_nbd_serve_opts o;
	struct rblk_nbd_conn_stats stats;
	int ret;
	int done_fd;
	bool started;
};

enum attach_driver {
	DRIVER_AUTO = 0,	/* ublk if the kernel has it, else NBD */
	DRIVER_NBD,
	DRIVER_UBLK,
};

struct attach_args {
	long connections, queue_depth, index;
	double timeout, dead_conn_timeout;
	bool read_only, daemon;
	enum attach_driver driver;
};

static const char *driver_str(enum attach_driver d)
{
	return d == DRIVER_UBLK ? "ublk" : d == DRIVER_NBD ? "nbd" : "auto";
}

static void attach_usage(FILE *f)
{
	fprintf(f, "Usage: rblk attach -t rdma -a ADDR [-s PORT] [-a ADDR [-s PORT]...] -n SUBNQN [-N NSID]\n"
		   "                   [--ublk|--nbd]\n"
		   "                   [--connections=N] [--queue-depth=N] [--index=N] [--read-only]\n"
		   "                   [--timeout=SEC] [--daemon] [-o json]\n\n"
		   "Makes the namespace a local block device (needs root): /dev/ublkbN through the\n"
		   "kernel's ublk driver (Linux 6.0+, CONFIG_BLK_DEV_UBLK) when the kernel has it,\n"
		   "else /dev/nbdN through the NBD driver configured over netlink. Prints the\n"
		   "device, then serves it until SIGINT/SIGTERM or `rblk detach DEVICE`, which\n"
		   "detach cleanly. While the library reconnects to a lost target, I/O waits;\n"
		   "after --ctrl-loss-tmo it fails with EIO. If the attach process is killed, a\n"
		   "ublk device goes away at once and its I/O fails (nothing hangs).\n\n"
		   "Multipath: each -a ADDR [-s PORT] is one path to the subsystem (up to 8). I/O\n"
		   "goes to the first live path whose ANA group is optimized (else non-optimized);\n"
		   "when a path dies or turns inaccessible, its I/O moves to another path with no\n"
		   "error, and comes back when the path does. With no usable path I/O waits up to\n"
		   "--ctrl-loss-tmo. The paths and their ANA states are printed at attach and detach.\n\n");
	fputs(rblk_cli_conn_help, f);
	fprintf(f, "Device:\n"
		   "  -N, --nsid=NSID               namespace (default: the only one)\n"
		   "      --ublk                    use ublk (/dev/ublkbN); fail if the kernel lacks it\n"
		   "      --nbd                     use NBD (/dev/nbdN)\n"
		   "      --connections=N           ublk queues, or NBD sockets; each has its own thread and\n"
		   "                                I/O queue (default 1; ublk: at most one per CPU)\n"
		   "      --queue-depth=N           requests in flight per queue/connection (default 32)\n"
		   "      --index=N                 use /dev/ublkbN or /dev/nbdN (default: a free one)\n"
		   "      --read-only               export read-only (always so for a write-protected namespace)\n"
		   "      --timeout=SEC             NBD: kernel request timeout (default: none, requests wait)\n"
		   "      --dead-conn-timeout=SEC   NBD: how long the kernel waits for a dead connection\n"
		   "      --daemon                  detach from the terminal once the device is up\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n"
		   "  rblk attach -t rdma -a 192.0.2.10 -n nqn.2024-01.io.example:disk0 -N 1 --daemon\n"
		   "  rblk attach -t rdma -a 192.0.2.10 -s 4420 -a 192.0.2.11 -s 4420 -n NQN --daemon\n"
		   "  rblk attach -a 192.0.2.10 -n NQN --connections 4 -o json --daemon | jq -r .device\n"
		   "  modprobe nbd && rblk attach -a 192.0.2.10 -n NQN --nbd --daemon\n"
		   "  rblk detach /dev/ublkb0\n");
}

static void detach_usage(FILE *f)
{
	fprintf(f, "Usage: rblk detach /dev/ublkbN|/dev/nbdN [-o json]\n\n"
		   "Stops a ublk device (STOP_DEV on /dev/ublk-control) or disconnects an NBD device\n"
		   "(NBD_CMD_DISCONNECT over netlink); the `rblk attach` serving it finishes the\n"
		   "requests in flight and exits. Waits until the device is gone (10 s at most).\n"
		   "A ublk device whose `rblk attach` was killed is deleted here.\n\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n  rblk detach /dev/ublkb0\n  rblk detach ublkb1\n  rblk detach /dev/nbd0\n");
}

static void *conn_main(void *arg)
{
	struct conn_thread *t = arg;
	uint64_t one = 1;

	t->ret = rblk_nbd_serve(&t->o, &t->stats);
	if (write(t->done_fd, &one, sizeof(one)) < 0) {
		/* the main thread will still join us */
	}
	return NULL;
}

/* Bytes written to @fd in --daemon mode tell the waiting parent how it went: "0 /dev/nbd3" or "CODE". */
static void tell_parent(int fd, int code, const char *dev)
{
	char msg[64];
	int n;

	if (fd < 0)
		return;
	n = snprintf(msg, sizeof(msg), "%d %s\n", code, dev ? dev : "-");
	if (write(fd, msg, (size_t)n) < 0) {
		/* the parent is gone; nothing to tell */
	}
	close(fd);
}

/* --daemon: fork now; the parent waits for the child's report and exits with it. */
static int daemonize(int *report_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		char buf[64] = "";
		ssize_t n;
		int code = CLI_EXIT_FAILURE;

		close(p[1]);
		n = read(p[0], buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			code = atoi(buf);
		}
		_exit(code);
	}
	close(p[0]);
	setsid();
	*report_fd = p[1];
	return 0;
}

static void print_attached(enum cli_fmt fmt, const char *dev, enum attach_driver drv, int index,
			   const struct rblk_connect_opts *o, uint32_t nsid, uint64_t size, uint32_t lbs,
			   unsigned nconn, bool ro)
{
	const char *unit = drv == DRIVER_UBLK ? "queue" : "connection";

	if (fmt == CLI_FMT_JSON) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "device", json_object_new_string(dev));
		json_object_object_add(j, "driver", json_object_new_string(driver_str(drv)));
		json_object_object_add(j, "index", json_object_new_int(index));
		json_object_object_add(j, "subnqn", json_object_new_string(o->subnqn));
		json_object_object_add(j, "traddr", json_object_new_string(o->traddr));
		json_object_object_add(j, "nsid", json_object_new_int64(nsid));
		json_object_object_add(j, "size", json_object_new_uint64(size));
		json_object_object_add(j, "block_size", json_object_new_int64(lbs));
		json_object_object_add(j, "connections", json_object_new_int((int)nconn));
		json_object_object_add(j, "read_only", json_object_new_boolean(ro));
		rblk_cli_json_print(rblk_cli_out, j);
		json_object_put(j);
	} else {
		char sz[32];

		fprintf(rblk_cli_out, "%s\n", dev);
		fprintf(rblk_cli_errf, "attached %s namespace %u (%s, %u-byte blocks%s) as %s (%s) with %u %s%s\n",
			o->subnqn, nsid, rblk_cli_fmt_iec(size, sz, sizeof(sz)), lbs, ro ? ", read-only" : "",
			dev, driver_str(drv), nconn, unit, nconn > 1 ? "s" : "");
	}
	fflush(rblk_cli_out);
}

static int parse_attach(int argc, char **argv, struct attach_args *a, struct cli_conn *c, enum cli_fmt *fmt)
{
	static const struct option longopts[] = {
		CLI_CONN_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ "nsid", required_argument, NULL, 'N' },
		{ "namespace-id", required_argument, NULL, 'N' },
		{ "connections", required_argument, NULL, 1 },
		{ "queue-depth", required_argument, NULL, 2 },
		{ "index", required_argument, NULL, 3 },
		{ "read-only", no_argument, NULL, 4 },
		{ "timeout", required_argument, NULL, 5 },
		{ "dead-conn-timeout", required_argument, NULL, 6 },
		{ "daemon", no_argument, NULL, 7 },
		{ "ublk", no_argument, NULL, 8 },
		{ "nbd", no_argument, NULL, 9 },
		{ NULL, 0, NULL, 0 },
	};
	char why[96];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'h':
			attach_usage(rblk_cli_out);
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
			if (rblk_cli_parse_long(optarg, 1, MAX_CONNECTIONS, &a->connections))
				return rblk_cli_usage_err("invalid --connections '%s' (1..%d)", optarg, MAX_CONNECTIONS);
			break;
		case 2:
			if (rblk_cli_parse_long(optarg, 1, 1024, &a->queue_depth))
				return rblk_cli_usage_err("invalid --queue-depth '%s' (1..1024)", optarg);
			break;
		case 3:
			if (rblk_cli_parse_long(optarg, 0, 1000000, &a->index))
				return rblk_cli_usage_err("invalid --index '%s'", optarg);
			break;
		case 4:
			a->read_only = true;
			break;
		case 5:
		case 6:
			if (rblk_cli_parse_seconds(optarg, opt == 5 ? &a->timeout : &a->dead_conn_timeout))
				return rblk_cli_usage_err("invalid --%s '%s' (seconds)",
							  opt == 5 ? "timeout" : "dead-conn-timeout", optarg);
			break;
		case 7:
			a->daemon = true;
			break;
		case 8:
		case 9:
			if (a->driver != DRIVER_AUTO && a->driver != (opt == 8 ? DRIVER_UBLK : DRIVER_NBD))
				return rblk_cli_usage_err("--ublk and --nbd exclude each other");
			a->driver = opt == 8 ? DRIVER_UBLK : DRIVER_NBD;
			break;
		default:
			ret = rblk_cli_conn_opt(c, opt, optarg);
			if (!ret)
				ret = rblk_cli_common_opt(opt, optarg, fmt);
			if (ret != 1)
				return ret;
		}
	}
	if (optind < argc)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
	return 0;
}

enum wait_end {
	END_SIGNAL,	/* a signal asked to stop */
	END_THREAD,	/* a serving thread ended */
	END_TIMEOUT,	/* neither within the timeout */
};

/* Waits for a signal or for a serving thread to end, at most @timeout_ms (-1: no limit). */
static enum wait_end wait_for_end(int sfd, int done_fd, int timeout_ms)
{
	struct pollfd p[2] = { { .fd = sfd, .events = POLLIN }, { .fd = done_fd, .events = POLLIN } };

	for (;;) {
		int n = poll(p, 2, timeout_ms);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return END_SIGNAL;
		}
		if (!n)
			return END_TIMEOUT;
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				fprintf(rblk_cli_errf, "%s: detaching\n", strsignal((int)si.ssi_signo));
			return END_SIGNAL;
		}
		if (p[1].revents & POLLIN)
			return END_THREAD;
	}
}

/* One `rblk attach` from parsing to detach: what each step below sets up or reads. */
struct attach {
	struct attach_args a;
	struct cli_conn c;
	struct rblk_connect_opts opts;	/* the first path's */
	struct rblk_connect_opts popts[RBLK_MPATH_MAX_PATHS];
	unsigned npaths;
	struct rblk_mpath *mpath;	/* several paths: the head; ctrl is one of its paths */
	enum cli_fmt fmt;
	int report;			/* --daemon: the pipe to the waiting parent, else -1 */
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	uint32_t nsid, lbs;
	uint64_t size;			/* bytes, as the kernel's device was last told */
	_Atomic uint64_t live_size;	/* bytes the serving threads accept (NBD) */
	bool ro;
	/* serving */
	sigset_t oldmask;
	int sfd, stop_fd, done_fd;
	uint16_t tflags;		/* NBD transmission flags of the export */
	unsigned nconn;			/* serving threads started */
	struct conn_thread threads[MAX_CONNECTIONS];
	int ours[MAX_CONNECTIONS], theirs[MAX_CONNECTIONS];
	int index;			/* /dev/nbdN or /dev/ublkbN once the kernel has it, else -1 */
	char dev[32];
	char backend[512];		/* NBD: the backend identifier given at connect */
	struct rblk_ublk_dev *ublk;	/* the ublk device, started */
	struct rblk_ublk_queue_stats qstats[MAX_CONNECTIONS];
};

static void attach_init(struct attach *s)
{
	memset(s, 0, sizeof(*s));
	s->a = (struct attach_args){ .connections = 1, .queue_depth = 32, .index = -1 };
	s->fmt = CLI_FMT_NORMAL;
	s->report = s->sfd = s->stop_fd = s->done_fd = s->index = -1;
	for (int i = 0; i < MAX_CONNECTIONS; i++)
		s->ours[i] = s->theirs[i] = -1;
	rblk_cli_conn_init(&s->c);
}

/*
 * The namespace's geometry, and whether NBD can export it; clamps
 * --connections to the controller's I/O queues. 0 or an exit code.
 */
static int check_namespace(struct attach *s)
{
	uint32_t nq;

	s->lbs = rblk_ns_block_size(s->ns);
	s->size = rblk_ns_num_blocks(s->ns) * s->lbs;
	s->ro = s->a.read_only || rblk_ns_read_only(s->ns);
	if (s->lbs < 512 || s->lbs > 4096 || (s->lbs & (s->lbs - 1))) {
		rblk_cli_err("the namespace's block size %u cannot be a %s block size (512..4096)", s->lbs,
			     s->a.driver == DRIVER_UBLK ? "ublk" : "NBD");
		return CLI_EXIT_FAILURE;
	}
	nq = rblk_ctrl_num_io_queues(s->ctrl);
	if (nq && (unsigned long)s->a.connections > nq) {
		/* each connection owns one I/O queue */
		s->a.connections = nq;
		rblk_cli_err("note: the controller gave %ld I/O queues: using %ld connections (ask for "
			     "more with -i)", s->a.connections, s->a.connections);
	}
	return 0;
}

/*
 * Blocks SIGINT/SIGTERM/SIGHUP (into a signalfd, in every thread) and makes
 * the stop and done eventfds. 0 or an exit code; signals_teardown() undoes
 * either outcome.
 */
static int signals_setup(struct attach *s)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, &s->oldmask);
	s->sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	s->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->sfd < 0 || s->stop_fd < 0 || s->done_fd < 0)
		return rblk_cli_report(CLI_OP_OTHER, -errno, 0, "cannot set up signal handling");
	return 0;
}

static void signals_teardown(struct attach *s)
{
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	if (s->done_fd >= 0)
		close(s->done_fd);
	pthread_sigmask(SIG_SETMASK, &s->oldmask, NULL);
}

/*
 * One socket pair and one serving thread per connection; the kernel's ends
 * wait in s->theirs. 0 or an exit code; stop_serving() undoes either outcome.
 */
static int start_threads(struct attach *s)
{
	const struct nvme_id_ctrl *id = rblk_ctrl_identify(s->ctrl);
	uint16_t oncs = rblk_le16(id->oncs);
	struct rblk_nbd_export exp = {
		.size = s->size,
		.block_size = s->lbs,
		.tflags = rblk_nbd_tflags(s->ro, oncs & NVME_CTRL_ONCS_DSM, oncs & NVME_CTRL_ONCS_WRITE_ZEROES,
					  s->a.connections > 1),
		.live_size = &s->live_size,
	};
	int ret;

	atomic_store(&s->live_size, s->size);
	for (s->nconn = 0; s->nconn < (unsigned)s->a.connections; s->nconn++) {
		struct conn_thread *t = &s->threads[s->nconn];
		int sp[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
			return rblk_cli_report(CLI_OP_OTHER, -errno, 0, "socketpair");
		s->ours[s->nconn] = sp[0];
		s->theirs[s->nconn] = sp[1];
		t->o = (struct rblk_nbd_serve_opts){ .fd = sp[0], .exp = exp, .ctrl = s->ctrl, .ns = s->ns,
						     .mpath = s->mpath, .nr_slots = (unsigned)s->a.queue_depth, .stop_fd = s->stop_fd };
		t->done_fd = s->done_fd;
		ret = -pthread_create(&t->tid, NULL, conn_main, t);
		if (ret)
			return rblk_cli_report(CLI_OP_OTHER, ret, 0, "cannot start a serving thread");
		t->started = true;
	}
	s->tflags = exp.tflags;
	return 0;
}

/* Hands the sockets to the kernel (NBD_CMD_CONNECT): sets s->index and s->dev. 0 or an exit code. */
static int nbd_connect(struct attach *s)
{
	struct rblk_nbd_nl_connect nc = { 0 };
	char err[256];
	int ret;

	snprintf(s->backend, sizeof(s->backend), "rblk:rdma:%s:%s:%s:ns%u", s->opts.traddr,
		 s->opts.trsvcid ? s->opts.trsvcid : "4420", s->opts.subnqn, s->nsid);
	nc.server_flags = s->tflags;
	nc.index = (int)s->a.index;
	nc.size_bytes = s->size;
	nc.block_size = s->lbs;
	nc.timeout = (uint64_t)s->a.timeout;
	nc.dead_conn_timeout = (uint64_t)s->a.dead_conn_timeout;
	nc.fds = s->theirs;
	nc.nfds = s->nconn;
	nc.backend_id = s->backend;
	ret = rblk_nbd_nl_connect(&nc, &s->index, err, sizeof(err));
	for (unsigned i = 0; i < s->nconn; i++) {
		close(s->theirs[i]);	/* the kernel holds its own reference now */
		s->theirs[i] = -1;
	}
	if (ret) {
		rblk_cli_err("cannot attach: %s%s", err,
			     ret == -EPERM ? " (attaching needs root: CAP_SYS_ADMIN)" :
			     ret == -EBUSY ? " (that device is in use)" : "");
		return CLI_EXIT_FAILURE;
	}
	snprintf(s->dev, sizeof(s->dev), "/dev/nbd%d", s->index);
	return 0;
}

/* One line per path: where, its controller state, its ANA group and state, the I/O it carried. */
static void print_paths(struct attach *s)
{
	for (unsigned i = 0; i < rblk_mpath_num_paths(s->mpath); i++) {
		struct rblk_mpath_path_info pi;

		if (rblk_mpath_path_info(s->mpath, i, &pi))
			continue;
		if (!pi.connected) {
			fprintf(rblk_cli_errf, "path %u: %s:%s %s\n", i, pi.traddr, pi.trsvcid,
				pi.refused ? "refused (another namespace)" : "not connected (retrying)");
			continue;
		}
		fprintf(rblk_cli_errf, "path %u: %s:%s controller %u %s, ", i, pi.traddr, pi.trsvcid,
			pi.cntlid, rblk_ctrl_state_str(pi.state));
		if (pi.ana_reported)
			fprintf(rblk_cli_errf, "ANA group %u %s", pi.anagrpid, rblk_ana_state_str(pi.ana));
		else
			fprintf(rblk_cli_errf, "no ANA (optimized)");
		fprintf(rblk_cli_errf, ", %" PRIu64 " I/Os, %" PRIu64 " failed over\n", pi.ios, pi.failovers);
	}
}

/*
 * Several -a: one multipath head over them; s->ctrl becomes the first
 * connected path (Identify data, buffers). 0 or an exit code.
 */
static int mpath_connect(struct attach *s)
{
	int ret = rblk_cli_mpath_connect(s->popts, s->npaths, &s->c, &s->mpath, &s->ns, &s->ctrl);

	if (!ret)
		s->nsid = rblk_ns_id(s->ns);
	return ret;
}

/* Prints the device; with --daemon, releases the waiting parent and drops stdin/stdout. */
static void announce(struct attach *s)
{
	int null;

	if (s->mpath)
		print_paths(s);
	if (s->report < 0) {
		print_attached(s->fmt, s->dev, s->a.driver, s->index, &s->opts, s->nsid, s->size, s->lbs, s->nconn,
			       s->ro);
		return;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	/* the parent prints; the daemon keeps only stderr for its logs */
	print_attached(s->fmt, s->dev, s->a.driver, s->index, &s->opts, s->nsid, s->size, s->lbs, s->nconn,
		       s->ro);
	tell_parent(s->report, CLI_EXIT_OK, s->dev);
	s->report = -1;
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

/*
 * The namespace's size as the library knows it now (the controller reads it
 * again when the target reports a namespace change; a multipath head follows
 * its paths): /dev/nbdN follows. Growing, the serving threads accept the new
 * blocks before the kernel can ask for them; shrinking, they refuse the lost
 * ones at once (the target would fail them anyway).
 */
static void follow_size(struct attach *s)
{
	uint64_t now = rblk_ns_num_blocks(s->ns) * s->lbs, was = s->size;
	char err[256];

	if (!now || now == was)
		return;
	atomic_store(&s->live_size, now);
	s->size = now;	/* tried once: a failure is reported, not retried every tick */
	if (rblk_nbd_nl_resize(s->index, now, s->lbs, s->backend, err, sizeof(err)))
		rblk_cli_err("%s: the namespace is now %" PRIu64 " bytes (was %" PRIu64 "), but resizing the "
			     "device failed: %s", s->dev, now, was, err);
	else
		fprintf(rblk_cli_errf, "%s: resized with the namespace: %" PRIu64 " -> %" PRIu64 " bytes\n",
			s->dev, was, now);
}

/*
 * Serves until a signal (then disconnects the device) or until a serving
 * thread ends, looking at the namespace's size once a second meanwhile.
 */
static void serve_until_end(struct attach *s)
{
	enum wait_end end;
	char err[256];

	while ((end = wait_for_end(s->sfd, s->done_fd, SIZE_CHECK_MS)) == END_TIMEOUT)
		follow_size(s);
	if (end == END_THREAD)
		return;
	/* ours to end: the kernel sends NBD_CMD_DISC on each socket and shuts them */
	if (rblk_nbd_nl_disconnect(s->index, err, sizeof(err))) {
		rblk_cli_err("NBD disconnect of %s failed: %s; closing the sockets", s->dev, err);
		for (unsigned i = 0; i < s->nconn; i++)
			shutdown(s->ours[i], SHUT_RDWR);
	}
}

/*
 * Ends the serving threads (at once when @ret says a step failed), reports
 * each connection's counters and closes the sockets. Returns @ret, or
 * CLI_EXIT_FAILURE when it was 0 and a thread ended with an error.
 */
static int stop_serving(struct attach *s, int ret)
{
	if (ret) {
		uint64_t one = 1;

		for (unsigned i = 0; i < s->nconn; i++)
			if (s->ours[i] >= 0)
				shutdown(s->ours[i], SHUT_RDWR);
		if (write(s->stop_fd, &one, sizeof(one)) < 0) {
			/* the threads also end when their socket does */
		}
	}
	for (unsigned i = 0; i < MAX_CONNECTIONS; i++) {
		struct conn_thread *t = &s->threads[i];

		if (!t->started)
			continue;
		pthread_join(t->tid, NULL);
		if (t->ret && !ret) {
			rblk_cli_err("connection %u ended with an error: %s", i, strerror(-t->ret));
			ret = CLI_EXIT_FAILURE;
		}
		if (s->index >= 0)
			fprintf(rblk_cli_errf, "connection %u: %" PRIu64 " requests, %" PRIu64 " bytes read, %"
				PRIu64 " written, %" PRIu64 " errors\n", i,
				t->stats.requests[RBLK_NBD_CMD_READ] + t->stats.requests[RBLK_NBD_CMD_WRITE] +
					t->stats.requests[RBLK_NBD_CMD_FLUSH] + t->stats.requests[RBLK_NBD_CMD_TRIM] +
					t->stats.requests[RBLK_NBD_CMD_WRITE_ZEROES],
				t->stats.bytes_read, t->stats.bytes_written, t->stats.errors);
	}
	for (unsigned i = 0; i < MAX_CONNECTIONS; i++) {
		if (s->ours[i] >= 0)
			close(s->ours[i]);
		if (s->theirs[i] >= 0)
			close(s->theirs[i]);
	}
	if (s->index >= 0)
		fprintf(rblk_cli_errf, "detached %s\n", s->dev);
	return ret;
}

/*
 * --ublk / --nbd / neither: settles s->a.driver before anything else
 * happens (modprobe may run). 0 or an exit code.
 */
static int choose_driver(struct attach_args *a)
{
	if (a->driver == DRIVER_NBD)
		return 0;
	if (rblk_ublk_available()) {
		a->driver = DRIVER_UBLK;
		if (a->timeout || a->dead_conn_timeout)
			rblk_cli_err("note: --timeout and --dead-conn-timeout are NBD's; ublk requests wait");
		return 0;
	}
	if (a->driver == DRIVER_UBLK) {
		rblk_cli_err("ublk is not available on this kernel (needs CONFIG_BLK_DEV_UBLK); use --nbd");
		return CLI_EXIT_FAILURE;
	}
	a->driver = DRIVER_NBD;
	return 0;
}

/* ublk: the device added, its queues served, started; sets s->index, s->dev, s->nconn. 0 or an exit code. */
static int ublk_start(struct attach *s)
{
	struct rblk_ublk_dev_opts o = {
		.ctrl = s->ctrl,
		.ns = s->ns,
		.mpath = s->mpath,
		.index = (int)s->a.index,
		.nr_queues = (unsigned)s->a.connections,
		.depth = (unsigned)s->a.queue_depth,
		.read_only = s->ro,
		.done_fd = s->done_fd,
	};
	char why[256];
	int ret;

	ret = rblk_ublk_dev_start(&o, &s->ublk, why, sizeof(why));
	if (ret) {
		rblk_cli_err("cannot attach: %s%s", why,
			     ret == -EPERM || ret == -EACCES ? " (attaching needs root: CAP_SYS_ADMIN)" :
			     ret == -EEXIST ? " (that device index is in use)" : "");
		return CLI_EXIT_FAILURE;
	}
	s->index = rblk_ublk_dev_id(s->ublk);
	s->nconn = rblk_ublk_dev_nr_queues(s->ublk);
	if (s->nconn < (unsigned)s->a.connections)
		rblk_cli_err("note: the kernel made %u queues of the %ld asked (one per CPU at most)", s->nconn,
			     s->a.connections);
	snprintf(s->dev, sizeof(s->dev), "/dev/ublkb%d", s->index);
	return 0;
}

/*
 * ublk: serves until a signal or until a queue thread ends (`rblk detach`
 * stopped the device, or an error); then STOP_DEV, which waits for the
 * requests in flight and is a no-op on a device already stopped.
 */
static void ublk_serve_until_end(struct attach *s)
{
	int ret;

	/* ublk on the kernels we run cannot change a started device's size (UPDATE_SIZE is newer) */
	wait_for_end(s->sfd, s->done_fd, -1);
	ret = rblk_ublk_dev_stop(s->ublk);
	if (ret && ret != -ENODEV)
		rblk_cli_err("ublk STOP_DEV of %s failed: %s", s->dev, strerror(-ret));
}

/* ublk: joins the queue threads, deletes the device, reports each queue. Returns @ret or an exit code. */
static int ublk_stop_serving(struct attach *s, int ret)
{
	int tret;

	if (!s->ublk)
		return ret;
	tret = rblk_ublk_dev_destroy(s->ublk, s->qstats);
	s->ublk = NULL;
	if (tret && !ret) {
		rblk_cli_err("a queue ended with an error: %s", strerror(-tret));
		ret = CLI_EXIT_FAILURE;
	}
	for (unsigned i = 0; i < s->nconn; i++) {
		const struct rblk_ublk_queue_stats *q = &s->qstats[i];
		uint64_t n = 0;

		for (unsigned op = 0; op < sizeof(q->requests) / sizeof(q->requests[0]); op++)
			n += q->requests[op];
		fprintf(rblk_cli_errf, "queue %u: %" PRIu64 " requests, %" PRIu64 " bytes read, %" PRIu64
			" written, %" PRIu64 " errors\n", i, n, q->bytes_read, q->bytes_written, q->errors);
	}
	fprintf(rblk_cli_errf, "detached %s\n", s->dev);
	return ret;
}

int rblk_cli_attach(int argc, char **argv)
{
	struct attach s;
	int ret;

	attach_init(&s);
	ret = parse_attach(argc, argv, &s.a, &s.c, &s.fmt);
	if (ret) {
		ret = ret < 0 ? CLI_EXIT_OK : ret;
		goto out;
	}
	ret = rblk_cli_conn_finish_paths(&s.c, s.popts, &s.npaths);
	s.opts = s.popts[0];
	if (!ret)
		ret = choose_driver(&s.a);
	if (ret)
		goto out;
	if (s.a.daemon) {
		ret = daemonize(&s.report);
		if (ret) {
			ret = rblk_cli_report(CLI_OP_OTHER, ret, 0, "cannot fork");
			goto out;
		}
	}
	if (s.npaths > 1) {
		ret = mpath_connect(&s);
		if (ret)
			goto out;
	} else {
		ret = rblk_cli_connect(&s.opts, &s.ctrl);
		if (ret)
			goto out;
		ret = rblk_cli_pick_nsid(s.ctrl, &s.c, &s.nsid);
		if (!ret)
			ret = rblk_cli_open_ns(s.ctrl, s.nsid, &s.ns);
		if (ret)
			goto out_disconnect;
	}
	ret = check_namespace(&s);
	if (ret)
		goto out_ns;
	ret = signals_setup(&s);
	if (ret)
		goto out_signals;

	if (s.a.driver == DRIVER_UBLK) {
		ret = ublk_start(&s);
		if (!ret) {
			announce(&s);
			ublk_serve_until_end(&s);
		}
		ret = ublk_stop_serving(&s, ret);
		goto out_signals;
	}
	ret = start_threads(&s);
	if (!ret)
		ret = nbd_connect(&s);
	if (!ret) {
		announce(&s);
		serve_until_end(&s);
	}
	ret = stop_serving(&s, ret);
out_signals:
	signals_teardown(&s);
out_ns:
	if (s.mpath)
		print_paths(&s);
	rblk_ns_close(s.ns);
out_disconnect:
	if (s.mpath)
		rblk_mpath_disconnect(s.mpath);
	else
		rblk_disconnect(s.ctrl);
out:
	tell_parent(s.report, ret ? ret : CLI_EXIT_FAILURE, NULL);
	rblk_cli_conn_fini(&s.c);
	return ret;
}

/* /sys/block/nbdN/pid exists while the device is connected. */
static bool nbd_connected(int index)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/nbd%d/pid", index);
	return !stat(path, &st);
}

static int detach_ublk(int index, enum cli_fmt fmt)
{
	char why[256] = "";
	int ret = rblk_ublk_detach(index, 10, why, sizeof(why));

	if (ret == -ENODEV) {
		rblk_cli_err("/dev/ublkb%d does not exist", index);
		return CLI_EXIT_NOT_FOUND;
	}
	if (ret) {
		rblk_cli_err("cannot detach /dev/ublkb%d: %s%s", index, why,
			     ret == -EPERM || ret == -EACCES ? " (needs root: CAP_SYS_ADMIN)" : "");
		return CLI_EXIT_FAILURE;
	}
	if (fmt == CLI_FMT_JSON)
		fprintf(rblk_cli_out, "{\n  \"device\": \"/dev/ublkb%d\",\n  \"driver\": \"ublk\",\n"
				      "  \"detached\": true\n}\n", index);
	else
		fprintf(rblk_cli_errf, "detached /dev/ublkb%d\n", index);
	return CLI_EXIT_OK;
}

int rblk_cli_detach(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	char path[64], err[256];
	struct stat st;
	int opt, ret, index;

	while ((opt = getopt_long(argc, argv, ":" CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == 'h') {
			detach_usage(rblk_cli_out);
			return CLI_EXIT_OK;
		}
		if (opt == '?' || opt == ':')
			return rblk_cli_bad_option(opt, argc, argv);
		ret = rblk_cli_common_opt(opt, optarg, &fmt);
		if (ret != 1)
			return ret;
	}
	if (optind + 1 != argc)
		return rblk_cli_usage_err(optind >= argc ? "which device? (rblk detach /dev/ublkbN or /dev/nbdN)" :
							   "one device at a time");
	if (!rblk_ublk_parse_device(argv[optind], &index))
		return detach_ublk(index, fmt);
	if (rblk_nbd_parse_device(argv[optind], &index))
		return rblk_cli_usage_err("'%s' is not a ublk or NBD device (/dev/ublkbN, /dev/nbdN)", argv[optind]);
	snprintf(path, sizeof(path), "/sys/block/nbd%d", index);
	if (stat(path, &st)) {
		rblk_cli_err("/dev/nbd%d does not exist (is the nbd module loaded?)", index);
		return CLI_EXIT_NOT_FOUND;
	}
	if (!nbd_connected(index)) {
		rblk_cli_err("/dev/nbd%d is not attached", index);
		return CLI_EXIT_NOT_FOUND;
	}
	ret = rblk_nbd_nl_disconnect(index, err, sizeof(err));
	if (ret) {
		rblk_cli_err("cannot detach /dev/nbd%d: %s%s", index, err,
			     ret == -EPERM ? " (needs root: CAP_SYS_ADMIN)" : "");
		return CLI_EXIT_FAILURE;
	}
	for (int i = 0; i < 100 && nbd_connected(index); i++)
		usleep(100 * 1000);
	if (nbd_connected(index)) {
		rblk_cli_err("/dev/nbd%d is still connected after 10 s", index);
		return CLI_EXIT_FAILURE;
	}
	if (fmt == CLI_FMT_JSON)
		fprintf(rblk_cli_out, "{\n  \"device\": \"/dev/nbd%d\",\n  \"driver\": \"nbd\",\n"
				      "  \"detached\": true\n}\n", index);
	else
		fprintf(rblk_cli_errf, "detached /dev/nbd%d\n", index);
	return CLI_EXIT_OK;
}
