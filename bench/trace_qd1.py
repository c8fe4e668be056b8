#!/usr/bin/env python3
"""trace_qd1.py: where a queue-depth-1 I/O's latency goes, from an ftrace record.

Reads the text of /sys/kernel/tracing/trace taken while fio ran one I/O at a time
from the Linux NVMe host to one target over Soft-RoCE in the same machine, and cuts
every I/O into pieces at events both targets show alike (the wire, the host driver)
and at the moment the target is told of the command:

    setup     nvme_setup_cmd (host driver, an I/O queue)
    cmd       the command leaves the host's network device (net_dev_xmit on
              --host-dev, longer than a bare RoCE ACK)
    notified  the target is told: its thread is woken (sched_waking of a thread
              named --target-comm*) or its CQ work is queued (workqueue_queue_work
              of --target-work, nvmet's ib_cq_poll_work); a target that was
              already running counts as notified when the command left the host
    runs      its code runs (sched_switch to that thread, or the work starts)
    posted    it hands its reply to Soft-RoCE: the thread that ran queues Soft-RoCE's
              send work (workqueue_queue_work of do_work: 6.12 runs every QP's
              send in rxe's workqueue, a userspace QP's too). Kernels that send in
              the posting context (6.1) show no such event: posted = reply there
    reply     its first data or response packet leaves the target's device
              (net_dev_xmit on --target-dev, longer than a bare ACK)
    done      nvme_complete_rq (host driver)

Pieces: host_out = setup->cmd, deliver = cmd->notified (the target side's Soft-RoCE
receive and completion), wake = notified->runs, serve = runs->posted (the target's
own work), send = posted->reply (Soft-RoCE's send up to the wire), host_in =
reply->done. "floor" = total - (posted - notified): the latency of a target that
posted its reply the moment it was told, with the same host and Soft-RoCE. Where
posted cannot be seen (6.1) the send is counted as the target's and the floor is
lower than the truth. Events needed: nvme_setup_cmd, nvme_complete_rq,
net_dev_xmit, sched_waking, sched_switch, workqueue_queue_work,
workqueue_execute_start.

    trace_qd1.py [--host-dev veth1] [--target-dev veth0] [--target-comm rblk-pg]
                 [--target-work ib_cq_poll_work] [--json OUT] TRACE_FILE

Prints one line and writes JSON: per piece the median, mean and 90th percentile
in microseconds, the number of I/Os, and the floor. I/Os whose pieces could not
all be found (the first and last of the record, one that met a keep-alive) are
left out and counted.
"""
import argparse
import json
import re
import statistics
import sys

LINE = re.compile(r"\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)")
# A bare RoCEv2 ACK: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4 bytes.
ACK_LEN = 62
PIECES = ("host_out", "deliver", "wake", "serve", "send", "host_in", "total", "floor")


def parse(lines, a):
    ios, cur = [], None
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        _comm, pid, _cpu, ts, ev, rest = m.groups()
        t = float(ts) * 1e6
        if ev == "nvme_setup_cmd":
            if "qid=0," in rest:
                continue
            cur = {"setup": t}
            ios.append(cur)
            continue
        if cur is None:
            continue
        if ev == "net_dev_xmit":
            d = re.search(r"dev=(\S+) .*len=(\d+)", rest)
            if not d or int(d.group(2)) <= ACK_LEN:
                continue
            if d.group(1) == a.host_dev and "cmd" not in cur:
                cur["cmd"] = t
            elif d.group(1) == a.target_dev and "cmd" in cur and "reply" not in cur:
                cur["reply"] = t
        elif ev == "nvme_complete_rq":
            if "qid=0," not in rest:
                cur["done"] = t
        elif "cmd" not in cur or "reply" in cur:
            continue
        elif ev == "sched_waking" and re.search(r"comm=" + re.escape(a.target_comm), rest):
            cur.setdefault("notified", t)
        elif ev == "workqueue_queue_work" and "function=" + a.target_work + " " in rest:
            cur.setdefault("notified", t)
        elif ev == "workqueue_queue_work" and "function=do_work " in rest:
            if "runs" in cur and pid == cur["runner"]:
                cur.setdefault("posted", t)
        elif ev == "sched_switch" and "next_comm=" + a.target_comm in rest:
            if "runs" not in cur:
                cur["runs"], cur["runner"] = t, re.search(r"next_pid=(\d+)", rest).group(1)
        elif ev == "workqueue_execute_start" and "function " + a.target_work + " " in rest:
            if "runs" not in cur:
                cur["runs"], cur["runner"] = t, pid
    return ios, [io for io in ios if "done" in io]


def pieces(io):
    if not all(k in io for k in ("setup", "cmd", "reply", "done")):
        return None
    notified = io.get("notified", io["cmd"])
    runs = io.get("runs", notified)
    posted = io.get("posted", io["reply"])
    if not io["cmd"] <= notified <= runs <= posted <= io["reply"]:
        return None
    total = io["done"] - io["setup"]
    return {"host_out": io["cmd"] - io["setup"], "deliver": notified - io["cmd"],
            "wake": runs - notified, "serve": posted - runs, "send": io["reply"] - posted,
            "host_in": io["done"] - io["reply"], "total": total,
            "floor": total - (posted - notified)}


def summarize(per):
    out = {}
    for k in PIECES:
        v = sorted(p[k] for p in per)
        out[k] = {"median_us": statistics.median(v), "mean_us": statistics.fmean(v),
                  "p90_us": v[min(len(v) - 1, int(0.9 * len(v)))]}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host-dev", default="veth1")
    ap.add_argument("--target-dev", default="veth0")
    ap.add_argument("--target-comm", default="rblk-pg")
    ap.add_argument("--target-work", default="ib_cq_poll_work")
    ap.add_argument("--json")
    ap.add_argument("trace")
    a = ap.parse_args()
    with open(a.trace, errors="replace") as f:
        seen, ended = parse(f, a)
    per = [p for p in (pieces(io) for io in ended) if p]
    res = {"ios": len(per), "ios_seen": len(seen), "ios_left_out": len(seen) - len(per)}
    if per:
        res["pieces"] = summarize(per)
        res["floor_fraction"] = res["pieces"]["floor"]["median_us"] / res["pieces"]["total"]["median_us"]
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    if not per:
        print(f"{a.trace}: no complete I/O in {len(seen)} seen", file=sys.stderr)
        return 1
    p = res["pieces"]
    print(f"{a.trace}: {len(per)} I/Os ({res['ios_left_out']} left out), medians (us): "
          + " ".join(f"{k} {p[k]['median_us']:.0f}" for k in PIECES)
          + f"; floor/total {res['floor_fraction']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
