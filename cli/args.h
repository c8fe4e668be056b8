/* SPDX-License-Identifier: MIT */
/*
 * Command-line parsing shared by the verbs: numbers with size suffixes, the
 * output format, nvme-cli's connection flags (-t -a -s -n -q -I -w -Q -i -k
 * -c -l -S -C) and SPDK's transport-ID strings (-r 'trtype=RDMA traddr=... ns=1'),
 * and the conversion to struct rblk_connect_opts.
 */
#ifndef RBLK_CLI_ARGS_H
#define RBLK_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <rblk/initiator.h>

#include "common/parse.h"

enum cli_fmt {
	CLI_FMT_NORMAL,
	CLI_FMT_JSON,
};

/* "normal" or "json" (nvme-cli's names); -EINVAL otherwise. */
int rblk_cli_parse_format(const char *s, enum cli_fmt *out);

/* Sizes and NSIDs: rblk_size_parse() and rblk_nsid_parse() of common/parse.h. */
/* A plain integer within [min, max]; 0, -EINVAL or -ERANGE. */
int rblk_cli_parse_long(const char *s, long min, long max, long *out);
/* A non-negative decimal number of seconds, fractions allowed ("0.5"). */
int rblk_cli_parse_seconds(const char *s, double *out);

#define CLI_TRID_MAX 4

/* One path of a multipath attach: an -a and the -s after it. */
struct cli_path {
	const char *traddr;
	const char *trsvcid;		/* NULL: the -s given before any -a, else 4420 */
};

/* The connection flags of every verb that talks to a target. */
struct cli_conn {
	const char *transport;		/* -t: "rdma" only */
	const char *traddr;		/* -a (the first one) */
	const char *trsvcid;		/* -s, default 4420 (given before any -a: every path's default) */
	struct cli_path paths[RBLK_MPATH_MAX_PATHS];	/* each -a in order, with the -s after it */
	unsigned npaths;
	const char *subnqn;		/* -n */
	const char *hostnqn;		/* -q */
	const char *hostid;		/* -I */
	const char *host_traddr;	/* -w */
	long queue_size;		/* -Q, 0 = library default */
	long nr_io_queues;		/* -i, 0 = library default */
	long kato;			/* -k, -1 = library default */
	long reconnect_delay;		/* -c, -1 = library default */
	long ctrl_loss_tmo;		/* -l, -2 = library default (-1 means forever) */
	long io_timeout;		/* --io-timeout, seconds; -2 = library default, -1 = never */
	enum rblk_mpath_iopolicy iopolicy;	/* --iopolicy (several -a) */
	const char *dhchap_secret;	/* -S, checked to be DHHC-1 */
	const char *dhchap_ctrl_secret;	/* -C, checked to be DHHC-1 */
	uint32_t nsid;			/* from -r ns=N or the verb's -N */
	bool have_nsid;
	struct rblk_trid *trid[CLI_TRID_MAX];	/* each -r, parsed (fields point into them) */
	unsigned n_trid;
};

/* getopt codes of the long-only connection flags (past every char a verb uses). */
#define CLI_OPT_IO_TIMEOUT 0x100
#define CLI_OPT_IOPOLICY 0x101

/* Short and long options every connecting verb accepts (prepend to the verb's own). */
#define CLI_CONN_SHORTOPTS "t:a:s:n:q:I:w:Q:i:k:c:l:r:S:C:"
#define CLI_CONN_LONGOPTS                                                        \
	{ "transport", required_argument, NULL, 't' },                          \
	{ "traddr", required_argument, NULL, 'a' },                             \
	{ "trsvcid", required_argument, NULL, 's' },                            \
	{ "nqn", required_argument, NULL, 'n' },                                \
	{ "hostnqn", required_argument, NULL, 'q' },                            \
	{ "hostid", required_argument, NULL, 'I' },                             \
	{ "host-traddr", required_argument, NULL, 'w' },                        \
	{ "queue-size", required_argument, NULL, 'Q' },                         \
	{ "nr-io-queues", required_argument, NULL, 'i' },                       \
	{ "keep-alive-tmo", required_argument, NULL, 'k' },                     \
	{ "reconnect-delay", required_argument, NULL, 'c' },                    \
	{ "ctrl-loss-tmo", required_argument, NULL, 'l' },                      \
	{ "io-timeout", required_argument, NULL, CLI_OPT_IO_TIMEOUT },          \
	{ "iopolicy", required_argument, NULL, CLI_OPT_IOPOLICY },              \
	{ "trid", required_argument, NULL, 'r' },                               \
	{ "dhchap-secret", required_argument, NULL, 'S' },                      \
	{ "dhchap-ctrl-secret", required_argument, NULL, 'C' }

/* The OPTIONS lines that go with CLI_CONN_LONGOPTS (for --help). */
extern const char rblk_cli_conn_help[];

void rblk_cli_conn_init(struct cli_conn *c);
void rblk_cli_conn_fini(struct cli_conn *c);
/*
 * Handles one getopt result if it is a connection flag: 1 = handled, 0 = not
 * a connection flag, CLI_EXIT_USAGE (2, message printed) = bad value.
 * Flags apply in command-line order: a later -a overrides -r's traddr.
 */
int rblk_cli_conn_opt(struct cli_conn *c, int opt, const char *arg);
/*
 * Applies an SPDK transport ID (rblk_trid_parse: trtype, adrfam, traddr,
 * trsvcid, subnqn, hostnqn, hostid, hostaddr, ns) to @c: the keys it gives
 * override earlier flags. One path per -r (no comma lists: several paths
 * are several -a). 0, or -EINVAL with a reason in @why and @c unchanged.
 */
int rblk_cli_conn_trid(struct cli_conn *c, const char *s, char *why, size_t whylen);
/*
 * Checks what the verb needs (one path: several -a are refused, exit 2, as
 * a usage error naming `rblk attach`; an address; a subsystem NQN unless
 * @default_nqn is given, which is then used; a host secret when a
 * controller secret is given) and fills @opts (after
 * rblk_connect_opts_init). CLI_EXIT_OK or CLI_EXIT_USAGE (message printed).
 */
int rblk_cli_conn_finish(struct cli_conn *c, const char *default_nqn,
			 struct rblk_connect_opts *opts);

/*
 * rblk_cli_conn_finish() for verbs that take several paths: @opts[0..*n)
 * get one connection each (the same except traddr/trsvcid). @opts holds
 * RBLK_MPATH_MAX_PATHS. CLI_EXIT_OK or CLI_EXIT_USAGE.
 */
int rblk_cli_conn_finish_paths(struct cli_conn *c, struct rblk_connect_opts *opts, unsigned *n);

/* Options every verb takes: -o/--output-format, -v/--verbose, -h/--help. */
#define CLI_COMMON_SHORTOPTS "o:vh"
#define CLI_COMMON_LONGOPTS                                                      \
	{ "output-format", required_argument, NULL, 'o' },                      \
	{ "verbose", no_argument, NULL, 'v' },                                  \
	{ "help", no_argument, NULL, 'h' }
extern const char rblk_cli_common_help[];
/*
 * Handles -o and -v (each -v raises the log level one step): 1 = handled,
 * 0 = not one of them, CLI_EXIT_USAGE = bad value (message printed).
 */
int rblk_cli_common_opt(int opt, const char *arg, enum cli_fmt *fmt);

/*
 * Connects with @opts; on failure prints why ("cannot connect to NQN at
 * ADDR:PORT: ...") and returns the exit code, else CLI_EXIT_OK.
 */
int rblk_cli_connect(const struct rblk_connect_opts *opts, struct rblk_ctrl **ctrl);
/*
 * The namespace to use: @c's -N / ns=, else the only active namespace
 * (several: a usage error listing them). CLI_EXIT_OK or an exit code.
 */
int rblk_cli_pick_nsid(struct rblk_ctrl *ctrl, const struct cli_conn *c, uint32_t *nsid);
/* rblk_ns_open with the error report; CLI_EXIT_OK or an exit code. */
int rblk_cli_open_ns(struct rblk_ctrl *ctrl, uint32_t nsid, struct rblk_ns **ns);
/*
 * Several -a (rblk_cli_conn_finish_paths): one multipath head over @n paths
 * with @c's -N, its namespace in *ns and the first connected path's
 * controller in *ctrl (Identify data, registered buffers). CLI_EXIT_OK, or
 * the exit code after printing why.
 */
int rblk_cli_mpath_connect(const struct rblk_connect_opts *paths, unsigned n, const struct cli_conn *c,
			   struct rblk_mpath **mp, struct rblk_ns **ns, struct rblk_ctrl **ctrl);

/*
 * One path (rblk_cli_connect, the namespace of -N or the only one) or a
 * multipath head over several (@npaths > 1): *mp is NULL for one path,
 * *ctrl the controller (the head's first connected path), *ns open.
 * CLI_EXIT_OK or the exit code after printing why; on failure whatever was
 * connected is still to be closed with rblk_cli_disconnect_ns().
 */
int rblk_cli_connect_ns(const struct rblk_connect_opts *popts, unsigned npaths,
			const struct cli_conn *c, struct rblk_mpath **mp, struct rblk_ctrl **ctrl,
			struct rblk_ns **ns, uint32_t *nsid);
void rblk_cli_disconnect_ns(struct rblk_mpath *mp, struct rblk_ctrl *ctrl, struct rblk_ns *ns);

/* getopt_long wrapper resetting state (optind = 0) and silencing getopt's own messages. */
void rblk_cli_getopt_reset(void);
/*
 * Prints the usage error for a '?' or ':' returned by getopt_long (option
 * strings start with ':' so a missing value is told apart); returns CLI_EXIT_USAGE.
 */
int rblk_cli_bad_option(int ret, int argc, char **argv);

#endif
