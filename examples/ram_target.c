/* SPDX-License-Identifier: MIT */
/*
 * ram_target: an NVMe-oF/RDMA target in one small program. It exports a RAM
 * disk served by its own provider callbacks, and runs the target from its
 * own event loop (no library threads).
 *
 *	cc ram_target.c $(pkg-config --cflags --libs rblk-target) -o ram_target
 *	./ram_target 10.0.0.1 nqn.2026-01.io.example:ram 64   # address, NQN, MiB
 *	nvme connect -t rdma -a 10.0.0.1 -s 4420 -n nqn.2026-01.io.example:ram
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rblk/target.h>

static struct rblk_target *tgt;

/* The provider: every op completes at once, from inside submit(). */
static int ram_submit(void *ctx, struct rblk_provider_io *io)
{
	char *p = (char *)ctx + io->offset;

	for (int i = 0; i < io->iovcnt; i++) {
		if (io->op == RBLK_PROVIDER_READ)
			memcpy(io->iov[i].iov_base, p, io->iov[i].iov_len);
		else if (io->op == RBLK_PROVIDER_WRITE)
			memcpy(p, io->iov[i].iov_base, io->iov[i].iov_len);
		p += io->iov[i].iov_len;
	}
	if (io->op == RBLK_PROVIDER_WRITE_ZEROES || io->op == RBLK_PROVIDER_DISCARD)
		memset(p, 0, io->len);
	rblk_provider_complete(io, 0);
	return 0;
}

static const struct rblk_provider_ops ram_ops = {
	.size = sizeof(ram_ops),
	.submit = ram_submit,
	.close = free,
};

static void on_signal(int sig)
{
	(void)sig;
	rblk_target_stop(tgt); /* async-signal-safe */
}

int main(int argc, char **argv)
{
	struct rblk_target_opts topts;
	struct rblk_subsystem_opts sopts;
	struct rblk_listen_opts lopts;
	struct rblk_ns_opts nopts;
	struct rblk_provider prov;
	struct rblk_subsystem *ss;
	struct pollfd pfd = { .events = POLLIN };
	uint64_t bytes;
	uint32_t nsid;
	int ret, timeout;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDRESS SUBSYSTEM-NQN SIZE-MiB\n", argv[0]);
		return 2;
	}
	bytes = strtoull(argv[3], NULL, 10) << 20;

	rblk_target_opts_init(&topts);
	topts.threads = RBLK_THREADS_EMBEDDER; /* our loop below, no library threads */
	ret = rblk_target_create(&topts, &tgt);
	if (ret)
		goto fail;
	rblk_subsystem_opts_init(&sopts);
	sopts.nqn = argv[2];
	sopts.allow_any_host = true;
	ret = rblk_target_add_subsystem(tgt, &sopts, &ss);
	if (ret)
		goto fail;

	rblk_provider_init(&prov);
	prov.ops = &ram_ops;
	prov.ctx = calloc(1, bytes); /* freed by close */
	prov.block_size = 512;
	prov.num_blocks = bytes / 512;
	prov.can_write_zeroes = prov.can_discard = prov.discard_zeroes = true;
	rblk_ns_opts_init(&nopts);
	nopts.provider = &prov;
	nopts.path = "ram";
	ret = prov.ctx ? rblk_subsystem_add_namespace(ss, &nopts, &nsid) : -ENOMEM;
	if (ret)
		goto fail;

	rblk_listen_opts_init(&lopts);
	lopts.traddr = argv[1];
	ret = rblk_target_listen(tgt, &lopts);
	if (!ret)
		ret = rblk_target_start(tgt); /* this thread is now the loop thread */
	if (ret)
		goto fail;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("serving %s namespace %u (%s MiB of RAM) on %s port 4420\n", argv[2], nsid,
	       argv[3], argv[1]);
	fflush(stdout);

	/* The embedder's loop: any event loop can wait on this fd. */
	pfd.fd = rblk_target_fd(tgt);
	while (rblk_target_poll(tgt, &timeout) >= 0)
		if (timeout)
			poll(&pfd, 1, timeout);
	rblk_target_destroy(tgt); /* disconnects the hosts; close() frees the RAM */
	return 0;

fail:
	fprintf(stderr, "ram_target: %s\n", strerror(-ret));
	rblk_target_destroy(tgt);
	return 1;
}
