#!/usr/bin/env python3
"""initiator_vs_kernel_report.py: the host-side half of bench/initiator_vs_kernel.sh.

Reads DIR/raw/ (perftest logs, rblk bench sweeps, fio and rblk bench JSON per
workload/side/rep), prints the transport ceiling, medians and rblk/kernel ratios as
tables and writes DIR/summary.json.

    python3 bench/initiator_vs_kernel_report.py DIR
"""
import glob
import json
import os
import statistics
import sys

WLS = ["randread-4k-qd32", "randread-4k-qd1", "read-128k-qd16", "write-128k-qd16"]
SIDES = ("kernel", "rblk")
# metric: (unit, higher is better)
UNITS = {"iops": ("IOPS", True), "mbps": ("MB/s", True),
         "lat_avg": ("usec", False), "lat_p99": ("usec", False)}
SHOW = {"randread-4k-qd32": ["iops", "lat_avg"],
        "randread-4k-qd1": ["lat_avg", "lat_p99", "iops"],
        "read-128k-qd16": ["mbps"],
        "write-128k-qd16": ["mbps"]}
PT_SIZE = 131072


def load_json(path):
    txt = open(path).read()
    return json.loads(txt[txt.index("{"):])  # fio may print notes before its JSON


def rc_of(base):
    try:
        return int(open(base + ".rc").read().strip())
    except (OSError, ValueError):
        return None


def fio_run(path):
    job = load_json(path)["jobs"][0]
    rw = job["write"] if job["write"]["total_ios"] > job["read"]["total_ios"] else job["read"]
    # total latency (fio's lat: submission included), comparable with rblk bench's,
    # which is stamped just before rblk_submit()
    lat = rw["lat_ns"]
    pct = lat.get("percentile") or rw["clat_ns"].get("percentile", {})
    return {"iops": rw["iops"], "mbps": rw["bw_bytes"] / 1e6, "lat_avg": lat["mean"] / 1e3,
            "lat_p99": pct.get("99.000000", 0) / 1e3, "ios": rw["total_ios"],
            "errors": job["error"]}


def rblk_run(path):
    j = load_json(path)
    res = j["results"]
    d = res.get("write") if "write" in res and "read" not in res else res.get("read")
    return {"iops": res["iops"], "mbps": res["bw_MBps"], "lat_avg": d["lat_us"]["avg"],
            "lat_p99": d["lat_us"]["p99"], "ios": res["ios"], "errors": 0,
            "rdma_check": j.get("rdma_check", {}).get("verdict")}


def median(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(v, w=11):
    if v is None:
        return f"{'-':>{w}}"
    return f"{v:{w}.1f}" if abs(v) >= 10 else f"{v:{w}.2f}"


def main():
    out = sys.argv[1]
    raw = os.path.join(out, "raw")
    env = json.load(open(os.path.join(raw, "env.json")))
    res = {"env": env, "perftest": {}, "sweep": {}, "ceiling": {}, "workloads": {}}
    failures = []

    # ---- transport ceiling: perftest, bytes counted over the sampled seconds
    for kind in ("write", "read"):
        runs = []
        for f in sorted(glob.glob(os.path.join(raw, f"perftest.{kind}.*.json"))):
            p = json.load(open(f))
            if p["client_rc"] or p["server_rc"] or not p["iterations"]:
                failures.append(f"ib_{kind}_bw {os.path.basename(f)}: client rc {p['client_rc']}, "
                                f"server rc {p['server_rc']}, {p['iterations']} iterations")
                continue
            p["mbps"] = p["iterations"] * p["size"] / p["seconds"] / 1e6
            runs.append(p)
        res["perftest"][f"ib_{kind}_bw"] = {"runs": runs, "median_mbps": median(runs, "mbps")}

    # ---- rblk bench --sweep
    for rw in ("read", "write"):
        base = os.path.join(raw, f"sweep.{rw}")
        rc = rc_of(base)
        rows = []
        if rc == 0:
            rows = load_json(base + ".json").get("sweep", [])
        elif rc is not None:
            failures.append(f"rblk bench --sweep --rw {rw}: exit {rc} ({tail(base + '.err')})")
        res["sweep"][rw] = {"rc": rc, "rows": rows}

    def sweep_at(rw, size):
        return next((r["bw_avg_MBps"] for r in res["sweep"][rw]["rows"] if r["bytes"] == size), None)

    # ---- initiators
    for wl in WLS:
        w = res["workloads"][wl] = {}
        for side in SIDES:
            runs = []
            for f in sorted(glob.glob(os.path.join(raw, f"{wl}.{side}.*.json"))):
                base = f[:-5]
                rc = rc_of(base)
                try:
                    if rc != 0:
                        raise ValueError(f"exit {rc}")
                    runs.append(fio_run(f) if side == "kernel" else rblk_run(f))
                except (ValueError, KeyError, IndexError, TypeError) as e:
                    failures.append(f"{os.path.basename(base)}: {e} ({tail(base + '.err')})")
            keys = ["iops", "mbps", "lat_avg", "lat_p99"]
            w[side] = {"runs": runs, "median": {k: median(runs, k) for k in keys}}
        w["ratio_rblk_over_kernel"] = {m: ratio(w["rblk"]["median"][m], w["kernel"]["median"][m])
                                       for m in SHOW[wl]}

    pw = res["perftest"]["ib_write_bw"]["median_mbps"]
    pr = res["perftest"]["ib_read_bw"]["median_mbps"]
    c = res["ceiling"]
    c["ib_write_bw_MBps"], c["ib_read_bw_MBps"] = pw, pr
    c["rblk_sweep_read_128k_MBps"] = sweep_at("read", PT_SIZE)
    c["rblk_sweep_write_128k_MBps"] = sweep_at("write", PT_SIZE)
    c["rblk_sweep_read_128k_over_ib_write_bw"] = ratio(c["rblk_sweep_read_128k_MBps"], pw)
    c["rblk_sweep_write_128k_over_ib_read_bw"] = ratio(c["rblk_sweep_write_128k_MBps"], pr)
    for side in SIDES:
        c[f"{side}_read_128k_qd16_over_ib_write_bw"] = ratio(
            res["workloads"]["read-128k-qd16"][side]["median"]["mbps"], pw)
        c[f"{side}_write_128k_qd16_over_ib_read_bw"] = ratio(
            res["workloads"]["write-128k-qd16"][side]["median"]["mbps"], pr)
    res["failures"] = failures
    json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)

    # ---- the tables
    nrep = [len(res["workloads"][wl][s]["runs"]) for wl in WLS for s in SIDES]
    print(f"rblk bench vs the kernel host (nvme-rdma + fio io_uring), same target: {env['target']}; "
          f"Soft-RoCE in a TCG VM (kernel {env['kernel']}, {env['cpus']} vCPUs, MTU {env['mtu']}); "
          f"{env['rblk_version']}, {env['fio_version']}; medians of {env['reps']} reps x "
          f"{env['runtime_s']} s (runs that failed are left out: {min(nrep, default=0)}-"
          f"{max(nrep, default=0)} per point)")
    print()
    print("transport ceiling, 128 KiB, rxe0 -> rxe1 as the target issues it (perftest -R, bytes / sampled s;")
    print("  one QP, a busy-polling client that makes a system call per post on rxe: under Soft-RoCE the")
    print("  wire is CPU, so this is a reference point, not a hard limit):")
    np_w = len(res["perftest"]["ib_write_bw"]["runs"])
    np_r = len(res["perftest"]["ib_read_bw"]["runs"])
    print(f"  ib_write_bw (= NVMe read data) {fmt(pw)} MB/s ({np_w} runs)   "
          f"ib_read_bw (= NVMe write data) {fmt(pr)} MB/s ({np_r} runs)")
    print(f"  {'128 KiB':32} {'MB/s':>9} {'/ perftest':>11}")
    for label, v, r in [
            ("rblk bench sweep read (QD32)", c["rblk_sweep_read_128k_MBps"], c["rblk_sweep_read_128k_over_ib_write_bw"]),
            ("rblk read-128k-qd16", res["workloads"]["read-128k-qd16"]["rblk"]["median"]["mbps"],
             c["rblk_read_128k_qd16_over_ib_write_bw"]),
            ("kernel read-128k-qd16", res["workloads"]["read-128k-qd16"]["kernel"]["median"]["mbps"],
             c["kernel_read_128k_qd16_over_ib_write_bw"]),
            ("rblk bench sweep write (QD32)", c["rblk_sweep_write_128k_MBps"], c["rblk_sweep_write_128k_over_ib_read_bw"]),
            ("rblk write-128k-qd16", res["workloads"]["write-128k-qd16"]["rblk"]["median"]["mbps"],
             c["rblk_write_128k_qd16_over_ib_read_bw"]),
            ("kernel write-128k-qd16", res["workloads"]["write-128k-qd16"]["kernel"]["median"]["mbps"],
             c["kernel_write_128k_qd16_over_ib_read_bw"])]:
        print(f"  {label:32} {fmt(v, 9)} {fmt(r, 11)}")
    print()
    print(f"rblk bench --sweep (QD32, one job, {env['sweep_time_s']} s per size), MB/s:")
    print(f"  {'bytes':>8} {'read avg':>10} {'read peak':>10} {'read lat':>10} "
          f"{'write avg':>10} {'write peak':>10} {'write lat':>10}")
    sizes = sorted({r["bytes"] for rw in ("read", "write") for r in res["sweep"][rw]["rows"]})
    for sz in sizes:
        cells = []
        for rw in ("read", "write"):
            row = next((r for r in res["sweep"][rw]["rows"] if r["bytes"] == sz), {})
            cells += [row.get("bw_avg_MBps"), row.get("bw_peak_MBps"), row.get("lat_avg_us")]
        print(f"  {sz:8d} " + " ".join(fmt(v, 10) for v in cells))
    print("  (lat = average latency in usec)")
    print()
    print(f"{'workload':18} {'metric':8} {'unit':5} {'kernel':>11} {'rblk':>11} {'rblk/kernel':>12}")
    for wl in WLS:
        w = res["workloads"][wl]
        for m in SHOW[wl]:
            k, r, q = w["kernel"]["median"][m], w["rblk"]["median"][m], w["ratio_rblk_over_kernel"][m]
            note = ""
            if q is not None and abs(q - 1) > 0.05:
                note = "  rblk better" if (q > 1) == UNITS[m][1] else "  kernel better"
            print(f"{wl:18} {m:8} {UNITS[m][0]:5} {fmt(k)} {fmt(r)} {fmt(q, 12)}{note}")
    checks = [r.get("rdma_check") for wl in WLS for r in res["workloads"][wl]["rblk"]["runs"]]
    print(f"rblk bench RDMA counter check: {sum(1 for v in checks if v == 'ok')} of {len(checks)} runs 'ok'"
          + ("" if all(v == "ok" for v in checks) else f" ({', '.join(sorted({str(v) for v in checks}))})"))
    errs = sum(r["errors"] for wl in WLS for r in res["workloads"][wl]["kernel"]["runs"])
    print(f"fio errors: {errs}; failed runs: {len(failures)}")
    for f in failures:
        print(f"  {f}")
    sc_report(out, res, env)
    print(f"summary: {os.path.join(out, 'summary.json')}")
    return 0


def strace_top(path, n=4):
    """The n most frequent calls of an strace -c summary: [[name, calls, pct_of_calls]]."""
    rows, total = [], 0
    for line in open(path) if os.path.exists(path) else []:
        f = line.split()
        if len(f) in (5, 6) and f[3].isdigit() and f[0].replace(".", "").isdigit():
            if f[-1] == "total":
                total = int(f[3])
            else:
                rows.append((f[-1], int(f[3])))
    rows.sort(key=lambda r: -r[1])
    return [[c, k, round(100.0 * k / total, 1) if total else None] for c, k in rows[:n]]


def sc_report(out, res, env):
    """The syscall runs (bench/syscalls.sh): per-I/O figures for each initiator process."""
    raw, tick_us, lines = os.path.join(out, "raw"), 1e6 / env.get("clk_tck", 100), []
    for wl in WLS:
        for side in ("kernel", "rblk"):
            base = os.path.join(raw, f"sc.{wl}.{side}")
            if not os.path.exists(base + ".init.json"):
                continue
            try:
                run = fio_run(base + ".count.out.json") if side == "kernel" else rblk_run(base + ".count.out.json")
            except (OSError, ValueError, KeyError):
                continue
            c = json.load(open(base + ".init.json"))
            ios = run["iops"] * c["seconds"]
            sc = {"iops": run["iops"],
                  "syscalls_per_io": c["syscalls"] / ios if ios and c["syscalls"] is not None else None,
                  "cpu_us_per_io": c["cpu_ticks"] * tick_us / ios if ios else None,
                  "top_calls": strace_top(base + ".init.strace")}
            res["workloads"].setdefault(wl, {}).setdefault(side, {})["syscall_run"] = sc
            lines.append((wl, side, sc))
    load_p = os.path.join(out, "host-load.json")
    if os.path.exists(load_p):
        res["host_load"] = json.load(open(load_p))
    json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=2)
    if lines:
        print()
        print(f"system calls and CPU per I/O of the initiator process (fio on the kernel host; rblk bench), "
              f"separate run, {env.get('syscall_tool', '?')}; I/Os = IOPS x counted seconds")
        print(f"{'workload':18} {'side':6} {'sc/IO':>8} {'CPU us/IO':>9}  top calls (strace -c, % of calls)")
        for wl, side, sc in lines:
            top = " ".join(f"{c[0]}:{c[2] or 0:.0f}%" for c in sc["top_calls"]) or "-"
            print(f"{wl:18} {side:6} {fmt(sc['syscalls_per_io'], 8)} {fmt(sc['cpu_us_per_io'], 9)}  {top}")
    if res.get("host_load", {}).get("warning"):
        print(f"WARNING: {res['host_load']['warning']}: these figures are not comparable with a quiet machine's")


def tail(path, n=2):
    try:
        lines = [l.strip() for l in open(path).read().splitlines() if l.strip()]
    except OSError:
        return "no log"
    return " / ".join(lines[-n:]) if lines else "no output"


if __name__ == "__main__":
    sys.exit(main())
