/* SPDX-License-Identifier: MIT */
/*
 * rblk-target: the daemon around the target library. It owns the process:
 * flags (args.c), the configuration and the checks before a start
 * (startup.c, config*.c), logging to stderr (with journald priority
 * prefixes under systemd), signals, the pidfile and systemd readiness
 * (notify.c), and the JSON-RPC management socket (rpc*.c), served from
 * this thread's loop with the signals; `rblk-target rpc ...` is its client.
 *
 * Signals are blocked before the target creates its threads and read from
 * a signalfd on the main thread, so no library code ever runs in a signal
 * handler: SIGINT/SIGTERM stop, SIGHUP reloads the config and applies the
 * difference live, SIGUSR1 dumps statistics.
 *
 * It never daemonizes and never falls back: an address no RDMA device
 * serves, a namespace that does not open (in strict mode) or too little
 * lockable memory stops the start with a message saying what to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rblk/target.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/args.h"
#include "daemon/config.h"
#include "daemon/live.h"
#include "daemon/metrics_http.h"
#include "daemon/notify.h"
#include "daemon/rpc_client.h"
#include "daemon/rpc_nvmf.h"
#include "daemon/rpc_server.h"
#include "daemon/startup.h"

struct daemon {
	struct rblk_tgt_args args;
	struct rblk_tgt_live live; /* the target and what it runs */
	struct rblk_rpc_table rpc_table;
	struct rblk_rpc_server *rpc; /* NULL: no management socket */
	struct rblk_metrics_server *metrics; /* NULL: no --metrics */
	uint64_t started_ns;         /* rblk_metrics_info.uptime_ns counts from here */
	int sfd, tfd;
	bool pidfile_written;
};

/* ------------------------------------------------------------- logging */

static bool log_journal;
static bool log_time;

/*
 * "2026-12-07 22:30:01.123 ": the local time, for a log file read beside
 * others; "" when the clock cannot be read (strftime leaves @buf undefined
 * when it fails, so the empty string is set first and again).
 */
static void log_time_prefix(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	buf[0] = '\0';
	if (clock_gettime(CLOCK_REALTIME, &ts) || !localtime_r(&ts.tv_sec, &tm))
		return;
	n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	if (!n) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf + n, len - n, ".%03ld ", ts.tv_nsec / 1000000);
}

/*
 * Under systemd, stderr is a journal stream: "<N>" prefixes carry the
 * syslog priority (sd-daemon(3)) and the journal adds name and time.
 */
static void log_handler(enum rblk_log_level level, const char *msg, void *arg)
{
	char line[4096], when[40] = "";
	int n;

	(void)arg;
	/* A request's own error goes back to its client too. */
	rblk_rpc_log_capture(level, msg);
	if (log_journal) {
		n = snprintf(line, sizeof(line), "<%d>%s\n", (int)level, msg);
	} else {
		if (log_time)
			log_time_prefix(when, sizeof(when));
		n = snprintf(line, sizeof(line), "%srblk-target: %s: %s\n", when,
			     rblk_log_level_str(level), msg);
	}
	if (n > (int)sizeof(line) - 1) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (write(STDERR_FILENO, line, n) < 0) {
		/* stderr is gone: nowhere to report it */
	}
}

static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

/* ------------------------------------------------------------- config */

static size_t count_ns(const struct rblk_config *cfg)
{
	size_t n = 0;

	for (size_t i = 0; i < cfg->nr_subsys; i++)
		for (size_t j = 0; j < cfg->subsys[i].nr_ns; j++)
			n += cfg->subsys[i].ns[j].enable;
	return n;
}

/* ------------------------------------------------------------- signals */

static int setup_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR1);
	/* Blocked before the target starts threads, so they inherit the mask
	 * and every one of these signals waits for the signalfd. */
	if (pthread_sigmask(SIG_BLOCK, set, NULL))
		return -EINVAL;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void dump_stats(struct daemon *d, FILE *f)
{
	char *json = NULL;
	int ret = rblk_target_stats_json(d->live.tgt, &json);

	if (ret) {
		RBLK_ERR("statistics: %s", strerror(-ret));
		return;
	}
	fprintf(f, "%s\n", json);
	fflush(f);
	free(json);
}

static void reload(struct daemon *d)
{
	struct rblk_config *next = NULL;
	struct timespec now;
	size_t changes = 0, failed = 0;
	char why[512];
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &now);
	rblk_notifyf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading %s",
		     (uint64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000,
		     d->args.config_path ? d->args.config_path : "");
	if (!d->args.config_path) {
		RBLK_NOTICE("SIGHUP: no --config file to reload; nothing changed");
		goto ready;
	}
	RBLK_NOTICE("SIGHUP: reloading %s", d->args.config_path);
	ret = rblk_tgt_build_config(&d->args, &next);
	if (ret) {
		RBLK_ERR("reload refused: %s is not valid (see above); the previous configuration "
			 "keeps running", d->args.config_path);
		rblk_notifyf("READY=1\nSTATUS=reload of %s refused; previous configuration running",
			     d->args.config_path);
		return;
	}
	/* Applies what applies, saves what was asked for; each step is logged. */
	ret = rblk_tgt_live_apply(&d->live, next, RBLK_LIVE_RELOAD, &changes, &failed, why,
				  sizeof(why));
	if (ret == -ENOMEM && changes == 0) {
		RBLK_ERR("reload: out of memory; the previous configuration keeps running");
		goto ready;
	}
	if (changes == 0)
		RBLK_NOTICE("reload: no changes");
	else
		RBLK_NOTICE("reload: %zu change%s applied, %zu failed", changes - failed,
			    changes - failed == 1 ? "" : "s", failed);
ready:
	rblk_notifyf("READY=1\nSTATUS=serving %zu subsystems, %zu namespaces, %zu listeners",
		     d->live.running->nr_subsys, count_ns(d->live.running),
		     d->live.running->nr_ports);
}

/* Requests, and systemd's STATUS= line kept true when they changed what is exported. */
static void serve_rpc(struct daemon *d)
{
	unsigned long before = d->live.changes;

	rblk_rpc_server_process(d->rpc);
	if (d->live.changes != before)
		rblk_notifyf("STATUS=serving %zu subsystems, %zu namespaces, %zu listeners",
			     d->live.running->nr_subsys, count_ns(d->live.running),
			     d->live.running->nr_ports);
}

/* Returns the exit code once SIGINT/SIGTERM arrived. */
static int serve(struct daemon *d)
{
	for (;;) {
		struct pollfd pfd[3] = { { .fd = d->sfd, .events = POLLIN },
					 { .fd = d->tfd, .events = POLLIN },
					 { .fd = d->rpc ? rblk_rpc_server_fd(d->rpc) : -1,
					   .events = POLLIN } };
		struct signalfd_siginfo si;
		uint64_t ticks;

		/* A negative fd is skipped by poll(2): no timer, no socket. */
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			RBLK_ERR("poll: %s", strerror(errno));
			return RBLK_EXIT_FAILURE;
		}
		if (d->tfd >= 0 && (pfd[1].revents & POLLIN) &&
		    read(d->tfd, &ticks, sizeof(ticks)) == sizeof(ticks))
			dump_stats(d, stdout);
		if (pfd[2].revents & POLLIN)
			serve_rpc(d);
		if (!(pfd[0].revents & POLLIN) || read(d->sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		switch (si.ssi_signo) {
		case SIGINT:
		case SIGTERM:
			RBLK_NOTICE("%s: stopping", strsignal(si.ssi_signo));
			return RBLK_EXIT_OK;
		case SIGHUP:
			reload(d);
			break;
		case SIGUSR1:
			dump_stats(d, stderr);
			break;
		default:
			break;
		}
	}
}

/* ------------------------------------------------------------- start */

static int write_pidfile(const char *path)
{
	char buf[32];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (write(fd, buf, n) != n) {
		close(fd);
		return -EIO;
	}
	return close(fd) < 0 ? -errno : 0;
}

static void log_backend(const struct rblk_tgt_args *a, const struct rblk_config *cfg)
{
	if (a->flags->tgt.backend)
		RBLK_NOTICE("backend: %s (--backend)", cfg->tgt.backend);
	else if (cfg->tgt.backend)
		RBLK_NOTICE("backend: %s (x-rblk.backend in %s)", cfg->tgt.backend, a->config_path);
	/* Automatic: the backend's probe logs which engine and why (NOTICE) when
	 * the target is created. */
}

static int start(struct daemon *d)
{
	struct rblk_target_opts opts;
	struct rblk_config_diff diff;
	bool strict = d->args.mode == RBLK_CFG_STRICT;
	int ret;

	rblk_config_target_opts(d->live.running, &opts);
	log_backend(&d->args, d->live.running);
	ret = rblk_target_create(&opts, &d->live.tgt);
	if (ret) {
		RBLK_ERR("cannot create the target: %s", strerror(-ret));
		return RBLK_EXIT_FAILURE;
	}
	/* The first start is a diff from nothing: the same path as a reload. */
	ret = rblk_config_diff(NULL, d->live.running, &diff);
	if (ret)
		return RBLK_EXIT_FAILURE;
	ret = rblk_config_apply(d->live.tgt, &diff, strict);
	if (ret && strict) {
		RBLK_ERR("not started: the configuration did not apply completely (strict mode; "
			 "--best-effort starts with what works)");
		rblk_config_diff_free(&diff);
		return RBLK_EXIT_FAILURE;
	}
	/* The library logs each subsystem, namespace and listener as it opens it. */
	rblk_tgt_live_save(&d->live, d->live.running);
	rblk_config_drop_failed(d->live.running, &diff);
	rblk_config_diff_free(&diff);
	if (!d->live.running->nr_ports && !rblk_tgt_rpc_path(d->live.running)) {
		RBLK_ERR("not started: no listener could be opened");
		return RBLK_EXIT_FAILURE;
	}
	ret = rblk_target_start(d->live.tgt);
	if (ret) {
		RBLK_ERR("cannot start the target: %s%s", strerror(-ret),
			 ret == -ENOMEM || ret == -EAGAIN
				 ? " (registering memory failed? check `ulimit -l` / LimitMEMLOCK=)"
				 : "");
		return RBLK_EXIT_FAILURE;
	}
	return RBLK_EXIT_OK;
}

/*
 * The management socket, once the target runs. A socket asked for by name
 * must open; the default one may fail (no /run/rblk for this user, say)
 * with a warning, unless there is nothing else to configure the target by.
 */
static int start_rpc(struct daemon *d)
{
	const char *path = rblk_tgt_rpc_path(d->live.running);
	bool named = d->live.running->tgt.rpc_socket != NULL;
	int ret;

	if (!path)
		return RBLK_EXIT_OK;
	d->rpc_table = (struct rblk_rpc_table){ .methods = rblk_rpc_nvmf_methods,
						.nr = rblk_rpc_nvmf_nr_methods,
						.ctx = &d->live };
	ret = rblk_rpc_server_create(path, &d->rpc_table, &d->rpc);
	if (ret == 0) {
		RBLK_NOTICE("management socket: %s (JSON-RPC 2.0)", path);
		return RBLK_EXIT_OK;
	}
	if (named || !d->live.running->nr_subsys) {
		RBLK_ERR("%s: cannot open the management socket: %s%s", path, strerror(-ret),
			 ret == -EADDRINUSE ? " (another rblk-target serves it)" : "");
		return RBLK_EXIT_FAILURE;
	}
	RBLK_WARN("%s: no management socket: %s (--rpc-socket PATH or none)", path,
		  strerror(-ret));
	return RBLK_EXIT_OK;
}

/* The Prometheus endpoint, once the target runs: asked for, it must open. */
static int start_metrics(struct daemon *d)
{
	const char *addr = d->live.running->tgt.metrics;
	int ret;

	if (!addr)
		return RBLK_EXIT_OK;
	ret = rblk_metrics_server_start(addr, d->live.tgt, d->started_ns, &d->metrics);
	if (ret) {
		RBLK_ERR("metrics %s: cannot serve: %s", addr, strerror(-ret));
		return RBLK_EXIT_FAILURE;
	}
	RBLK_NOTICE("metrics: http://%s/metrics (Prometheus)", addr);
	return RBLK_EXIT_OK;
}

static int check_and_print(struct daemon *d)
{
	char *text = NULL;

	if (rblk_config_to_json(d->live.running, &text))
		return RBLK_EXIT_FAILURE;
	fputs(text, stdout);
	free(text);
	if (d->args.save_path && rblk_config_save(d->live.running, d->args.save_path))
		return RBLK_EXIT_FAILURE;
	return RBLK_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct daemon d = { .sfd = -1, .tfd = -1 };
	const struct rblk_config *cfg;
	sigset_t set;
	int code, ret;

	if (argc > 1 && strcmp(argv[1], "rpc") == 0)
		return rblk_tgt_rpc_client_main(argc - 1, argv + 1);
	ret = rblk_tgt_args_parse(argc, argv, &d.args, stderr);
	if (ret || d.args.help || d.args.version) {
		if (d.args.help)
			rblk_tgt_usage(stdout);
		else if (d.args.version)
			printf("rblk-target %s\n", rblk_version());
		rblk_tgt_args_free(&d.args);
		return ret == 0 ? RBLK_EXIT_OK : ret == -EINVAL ? RBLK_EXIT_USAGE : RBLK_EXIT_FAILURE;
	}
	d.live.save_path = d.args.save_path;
	d.started_ns = rblk_clock_ns();
	log_journal = stderr_is_journal();
	log_time = d.args.log_time;
	rblk_log_set_handler(log_handler, NULL);
	if (d.args.log_level_set)
		rblk_log_set_level(d.args.log_level);

	/* Everything a start checks before creating the target; --check stops after it. */
	ret = rblk_tgt_prepare(&d.args, &d.live.running);
	if (ret) {
		code = rblk_tgt_exit_code(ret);
		goto out;
	}
	if (d.args.check_only) {
		code = check_and_print(&d);
		goto out;
	}
	cfg = d.live.running;
	RBLK_NOTICE("rblk-target %s: %zu subsystem%s, %zu namespace%s, %zu listener%s%s%s",
		    rblk_version(), cfg->nr_subsys, cfg->nr_subsys == 1 ? "" : "s", count_ns(cfg),
		    count_ns(cfg) == 1 ? "" : "s", cfg->nr_ports, cfg->nr_ports == 1 ? "" : "s",
		    d.args.config_path ? " from " : "", d.args.config_path ? d.args.config_path : "");
	if (setup_signals(&set) || (d.sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		RBLK_ERR("signalfd: %s", strerror(errno));
		code = RBLK_EXIT_FAILURE;
		goto out;
	}
	if (d.args.stats_interval) {
		struct itimerspec its = { .it_interval = { d.args.stats_interval, 0 },
					  .it_value = { d.args.stats_interval, 0 } };

		d.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (d.tfd < 0 || timerfd_settime(d.tfd, 0, &its, NULL) < 0) {
			RBLK_ERR("timerfd: %s", strerror(errno));
			code = RBLK_EXIT_FAILURE;
			goto out;
		}
	}
	code = start(&d);
	if (code == RBLK_EXIT_OK)
		code = start_rpc(&d);
	if (code == RBLK_EXIT_OK)
		code = start_metrics(&d);
	if (code != RBLK_EXIT_OK)
		goto out;
	if (d.args.pidfile) {
		ret = write_pidfile(d.args.pidfile);
		if (ret)
			RBLK_WARN("%s: cannot write the pidfile: %s", d.args.pidfile, strerror(-ret));
		d.pidfile_written = ret == 0;
	}
	rblk_notifyf("READY=1\nMAINPID=%ld\nSTATUS=serving %zu subsystems, %zu namespaces, "
		     "%zu listeners", (long)getpid(), d.live.running->nr_subsys,
		     count_ns(d.live.running), d.live.running->nr_ports);
	RBLK_NOTICE("ready");

	code = serve(&d);
	rblk_notify("STOPPING=1\nSTATUS=stopping");
	rblk_target_stop(d.live.tgt);
out:
	/* Before the target: a scrape reads it. */
	rblk_metrics_server_stop(d.metrics);
	rblk_rpc_server_destroy(d.rpc);
	/* Disconnects every host and closes every namespace. */
	if (d.live.tgt)
		rblk_target_destroy(d.live.tgt);
	if (d.pidfile_written)
		unlink(d.args.pidfile);
	if (d.tfd >= 0)
		close(d.tfd);
	if (d.sfd >= 0)
		close(d.sfd);
	rblk_config_free(d.live.running);
	rblk_tgt_args_free(&d.args);
	if (code == RBLK_EXIT_OK && !d.args.check_only)
		RBLK_NOTICE("stopped");
	return code;
}
