/* SPDX-License-Identifier: MIT */
/* Staged receive chains: see transport/recv_chain.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "transport/recv_chain.h"

int rblk_recv_chain_init(struct rblk_recv_chain *c, unsigned cap, unsigned max_sge)
{
	c->cap = cap;
	c->n = 0;
	c->max_sge = max_sge ? max_sge : 1;
	c->wr = rblk_calloc_lines(cap ? cap : 1, sizeof(*c->wr));
	c->sge = rblk_calloc_lines((size_t)(cap ? cap : 1) * c->max_sge, sizeof(*c->sge));
	return c->wr && c->sge ? 0 : -ENOMEM;
}

void rblk_recv_chain_fini(struct rblk_recv_chain *c)
{
	free(c->sge);
	free(c->wr);
	c->sge = NULL;
	c->wr = NULL;
}

int rblk_recv_chain_add(struct rblk_recv_chain *c, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge)
{
	struct ibv_recv_wr *w;
	struct ibv_sge *dst;

	if (num_sge > c->max_sge || (num_sge && !sge))
		return -EINVAL;
	if (c->n >= c->cap)
		return -ENOBUFS;
	w = &c->wr[c->n];
	dst = &c->sge[(size_t)c->n * c->max_sge];
	if (num_sge)
		memcpy(dst, sge, num_sge * sizeof(*dst));
	w->wr_id = wr_id;
	w->next = NULL;
	w->sg_list = dst;
	w->num_sge = (int)num_sge;
	if (c->n)
		c->wr[c->n - 1].next = w;
	c->n++;
	return 0;
}

unsigned rblk_recv_chain_posted(struct rblk_recv_chain *c, int ret, const struct ibv_recv_wr *bad)
{
	unsigned n = c->n;

	c->n = 0;
	if (!ret)
		return n;
	if (bad >= c->wr && bad < c->wr + n)
		return (unsigned)(bad - c->wr);
	return 0;
}
