/* SPDX-License-Identifier: MIT */
/*
 * One program linked with librblk-target and librblk-initiator (shared, or
 * both static archives): it links at all (no internal name is defined
 * twice), each library works, and one log handler, set once, receives the
 * messages of both (the log state lives once per process, in
 * librblk-common). Uses only the installed headers' API.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rblk/initiator.h>
#include <rblk/target.h>

static unsigned msgs_target, msgs_initiator;

static void handler(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	if (strstr(msg, "target options"))
		msgs_target++;
	else
		msgs_initiator++;
}

int main(void)
{
	struct rblk_target_opts topts;
	struct rblk_connect_opts copts;
	struct rblk_target *tgt = NULL;
	struct rblk_ctrl *ctrl = NULL;
	const char *field = NULL;
	char why[128];
	int ret;

	rblk_log_set_handler(handler, NULL);
	rblk_log_set_level(RBLK_LOG_DEBUG);

	/* The target library: a refused option is logged through the handler. */
	rblk_target_opts_init(&topts);
	topts.max_queue_depth = 1;
	ret = rblk_target_create(&topts, &tgt);
	if (ret != -EINVAL || tgt) {
		fprintf(stderr, "FAIL: rblk_target_create(max_queue_depth 1) = %d\n", ret);
		return 1;
	}
	/* The check a program runs first refuses it too, naming the member. */
	topts.max_queue_depth = RBLK_TARGET_QUEUE_DEPTH_MAX + 1;
	ret = rblk_target_opts_check(&topts, &field, why, sizeof(why));
	if (ret != -EINVAL || !field || strcmp(field, "max_queue_depth")) {
		fprintf(stderr, "FAIL: rblk_target_opts_check(max_queue_depth %u) = %d\n",
			topts.max_queue_depth, ret);
		return 1;
	}
	/* A valid target is created and destroyed (no RDMA needed until listen). */
	rblk_target_opts_init(&topts);
	ret = rblk_target_create(&topts, &tgt);
	if (ret) {
		fprintf(stderr, "FAIL: rblk_target_create = %d\n", ret);
		return 1;
	}
	rblk_target_destroy(tgt);

	/* The initiator library: an unusable address fails, with a message. */
	rblk_connect_opts_init(&copts);
	copts.traddr = "no-such-host.invalid";
	copts.subnqn = "nqn.2026-01.io.rblk:abi";
	ret = rblk_connect(&copts, &ctrl, NULL);
	if (!ret) {
		fprintf(stderr, "FAIL: rblk_connect to nowhere succeeded\n");
		rblk_disconnect(ctrl);
		return 1;
	}
	if (!msgs_target || !msgs_initiator) {
		fprintf(stderr, "FAIL: one handler for both libraries: %u target, %u initiator messages\n",
			msgs_target, msgs_initiator);
		return 1;
	}
	printf("both libraries linked, version %s; one log handler got %u target and %u initiator messages\n",
	       rblk_version(), msgs_target, msgs_initiator);
	return 0;
}
