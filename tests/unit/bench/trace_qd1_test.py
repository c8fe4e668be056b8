#!/usr/bin/env python3
"""Tests of bench/trace_qd1.py on small hand-made ftrace records: each I/O's pieces
for an nvmet-shaped and an rblk-shaped record, admin commands and bare ACKs
ignored, a record without Soft-RoCE's send work (6.1), and incomplete I/Os left out."""
import json
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "trace_qd1.py")


def ev(task, cpu, us, name, rest):
    return f"  {task:>16} [{cpu:03d}] .....  {us / 1e6:.6f}: {name}: {rest}\n"


def nvmet_io(t0, cmdid):
    """One nvmet-shaped I/O starting at t0 us: pieces 100/20/30/40/50/60."""
    return [
        ev("fio-300", 0, t0, "nvme_setup_cmd", f"nvme0: disk=nvme0c0n1, qid=1, cmdid={cmdid}, nsid=1, cmd=(nvme_cmd_read slba=8, len=7)"),
        ev("kworker/u8:1-31", 0, t0 + 100, "net_dev_xmit", "dev=veth1 skbaddr=00000000a88ed2f5 len=122 rc=0"),
        ev("kworker/u8:1-31", 0, t0 + 110, "net_dev_xmit", "dev=veth0 skbaddr=00000000a88ed2f6 len=62 rc=0"),  # ACK
        ev("kworker/u8:1-31", 0, t0 + 120, "workqueue_queue_work", "work struct=0000000012345678 function=ib_cq_poll_work [ib_core] workqueue=ib-comp-wq req_cpu=0 cpu=0"),
        ev("kworker/0:1H-51", 0, t0 + 150, "workqueue_execute_start", "work struct 0000000012345678: function ib_cq_poll_work [ib_core]"),
        ev("kworker/0:1H-51", 0, t0 + 190, "workqueue_queue_work", "work struct=00000000abcdef01 function=do_work [rdma_rxe] workqueue=rxe_wq req_cpu=8192 cpu=4294967295"),
        ev("kworker/u8:3-115", 1, t0 + 240, "net_dev_xmit", "dev=veth0 skbaddr=0000000060044926 len=4170 rc=0"),
        ev("kworker/u8:3-115", 1, t0 + 245, "net_dev_xmit", "dev=veth0 skbaddr=0000000060044927 len=78 rc=0"),
        ev("kworker/u8:1-31", 1, t0 + 300, "nvme_complete_rq", f"nvme0: disk=nvme0c0n1, qid=1, cmdid={cmdid}, res=0x0, retries=0, flags=0x4, status=0x0"),
    ]


def rblk_io(t0, cmdid, send_work=True):
    """One rblk-shaped I/O: the thread woken and switched in; pieces 80/30/40/200/50/70."""
    io = [
        ev("fio-300", 0, t0, "nvme_setup_cmd", f"nvme1: disk=nvme1c1n1, qid=2, cmdid={cmdid}, nsid=1, cmd=(nvme_cmd_read slba=8, len=7)"),
        ev("kworker/u8:1-31", 0, t0 + 80, "net_dev_xmit", "dev=veth1 skbaddr=00000000a88ed2f5 len=122 rc=0"),
        ev("kworker/u8:6-247", 0, t0 + 110, "sched_waking", "comm=rblk-pg0 pid=281 prio=120 target_cpu=001"),
        ev("<idle>-0", 1, t0 + 150, "sched_switch", "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rblk-pg0 next_pid=281 next_prio=120"),
        # another thread's send work does not count as this target's post
        ev("kworker/u8:9-400", 0, t0 + 200, "workqueue_queue_work", "work struct=00000000ffffffff function=do_work [rdma_rxe] workqueue=rxe_wq req_cpu=8192 cpu=4294967295"),
    ]
    if send_work:
        io.append(ev("rblk-pg0-281", 1, t0 + 350, "workqueue_queue_work", "work struct=00000000abcdef02 function=do_work [rdma_rxe] workqueue=rxe_wq req_cpu=8192 cpu=4294967295"))
    io += [
        ev("kworker/u8:6-247", 0, t0 + 400, "net_dev_xmit", "dev=veth0 skbaddr=000000001d8901b5 len=4170 rc=0"),
        ev("kworker/u8:1-31", 1, t0 + 470, "nvme_complete_rq", f"nvme1: disk=nvme1c1n1, qid=2, cmdid={cmdid}, res=0x0, retries=0, flags=0x4, status=0x0"),
    ]
    return io


def run(lines, *args):
    with tempfile.TemporaryDirectory() as d:
        tr, js = os.path.join(d, "t.trace"), os.path.join(d, "t.json")
        with open(tr, "w") as f:
            f.write("# tracer: nop\n#\n")
            f.writelines(lines)
        p = subprocess.run([sys.executable, TOOL, "--json", js, *args, tr], capture_output=True, text=True)
        res = json.load(open(js)) if os.path.exists(js) else None
        return p.returncode, res


def med(res, k):
    return round(res["pieces"][k]["median_us"])


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    # nvmet: three I/Os, an admin command (keep-alive) between them.
    lines = nvmet_io(1000, 1) + [ev("kworker/0:2-60", 0, 1500, "nvme_setup_cmd", "nvme0: qid=0, cmdid=9, nsid=0, cmd=(nvme_admin_keep_alive)"),
                                 ev("kworker/0:2-60", 0, 1510, "nvme_complete_rq", "nvme0: qid=0, cmdid=9, res=0x0, retries=0, flags=0x0, status=0x0")] \
        + nvmet_io(2000, 2) + nvmet_io(3000, 3)
    rc, res = run(lines)
    check(rc == 0 and res["ios"] == 3, f"nvmet record: rc {rc}, {res}")
    want = {"host_out": 100, "deliver": 20, "wake": 30, "serve": 40, "send": 50, "host_in": 60, "total": 300, "floor": 230}
    for k, v in want.items():
        check(med(res, k) == v, f"nvmet {k}: {med(res, k)} != {v}")
    check(abs(res["floor_fraction"] - 230 / 300) < 1e-6, "nvmet floor fraction")

    # rblk, and a last I/O that never completed (left out).
    lines = rblk_io(1000, 1) + rblk_io(2000, 2) + rblk_io(3000, 3)[:4]
    rc, res = run(lines)
    check(rc == 0 and res["ios"] == 2 and res["ios_left_out"] == 1, f"rblk record: {res}")
    want = {"host_out": 80, "deliver": 30, "wake": 40, "serve": 200, "send": 50, "host_in": 70, "total": 470, "floor": 230}
    for k, v in want.items():
        check(med(res, k) == v, f"rblk {k}: {med(res, k)} != {v}")

    # 6.1: no send work queued; posted = reply, serve takes the send.
    rc, res = run(rblk_io(1000, 1, send_work=False))
    check(rc == 0 and med(res, "serve") == 250 and med(res, "send") == 0 and med(res, "floor") == 180,
          f"record without send work: {res}")

    # Another thread name: the rblk-shaped wake is not seen, the target counts as told
    # when the command left the host.
    rc, res = run(rblk_io(1000, 1), "--target-comm", "other-")
    check(rc == 0 and med(res, "deliver") == 0 and med(res, "wake") == 0, f"--target-comm: {res}")

    # Nothing to cut: status 1, JSON says so.
    rc, res = run([ev("fio-300", 0, 1000, "nvme_setup_cmd", "nvme0: qid=1, cmdid=1")])
    check(rc == 1 and res["ios"] == 0, f"empty record: rc {rc} {res}")
    print("trace_qd1: all checks passed")


if __name__ == "__main__":
    main()
