#!/usr/bin/python3
"""Whole-model prediction against the real run (`make bench`, or run alone): for every zoo model at
batch 1 and 8 on this machine, `tensorperf predict --compare` predicts the latency of the configs the
executor would choose (the database's best known ones, else defaults) with a cost model trained on
the measurement dataset, then runs the model (`tensorperf run`, median of --repeat runs) and
reports the error. Also beside it: the sum of the run's own per-kernel times and its layout copies
(predicted from the device's bandwidth, runtime/layout_copies.h) against the run's, which show how
much of the error is the per-op predictions and how much is what else a graph spends (the executor
between steps); and the reads from memory the prediction counts (weights, and activations written
long before: costmodel/weight_stream.h, costmodel/input_reuse.h).

The run is the noisy side: on shared cores a model can run 20-30% slower for minutes and then
return to its speed. So after the first pass (predict --compare) every model is run again in
--passes - 1 further passes over all models (`tensorperf run`, --repeat runs each), and its latency is
the median of the passes' medians; the error is taken against that. Each pass's median is kept.

The cost model is trained once (`tensorperf eval --split random --save`) on the dataset database
and kept under --out; each model's result is kept in --out/predict_e2e.json, so an interrupted run
continues. Prints a table; writes predict_e2e.png (predicted vs measured).

Calibrated beside it (--no-calibrate: not): each network is also predicted with a graph calibration
(`tensorperf calibrate`, costmodel/graph_calibration.h) fitted on the comparisons of the *other*
networks (both batches of the held-out network left out), as a user would calibrate a device with a
few models and predict the rest. With it, the later passes run `predict --compare` too (the same
run, with per-operator times), so the calibrations learn from every pass, not from one that may
have caught the host in a fast or slow phase. The comparisons are kept under --out/compare/.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench/e2e"))
import e2e_bench  # noqa: E402  (print_table, plot)

MODELS = ["resnet18", "resnet50", "vgg16", "inception_v3", "squeezenet1_1", "mobilenet_v2", "nasnet_a_mobile",
          "randwire", "bert_base"]


def log(msg):
    print("predict_e2e: " + msg, file=sys.stderr, flush=True)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("predict_e2e: %s failed (exit %d): %s" % (" ".join(cmd[:4]), p.returncode, p.stderr.strip()[-2000:]))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/costmodel/out"))
    ap.add_argument("--db", default=os.path.join(ROOT, "build/dataset/dataset.db"),
                    help="the dataset database (made from data/measurements/ when missing)")
    ap.add_argument("--cost-model", default="xgb")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--repeat", type=int, default=20, help="whole runs timed per model")
    ap.add_argument("--threads", type=int, default=0, help="threads per kernel (default: every CPU)")
    ap.add_argument("--passes", type=int, default=3,
                    help="passes over all models, each running every model again; the run's latency is the median "
                    "of the passes' medians")
    ap.add_argument("--calibrate", action=argparse.BooleanOptionalAction, default=True,
                    help="also predict each network with a graph calibration fitted on the other networks' runs")
    ap.add_argument("--from-json", action="store_true", help="only print what --out/predict_e2e.json holds")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    tp = os.path.join(a.build, "tensorperf")
    results_path = os.path.join(a.out, "predict_e2e.json")
    results = json.load(open(results_path)) if os.path.exists(results_path) else {}
    if a.from_json:
        return report(a, results)

    if not os.path.exists(a.db):
        log("importing data/measurements into %s" % a.db)
        os.makedirs(os.path.dirname(a.db), exist_ok=True)
        run([tp, "db", "init", "--db", a.db])
        files = sorted(os.path.join(ROOT, "data/measurements", f) for f in os.listdir(os.path.join(ROOT, "data/measurements"))
                       if f.endswith(".jsonl.zst"))
        run([tp, "db", "import", "--db", a.db] + files)
    model_file = os.path.join(a.out, "%s.tpcm" % a.cost_model)
    if not os.path.exists(model_file):
        log("training %s on %s (every record; a random split's errors printed for reference)" % (a.cost_model, a.db))
        t = time.time()
        out = run([tp, "eval", "--db", a.db, "--devices", os.path.join(ROOT, "data/measurements"), "--cost-model",
                   a.cost_model, "--split", "random", "--threads", str(max(1, a.threads or os.cpu_count())),
                   "--save", model_file + ".tmp", "--json"])
        os.replace(model_file + ".tmp", model_file)
        split = json.loads(out)["splits"][0]
        log("trained in %.0f s; random split MAPE %.1f%%" % (time.time() - t, 100 * split["mape"]))

    threads = ["--threads", str(a.threads)] if a.threads else []
    for batch in [int(b) for b in a.batches.split(",")]:
        for m in a.models.split(","):
            key = "%s b%d" % (m, batch)
            if key in results:
                continue
            log("%s: predict and run (%d runs)" % (key, a.repeat))
            t = time.time()
            out = run([tp, "predict", "--model", m, "--batch", str(batch), "--cost-model", model_file, "--db", a.db,
                       "--compare", "--repeat", str(a.repeat), "--json"] + threads)
            r = json.loads(out)
            os.makedirs(os.path.join(a.out, "compare"), exist_ok=True)
            with open(compare_path(a, m, batch), "w") as f:
                f.write(out)
            results[key] = {k: r[k] for k in ("model", "batch", "device", "predicted_ms", "predicted_alone_ms",
                                               "measured_ms", "measured_kernels_ms", "error", "clock_scale")}
            for k in ("predicted_copies_ms", "measured_copies_ms", "predicted_weights_ms", "predicted_cold_inputs_ms"):
                results[key][k] = r.get(k, 0.0)
            results[key]["sources"] = {}
            results[key]["chained_ops"] = 0.0  # operator instances predicted as chained (layout_chains.h)
            # ms summed over the ops with a chained share and over the others: predicted alone,
            # predicted (chains blended in), measured in the run.
            parts = {"chained": [0.0, 0.0, 0.0], "other": [0.0, 0.0, 0.0]}
            for op in r["ops"]:
                results[key]["sources"][op["source"]] = results[key]["sources"].get(op["source"], 0) + 1
                results[key]["chained_ops"] += op.get("chained_share", 0) * op["count"]
                part = parts["chained" if op.get("chained_share", 0) > 0 else "other"]
                for i, k in enumerate(("predicted_alone_ms", "predicted_ms", "measured_ms")):
                    part[i] += op.get(k, 0) * op["count"]
            results[key]["parts"] = parts
            save(results, results_path)
            log("%s: predicted %.2f ms, ran %.2f ms (%+.1f%%) in %.0f s" % (key, r["predicted_ms"], r["measured_ms"],
                                                                         100 * r["error"], time.time() - t))
    # Further passes: each model run again, one model after the other, so a slow phase of the machine
    # falls on one pass of several models rather than on every run of one.
    for p in range(2, a.passes + 1):
        for batch in [int(b) for b in a.batches.split(",")]:
            for m in a.models.split(","):
                key = "%s b%d" % (m, batch)
                r = results.get(key)
                if r is None:
                    continue
                r.setdefault("runs_ms", [r["first_run_ms"] if "first_run_ms" in r else r["measured_ms"]])
                if len(r["runs_ms"]) >= p:
                    continue
                if a.calibrate:
                    # The same run, with its per-operator times beside the predictions: a comparison
                    # the calibrations of the other networks learn from too.
                    text = run([tp, "predict", "--model", m, "--batch", str(batch), "--cost-model", model_file,
                                "--db", a.db, "--compare", "--repeat", str(a.repeat), "--json"] + threads)
                    with open(compare_path(a, m, batch, p), "w") as f:
                        f.write(text)
                    r["runs_ms"].append(json.loads(text)["measured_ms"])
                else:
                    out = json.loads(run([tp, "run", "--model", m, "--batch", str(batch), "--db", a.db, "--repeat",
                                          str(a.repeat), "--json"] + threads))
                    r["runs_ms"].append(out["latency_ms"]["p50"])
                r.setdefault("first_run_ms", r["runs_ms"][0])
                r["measured_ms"] = statistics.median(r["runs_ms"])
                r["error"] = (r["predicted_ms"] - r["measured_ms"]) / r["measured_ms"]
                save(results, results_path)
                log("pass %d: %s ran %.2f ms (passes so far: %s)" % (p, key, r["runs_ms"][-1],
                                                                     ", ".join("%.2f" % x for x in r["runs_ms"])))
    if a.calibrate:
        calibrate(a, tp, model_file, threads, results, results_path)
    report(a, results)


def save(results, results_path):
    """Writes the results whole or not at all (an interrupted run continues from them)."""
    with open(results_path + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(results_path + ".tmp", results_path)


def compare_path(a, model, batch, run_pass=1):
    name = "%s-b%d.json" % (model, batch) if run_pass == 1 else "%s-b%d-p%d.json" % (model, batch, run_pass)
    return os.path.join(a.out, "compare", name)


def calibrate(a, tp, model_file, threads, results, results_path):
    """Each network predicted with a calibration fitted on the other networks' runs, every pass's."""
    os.makedirs(os.path.join(a.out, "calib"), exist_ok=True)
    networks = sorted({r["model"] for r in results.values()})
    for net in networks:
        keys = [k for k, r in results.items() if r["model"] == net]
        compare_dir = os.path.join(a.out, "compare")
        others = sorted(os.path.join(compare_dir, f) for f in os.listdir(compare_dir)
                        if f.endswith(".json") and f.split("-b")[0] != net)
        # Fitted again when passes were added since (a run continued with a larger --passes).
        if all(results[k].get("calibrated_on") == len(others) for k in keys):
            continue
        if len(others) < 2:
            log("%s: fewer than two other networks' comparisons under %s/compare: not calibrated" % (net, a.out))
            continue
        cal_file = os.path.join(a.out, "calib", "%s.json" % net)
        run([tp, "calibrate", "-o", cal_file, "--json"] + others)
        for k in keys:
            r = results[k]
            out = json.loads(run([tp, "predict", "--model", net, "--batch", str(r["batch"]), "--cost-model", model_file,
                                  "--db", a.db, "--calibration", cal_file, "--json"] + threads))
            r["calibrated_ms"] = out["predicted_ms"]
            r["calibrated_on"] = len(others)
            log("%s: calibrated on %d other runs: predicted %.2f ms (uncalibrated %.2f), ran %.2f" %
                (k, len(others), r["calibrated_ms"], r["predicted_ms"], r["measured_ms"]))
        save(results, results_path)


def report(a, results):
    rows, errors = [], []
    for key, r in results.items():
        # The first pass's run, whose kernels and copies were timed: kernels against kernels, and what the
        # run spent besides its kernels and copies.
        first = r.get("first_run_ms", r["measured_ms"])
        pred_copies, run_copies = r.get("predicted_copies_ms", 0.0), r.get("measured_copies_ms", 0.0)
        kernels_err = (r["predicted_ms"] - pred_copies - r["measured_kernels_ms"]) / r["measured_kernels_ms"]
        graph_gap = (first - r["measured_kernels_ms"] - run_copies) / first
        errors.append(abs(r["error"]))
        rows.append([key, "%.2f" % r["predicted_ms"], "%.2f" % r["measured_ms"],
                     "/".join("%.1f" % x for x in r.get("runs_ms", [r["measured_ms"]])), "%+.1f%%" % (100 * r["error"]),
                     "yes" if abs(r["error"]) <= 0.10 else "no", "%.2f" % r["measured_kernels_ms"],
                     "%+.1f%%" % (100 * kernels_err), "%.2f / %.2f" % (pred_copies, run_copies),
                     "%.2f / %.2f" % (r["predicted_weights_ms"], r["predicted_cold_inputs_ms"])
                     if "predicted_cold_inputs_ms" in r else "-",
                     "%+.1f%%" % (100 * graph_gap),
                     "%.0f" % r["chained_ops"] if "chained_ops" in r else "-",
                     "%+.1f%%" % (100 * (r["predicted_alone_ms"] - r["measured_ms"]) / r["measured_ms"])
                     if "predicted_alone_ms" in r else "-",
                     " ".join("%s %d" % kv for kv in sorted(r.get("sources", {}).items()))])
    if not rows:
        print("predict_e2e: no results yet")
        return
    device = next(iter(results.values()))["device"]
    scales = sorted({r.get("clock_scale", 1.0) for r in results.values()})
    print("Whole-model prediction vs `tensorperf run` on %s (cost model %s; run: median over the passes of each "
          "pass's median run; predictions "
          "scaled by the clock: %s)" % (device, a.cost_model, ", ".join("%.3f" % s for s in scales)))
    e2e_bench.print_table(["model", "predicted ms", "run ms", "passes ms", "error", "within 10%", "run's kernels ms",
                           "vs kernels", "copies ms (predicted / run)", "reads ms (weights / activations)",
                           "other overhead", "chained instances", "error without chains",
                           "configs (ops)"], rows)
    print("\nwithin 10%%: %d of %d; median |error| %.1f%%, worst %.1f%%" %
          (sum(e <= 0.10 for e in errors), len(errors), 100 * statistics.median(errors), 100 * max(errors)))
    parted = [r for r in results.values() if "parts" in r]
    if parted:
        print("\nThe operators with a chained share and the others, ms summed over the models' instances:")
        rows = []
        for key, r in results.items():
            if "parts" not in r:
                continue
            c, o = r["parts"]["chained"], r["parts"]["other"]
            err = lambda p, m: "%+.1f%%" % (100 * (p - m) / m) if m > 0 else "-"
            rows.append([key, "%.2f" % c[2], err(c[0], c[2]), err(c[1], c[2]), "%.2f" % o[2], err(o[1], o[2])])
        e2e_bench.print_table(["model", "chained ops: run ms", "predicted alone", "predicted with chains",
                               "other ops: run ms", "predicted"], rows)
        tot = [sum(r["parts"][k][i] for r in parted) for k in ("chained", "other") for i in range(3)]
        print("all models: chained ops %.1f ms run, predicted alone %+.1f%%, with chains %+.1f%%; other ops %+.1f%%" %
              (tot[2], 100 * (tot[0] - tot[2]) / tot[2], 100 * (tot[1] - tot[2]) / tot[2], 100 * (tot[4] - tot[5]) / tot[5]))
    cal = [(key, r) for key, r in results.items() if "calibrated_ms" in r]
    if cal:
        print("\nCalibrated on the other networks' runs (tensorperf calibrate; the held-out network's two batches "
              "left out):")
        rows, cal_errors = [], []
        for key, r in cal:
            e = (r["calibrated_ms"] - r["measured_ms"]) / r["measured_ms"]
            cal_errors.append(abs(e))
            rows.append([key, "%.2f" % r["measured_ms"], "%.2f" % r["predicted_ms"], "%+.1f%%" % (100 * r["error"]),
                         "%.2f" % r["calibrated_ms"], "%+.1f%%" % (100 * e), "yes" if abs(e) <= 0.10 else "no"])
        e2e_bench.print_table(["model", "run ms", "predicted ms", "error", "calibrated ms", "error calibrated",
                               "within 10%"], rows)
        print("calibrated: within 10%%: %d of %d; median |error| %.1f%%, worst %.1f%%" %
              (sum(e <= 0.10 for e in cal_errors), len(cal_errors), 100 * statistics.median(cal_errors),
               100 * max(cal_errors)))
    alone = [abs(r["predicted_alone_ms"] - r["measured_ms"]) / r["measured_ms"] for r in results.values()
             if "predicted_alone_ms" in r]
    if alone:
        print("every kernel predicted as run alone (no chains): within 10%%: %d of %d; median |error| %.1f%%" %
              (sum(e <= 0.10 for e in alone), len(alone), 100 * statistics.median(alone)))
    series = {}
    for key, r in results.items():
        s = series.setdefault("batch %d" % r["batch"], {"label": "batch %d" % r["batch"], "x": [], "y": []})
        s["x"].append(r["measured_ms"])
        s["y"].append(r["predicted_ms"])
        if "calibrated_ms" in r:
            label = "batch %d, calibrated" % r["batch"]
            s = series.setdefault(label, {"label": label, "x": [], "y": []})
            s["x"].append(r["measured_ms"])
            s["y"].append(r["calibrated_ms"])
    e2e_bench.plot("Whole-model latency, predicted vs run",
                   [{"kind": "scatter", "title": "%s, cost model %s" % (device, a.cost_model), "xlabel": "run (ms)", "ylabel": "predicted (ms)", "logx": True,
                     "logy": True, "diagonal": True, "series": list(series.values())}], a.out, "predict_e2e")


if __name__ == "__main__":
    main()
