/* SPDX-License-Identifier: MIT */
/*
 * The `rblk` command-line tool: what every verb shares. Exit codes (the
 * documented contract with scripts, see docs/rblk.1), where output goes,
 * error reporting that turns -errno / NVMe status into a message and an exit
 * code, and the verb entry points dispatched by cli/main.c.
 *
 * Rules every verb follows: results go to stdout (JSON with -o json, nothing
 * else on stdout then), messages and progress go to stderr, `--help` prints
 * the verb's usage with EXAMPLES and exits 0, a bad command line exits 2.
 */
#ifndef RBLK_CLI_H
#define RBLK_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes: small and stable (nvme-cli's raw status/-errno returns are awkward in scripts). */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILURE = 1,		/* anything not below: I/O error, local failure */
	CLI_EXIT_USAGE = 2,		/* bad command line, unaligned or out-of-range request */
	CLI_EXIT_REFUSED = 3,		/* the target answered with an NVMe error status */
	CLI_EXIT_UNREACHABLE = 4,	/* no route, no RDMA device, nobody listening, timeout */
	CLI_EXIT_NOT_FOUND = 5,		/* unknown subsystem NQN, inactive namespace, no such ublk or NBD device */
	CLI_EXIT_CHECK = 6,		/* a check failed: verify mismatch, --compare, doctor FAIL */
};

/* One-line meaning of an exit code (for --help and the man page). */
const char *rblk_cli_exit_str(int code);

/* stdout and stderr, unless a test pointed them elsewhere. */
extern FILE *rblk_cli_out;
extern FILE *rblk_cli_errf;
/* The verb being run ("discover"), for message prefixes. */
extern const char *rblk_cli_verb;

/* "rblk VERB: message\n" on stderr. */
void rblk_cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, then "Try 'rblk VERB --help'."; returns CLI_EXIT_USAGE. */
int rblk_cli_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What was being done when an error happened; decides "not found" vs "refused". */
enum cli_op {
	CLI_OP_CONNECT,		/* connecting (admin queue, Connect command, I/O queues) */
	CLI_OP_NS,		/* opening/identifying a namespace */
	CLI_OP_IO,		/* reading/writing data */
	CLI_OP_OTHER,
};

/*
 * The exit code for a failure: @err is 0 or -errno, @status the NVMe status
 * when @err is -EREMOTEIO (0 otherwise).
 */
int rblk_cli_exit_code(enum cli_op op, int err, uint16_t status);
/*
 * Prints "rblk VERB: WHAT: <reason>" (reason: the NVMe status by name, or
 * strerror, plus a hint for unreachable / not-found cases) and returns
 * rblk_cli_exit_code().
 */
int rblk_cli_report(enum cli_op op, int err, uint16_t status, const char *what, ...)
	__attribute__((format(printf, 4, 5)));
/* "Connect Invalid Host (0x4184)" into @buf, named for the kind of command @op sent. */
const char *rblk_cli_status_desc(enum cli_op op, uint16_t status, char *buf, size_t len);

/* Verbs: each takes argv with argv[0] = the verb name and returns an exit code. */
int rblk_cli_discover(int argc, char **argv);
int rblk_cli_id_ctrl(int argc, char **argv);
int rblk_cli_id_ns(int argc, char **argv);
int rblk_cli_list(int argc, char **argv);
int rblk_cli_read(int argc, char **argv);
int rblk_cli_write(int argc, char **argv);
int rblk_cli_bench(int argc, char **argv);
int rblk_cli_attach(int argc, char **argv);
int rblk_cli_detach(int argc, char **argv);
int rblk_cli_doctor(int argc, char **argv);
int rblk_cli_gen_hostnqn(int argc, char **argv);
int rblk_cli_gen_dhchap_key(int argc, char **argv);
int rblk_cli_version(int argc, char **argv);
int rblk_cli_compare(int argc, char **argv);
int rblk_cli_compare_write(int argc, char **argv);
int rblk_cli_verify(int argc, char **argv);
int rblk_cli_copy(int argc, char **argv);
int rblk_cli_resv_register(int argc, char **argv);
int rblk_cli_resv_acquire(int argc, char **argv);
int rblk_cli_resv_release(int argc, char **argv);
int rblk_cli_resv_report(int argc, char **argv);

/* The whole program: `rblk VERB [OPTIONS]` (cli/main.c). */
int rblk_cli_main(int argc, char **argv);

/* Prints the "EXIT STATUS" block shared by every verb's --help. */
void rblk_cli_print_exit_codes(FILE *f);

#endif
