#!/usr/bin/env python3
"""boots_median.py: one table from several boots of a side-by-side benchmark.

Reads the DIR/summary.json of bench/target_vs_kernel.sh, of
bench/initiator_vs_kernel.sh or of bench/fio_plugin_bench.sh (not mixed). Each
boot of the VM gives its own medians and ours/kernel ratios. Ratios measured
side by side in one boot are what this machine can compare; across boots the
noise is the host's. This prints, for
every workload and metric, the ratio of each boot and their median, and the
target's (or the initiator process's) system calls and CPU per I/O likewise,
and writes the lot as JSON.
Boots run with --baseline also give rblk/base ratios and the old build's calls;
boots run with --trace, the queue-depth-1 floor (bench/trace_qd1.py) per side.

    python3 bench/boots_median.py [--json OUT.json] DIR1 DIR2 DIR3 ...
"""
import json
import os
import statistics
import sys


def load(d):
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def initiator_table(boots):
    """Per boot and median: the ratio rows of the initiator benches, then each
    side's system calls and CPU per I/O (its own process, separate run)."""
    res = {}
    print("\nours/kernel per boot, then the median; then each side's own process per I/O")
    print(f"{'workload':18} {'metric':22} " + " ".join(f"{'boot' + str(i + 1):>7}" for i in range(len(boots)))
          + f" {'median':>7}")
    wls = []
    for b in boots:
        for wl in b["workloads"]:
            if wl not in wls:
                wls.append(wl)
    for wl in wls:
        ws = [b["workloads"].get(wl, {}) for b in boots]
        rw = res[wl] = {}
        ratio_keys = sorted({k for w in ws for k in w if k.startswith("ratio_")})
        for rk in ratio_keys:
            for m in dict.fromkeys(m for w in ws for m in w.get(rk, {})):
                per = [w.get(rk, {}).get(m) for w in ws]
                rw[f"{rk}.{m}"] = {"per_boot": per, "median": med(per)}
                print(f"{wl:18} {m:22} " + " ".join(f"{fmt(v):>7}" for v in per) + f" {fmt(med(per)):>7}")
        sides = [k for k in dict.fromkeys(k for w in ws for k in w) if not k.startswith("ratio_")]
        for side in sides:
            sc = [w.get(side, {}).get("syscall_run") or {} for w in ws]
            for keys, label in ((("syscalls_per_io", "fio_syscalls_per_io"), "syscalls/IO"),
                                (("cpu_us_per_io", "fio_cpu_us_per_io"), "CPU us/IO")):
                per = [next((x[k] for k in keys if x.get(k) is not None), None) for x in sc]
                if any(v is not None for v in per):
                    rw[f"{side}.{keys[0]}"] = {"per_boot": per, "median": med(per)}
                    print(f"{wl:18} {side + ' ' + label:22} " + " ".join(f"{fmt(v):>7}" for v in per)
                          + f" {fmt(med(per)):>7}")
    return res


def main(argv):
    out_json = None
    if len(argv) > 1 and argv[0] == "--json":
        out_json, argv = argv[1], argv[2:]
    if len(argv) < 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    boots = [load(d) for d in argv]
    result = {"boots": argv, "kernels": [b["env"].get("kernel") for b in boots], "stores": {}}
    warnings = [b.get("host_load", {}).get("warning") for b in boots]
    print(f"{len(boots)} boots, kernels {', '.join(sorted(set(map(str, result['kernels']))))}")
    for i, w in enumerate(warnings):
        if w:
            print(f"  boot {i + 1}: WARNING: {w}")
    if all("workloads" in b for b in boots):
        result["initiators"] = initiator_table(boots)
    stores = sorted({s for b in boots for s in b.get("stores", {})})
    for store in stores:
        rs = result["stores"][store] = {}
        print(f"\nstore {store}: rblk/kernel per boot, then the median")
        print(f"{'workload':18} {'metric':18} " + " ".join(f"{'boot' + str(i + 1):>6}" for i in range(len(boots)))
              + f" {'median':>7}")
        wls = []
        for b in boots:
            for wl in b["stores"].get(store, {}).get("workloads", {}):
                if wl not in wls:
                    wls.append(wl)
        for wl in wls:
            ws = [b["stores"].get(store, {}).get("workloads", {}).get(wl, {}) for b in boots]
            metrics = []
            for w in ws:
                for m in w.get("ratio_rblk_over_kernel", {}):
                    if m not in metrics:
                        metrics.append(m)
            rw = rs[wl] = {}
            for m in metrics:
                per = [w.get("ratio_rblk_over_kernel", {}).get(m) for w in ws]
                rw[m] = {"per_boot": per, "median": med(per)}
                print(f"{wl:18} {m:18} " + " ".join(f"{fmt(v):>6}" for v in per) + f" {fmt(med(per)):>7}")
            # A run with --baseline: the new build against the old one, same boots.
            vs_base = rw["vs_base"] = {}
            for m in metrics:
                per = [w.get("ratio_rblk_over_base", {}).get(m) for w in ws]
                if any(v is not None for v in per):
                    vs_base[m] = {"per_boot": per, "median": med(per)}
                    print(f"{wl:18} {m.replace('_us_per_io', '') + ' rblk/base':18} " + " ".join(f"{fmt(v):>6}" for v in per)
                          + f" {fmt(med(per)):>7}")
            for side, tag in (("rblk", "tgt"), ("base", "base")):
                sc = [w.get(side, {}).get("syscall_run", {}) for w in ws]
                for key, label in (("target_syscalls_per_io", f"{tag} syscalls/IO"),
                                   ("target_cpu_us_per_io", f"{tag} CPU us/IO")):
                    per = [s.get(key) for s in sc]
                    if any(v is not None for v in per):
                        (rw if side == "rblk" else vs_base)[key] = {"per_boot": per, "median": med(per)}
                        print(f"{wl:18} {label:18} " + " ".join(f"{fmt(v):>6}" for v in per)
                              + f" {fmt(med(per)):>7}")
            # --trace: the floor (a target that posted the moment it was told) over
            # nvmet's latency, and each side's own time from told to posted.
            for side in dict.fromkeys(sd for w in ws for sd in w.get("trace_floor_over_kernel", {})):
                per = [w.get("trace_floor_over_kernel", {}).get(side) for w in ws]
                rw[f"trace_floor_over_kernel.{side}"] = {"per_boot": per, "median": med(per)}
                print(f"{wl:18} {'floor/kernel ' + side:18} " + " ".join(f"{fmt(v):>6}" for v in per)
                      + f" {fmt(med(per)):>7}")
                pcs = [w.get("trace", {}).get(side, {}).get("pieces") for w in ws]
                per = [p["wake"]["median_us"] + p["serve"]["median_us"] if p else None for p in pcs]
                rw[f"trace_told_to_posted_us.{side}"] = {"per_boot": per, "median": med(per)}
                print(f"{wl:18} {'told->posted ' + side:18} " + " ".join(f"{v:6.0f}" if v else "     -" for v in per)
                      + (f" {med(per):7.0f}" if med(per) else "       -"))
            if not vs_base:
                del rw["vs_base"]
        idle = [b["stores"].get(store, {}).get("rblk_idle", {}) for b in boots]
        per = [i.get("syscalls_per_s") for i in idle]
        if any(v is not None for v in per):
            rs["idle_syscalls_per_s"] = {"per_boot": per, "median": med(per)}
            print(f"{'idle, 1 host':18} {'syscalls/s':18} " + " ".join(f"{fmt(v):>6}" for v in per)
                  + f" {fmt(med(per)):>7}")
    if out_json:
        with open(out_json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
