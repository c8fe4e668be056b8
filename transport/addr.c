/* SPDX-License-Identifier: MIT */
/*
 * Numeric address parsing and printing for rdma_cm (see addr.h). Pure
 * functions over libc; no RDMA here, so everything is unit-tested.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "transport/addr.h"

static int parse_scope(const char *s, uint32_t *scope)
{
	char *end;
	unsigned long v;

	if (!*s)
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (!*end && v <= UINT32_MAX) {
		*scope = (uint32_t)v;
		return 0;
	}
	if (strlen(s) >= IF_NAMESIZE)
		return -EINVAL;
	v = if_nametoindex(s);
	if (!v)
		return -ENODEV;
	*scope = (uint32_t)v;
	return 0;
}

int rblk_addr_parse(const char *addr, uint16_t port, struct sockaddr_storage *out)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)out;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)out;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 4];
	char *pct;
	size_t n;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!addr || !*addr || !strcmp(addr, "*")) {
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		sin->sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return 0;
	}

	n = strlen(addr);
	if (n >= sizeof(buf))
		return -EINVAL;
	if (addr[0] == '[') {
		if (n < 3 || addr[n - 1] != ']')
			return -EINVAL;
		memcpy(buf, addr + 1, n - 2);
		buf[n - 2] = '\0';
	} else {
		memcpy(buf, addr, n + 1);
	}
	pct = strchr(buf, '%');
	if (pct)
		*pct = '\0';
	if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	if (pct) {
		ret = parse_scope(pct + 1, &sin6->sin6_scope_id);
		if (ret) {
			memset(out, 0, sizeof(*out));
			return ret;
		}
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	return 0;
}

int rblk_hostport_parse(const char *s, uint16_t default_port,
			struct sockaddr_storage *out)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 4];
	const char *colon, *portstr = NULL;
	uint16_t port = 0;
	size_t hlen;

	if (!s)
		return -EINVAL;
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb)
			return -EINVAL;
		hlen = (size_t)(rb - s) + 1;
		if (rb[1] == ':')
			portstr = rb + 2;
		else if (rb[1])
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		/* Exactly one ':' is host:port; more than one is a bare IPv6 address. */
		if (colon && !strchr(colon + 1, ':')) {
			hlen = (size_t)(colon - s);
			portstr = colon + 1;
		} else {
			hlen = strlen(s);
		}
	}
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (portstr && rblk_port_parse(portstr, &port, NULL, 0))
		return -EINVAL;
	if (!portstr)
		port = default_port;
	return rblk_addr_parse(host, port, out);
}

const char *rblk_addr_host_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (!len)
		return buf;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		if (!inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip)))
			snprintf(ip, sizeof(ip), "?");
		snprintf(buf, len, "%s", ip);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		if (!inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip)))
			snprintf(ip, sizeof(ip), "?");
		if (sin6->sin6_scope_id)
			snprintf(buf, len, "%s%%%u", ip, sin6->sin6_scope_id);
		else
			snprintf(buf, len, "%s", ip);
	} else {
		snprintf(buf, len, "?");
	}
	return buf;
}

const char *rblk_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[RBLK_ADDR_STRLEN];

	if (!len)
		return buf;
	rblk_addr_host_str(sa, host, sizeof(host));
	if (sa->sa_family == AF_INET)
		snprintf(buf, len, "%s:%u", host, rblk_addr_port(sa));
	else if (sa->sa_family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", host, rblk_addr_port(sa));
	else
		snprintf(buf, len, "?");
	return buf;
}

uint16_t rblk_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

void rblk_addr_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

socklen_t rblk_addr_len(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

bool rblk_addr_is_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

int rblk_addr_to_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	if (sa->sa_family == AF_INET) {
		memset(gid, 0, 10);
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}
