/* SPDX-License-Identifier: MIT */
/*
 * Driver for the libFuzzer harnesses when the compiler has no libFuzzer (gcc
 * builds): replays generic seeds, the harness's seeds and the files of a
 * corpus directory, then N pseudo-random inputs from a fixed seed, half of
 * them mutations of the seeds. Deterministic, so a failure reproduces.
 *
 *   fuzz_X [N [CORPUS_DIR]]       N defaults to 10000
 *   fuzz_X --write-seeds DIR      writes the harness's seeds as DIR/seed-NN
 *                                 (tests/fuzz/corpus/gen_seeds.sh)
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_LEN 8192
#define MAX_SEEDS 32

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static size_t random_len(void)
{
	switch (rng() % 4) {
	case 0:
		return rng() % 80;
	case 1:
		return rng() % 1200;
	case 2:
		return rng() % 4200;
	default:
		return rng() % (MAX_LEN + 1);
	}
}

static int write_seeds(const char *dir)
{
	static uint8_t buf[MAX_LEN];

	for (unsigned i = 0; i < MAX_SEEDS; i++) {
		size_t len = rblk_fuzz_seed(i, buf, sizeof(buf));
		char path[4096];
		FILE *f;

		if (!len)
			break;
		snprintf(path, sizeof(path), "%s/seed-%02u", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Every regular file of @dir through the harness; returns how many, -1 on error. */
static long replay_dir(const char *dir)
{
	static uint8_t buf[MAX_LEN];
	struct dirent *de;
	long n = 0;
	DIR *d = opendir(dir);

	if (!d) {
		/* A harness without a corpus yet is fine; anything else is not. */
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char path[4096];
		size_t len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	static uint8_t seeds[MAX_SEEDS][MAX_LEN];
	static uint8_t buf[MAX_LEN];
	size_t seed_len[MAX_SEEDS];
	unsigned nseeds = 0;
	long n, files = 0;

	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
	n = argc > 1 ? strtol(argv[1], NULL, 0) : 10000;

	/* Generic shapes every parser must survive. */
	LLVMFuzzerTestOneInput(buf, 0);
	for (size_t len = 1; len <= 1100; len = len * 2 + 1) {
		memset(buf, 0, len);
		LLVMFuzzerTestOneInput(buf, len);
		memset(buf, 0xFF, len);
		LLVMFuzzerTestOneInput(buf, len);
		buf[0] = 0; /* raw mode, all ones */
		LLVMFuzzerTestOneInput(buf, len);
	}

	while (nseeds < MAX_SEEDS) {
		seed_len[nseeds] = rblk_fuzz_seed(nseeds, seeds[nseeds], MAX_LEN);
		if (!seed_len[nseeds])
			break;
		LLVMFuzzerTestOneInput(seeds[nseeds], seed_len[nseeds]);
		nseeds++;
	}

	if (argc > 2 && (files = replay_dir(argv[2])) < 0)
		return 1;

	for (long i = 0; i < n; i++) {
		size_t len;

		if (nseeds && (rng() & 1)) {
			unsigned s = (unsigned)(rng() % nseeds);
			unsigned flips = 1 + (unsigned)(rng() % 8);

			len = seed_len[s];
			memcpy(buf, seeds[s], len);
			if (len > 1 && (rng() % 4) == 0)
				len = 1 + rng() % len; /* truncate */
			for (unsigned f = 0; f < flips && len > 1; f++)
				buf[1 + rng() % (len - 1)] = (uint8_t)rng();
		} else {
			len = random_len();
			for (size_t j = 0; j < len; j++)
				buf[j] = (uint8_t)rng();
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("%u seeds + %ld corpus files + %ld random inputs: ok\n", nseeds, files, n);
	return 0;
}
