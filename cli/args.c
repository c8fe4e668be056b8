/* SPDX-License-Identifier: MIT */
/*
 * Command-line parsing shared by the verbs (see cli/args.h): numbers, the
 * output format, nvme-cli connection flags and SPDK transport-ID strings.
 * Ports, sizes, NSIDs, NQNs and transport IDs follow the rules every rblk
 * program applies (common/parse.h, protocol/nqn.h, rblk_trid_parse): what
 * the CLI accepts, the library connects to.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/auth.h"
#include "cli/cli.h"
#include "cli/args.h"
#include "common/parse.h"
#include "common/uuid.h"
#include "protocol/nqn.h"

int rblk_cli_parse_format(const char *s, enum cli_fmt *out)
{
	if (!strcmp(s, "normal")) {
		*out = CLI_FMT_NORMAL;
		return 0;
	}
	if (!strcmp(s, "json")) {
		*out = CLI_FMT_JSON;
		return 0;
	}
	return -EINVAL;
}

int rblk_cli_parse_long(const char *s, long min, long max, long *out)
{
	long v;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int rblk_cli_parse_seconds(const char *s, double *out)
{
	double v;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end == 's' && end[1] == '\0')
		end++;
	if (*end || errno || !isfinite(v))
		return -EINVAL;
	if (v < 0)
		return -ERANGE;
	*out = v;
	return 0;
}

const char rblk_cli_conn_help[] =
	"Connection:\n"
	"  -t, --transport=rdma          transport type (only rdma)\n"
	"  -a, --traddr=ADDR             target address (IPv4/IPv6)\n"
	"  -s, --trsvcid=PORT            target port, decimal 1-65535 (default 4420); an -s after\n"
	"                                an -a is that address's port (attach, read, write: repeat\n"
	"                                -a ADDR [-s PORT] per path to one subsystem)\n"
	"  -n, --nqn=SUBNQN              subsystem NQN\n"
	"  -q, --hostnqn=NQN             host NQN (default /etc/nvme/hostnqn, else generated)\n"
	"  -I, --hostid=UUID             host ID (default /etc/nvme/hostid)\n"
	"  -w, --host-traddr=ADDR        local source address (selects the RDMA device)\n"
	"  -Q, --queue-size=N            I/O queue entries, 16..1024 (default 128)\n"
	"  -i, --nr-io-queues=N          I/O queues (default: online CPUs, capped by the target)\n"
	"  -k, --keep-alive-tmo=SEC      keep-alive timeout (default 5)\n"
	"  -c, --reconnect-delay=SEC     delay between reconnect attempts (default 10)\n"
	"  -l, --ctrl-loss-tmo=SEC       give up reconnecting after SEC, -1 = never (default 600)\n"
	"      --io-timeout=SEC          an I/O unanswered SEC resets the connection (it is sent\n"
	"                                again, or down another path), -1 = never (default 30)\n"
	"      --iopolicy=POLICY         with several -a: first (default: the first usable path),\n"
	"                                round-robin, or queue-depth (the path with the fewest\n"
	"                                I/Os in flight: a slow path gets fewer)\n"
	"  -r, --trid='KEY=VAL ...'      SPDK transport ID: trtype=RDMA adrfam=IPv4 traddr=ADDR\n"
	"                                trsvcid=PORT subnqn=NQN [hostnqn=NQN] [hostid=UUID]\n"
	"                                [hostaddr=ADDR] [ns=N]\n"
	"                                (key:value works too; later flags override earlier ones)\n"
	"  -S, --dhchap-secret=SECRET    DH-HMAC-CHAP host secret (DHHC-1:NN:...:, as nvme\n"
	"                                gen-dhchap-key makes it), used when the target asks\n"
	"  -C, --dhchap-ctrl-secret=SECRET\n"
	"                                controller secret: the target proves itself too (needs -S)\n";

void rblk_cli_conn_init(struct cli_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->kato = -1;
	c->reconnect_delay = -1;
	c->ctrl_loss_tmo = -2;
	c->io_timeout = -2;
}

void rblk_cli_conn_fini(struct cli_conn *c)
{
	for (unsigned i = 0; i < c->n_trid; i++)
		free(c->trid[i]);
	c->n_trid = 0;
}

static int bad_value(int opt, const char *arg, const char *why)
{
	return rblk_cli_usage_err("invalid value '%s' for -%c: %s", arg, opt, why);
}

/*
 * A DHHC-1 secret checked here, so that a typo is a usage error before any
 * connection; the message never repeats the secret (it ends up in logs).
 */
static int check_secret(int opt, const char *arg, const char **dst)
{
	struct rblk_auth_secret s;
	int ret = rblk_auth_secret_parse(arg, &s);

	rblk_auth_secret_clear(&s);
	if (ret)
		return rblk_cli_usage_err("invalid value for -%c (--%s): not a DHHC-1 secret "
					  "(DHHC-1:00..03:<base64 of a 32, 48 or 64-byte key and its "
					  "CRC-32>:, as `nvme gen-dhchap-key` prints it)",
					  opt, opt == 'S' ? "dhchap-secret" : "dhchap-ctrl-secret");
	*dst = arg;
	return 1;
}

static int check_nqn(int opt, const char *arg, const char **dst)
{
	char why[80];

	if (rblk_nqn_policy_check(arg, why, sizeof(why)))
		return rblk_cli_usage_err("invalid value '%s' for -%c: the NQN %s", arg, opt, why);
	*dst = arg;
	return 1;
}

int rblk_cli_conn_opt(struct cli_conn *c, int opt, const char *arg)
{
	char why[256];
	uint16_t port;
	long v;

	switch (opt) {
	case 't':
		if (strcasecmp(arg, "rdma"))
			return bad_value(opt, arg, "only the rdma transport is supported");
		c->transport = arg;
		return 1;
	case 'a':
		if (!*arg)
			return bad_value(opt, arg, "empty address");
		if (c->npaths == RBLK_MPATH_MAX_PATHS)
			return bad_value(opt, arg, "at most 8 paths");
		c->paths[c->npaths++] = (struct cli_path){ .traddr = arg };
		c->traddr = c->paths[0].traddr;
		return 1;
	case 's':
		if (rblk_port_parse(arg, &port, why, sizeof(why)))
			return rblk_cli_usage_err("invalid value '%s' for -s: the port %s", arg, why);
		/* An -s belongs to the -a before it; before any -a it is everyone's default. */
		if (!c->npaths) {
			c->trsvcid = arg;
		} else if (c->paths[c->npaths - 1].trsvcid) {
			return rblk_cli_usage_err("-s %s: -a %s already has a port (-s %s); one -s per -a",
						  arg, c->paths[c->npaths - 1].traddr,
						  c->paths[c->npaths - 1].trsvcid);
		} else {
			c->paths[c->npaths - 1].trsvcid = arg;
		}
		return 1;
	case 'n':
		return check_nqn(opt, arg, &c->subnqn);
	case 'q':
		return check_nqn(opt, arg, &c->hostnqn);
	case 'I':
		if (!rblk_uuid_valid(arg))
			return bad_value(opt, arg, "a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
		c->hostid = arg;
		return 1;
	case 'w':
		if (!*arg)
			return bad_value(opt, arg, "empty address");
		c->host_traddr = arg;
		return 1;
	case 'Q':
		if (rblk_cli_parse_long(arg, 16, 1024, &v))
			return bad_value(opt, arg, "16..1024 entries");
		c->queue_size = v;
		return 1;
	case 'i':
		if (rblk_cli_parse_long(arg, 1, 1024, &v))
			return bad_value(opt, arg, "1..1024 queues");
		c->nr_io_queues = v;
		return 1;
	case 'k':
		if (rblk_cli_parse_long(arg, 0, 65535, &v))
			return bad_value(opt, arg, "0..65535 seconds");
		c->kato = v;
		return 1;
	case 'c':
		if (rblk_cli_parse_long(arg, 1, INT32_MAX, &v))
			return bad_value(opt, arg, "a positive number of seconds");
		c->reconnect_delay = v;
		return 1;
	case 'l':
		if (rblk_cli_parse_long(arg, -1, INT32_MAX, &v))
			return bad_value(opt, arg, "seconds, or -1 for never");
		c->ctrl_loss_tmo = v;
		return 1;
	case CLI_OPT_IO_TIMEOUT:
		/* nvme_core.io_timeout's unit; at most what the library's milliseconds hold */
		if (rblk_cli_parse_long(arg, -1, 4294967, &v) || v == 0)
			return rblk_cli_usage_err("invalid value '%s' for --io-timeout: seconds (1..4294967), or -1 for never",
						  arg);
		c->io_timeout = v;
		return 1;
	case CLI_OPT_IOPOLICY:
		if (rblk_mpath_iopolicy_parse(arg, &c->iopolicy))
			return rblk_cli_usage_err("invalid value '%s' for --iopolicy: first, round-robin or queue-depth",
						  arg);
		return 1;
	case 'S':
		return check_secret(opt, arg, &c->dhchap_secret);
	case 'C':
		return check_secret(opt, arg, &c->dhchap_ctrl_secret);
	case 'r':
		if (rblk_cli_conn_trid(c, arg, why, sizeof(why)))
			return rblk_cli_usage_err("invalid transport ID '%s': %s", arg, why);
		return 1;
	default:
		return 0;
	}
}

int rblk_cli_conn_trid(struct cli_conn *c, const char *s, char *why, size_t whylen)
{
	struct rblk_trid *t;

	if (c->n_trid == CLI_TRID_MAX) {
		snprintf(why, whylen, "at most %d transport IDs", CLI_TRID_MAX);
		return -EINVAL;
	}
	t = malloc(sizeof(*t));
	if (!t) {
		snprintf(why, whylen, "out of memory");
		return -EINVAL;
	}
	t->size = sizeof(*t);
	if (rblk_trid_parse(s, t, why, whylen))
		goto err;
	/* The paths of a multipath attach are -a flags; a list would hide which -s goes where. */
	if (strchr(t->traddr, ',') || strchr(t->trsvcid, ',')) {
		snprintf(why, whylen, "one traddr and trsvcid per -r: give several paths as -a ADDR "
			 "[-s PORT] each");
		goto err;
	}
	/* Strings point into @t, which lives as long as @c. */
	if (t->set & RBLK_TRID_TRTYPE)
		c->transport = "rdma";
	if (t->set & RBLK_TRID_TRADDR) {
		c->traddr = t->traddr;
		c->npaths = 0;	/* -r's address replaces the -a before it */
	}
	if (t->set & RBLK_TRID_TRSVCID) {
		c->trsvcid = t->trsvcid;
		if (c->npaths == 1)
			c->paths[0].trsvcid = NULL;
	}
	if (t->set & RBLK_TRID_SUBNQN)
		c->subnqn = t->subnqn;
	if (t->set & RBLK_TRID_HOSTNQN)
		c->hostnqn = t->hostnqn;
	if (t->set & RBLK_TRID_HOSTID)
		c->hostid = t->hostid;
	if (t->set & RBLK_TRID_HOSTADDR)
		c->host_traddr = t->host_traddr;
	if (t->set & RBLK_TRID_NS) {
		c->nsid = t->nsid;
		c->have_nsid = true;
	}
	c->trid[c->n_trid++] = t;
	return 0;
err:
	free(t);
	return -EINVAL;
}

int rblk_cli_conn_finish(struct cli_conn *c, const char *default_nqn, struct rblk_connect_opts *opts)
{
	rblk_connect_opts_init(opts);
	if (c->npaths > 1)
		return rblk_cli_usage_err("several paths (-a given %u times) are for `rblk attach`, `read` "
					  "and `write`; this verb takes one",
					  c->npaths);
	if (!c->traddr)
		return rblk_cli_usage_err("no target address: give -a ADDR (or -r 'traddr=ADDR ...')");
	if (!c->subnqn && !default_nqn)
		return rblk_cli_usage_err("no subsystem NQN: give -n NQN (or -r 'subnqn=NQN ...')");
	if (c->dhchap_ctrl_secret && !c->dhchap_secret)
		return rblk_cli_usage_err("--dhchap-ctrl-secret needs --dhchap-secret: the target "
					  "authenticates itself only to an authenticated host");
	opts->traddr = c->traddr;
	if (c->trsvcid)
		opts->trsvcid = c->trsvcid;
	if (c->npaths == 1 && c->paths[0].trsvcid)
		opts->trsvcid = c->paths[0].trsvcid;
	opts->subnqn = c->subnqn ? c->subnqn : default_nqn;
	opts->hostnqn = c->hostnqn;
	opts->hostid = c->hostid;
	opts->host_traddr = c->host_traddr;
	opts->dhchap_secret = c->dhchap_secret;
	opts->dhchap_ctrl_secret = c->dhchap_ctrl_secret;
	if (c->queue_size)
		opts->queue_size = (uint32_t)c->queue_size;
	if (c->nr_io_queues)
		opts->nr_io_queues = (uint32_t)c->nr_io_queues;
	if (c->kato >= 0)
		opts->keep_alive_tmo = (uint32_t)c->kato;
	if (c->reconnect_delay >= 0)
		opts->reconnect_delay = (int32_t)c->reconnect_delay;
	if (c->ctrl_loss_tmo >= -1)
		opts->ctrl_loss_tmo = (int32_t)c->ctrl_loss_tmo;
	if (c->io_timeout == -1)
		opts->io_timeout_ms = UINT32_MAX;
	else if (c->io_timeout > 0)
		opts->io_timeout_ms = (uint32_t)c->io_timeout * 1000;
	return CLI_EXIT_OK;
}

int rblk_cli_conn_finish_paths(struct cli_conn *c, struct rblk_connect_opts *opts, unsigned *n)
{
	unsigned npaths = c->npaths;
	int ret;

	c->npaths = npaths > 1 ? 1 : npaths;
	ret = rblk_cli_conn_finish(c, NULL, &opts[0]);
	c->npaths = npaths;
	if (ret)
		return ret;
	*n = npaths > 1 ? npaths : 1;
	for (unsigned i = 1; i < *n; i++) {
		opts[i] = opts[0];
		opts[i].traddr = c->paths[i].traddr;
		opts[i].trsvcid = c->paths[i].trsvcid ? c->paths[i].trsvcid
				  : c->trsvcid		  ? c->trsvcid
							  : "4420";
	}
	return CLI_EXIT_OK;
}

void rblk_cli_getopt_reset(void)
{
	optind = 0;	/* glibc: 0 re-initialises, so verbs can be run twice in one process */
	opterr = 0;
}

int rblk_cli_bad_option(int ret, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (ret == ':')
		return rblk_cli_usage_err("option '%s' needs a value", arg);
	if (optopt)
		return rblk_cli_usage_err("unknown option '-%c'", optopt);
	return rblk_cli_usage_err("unknown option '%s'", arg);
}
