/* SPDX-License-Identifier: MIT */
/*
 * The checks of `rblk doctor` (see cli/doctor.h). Each reads a few files
 * under the doctor's root and adds OK/WARN/FAIL lines with what to do.
 * Wording follows the field guide: no device means no RDMA at all; a port
 * must be ACTIVE / LinkUp; error counters should stay at zero; memory
 * registration counts against RLIMIT_MEMLOCK.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/bench.h"
#include "cli/doctor.h"
#include "cli/output.h"
#include "transport/rdma.h"

#define CAP_IPC_LOCK_BIT 14

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* A netdev to suggest for Soft-RoCE: the first one that is up and not loopback. */
static void pick_netdev(struct cli_doctor *d, char *out, size_t len)
{
	char path[1024], state[32];
	struct dirent *e;
	DIR *dir;

	snprintf(out, len, "eth0");
	snprintf(path, sizeof(path), "%s/class/net", d->sys);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo"))
			continue;
		snprintf(path, sizeof(path), "%s/class/net/%s/operstate", d->sys, e->d_name);
		if (!read_line(path, state, sizeof(state)) && !strcmp(state, "up")) {
			snprintf(out, len, "%s", e->d_name);
			break;
		}
	}
	closedir(dir);
}

/* The RoCE MTU rxe derives from a netdev MTU: the largest IB MTU that fits with its headers. */
static unsigned roce_mtu(unsigned ndev_mtu)
{
	unsigned m = 4096;

	while (m >= 256 && m + 80 > ndev_mtu)
		m /= 2;
	return m >= 256 ? m : 0;
}

static struct json_object *gid_json(const struct rblk_gid_info *g)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "index", json_object_new_int((int)g->index));
	json_object_object_add(o, "gid", json_object_new_string(g->str));
	json_object_object_add(o, "type", json_object_new_string(rblk_gid_type_str(g->type)));
	json_object_object_add(o, "netdev", json_object_new_string(g->netdev));
	return o;
}

/*
 * The checks of one port, each named "<dev> port <n> <what>". NAME() uses
 * the caller's dev, p and name[] (rblk_cli_check() copies it).
 */
#define NAME(what) (snprintf(name, sizeof(name), "%s port %u %s", dev->name, p->port_num, what), name)

/* Port state, physical state and link layer. */
static void check_port_link(struct cli_doctor *d, const struct rblk_rdma_dev_info *dev,
			    const struct rblk_port_info *p)
{
	bool eth = p->link_layer == RBLK_LINK_ETHERNET;
	char name[160], fix[320];

	if (eth)
		snprintf(fix, sizeof(fix), "bring the Ethernet device up (ip link set %s up) and check its link",
			 p->netdev[0] ? p->netdev : "DEV");
	else
		snprintf(fix, sizeof(fix), "check the cable and that a subnet manager runs (opensm)");
	if (p->state == RBLK_PORT_ACTIVE)
		rblk_cli_check(d, CLI_OK, NAME("state"), "", "ACTIVE");
	else
		rblk_cli_check(d, CLI_FAIL, NAME("state"), fix, "%s: the port cannot carry traffic",
			       rblk_port_state_str(p->state));
	if (p->phys_state == 5)
		rblk_cli_check(d, CLI_OK, NAME("physical state"), "", "%s", p->phys_state_str);
	else
		rblk_cli_check(d, CLI_FAIL, NAME("physical state"), "check the cable, the switch port and the NIC firmware",
			       "%s (LinkUp expected)", p->phys_state_str[0] ? p->phys_state_str : "unknown");
	rblk_cli_check(d, CLI_OK, NAME("link"), "", "%s%s, %s", rblk_link_layer_str(p->link_layer),
		       eth ? " (RoCE)" : "", p->rate[0] ? p->rate : "rate unknown");
}

/* The active MTU, else the one the netdev's MTU gives RoCE. Returns the netdev MTU (0: unknown). */
static unsigned check_port_mtu(struct cli_doctor *d, const struct rblk_rdma_dev_info *dev,
			       const struct rblk_port_info *p)
{
	bool eth = p->link_layer == RBLK_LINK_ETHERNET;
	char name[160], path[1024], buf[64];
	unsigned ndev_mtu = 0;

	if (eth && p->netdev[0]) {
		snprintf(path, sizeof(path), "%s/class/net/%s/mtu", d->sys, p->netdev);
		if (!read_line(path, buf, sizeof(buf)))
			ndev_mtu = (unsigned)strtoul(buf, NULL, 10);
	}
	if (p->active_mtu) {
		if (p->active_mtu < 1024)
			rblk_cli_check(d, CLI_WARN, NAME("mtu"), "raise the netdev MTU (ip link set DEV mtu 9000) on both ends",
				       "active %u, max %u: small packets cost throughput", p->active_mtu, p->max_mtu);
		else
			rblk_cli_check(d, CLI_OK, NAME("mtu"), "", "active %u, max %u%s", p->active_mtu, p->max_mtu,
				       p->active_mtu < p->max_mtu && eth ? " (a larger netdev MTU on both ends gives a larger RoCE MTU)" : "");
	} else if (ndev_mtu) {
		rblk_cli_check(d, roce_mtu(ndev_mtu) >= 1024 ? CLI_OK : CLI_WARN, NAME("mtu"),
			       roce_mtu(ndev_mtu) >= 1024 ? "" : "raise the netdev MTU (ip link set DEV mtu 9000) on both ends",
			       "netdev %s MTU %u: RoCE MTU %u", p->netdev, ndev_mtu, roce_mtu(ndev_mtu));
	}
	return ndev_mtu;
}

/* The GID table (also into pj's "gids"): RoCE needs a v2 GID for an IP address. */
static void check_port_gids(struct cli_doctor *d, const struct rblk_rdma_dev_info *dev,
			    const struct rblk_port_info *p, struct json_object *pj)
{
	bool eth = p->link_layer == RBLK_LINK_ETHERNET, ip_gid = false;
	char name[160], gids[256];
	size_t o = 0;

	gids[0] = '\0';
	for (unsigned i = 0; i < p->gid_count; i++) {
		const struct rblk_gid_info *g = &p->gids[i];

		if (g->type == RBLK_GID_ROCE_V2 && strncmp(g->str, "fe80:", 5))
			ip_gid = true;
		if (o < sizeof(gids) - 1)
			o += (size_t)snprintf(gids + o, sizeof(gids) - o, "%s%u %s (%s)", o ? ", " : "",
					      g->index, g->str, rblk_gid_type_str(g->type));
		json_object_array_add(json_object_object_get(pj, "gids"), gid_json(g));
	}
	if (!p->gid_count)
		rblk_cli_check(d, CLI_FAIL, NAME("gids"),
			       eth ? "give the netdev an IP address: GIDs follow its addresses" :
				     "check the port state and the subnet manager",
			       "no GID: connections cannot be made");
	else if (eth && !ip_gid)
		rblk_cli_check(d, CLI_WARN, NAME("gids"),
			       "give the netdev an IP address (ip addr add ADDR/PREFIX dev DEV): rdma_cm needs a RoCE v2 GID for it",
			       "%s: no RoCE v2 GID for an IP address", gids);
	else
		rblk_cli_check(d, CLI_OK, NAME("gids"), "", "%s", gids);
}

/* RoCE only: the Ethernet device behind the port, and whether it is up. */
static void check_port_netdev(struct cli_doctor *d, const struct rblk_rdma_dev_info *dev,
			      const struct rblk_port_info *p)
{
	char name[160], path[1024], buf[64], fix[320];

	if (p->link_layer != RBLK_LINK_ETHERNET)
		return;
	if (!p->netdev[0]) {
		rblk_cli_check(d, CLI_WARN, NAME("netdev"), "", "no Ethernet device found behind the port");
		return;
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", d->sys, p->netdev);
	if (read_line(path, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "missing");
	snprintf(fix, sizeof(fix), "ip link set %s up", p->netdev);
	if (!strcmp(buf, "up") || !strcmp(buf, "unknown"))
		rblk_cli_check(d, CLI_OK, NAME("netdev"), "", "%s is %s", p->netdev, buf);
	else
		rblk_cli_check(d, CLI_FAIL, NAME("netdev"), fix, "%s is %s", p->netdev, buf);
}

/* The port's error counters, when they can be read: all should be zero. */
static void check_port_errors(struct cli_doctor *d, const struct rblk_rdma_dev_info *dev,
			      const struct rblk_port_info *p)
{
	struct rblk_port_counters pc;
	char name[160], errs[256];
	unsigned navail = 0;
	size_t o = 0;

	if (rblk_port_counters_read(d->sys, dev->name, (int)p->port_num, &pc))
		return;
	errs[0] = '\0';
	for (int i = 0; i < RBLK_PC_COUNT; i++) {
		if (!rblk_pc_is_error(i) || !rblk_pc_avail(&pc, i))
			continue;
		navail++;
		if (pc.v[i] && o < sizeof(errs) - 1)
			o += (size_t)snprintf(errs + o, sizeof(errs) - o, "%s%s/%s %llu", o ? ", " : "",
					      rblk_pc_source(i), rblk_pc_name(i), (unsigned long long)pc.v[i]);
	}
	if (errs[0])
		rblk_cli_check(d, CLI_WARN, NAME("error counters"),
			       "they should stay at zero: check cabling, MTU on both ends, PFC/ECN on the "
			       "switches (RoCE), `ethtool -S NETDEV`; watch whether they grow",
			       "%s", errs);
	else
		rblk_cli_check(d, CLI_OK, NAME("error counters"), "", "%u error counters, all zero", navail);
}
#undef NAME

static void check_port(struct cli_doctor *d, const struct rblk_rdma_dev_info *dev,
		       const struct rblk_port_info *p, struct json_object *pj)
{
	unsigned ndev_mtu;

	check_port_link(d, dev, p);
	ndev_mtu = check_port_mtu(d, dev, p);
	check_port_gids(d, dev, p, pj);
	check_port_netdev(d, dev, p);
	check_port_errors(d, dev, p);
	json_object_object_add(pj, "netdev_mtu", json_object_new_int((int)ndev_mtu));
}

void rblk_cli_doctor_devices(struct cli_doctor *d)
{
	struct rblk_rdma_dev_info *devs = NULL;
	char list[256], nd[256], fix[600], path[1024];
	size_t o = 0;
	int n = 0, ret;

	ret = rblk_rdma_dev_list_at(d->sys, &devs, &n);
	if (ret) {
		rblk_cli_check(d, CLI_FAIL, "rdma devices", "", "cannot list RDMA devices: %s", strerror(-ret));
		return;
	}
	d->ndevs = (unsigned)n;
	if (!n) {
		pick_netdev(d, nd, sizeof(nd));
		snprintf(fix, sizeof(fix),
			 "no RDMA NIC? use Soft-RoCE over an Ethernet device: `modprobe rdma_rxe && rdma link "
			 "add rxe0 type rxe netdev %s`; with an RDMA NIC, load its driver (mlx5_ib, irdma, "
			 "bnxt_re, ...)",
			 nd);
		snprintf(path, sizeof(path), "%s/class/infiniband", d->sys);
		rblk_cli_check(d, CLI_FAIL, "rdma devices", fix, "no RDMA device on this host%s: nothing "
			       "can connect over RDMA", exists(path) ? "" : " (no /sys/class/infiniband: the "
			       "kernel's RDMA core is not loaded or not built)");
		return;
	}
	list[0] = '\0';
	for (int i = 0; i < n; i++)
		if (o < sizeof(list) - 1)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s%s%s%s", i ? ", " : "", devs[i].name,
					      devs[i].parent[0] ? " (on " : "", devs[i].parent,
					      devs[i].parent[0] ? ")" : "");
	rblk_cli_check(d, CLI_OK, "rdma devices", "", "%d: %s", n, list);
	for (int i = 0; i < n; i++) {
		struct json_object *dj = json_object_new_object(), *ports = json_object_new_array();

		json_object_object_add(dj, "name", json_object_new_string(devs[i].name));
		json_object_object_add(dj, "node_guid", json_object_new_string(devs[i].node_guid_str));
		json_object_object_add(dj, "node_type", json_object_new_string(devs[i].node_type_str));
		json_object_object_add(dj, "fw_ver", json_object_new_string(devs[i].fw_ver));
		json_object_object_add(dj, "parent", json_object_new_string(devs[i].parent));
		for (unsigned p = 0; p < devs[i].port_count; p++) {
			const struct rblk_port_info *pi = &devs[i].ports[p];
			struct json_object *pj = json_object_new_object();

			json_object_object_add(pj, "port", json_object_new_int((int)pi->port_num));
			json_object_object_add(pj, "state", json_object_new_string(rblk_port_state_str(pi->state)));
			json_object_object_add(pj, "phys_state", json_object_new_string(pi->phys_state_str));
			json_object_object_add(pj, "link_layer",
					       json_object_new_string(rblk_link_layer_str(pi->link_layer)));
			json_object_object_add(pj, "rate", json_object_new_string(pi->rate));
			json_object_object_add(pj, "active_mtu", json_object_new_int((int)pi->active_mtu));
			json_object_object_add(pj, "netdev", json_object_new_string(pi->netdev));
			json_object_object_add(pj, "gids", json_object_new_array());
			check_port(d, &devs[i], pi, pj);
			json_object_array_add(ports, pj);
		}
		json_object_object_add(dj, "ports", ports);
		json_object_array_add(d->devices, dj);
	}
	rblk_rdma_dev_list_free(devs, n);
}

static unsigned online_cpus(struct cli_doctor *d)
{
	char path[1024], buf[256], *p;
	unsigned n = 0;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", d->sys);
	if (read_line(path, buf, sizeof(buf)))
		return d->real_root ? (unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	/* "0-3,6,8-9" */
	for (p = strtok(buf, ","); p; p = strtok(NULL, ",")) {
		unsigned a, b;

		if (sscanf(p, "%u-%u", &a, &b) == 2 && b >= a)
			n += b - a + 1;
		else
			n++;
	}
	return n ? n : 1;
}

/*
 * What a default initiator pins per I/O queue (one per CPU, and the admin
 * queue): 128 slots with 4 KiB of registered data each (initiator/queue.h;
 * its bounce units are registered only when large I/O uses unregistered
 * memory, which the CLI does not); plus `rblk read`'s default buffers
 * (8 x 128 KiB).
 */
uint64_t rblk_cli_memlock_initiator(unsigned cpus)
{
	return (cpus + 1) * 128 * 4096ULL + 8 * (128ULL << 10);
}

/*
 * What rblk-target pins with default options, per poll group (one per CPU):
 * 128 I/O units of 128 KiB, and per queue 128 receive buffers of 64 B +
 * 8 KiB in-capsule data plus 128 responses (daemon/main.c memlock_need).
 */
uint64_t rblk_cli_memlock_target(unsigned cpus)
{
	uint64_t pool = 128 * (128ULL << 10), recv = 128 * (64 + 8192ULL), rsp = 128 * 64ULL;

	return cpus * (pool + recv + rsp);
}

void rblk_cli_doctor_memlock(struct cli_doctor *d)
{
	char path[1024], line[256], ini[32], tgt[32], lim[32];
	unsigned cpus = online_cpus(d);
	uint64_t need_i = rblk_cli_memlock_initiator(cpus), need_t = rblk_cli_memlock_target(cpus);
	uint64_t limit = 0;
	bool found = false, cap = false, unlimited = false;
	const char *fix = "raise it: `ulimit -l unlimited` in the shell, LimitMEMLOCK=infinity in a "
			  "systemd unit, or a `* - memlock unlimited` line in /etc/security/limits.conf";
	FILE *f;

	snprintf(path, sizeof(path), "%s/self/status", d->proc);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long eff;

		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			cap = (eff >> CAP_IPC_LOCK_BIT) & 1;
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/self/limits", d->proc);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char soft[32];

		if (strncmp(line, "Max locked memory", 17) || sscanf(line + 17, " %31s", soft) != 1)
			continue;
		found = true;
		if (!strcmp(soft, "unlimited"))
			unlimited = true;
		else
			limit = strtoull(soft, NULL, 10);
	}
	if (f)
		fclose(f);
	rblk_cli_fmt_iec(need_i, ini, sizeof(ini));
	rblk_cli_fmt_iec(need_t, tgt, sizeof(tgt));
	if (cap) {
		rblk_cli_check(d, CLI_OK, "memlock", "", "CAP_IPC_LOCK: no limit on registered memory");
		return;
	}
	if (!found) {
		rblk_cli_check(d, CLI_WARN, "memlock", "", "cannot read RLIMIT_MEMLOCK from %s", path);
		return;
	}
	if (unlimited) {
		rblk_cli_check(d, CLI_OK, "memlock", "", "unlimited");
		return;
	}
	rblk_cli_fmt_iec(limit, lim, sizeof(lim));
	if (limit < need_i)
		rblk_cli_check(d, CLI_FAIL, "memlock", fix,
			       "RLIMIT_MEMLOCK is %s; a default initiator with %u CPUs pins about %s "
			       "(rblk-target about %s): registration will fail with ENOMEM",
			       lim, cpus, ini, tgt);
	else if (limit < need_t)
		rblk_cli_check(d, CLI_WARN, "memlock", fix,
			       "RLIMIT_MEMLOCK is %s: enough for a default initiator (about %s), not for "
			       "rblk-target with default options (about %s with %u CPUs)",
			       lim, ini, tgt, cpus);
	else
		rblk_cli_check(d, CLI_OK, "memlock", "", "RLIMIT_MEMLOCK is %s (initiator needs about %s, "
			       "rblk-target about %s)", lim, ini, tgt);
}

void rblk_cli_doctor_hugepages(struct cli_doctor *d)
{
	char path[1024], line[256], thp[64] = "";
	unsigned long total = 0, nfree = 0, size_kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meminfo", d->proc);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %lu", &total);
		sscanf(line, "HugePages_Free: %lu", &nfree);
		sscanf(line, "Hugepagesize: %lu kB", &size_kb);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", d->sys);
	if (!read_line(path, line, sizeof(line))) {
		char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;

		if (a && b) {
			*b = '\0';
			snprintf(thp, sizeof(thp), ", transparent hugepages: %s", a + 1);
		}
	}
	if (!total)
		rblk_cli_check(d, CLI_OK, "hugepages",
			       "optional: reserve some for the buffer pools, e.g. `echo 1024 > /proc/sys/vm/nr_hugepages`",
			       "none reserved (%lu kB pages): buffer pools use normal pages%s", size_kb, thp);
	else if (!nfree)
		rblk_cli_check(d, CLI_WARN, "hugepages", "reserve more: /proc/sys/vm/nr_hugepages",
			       "all %lu of %lu kB are in use: new pools fall back to normal pages%s", total, size_kb, thp);
	else
		rblk_cli_check(d, CLI_OK, "hugepages", "", "%lu of %lu reserved pages of %lu kB free%s", nfree,
			       total, size_kb, thp);
}

static bool module_loaded(struct cli_doctor *d, const char *mod)
{
	char path[1024], line[256];
	size_t n = strlen(mod);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/modules", d->proc);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, mod, n) && line[n] == ' ';
	if (f)
		fclose(f);
	if (found)
		return true;
	/* built into the kernel: no line in /proc/modules, but its /sys/module entry */
	snprintf(path, sizeof(path), "%s/module/%s", d->sys, mod);
	return exists(path);
}

/*
 * rblk attach needs one of its two block drivers: ublk (preferred, 6.0+
 * kernels built with it) or NBD. Only having neither is worth a warning; the
 * fix names the one this kernel can load.
 */
static void attach_drivers(struct cli_doctor *d)
{
	char path[1024];
	bool ublk, nbd = module_loaded(d, "nbd");

	snprintf(path, sizeof(path), "%s/ublk-control", d->dev);
	ublk = module_loaded(d, "ublk_drv") || exists(path);
	if (ublk)
		rblk_cli_check(d, CLI_OK, "module ublk_drv", "", "loaded (rblk attach makes /dev/ublkbN)");
	else
		rblk_cli_check(d, nbd ? CLI_OK : CLI_WARN, "module ublk_drv", "modprobe ublk_drv",
			       "not loaded: rblk attach --ublk needs it (kernel 6.0 or later)%s",
			       nbd ? "; NBD serves attach meanwhile" : "");
	if (nbd)
		rblk_cli_check(d, CLI_OK, "module nbd", "", "loaded (rblk attach --nbd makes /dev/nbdN)");
	else
		rblk_cli_check(d, ublk ? CLI_OK : CLI_WARN, "module nbd", "modprobe nbd",
			       ublk ? "not loaded (only needed for rblk attach --nbd)"
				    : "not loaded: rblk attach needs nbd or ublk_drv");
}

void rblk_cli_doctor_modules(struct cli_doctor *d)
{
	static const struct {
		const char *mod, *why;
	} need[] = {
		{ "ib_uverbs", "userspace verbs (every rblk program)" },
		{ "rdma_ucm", "the RDMA connection manager from userspace (every rblk program)" },
	};
	char fix[160];
	bool rxe = module_loaded(d, "rdma_rxe");

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "module %s", need[i].mod);
		snprintf(fix, sizeof(fix), "modprobe %s", need[i].mod);
		if (module_loaded(d, need[i].mod))
			rblk_cli_check(d, CLI_OK, name, "", "loaded (%s)", need[i].why);
		else
			rblk_cli_check(d, d->ndevs ? CLI_FAIL : CLI_WARN, name, fix, "not loaded: needed for %s",
				       need[i].why);
	}
	if (rxe)
		rblk_cli_check(d, CLI_OK, "module rdma_rxe", d->ndevs ? "" : "rdma link add rxe0 type rxe netdev DEV",
			       "loaded (Soft-RoCE)%s", d->ndevs ? "" : ", but no rxe device was created");
	else
		rblk_cli_check(d, CLI_OK, "module rdma_rxe", "", "not loaded (only needed for Soft-RoCE)");
	attach_drivers(d);
}

void rblk_cli_doctor_dev_nodes(struct cli_doctor *d)
{
	char path[1024], list[256];
	unsigned n = 0, bad = 0;
	struct dirent *e;
	size_t o = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/infiniband", d->dev);
	dir = opendir(path);
	list[0] = '\0';
	while (dir && (e = readdir(dir))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/infiniband/%s", d->dev, e->d_name);
		if (access(path, R_OK | W_OK)) {
			bad++;
			if (o < sizeof(list) - 1)
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? ", " : "", e->d_name);
		}
	}
	if (dir)
		closedir(dir);
	if (d->ndevs && !n)
		rblk_cli_check(d, CLI_FAIL, "/dev/infiniband/uverbs*", "modprobe ib_uverbs (and check udev)",
			       "missing: programs cannot open the RDMA devices");
	else if (bad)
		rblk_cli_check(d, CLI_FAIL, "/dev/infiniband/uverbs*",
			       "run as root, or give the user access (udev rule, group rdma)",
			       "not readable and writable by this user: %s", list);
	else if (n)
		rblk_cli_check(d, CLI_OK, "/dev/infiniband/uverbs*", "", "%u, accessible", n);
	snprintf(path, sizeof(path), "%s/infiniband/rdma_cm", d->dev);
	if (!exists(path))
		rblk_cli_check(d, d->ndevs ? CLI_FAIL : CLI_WARN, "/dev/infiniband/rdma_cm", "modprobe rdma_ucm",
			       "missing: rdma_cm (connection setup) cannot work");
	else if (access(path, R_OK | W_OK))
		rblk_cli_check(d, CLI_FAIL, "/dev/infiniband/rdma_cm", "run as root, or give the user access (udev rule)",
			       "not readable and writable by this user");
	else
		rblk_cli_check(d, CLI_OK, "/dev/infiniband/rdma_cm", "", "accessible");
}

void rblk_cli_doctor_route(struct cli_doctor *d, const char *addr)
{
	struct sockaddr_storage local;
	struct rblk_addr_dev ad;
	char l[64], name[128];
	int ret;

	snprintf(name, sizeof(name), "route to %s", addr);
	ret = rblk_cli_route_source(addr, "4420", &local);
	if (ret) {
		rblk_cli_check(d, CLI_FAIL, name, "check the address and the routing table (ip route get ADDR)",
			       "no route: %s", strerror(-ret));
		return;
	}
	rblk_addr_host_str((struct sockaddr *)&local, l, sizeof(l));
	ret = d->real_root ? rblk_rdma_dev_for_addr((struct sockaddr *)&local, &ad) : -ENODEV;
	if (ret)
		ret = rblk_rdma_dev_for_addr_sysfs(d->sys, (struct sockaddr *)&local, &ad);
	if (ret)
		rblk_cli_check(d, CLI_FAIL, name,
			       "the local address must belong to a netdev with an RDMA device (rdma link show); "
			       "pick another with -w/--host-traddr",
			       "leaves from %s, which no RDMA device holds: the traffic would not be RDMA", l);
	else
		rblk_cli_check(d, CLI_OK, name, "", "leaves from %s on %s port %u (%s, GID %d %s)", l, ad.dev,
			       ad.port_num, ad.netdev[0] ? ad.netdev : "no netdev", ad.gid_index,
			       rblk_gid_type_str(ad.gid_type));
}
