/* SPDX-License-Identifier: MIT */
/*
 * The management socket's client (rpc_client.h): arguments to params, one
 * request, one answer read back with the same incremental tokener the
 * server uses, the result on stdout and an error's message on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "daemon/rpc.h"
#include "daemon/rpc_client.h"

static void usage(FILE *out)
{
	fputs("Usage: rblk-target rpc [-s SOCKET] [-t SECONDS] METHOD [--PARAM VALUE]... "
	      "[--json OBJECT]\n"
	      "Calls one method of a running rblk-target's JSON-RPC socket and prints the result.\n"
	      "\n"
	      "  -s, --socket PATH    the socket (default $RBLK_RPC_SOCKET, else\n"
	      "                       " RBLK_RPC_DEFAULT_SOCKET ")\n"
	      "  -t, --timeout SEC    give up after SEC seconds (default 60)\n"
	      "  --PARAM VALUE        a parameter; --a.b VALUE sets b inside object a. VALUE is\n"
	      "                       JSON when it is a number, true, false, null, \"quoted\",\n"
	      "                       {...} or [...], else a string\n"
	      "  --json OBJECT        parameters as one JSON object (merged)\n"
	      "\n"
	      "Examples:\n"
	      "  rblk-target rpc nvmf_create_subsystem --nqn nqn.2024-01.io.rblk:a --allow_any_host true\n"
	      "  rblk-target rpc nvmf_subsystem_add_listener --nqn nqn.2024-01.io.rblk:a \\\n"
	      "      --listen_address.trtype RDMA --listen_address.traddr 10.0.0.1 \\\n"
	      "      --listen_address.trsvcid 4420\n"
	      "  rblk-target rpc nvmf_subsystem_add_ns --nqn nqn.2024-01.io.rblk:a --namespace.path mem:1G\n"
	      "  rblk-target rpc rblk_ns_set_qos_limit --nqn nqn.2024-01.io.rblk:a --nsid 1 \\\n"
	      "      --rw_ios_per_sec 5000\n"
	      "  rblk-target rpc rpc_get_methods\n"
	      "Exit status: 0 done; 1 the call failed (its message on stderr); 2 usage.\n",
	      out);
}

/* The scalar or container VALUE stands for (see rpc_client.h). */
static struct json_object *value_of(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *v = NULL;

	if (tok) {
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		v = json_tokener_parse_ex(tok, s, (int)strlen(s) + 1);
		/* Only a whole valid JSON text counts; "10.0.0.1" or "mem:1G" stay strings. */
		if (json_tokener_get_error(tok) != json_tokener_success ||
		    json_tokener_get_parse_end(tok) < strlen(s)) {
			json_object_put(v);
			v = NULL;
		}
		json_tokener_free(tok);
	}
	return v ? v : json_object_new_string(s);
}

/* Sets "a.b.c" in @o, making the objects on the way. */
static int set_path(struct json_object *o, char *key, struct json_object *v, FILE *err)
{
	for (char *dot; (dot = strchr(key, '.')); key = dot + 1) {
		struct json_object *child;

		*dot = '\0';
		if (!*key)
			goto bad;
		if (!json_object_object_get_ex(o, key, &child)) {
			child = json_object_new_object();
			json_object_object_add(o, key, child);
		} else if (!json_object_is_type(child, json_type_object)) {
			fprintf(err, "rblk-target rpc: --%s is not an object here\n", key);
			json_object_put(v);
			return -EINVAL;
		}
		o = child;
	}
	if (!*key)
		goto bad;
	json_object_object_add(o, key, v);
	return 0;
bad:
	fprintf(err, "rblk-target rpc: a parameter name has an empty part\n");
	json_object_put(v);
	return -EINVAL;
}

static int merge(struct json_object *dst, struct json_object *src)
{
	json_object_object_foreach(src, k, v) {
		struct json_object *d;

		if (json_object_is_type(v, json_type_object) &&
		    json_object_object_get_ex(dst, k, &d) && json_object_is_type(d, json_type_object))
			merge(d, v);
		else
			json_object_object_add(dst, k, json_object_get(v));
	}
	return 0;
}

int rblk_tgt_rpc_client_params(int argc, char **argv, struct json_object **out, FILE *err)
{
	struct json_object *params = json_object_new_object();

	if (!params)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		char key[256];

		if (strncmp(argv[i], "--", 2) || !argv[i][2]) {
			fprintf(err, "rblk-target rpc: %s: expected --PARAM VALUE\n", argv[i]);
			goto fail;
		}
		if (i + 1 >= argc) {
			fprintf(err, "rblk-target rpc: %s: needs a value\n", argv[i]);
			goto fail;
		}
		if (strcmp(argv[i], "--json") == 0) {
			struct json_object *j = json_tokener_parse(argv[++i]);

			if (!json_object_is_type(j, json_type_object)) {
				fprintf(err, "rblk-target rpc: --json: not a JSON object\n");
				json_object_put(j);
				goto fail;
			}
			merge(params, j);
			json_object_put(j);
			continue;
		}
		if (strlen(argv[i] + 2) >= sizeof(key)) {
			fprintf(err, "rblk-target rpc: %.40s...: name too long\n", argv[i]);
			goto fail;
		}
		/* SPDK's names use '_'; --listen-address.traddr reads the same. */
		for (size_t k = 0; k <= strlen(argv[i] + 2); k++)
			key[k] = argv[i][2 + k] == '-' ? '_' : argv[i][2 + k];
		if (set_path(params, key, value_of(argv[++i]), err))
			goto fail;
	}
	*out = params;
	return 0;
fail:
	json_object_put(params);
	return -EINVAL;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One JSON answer, or -ETIMEDOUT / -ECONNRESET / -EBADMSG. */
static int read_answer(int fd, int timeout_ms, struct json_object **out)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *v = NULL;
	int ret = -ENOMEM;

	while (tok) {
		char buf[65536];
		ssize_t n;
		int pr = poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, timeout_ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			ret = pr == 0 ? -ETIMEDOUT : -errno;
			break;
		}
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			ret = n == 0 ? -ECONNRESET : -errno;
			break;
		}
		v = json_tokener_parse_ex(tok, buf, (int)n);
		if (v) {
			*out = v;
			ret = 0;
			break;
		}
		if (json_tokener_get_error(tok) != json_tokener_continue) {
			ret = -EBADMSG;
			break;
		}
	}
	if (tok)
		json_tokener_free(tok);
	return ret;
}

static int print_answer(const char *method, struct json_object *ans)
{
	struct json_object *v, *m, *c;

	if (json_object_object_get_ex(ans, "result", &v)) {
		puts(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		return 0;
	}
	if (json_object_object_get_ex(ans, "error", &v) &&
	    json_object_object_get_ex(v, "message", &m) && json_object_object_get_ex(v, "code", &c)) {
		fprintf(stderr, "rblk-target rpc: %s: %s (JSON-RPC error %d)\n", method,
			json_object_get_string(m), json_object_get_int(c));
		return 1;
	}
	fprintf(stderr, "rblk-target rpc: %s: an answer with neither result nor error\n", method);
	return 1;
}

int rblk_tgt_rpc_client_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = getenv("RBLK_RPC_SOCKET"), *method, *text;
	struct json_object *req, *params = NULL, *ans = NULL;
	long timeout = 60;
	int c, fd, ret, code;
	char *end;

	if (!path || !*path)
		path = RBLK_RPC_DEFAULT_SOCKET;
	/* Options before METHOD only: what follows are the method's parameters. */
	while ((c = getopt_long(argc, argv, "+s:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			path = optarg;
			break;
		case 't':
			timeout = strtol(optarg, &end, 10);
			if (*end || timeout < 1 || timeout > 86400) {
				fprintf(stderr, "rblk-target rpc: --timeout %s: 1..86400 seconds\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	method = argv[optind];
	if (rblk_tgt_rpc_client_params(argc - optind - 1, argv + optind + 1, &params, stderr))
		return 2;
	req = json_object_new_object();
	json_object_object_add(req, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(req, "method", json_object_new_string(method));
	if (json_object_object_length(params))
		json_object_object_add(req, "params", params);
	else
		json_object_put(params);
	json_object_object_add(req, "id", json_object_new_int(1));
	text = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	fd = connect_to(path);
	if (fd < 0) {
		fprintf(stderr, "rblk-target rpc: %s: %s%s\n", path, strerror(-fd),
			fd == -ENOENT || fd == -ECONNREFUSED ? " (is rblk-target running with its "
							       "management socket there? -s PATH)"
			: fd == -EACCES ? " (the socket is its owner's only: run as that user)" : "");
		json_object_put(req);
		return 1;
	}
	ret = write_all(fd, text, strlen(text));
	if (!ret)
		ret = read_answer(fd, (int)timeout * 1000, &ans);
	close(fd);
	json_object_put(req);
	if (ret) {
		fprintf(stderr, "rblk-target rpc: %s: %s\n", method,
			ret == -ETIMEDOUT ? "no answer in time" : strerror(-ret));
		return 1;
	}
	code = print_answer(method, ans);
	json_object_put(ans);
	return code;
}
