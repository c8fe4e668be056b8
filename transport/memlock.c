/* SPDX-License-Identifier: MIT */
/*
 * The RLIMIT_MEMLOCK check run before creating registered pools. The kernel
 * charges every page ibv_reg_mr pins against RLIMIT_MEMLOCK unless the
 * process has CAP_IPC_LOCK (ib_umem_get()), and a refusal surfaces as a bare
 * ENOMEM from ibv_reg_mr; so say up front how much is needed and how to
 * raise the limit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "transport/mr_pool.h"

#define CAP_IPC_LOCK_BIT 14

static void fmt_size(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1f MiB", (double)b / (1ULL << 20));
	else
		snprintf(buf, len, "%" PRIu64 " KiB", (b + 1023) / 1024);
}

int rblk_memlock_check_limit(size_t need, uint64_t limit, bool cap_ipc_lock, char *msg,
			     size_t msglen)
{
	char need_s[32], lim_s[32];
	uint64_t kib, mib;

	fmt_size(need, need_s, sizeof(need_s));
	if (cap_ipc_lock) {
		snprintf(msg, msglen, "registered memory: %s; no locked-memory limit (CAP_IPC_LOCK)",
			 need_s);
		return 0;
	}
	if (limit == UINT64_MAX) {
		snprintf(msg, msglen, "registered memory: %s; RLIMIT_MEMLOCK is unlimited", need_s);
		return 0;
	}
	fmt_size(limit, lim_s, sizeof(lim_s));
	if (need <= limit) {
		snprintf(msg, msglen, "registered memory: %s of RLIMIT_MEMLOCK %s", need_s, lim_s);
		return 0;
	}
	kib = ((uint64_t)need + 1023) / 1024;
	mib = ((uint64_t)need + (1 << 20) - 1) >> 20;
	snprintf(msg, msglen,
		 "registered memory needs %s locked (%" PRIu64 " bytes) but RLIMIT_MEMLOCK is %s; "
		 "raise it with `ulimit -l %" PRIu64 "` (KiB) or `ulimit -l unlimited` in the "
		 "starting shell, LimitMEMLOCK=%" PRIuMAX "M or LimitMEMLOCK=infinity in the "
		 "systemd unit, or a `memlock` line in /etc/security/limits.conf",
		 need_s, (uint64_t)need, lim_s, kib, (uintmax_t)mib);
	return -ENOMEM;
}

static bool have_cap_ipc_lock(void)
{
	char line[256];
	bool cap = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long eff;

		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			cap = (eff >> CAP_IPC_LOCK_BIT) & 1;
			break;
		}
	}
	fclose(f);
	return cap;
}

int rblk_memlock_check(size_t need, char *msg, size_t msglen)
{
	struct rlimit rl;
	uint64_t limit;

	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		int err = errno;

		snprintf(msg, msglen, "getrlimit(RLIMIT_MEMLOCK): %s", strerror(err));
		return -err;
	}
	limit = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	return rblk_memlock_check_limit(need, limit, have_cap_ipc_lock(), msg, msglen);
}
