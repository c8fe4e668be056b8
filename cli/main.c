/* SPDX-License-Identifier: MIT */
/*
 * `rblk` itself: verb dispatch, top-level help and version, the log handler
 * that keeps library messages on stderr, and the one place that turns
 * -errno / NVMe status into a message and a documented exit code.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <rblk/common.h>
#include <rblk/initiator.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "protocol/names.h"
#include "protocol/nvme.h"

FILE *rblk_cli_out;
FILE *rblk_cli_errf;
const char *rblk_cli_verb = "";

static FILE *errf(void)
{
	return rblk_cli_errf ? rblk_cli_errf : stderr;
}

static void verr(const char *fmt, va_list ap)
{
	FILE *f = errf();

	fprintf(f, "rblk%s%s: ", *rblk_cli_verb ? " " : "", rblk_cli_verb);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void rblk_cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(fmt, ap);
	va_end(ap);
}

int rblk_cli_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(fmt, ap);
	va_end(ap);
	fprintf(errf(), "Try 'rblk %s --help'.\n", *rblk_cli_verb ? rblk_cli_verb : "");
	return CLI_EXIT_USAGE;
}

const char *rblk_cli_exit_str(int code)
{
	switch (code) {
	case CLI_EXIT_OK: return "success";
	case CLI_EXIT_FAILURE: return "failure (I/O error, local error)";
	case CLI_EXIT_USAGE: return "bad command line, or an unaligned or out-of-range request";
	case CLI_EXIT_REFUSED: return "the target refused: an NVMe error status, or authentication failed";
	case CLI_EXIT_UNREACHABLE: return "target unreachable: no route, no RDMA device, nobody listening, timeout";
	case CLI_EXIT_NOT_FOUND: return "not found: unknown subsystem NQN, inactive namespace, no such NBD device";
	case CLI_EXIT_CHECK: return "a check failed: data mismatch, bench --compare regression, doctor FAIL";
	default: return "?";
	}
}

void rblk_cli_print_exit_codes(FILE *f)
{
	fprintf(f, "Exit status:\n");
	for (int i = CLI_EXIT_OK; i <= CLI_EXIT_CHECK; i++)
		fprintf(f, "  %d  %s\n", i, rblk_cli_exit_str(i));
}

const char *rblk_cli_status_desc(enum cli_op op, uint16_t status, char *buf, size_t len)
{
	const char *name;

	/* SCT 1 codes 0x80.. mean one thing for Connect and another for NVM I/O */
	if (op == CLI_OP_CONNECT)
		name = rblk_nvme_cmd_status_str(status, NVME_FABRICS_COMMAND);
	else if (op == CLI_OP_IO)
		name = rblk_nvme_cmd_status_str(status, NVME_IO_READ);
	else
		name = rblk_status_str(status);
	snprintf(buf, len, "%s (%#06x)", name, status);
	return buf;
}

static bool err_unreachable(int err)
{
	switch (-err) {
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ETIMEDOUT:
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case EADDRNOTAVAIL:
	case EHOSTDOWN:
	case ENETDOWN:
	case ENOTCONN:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return true;
	default:
		return false;
	}
}

int rblk_cli_exit_code(enum cli_op op, int err, uint16_t status)
{
	uint16_t code = status & NVME_STATUS_CODE_MASK;

	if (!err)
		return CLI_EXIT_OK;
	if (err == -EREMOTEIO && status) {
		/* nvmet and rblk-target answer an unknown subsystem NQN this way (IPO = SUBNQN) */
		if (op == CLI_OP_CONNECT && code == NVME_SC_CONNECT_INVALID_PARAM)
			return CLI_EXIT_NOT_FOUND;
		if (code == NVME_SC_INVALID_NS)
			return CLI_EXIT_NOT_FOUND;
		return CLI_EXIT_REFUSED;
	}
	if (op == CLI_OP_NS && (err == -ENOENT || err == -ENODEV || err == -ENXIO))
		return CLI_EXIT_NOT_FOUND;
	if (op == CLI_OP_CONNECT && (err_unreachable(err) || err == -ENODEV))
		return CLI_EXIT_UNREACHABLE;
	/* Authentication required, refused, or the controller failed ours: a refusal. */
	if (op == CLI_OP_CONNECT && err == -EACCES)
		return CLI_EXIT_REFUSED;
	if (op == CLI_OP_CONNECT && err == -EINVAL)
		return CLI_EXIT_USAGE;
	if (op == CLI_OP_CONNECT && err == -ENOENT)
		return CLI_EXIT_NOT_FOUND;
	return CLI_EXIT_FAILURE;
}

int rblk_cli_report(enum cli_op op, int err, uint16_t status, const char *what, ...)
{
	int code = rblk_cli_exit_code(op, err, status);
	char msg[512], st[96];
	va_list ap;

	va_start(ap, what);
	vsnprintf(msg, sizeof(msg), what, ap);
	va_end(ap);
	if (err == -EREMOTEIO && status)
		rblk_cli_err("%s: NVMe status: %s", msg, rblk_cli_status_desc(op, status, st, sizeof(st)));
	else
		rblk_cli_err("%s: %s", msg, strerror(-err));
	switch (code) {
	case CLI_EXIT_UNREACHABLE:
		rblk_cli_err("hint: is a target (rblk-target, nvmet) listening there, and is an RDMA "
			     "device up on this host? `rblk doctor` checks the local side");
		break;
	case CLI_EXIT_NOT_FOUND:
		if (op == CLI_OP_CONNECT)
			rblk_cli_err("hint: the target does not serve that subsystem NQN; "
				     "`rblk discover` lists what it serves");
		else if (op == CLI_OP_NS)
			rblk_cli_err("hint: `rblk list` shows the active namespaces");
		break;
	case CLI_EXIT_REFUSED:
		if (op == CLI_OP_CONNECT && err == -EACCES)
			rblk_cli_err("hint: in-band authentication failed: give the subsystem's "
				     "DH-HMAC-CHAP key for this host NQN with -S/--dhchap-secret (and "
				     "-C/--dhchap-ctrl-secret for the controller's); -v shows why");
		else if ((status & NVME_STATUS_CODE_MASK) == NVME_SC_CONNECT_INVALID_HOST)
			rblk_cli_err("hint: the subsystem does not allow this host NQN (-q, "
				     "/etc/nvme/hostnqn); add it to the subsystem's allowed hosts");
		break;
	default:
		break;
	}
	return code;
}

static void log_handler(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	fprintf(errf(), "rblk: %s: %s\n", rblk_log_level_str(level), msg);
}

int rblk_cli_gen_hostnqn(int argc, char **argv)
{
	char nqn[RBLK_NQN_MAX + 1];
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fprintf(rblk_cli_out,
			"Usage: rblk gen-hostnqn\n\n"
			"Prints a host NQN of the form nqn.2014-08.org.nvmexpress:uuid:<uuid>, the UUID\n"
			"taken from /sys/class/dmi/id/product_uuid when readable, else random\n"
			"(libnvme's order, as `nvme gen-hostnqn`).\n\n"
			"Examples:\n  rblk gen-hostnqn > /etc/nvme/hostnqn\n");
		return CLI_EXIT_OK;
	}
	if (argc > 1)
		return rblk_cli_usage_err("unexpected argument '%s'", argv[1]);
	ret = rblk_hostnqn_generate(nqn, sizeof(nqn));
	if (ret)
		return rblk_cli_report(CLI_OP_OTHER, ret, 0, "cannot generate a host NQN");
	fprintf(rblk_cli_out, "%s\n", nqn);
	return CLI_EXIT_OK;
}

int rblk_cli_version(int argc, char **argv)
{
	enum cli_fmt fmt = CLI_FMT_NORMAL;

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output-format")) && i + 1 < argc) {
			if (rblk_cli_parse_format(argv[++i], &fmt))
				return rblk_cli_usage_err("unknown output format '%s'", argv[i]);
		} else if (!strcmp(argv[i], "-o=json") || !strcmp(argv[i], "--output-format=json")) {
			fmt = CLI_FMT_JSON;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fprintf(rblk_cli_out, "Usage: rblk version [-o json]\n");
			return CLI_EXIT_OK;
		} else {
			return rblk_cli_usage_err("unexpected argument '%s'", argv[i]);
		}
	}
	if (fmt == CLI_FMT_JSON)
		fprintf(rblk_cli_out, "{\n  \"version\": \"%s\"\n}\n", rblk_version());
	else
		fprintf(rblk_cli_out, "rblk version %s\n", rblk_version());
	return CLI_EXIT_OK;
}

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "discover", rblk_cli_discover, "read a discovery controller's log (nvme discover)" },
	{ "id-ctrl", rblk_cli_id_ctrl, "Identify Controller of a subsystem's controller" },
	{ "id-ns", rblk_cli_id_ns, "Identify Namespace" },
	{ "list", rblk_cli_list, "the namespaces of a subsystem: size, format, model, serial" },
	{ "read", rblk_cli_read, "copy namespace data to a file or stdout (dd-like)" },
	{ "write", rblk_cli_write, "copy a file or stdin to the namespace (dd-like)" },
	{ "compare", rblk_cli_compare, "compare blocks with a file (Compare)" },
	{ "compare-write", rblk_cli_compare_write,
	  "write blocks only if they hold what is expected (fused Compare and Write)" },
	{ "verify", rblk_cli_verify, "check that blocks are readable (Verify)" },
	{ "copy", rblk_cli_copy, "copy ranges within the namespace (Copy)" },
	{ "resv-register", rblk_cli_resv_register, "register, unregister or replace a reservation key" },
	{ "resv-acquire", rblk_cli_resv_acquire, "acquire or preempt a reservation" },
	{ "resv-release", rblk_cli_resv_release, "release or clear a reservation" },
	{ "resv-report", rblk_cli_resv_report, "the reservation's holder and registrants" },
	{ "bench", rblk_cli_bench, "size sweep and random I/O benchmark with RDMA counter check" },
	{ "attach", rblk_cli_attach, "the namespace as a local block device /dev/ublkbN or /dev/nbdN" },
	{ "detach", rblk_cli_detach, "detach an attached /dev/ublkbN or /dev/nbdN" },
	{ "doctor", rblk_cli_doctor, "check this host's RDMA setup (devices, ports, memlock, ...)" },
	{ "gen-hostnqn", rblk_cli_gen_hostnqn, "generate a host NQN (as nvme gen-hostnqn)" },
	{ "gen-dhchap-key", rblk_cli_gen_dhchap_key,
	  "generate an in-band authentication secret (as nvme gen-dhchap-key)" },
	{ "version", rblk_cli_version, "print the version" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: rblk [--log-level=LEVEL] VERB [OPTIONS]\n"
		   "       rblk VERB --help\n"
		   "       rblk --version\n\n"
		   "NVMe over Fabrics (RDMA) from userspace: discover, inspect, read, write,\n"
		   "benchmark and attach remote namespaces. Flags follow nvme-cli; every verb\n"
		   "takes -o json (results on stdout, messages on stderr).\n\nVerbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-14s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nGlobal options (before the verb):\n"
		   "  --log-level=LEVEL   err, warn (default), notice, info, debug; also RBLK_LOG_LEVEL\n\n");
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n"
		   "  rblk discover -t rdma -a 192.0.2.10 -s 4420\n"
		   "  rblk list -t rdma -a 192.0.2.10 -n nqn.2024-01.io.example:disk0\n"
		   "  rblk bench -a 192.0.2.10 -n nqn.2024-01.io.example:disk0 -N 1 --rw randread\n"
		   "  rblk doctor\n\nSee rblk(1).\n");
}

int rblk_cli_main(int argc, char **argv)
{
	enum rblk_log_level lvl;
	const char *env = getenv("RBLK_LOG_LEVEL");
	int i = 1;

	if (!rblk_cli_out)
		rblk_cli_out = stdout;
	if (!rblk_cli_errf)
		rblk_cli_errf = stderr;
	rblk_cli_verb = "";
	rblk_log_set_handler(log_handler, NULL);
	/* a command-line tool is quiet unless asked (-v): the library's notices are for daemons */
	rblk_log_set_level(RBLK_LOG_WARN);
	/* 87.039, not 87.039000000000001 (json-c's default is %.17g) */
	json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_GLOBAL);
	if (env && !rblk_log_level_parse(env, &lvl))
		rblk_log_set_level(lvl);

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(rblk_cli_out);
			return CLI_EXIT_OK;
		}
		if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			fprintf(rblk_cli_out, "rblk version %s\n", rblk_version());
			return CLI_EXIT_OK;
		}
		if (!strncmp(a, "--log-level=", 12) || (!strcmp(a, "--log-level") && i + 1 < argc)) {
			const char *v = a[11] == '=' ? a + 12 : argv[++i];

			if (rblk_log_level_parse(v, &lvl))
				return rblk_cli_usage_err("unknown log level '%s' (err, warn, notice, info, debug)", v);
			rblk_log_set_level(lvl);
			continue;
		}
		return rblk_cli_usage_err("unknown option '%s'", a);
	}
	if (i >= argc) {
		usage(rblk_cli_errf);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 >= argc) {
			usage(rblk_cli_out);
			return CLI_EXIT_OK;
		}
		/* `rblk help VERB` = `rblk VERB --help` */
		for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
			if (!strcmp(argv[i + 1], verbs[v].name)) {
				char *hargv[] = { argv[i + 1], "--help", NULL };

				rblk_cli_verb = verbs[v].name;
				return verbs[v].run(2, hargv);
			}
		}
		return rblk_cli_usage_err("unknown verb '%s'", argv[i + 1]);
	}
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
		if (!strcmp(argv[i], verbs[v].name)) {
			rblk_cli_verb = verbs[v].name;
			rblk_cli_getopt_reset();
			return verbs[v].run(argc - i, argv + i);
		}
	}
	return rblk_cli_usage_err("unknown verb '%s' (see rblk --help)", argv[i]);
}
