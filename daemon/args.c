/* SPDX-License-Identifier: MIT */
/*
 * rblk-target flag parsing (see args.h). The quick flags build the same
 * model as a config file, so one validation and one apply path serve both;
 * objects made here carry the flag as their "where" ("--ns /dev/vdb,ro"),
 * which is what later messages about them quote.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/uuid.h"
#include "daemon/args.h"
#include "daemon/metrics.h"

enum {
	OPT_LISTEN = 256,
	OPT_SUBSYSTEM,
	OPT_NS,
	OPT_ALLOW_HOST,
	OPT_ALLOW_ANY_HOST,
	OPT_DHCHAP_KEY,
	OPT_DHCHAP_CTRL_KEY,
	OPT_DHCHAP_HASH,
	OPT_DHCHAP_DHGROUP,
	OPT_BACKEND,
	OPT_CEPH_CONF,
	OPT_RBD_ID,
	OPT_RBD_KEYRING,
	OPT_STATE_DIR,
	OPT_POLL_GROUPS,
	OPT_POLL_MODE,
	OPT_QUEUE_DEPTH,
	OPT_IN_CAPSULE,
	OPT_SRQ_DEPTH,
	OPT_MAX_IO_SIZE,
	OPT_CONNECT_TIMEOUT,
	OPT_MAX_PENDING,
	OPT_MAX_PENDING_PER_ADDR,
	OPT_MAX_CTRLS_PER_HOST,
	OPT_MAX_QUEUES,
	OPT_LOG_LEVEL,
	OPT_LOG_TIME,
	OPT_STATS_INTERVAL,
	OPT_RPC_SOCKET,
	OPT_METRICS,
	OPT_PIDFILE,
	OPT_FOREGROUND,
	OPT_SAVE,
	OPT_CHECK,
	OPT_ABORT_ON_ERROR,
	OPT_BEST_EFFORT,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "subsystem", required_argument, NULL, OPT_SUBSYSTEM },
	{ "ns", required_argument, NULL, OPT_NS },
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ "allow-any-host", no_argument, NULL, OPT_ALLOW_ANY_HOST },
	{ "dhchap-key", required_argument, NULL, OPT_DHCHAP_KEY },
	{ "dhchap-ctrl-key", required_argument, NULL, OPT_DHCHAP_CTRL_KEY },
	{ "dhchap-hash", required_argument, NULL, OPT_DHCHAP_HASH },
	{ "dhchap-dhgroup", required_argument, NULL, OPT_DHCHAP_DHGROUP },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "ceph-conf", required_argument, NULL, OPT_CEPH_CONF },
	{ "rbd-id", required_argument, NULL, OPT_RBD_ID },
	{ "rbd-keyring", required_argument, NULL, OPT_RBD_KEYRING },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "poll-groups", required_argument, NULL, OPT_POLL_GROUPS },
	{ "poll-mode", required_argument, NULL, OPT_POLL_MODE },
	{ "queue-depth", required_argument, NULL, OPT_QUEUE_DEPTH },
	{ "in-capsule", required_argument, NULL, OPT_IN_CAPSULE },
	{ "srq-depth", required_argument, NULL, OPT_SRQ_DEPTH },
	{ "max-io-size", required_argument, NULL, OPT_MAX_IO_SIZE },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "max-pending", required_argument, NULL, OPT_MAX_PENDING },
	{ "max-pending-per-addr", required_argument, NULL, OPT_MAX_PENDING_PER_ADDR },
	{ "max-ctrls-per-host", required_argument, NULL, OPT_MAX_CTRLS_PER_HOST },
	{ "max-queues", required_argument, NULL, OPT_MAX_QUEUES },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "log-time", no_argument, NULL, OPT_LOG_TIME },
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	{ "rpc-socket", required_argument, NULL, OPT_RPC_SOCKET },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "pidfile", required_argument, NULL, OPT_PIDFILE },
	{ "foreground", no_argument, NULL, OPT_FOREGROUND },
	{ "save", required_argument, NULL, OPT_SAVE },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "abort-on-error", no_argument, NULL, OPT_ABORT_ON_ERROR },
	{ "best-effort", no_argument, NULL, OPT_BEST_EFFORT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void rblk_tgt_usage(FILE *out)
{
	fputs("Usage: rblk-target --config FILE [OPTION]...\n"
	      "       rblk-target --listen ADDR[:PORT] --subsystem NQN --ns PATH [OPTION]...\n"
	      "       rblk-target [OPTION]...   (nothing exported: configure it through the RPC)\n"
	      "       rblk-target rpc METHOD [--PARAM VALUE]...   (rblk-target rpc --help)\n"
	      "Export files and block devices as NVMe over Fabrics namespaces on RDMA.\n"
	      "\n"
	      "Configuration:\n"
	      "  -c, --config FILE        nvmetcli JSON (a kernel nvmet `nvmetcli save` file works)\n"
	      "      --abort-on-error     refuse the whole config on any error (default)\n"
	      "      --best-effort        skip invalid entries with a message, like nvmetcli restore\n"
	      "      --check              run every start-up check (options, namespace paths,\n"
	      "                           memlock), print the resulting config as JSON, exit\n"
	      "      --save FILE          write the running config (with generated IDs) to FILE\n"
	      "                           after start and after each reload\n"
	      "Quick export (added to --config's objects, if any):\n"
	      "      --listen ADDR[:PORT] RDMA listen address, repeatable; IPv6 as [ADDR]:PORT;\n"
	      "                           port 4420 when omitted\n"
	      "      --subsystem NQN      a subsystem, repeatable; the flags below apply to the last\n"
	      "      --ns PATH[,OPT...]   a namespace: file, block device, mem:SIZE, null:SIZE or\n"
	      "                           rbd:POOL[/NAMESPACE]/IMAGE (Ceph; CEPH_CONF, CEPH_ARGS,\n"
	      "                           RBLK_RBD_ID pick cluster and client, see docs/rbd.md);\n"
	      "                           OPT: ro, nsid=N, uuid=UUID, nguid=UUID, backend=uring|aio,\n"
	      "                           bs=BLOCKSIZE, rbd_cache (librbd's cache on: never with\n"
	      "                           a second gateway on the image)\n"
	      "      --allow-host NQN     let this host NQN connect (repeatable)\n"
	      "      --allow-any-host     let every host connect\n"
	      "DH-HMAC-CHAP for the host of the last --allow-host (it must then authenticate):\n"
	      "      --dhchap-key SECRET  the host's DHHC-1 secret (rblk gen-dhchap-key makes one)\n"
	      "      --dhchap-ctrl-key SECRET  the controller's secret: bidirectional\n"
	      "      --dhchap-hash HASH   sha256 (default), sha384 or sha512\n"
	      "      --dhchap-dhgroup G   null (default), ffdhe2048, 3072, 4096, 6144 or 8192\n"
	      "                           (secrets on a command line show in ps: prefer the\n"
	      "                           config file's hosts[].dhchap, kept mode 0600)\n"
	      "Target options:\n"
	      "      --backend uring|aio  block backend (default: io_uring when available)\n"
	      "      --ceph-conf FILE     Ceph configuration for rbd: namespaces (default:\n"
	      "                           $CEPH_CONF, else Ceph's search path)\n"
	      "      --rbd-id NAME        Ceph client name without \"client.\" (default:\n"
	      "                           $RBLK_RBD_ID, else admin)\n"
	      "      --rbd-keyring FILE   that client's keyring (default: the configuration's)\n"
	      "      --state-dir DIR      reservations kept through power loss (PTPL), a\n"
	      "                           file per namespace (default /var/lib/rblk; \"\": none)\n"
	      "      --poll-groups N      reactor threads (default: online CPUs)\n"
	      "      --poll-mode MODE     adaptive (default), busy or event\n"
	      "      --queue-depth N      I/O queue entries (default 128)\n"
	      "      --in-capsule SIZE    in-capsule data bytes (default 8192)\n"
	      "      --srq-depth N        receives shared by a poll group's connections on\n"
	      "                           one RDMA device, 16..65536 (default 1024); 0: a\n"
	      "                           receive queue per connection\n"
	      "      --max-io-size SIZE   largest transfer (default 1M)\n"
	      "Admission control (refusals are logged with the host's address or NQN):\n"
	      "      --connect-timeout MS a connection without a Fabrics Connect after MS\n"
	      "                           milliseconds is dropped (default 10000)\n"
	      "      --max-pending N      connections waiting for their Connect, in all\n"
	      "                           (default 256)\n"
	      "      --max-pending-per-addr N  of those, from one host address (default 32);\n"
	      "                           a new one beyond takes the place of the oldest\n"
	      "      --max-ctrls-per-host N    controllers one host NQN may hold (default 64)\n"
	      "      --max-queues N       connections the target holds in all (default 4096)\n"
	      "Process:\n"
	      "      --log-level LEVEL    err, warn, notice (default), info or debug\n"
	      "      --log-time           start each line with the local time, to the millisecond\n"
	      "                           (not under systemd: the journal has the time)\n"
	      "      --stats-interval SEC print statistics as JSON on stdout every SEC seconds\n"
	      "      --rpc-socket PATH    the JSON-RPC management socket (default\n"
	      "                           /run/rblk/rblk-target.sock; none: no socket)\n"
	      "      --metrics ADDR:PORT  serve Prometheus metrics at http://ADDR:PORT/metrics\n"
	      "                           (IPv6: [ADDR]:PORT; default: none)\n"
	      "      --pidfile FILE       write the process id to FILE\n"
	      "      --foreground         stay in the foreground (the default; never daemonizes)\n"
	      "  -h, --help               this text\n"
	      "  -V, --version            print the version\n"
	      "\n"
	      "Signals: SIGHUP reloads --config and applies the changes live; SIGUSR1 dumps\n"
	      "statistics to stderr; SIGINT/SIGTERM stop gracefully.\n"
	      "Exit status: 0 stopped cleanly (or --check passed); 1 could not start or run (RDMA\n"
	      "device, memlock, memory); 2 invalid flags or configuration, found before start\n"
	      "or by --check (bad JSON, option out of range, namespace path that does not open,\n"
	      "no subsystem or no port with the socket off): the systemd unit does not restart\n"
	      "on 2.\n"
	      "\n"
	      "Examples:\n"
	      "  rblk-target --config /etc/rblk/config.json\n"
	      "  rblk-target --listen 10.99.0.1 --subsystem nqn.2024-01.io.rblk:disk0 \\\n"
	      "              --ns /dev/vdb --allow-any-host\n"
	      "  rblk-target --listen [fd00::1]:4421 --subsystem nqn.2024-01.io.rblk:ram \\\n"
	      "              --ns mem:1G,nsid=1 --ns /srv/ro.img,ro \\\n"
	      "              --allow-host nqn.2014-08.org.nvmexpress:uuid:<uuid>\n"
	      "  rblk-target --listen 10.99.0.1 --subsystem nqn.2024-01.io.rblk:d0 --ns /dev/vdb \\\n"
	      "              --allow-any-host --check --save /etc/rblk/config.json\n"
	      "  rblk-target --save /var/lib/rblk/config.json     (empty; then, through the socket:)\n"
	      "  rblk-target rpc nvmf_create_subsystem --nqn nqn.2024-01.io.rblk:d1\n"
	      "  rblk-target rpc nvmf_subsystem_add_ns --nqn nqn.2024-01.io.rblk:d1 \\\n"
	      "              --namespace.path mem:1G\n"
	      "On the Linux host:\n"
	      "  nvme discover -t rdma -a 10.99.0.1 -s 4420\n"
	      "  nvme connect -t rdma -a 10.99.0.1 -s 4420 -n nqn.2024-01.io.rblk:disk0\n"
	      "See rblk-target(8).\n",
	      out);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

int rblk_tgt_parse_size(const char *s, uint64_t max, uint32_t *out)
{
	uint64_t v;

	if (rblk_size_parse(s, &v, NULL, 0) || v > max || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int rblk_tgt_parse_listen(const char *s, char *addr, size_t addrlen, bool *ipv6,
			  uint16_t *port, char *why, size_t whylen)
{
	const char *host = s, *colon = NULL;
	size_t hlen;
	uint8_t bin[16];
	char buf[INET6_ADDRSTRLEN + 16];

	*port = 4420;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close == s + 1) {
			snprintf(why, whylen, "an IPv6 address goes inside [ ]");
			return -EINVAL;
		}
		host = s + 1;
		hlen = close - host;
		if (close[1] == ':')
			colon = close + 1;
		else if (close[1]) {
			snprintf(why, whylen, "expected :PORT after ]");
			return -EINVAL;
		}
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL; /* several colons: a bare IPv6 literal */
		hlen = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (colon) {
		char rule[96];

		if (rblk_port_parse(colon + 1, port, rule, sizeof(rule))) {
			snprintf(why, whylen, "port \"%s\" %s", colon + 1, rule);
			return -EINVAL;
		}
	}
	if (hlen == 0 || hlen >= sizeof(buf) || hlen >= addrlen) {
		snprintf(why, whylen, "missing or overlong address");
		return -EINVAL;
	}
	memcpy(buf, host, hlen);
	buf[hlen] = '\0';
	/* Brackets mean IPv6 even if the inside does not look like it. */
	*ipv6 = s[0] == '[' || strchr(buf, ':') != NULL;
	if (inet_pton(*ipv6 ? AF_INET6 : AF_INET, buf, bin) != 1) {
		snprintf(why, whylen, "\"%s\" is not an %s address", buf, *ipv6 ? "IPv6" : "IPv4");
		return -EINVAL;
	}
	memcpy(addr, buf, hlen + 1);
	return 0;
}

struct pstate {
	struct rblk_tgt_args *a;
	FILE *err;
	struct rblk_cfg_subsys *cur; /* the last --subsystem; re-found after each add */
	size_t cur_idx;
	bool have_cur;
	const char *last_host;       /* the last --allow-host's NQN (argv) */
};

static struct rblk_cfg_subsys *cur_subsys(struct pstate *p)
{
	return p->have_cur ? &p->a->flags->subsys[p->cur_idx] : NULL;
}

#define usage_err(p, ...) (fprintf((p)->err, "rblk-target: " __VA_ARGS__), -EINVAL)

static int add_listen(struct pstate *p, const char *arg)
{
	struct rblk_cfg_port *port;
	char where[300], addr[INET6_ADDRSTRLEN + 16], why[160];
	bool ipv6;
	uint16_t svc;
	int ret;

	if (rblk_tgt_parse_listen(arg, addr, sizeof(addr), &ipv6, &svc, why, sizeof(why)))
		return usage_err(p, "--listen %s: %s\n", arg, why);
	snprintf(where, sizeof(where), "--listen %s", arg);
	ret = rblk_config_add_port(p->a->flags, where, &port);
	if (ret)
		return ret;
	port->portid = p->a->flags->nr_ports;
	port->ipv6 = ipv6;
	port->trsvcid = svc;
	port->traddr = strdup(addr);
	return port->traddr ? 0 : -ENOMEM;
}

static int add_subsystem(struct pstate *p, const char *nqn)
{
	struct rblk_cfg_subsys *ss;
	char where[300], why[160];
	int ret;

	snprintf(where, sizeof(where), "--subsystem %s", nqn);
	if (!rblk_cfg_nqn_valid(nqn, where, why, sizeof(why)))
		return usage_err(p, "--subsystem %s: not a valid NQN: it %s\n", nqn, why);
	if (rblk_config_find_subsys(p->a->flags, nqn))
		return usage_err(p, "--subsystem %s: given twice\n", nqn);
	ret = rblk_config_add_subsys(p->a->flags, where, nqn, &ss);
	if (ret)
		return ret;
	p->cur_idx = p->a->flags->nr_subsys - 1;
	p->have_cur = true;
	return 0;
}

static int ns_option(struct pstate *p, const char *arg, struct rblk_cfg_ns *ns, char *opt)
{
	char *val = strchr(opt, '=');

	if (val)
		*val++ = '\0';
	if (!strcmp(opt, "ro") && !val) {
		ns->read_only = true;
	} else if (!strcmp(opt, "rw") && !val) {
		ns->read_only = false;
	} else if (!strcmp(opt, "rbd_cache") && !val) {
		/* Checked against the path with the rest of the namespace. */
		ns->rbd_cache = true;
	} else if (!strcmp(opt, "nsid") && val) {
		/* The NSID rule of rblk -N and ns= (common/parse.h): 0x hex too. */
		if (rblk_nsid_parse(val, &ns->nsid, NULL, 0))
			return usage_err(p, "--ns %s: nsid %s is not a valid namespace id (1..%u)\n",
					 arg, val, RBLK_CFG_NSID_MAX);
	} else if ((!strcmp(opt, "uuid") || !strcmp(opt, "nguid")) && val) {
		bool u = opt[0] == 'u';

		if (rblk_uuid_parse(val, u ? ns->uuid : ns->nguid))
			return usage_err(p, "--ns %s: %s %s is not a UUID\n", arg, opt, val);
		*(u ? &ns->has_uuid : &ns->has_nguid) = true;
	} else if (!strcmp(opt, "backend") && val) {
		if (strcmp(val, "uring") && strcmp(val, "aio"))
			return usage_err(p, "--ns %s: backend %s is not \"uring\" or \"aio\"\n", arg, val);
		free(ns->backend);
		if (!(ns->backend = strdup(val)))
			return -ENOMEM;
	} else if (!strcmp(opt, "bs") && val) {
		uint32_t bs;

		/* The target's rule (target/ns.c): the Linux host takes LBADS 9..12 only. */
		if (rblk_tgt_parse_size(val, 4096, &bs) || bs < 512 || (bs & (bs - 1)))
			return usage_err(p, "--ns %s: bs %s is not a block size (512..4096, a power of 2)\n",
					 arg, val);
		ns->block_size = bs;
	} else {
		return usage_err(p, "--ns %s: unknown option \"%s\" (ro, nsid=N, uuid=U, nguid=U, "
				 "backend=B, bs=N, rbd_cache)\n", arg, opt);
	}
	return 0;
}

static int add_ns(struct pstate *p, const char *arg)
{
	struct rblk_cfg_subsys *ss = cur_subsys(p);
	struct rblk_cfg_ns *ns;
	char where[600], *copy, *save = NULL, *tok;
	int ret;

	if (!ss)
		return usage_err(p, "--ns %s: give --subsystem NQN before it\n", arg);
	if (arg[0] == '\0' || arg[0] == ',')
		return usage_err(p, "--ns %s: missing path\n", arg);
	snprintf(where, sizeof(where), "--ns %s", arg);
	ret = rblk_cfg_subsys_add_ns(ss, where, &ns);
	if (ret)
		return ret;
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	tok = strtok_r(copy, ",", &save);
	ns->path = strdup(tok);
	while (!ret && ns->path && (tok = strtok_r(NULL, ",", &save)))
		ret = ns_option(p, arg, ns, tok);
	if (!ns->path)
		ret = -ENOMEM;
	free(copy);
	if (!ret && ns->nsid)
		for (size_t i = 0; i + 1 < ss->nr_ns; i++)
			if (ss->ns[i].nsid == ns->nsid)
				return usage_err(p, "--ns %s: nsid %u is already used by %s\n", arg,
						 ns->nsid, ss->ns[i].where);
	return ret;
}

static int allow_host(struct pstate *p, const char *nqn)
{
	struct rblk_cfg_subsys *ss = cur_subsys(p);
	struct rblk_config *f = p->a->flags;
	char where[300], why[160];
	int ret;

	if (!ss)
		return usage_err(p, "--allow-host %s: give --subsystem NQN before it\n", nqn);
	snprintf(where, sizeof(where), "--allow-host %s", nqn);
	if (!rblk_cfg_nqn_valid(nqn, where, why, sizeof(why)))
		return usage_err(p, "--allow-host %s: not a valid NQN: it %s\n", nqn, why);
	if (ss->allow_any_host)
		return usage_err(p, "--allow-host %s: %s already allows any host\n", nqn, ss->nqn);
	p->last_host = nqn;
	if (rblk_cfg_strv_has(ss->hosts, ss->nr_hosts, nqn))
		return 0;
	if (!rblk_cfg_strv_has(f->hosts, f->nr_hosts, nqn) && (ret = rblk_config_add_host(f, nqn)))
		return ret;
	return rblk_cfg_subsys_allow_host(ss, nqn);
}

/* --dhchap-*: a setting of the last --allow-host's host; validated with the config. */
static int set_dhchap(struct pstate *p, const char *flag, enum rblk_cfg_auth_field f,
		      const char *arg)
{
	struct rblk_cfg_auth *a;

	if (!p->last_host)
		return usage_err(p, "%s: give --allow-host NQN before it (the host it is for)\n", flag);
	if (!*arg)
		return usage_err(p, "%s: empty\n", flag);
	if (rblk_config_set_auth(p->a->flags, flag, p->last_host, &a) || rblk_cfg_auth_set(a, f, arg))
		return -ENOMEM;
	return 0;
}

static int set_u32(struct pstate *p, const char *flag, const char *arg, uint32_t min,
		   uint32_t max, bool size, uint32_t *out)
{
	uint64_t v;
	uint32_t s;

	if (size) {
		if (rblk_tgt_parse_size(arg, max, &s) || s < min)
			return usage_err(p, "%s %s: not a size in %u..%u bytes (k, M, G suffixes allowed)\n",
					 flag, arg, min, max);
		*out = s;
		return 0;
	}
	if (parse_u64(arg, &v) || v < min || v > max)
		return usage_err(p, "%s %s: not a number in %u..%u\n", flag, arg, min, max);
	*out = v;
	return 0;
}

/* --ns without nsid= gets the lowest id no other namespace of its subsystem uses. */
static void assign_nsids(struct rblk_config *f)
{
	for (size_t s = 0; s < f->nr_subsys; s++) {
		struct rblk_cfg_subsys *ss = &f->subsys[s];

		for (size_t i = 0; i < ss->nr_ns; i++) {
			uint32_t id = 1;

			if (ss->ns[i].nsid)
				continue;
			while (rblk_cfg_subsys_find_ns(ss, id))
				id++;
			ss->ns[i].nsid = id;
		}
	}
}

static int handle(struct pstate *p, int c, const char *arg)
{
	struct rblk_tgt_args *a = p->a;
	struct rblk_cfg_tgt *t = &a->flags->tgt;
	struct rblk_cfg_subsys *ss;
	uint32_t v;

	switch (c) {
	case 'c':
		a->config_path = arg;
		return 0;
	case OPT_LISTEN:
		return add_listen(p, arg);
	case OPT_SUBSYSTEM:
		return add_subsystem(p, arg);
	case OPT_NS:
		return add_ns(p, arg);
	case OPT_ALLOW_HOST:
		return allow_host(p, arg);
	case OPT_ALLOW_ANY_HOST:
		ss = cur_subsys(p);
		if (!ss)
			return usage_err(p, "--allow-any-host: give --subsystem NQN before it\n");
		if (ss->nr_hosts)
			return usage_err(p, "--allow-any-host: %s already has --allow-host entries; "
					 "use one or the other\n", ss->nqn);
		ss->allow_any_host = true;
		return 0;
	case OPT_DHCHAP_KEY:
		return set_dhchap(p, "--dhchap-key", RBLK_CFG_AUTH_KEY, arg);
	case OPT_DHCHAP_CTRL_KEY:
		return set_dhchap(p, "--dhchap-ctrl-key", RBLK_CFG_AUTH_CTRL_KEY, arg);
	case OPT_DHCHAP_HASH:
		return set_dhchap(p, "--dhchap-hash", RBLK_CFG_AUTH_HASH, arg);
	case OPT_DHCHAP_DHGROUP:
		return set_dhchap(p, "--dhchap-dhgroup", RBLK_CFG_AUTH_DHGROUP, arg);
	case OPT_BACKEND:
		if (strcmp(arg, "uring") && strcmp(arg, "aio"))
			return usage_err(p, "--backend %s: not \"uring\" or \"aio\"\n", arg);
		free(t->backend);
		t->backend = strdup(arg);
		return t->backend ? 0 : -ENOMEM;
	case OPT_CEPH_CONF:
	case OPT_RBD_ID:
	case OPT_RBD_KEYRING: {
		char **dst = c == OPT_CEPH_CONF ? &t->rbd_conf
			     : c == OPT_RBD_ID ? &t->rbd_id : &t->rbd_keyring;

		if (!*arg)
			return usage_err(p, "--%s: empty\n", c == OPT_CEPH_CONF ? "ceph-conf"
					 : c == OPT_RBD_ID ? "rbd-id" : "rbd-keyring");
		free(*dst);
		*dst = strdup(arg);
		return *dst ? 0 : -ENOMEM;
	}
	case OPT_STATE_DIR:
		free(t->state_dir);
		t->state_dir = strdup(arg);
		return t->state_dir ? 0 : -ENOMEM;
	case OPT_POLL_GROUPS:
		return set_u32(p, "--poll-groups", arg, 1, RBLK_TARGET_POLL_GROUPS_MAX, false,
			       &t->num_poll_groups);
	case OPT_POLL_MODE:
		if (rblk_cfg_poll_mode_parse(arg, &t->poll_mode))
			return usage_err(p, "--poll-mode %s: not adaptive, busy or event\n", arg);
		t->has_poll_mode = true;
		return 0;
	case OPT_QUEUE_DEPTH:
		return set_u32(p, "--queue-depth", arg, 2, RBLK_TARGET_QUEUE_DEPTH_MAX, false,
			       &t->max_queue_depth);
	case OPT_IN_CAPSULE:
		t->has_in_capsule_data_size = true;
		return set_u32(p, "--in-capsule", arg, 0, 1u << 20, true, &t->in_capsule_data_size);
	case OPT_SRQ_DEPTH:
		t->has_srq_depth = true;
		if (set_u32(p, "--srq-depth", arg, 0, RBLK_TARGET_SRQ_DEPTH_MAX, false, &t->srq_depth))
			return -EINVAL;
		if (t->srq_depth && t->srq_depth < RBLK_TARGET_SRQ_DEPTH_MIN)
			return usage_err(p, "--srq-depth %s: 0 (no shared receive queue) or %u..%u\n",
					 arg, RBLK_TARGET_SRQ_DEPTH_MIN, RBLK_TARGET_SRQ_DEPTH_MAX);
		return 0;
	case OPT_MAX_IO_SIZE:
		/* Power of two, the pool and in-capsule relations: the start-up check. */
		return set_u32(p, "--max-io-size", arg, 8192, RBLK_TARGET_IO_SIZE_MAX, true,
			       &t->max_io_size);
	/* Admission control: the library's ranges (rblk/target.h), 0 not accepted. */
	case OPT_CONNECT_TIMEOUT:
		return set_u32(p, "--connect-timeout", arg, RBLK_TARGET_CONNECT_TIMEOUT_MS_MIN,
			       RBLK_TARGET_CONNECT_TIMEOUT_MS_MAX, false, &t->connect_timeout_ms);
	case OPT_MAX_PENDING:
		return set_u32(p, "--max-pending", arg, 1, RBLK_TARGET_PENDING_MAX, false,
			       &t->max_pending_queues);
	case OPT_MAX_PENDING_PER_ADDR:
		return set_u32(p, "--max-pending-per-addr", arg, 1, RBLK_TARGET_PENDING_MAX,
			       false, &t->max_pending_per_addr);
	case OPT_MAX_CTRLS_PER_HOST:
		return set_u32(p, "--max-ctrls-per-host", arg, 1, RBLK_TARGET_CTRLS_PER_HOST_MAX,
			       false, &t->max_ctrls_per_host);
	case OPT_MAX_QUEUES:
		return set_u32(p, "--max-queues", arg, 2, RBLK_TARGET_QUEUES_MAX, false,
			       &t->max_queues);
	case OPT_LOG_LEVEL:
		if (rblk_log_level_parse(arg, &a->log_level))
			return usage_err(p, "--log-level %s: not err, warn, notice, info or debug\n", arg);
		a->log_level_set = true;
		return 0;
	case OPT_LOG_TIME:
		a->log_time = true;
		return 0;
	case OPT_STATS_INTERVAL:
		if (set_u32(p, "--stats-interval", arg, 1, 86400, false, &v))
			return -EINVAL;
		a->stats_interval = v;
		return 0;
	case OPT_RPC_SOCKET:
		if (!*arg)
			return usage_err(p, "--rpc-socket: empty (\"none\" turns the socket off)\n");
		free(t->rpc_socket);
		t->rpc_socket = strdup(arg);
		return t->rpc_socket ? 0 : -ENOMEM;
	case OPT_METRICS:
		if (rblk_metrics_addr_parse(arg, NULL))
			return usage_err(p, "--metrics %s: not ADDR:PORT (an IPv4 address or [IPv6] "
					 "address, and a port 1..65535)\n", arg);
		free(t->metrics);
		t->metrics = strdup(arg);
		return t->metrics ? 0 : -ENOMEM;
	case OPT_PIDFILE:
		a->pidfile = arg;
		return 0;
	case OPT_FOREGROUND:
		return 0; /* always: systemd and containers supervise a foreground process */
	case OPT_SAVE:
		a->save_path = arg;
		return 0;
	case OPT_CHECK:
		a->check_only = true;
		return 0;
	case OPT_ABORT_ON_ERROR:
		a->mode = RBLK_CFG_STRICT;
		return 0;
	case OPT_BEST_EFFORT:
		a->mode = RBLK_CFG_BEST_EFFORT;
		return 0;
	case 'h':
		a->help = true;
		return 0;
	case 'V':
		a->version = true;
		return 0;
	default:
		return -EINVAL; /* getopt printed the message */
	}
}

static bool rpc_off(const struct rblk_tgt_args *a)
{
	return a->flags->tgt.rpc_socket && strcmp(a->flags->tgt.rpc_socket, "none") == 0;
}

int rblk_tgt_args_parse(int argc, char **argv, struct rblk_tgt_args *a, FILE *err)
{
	struct pstate p = { .a = a, .err = err };
	int c, ret;

	memset(a, 0, sizeof(*a));
	a->mode = RBLK_CFG_STRICT;
	ret = rblk_config_new(&a->flags);
	if (ret)
		return ret;
	optind = 0; /* full reset: the tests parse several command lines */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:hV", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (c == ':')
				return usage_err(&p, "%s: needs a value (see --help)\n", bad);
			if (optopt)
				return usage_err(&p, "-%c: unknown option (see --help)\n", optopt);
			return usage_err(&p, "%s: unknown option (see --help)\n", bad);
		}
		ret = handle(&p, c, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_err(&p, "%s: unexpected argument (options take the form --name VALUE)\n",
				 argv[optind]);
	if (a->help || a->version)
		return 0;
	assign_nsids(a->flags);
	/* Listeners export what they link (as nvmet ports): quick flags link everything. */
	for (size_t i = 0; i < a->flags->nr_ports; i++)
		for (size_t s = 0; s < a->flags->nr_subsys; s++)
			if ((ret = rblk_cfg_port_link(&a->flags->ports[i], a->flags->subsys[s].nqn)))
				return ret;
	/* With the management socket on, an empty start waits to be configured through it. */
	if (!a->config_path && !a->flags->nr_subsys && rpc_off(a))
		return usage_err(&p, "nothing to export: give --config FILE, or --listen ADDR "
				 "--subsystem NQN --ns PATH, or a --rpc-socket to configure it "
				 "through (see --help)\n");
	if (!a->config_path && !a->flags->nr_ports && rpc_off(a))
		return usage_err(&p, "no --listen ADDR[:PORT] given: nothing to listen on\n");
	return 0;
}

void rblk_tgt_args_free(struct rblk_tgt_args *a)
{
	rblk_config_free(a->flags);
	a->flags = NULL;
}
