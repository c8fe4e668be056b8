/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/options: the engine options (`fio --enghelp=librblk_fio.so`).
 * They give defaults for what the filename's transport ID leaves out (the
 * filename wins), so a job file can name the target once and list only
 * `ns=N` per file, and an NQN full of ':' can avoid fio's filename splitting.
 * Connection tuning follows nvme-cli's names and units.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/uuid.h"
#include "fio-plugin/engine.h"
#include "protocol/nqn.h"

#define OPT_STR(n, field, l, h) {                                       \
		.name = n, .lname = l, .type = FIO_OPT_STR_STORE,       \
		.off1 = offsetof(struct rblk_fio_opts, field), .help = h, \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID }
#define OPT_INT(n, field, l, d, h) {                                    \
		.name = n, .lname = l, .type = FIO_OPT_INT,             \
		.off1 = offsetof(struct rblk_fio_opts, field), .def = d, .help = h, \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID }
#define OPT_BOOL(n, field, l, d, h) {                                   \
		.name = n, .lname = l, .type = FIO_OPT_BOOL,            \
		.off1 = offsetof(struct rblk_fio_opts, field), .def = d, .help = h, \
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID }

_Static_assert(offsetof(struct rblk_fio_opts, traddr) != 0, "fio treats off1 == 0 as no option");

struct fio_option rblk_fio_options[] = {
	OPT_STR("traddr", traddr, "rblk target address",
		"Target address (IPv4/IPv6 literal or host name) for files whose name gives none"),
	OPT_STR("trsvcid", trsvcid, "rblk target port",
		"Target port (default 4420) for files whose name gives none"),
	OPT_STR("subnqn", subnqn, "rblk subsystem NQN",
		"Subsystem NQN for files whose name gives none (no '\\:' escaping needed here)"),
	OPT_STR("hostnqn", hostnqn, "rblk host NQN",
		"Host NQN (default: /etc/nvme/hostnqn, else generated as nvme gen-hostnqn)"),
	OPT_STR("hostid", hostid, "rblk host ID", "Host ID, a UUID (default: /etc/nvme/hostid)"),
	OPT_STR("host_traddr", host_traddr, "rblk source address",
		"Local address to connect from (nvme connect -w)"),
	OPT_INT("ns", ns, "rblk namespace ID", "0",
		"Namespace ID for files whose name gives none (0: namespace 1)"),
	OPT_INT("queue_size", queue_size, "rblk I/O queue size", "0",
		"Entries per I/O queue, 16..1024 (0: 128); iodepth beyond it waits (FIO_Q_BUSY)"),
	OPT_INT("keep_alive_tmo", keep_alive_tmo, "rblk keep-alive timeout", "0",
		"Keep-alive timeout in seconds (0: 5)"),
	OPT_INT("nr_io_queues", nr_io_queues, "rblk I/O queues per controller", "0",
		"I/O queues to ask for per controller (0: online CPUs); jobs beyond them get "
		"another controller"),
	{
		.name = "qpairs", .lname = "rblk I/O queue pairs per job",
		.type = FIO_OPT_INT, .off1 = offsetof(struct rblk_fio_opts, qpairs),
		.def = "1", .minval = 1, .maxval = RBLK_FIO_QPAIRS_MAX,
		.help = "I/O queue pairs a job takes on each controller; its I/Os use them in turn "
			"(the kernel host spreads one job over its per-CPU queues)",
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID,
	},
	OPT_INT("connect_timeout", connect_timeout, "rblk connect timeout", "0",
		"Address resolution and connect timeout in ms (0: 3000)"),
	OPT_INT("reconnect_delay", reconnect_delay, "rblk reconnect delay", "0",
		"Seconds between reconnect attempts after a lost connection (0: 10)"),
	{
		.name = "ctrl_loss_tmo", .lname = "rblk controller loss timeout",
		.type = FIO_OPT_INT, .off1 = offsetof(struct rblk_fio_opts, ctrl_loss_tmo),
		.def = "600", .minval = -1,
		.help = "Seconds to keep reconnecting before failing I/O (-1: forever, 0: no reconnect)",
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID,
	},
	{
		.name = "io_timeout", .lname = "rblk I/O timeout",
		.type = FIO_OPT_INT, .off1 = offsetof(struct rblk_fio_opts, io_timeout),
		.def = "0", .minval = -1, .maxval = 4294967,
		.help = "Seconds an I/O may go unanswered before the connection is reset and the "
			"I/O sent again (0: 30, -1: never)",
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID,
	},
	OPT_STR("iopolicy", iopolicy, "rblk multipath I/O policy",
		"With several paths (traddr=A,B): first (the first usable path), round-robin, or "
		"queue-depth (the path with the fewest I/Os in flight)"),
	OPT_BOOL("private_ctrl", private_ctrl, "rblk controller per job", "0",
		 "Connect a controller per job instead of sharing one per process and target"),
	OPT_BOOL("fua", fua, "rblk FUA writes", "0", "Set Force Unit Access on writes"),
	OPT_BOOL("busy_poll", busy_poll, "rblk busy polling", "0",
		 "Poll completions without sleeping (lowest latency, one core per job)"),
	OPT_INT("spin_us", spin_us, "rblk spin before sleeping", "20",
		"Microseconds to poll for completions before sleeping on the completion channel"),
	OPT_STR("dhchap_secret", dhchap_secret, "rblk DH-HMAC-CHAP host secret",
		"Host secret (DHHC-1:NN:...:, as nvme gen-dhchap-key) for targets that require "
		"in-band authentication (nvme connect --dhchap-secret)"),
	OPT_STR("dhchap_ctrl_secret", dhchap_ctrl_secret, "rblk DH-HMAC-CHAP controller secret",
		"Controller secret: the target must authenticate too (needs dhchap_secret; "
		"nvme connect --dhchap-ctrl-secret)"),
	{
		.name = "rblk_log", .lname = "rblk library log level",
		.type = FIO_OPT_STR_STORE, .off1 = offsetof(struct rblk_fio_opts, log_level),
		.def = "warn",
		.help = "rblk library messages shown: err, warn, notice, info, debug",
		.category = FIO_OPT_C_ENGINE, .group = FIO_OPT_G_INVALID,
	},
	{ .name = NULL },
};

static void copy_str(char *dst, size_t cap, const char *s)
{
	if (s && strlen(s) < cap)
		strcpy(dst, s);
}

static bool bad_secret(const char *s)
{
	struct rblk_auth_secret k;
	int ret;

	if (!s || !*s)
		return false;
	ret = rblk_auth_secret_parse(s, &k);
	rblk_auth_secret_clear(&k);
	return ret != 0;
}

static bool bad_nqn(const char *key, const char *s, char *why, size_t whylen)
{
	char rule[80];

	if (!s || !*s || !rblk_nqn_policy_check(s, rule, sizeof(rule)))
		return false;
	snprintf(why, whylen, "%s %s", key, rule);
	return true;
}

int rblk_fio_opts_check(const struct rblk_fio_opts *o, char *why, size_t whylen)
{
	static const char form[] = "not a DHHC-1 secret (DHHC-1:00..03:<base64 of a 32, 48 or "
				   "64-byte key and its CRC-32>:, as nvme gen-dhchap-key prints it)";
	bool host = o->dhchap_secret && *o->dhchap_secret;

	if (bad_secret(o->dhchap_secret)) {
		snprintf(why, whylen, "dhchap_secret: %s", form);
		return -EINVAL;
	}
	if (bad_secret(o->dhchap_ctrl_secret)) {
		snprintf(why, whylen, "dhchap_ctrl_secret: %s", form);
		return -EINVAL;
	}
	if (o->iopolicy && *o->iopolicy && rblk_mpath_iopolicy_parse(o->iopolicy, &(enum rblk_mpath_iopolicy){ 0 })) {
		snprintf(why, whylen, "iopolicy %s: first, round-robin or queue-depth", o->iopolicy);
		return -EINVAL;
	}
	/* The options fill what a filename leaves out: the same rules as its keys. */
	if (o->hostid && *o->hostid && !rblk_uuid_valid(o->hostid)) {
		snprintf(why, whylen, "hostid %s: a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
			 o->hostid);
		return -EINVAL;
	}
	if (bad_nqn("subnqn", o->subnqn, why, whylen) || bad_nqn("hostnqn", o->hostnqn, why, whylen))
		return -EINVAL;
	if (o->dhchap_ctrl_secret && *o->dhchap_ctrl_secret && !host) {
		snprintf(why, whylen, "dhchap_ctrl_secret needs dhchap_secret (the target "
				      "authenticates itself only to an authenticated host)");
		return -EINVAL;
	}
	return 0;
}

void rblk_fio_opts_defaults(const struct rblk_fio_opts *o, struct rblk_trid *d,
			    struct rblk_fio_conn_params *p)
{
	memset(d, 0, sizeof(*d));
	memset(p, 0, sizeof(*p));
	copy_str(d->traddr, sizeof(d->traddr), o->traddr);
	copy_str(d->trsvcid, sizeof(d->trsvcid), o->trsvcid);
	copy_str(d->subnqn, sizeof(d->subnqn), o->subnqn);
	copy_str(d->hostnqn, sizeof(d->hostnqn), o->hostnqn);
	copy_str(d->hostid, sizeof(d->hostid), o->hostid);
	copy_str(d->host_traddr, sizeof(d->host_traddr), o->host_traddr);
	d->nsid = o->ns;
	p->queue_size = o->queue_size;
	p->keep_alive_tmo = o->keep_alive_tmo;
	p->nr_io_queues = o->nr_io_queues;
	/* a job's qpairs all come from one controller: ask for that many if the default is less */
	if (!p->nr_io_queues && o->qpairs > sysconf(_SC_NPROCESSORS_ONLN))
		p->nr_io_queues = o->qpairs;
	p->connect_timeout_ms = o->connect_timeout;
	p->reconnect_delay = (int32_t)o->reconnect_delay;
	p->ctrl_loss_tmo = o->ctrl_loss_tmo;
	p->io_timeout = o->io_timeout;
	if (o->iopolicy && *o->iopolicy)
		rblk_mpath_iopolicy_parse(o->iopolicy, &p->iopolicy);	/* checked already */
	p->private_ctrl = o->private_ctrl;
	/* rblk_fio_opts_check() passed: a valid secret always fits. */
	copy_str(p->dhchap_secret, sizeof(p->dhchap_secret), o->dhchap_secret);
	copy_str(p->dhchap_ctrl_secret, sizeof(p->dhchap_ctrl_secret), o->dhchap_ctrl_secret);
}
