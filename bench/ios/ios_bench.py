#!/usr/bin/python3
"""Inter-operator scheduling benchmark: IOS's strategies against the sequential schedule and ONNX Runtime.

    /usr/bin/python3 bench/ios/ios_bench.py [--build build] [--models inception_v3,randwire,nasnet_a_mobile,squeezenet1_1]
        [--batches 1,16] [--threads 2] [--r 3] [--s 8] [--min-gain 0.02] [--search-budget 120] [--rounds 7] [--seconds 1.0] [--db FILE] [--out-dir DIR]
        [--ort node|python] [--no-ort] [--stage-timing cold|cold-first-run|warm] [--warm-stages]
        [--against DIR] [--stage-profile RUNS] [--ceiling-passes 3] [--process-rounds 5] [--profile-runs RUNS]

For each network and batch, bench/ios/ios_runner searches sequential, greedy, IOS-merge, IOS-parallel
and IOS-both schedules with measured stage costs (cached in --db: a second run of the benchmark
measures nothing; stages are timed cold, their data evicted from the caches before each timing, unless
--stage-timing says otherwise), IOS-both with predicted (composed) costs, with --profile-runs IOS-both again with
its measured costs corrected by profiles of IOS-both's and the sequential schedule in the model
(`ios-both-profiled`), and `chosen`: what `tensorperf schedule --strategy both` writes, the judge's
pick on the whole model of those and the sequential schedule (the `chosen x` column names it, and a pick
that the judge's confirmation rounds overturned, with its ratio and rounds won there); it times every schedule in --rounds
interleaved rounds (medians); the schedules go to --schedules. --against DIR times another run's IOS-both
and chosen schedules (its --schedules) in the same rounds: two rules compared side by side. The specialisation check of the IOS paper runs each batch's IOS-both schedule at the
other batch, next to that batch's own. ONNX Runtime (npm onnxruntime-node, installed into a cache
directory with --ignore-scripts; with --ort python, Python's onnxruntime package, for machines that
cannot reach npm's registry) runs the torchvision definitions of the networks that torchvision has
(inception_v3, squeezenet1_1) from the same ONNX export the end-to-end benchmark uses (made under
TENSORPERF_TORCH_PYTHON, default /usr/bin/python3), with its sequential executor (intra-op threads =
--threads) and its parallel executor (inter-op threads 2, intra-op --threads / 2), interleaved the
same way. The concurrency ceiling: every operator timed in whole runs of the sequential schedule
(`tensorperf run --json`) at --threads and at one thread (--ceiling-passes processes of each,
alternating; each operator's fastest), and the sequential time over the least time the same
operators could take if each ran either on all the threads or on one thread beside others with no
cost to share the machine: sum t(T) / sum min(t(T), t(1) / T). No schedule of concurrent groups of
one thread beats it unless running together makes operators faster (merging is not counted).
The same schedules are also timed one per process (--process-rounds rounds; in each, one `tensorperf
run [--schedule FILE]` process per distinct schedule, in rotating order, its p50 over --repeat runs),
as a user runs a schedule: `x (proc)` columns. In one process the schedules' executors share the
process's state, and a process runs a model at one of two speeds (docs/graphsched.md, 2026-11-28).
Speedups are medians over rounds of each round's ratio to the sequential schedule's time
in the same round (these machines drift by up to 2x within minutes: a ratio within a round is what
stays comparable). A schedule that runs just what an earlier column's runs (no stage overlapped or
merged where that one had none, the operators in the same order) shares its timings and says so
("= sequential"): timing one schedule twice measures only the machine's noise. Writes ios.json (after each network and batch) and ios.png (speedup over sequential) to
--out-dir and prints the table; --from-json re-prints a saved run.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench/e2e"))
import e2e_bench  # noqa: E402  (ensure_ort, ensure_onnx, Peer, interleave, print_table, plot)

TORCHVISION = {"inception_v3", "squeezenet1_1"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def runner(a, model, batch, extra=(), time_only=False):
    argv = [os.path.join(a.build, "bench/ios/ios_runner"), "--model", model, "--batch", str(batch), "--threads",
            str(a.threads), "--db", a.db, "--r", str(a.r), "--s", str(a.s), "--min-gain", str(a.min_gain),
            "--search-budget", str(a.search_budget), "--rounds", str(a.rounds), "--seconds",
            str(a.seconds), "--save-dir", a.schedules]
    for e in extra:
        argv += ["--extra", e]
    if time_only:
        argv.append("--time-only")
    argv += ["--stage-timing", "warm" if a.warm_stages else a.stage_timing]
    if a.stage_profile and not time_only:
        argv += ["--stage-profile", str(a.stage_profile)]
    if not time_only:
        argv += ["--profile-runs", str(a.profile_runs)]
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


AGAINST = ["ios-both", "chosen"]


def against_path(a, model, batch, name):
    """--against's schedule file of this network, batch and variant ('ios-both', 'chosen')."""
    return os.path.join(a.against, "%s_b%d_%s.json" % (model, batch, name))


def against_extras(a, model, batch):
    """--against's schedules of this network and batch, as ios_runner --extra NAME=FILE ('against-ios-both')."""
    if not a.against:
        return []
    extras = []
    for name in AGAINST:
        path = against_path(a, model, batch, name)
        if os.path.exists(path):
            extras.append("against-%s=%s" % (name, path))
        else:
            log("--against: no %s" % path)
    return extras


def tensorperf_run(a, model, batch, threads, repeat, schedule=None):
    """`tensorperf run --json` of the model with ios_runner's configs (oneDNN's defaults), in a process
    of its own; with `schedule`, that stage schedule. Where the build holds no `tensorperf` (only
    ios_runner travelled, packed), `ios_runner --run`, which runs and reports the same way."""
    tensorperf = os.path.join(a.build, "tensorperf")
    if os.path.exists(tensorperf):
        argv = [tensorperf, "run", "--model", model, "--batch", str(batch), "--configs", "onednn", "--threads",
                str(threads), "--repeat", repeat, "--json"]
    else:
        argv = [os.path.join(a.build, "bench/ios/ios_runner"), "--run", "--model", model, "--batch", str(batch),
                "--threads", str(threads), "--repeat", repeat, "--db", a.db]
    argv += ["--schedule", schedule] if schedule else []
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True).stdout
    return json.loads(out)


def ceiling(a, model, batch):
    """The concurrency ceiling (see the module's doc): per-operator times at --threads and at one
    thread, in whole runs of the same configs as ios_runner's (oneDNN's defaults)."""
    times = {1: {}, a.threads: {}}
    repeat = "10" if batch == 1 else "3"
    for _ in range(a.ceiling_passes):
        for t in sorted(times, reverse=True):
            for i, op in enumerate(tensorperf_run(a, model, batch, t, repeat)["ops"]):
                key = (i, op["name"])
                times[t][key] = min(op["ms"], times[t].get(key, math.inf))
    par, one = times[a.threads], times[1]
    if set(par) != set(one):
        raise SystemExit("ios_bench: the runs at %d and 1 threads listed different operators" % a.threads)
    least = sum(min(par[k], one[k] / a.threads) for k in par)
    return {"ceiling": sum(par.values()) / least, "sum_ms": sum(par.values()), "sum_1thread_ms": sum(one.values()),
            "passes": a.ceiling_passes}


def process_times(a, model, batch, row):
    """Each distinct schedule of `row` in its own `tensorperf run` process, --process-rounds rounds of
    rotating order: {variant: [p50 ms per round]} (variants that share another's schedule left out)."""
    plans = [("sequential", None)]
    for v in row["variants"]:
        name = v["name"]
        if name in ("sequential", "chosen") or "@" in name or v.get("same_as"):
            continue
        if name.startswith("against-"):  # --against's schedule, from its directory
            plans.append((name, against_path(a, model, batch, name[len("against-"):])))
        else:
            plans.append((name, os.path.join(a.schedules, "%s_b%d_%s.json" % (model, batch, name))))
    times = {name: [] for name, _ in plans}
    repeat = "20" if batch == 1 else "4"
    for r in range(a.process_rounds):
        for k in range(len(plans)):
            name, path = plans[(k + r) % len(plans)]
            times[name].append(tensorperf_run(a, model, batch, a.threads, repeat, path)["latency_ms"]["p50"])
    return times


def process_speedup(row, name):
    """Median over process rounds of sequential / `name` (or the variant whose schedule it shares)."""
    p = row.get("processes")
    if not p:
        return None
    v = {x["name"]: x for x in row["variants"]}
    while name in v and (v[name].get("same_as") or v[name].get("chosen_from")) and name not in p:
        name = v[name].get("same_as") or v[name]["chosen_from"]
    if name not in p:
        return None
    return statistics.median(s / x for s, x in zip(p["sequential"], p[name]))


def ort_times(a, model, batch):
    onnx = e2e_bench.ensure_onnx(model, batch)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    if a.ort == "python":  # Python's onnxruntime package: where npm's registry cannot be reached
        base = [sys.executable, os.path.join(ROOT, "bench/e2e/ort_peer.py"), onnx, str(batch)]
    else:
        base = ["node", os.path.join(ROOT, "bench/e2e/ort_peer.js"), e2e_bench.ensure_ort(), onnx, str(batch)]
    peers = [e2e_bench.Peer("ort-sequential", base + [str(a.threads)], env),
             e2e_bench.Peer("ort-parallel", base + [str(max(1, a.threads // 2)), "2"], env)]
    try:
        samples = e2e_bench.interleave(peers, a.rounds, a.seconds)
        return {name: statistics.median(v[0] for v in replies) for name, replies in samples.items()}, peers[0].info[0]
    finally:
        for p in peers:
            p.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="inception_v3,randwire,nasnet_a_mobile,squeezenet1_1")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--r", type=int, default=3)
    ap.add_argument("--s", type=int, default=8)
    ap.add_argument("--min-gain", type=float, default=0.02,
                    help="a concurrent or merged stage must gain this fraction of its cost (as `schedule --min-gain`)")
    ap.add_argument("--search-budget", type=float, default=120,
                    help="seconds each search may take (as `schedule --search-budget`; 0: no limit)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--db", default=os.path.join(ROOT, "build/ios_stages.db"))
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench/ios/out"))
    ap.add_argument("--schedules", default=os.path.join(ROOT, "build/ios_schedules"),
                    help="where the searched schedules are written (one JSON per network, batch and strategy)")
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--warm-stages", action="store_true",
                    help="the same as --stage-timing warm")
    ap.add_argument("--stage-timing", choices=["cold", "cold-first-run", "warm"], default="cold-first-run",
                    help="what the caches hold when a measured stage runs (`schedule --stage-timing`): cold-first-run, "
                         "its data evicted before each timing, as in a whole run (only the first of the runs a short "
                         "stage's timing averages is cold); cold, before every one of those runs; warm")
    ap.add_argument("--against", default="", metavar="DIR",
                    help="another run's --schedules: its IOS-both and chosen schedules of each network and batch are "
                         "timed in the same rounds as this run's ('against' columns), e.g. a run with another "
                         "--stage-timing")
    ap.add_argument("--stage-profile", type=int, default=0, metavar="RUNS",
                    help="also time each schedule's stages in RUNS runs of the model and print their sum next to "
                         "what the same stages cost alone (the search's costs), and by operator kind for the "
                         "sequential and IOS-both schedules' one-group stages")
    ap.add_argument("--profile-runs", type=int, default=0, metavar="RUNS",
                    help="runs of IOS-both's and the sequential schedule with their stages timed in the model, whose "
                         "ratios to the stages alone correct the costs of a second search, ios-both-profiled (as "
                         "`schedule --profile-runs`; 0: not searched)")
    ap.add_argument("--ceiling-passes", type=int, default=3, metavar="N",
                    help="processes per thread count that time each operator for the concurrency ceiling (0: none)")
    ap.add_argument("--process-rounds", type=int, default=5, metavar="N",
                    help="rounds that time each distinct schedule in a process of its own (`tensorperf run`; 0: none)")
    ap.add_argument("--ort", choices=["node", "python"], default="node",
                    help="ONNX Runtime peer: npm's onnxruntime-node (default) or Python's onnxruntime package")
    ap.add_argument("--from-json", default="", help="print the table of a saved ios.json instead of measuring")
    a = ap.parse_args()
    if a.from_json:
        os.makedirs(a.out_dir, exist_ok=True)
        with open(a.from_json) as f:
            results = json.load(f)
        report(a, results, sorted({r["batch"] for r in results}))
        return
    os.makedirs(a.out_dir, exist_ok=True)
    os.makedirs(a.schedules, exist_ok=True)
    batches = [int(b) for b in a.batches.split(",")]
    results = []
    for model in a.models.split(","):
        runs = {}
        for batch in batches:
            log("== %s batch %d" % (model, batch))
            runs[batch] = runner(a, model, batch, against_extras(a, model, batch))
        # The specialisation check: each batch's IOS-both schedule at the other batches.
        if len(batches) > 1:
            for batch in batches:
                extra = ["ios-both@b%d=%s" % (o, os.path.join(a.schedules, "%s_b%d_ios-both.json" % (model, o)))
                         for o in batches if o != batch]
                log("== %s batch %d: other batches' schedules" % (model, batch))
                cross = runner(a, model, batch, extra, time_only=True)
                own = {v["name"]: v for v in cross["variants"]}
                for v in cross["variants"]:
                    if v["name"] != "sequential":
                        v["speedup"] = speedup(own, v["name"])  # vs the sequential of its own run
                        runs[batch]["variants"].append(v)
        for batch in batches:
            row = runs[batch]
            if a.process_rounds > 0:
                log("== %s batch %d: each schedule in a process of its own" % (model, batch))
                row["processes"] = process_times(a, model, batch, row)
            if a.ceiling_passes > 0:
                log("== %s batch %d: the concurrency ceiling (each operator at %d threads and at 1)" % (model, batch, a.threads))
                row["ceiling"] = ceiling(a, model, batch)
            if model in TORCHVISION and not a.no_ort:
                log("== %s batch %d: ONNX Runtime" % (model, batch))
                row["onnxruntime"], row["onnxruntime_version"] = ort_times(a, model, batch)
            results.append(row)
            with open(os.path.join(a.out_dir, "ios.json"), "w") as f:  # after each row: a cut-off run keeps them
                json.dump(results, f, indent=1)
    report(a, results, batches)


def groups_cell(v):
    """The most groups a stage of the search could hold; '(cut)' where the budget stopped it, with the
    blocks it left in their operators' own stages ('3/10 seq')."""
    cut = ""
    if v.get("budget_cut"):
        unsearched = v.get("blocks_unsearched", 0)
        cut = " (cut, %d/%d seq)" % (unsearched, v.get("blocks", 0)) if unsearched else " (cut)"
    return "%s%s" % (v.get("lanes", "-"), cut)


def chosen_cell(c):
    """The judge's pick; where its confirmation rounds overturned the first rounds' pick, that pick,
    its median ratio to sequential and the rounds it won there ('sequential; ios-both 1.01 2/5')."""
    picked = c.get("picked")
    if picked and picked != c["chosen_from"]:
        return "%s; %s %.2f %d/%d" % (c["chosen_from"], picked, c.get("confirm_relative", 0), c.get("confirm_wins", 0),
                                     c.get("confirm_rounds", 0))
    return c["chosen_from"]


def speedup(variants, name):
    """Median over rounds of sequential's time / the variant's time in the same round."""
    seq = variants["sequential"]["rounds_ms"]
    v = variants[name]["rounds_ms"]
    return statistics.median(s / x for s, x in zip(seq, v))


def report(a, results, batches):
    names = ["sequential", "greedy", "ios-merge", "ios-parallel", "ios-both", "ios-both-predicted",
             "ios-both-profiled", "chosen"]
    cols = ["network", "batch"] + names + ["both x", "profiled x", "chosen x", "both x (proc)", "chosen x (proc)", "ceiling", "search s", "measured", "groups", "pred search s", "pred/both",
                                           "other batch's both", "ORT seq", "ORT par"]
    against = any(x["name"].startswith("against-") for row in results for x in row["variants"])
    if against:
        cols += ["against: both x", "against: chosen x"]
    against_x = {n: [] for n in AGAINST}
    lines, speedups, chosen, ceilings, proc_both, proc_chosen, profiled_x = [], [], [], [], [], [], []
    for row in results:
        v = {x["name"]: x for x in row["variants"]}
        speedups.append(speedup(v, "ios-both"))
        if "chosen" in v:
            chosen.append(speedup(v, "chosen"))
        px = speedup(v, "ios-both-profiled") if "ios-both-profiled" in v else None
        if px:
            profiled_x.append(px)
        if "ceiling" in row:
            ceilings.append(row["ceiling"]["ceiling"])
        pb, pc = process_speedup(row, "ios-both"), process_speedup(row, "chosen")
        if pb:
            proc_both.append(pb)
        if pc:
            proc_chosen.append(pc)
        other = [x for x in row["variants"] if x["name"].startswith("ios-both@")]
        ort = row.get("onnxruntime", {})
        lines.append([row["model"], str(row["batch"])] +
                     [("%.2f" % v[n]["latency_ms"] + (" (= %s)" % v[n]["same_as"] if v[n].get("same_as") else ""))
                      if n in v else "-" for n in names] +
                     ["%.2fx" % speedups[-1],
                      "%.2fx (%s)" % (px, "%.2f" % v["ios-both-profiled"]["concurrent_factor"]
                                      if "concurrent_factor" in v["ios-both-profiled"] else "-") if px else "-",
                      "%.2fx (%s)" % (chosen[-1], chosen_cell(v["chosen"])) if "chosen" in v else "-",
                      "%.2fx" % pb if pb else "-", "%.2fx" % pc if pc else "-",
                      "%.2fx" % row["ceiling"]["ceiling"] if "ceiling" in row else "-",
                      "%.1f" % v["ios-both"]["search_s"], str(v["ios-both"]["stages_measured"]),
                      groups_cell(v["ios-both"]),
                      "%.2f" % v["ios-both-predicted"]["search_s"],
                      "%.3f" % (speedup(v, "ios-both") / speedup(v, "ios-both-predicted")),
                      ", ".join("%s %.2fx" % (x["name"].split("@")[1], x["speedup"] if "speedup" in x else
                                              1 / x["relative_to_sequential"]) for x in other) or "-",
                      "%.2f" % ort["ort-sequential"] if ort else "-", "%.2f" % ort["ort-parallel"] if ort else "-"])
        if against:
            for n in AGAINST:
                x = speedup(v, "against-" + n) if "against-" + n in v else None
                if x:
                    against_x[n].append(x)
                lines[-1].append("%.2fx" % x if x else "-")
    e2e_bench.print_table(cols, lines)

    def summary(xs):
        return "geomean %.3fx, min %.3fx" % (math.exp(sum(math.log(x) for x in xs) / len(xs)), min(xs))

    if speedups:
        print("\nIOS-both vs sequential: %s over %d network-batches; %d threads on %s; latencies are medians of %d "
              "interleaved rounds (ms), speedups ('both x') medians of per-round ratios; 'pred/both' is the "
              "predicted-cost schedule's time over the measured-cost one's; 'groups' the most groups a stage of "
              "IOS-both's search could hold (min(s, threads); fewer where --search-budget cut its deepening; 'k/n seq': "
              "blocks the budget left in their operators' own stages)" % (
                  summary(speedups), len(speedups), results[0]["threads"], results[0]["device"],
                  len(results[0]["variants"][0]["rounds_ms"])))
        if len(batches) > 1:
            print("per batch: " + "; ".join(
                "batch %d %s" % (b, summary([x for x, row in zip(speedups, results) if row["batch"] == b]))
                for b in batches if any(row["batch"] == b for row in results)))
    if profiled_x:
        print("IOS-both searched again with its stage costs corrected by a profile of it and of the sequential "
              "schedule in the model ('profiled x'; in parentheses the fitted factor of concurrent stages in the "
              "model over alone; '-': IOS-both had no concurrent stage) vs sequential: %s" % summary(profiled_x))
    if chosen:
        print("chosen (what `tensorperf schedule --strategy both` writes: the sequential schedule unless another "
              "candidate, IOS-both, greedy, IOS-merge, IOS-parallel, the predicted-cost or the profiled IOS-both, "
              "clearly beat it on the whole model (by 3%% in 4 of 5 rounds); its search time includes theirs and the "
              "judging) vs sequential: %s" % summary(chosen))
    if against:
        def over(xs):  # a network-batch whose file --against lacks is left out, and the count says so
            return "%s over %d of %d" % (summary(xs), len(xs), len(results)) if xs else "-"
        print("--against %s's schedules, timed in the same rounds, vs sequential: IOS-both %s; chosen %s" % (
            a.against or "the other run", over(against_x["ios-both"]), over(against_x["chosen"])))
    if proc_both:
        print("each schedule in a process of its own (`tensorperf run`, medians over %d rounds of per-round ratios to "
              "the sequential process): IOS-both %s; chosen %s" % (
                  len(results[0]["processes"]["sequential"]), summary(proc_both), summary(proc_chosen) if proc_chosen else "-"))
    if ceilings:
        print("ceiling (sequential time over the least its operators could take, each on all %d threads or on one "
              "beside others at no cost; per-operator times from `tensorperf run`, fastest of %d processes): %s" % (
                  results[0]["threads"], results[0]["ceiling"]["passes"], summary(ceilings)))
    profiled = [row for row in results if any("stage_profile" in x for x in row["variants"])]
    if profiled:
        kinds = ["sequential", "greedy", "ios-both", "ios-both-predicted", "ios-both-profiled", "chosen"]
        lines = []
        for row in profiled:
            v = {x["name"]: x for x in row["variants"]}
            cells = [row["model"], str(row["batch"])]
            for n in kinds:
                p = v.get(n, {}).get("stage_profile")
                alone = sum(x["alone_ms"] or 0 for x in p) if p else 0
                cells.append("%.2f / %.2f (%.2fx)" % (sum(x["model_ms"] for x in p), alone,
                                                      sum(x["model_ms"] for x in p) / alone) if p and alone else "-")
            lines.append(cells)
        print("\nStages in the model / the same stages alone (ms, sums over a schedule's stages; medians of %d runs):"
              % a.stage_profile if a.stage_profile else "\nStages in the model / alone (ms):")
        e2e_bench.print_table(["network", "batch"] + kinds, lines)
        # By operator kind: the stages of one group and one kind (most hold one operator).
        lines = []
        for row in profiled:
            v = {x["name"]: x for x in row["variants"]}
            for n in ["sequential", "ios-both"]:
                p = v.get(n, {}).get("stage_profile")
                by_kind = {}
                for x in p or []:
                    if x["groups"] == 1 and x.get("kinds") and len(set(x["kinds"])) == 1 and x["alone_ms"]:
                        # Layout copies the executor placed in the stage: in its time in the model only.
                        kind = x["kinds"][0] + (" + " + "+".join(sorted(set(x["placed"]))) if x.get("placed") else "")
                        k = by_kind.setdefault(kind, [0.0, 0.0, 0])
                        k[0] += x["model_ms"]
                        k[1] += x["alone_ms"]
                        k[2] += 1
                for kind, (model_ms, alone_ms, count) in sorted(by_kind.items(), key=lambda kv: -kv[1][0]):
                    lines.append([row["model"], str(row["batch"]), n, kind, str(count),
                                  "%.2f / %.2f (%.2fx)" % (model_ms, alone_ms, model_ms / alone_ms)])
        if lines:
            print("\nOne-group stages of one operator kind, in the model / alone (ms):")
            e2e_bench.print_table(["network", "batch", "schedule", "kind", "stages", "model / alone"], lines)
    panels = []
    for batch in batches:
        rows = [r for r in results if r["batch"] == batch]
        series = []
        for n in [n for n in names[1:] if all(n in {x["name"] for x in r["variants"]} for r in rows)]:
            series.append({"label": n, "y": [speedup({x["name"]: x for x in r["variants"]}, n) for r in rows]})
        if all("ceiling" in r for r in rows):
            series.append({"label": "ceiling", "y": [r["ceiling"]["ceiling"] for r in rows]})
        panels.append({"kind": "bars", "title": "batch %d, %d threads" % (batch, rows[0]["threads"]),
                       "ylabel": "speedup over sequential (x)", "categories": [r["model"] for r in rows],
                       "series": series, "hline": 1.0})
    e2e_bench.plot("Inter-operator scheduling on the CPU (higher is faster)", panels, a.out_dir, "ios")


if __name__ == "__main__":
    main()
