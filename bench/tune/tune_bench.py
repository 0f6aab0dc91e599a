#!/usr/bin/python3
"""Tuning benchmark (`make bench`, or run alone): how fast each tuner finds good configs, how much
transfer from another device and screening by a cost model trained on other devices help, how fast
`tune` measures next to `profile`, and the tuned latency next to oneDNN. Every number comes from
the `tensorperf` executable and `kernels_bench`, run here, one after another (never two at once);
every run writes its own database, so an interrupted benchmark resumes where it stopped (`tune`
continues a run it finds in its database).

Prints tables; writes curves.csv, summary.json and tuning_curves.png under --out.
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, quiet=True):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("tune_bench: %s failed (exit %d): %s" % (" ".join(cmd[:3]), p.returncode, p.stderr.strip()[-2000:]))
    return p.stdout, time.time() - t


class Bench:
    def __init__(self, args):
        self.a = args
        self.tp = os.path.join(args.build, "tensorperf")
        os.makedirs(args.out, exist_ok=True)
        env_cache = os.path.join(args.out, "cache")
        os.environ.setdefault("XDG_CACHE_HOME", env_cache)

    def tensorperf(self, *args):
        return run([self.tp] + list(args))

    # --- workloads -------------------------------------------------------------------------
    def conv_keys(self):
        out, _ = self.tensorperf("tasks", "--model", self.a.model, "--json")
        convs = [t["key"] for t in json.loads(out)["tasks"] if t["op"] == "conv2d" and "[1,3," not in t["key"]]
        if self.a.workloads >= len(convs):
            return convs
        # An even spread over the network's depth: large and small spatial sizes, 3x3 and 1x1.
        step = (len(convs) - 1) / max(1, self.a.workloads - 1)
        return [convs[round(i * step)] for i in range(self.a.workloads)]

    # --- one tuning run ----------------------------------------------------------------------
    def tune(self, db, key, tuner, seed, threads, transfer, cost_model=None):
        args = ["tune", "--model", self.a.model, "--workload", key, "--tuner", tuner, "--seed", str(seed),
                "--trials", str(self.a.trials), "--threads", str(threads), "--provider", "halide",
                "--no-seed-configs", "--early-stopping", "0", "--db", db, "--json"]
        if not transfer:
            args.append("--no-transfer")
        if cost_model:
            args += ["--cost-model", cost_model, "--screen", str(self.a.screen)]
        out, wall = self.tensorperf(*args)
        return json.loads(out), wall

    def trajectory(self, db, key, device):
        """Mean cost (s) of each measurement of `key` on `device`, in order; inf for failures."""
        out, _ = self.tensorperf("db", "export", "--all", "--db", db, "--workload", key, "--device", device)
        costs = []
        for line in out.splitlines():
            j = json.loads(line)
            r = j["result"]
            costs.append(sum(r["costs"]) / len(r["costs"]) if r["error_no"] == 0 and r["costs"] else math.inf)
        return costs

    def screen_model(self, device):
        """An xgb cost model trained on the dataset's records of other devices only (none of this CPU's
        at this device's ISA level, at any thread count: the tuner meets this kind of device for the
        first time), for `tune --cost-model`. Trained once per device."""
        d = os.path.join(self.a.out, "screen")
        path = os.path.join(d, "xgb-without-%s.json" % device)
        if os.path.exists(path):
            return path
        os.makedirs(d, exist_ok=True)
        data = os.path.join(ROOT, "data", "measurements")
        isa = re.sub(r"-t\d+$", "", device)
        files = sorted(os.path.join(data, f) for f in os.listdir(data)
                       if f.endswith(".jsonl.zst") and not f.startswith(isa + "-t"))
        if not files:
            sys.exit("tune_bench: no records of other devices in %s to train the screening model on" % data)
        db = os.path.join(d, "train-without-%s.db" % device)
        for f in (db, db + "-wal", db + "-shm"):
            if os.path.exists(f):
                os.remove(f)
        self.tensorperf("db", "import", "--db", db, *files)
        _, wall = self.tensorperf("eval", "--db", db, "--devices", data, "--cost-model", "xgb", "--split", "random",
                                  "--threads", str(self.a.threads), "--seed", "1", "--max-samples", str(self.a.screen_samples),
                                  "--save", path + ".tmp", "--json")
        os.replace(path + ".tmp", path)
        log("curves: screening model trained on %d devices' records (no %s-*) (%.0f s): %s" % (len(files), isa, wall, path))
        return path

    def curves(self):
        keys = self.conv_keys()
        runs = {}  # (tuner, seed, key) -> trajectory
        device = None
        tuners = self.a.tuners.split(",")
        screened = [t for t in self.a.screen_tuners.split(",") if t]
        # Interleaved: for each seed and workload, every tuner in turn, then the screened ones.
        for seed in range(self.a.seeds):
            for key in keys:
                for tuner in tuners + [t + "+screen" for t in screened]:
                    base, _, screen = tuner.partition("+")
                    model = self.screen_model(device) if screen else None
                    db = os.path.join(self.a.out, "runs", "%s-s%d-%s.db" % (tuner, seed, short(key)))
                    os.makedirs(os.path.dirname(db), exist_ok=True)
                    rep, wall = self.tune(db, key, base, seed, self.a.threads, transfer=False, cost_model=model)
                    device = rep["device"]
                    runs[(tuner, seed, key)] = self.trajectory(db, key, device)
                    log("curves: %s seed %d %s: %d trials, best %s (%.0f s)" %
                        (tuner, seed, short(key), len(runs[(tuner, seed, key)]),
                         ms(min(runs[(tuner, seed, key)] or [math.inf])), wall))
        tuners += [t + "+screen" for t in screened]
        if self.a.transfer:
            # The other device: the same workloads tuned by xgb at another thread count.
            source = os.path.join(self.a.out, "runs", "transfer-source-t%d.db" % self.a.transfer_threads)
            for key in keys:
                self.tune(source, key, "xgb", 0, self.a.transfer_threads, transfer=False)
            for seed in range(self.a.seeds):
                for key in keys:
                    db = os.path.join(self.a.out, "runs", "xgb-transfer-s%d-%s.db" % (seed, short(key)))
                    if not os.path.exists(db):
                        shutil.copy(source, db)
                    rep, wall = self.tune(db, key, "xgb", seed, self.a.threads, transfer=True)
                    runs[("xgb+transfer", seed, key)] = self.trajectory(db, key, rep["device"])
                    log("curves: xgb+transfer seed %d %s: best %s (%.0f s)" %
                        (seed, short(key), ms(min(runs[("xgb+transfer", seed, key)] or [math.inf])), wall))
            tuners.append("xgb+transfer")
        return keys, tuners, runs, device

    def report_curves(self, keys, tuners, runs, device):
        best_any = {k: min(min(t or [math.inf]) for (tu, s, kk), t in runs.items() if kk == k and "+" not in tu)
                    for k in keys}
        # trials to 95% of the best any cold tuner found (its throughput); budget + 1 when never
        def trials_to(traj, target):
            best = math.inf
            for i, c in enumerate(traj):
                best = min(best, c)
                if best <= target:
                    return i + 1
            return self.a.trials + 1

        table = {}
        for tuner in tuners:
            per_key = []
            for k in keys:
                per_seed = sorted(trials_to(runs[(tuner, s, k)], best_any[k] / 0.95) for s in range(self.a.seeds))
                per_key.append(statistics.median(per_seed))
            table[tuner] = per_key
        print("\n== tuning curves: trials to reach 95%% of the best any tuner found (median of %d seeds; "
              "%d = never within %d), %s, %d threads" % (self.a.seeds, self.a.trials + 1, self.a.trials, device,
                                                          self.a.threads))
        print("%-44s %10s" % ("workload", "best ms") + "".join("%14s" % t for t in tuners))
        for i, k in enumerate(keys):
            print("%-44s %10s" % (short(k), ms(best_any[k])) + "".join("%14g" % table[t][i] for t in tuners))
        geo = {t: geomean(table[t]) for t in tuners}
        print("%-44s %10s" % ("geomean", "") + "".join("%14.1f" % geo[t] for t in tuners))
        ratios = {}
        if "xgb" in geo and "random" in geo:
            ratios["xgb_vs_random"] = geo["xgb"] / geo["random"]
            print("xgb needs %.2fx the trials of random (target <= 0.33)" % ratios["xgb_vs_random"])
        for t in [t for t in tuners if t.endswith("+screen")]:
            base = t.split("+")[0]
            if base in geo:
                ratios["%s_screen_vs_%s" % (base, base)] = geo[t] / geo[base]
                print("%s screened by a cost model trained on other devices needs %.2fx the trials of %s alone" %
                      (base, geo[t] / geo[base], base))
        if "xgb+transfer" in geo and "xgb" in geo:
            ratios["transfer_vs_xgb"] = geo["xgb+transfer"] / geo["xgb"]
            print("xgb with transfer from t%d needs %.2fx the trials of cold xgb (target <= 0.5)" %
                  (self.a.transfer_threads, ratios["transfer_vs_xgb"]))
        # CSV and picture: best-so-far latency vs trials, median over seeds
        path = os.path.join(self.a.out, "curves.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["tuner", "seed", "workload", "trial", "best_ms"])
            for (tuner, seed, k), traj in sorted(runs.items()):
                best = math.inf
                for i, c in enumerate(traj):
                    best = min(best, c)
                    w.writerow([tuner, seed, k, i + 1, best * 1e3 if best < math.inf else ""])
        panels = []
        for k in keys:
            series = []
            for tuner in tuners:
                curves = [running_min(runs[(tuner, s, k)]) for s in range(self.a.seeds)]
                n = min(len(c) for c in curves)
                ys = [statistics.median(c[i] for c in curves) * 1e3 for i in range(n)]
                xs = [i + 1 for i in range(n) if ys[i] < math.inf]
                series.append({"label": tuner, "x": xs, "y": [y for y in ys if y < math.inf]})
            panels.append({"kind": "lines", "title": short(k), "xlabel": "trials", "ylabel": "best latency (ms)",
                           "logy": True, "series": series})
        spec = {"title": "Best latency vs trials (median of %d seeds), %s" % (self.a.seeds, device), "columns": 2,
                "panels": panels}
        spec_path = os.path.join(self.a.out, "tuning_curves.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "plot.py"), spec_path,
             os.path.join(self.a.out, "tuning_curves.png")])
        print("wrote %s and %s" % (path, os.path.join(self.a.out, "tuning_curves.png")))
        return {"trials_to_95": table, "geomean": geo, "ratios": ratios, "workloads": keys}

    # --- throughput: tune vs profile ---------------------------------------------------------
    def throughput(self):
        out, _ = self.tensorperf("tasks", "--model", self.a.model, "--json")
        tasks = len(json.loads(out)["tasks"])
        per_task = self.a.configs_per_task
        results = {}
        for rep in range(self.a.repeats):
            for threads in (1, 2):
                d = os.path.join(self.a.out, "throughput", "r%d-t%d" % (rep, threads))
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                rec = os.path.join(d, "profile.jsonl")
                out, wall = self.tensorperf("profile", "--model", self.a.model, "--provider", "halide",
                                            "--configs-per-task", str(per_task), "--threads", str(threads),
                                            "--out", rec, "--json")
                p = json.loads(out)
                valid = sum(1 for line in open(rec) if json.loads(line)["result"]["error_no"] != 1)
                results.setdefault(("profile", threads), []).append(valid / p["wall_s"])
                out, wall = self.tensorperf("tune", "--model", self.a.model, "--provider", "halide", "--tuner",
                                            "random", "--no-seed-configs", "--trials", str(tasks * per_task),
                                            "--threads", str(threads), "--db", os.path.join(d, "tune.db"), "--json")
                t = json.loads(out)
                results.setdefault(("tune", threads), []).append(t["configs_per_s"])
                log("throughput: rep %d, %d threads: profile %.2f, tune %.2f valid configs/s" %
                    (rep, threads, results[("profile", threads)][-1], results[("tune", threads)][-1]))
        print("\n== measurement throughput, %s: valid configs per second (median of %d runs; profile's "
              "invalid configs, which tune never measures, left out; tune with its default --slow-cutoff 2, "
              "which times a config above twice its workload's best once)" % (self.a.model, self.a.repeats))
        print("%-8s %12s %12s %8s" % ("threads", "profile", "tune", "ratio"))
        summary = {}
        for threads in (1, 2):
            p = statistics.median(results[("profile", threads)])
            t = statistics.median(results[("tune", threads)])
            print("%-8d %12.2f %12.2f %7.2fx" % (threads, p, t, t / p))
            summary[threads] = {"profile": p, "tune": t, "ratio": t / p, "runs": {
                "profile": results[("profile", threads)], "tune": results[("tune", threads)]}}
        return summary

    # --- tuned vs oneDNN ----------------------------------------------------------------------
    def versus_onednn(self):
        """kernels_bench, run --kernels-runs times, each a process of its own; per conv, the median of the runs'
        side-by-side ratios. (On a 2-core VM the same Halide kernel has run 0.51 ms in one run and 0.64 ms in
        a run minutes later, oneDNN's moving 2.5%: the medians smooth single runs, not such phases.)"""
        bench = os.path.join(self.a.build, "bench", "kernels", "kernels_bench")
        args = [bench, "--threads", str(self.a.threads), "--ops", "conv2d", "--no-autoschedule", "--random", "0",
                "--json"]
        if self.a.kernels_db:
            args += ["--db", self.a.kernels_db]
        runs = []
        for _ in range(self.a.kernels_runs):
            out, _ = run(args)
            runs.append(json.loads(out))
        device = runs[0]["device"]
        print("\n== tuned Halide vs oneDNN per conv, %s, measured side by side (kernels_bench; medians of %d "
              "processes)" % (device, len(runs)))
        print("%-34s %10s %10s %12s %14s %s" % ("conv", "oneDNN ms", "tuned ms", "Halide/oneDNN", "best of all",
                                               "per process"))
        ratios, best_all = [], []
        for i, row in enumerate(runs[0]["workloads"]):
            rows = [r["workloads"][i] for r in runs]
            if any("ms" not in x.get("onednn", {}) or "ms" not in x.get("best_known", {}) for x in rows):
                continue
            k = row["workload"].split("|")[1]
            kernel = k.split(";")[1].split(",")[2]  # KH of the weight shape
            per = [x["onednn"]["ms"] / x["best_known"]["ms"] for x in rows]
            r = statistics.median(per)
            mark = ""
            if kernel in ("3", "1"):
                ratios.append(r)
                best_all.append(max(1.0, r))
            else:
                mark = " (not 3x3/1x1)"
            print("%-34s %10.3f %10.3f %11.2fx %13.2fx %s%s" % (
                row["name"], statistics.median(x["onednn"]["ms"] for x in rows),
                statistics.median(x["best_known"]["ms"] for x in rows), r, max(1.0, r),
                " ".join("%.2f" % p for p in per), mark))
        g, gb = geomean(ratios), geomean(best_all)
        print("geomean over the 3x3 and 1x1 convs: Halide alone %.2fx oneDNN (target >= 0.95), best of all %.2fx" % (g, gb))
        return {"device": device, "halide_vs_onednn": g, "best_of_all_vs_onednn": gb, "processes": len(runs)}


def short(key):
    parts = key.split("|")
    x, w = parts[1].split(";")[:2]
    x = x[x.index("[") + 1:-1].split(",")
    w = w[w.index("[") + 1:-1].split(",")
    stride = parts[2].split("strides=[")[1].split(",")[0]
    return "%sx%sx%s->%s k%s s%s %s" % (x[1], x[2], x[3], w[0], w[2], stride, parts[3] or "-")


def ms(s):
    return "-" if s == math.inf else "%.3f" % (s * 1e3)


def running_min(traj):
    out, best = [], math.inf
    for c in traj:
        best = min(best, c)
        out.append(best)
    return out


def geomean(v):
    v = [x for x in v if x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory")
    ap.add_argument("--out", default=None, help="results directory (default BUILD/bench-results/tune)")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--workloads", type=int, default=4, help="conv workloads of the model for the curves")
    ap.add_argument("--trials", type=int, default=100, help="trials per tuning run")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--tuners", default="xgb,ga,random,grid")
    ap.add_argument("--threads", type=int, default=2, help="timing threads of the device tuned for")
    ap.add_argument("--transfer-threads", type=int, default=1, help="the other device transfer learns from")
    ap.add_argument("--no-transfer", dest="transfer", action="store_false")
    ap.add_argument("--screen-tuners", default="random,xgb",
                    help="tuners also run screened by a cost model trained on data/measurements' other devices "
                         "(comma-separated; empty: none)")
    ap.add_argument("--screen", type=int, default=4, help="screened runs: proposals asked per measurement")
    ap.add_argument("--screen-samples", type=int, default=8000,
                    help="records (an even subsample) the screening model is trained on")
    ap.add_argument("--configs-per-task", type=int, default=8, help="throughput runs: configs per workload")
    ap.add_argument("--repeats", type=int, default=2, help="throughput runs per thread count")
    ap.add_argument("--kernels-db", default="", help="database for the oneDNN comparison (default: data/best_known)")
    ap.add_argument("--kernels-runs", type=int, default=3, help="oneDNN comparison: kernels_bench processes (medians)")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: curves, throughput, onednn")
    a = ap.parse_args()
    a.out = a.out or os.path.join(a.build, "bench-results", "tune")
    b = Bench(a)
    skip = set(filter(None, a.skip.split(",")))
    summary = {}
    if "curves" not in skip:
        summary["curves"] = b.report_curves(*b.curves())
    if "throughput" not in skip:
        summary["throughput"] = b.throughput()
    if "onednn" not in skip:
        summary["onednn"] = b.versus_onednn()
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
