/* SPDX-License-Identifier: MIT */
/*
 * Socket addresses for rdma_cm: numeric IPv4/IPv6 parsing (never DNS: a
 * storage listener must not depend on a resolver, and nvmet/SPDK take
 * numeric traddr too), "ADDR[:PORT]" parsing, and printing for logs.
 */
#ifndef RBLK_TRANSPORT_ADDR_H
#define RBLK_TRANSPORT_ADDR_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Enough for "[" IPv6 "%" ifname "]:" port and the NUL. */
#define RBLK_ADDR_STRLEN (INET6_ADDRSTRLEN + IF_NAMESIZE + 10)

/*
 * Parses a numeric address into @out with @port (host order).
 *   NULL, "" or "*"          IPv4 wildcard (0.0.0.0)
 *   "10.99.0.1"              IPv4
 *   "fe80::1", "[fe80::1]"   IPv6, brackets optional
 *   "fe80::1%veth0"          IPv6 with a scope (interface name or number)
 * Returns 0, -EINVAL for anything else, -ENODEV for an unknown scope name.
 */
int rblk_addr_parse(const char *addr, uint16_t port, struct sockaddr_storage *out);

/*
 * Parses "ADDR[:PORT]": "10.0.0.1:4420", "10.0.0.1", "[::1]:4420", "::1",
 * ":4420" (wildcard). A bare IPv6 address cannot carry a port: "::1:4420" is
 * an address. PORT follows rblk_port_parse() (common/parse.h); a missing
 * port means @default_port.
 * Returns 0 or -EINVAL (-ENODEV for an unknown scope name).
 */
int rblk_hostport_parse(const char *s, uint16_t default_port,
			struct sockaddr_storage *out);

/* "10.0.0.1:4420", "[fe80::1%2]:4420"; "?" for an unknown family. Returns @buf. */
const char *rblk_addr_str(const struct sockaddr *sa, char *buf, size_t len);
/* Address only, no port: "10.0.0.1", "fe80::1%2". Returns @buf. */
const char *rblk_addr_host_str(const struct sockaddr *sa, char *buf, size_t len);

/* Port in host order (0 for an unknown family). */
uint16_t rblk_addr_port(const struct sockaddr *sa);
void rblk_addr_set_port(struct sockaddr *sa, uint16_t port);
/* sizeof the family's sockaddr (0 for an unknown family). */
socklen_t rblk_addr_len(const struct sockaddr *sa);
bool rblk_addr_is_any(const struct sockaddr *sa);

/*
 * The 16-byte GID a RoCE port shows for this IP address: the IPv6 address
 * itself, or ::ffff:a.b.c.d for IPv4 (the IPv4-mapped form the kernel puts in
 * the GID table). Returns 0 or -EAFNOSUPPORT.
 */
int rblk_addr_to_gid(const struct sockaddr *sa, uint8_t gid[16]);

#endif
