/* SPDX-License-Identifier: MIT */
/*
 * Output formatting for `rblk`: -o json printing, human-readable sizes and
 * rates, nvme-cli's discovery log layout (normal and JSON), Identify
 * Controller / Namespace dumps and the `list` table. Everything prints to a
 * caller-given FILE (tests use memory streams) and builds json-c objects the
 * caller prints with rblk_cli_json_print().
 */
#ifndef RBLK_CLI_OUTPUT_H
#define RBLK_CLI_OUTPUT_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include <rblk/initiator.h>

/* Pretty JSON ("key": value, two-space indent, no escaped slashes) and a newline. */
void rblk_cli_json_print(FILE *f, struct json_object *o);

/* 1536 -> "1.50 KiB", 512 -> "512 B". Returns @buf. */
const char *rblk_cli_fmt_iec(uint64_t bytes, char *buf, size_t len);
/* nvme list style decimal: 1073741824 -> "1.07  GB". Returns @buf. */
const char *rblk_cli_fmt_si(uint64_t bytes, char *buf, size_t len);

/* Discovery log fields as libnvme names them ("rdma", "ipv4", "nvme subsystem", ...). */
const char *rblk_cli_trtype_str(uint8_t trtype);
const char *rblk_cli_adrfam_str(uint8_t adrfam);
const char *rblk_cli_subtype_str(uint8_t subtype);
const char *rblk_cli_treq_str(uint8_t treq, char *buf, size_t len);
const char *rblk_cli_eflags_str(uint16_t eflags);
const char *rblk_cli_prtype_str(uint8_t prtype);
const char *rblk_cli_qptype_str(uint8_t qptype);
const char *rblk_cli_cms_str(uint8_t cms);

/* nvme discover's normal output. */
void rblk_cli_disc_print(FILE *f, const struct rblk_disc_entry *e, unsigned n, uint64_t genctr);
/* {"genctr": N, "records": [...]}, nvme discover -o json's keys. */
struct json_object *rblk_cli_disc_json(const struct rblk_disc_entry *e, unsigned n,
				       uint64_t genctr);

/* Identify Controller / Namespace (4096-byte buffers), nvme id-ctrl / id-ns style. */
void rblk_cli_id_ctrl_print(FILE *f, const void *id);
struct json_object *rblk_cli_id_ctrl_json(const void *id);
void rblk_cli_id_ns_print(FILE *f, uint32_t nsid, const void *id);
struct json_object *rblk_cli_id_ns_json(const void *id);

/* One namespace of `rblk list`. */
struct cli_list_row {
	uint32_t nsid;
	uint64_t nsze, nuse;		/* blocks */
	uint32_t lba_size;		/* bytes */
	uint16_t ms;			/* metadata bytes per block */
	char sn[21], mn[41], fr[9];	/* trimmed copies from Identify Controller */
};
/* Fills the controller fields (sn, mn, fr) of @row from Identify Controller. */
void rblk_cli_list_row_ctrl(struct cli_list_row *row, const void *id_ctrl);
/* Fills the namespace fields of @row from Identify Namespace. */
void rblk_cli_list_row_ns(struct cli_list_row *row, uint32_t nsid, const void *id_ns);
void rblk_cli_list_print(FILE *f, const char *subnqn, const char *traddr, const char *trsvcid,
			 const struct cli_list_row *rows, unsigned n);
/* {"Devices": [{"NameSpace", "Firmware", "ModelNumber", ...}]} as nvme list -o json. */
struct json_object *rblk_cli_list_json(const char *subnqn, const char *traddr, const char *trsvcid,
				       const struct cli_list_row *rows, unsigned n);

/* Copies a space-padded Identify string field (sn/mn/fr) without the padding. */
void rblk_cli_id_str(char *dst, size_t dstlen, const char *field, size_t fieldlen);

#endif
