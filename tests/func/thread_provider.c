/* SPDX-License-Identifier: MIT */
/*
 * thread_provider: rblk-target's library with the library's own threads
 * (RBLK_THREADS_OWN, several poll groups) and a provider that completes every
 * io from worker threads of its own, after a delay, out of order: the path
 * where rblk_provider_complete() comes from a foreign thread and has to wake
 * a sleeping poll group. The VM test 49 has the Linux host fio-verify it.
 *
 *	thread_provider ADDRESS NQN SIZE-MiB [POLL-GROUPS]
 *
 * Public headers only; SIGINT/SIGTERM stop it (rblk_target_run() returns).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rblk/target.h>

#define WORKERS 3
#define QMAX 4096

struct disk {
	uint8_t *mem;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rblk_provider_io *q[QMAX];
	unsigned head, tail;
	bool stop;
	pthread_t workers[WORKERS];
	atomic_ulong ios, closes;
};

static struct rblk_target *tgt;

static int run_io(struct disk *d, struct rblk_provider_io *io)
{
	uint8_t *p = d->mem + io->offset;

	switch (io->op) {
	case RBLK_PROVIDER_READ:
	case RBLK_PROVIDER_WRITE:
		for (int i = 0; i < io->iovcnt; i++) {
			if (io->op == RBLK_PROVIDER_READ)
				memcpy(io->iov[i].iov_base, p, io->iov[i].iov_len);
			else
				memcpy(p, io->iov[i].iov_base, io->iov[i].iov_len);
			p += io->iov[i].iov_len;
		}
		return 0;
	case RBLK_PROVIDER_FLUSH:
		return 0;
	default:
		return -EOPNOTSUPP; /* never sent: the caps below say so */
	}
}

static void *worker(void *arg)
{
	struct disk *d = arg;
	unsigned seed = (unsigned)(uintptr_t)pthread_self();

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct rblk_provider_io *io;

		while (d->head == d->tail && !d->stop)
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->head == d->tail)
			break;
		io = d->q[d->head++ % QMAX];
		pthread_mutex_unlock(&d->lock);
		/* Up to 200 us late, so completions overtake each other. */
		nanosleep(&(struct timespec){ .tv_nsec = (long)(rand_r(&seed) % 200) * 1000 }, NULL);
		atomic_fetch_add(&d->ios, 1);
		rblk_provider_complete(io, run_io(d, io));
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static int disk_submit(void *ctx, struct rblk_provider_io *io)
{
	struct disk *d = ctx;

	pthread_mutex_lock(&d->lock);
	if (d->tail - d->head == QMAX) {
		pthread_mutex_unlock(&d->lock);
		return -EAGAIN; /* the host retries an Internal Error without DNR */
	}
	d->q[d->tail++ % QMAX] = io;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

static void disk_close(void *ctx)
{
	atomic_fetch_add(&((struct disk *)ctx)->closes, 1);
}

static const struct rblk_provider_ops disk_ops = {
	.size = sizeof(disk_ops),
	.submit = disk_submit,
	.close = disk_close,
};

static void on_signal(int sig)
{
	(void)sig;
	rblk_target_stop(tgt);
}

int main(int argc, char **argv)
{
	struct rblk_target_opts topts;
	struct rblk_subsystem_opts sopts;
	struct rblk_listen_opts lopts;
	struct rblk_ns_opts nopts;
	struct rblk_provider prov;
	struct rblk_subsystem *ss;
	static struct disk d;
	uint64_t bytes;
	int ret;

	if (argc < 4) {
		fprintf(stderr, "usage: %s ADDRESS NQN SIZE-MiB [POLL-GROUPS]\n", argv[0]);
		return 2;
	}
	bytes = strtoull(argv[3], NULL, 10) << 20;
	d.mem = calloc(1, bytes);
	pthread_mutex_init(&d.lock, NULL);
	pthread_cond_init(&d.cond, NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&d.workers[i], NULL, worker, &d);

	rblk_target_opts_init(&topts);
	topts.num_poll_groups = argc > 4 ? (unsigned)atoi(argv[4]) : 2;
	ret = rblk_target_create(&topts, &tgt);
	if (ret)
		goto out;
	rblk_subsystem_opts_init(&sopts);
	sopts.nqn = argv[2];
	sopts.allow_any_host = true;
	ret = rblk_target_add_subsystem(tgt, &sopts, &ss);
	if (ret)
		goto out;
	rblk_provider_init(&prov);
	prov.ops = &disk_ops;
	prov.ctx = &d;
	prov.block_size = 4096;
	prov.num_blocks = bytes / 4096;
	prov.volatile_cache = true; /* so Flush reaches us, from the host's fsync */
	rblk_ns_opts_init(&nopts);
	nopts.provider = &prov;
	nopts.path = "thread-disk";
	ret = rblk_subsystem_add_namespace(ss, &nopts, NULL);
	if (ret)
		goto out;
	rblk_listen_opts_init(&lopts);
	lopts.traddr = argv[1];
	ret = rblk_target_listen(tgt, &lopts);
	if (ret)
		goto out;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = rblk_target_start(tgt);
	if (ret)
		goto out;
	printf("serving %s (%s MiB, %u poll groups, %d provider threads)\n", argv[2], argv[3],
	       topts.num_poll_groups, WORKERS);
	fflush(stdout);
	ret = rblk_target_run(tgt);
out:
	rblk_target_destroy(tgt);
	pthread_mutex_lock(&d.lock);
	d.stop = true;
	pthread_cond_broadcast(&d.cond);
	pthread_mutex_unlock(&d.lock);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(d.workers[i], NULL);
	printf("stopped: %lu ios from provider threads, provider closed %lu time(s)%s%s\n",
	       (unsigned long)atomic_load(&d.ios), (unsigned long)atomic_load(&d.closes),
	       ret ? ": " : "", ret ? strerror(-ret) : "");
	free(d.mem);
	return ret || atomic_load(&d.closes) != 1 ? 1 : 0;
}
