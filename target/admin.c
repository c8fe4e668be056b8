/* SPDX-License-Identifier: MIT */
/*
 * Admin commands of an NVM (I/O) controller: Identify (CNS 00h, 01h, 02h,
 * 03h, 06h), Get Log Page (01h error, 02h SMART, 03h firmware, 04h changed
 * namespaces, 05h effects, 0Ch ANA from ana.c), Set/Get Features (01h, 02h, 04h,
 * 05h, 06h, 07h, 0Ah, 0Bh, 0Fh, 81h),
 * Asynchronous Event Request, Abort, Keep Alive. What the Linux 6.1 host
 * needs from each is in docs/interop.md §8-§11. Also the parse step both kinds
 * of controller share (rblk_admin_parse_cmds): the discovery controller
 * (target/discovery.c) brings its own Get Log Page and Identify and reuses
 * Identify Controller, Features, AER and Keep Alive from here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/log_pages.h"
#include "target/core.h"

#define FR_STRING "rblk" RBLK_STR(RBLK_VERSION_MAJOR) "." RBLK_STR(RBLK_VERSION_MINOR)
#define RBLK_STR_(x) #x
#define RBLK_STR(x) RBLK_STR_(x)

/* Identify strings are ASCII, space padded, not NUL terminated. */
static void copy_padded(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	memset(dst, ' ', len);
	memcpy(dst, src, n < len ? n : len);
}

static uint8_t mdts_of(uint32_t max_io_size)
{
	uint8_t mdts = 0;

	/* 2^MDTS pages of 4 KiB (CAP.MPSMIN = 0); create() enforces >= 8 KiB. */
	while ((4096ull << (mdts + 1)) <= max_io_size)
		mdts++;
	return mdts;
}

/* ------------------------------------------------------------------------ */
/* Identify.                                                                 */

void rblk_admin_identify_ctrl(struct rblk_req *req)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct rblk_subsystem *ss = ctrl->ss;
	const struct rblk_target_opts *o = &ss->tgt->opts;
	bool disc = rblk_tgt_ctrl_is_disc(ctrl);
	struct nvme_id_ctrl *id;
	uint16_t status;

	id = calloc(1, sizeof(*id));
	if (!id) {
		rblk_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	copy_padded(id->sn, sizeof(id->sn), ss->serial);
	copy_padded(id->mn, sizeof(id->mn), ss->model);
	copy_padded(id->fr, sizeof(id->fr), FR_STRING);
	id->rab = 6;
	/*
	 * Several controllers per subsystem (a host may connect twice). An NVM
	 * subsystem also has several ports and reports ANA, as nvmet; the
	 * discovery controller does not (the Linux host would then insist on
	 * an MNAN, which a discovery controller has no use for).
	 */
	id->cmic = disc ? NVME_CTRL_CMIC_MULTI_CTRL
			: NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL | NVME_CTRL_CMIC_ANA;
	id->mdts = mdts_of(o->max_io_size);
	id->cntlid = rblk_cpu_to_le16(ctrl->cntlid);
	id->ver = rblk_cpu_to_le32(NVME_VS(1, 3, 0));
	id->oaes = rblk_cpu_to_le32(disc ? NVME_CTRL_OAES_DISC_CHANGE
				     : NVME_CTRL_OAES_NS_ATTR | NVME_CTRL_OAES_ANA_CHANGE);
	/* 128-bit host ID, and TBKAS: every command re-arms the keep-alive timer. */
	id->ctratt = rblk_cpu_to_le32(NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_TBKAS);
	id->cntrltype = disc ? 2 : 1;
	id->acl = 3;
	id->aerl = RBLK_AERL;
	id->frmw = (1u << 1) | 1u; /* one slot, read-only */
	/* SMART per namespace, commands supported and effects, extended data. */
	id->lpa = disc ? NVME_CTRL_LPA_EXT_DATA
		      : NVME_CTRL_LPA_SMART_PER_NS | NVME_CTRL_LPA_CMD_EFFECTS | NVME_CTRL_LPA_EXT_DATA;
	id->elpe = RBLK_ERR_LOG_ENTRIES - 1;
	id->kas = rblk_cpu_to_le16(RBLK_KAS);
	/*
	 * RTD3 Entry Latency: how long a shutdown may take. The Linux host waits
	 * max(its shutdown_timeout module parameter, 5 s by default, and this),
	 * capped at 60 s, for SHST = complete; our shutdown syncs every namespace
	 * (fdatasync of buffered files), which can take longer than 5 s.
	 */
	if (!disc)
		id->rtd3e = rblk_cpu_to_le32(RBLK_RTD3E_US);
	id->sqes = NVME_CTRL_SQES_64;
	id->cqes = NVME_CTRL_CQES_16;
	id->maxcmd = rblk_cpu_to_le16((uint16_t)o->max_queue_depth);
	id->nn = rblk_cpu_to_le32(ss->max_nsid);
	if (!disc) {
		/*
		 * ANA as nvmet: every state reported (ANACAP bits 4:0), group ids
		 * that may change while attached (bit 6 clear). The Linux host
		 * sizes its ANA log buffer from NANAGRPID and MNAN, and refuses
		 * the controller when MNAN is 0 or above NN.
		 */
		id->anatt = RBLK_ANATT;
		id->anacap = 0x1F;
		id->anagrpmax = rblk_cpu_to_le32(RBLK_ANA_MAX_GROUPS);
		id->nanagrpid = rblk_cpu_to_le32(RBLK_ANA_MAX_GROUPS);
		id->mnan = id->nn;
		/* Exactly the optional commands io.c and compare.c execute. */
		id->oncs = rblk_cpu_to_le16(NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_DSM |
					    NVME_CTRL_ONCS_WRITE_ZEROES | NVME_CTRL_ONCS_VERIFY |
					    NVME_CTRL_ONCS_COPY | NVME_CTRL_ONCS_RESERVATIONS);
		/* Bit 0: fused Compare and Write (target/fused.c). */
		id->fuses = rblk_cpu_to_le16(NVME_CTRL_FUSES_COMPARE_WRITE);
		id->vwc = rblk_subsys_any_vwc(ss) ? NVME_CTRL_VWC_PRESENT : 0;
	}
	id->sgls = rblk_cpu_to_le32(NVME_CTRL_SGLS_SUPPORTED | NVME_CTRL_SGLS_KEYED |
				    (o->in_capsule_data_size ? NVME_CTRL_SGLS_OFFSET : 0));
	memcpy(id->subnqn, ss->nqn, strnlen(ss->nqn, sizeof(id->subnqn) - 1));
	id->ioccsz = rblk_cpu_to_le32((64 + o->in_capsule_data_size) / 16);
	id->iorcsz = rblk_cpu_to_le32(1);
	id->icdoff = 0;
	id->fcatt = 0; /* dynamic controller model */
	id->msdbd = 1;

	status = rblk_req_copy_to(req, 0, id, sizeof(*id));
	free(id);
	rblk_req_complete(req, status);
}

/* A count of blocks as a 0's based 16-bit field (at least 1 block, at most 65536). */
static uint16_t blocks0(uint32_t bytes, unsigned lbads)
{
	uint32_t n = bytes >> lbads;

	return rblk_cpu_to_le16((uint16_t)((n < 1 ? 1 : n > 65536 ? 65536 : n) - 1));
}

/*
 * The provider's I/O hints, as the kernel target gives a block device's
 * (docs/interop.md): NSFEAT bit 1 with the atomic write units at one physical
 * block (the Linux host takes min(NPWG, NAWUPF) as the physical block size),
 * and bit 4 with the preferred write and deallocate granularity and alignment
 * and the optimal write size.
 */
static void identify_ns_hints(struct nvme_id_ns *id, const struct rblk_tgt_ns *ns)
{
	const struct rblk_provider *p = &ns->prov;
	uint16_t pb;

	if (p->can_compare_write && p->compare_write_unit >= 1u << ns->lbads) {
		/*
		 * The provider's atomic unit (RBD: one 512-byte sector, so one
		 * block of 512) bounds a Compare and Write; a single block is
		 * written whole on such storage too. Blocks larger than the
		 * unit can take no Compare and Write at all (fused.c).
		 */
		id->nsfeat |= NVME_NS_FEAT_ATOMICS;
		id->nacwu = blocks0(p->compare_write_unit, ns->lbads);
	}
	if (!p->physical_block_size)
		return;
	pb = blocks0(p->physical_block_size, ns->lbads);
	id->nsfeat |= NVME_NS_FEAT_ATOMICS | NVME_NS_FEAT_IO_OPT;
	id->nawun = pb;
	id->nawupf = pb;
	id->nacwu = pb;
	id->npwg = pb;
	id->npwa = pb;
	id->npdg = blocks0(p->discard_granularity, ns->lbads);
	id->npda = id->npdg;
	id->nows = blocks0(p->optimal_io_size, ns->lbads);
}

static void identify_ns(struct rblk_req *req, uint32_t nsid)
{
	struct rblk_tgt_ns *ns = rblk_subsys_get_ns(req->sq->ctrl->ss, nsid);
	struct nvme_id_ns *id;
	uint16_t status;

	id = calloc(1, sizeof(*id));
	if (!id) {
		if (ns)
			rblk_tgt_ns_put(ns);
		rblk_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	/* An inactive NSID reads as zeroes (NCAP 0 = not present), like nvmet. */
	if (ns) {
		uint32_t grpid = __atomic_load_n(&ns->anagrpid, __ATOMIC_RELAXED);
		enum rblk_ana_state st = rblk_ana_state_on(req->sq->ctrl->listener, grpid);
		uint64_t nlb = rblk_tgt_ns_nlb(ns);

		id->nsze = rblk_cpu_to_le64(nlb);
		id->ncap = id->nsze;
		/* nvmet: nothing is in use as far as a path without access can tell. */
		if (st != RBLK_ANA_INACCESSIBLE && st != RBLK_ANA_PERSISTENT_LOSS)
			id->nuse = id->nsze;
		id->anagrpid = rblk_cpu_to_le32(grpid);
		id->nlbaf = 0;
		id->flbas = 0;
		id->nmic = NVME_NS_NMIC_SHARED;
		/* Every type and IEKEY (resv.c); PTPL where the state can persist. */
		id->rescap = NVME_NS_RESCAP_TYPES | NVME_NS_RESCAP_IEKEY |
			     (rblk_tgt_resv_can_ptpl(ns) ? NVME_NS_RESCAP_PTPL : 0);
		if (ns->prov.can_discard && ns->prov.discard_zeroes)
			id->dlfeat = NVME_NS_DLFEAT_READ_ZEROES;
		id->nsattr = ns->read_only ? NVME_NS_NSATTR_WP : 0;
		nvme_u128_set64(id->nvmcap, nlb << ns->lbads);
		memcpy(id->nguid, ns->nguid, sizeof(id->nguid));
		if (ns->has_eui64)
			memcpy(id->eui64, ns->eui64, sizeof(id->eui64));
		id->lbaf[0].ds = (uint8_t)ns->lbads;
		identify_ns_hints(id, ns);
		/* Copy's limits (compare.c): MSRC is 0's based, MSSRL and MCL are not. */
		id->mssrl = rblk_cpu_to_le16(rblk_copy_mssrl(req->sq->tgt, ns));
		id->mcl = rblk_cpu_to_le32(rblk_copy_mcl(req->sq->tgt, ns));
		id->msrc = (uint8_t)(RBLK_COPY_MAX_RANGES - 1);
		rblk_tgt_ns_put(ns);
	}
	status = rblk_req_copy_to(req, 0, id, sizeof(*id));
	free(id);
	rblk_req_complete(req, status);
}

static void identify_active_list(struct rblk_req *req, uint32_t after)
{
	uint32_t *list = calloc(NVME_ID_NS_LIST_MAX, sizeof(*list));
	unsigned n;
	uint16_t status;

	if (!list) {
		rblk_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	n = rblk_subsys_active_list(req->sq->ctrl->ss, after, list, NVME_ID_NS_LIST_MAX);
	for (unsigned i = 0; i < n; i++)
		list[i] = rblk_cpu_to_le32(list[i]);
	status = rblk_req_copy_to(req, 0, list, NVME_ID_NS_LIST_MAX * sizeof(*list));
	free(list);
	rblk_req_complete(req, status);
}

static size_t put_desc(uint8_t *buf, size_t off, uint8_t nidt, const void *id, uint8_t len)
{
	struct nvme_ns_id_desc d = { .nidt = nidt, .nidl = len };

	memcpy(buf + off, &d, sizeof(d));
	memcpy(buf + off + sizeof(d), id, len);
	return off + sizeof(d) + len;
}

static void identify_desc_list(struct rblk_req *req, uint32_t nsid)
{
	struct rblk_tgt_ns *ns = rblk_subsys_get_ns(req->sq->ctrl->ss, nsid);
	uint8_t csi = NVME_CSI_NVM;
	uint8_t *buf;
	size_t off = 0;
	uint16_t status;

	if (!ns) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		rblk_req_complete(req, NVME_SC_INVALID_NS | NVME_SC_DNR);
		return;
	}
	buf = calloc(1, NVME_IDENTIFY_DATA_SIZE);
	if (!buf) {
		rblk_tgt_ns_put(ns);
		rblk_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	/* Zero-terminated: the 4096-byte buffer is zeroed after the last entry. */
	if (ns->has_eui64)
		off = put_desc(buf, off, NVME_NIDT_EUI64, ns->eui64, NVME_NIDT_EUI64_LEN);
	off = put_desc(buf, off, NVME_NIDT_NGUID, ns->nguid, NVME_NIDT_NGUID_LEN);
	off = put_desc(buf, off, NVME_NIDT_UUID, ns->uuid, NVME_NIDT_UUID_LEN);
	put_desc(buf, off, NVME_NIDT_CSI, &csi, NVME_NIDT_CSI_LEN);
	rblk_tgt_ns_put(ns);
	status = rblk_req_copy_to(req, 0, buf, NVME_IDENTIFY_DATA_SIZE);
	free(buf);
	rblk_req_complete(req, status);
}

static void execute_identify(struct rblk_req *req)
{
	const struct nvme_identify_cmd *c = (const struct nvme_identify_cmd *)req->cmd;
	uint32_t nsid = rblk_le32(c->nsid);

	switch (c->cns) {
	case NVME_ID_CNS_NS:
		if (nsid == 0xFFFFFFFF)
			goto invalid_ns;
		identify_ns(req, nsid);
		return;
	case NVME_ID_CNS_CTRL:
		rblk_admin_identify_ctrl(req);
		return;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
		if (nsid >= 0xFFFFFFFE)
			goto invalid_ns;
		identify_active_list(req, nsid);
		return;
	case NVME_ID_CNS_NS_DESC_LIST:
		identify_desc_list(req, nsid);
		return;
	case NVME_ID_CNS_CS_CTRL:
		/* NVM command set controller data: no DMRL/DMRSL/WZSL limits. */
		if (c->csi == NVME_CSI_NVM) {
			rblk_req_complete(req, rblk_req_zero(req, 0, NVME_IDENTIFY_DATA_SIZE));
			return;
		}
		req->error_loc = offsetof(struct nvme_identify_cmd, csi);
		break;
	default:
		req->error_loc = offsetof(struct nvme_identify_cmd, cns);
		break;
	}
	rblk_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	return;

invalid_ns:
	req->error_loc = offsetof(struct nvme_sqe, nsid);
	rblk_req_complete(req, NVME_SC_INVALID_NS | NVME_SC_DNR);
}

/* ------------------------------------------------------------------------ */
/* Get Log Page.                                                             */

static uint16_t log_error(struct rblk_req *req, uint64_t lpo)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvme_error_log_entry *log;
	uint16_t status;
	uint64_t n;

	log = calloc(RBLK_ERR_LOG_ENTRIES, sizeof(*log));
	if (!log)
		return NVME_SC_INTERNAL;
	/* Newest first. */
	pthread_mutex_lock(&ctrl->lock);
	n = ctrl->err_count < RBLK_ERR_LOG_ENTRIES ? ctrl->err_count : RBLK_ERR_LOG_ENTRIES;
	for (uint64_t i = 0; i < n; i++)
		log[i] = ctrl->errlog[(ctrl->err_count - 1 - i) % RBLK_ERR_LOG_ENTRIES];
	pthread_mutex_unlock(&ctrl->lock);
	status = rblk_req_copy_log(req, lpo, log, RBLK_ERR_LOG_ENTRIES * sizeof(*log));
	free(log);
	return status;
}

/* NVMe counts data units in thousands of 512-byte units, rounded up. */
static uint64_t data_units(uint64_t bytes)
{
	uint64_t units = (bytes + 511) / 512;

	return (units + 999) / 1000;
}

static uint16_t log_smart(struct rblk_req *req, uint32_t nsid, uint64_t lpo)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct rblk_subsystem *ss = ctrl->ss;
	struct rblk_tgt_ns_stats st;
	struct nvme_smart_log log;
	uint64_t errs;

	if (nsid == 0 || nsid == 0xFFFFFFFF) {
		rblk_subsys_stats(ss, &st);
	} else {
		struct rblk_tgt_ns *ns = rblk_subsys_get_ns(ss, nsid);

		if (!ns) {
			req->error_loc = offsetof(struct nvme_sqe, nsid);
			return NVME_SC_INVALID_NS | NVME_SC_DNR;
		}
		memset(&st, 0, sizeof(st));
		rblk_tgt_ns_stats_read(ns, &st);
		rblk_tgt_ns_put(ns);
	}
	pthread_mutex_lock(&ctrl->lock);
	errs = ctrl->err_count;
	pthread_mutex_unlock(&ctrl->lock);

	memset(&log, 0, sizeof(log));
	/* A software target has no wear and no sensor: spare 100 %, used 0 %. */
	log.avail_spare = 100;
	log.spare_thresh = 10;
	nvme_u128_set64(log.data_units_read, data_units(st.read_bytes));
	nvme_u128_set64(log.data_units_written, data_units(st.write_bytes));
	nvme_u128_set64(log.host_reads, st.read_cmds);
	nvme_u128_set64(log.host_writes, st.write_cmds);
	nvme_u128_set64(log.ctrl_busy_time, st.busy_ns / 60000000000ull);
	nvme_u128_set64(log.power_cycles, atomic_load(&ss->power_cycles));
	nvme_u128_set64(log.power_on_hours, (rblk_clock_ms() - ss->tgt->created_ms) / 3600000);
	nvme_u128_set64(log.unsafe_shutdowns, atomic_load(&ss->unsafe_shutdowns));
	nvme_u128_set64(log.media_errors, st.media_errors);
	nvme_u128_set64(log.num_err_log_entries, errs);
	return rblk_req_copy_log(req, lpo, &log, sizeof(log));
}

static uint16_t log_fw_slot(struct rblk_req *req, uint64_t lpo)
{
	uint8_t log[512] = { 0 };

	log[0] = 1; /* AFI: slot 1 active */
	copy_padded((char *)log + 8, 8, FR_STRING);
	return rblk_req_copy_log(req, lpo, log, sizeof(log));
}

static uint16_t log_changed_ns(struct rblk_req *req, uint64_t lpo, bool rae)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvme_changed_ns_list *log = calloc(1, sizeof(*log));
	uint16_t status;

	if (!log)
		return NVME_SC_INTERNAL;
	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->nr_changed_ns == UINT32_MAX) {
		log->nsid[0] = rblk_cpu_to_le32(0xFFFFFFFF);
	} else {
		for (uint32_t i = 0; i < ctrl->nr_changed_ns; i++)
			log->nsid[i] = rblk_cpu_to_le32(ctrl->changed_ns[i]);
	}
	/* Reading clears the list; RAE only keeps the event masked (nvmet). */
	ctrl->nr_changed_ns = 0;
	if (!rae)
		ctrl->aen_masked &= ~NVME_AEN_CFG_NS_ATTR;
	pthread_mutex_unlock(&ctrl->lock);
	status = rblk_req_copy_log(req, lpo, log, sizeof(*log));
	free(log);
	return status;
}

static uint16_t log_effects(struct rblk_req *req, uint64_t lpo)
{
	struct nvme_effects_log *log = calloc(1, sizeof(*log));
	const uint32_t sup = NVME_CMD_EFFECTS_CSUPP;
	const uint32_t lbcc = NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC;
	uint16_t status;

	if (!log)
		return NVME_SC_INTERNAL;
	log->acs[NVME_ADMIN_GET_LOG_PAGE] = rblk_cpu_to_le32(sup);
	log->acs[NVME_ADMIN_IDENTIFY] = rblk_cpu_to_le32(sup);
	log->acs[NVME_ADMIN_ABORT] = rblk_cpu_to_le32(sup);
	log->acs[NVME_ADMIN_SET_FEATURES] = rblk_cpu_to_le32(sup);
	log->acs[NVME_ADMIN_GET_FEATURES] = rblk_cpu_to_le32(sup);
	log->acs[NVME_ADMIN_ASYNC_EVENT] = rblk_cpu_to_le32(sup);
	log->acs[NVME_ADMIN_KEEP_ALIVE] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_FLUSH] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_WRITE] = rblk_cpu_to_le32(lbcc);
	log->iocs[NVME_IO_READ] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_WRITE_ZEROES] = rblk_cpu_to_le32(lbcc);
	log->iocs[NVME_IO_DSM] = rblk_cpu_to_le32(lbcc);
	log->iocs[NVME_IO_COMPARE] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_VERIFY] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_COPY] = rblk_cpu_to_le32(lbcc);
	log->iocs[NVME_IO_RESV_REGISTER] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_RESV_REPORT] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_RESV_ACQUIRE] = rblk_cpu_to_le32(sup);
	log->iocs[NVME_IO_RESV_RELEASE] = rblk_cpu_to_le32(sup);
	status = rblk_req_copy_log(req, lpo, log, sizeof(*log));
	free(log);
	return status;
}

static void execute_get_log_page(struct rblk_req *req)
{
	struct rblk_get_log_info gl;
	uint16_t status, loc;

	/* Already decoded without error by rblk_admin_parse_cmds(). */
	rblk_get_log_decode((const struct nvme_get_log_cmd *)req->cmd, &gl, &loc);
	switch (gl.lid) {
	case NVME_LOG_ERROR:
		status = log_error(req, gl.lpo);
		break;
	case NVME_LOG_SMART:
		status = log_smart(req, gl.nsid, gl.lpo);
		break;
	case NVME_LOG_FW_SLOT:
		status = log_fw_slot(req, gl.lpo);
		break;
	case NVME_LOG_CHANGED_NS:
		status = log_changed_ns(req, gl.lpo, gl.rae);
		break;
	case NVME_LOG_CMD_EFFECTS:
		status = log_effects(req, gl.lpo);
		break;
	case NVME_LOG_ANA:
		status = rblk_ana_log(req, gl.lpo, gl.lsp & NVME_ANA_LOG_RGO, gl.rae);
		break;
	case NVME_LOG_RESERVATION:
		status = rblk_resv_log_read(req, gl.lpo, gl.rae);
		break;
	default:
		req->error_loc = offsetof(struct nvme_get_log_cmd, lid);
		status = NVME_SC_INVALID_LOG_PAGE | NVME_SC_DNR;
		break;
	}
	rblk_req_complete(req, status);
}

/* ------------------------------------------------------------------------ */
/* Features.                                                                 */

static bool any_vwc(struct rblk_tgt_ctrl *ctrl)
{
	return rblk_subsys_any_vwc(ctrl->ss);
}

/*
 * The features the base specification makes mandatory for an I/O
 * controller, with what is true of rblk:
 *   01h Arbitration: round robin only (CAP.AMS 0) and no burst limit (AB
 *       111b); the priority weights mean nothing without weighted round
 *       robin, so the feature is not changeable.
 *   02h Power Management: one power state (NPSS 0), PS 0, no workload hint;
 *       Set accepts exactly that.
 *   04h Temperature Threshold: rblk has no sensor (SMART reports 0 K), so a
 *       threshold never trips; the composite sensor's over and under values
 *       are stored per controller for the host to read back.
 *   05h Error Recovery: rblk never retries inside a command (a provider
 *       error is the answer at once), so any TLER holds; stored. DULBE
 *       needs deallocated-block errors, which rblk does not report.
 *   0Ah Write Atomicity Normal: DN only relaxes what rblk promises; stored.
 */
#define FEAT_TMPSEL_COMPOSITE 0u
#define FEAT_TMPSEL_ALL 0xFu
#define FEAT_ARB_NO_BURST_LIMIT 7u

/* Temperature Threshold's CDW11: TMPTH 15:0, TMPSEL 19:16, THSEL 21:20. */
static uint16_t temp_thresh_sel(struct rblk_req *req, uint32_t cdw11, bool *under)
{
	uint32_t tmpsel = (cdw11 >> 16) & 0xF, thsel = (cdw11 >> 20) & 0x3;

	if ((tmpsel != FEAT_TMPSEL_COMPOSITE && tmpsel != FEAT_TMPSEL_ALL) || thsel > 1) {
		req->error_loc = offsetof(struct nvme_features_cmd, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	*under = thsel == 1;
	return 0;
}

static void execute_set_features(struct rblk_req *req)
{
	const struct nvme_features_cmd *c = (const struct nvme_features_cmd *)req->cmd;
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t cdw11 = rblk_le32(c->cdw11);
	uint32_t dw0 = 0;
	uint16_t status = 0;

	switch (c->fid) {
	case NVME_FEAT_NUM_QUEUES: {
		uint32_t nsqr = cdw11 & 0xFFFF, ncqr = cdw11 >> 16;
		uint32_t n = (nsqr > ncqr ? nsqr : ncqr) + 1;
		bool busy = false;

		if (nsqr == 0xFFFF || ncqr == 0xFFFF) {
			req->error_loc = offsetof(struct nvme_features_cmd, cdw11);
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
			break;
		}
		if (n > ctrl->max_qid)
			n = ctrl->max_qid;
		pthread_mutex_lock(&ctrl->lock);
		for (uint32_t i = 1; i <= ctrl->max_qid && !busy; i++)
			busy = ctrl->sqs[i] != NULL;
		/* The count is fixed once I/O queues exist (NVMe 1.4 §5.21.1.7). */
		if (busy) {
			n = ctrl->nr_io_queues;
			status = NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		} else {
			ctrl->nr_io_queues = n;
		}
		pthread_mutex_unlock(&ctrl->lock);
		dw0 = nvme_num_queues_dw((uint16_t)(n - 1), (uint16_t)(n - 1));
		break;
	}
	case NVME_FEAT_ASYNC_EVENT:
		pthread_mutex_lock(&ctrl->lock);
		/* Bits for events this controller never sends are ignored. */
		ctrl->aec = cdw11 & (rblk_tgt_ctrl_is_disc(ctrl)
					     ? NVME_AEN_CFG_DISC_CHANGE
					     : NVME_AEN_CFG_NS_ATTR | NVME_AEN_CFG_ANA_CHANGE);
		pthread_mutex_unlock(&ctrl->lock);
		break;
	case NVME_FEAT_KATO:
		pthread_mutex_lock(&ctrl->lock);
		ctrl->kato_ms = !cdw11 && rblk_tgt_ctrl_is_disc(ctrl) ? RBLK_DISC_KATO_MS : cdw11;
		pthread_mutex_unlock(&ctrl->lock);
		break;
	case NVME_FEAT_VOLATILE_WC:
		if (!any_vwc(ctrl)) {
			req->error_loc = offsetof(struct nvme_features_cmd, fid);
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
			break;
		}
		/* Read without the lock on the I/O path: writes become FUA when 0. */
		__atomic_store_n(&ctrl->vwc_enabled, cdw11 & 1, __ATOMIC_RELAXED);
		break;
	case NVME_FEAT_ARBITRATION:
		req->error_loc = offsetof(struct nvme_features_cmd, fid);
		status = NVME_SC_FEATURE_NOT_CHANGEABLE | NVME_SC_DNR;
		break;
	case NVME_FEAT_POWER_MGMT:
		/* PS 4:0 and WH 7:5: power state 0 is the only one (NPSS 0). */
		if (cdw11 & 0xFF) {
			req->error_loc = offsetof(struct nvme_features_cmd, cdw11);
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		break;
	case NVME_FEAT_TEMP_THRESH: {
		bool under = false;

		status = temp_thresh_sel(req, cdw11, &under);
		if (status)
			break;
		pthread_mutex_lock(&ctrl->lock);
		if (under)
			ctrl->temp_under = (uint16_t)cdw11;
		else
			ctrl->temp_over = (uint16_t)cdw11;
		pthread_mutex_unlock(&ctrl->lock);
		break;
	}
	case NVME_FEAT_ERR_RECOVERY:
		/* DULBE (bit 16): no deallocated-block errors to enable. */
		if (cdw11 & ~0xFFFFu) {
			req->error_loc = offsetof(struct nvme_features_cmd, cdw11);
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
			break;
		}
		pthread_mutex_lock(&ctrl->lock);
		ctrl->tler = (uint16_t)cdw11;
		pthread_mutex_unlock(&ctrl->lock);
		break;
	case NVME_FEAT_WRITE_ATOMIC:
		pthread_mutex_lock(&ctrl->lock);
		ctrl->atomic_dn = cdw11 & 1;
		pthread_mutex_unlock(&ctrl->lock);
		break;
	}
	rblk_req_set_dw0(req, dw0);
	rblk_req_complete(req, status);
}

static bool feature_changeable(uint8_t fid)
{
	return fid == NVME_FEAT_NUM_QUEUES || fid == NVME_FEAT_ASYNC_EVENT ||
	       fid == NVME_FEAT_KATO || fid == NVME_FEAT_VOLATILE_WC ||
	       fid == NVME_FEAT_POWER_MGMT || fid == NVME_FEAT_TEMP_THRESH ||
	       fid == NVME_FEAT_ERR_RECOVERY || fid == NVME_FEAT_WRITE_ATOMIC ||
	       fid == NVME_FEAT_RESV_MASK || fid == NVME_FEAT_RESV_PERSIST;
}

static void execute_get_features(struct rblk_req *req)
{
	const struct nvme_features_cmd *c = (const struct nvme_features_cmd *)req->cmd;
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	uint8_t sel = c->sel & NVME_FEAT_SEL_MASK;
	bool dflt = sel == NVME_FEAT_SEL_DEFAULT;
	uint32_t dw0 = 0;
	uint16_t status = 0;

	if (sel == NVME_FEAT_SEL_SUPPORTED) {
		/* Capabilities: bit 2 changeable, bit 1 per namespace; nothing is saveable. */
		rblk_req_set_dw0(req, (feature_changeable(c->fid) ? 1u << 2 : 0) |
				      (c->fid == NVME_FEAT_RESV_MASK ||
				       c->fid == NVME_FEAT_RESV_PERSIST ? 1u << 1 : 0));
		rblk_req_complete(req, 0);
		return;
	}
	/* Nothing is saveable, so "saved" reads as the current value. */
	pthread_mutex_lock(&ctrl->lock);
	switch (c->fid) {
	case NVME_FEAT_NUM_QUEUES: {
		uint32_t n = dflt ? ctrl->max_qid : ctrl->nr_io_queues;

		dw0 = n ? nvme_num_queues_dw((uint16_t)(n - 1), (uint16_t)(n - 1)) : 0;
		break;
	}
	case NVME_FEAT_ASYNC_EVENT:
		dw0 = dflt ? 0 : ctrl->aec;
		break;
	case NVME_FEAT_KATO:
		dw0 = dflt ? 0 : ctrl->kato_ms;
		break;
	case NVME_FEAT_VOLATILE_WC:
		dw0 = (dflt || ctrl->vwc_enabled) ? 1 : 0;
		break;
	case NVME_FEAT_HOST_ID:
		status = rblk_req_copy_to(req, 0, ctrl->hostid, sizeof(ctrl->hostid));
		break;
	case NVME_FEAT_ARBITRATION:
		dw0 = FEAT_ARB_NO_BURST_LIMIT;
		break;
	case NVME_FEAT_POWER_MGMT:
		dw0 = 0;
		break;
	case NVME_FEAT_TEMP_THRESH: {
		bool under = false;

		status = temp_thresh_sel(req, rblk_le32(c->cdw11), &under);
		if (under)
			dw0 = dflt ? 0 : ctrl->temp_under;
		else
			dw0 = dflt ? RBLK_TEMP_OVER_DEFAULT : ctrl->temp_over;
		break;
	}
	case NVME_FEAT_ERR_RECOVERY:
		dw0 = dflt ? 0 : ctrl->tler;
		break;
	case NVME_FEAT_WRITE_ATOMIC:
		dw0 = dflt ? 0 : ctrl->atomic_dn;
		break;
	}
	pthread_mutex_unlock(&ctrl->lock);
	if (c->fid == NVME_FEAT_VOLATILE_WC && !any_vwc(ctrl))
		dw0 = 0;
	rblk_req_set_dw0(req, dw0);
	rblk_req_complete(req, status);
}

static uint16_t parse_features(struct rblk_req *req, bool disc)
{
	const struct nvme_features_cmd *c = (const struct nvme_features_cmd *)req->cmd;
	bool set = c->opc == NVME_ADMIN_SET_FEATURES;
	uint8_t fid = c->fid;
	bool ok;

	if (set && (c->sv & NVME_FEAT_SV)) {
		req->error_loc = offsetof(struct nvme_features_cmd, sv);
		return NVME_SC_FEATURE_NOT_SAVEABLE | NVME_SC_DNR;
	}
	/* The discovery controller knows KATO and AEC only (nvmet). */
	if (disc)
		ok = fid == NVME_FEAT_KATO || fid == NVME_FEAT_ASYNC_EVENT;
	else
		ok = fid == NVME_FEAT_KATO || fid == NVME_FEAT_ASYNC_EVENT ||
		     fid == NVME_FEAT_NUM_QUEUES || fid == NVME_FEAT_VOLATILE_WC ||
		     fid == NVME_FEAT_ARBITRATION || fid == NVME_FEAT_POWER_MGMT ||
		     fid == NVME_FEAT_TEMP_THRESH || fid == NVME_FEAT_ERR_RECOVERY ||
		     fid == NVME_FEAT_WRITE_ATOMIC || (fid == NVME_FEAT_HOST_ID && !set) ||
		     fid == NVME_FEAT_RESV_MASK || fid == NVME_FEAT_RESV_PERSIST;
	if (set && fid == NVME_FEAT_HOST_ID && !disc) {
		/* On fabrics the host ID comes with Connect only (nvmet). */
		req->error_loc = offsetof(struct nvme_features_cmd, fid);
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	if (!ok) {
		req->error_loc = offsetof(struct nvme_features_cmd, fid);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (fid == NVME_FEAT_HOST_ID) {
		/* Only the 128-bit form (EXHID = 1) exists on fabrics. */
		if (!(rblk_le32(c->cdw11) & 1)) {
			req->error_loc = offsetof(struct nvme_features_cmd, cdw11);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		if ((c->sel & NVME_FEAT_SEL_MASK) != NVME_FEAT_SEL_SUPPORTED) {
			req->data_len = 16;
			req->dir = RBLK_XFER_C2H;
		}
	}
	if ((fid == NVME_FEAT_RESV_MASK || fid == NVME_FEAT_RESV_PERSIST) && !disc &&
	    (set || (c->sel & NVME_FEAT_SEL_MASK) != NVME_FEAT_SEL_SUPPORTED)) {
		/* Namespace specific (resv_cmd.c). */
		req->execute = set ? rblk_resv_set_feature : rblk_resv_get_feature;
		return 0;
	}
	req->execute = set ? execute_set_features : execute_get_features;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* AER, Abort, Keep Alive.                                                   */

static void execute_aer(struct rblk_req *req)
{
	rblk_tgt_ctrl_queue_aer(req->sq->ctrl, req);
}

static void execute_abort(struct rblk_req *req)
{
	/* DW0 bit 0 = 1: the command was not aborted (nothing is abortable). */
	rblk_req_set_dw0(req, 1);
	rblk_req_complete(req, 0);
}

static void execute_keep_alive(struct rblk_req *req)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t kato;

	/* rblk_req_init() already re-armed the timer; KATO 0 has none (nvmet). */
	pthread_mutex_lock(&ctrl->lock);
	kato = ctrl->kato_ms;
	pthread_mutex_unlock(&ctrl->lock);
	rblk_req_complete(req, kato ? 0 : NVME_SC_KA_TIMEOUT_INVALID);
}

/* ------------------------------------------------------------------------ */
/* The parse step both kinds of controller share (nvmet_parse_admin_cmd, nvmet_parse_discovery_cmd). */

static uint16_t parse_get_log_page(struct rblk_req *req)
{
	struct rblk_get_log_info gl;
	uint16_t status, loc;

	status = rblk_get_log_decode((const struct nvme_get_log_cmd *)req->cmd, &gl, &loc);
	if (status) {
		req->error_loc = loc;
		return status;
	}
	if (gl.len > req->sq->tgt->opts.max_io_size) {
		req->error_loc = offsetof(struct nvme_get_log_cmd, numdl);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	req->data_len = (uint32_t)gl.len;
	req->dir = RBLK_XFER_C2H;
	return 0;
}

uint16_t rblk_admin_parse_cmds(struct rblk_req *req, const struct rblk_admin_cmds *cmds)
{
	const struct nvme_sqe *cmd = req->cmd;
	uint16_t status = 0;

	if (cmd->opc == NVME_ADMIN_FABRICS)
		return rblk_fabrics_parse_admin(req);
	if (!rblk_tgt_ctrl_ready(req->sq->ctrl)) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return cmds->not_ready_status;
	}
	switch (cmd->opc) {
	case NVME_ADMIN_GET_LOG_PAGE:
		req->execute = cmds->get_log_page;
		if (req->execute)
			status = parse_get_log_page(req);
		break;
	case NVME_ADMIN_IDENTIFY:
		req->execute = cmds->identify;
		req->data_len = NVME_IDENTIFY_DATA_SIZE;
		req->dir = RBLK_XFER_C2H;
		break;
	case NVME_ADMIN_ABORT:
		req->execute = cmds->abort;
		break;
	case NVME_ADMIN_SET_FEATURES:
	case NVME_ADMIN_GET_FEATURES:
		return parse_features(req, cmds->discovery);
	case NVME_ADMIN_ASYNC_EVENT:
		req->execute = execute_aer;
		break;
	case NVME_ADMIN_KEEP_ALIVE:
		req->execute = execute_keep_alive;
		break;
	}
	if (!req->execute) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	return status;
}

static const struct rblk_admin_cmds nvm_admin_cmds = {
	.not_ready_status = NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR,
	.discovery = false,
	.get_log_page = execute_get_log_page,
	.identify = execute_identify,
	.abort = execute_abort,
};

uint16_t rblk_admin_parse(struct rblk_req *req)
{
	return rblk_admin_parse_cmds(req, &nvm_admin_cmds);
}
