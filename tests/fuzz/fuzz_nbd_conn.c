/* SPDX-License-Identifier: MIT */
/*
 * Drives one NBD server connection (cli/nbd/conn.c) over a socketpair: the
 * input is the byte stream a client sends (requests, payloads, garbage, cut
 * anywhere), then the client hangs up. The backend is a 256 KiB RAM disk
 * that completes at once. Checks: the backend only sees requests inside the
 * export (a flush's range means nothing); the connection ends (done, or
 * -EPROTO on a bad magic) instead of spinning, with nothing left in flight;
 * the first reply has the reply magic; the backend saw no more requests
 * than the connection counted.
 *
 * Input: [tflags u16 LE][the client's bytes].
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/nbd/conn.h"
#include "fuzz.h"

#define DISK (256u << 10)

static uint8_t disk[DISK];
static struct rblk_nbd_conn *conn;
static unsigned submitted;

static uint32_t submit(void *ctx, struct rblk_nbd_req *req)
{
	const struct rblk_nbd_request *r = &req->r;

	(void)ctx;
	submitted++;
	/* A flush's offset and length mean nothing (the backend ignores them). */
	if (r->type != RBLK_NBD_CMD_FLUSH)
		FUZZ_CHECK(r->offset <= DISK && r->length <= DISK - r->offset);
	switch (r->type) {
	case RBLK_NBD_CMD_READ:
		memcpy(req->buf, disk + r->offset, r->length);
		break;
	case RBLK_NBD_CMD_WRITE:
		memcpy(disk + r->offset, req->buf, r->length);
		break;
	case RBLK_NBD_CMD_TRIM:
	case RBLK_NBD_CMD_WRITE_ZEROES:
		memset(disk + r->offset, 0, r->length);
		break;
	case RBLK_NBD_CMD_FLUSH:
		break;
	default:
		FUZZ_CHECK(0); /* DISC and CACHE never reach the backend */
	}
	rblk_nbd_conn_complete(conn, req, 0);
	return 0;
}

static const struct rblk_nbd_backend ops = { .submit = submit };

/* Reads what the server wrote, keeping the first 64 KiB. */
static void drain(int fd, uint8_t *acc, size_t *have)
{
	uint8_t sink[4096];
	ssize_t n;

	do {
		size_t room = 65536 - *have;

		n = room ? read(fd, acc + *have, room) : read(fd, sink, sizeof(sink));
		if (n > 0 && room)
			*have += (size_t)n;
	} while (n > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t acc[65536];
	struct rblk_nbd_conn_opts o = { 0 };
	size_t sent = 0, have = 0;
	int sv[2], ret = RBLK_NBD_CONN_RUN;
	unsigned rounds = 0;

	if (size < 2)
		return 0;
	o.exp.size = DISK;
	o.exp.block_size = 512;
	o.exp.tflags = (uint16_t)(data[0] | data[1] << 8);
	o.nr_slots = 4;
	o.slot_buf = 65536;
	o.ops = &ops;
	data += 2;
	size -= 2;
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	o.fd = sv[0];
	submitted = 0;
	FUZZ_CHECK(rblk_nbd_conn_create(&o, &conn) == 0);
	while (ret == RBLK_NBD_CONN_RUN) {
		if (sent < size) {
			ssize_t n = write(sv[1], data + sent, size - sent);

			if (n > 0)
				sent += (size_t)n;
			if (sent == size)
				shutdown(sv[1], SHUT_WR); /* the client hangs up */
		} else if (size == 0 && rounds == 0) {
			shutdown(sv[1], SHUT_WR);
		}
		ret = rblk_nbd_conn_process(conn);
		drain(sv[1], acc, &have);
		FUZZ_CHECK(++rounds < 100000);
	}
	/* Where each reply starts depends on READ data: the first one is checked. */
	if (have >= 4)
		FUZZ_CHECK(acc[0] == 0x67 && acc[1] == 0x44 && acc[2] == 0x66 && acc[3] == 0x98);
	FUZZ_CHECK(ret == RBLK_NBD_CONN_DONE || ret == -EPROTO || ret == -EOVERFLOW ||
		   ret == -ECONNRESET || ret == -EPIPE);
	FUZZ_CHECK(rblk_nbd_conn_inflight(conn) == 0);
	{
		const struct rblk_nbd_conn_stats *st = rblk_nbd_conn_stats(conn);
		uint64_t total = 0;

		for (unsigned i = 0; i < 9; i++)
			total += st->requests[i];
		FUZZ_CHECK(total >= submitted);
	}
	rblk_nbd_conn_destroy(conn);
	conn = NULL;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	uint16_t tf = rblk_nbd_tflags(false, true, true, false);
	struct rblk_nbd_request r = { .cookie = 1, .offset = 0, .length = 1024 };
	size_t off = 2;

	if (idx > 2 || max < 2 + 3 * RBLK_NBD_REQ_SIZE + 1024)
		return 0;
	buf[0] = (uint8_t)tf;
	buf[1] = (uint8_t)(tf >> 8);
	if (idx == 2) { /* a bad magic */
		memset(buf + off, 0x55, RBLK_NBD_REQ_SIZE);
		return off + RBLK_NBD_REQ_SIZE;
	}
	r.type = RBLK_NBD_CMD_WRITE;
	rblk_nbd_req_encode(buf + off, &r);
	off += RBLK_NBD_REQ_SIZE;
	memset(buf + off, 0xAB, 1024);
	off += 1024;
	r.type = RBLK_NBD_CMD_READ;
	r.cookie = 2;
	rblk_nbd_req_encode(buf + off, &r);
	off += RBLK_NBD_REQ_SIZE;
	if (idx == 1) { /* and a clean disconnect */
		r.type = RBLK_NBD_CMD_DISC;
		r.length = 0;
		rblk_nbd_req_encode(buf + off, &r);
		off += RBLK_NBD_REQ_SIZE;
	}
	return off;
}
