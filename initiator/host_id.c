/* SPDX-License-Identifier: MIT */
/*
 * Host identity as nvme-cli and libnvme find it:
 *   host NQN: the caller's override, else /etc/nvme/hostnqn, else one
 *             generated like `nvme gen-hostnqn` (DMI product_uuid, then the
 *             SMBIOS type-1 entry, then the device-tree partition UUID, then
 *             random);
 *   host ID:  the override, else /etc/nvme/hostid, else the UUID inside a
 *             uuid-form NQN, else random.
 * UUID text and random UUIDs are common/uuid.c's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/uuid.h"
#include "initiator/host_id.h"
#include "protocol/nqn.h"

/* First line of a small text file, surrounding white space removed. 0, -ENOENT, -ENODATA. */
static int read_line(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	FILE *f;
	size_t n;
	char *p;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return -errno;
	p = fgets(buf, (int)len, f);
	fclose(f);
	if (!p)
		return -ENODATA;
	buf[strcspn(buf, "\r\n")] = '\0';
	for (p = buf; isspace((unsigned char)*p); p++)
		;
	memmove(buf, p, strlen(p) + 1);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n ? 0 : -ENODATA;
}

/* DMI leaves all-zero ("not settable") and all-0xFF ("not present") UUIDs in firmware. */
static bool uuid_usable(const uint8_t u[16])
{
	bool zero = true, ff = true;

	for (int i = 0; i < 16; i++) {
		zero &= u[i] == 0;
		ff &= u[i] == 0xFF;
	}
	return !zero && !ff;
}

static int uuid_from_product_uuid(const char *root, uint8_t uuid[16])
{
	char line[128];

	if (read_line(root, "/sys/class/dmi/id/product_uuid", line, sizeof(line)) ||
	    rblk_uuid_parse(line, uuid) || !uuid_usable(uuid))
		return -ENOENT;
	return 0;
}

/*
 * The SMBIOS System Information structure (type 1): UUID at offset 8 of the
 * raw entry, its first three fields little-endian (SMBIOS >= 2.6), as
 * libnvme reads it when product_uuid is not readable (it is root-only).
 */
static int uuid_from_dmi_entries(const char *root, uint8_t uuid[16])
{
	char dir[4096], path[4096 + 512];
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/firmware/dmi/entries", root);
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while (ret && (de = readdir(d))) {
		uint8_t raw[24];
		char type[16];
		size_t n;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/firmware/dmi/entries/%s/type", de->d_name);
		if (read_line(root, path, type, sizeof(type)) || strcmp(type, "1"))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%.255s/raw", dir, de->d_name) >=
		    sizeof(path))
			continue;
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(raw, 1, sizeof(raw), f);
		fclose(f);
		if (n < 24)
			continue;
		uuid[0] = raw[11], uuid[1] = raw[10], uuid[2] = raw[9], uuid[3] = raw[8];
		uuid[4] = raw[13], uuid[5] = raw[12];
		uuid[6] = raw[15], uuid[7] = raw[14];
		memcpy(uuid + 8, raw + 16, 8);
		if (uuid_usable(uuid))
			ret = 0;
	}
	closedir(d);
	return ret;
}

/* POWER LPARs: the partition UUID in the device tree. */
static int uuid_from_device_tree(const char *root, uint8_t uuid[16])
{
	char line[128];

	if (read_line(root, "/proc/device-tree/ibm,partition-uuid", line, sizeof(line)) ||
	    rblk_uuid_parse(line, uuid) || !uuid_usable(uuid))
		return -ENOENT;
	return 0;
}

int rblk_hostnqn_generate_at(const char *root, char *buf, size_t len)
{
	char str[RBLK_UUID_STRLEN];
	uint8_t uuid[16];
	int ret;

	if (!buf || len < sizeof(RBLK_NQN_UUID_PREFIX) + 36)
		return -ENOSPC;
	if (uuid_from_product_uuid(root, uuid) && uuid_from_dmi_entries(root, uuid) &&
	    uuid_from_device_tree(root, uuid)) {
		ret = rblk_uuid_random(uuid);
		if (ret)
			return ret;
		RBLK_INFO("no DMI or device-tree UUID: host NQN from a random UUID");
	}
	snprintf(buf, len, "%s%s", RBLK_NQN_UUID_PREFIX, rblk_uuid_format(uuid, str));
	return 0;
}

int rblk_hostnqn_generate(char *buf, size_t len)
{
	return rblk_hostnqn_generate_at("", buf, len);
}

static int nqn_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > RBLK_NQN_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (iscntrl((unsigned char)s[i]))
			return -EINVAL;
	return 0;
}

int rblk_host_id_load_at(const char *root, const char *hostnqn, const char *hostid,
			 struct rblk_host_id *out)
{
	char line[RBLK_NQN_MAX + 64];
	size_t plen = strlen(RBLK_NQN_UUID_PREFIX);
	int ret;

	memset(out, 0, sizeof(*out));
	if (hostnqn) {
		if (nqn_ok(hostnqn))
			return -EINVAL;
		strcpy(out->hostnqn, hostnqn);
	} else if (!read_line(root, "/etc/nvme/hostnqn", line, sizeof(line)) && !nqn_ok(line)) {
		strcpy(out->hostnqn, line);
	} else {
		ret = rblk_hostnqn_generate_at(root, out->hostnqn, sizeof(out->hostnqn));
		if (ret)
			return ret;
	}

	if (hostid)
		return rblk_uuid_parse(hostid, out->hostid);
	if (!read_line(root, "/etc/nvme/hostid", line, sizeof(line)) &&
	    !rblk_uuid_parse(line, out->hostid))
		return 0;
	if (!strncmp(out->hostnqn, RBLK_NQN_UUID_PREFIX, plen) &&
	    !rblk_uuid_parse(out->hostnqn + plen, out->hostid))
		return 0;
	return rblk_uuid_random(out->hostid);
}

int rblk_host_id_load(const char *hostnqn, const char *hostid, struct rblk_host_id *out)
{
	return rblk_host_id_load_at("", hostnqn, hostid, out);
}
