/* SPDX-License-Identifier: MIT */
/*
 * fio as a child process: stdout to a temporary file, its JSON parsed with
 * json-c. Only the read side is read for now (the backend benchmark reads).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/fio.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) == (size_t)n) {
			buf[n] = '\0';
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static double jnum(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

int rblk_bench_fio_parse(const char *text, struct rblk_bench_result *res)
{
	json_object *root, *jobs, *job, *rd, *lat, *pct;
	const char *start = strchr(text, '{');
	int r = -EINVAL;

	memset(res, 0, sizeof(*res));
	if (!start)
		return -EINVAL;
	root = json_tokener_parse(start);
	if (!root)
		return -EINVAL;
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    json_object_array_length(jobs) < 1)
		goto out;
	job = json_object_array_get_idx(jobs, 0);
	if (jnum(job, "error") != 0 || !json_object_object_get_ex(job, "read", &rd) ||
	    !json_object_object_get_ex(rd, "lat_ns", &lat))
		goto out;
	res->iops = jnum(rd, "iops");
	res->mbps = jnum(rd, "bw_bytes") / 1e6;
	res->lat_avg_us = jnum(lat, "mean") / 1e3;
	if (json_object_object_get_ex(lat, "percentile", &pct)) {
		res->lat_p50_us = jnum(pct, "50.000000") / 1e3;
		res->lat_p99_us = jnum(pct, "99.000000") / 1e3;
	}
	res->cpu_pct = jnum(job, "usr_cpu") + jnum(job, "sys_cpu");
	res->ok = res->iops > 0;
	r = res->ok ? 0 : -EIO;
out:
	json_object_put(root);
	return r;
}

void rblk_bench_fio_cmdline(const char *const *argv, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; argv[i] && used + 1 < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

int rblk_bench_fio_run(const char *const *argv, struct rblk_bench_result *res)
{
	char out_path[] = "/tmp/rblk-bench-fio-XXXXXX";
	int fd, status, r;
	char *text;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	fd = mkstemp(out_path);
	if (fd < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fd);
		unlink(out_path);
		return r;
	}
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		unlink(out_path);
		return -EIO;
	}
	text = slurp(out_path);
	unlink(out_path);
	if (!text)
		return -EIO;
	r = rblk_bench_fio_parse(text, res);
	free(text);
	return r;
}
