/* SPDX-License-Identifier: MIT */
/*
 * cw_race: two clients race fused Compare and Write on one block, through
 * one controller each (two paths, say two gateways to one RBD image), and
 * count who wins each round. It prints compare-and-write rounds per second
 * and fails (exit 1) when a round had two winners, or a round none.
 *
 * The block holds a round number and the last winner. Each client reads it
 * (round r), then asks to swap {r, w} for {r + 1, itself}; the one whose
 * swap matches wins round r, the other gets Compare Failure and reads
 * again. If the target's Compare and Write were not atomic against the
 * other controller's, both could see {r, w} and both succeed: two winners
 * of round r, and the round count short of the wins.
 *
 *   cw_race -n NQN [-N NSID] [-q HOSTNQN] [-I HOSTID] [-w HOST_ADDR]
 *           -a ADDR [-s PORT] [-a ADDR [-s PORT]] [--rounds N] [--lba LBA] [--json FILE]
 *
 * One -a: both clients connect to it (two controllers of one target).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include <rblk/initiator.h>

#include "common/parse.h"

#define CLIENTS 2
#define STATUS_COMPARE_FAILED 0x285	/* SCT 2h, SC 85h */

struct client {
	unsigned id;
	struct rblk_connect_opts opts;
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	uint64_t wins, misses, rereads;
	int err;
	pthread_t th;
};

static struct {
	uint64_t rounds, lba;
	uint32_t nsid, bs;
	_Atomic uint32_t *winner;	/* per round: client id + 1, 0 = none yet */
	_Atomic uint64_t doubles;	/* rounds that got a second winner */
} G;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void *client_run(void *arg)
{
	struct client *c = arg;
	uint8_t *cur = calloc(1, G.bs), *next = calloc(1, G.bs);

	if (!cur || !next) {
		c->err = -ENOMEM;
		goto out;
	}
	for (;;) {
		uint64_t r;
		int ret = rblk_read(c->ns, cur, G.lba, 1);

		if (ret) {
			c->err = ret;
			break;
		}
		r = get_u64(cur);
		if (r >= G.rounds)
			break;
		memcpy(next, cur, G.bs);
		put_u64(next, r + 1);
		put_u64(next + 8, c->id);
		ret = rblk_compare_write(c->ns, cur, next, G.lba, 1);
		if (!ret) {
			c->wins++;
			if (atomic_exchange(&G.winner[r], c->id + 1))
				atomic_fetch_add(&G.doubles, 1);
			continue;
		}
		if (ret == -EREMOTEIO &&
		    (rblk_ns_last_status(c->ns) & 0x7FF) == STATUS_COMPARE_FAILED) {
			c->misses++;	/* the other client won this round */
			continue;
		}
		c->err = ret;
		break;
	}
out:
	free(cur);
	free(next);
	return NULL;
}

static int connect_client(struct client *c)
{
	uint16_t st = 0;
	int ret = rblk_connect(&c->opts, &c->ctrl, &st);

	if (ret) {
		fprintf(stderr, "cw_race: client %u: cannot connect to %s:%s: %s (status %#x)\n", c->id,
			c->opts.traddr, c->opts.trsvcid, strerror(-ret), st);
		return ret;
	}
	ret = rblk_ns_open(c->ctrl, G.nsid, &c->ns);
	if (ret) {
		fprintf(stderr, "cw_race: client %u: namespace %u: %s\n", c->id, G.nsid, strerror(-ret));
		return ret;
	}
	G.bs = rblk_ns_block_size(c->ns);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: cw_race -n NQN [-N NSID] [-q HOSTNQN] [-I HOSTID] [-w HOST_ADDR]\n"
		   "               -a ADDR [-s PORT] [-a ADDR [-s PORT]] [--rounds N] [--lba LBA] [--json FILE]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 1 },
		{ "lba", required_argument, NULL, 2 },
		{ "json", required_argument, NULL, 3 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr[CLIENTS] = { NULL }, *port[CLIENTS] = { "4420", "4420" }, *nqn = NULL;
	const char *json = NULL, *hostnqn = NULL, *hostid = NULL;
	const char *host_traddr = NULL;
	struct client cl[CLIENTS];
	unsigned naddr = 0, nonewin = 0;
	uint64_t wins = 0;
	uint8_t *init;
	double t0, secs;
	char why[128];
	int opt, rc = 0;

	G.rounds = 1000;
	G.nsid = 1;
	while ((opt = getopt_long(argc, argv, "n:N:q:I:w:a:s:h", longopts, NULL)) != -1) {
		uint16_t p;

		switch (opt) {
		case 'n': nqn = optarg; break;
		case 'q': hostnqn = optarg; break;
		case 'I': hostid = optarg; break;
		case 'w': host_traddr = optarg; break;
		case 'N':
			if (rblk_nsid_parse(optarg, &G.nsid, why, sizeof(why))) {
				fprintf(stderr, "cw_race: -N '%s' %s\n", optarg, why);
				return 2;
			}
			break;
		case 'a':
			if (naddr == CLIENTS) {
				fprintf(stderr, "cw_race: at most %u -a\n", CLIENTS);
				return 2;
			}
			addr[naddr++] = optarg;
			break;
		case 's':
			if (rblk_port_parse(optarg, &p, why, sizeof(why))) {
				fprintf(stderr, "cw_race: -s '%s' %s\n", optarg, why);
				return 2;
			}
			port[naddr ? naddr - 1 : 0] = optarg;
			break;
		case 1:
		case 2:
			if (rblk_u64_parse(optarg, opt == 1 ? &G.rounds : &G.lba, why, sizeof(why)) ||
			    (opt == 1 && (!G.rounds || G.rounds > 10000000))) {
				fprintf(stderr, "cw_race: bad value '%s'\n", optarg);
				return 2;
			}
			break;
		case 3: json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!nqn || !naddr) {
		usage(stderr);
		return 2;
	}
	if (naddr == 1) {
		addr[1] = addr[0];
		port[1] = port[0];
	}
	G.winner = calloc(G.rounds, sizeof(*G.winner));
	if (!G.winner)
		return 1;
	memset(cl, 0, sizeof(cl));
	for (unsigned i = 0; i < CLIENTS; i++) {
		cl[i].id = i;
		rblk_connect_opts_init(&cl[i].opts);
		cl[i].opts.traddr = addr[i];
		cl[i].opts.trsvcid = port[i];
		cl[i].opts.subnqn = nqn;
		cl[i].opts.hostnqn = hostnqn;
		cl[i].opts.hostid = hostid;
		cl[i].opts.host_traddr = host_traddr;
		cl[i].opts.nr_io_queues = 1;
		if (connect_client(&cl[i]))
			return 1;
	}
	/* Round 0, no winner yet. */
	init = calloc(1, G.bs);
	if (!init || rblk_write(cl[0].ns, init, G.lba, 1, RBLK_IO_FUA)) {
		fprintf(stderr, "cw_race: cannot write the starting block\n");
		return 1;
	}
	free(init);
	t0 = now_s();
	for (unsigned i = 0; i < CLIENTS; i++)
		pthread_create(&cl[i].th, NULL, client_run, &cl[i]);
	for (unsigned i = 0; i < CLIENTS; i++)
		pthread_join(cl[i].th, NULL);
	secs = now_s() - t0;
	for (unsigned i = 0; i < CLIENTS; i++) {
		wins += cl[i].wins;
		if (cl[i].err) {
			fprintf(stderr, "cw_race: client %u stopped: %s (status %#x)\n", i,
				strerror(-cl[i].err), rblk_ns_last_status(cl[i].ns));
			rc = 1;
		}
	}
	for (uint64_t r = 0; r < G.rounds; r++)
		nonewin += !atomic_load(&G.winner[r]);
	printf("cw_race: %" PRIu64 " rounds in %.2f s: %.0f rounds/s; wins %" PRIu64 " + %" PRIu64
	       ", lost compares %" PRIu64 " + %" PRIu64 "; rounds with two winners %" PRIu64
	       ", with none %u\n",
	       G.rounds, secs, G.rounds / secs, cl[0].wins, cl[1].wins, cl[0].misses, cl[1].misses,
	       atomic_load(&G.doubles), nonewin);
	if (atomic_load(&G.doubles) || (!rc && (nonewin || wins != G.rounds))) {
		fprintf(stderr, "cw_race: FAIL: Compare and Write was not atomic across the clients\n");
		rc = 1;
	}
	if (json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "rounds", json_object_new_uint64(G.rounds));
		json_object_object_add(o, "seconds", json_object_new_double(secs));
		json_object_object_add(o, "rounds_per_s", json_object_new_double(G.rounds / secs));
		json_object_object_add(o, "wins_a", json_object_new_uint64(cl[0].wins));
		json_object_object_add(o, "wins_b", json_object_new_uint64(cl[1].wins));
		json_object_object_add(o, "lost_compares",
				       json_object_new_uint64(cl[0].misses + cl[1].misses));
		json_object_object_add(o, "double_winners",
				       json_object_new_uint64(atomic_load(&G.doubles)));
		json_object_object_add(o, "rounds_without_winner", json_object_new_uint64(nonewin));
		if (json_object_to_file_ext(json, o, JSON_C_TO_STRING_PRETTY))
			fprintf(stderr, "cw_race: cannot write %s\n", json);
		json_object_put(o);
	}
	for (unsigned i = 0; i < CLIENTS; i++) {
		rblk_ns_close(cl[i].ns);
		rblk_disconnect(cl[i].ctrl);
	}
	free(G.winner);
	return rc;
}
