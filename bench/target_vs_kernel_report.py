#!/usr/bin/env python3
"""target_vs_kernel_report.py: the host-side half of bench/target_vs_kernel.sh.

Reads DIR/raw/ (fio JSON per store/workload/side/rep, CPU tick deltas, idle CPU),
prints medians and rblk/kernel ratios (and rblk/base when the run had a --baseline
build) as a table and writes DIR/summary.json.

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
SIDES = ("kernel", "rblk")  # and "base" when the run had one
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


def strace_top(path, n=5):
    """The n most frequent calls of an strace -c summary: [[name, calls, pct_of_calls]]."""
    if not os.path.exists(path):
        return []
    rows, total = [], 0
    for line in open(path):
        f = line.split()
        if len(f) in (5, 6) and re.match(r"^[0-9.]+$", f[0]) and f[3].isdigit():
            if f[-1] == "total":
                total = int(f[3])
            else:
                rows.append((f[-1], int(f[3])))
    rows.sort(key=lambda r: -r[1])
    return [[name, calls, round(100.0 * calls / total, 1) if total else None] for name, calls in rows[:n]]


def sc_side(raw, store, wl, side, tick_us):
    """The syscall run of one workload and side: per-I/O figures for fio and rblk-target."""
    base = os.path.join(raw, f"sc.{store}.{wl}.{side}")
    if not os.path.exists(base + ".fio.json"):
        return None
    job = load_json(base + ".count.fio.json")["jobs"][0]
    iops = job["read"]["iops"] + job["write"]["iops"]
    res = {"iops": iops}
    for who in ("fio", "target"):
        if not os.path.exists(f"{base}.{who}.json"):
            continue
        c = json.load(open(f"{base}.{who}.json"))
        ios = res["ios"] = iops * c["seconds"]
        res[f"{who}_syscalls_per_io"] = c["syscalls"] / ios if ios and c["syscalls"] is not None else None
        res[f"{who}_cpu_us_per_io"] = c["cpu_ticks"] * tick_us / ios if ios else None
        res[f"{who}_top_calls"] = strace_top(f"{base}.{who}.strace")
    return res


def prof_comms(raw, store, wl, side, n=8):
    """The profile run's top commands: [[comm, percent of the VM's samples]], or None."""
    path = os.path.join(raw, f"prof.{store}.{wl}.{side}.comm")
    if not os.path.exists(path):
        return None
    shares = {}
    for line in open(path):
        m = re.match(r"^\s*([0-9.]+)%\s+(.+?)\s*$", line)
        if m:
            # One row per kind of thread: kworkers change names with the work they
            # run (kworker/u8:7-rxe_wq), poll groups are numbered (rblk-pg0).
            comm = re.sub(r"^kworker/.*", "kworker", m.group(2))
            comm = re.sub(r"^rblk-pg[0-9]+$", "rblk-pg", comm)
            shares[comm] = shares.get(comm, 0.0) + float(m.group(1))
    return sorted(([c, p] for c, p in shares.items()), key=lambda r: -r[1])[:n]


TRACE_PIECES = ("host_out", "deliver", "wake", "serve", "send", "host_in", "total", "floor")


def trace_lines(raw, store, st, lines):
    """The --trace runs: each queue-depth-1 I/O in pieces (bench/trace_qd1.py), and
    the floor: the latency left for a target that posted its reply the moment it
    was told, over nvmet's measured latency in the same record."""
    for wl in WLS:
        tr = {}
        for side in SIDES:
            p = os.path.join(raw, f"trace.{store}.{wl}.{side}.json")
            if os.path.exists(p):
                t = load_json(p)
                if t and t.get("pieces"):
                    tr[side] = t
        if not tr:
            continue
        st["workloads"][wl]["trace"] = tr
        lines.append("")
        lines.append(f"{wl}, store {store}, traced run (ftrace; medians in us; tracing slows every side): "
                     "host_out = host driver and Soft-RoCE until the command is on the wire, deliver = the "
                     "target side's Soft-RoCE until the target is told, wake = until its code runs, serve = "
                     "its own work until it posts, send = Soft-RoCE until the reply is on the wire, host_in = "
                     "the way back; floor = total - (deliver's end to posted)")
        lines.append(f"{'side':6} {'I/Os':>5} " + " ".join(f"{k:>8}" for k in TRACE_PIECES))
        for side, t in tr.items():
            lines.append(f"{side:6} {t['ios']:5d} " + " ".join(f"{t['pieces'][k]['median_us']:8.0f}" for k in TRACE_PIECES))
        k = tr.get("kernel")
        if k:
            kt = k["pieces"]["total"]["median_us"]
            st["workloads"][wl]["trace_floor_over_kernel"] = {s: t["pieces"]["floor"]["median_us"] / kt for s, t in tr.items()}
            lines.append("floor / nvmet's total: " + ", ".join(
                f"{s} {t['pieces']['floor']['median_us'] / kt:.2f}" for s, t in tr.items())
                + " (the best latency ratio a target with that side's delivery and send paths could reach)")


def median(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def main():
    out = sys.argv[1]
    raw = os.path.join(out, "raw")
    global WLS, SIDES
    env = json.load(open(os.path.join(raw, "env.json")))
    if env.get("baseline"):
        SIDES = ("kernel", "rblk", "base")
    if env.get("workloads"):
        WLS = [w for w in env["workloads"].split(",") if w in ALL_WLS]
    clk = env.get("clk_tck", 100)
    stores = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(raw, "*.desc.json"))},
                    key=lambda s: ["ram", "file"].index(s) if s in ("ram", "file") else 9)
    res = {"env": env, "stores": {}}
    load_p = os.path.join(out, "host-load.json")
    if os.path.exists(load_p):
        res["host_load"] = json.load(open(load_p))
    lines = []
    for store in stores:
        st = res["stores"][store] = {"desc": json.load(open(os.path.join(raw, f"{store}.desc.json"))),
                                     "workloads": {}}
        idle_p = os.path.join(raw, f"{store}.idle.json")
        if os.path.exists(idle_p):
            idle = json.load(open(idle_p))
            st["rblk_idle_cpu_pct"] = 100.0 * idle["rblk_ticks"] / clk / idle["seconds"]
        idle_sc = os.path.join(raw, f"sc.{store}.idle.target.json")
        if os.path.exists(idle_sc):
            c = json.load(open(idle_sc))
            st["rblk_idle"] = {"syscalls_per_s": c["syscalls"] / c["seconds"] if c["syscalls"] is not None else None,
                               "cpu_pct": 100.0 * c["cpu_ticks"] / clk / c["seconds"],
                               "run_pct": 100.0 * c["run_ns"] / 1e9 / c["seconds"] if c.get("run_ns") else None,
                               "top_calls": strace_top(os.path.join(raw, f"sc.{store}.idle.target.strace"))}
        sc_rows = []
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
                sc = sc_side(raw, store, wl, side, 1e6 / clk)
                if sc:
                    w[side]["syscall_run"] = sc
                    sc_rows.append((wl, side, sc))
            w["ratio_rblk_over_kernel"] = {}
            if "base" in SIDES:
                w["ratio_rblk_over_base"] = {}
            for m in SHOW[wl] + CPU_ROWS:
                k, r = w["kernel"]["median"].get(m), w["rblk"]["median"].get(m)
                b = w["base"]["median"].get(m) if "base" in SIDES else None
                ratio = r / k if r is not None and k else None
                ratio_b = r / b if r is not None and b else None
                if m != "rblk_cpu_us_per_io":
                    w["ratio_rblk_over_kernel"][m] = ratio
                if "base" in SIDES:
                    w["ratio_rblk_over_base"][m] = ratio_b
                rows.append((wl, m, k, r, b, ratio if m != "rblk_cpu_us_per_io" else None, ratio_b))
        lines.append("")
        lines.append(f"store {store}: kernel = {st['desc']['kernel']}; rblk = {st['desc']['rblk']}"
                     + (f"; base = the same from {env['baseline']}" if "base" in SIDES else ""))
        lines.append(f"{'workload':18} {'metric':18} {'unit':5} {'kernel':>11} {'rblk':>11} "
                     + (f"{'base':>11} " if "base" in SIDES else "") + f"{'rblk/kernel':>12}"
                     + (f" {'rblk/base':>10}" if "base" in SIDES else ""))
        for wl, m, k, r, b, ratio, ratio_b in rows:
            unit, hib = UNITS[m]
            f = lambda v: "-" if v is None else (f"{v:11.1f}" if abs(v) >= 10 else f"{v:11.2f}")
            note = ""
            if ratio is not None and abs(ratio - 1) > 0.05:
                note = "  rblk better" if (ratio > 1) == hib else "  kernel better"
            base_cols = ""
            if "base" in SIDES:
                base_cols = f"{f(b):>11} "
            lines.append(f"{wl:18} {m:18} {unit:5} {f(k):>11} {f(r):>11} {base_cols}"
                         f"{'-' if ratio is None else f'{ratio:12.2f}'}"
                         + (f" {'-' if ratio_b is None else f'{ratio_b:10.2f}'}" if "base" in SIDES else "")
                         + note)
        errs = sum(r["errors"] for wl in WLS for s in SIDES for r in st["workloads"][wl][s]["runs"])
        if "rblk_idle_cpu_pct" in st:
            lines.append(f"rblk-target idle CPU (host connected, 10 s): {st['rblk_idle_cpu_pct']:.1f} % of one CPU")
        lines.append(f"fio errors: {errs}")
        if sc_rows:
            f = lambda v: "-" if v is None else f"{v:8.2f}"
            top = lambda calls: " ".join(f"{c[0]}:{c[2] or 0:.0f}%" for c in calls[:4]) if calls else "-"
            lines.append("")
            lines.append(f"system calls and CPU per I/O, store {store} (separate run, {env.get('syscall_tool', '?')}; "
                         "I/Os = fio's IOPS x the counted seconds; target = rblk-target, "
                         "'-' for nvmet: it runs in the kernel)")
            lines.append(f"{'workload':18} {'target':6} {'I/Os':>6} {'fio sc/IO':>9} {'fio us/IO':>9} "
                         f"{'tgt sc/IO':>9} {'tgt us/IO':>9}  top calls: target | fio (strace -c, % of calls)")
            for wl, side, sc in sc_rows:
                lines.append(f"{wl:18} {side:6} {sc.get('ios', 0):6.0f} {f(sc.get('fio_syscalls_per_io')):>9} "
                             f"{f(sc.get('fio_cpu_us_per_io')):>9} {f(sc.get('target_syscalls_per_io')):>9} "
                             f"{f(sc.get('target_cpu_us_per_io')):>9}  {top(sc.get('target_top_calls'))} | "
                             f"{top(sc.get('fio_top_calls'))}")
        prof = [(wl, side, prof_comms(raw, store, wl, side)) for wl in WLS for side in SIDES]
        prof = [p for p in prof if p[2]]
        if prof:
            st["profile"] = {f"{wl}.{side}": rows for wl, side, rows in prof}
            lines.append("")
            lines.append(f"where the VM's CPU went, store {store} (profile run, perf record -a cpu-clock; "
                         f"% of all samples, swapper = idle, kworker and rblk-pg summed over threads; "
                         f"symbols in raw/prof.{store}.WORKLOAD.SIDE.sym)")
            for wl, side, rows in prof:
                lines.append(f"{wl:18} {side:6} " + " ".join(f"{c}:{p:.0f}%" for c, p in rows))
        trace_lines(raw, store, st, lines)
        if "rblk_idle" in st:
            i = st["rblk_idle"]
            sps = "-" if i["syscalls_per_s"] is None else f"{i['syscalls_per_s']:.0f}"
            run = "" if i.get("run_pct") is None else f" ({i['run_pct']:.2f} % by the scheduler's run time)"
            lines.append(f"rblk-target idle (host connected, no I/O): {sps} syscalls/s, {i['cpu_pct']:.1f} % CPU{run}; "
                         f"top: {' '.join(f'{c[0]}:{c[2] or 0:.0f}%' for c in i['top_calls']) or '-'}")
    json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)
    reps = max((len(res["stores"][s]["workloads"][WLS[0]]["kernel"]["runs"]) for s in stores), default=0)
    print(f"rblk-target vs kernel nvmet-rdma; Linux nvme-rdma host over Soft-RoCE in a TCG VM "
          f"(kernel {env['kernel']}, {env['cpus']} vCPUs, clocksource {env.get('clocksource', '?')}: "
          f"clock_gettime is a system call unless it is tsc or kvm-clock); medians of {reps} reps")
    print("vm_cpu_us_per_io: the whole VM's busy CPU (user+sys+irq+softirq) per I/O, host and "
          "Soft-RoCE included (the same on both sides): the kernel target's own share cannot be "
          "attributed; rblk_cpu_us_per_io: rblk-target's process CPU alone (in the kernel column: what "
          "the idle rblk-target burnt while the kernel target served)")
    if res.get("host_load", {}).get("warning"):
        print(f"WARNING: {res['host_load']['warning']} (before the run; load {res['host_load']['loadavg']}): "
              "these figures are not comparable with a quiet machine's")
    print("\n".join(lines))
    print(f"summary: {os.path.join(out, 'summary.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
