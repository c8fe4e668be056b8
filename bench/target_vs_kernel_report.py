#!/usr/bin/env python3
"""target_vs_kernel_report.py: the host-side half of bench/target_vs_kernel.sh.

Reads DIR/raw/ (fio JSON per store/workload/side/rep, CPU tick deltas, idle CPU),
prints medians and rblk/kernel ratios as a table and writes DIR/summary.json.

    python3 bench/target_vs_kernel_report.py DIR
"""
import glob
import json
import os
import re
import statistics
import sys

ALL_WLS = ["randread-4k-qd1", "randread-4k-qd32", "randwrite-4k-qd32", "read-128k-qd16",
           "write-128k-qd16", "read-1m-qd4", "write-1m-qd4"]
WLS = ALL_WLS
SIDES = ("kernel", "rblk")
# metric: (unit, higher is better)
UNITS = {"lat_avg": ("usec", False), "lat_p99": ("usec", False), "iops": ("IOPS", True),
         "mbps": ("MB/s", True), "vm_cpu_us_per_io": ("us/IO", False),
         "rblk_cpu_us_per_io": ("us/IO", False)}
SHOW = {"randread-4k-qd1": ["lat_avg", "lat_p99", "iops"],
        "randread-4k-qd32": ["iops", "lat_avg"],
        "randwrite-4k-qd32": ["iops", "lat_avg"],
        "read-128k-qd16": ["mbps"],
        "write-128k-qd16": ["mbps"],
        "read-1m-qd4": ["mbps"],
        "write-1m-qd4": ["mbps"]}
CPU_ROWS = ["vm_cpu_us_per_io", "rblk_cpu_us_per_io"]


def load_json(path):
    txt = open(path).read()
    return json.loads(txt[txt.index("{"):])  # fio may print notes before its JSON


def one_run(fio_path, cpu_path, clk_tck):
    job = load_json(fio_path)["jobs"][0]
    rw = job["write"] if job["write"]["total_ios"] > job["read"]["total_ios"] else job["read"]
    ios = job["read"]["total_ios"] + job["write"]["total_ios"]
    run = {"iops": rw["iops"], "mbps": rw["bw_bytes"] / 1e6,
           "lat_avg": rw["clat_ns"]["mean"] / 1e3,
           "lat_p99": rw["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1e3,
           "ios": ios, "errors": job["error"]}
    if os.path.exists(cpu_path):
        cpu = json.load(open(cpu_path))
        tick_us = 1e6 / clk_tck
        run["vm_cpu_us_per_io"] = cpu["vm_busy_ticks"] * tick_us / ios if ios else None
        run["vm_busy_pct"] = 100.0 * cpu["vm_busy_ticks"] / cpu["vm_total_ticks"] if cpu["vm_total_ticks"] else None
        run["rblk_cpu_us_per_io"] = cpu["rblk_ticks"] * tick_us / ios if ios else None
    return run


def median(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def main():
    out = sys.argv[1]
    raw = os.path.join(out, "raw")
    global WLS
    env = json.load(open(os.path.join(raw, "env.json")))
    if env.get("workloads"):
        WLS = [w for w in env["workloads"].split(",") if w in ALL_WLS]
    clk = env.get("clk_tck", 100)
    stores = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(raw, "*.desc.json"))},
                    key=lambda s: ["ram", "file"].index(s) if s in ("ram", "file") else 9)
    res = {"env": env, "stores": {}}
    lines = []
    for store in stores:
        st = res["stores"][store] = {"desc": json.load(open(os.path.join(raw, f"{store}.desc.json"))),
                                     "workloads": {}}
        idle_p = os.path.join(raw, f"{store}.idle.json")
        if os.path.exists(idle_p):
            idle = json.load(open(idle_p))
            st["rblk_idle_cpu_pct"] = 100.0 * idle["rblk_ticks"] / clk / idle["seconds"]
        rows = []
        for wl in WLS:
            w = st["workloads"][wl] = {}
            for side in SIDES:
                runs = []
                for f in sorted(glob.glob(os.path.join(raw, f"{store}.{wl}.{side}.*.json"))):
                    if f.endswith(".cpu.json"):
                        continue
                    runs.append(one_run(f, f[:-5] + ".cpu.json", clk))
                keys = sorted({k for r in runs for k in r})
                w[side] = {"runs": runs, "median": {k: median(runs, k) for k in keys}}
            w["ratio_rblk_over_kernel"] = {}
            for m in SHOW[wl] + CPU_ROWS:
                k, r = w["kernel"]["median"].get(m), w["rblk"]["median"].get(m)
                ratio = r / k if r is not None and k else None
                if m != "rblk_cpu_us_per_io":
                    w["ratio_rblk_over_kernel"][m] = ratio
                rows.append((wl, m, k, r, ratio if m != "rblk_cpu_us_per_io" else None))
        lines.append("")
        lines.append(f"store {store}: kernel = {st['desc']['kernel']}; rblk = {st['desc']['rblk']}")
        lines.append(f"{'workload':18} {'metric':18} {'unit':5} {'kernel':>11} {'rblk':>11} {'rblk/kernel':>12}")
        for wl, m, k, r, ratio in rows:
            unit, hib = UNITS[m]
            f = lambda v: "-" if v is None else (f"{v:11.1f}" if abs(v) >= 10 else f"{v:11.2f}")
            note = ""
            if ratio is not None and abs(ratio - 1) > 0.05:
                note = "  rblk better" if (ratio > 1) == hib else "  kernel better"
            lines.append(f"{wl:18} {m:18} {unit:5} {f(k):>11} {f(r):>11} "
                         f"{'-' if ratio is None else f'{ratio:12.2f}'}{note}")
        errs = sum(r["errors"] for wl in WLS for s in SIDES for r in st["workloads"][wl][s]["runs"])
        if "rblk_idle_cpu_pct" in st:
            lines.append(f"rblk-target idle CPU (host connected, 10 s): {st['rblk_idle_cpu_pct']:.1f} % of one CPU")
        lines.append(f"fio errors: {errs}")
    json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)
    reps = max((len(res["stores"][s]["workloads"][WLS[0]]["kernel"]["runs"]) for s in stores), default=0)
    print(f"rblk-target vs kernel nvmet-rdma; Linux nvme-rdma host over Soft-RoCE in a TCG VM "
          f"(kernel {env['kernel']}, {env['cpus']} vCPUs); medians of {reps} reps")
    print("vm_cpu_us_per_io: the whole VM's busy CPU (user+sys+irq+softirq) per I/O, host and "
          "Soft-RoCE included (the same on both sides): the kernel target's own share cannot be "
          "attributed; rblk_cpu_us_per_io: rblk-target's process CPU alone (in the kernel column: what "
          "the idle rblk-target burnt while the kernel target served)")
    print("\n".join(lines))
    print(f"summary: {os.path.join(out, 'summary.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
