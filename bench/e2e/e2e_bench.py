#!/usr/bin/python3
"""End-to-end benchmark: whole models in tensorperf's executor next to ONNX Runtime and PyTorch.

    /usr/bin/python3 bench/e2e/e2e_bench.py [--build build] [--models resnet18,...] [--batches 1,16]
        [--threads 2] [--rounds 5] [--seconds 1.0] [--db URL] [--out-dir DIR]

For each model and batch, the same ONNX file (torch.onnx export of torchvision's definition, seeded
weights; tests/runtime/torch_reference.py) runs in five peers, each a long-lived process that loads
the model once: tensorperf with configs from the database (tuned / closest device / faster default),
with oneDNN's defaults only and with Halide's defaults only (bench/e2e/e2e_runner); ONNX Runtime (npm
package onnxruntime-node, installed here into a cache directory with --ignore-scripts; all graph
optimisations, intra-op threads = --threads, sequential); PyTorch (Debian's python3-torch, the
torchvision model traced and frozen with TorchScript). Peers start one at a time (compiles never
overlap a timing); then --rounds rounds each ask every peer, in rotating order, for the median of
about --seconds of runs. Quoted: the median over rounds, ratios to ONNX Runtime, and tensorperf's
executor overhead (run time minus the sum of its steps' times). Without --db, the database is a
temporary store of data/best_known/*.jsonl. Writes e2e.csv, e2e.json and e2e.png to --out-dir.
"""
import argparse
import csv
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE_SIZES = {"inception_v3": 299}
# The Python that holds PyTorch and torchvision (for the ONNX exports): Debian's python3-torch by
# default; TENSORPERF_TORCH_PYTHON names another (a machine whose PyTorch lives in a virtual env).
TORCH_PYTHON = os.environ.get("TENSORPERF_TORCH_PYTHON", "/usr/bin/python3")
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tensorperf")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ensure_ort():
    d = os.path.join(CACHE, "ort")
    if not os.path.isdir(os.path.join(d, "node_modules", "onnxruntime-node")):
        os.makedirs(d, exist_ok=True)
        log("installing onnxruntime-node into " + d)
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "onnxruntime-node"],
                       cwd=d, check=True, stdout=subprocess.DEVNULL)
    return d


def ensure_onnx(model, batch):
    d = os.path.join(CACHE, "e2e-onnx", "b%d" % batch)
    path = os.path.join(d, model + ".onnx")
    if not os.path.exists(path):
        log("exporting %s at batch %d" % (model, batch))
        subprocess.run([TORCH_PYTHON, os.path.join(ROOT, "tests/runtime/torch_reference.py"), d, model,
                        str(IMAGE_SIZES.get(model, 224)), str(batch)], check=True, stdout=subprocess.DEVNULL)
    return path


def print_table(cols, lines):
    """Right-aligned columns under a header and a rule (the benchmarks' tables)."""
    widths = [max(len(c), *(len(l[i]) for l in lines)) if lines else len(c) for i, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    print("  ".join("-" * w for w in widths))
    for l in lines:
        print("  ".join(v.rjust(w) for v, w in zip(l, widths)))


def plot(title, panels, out_dir, stem):
    """Writes <stem>_plot.json and draws <stem>.png with the project's plotting helper."""
    spec = os.path.join(out_dir, stem + "_plot.json")
    with open(spec, "w") as f:
        json.dump({"title": title, "columns": 1, "panels": panels}, f)
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/plot.py"), spec, os.path.join(out_dir, stem + ".png")],
                   check=False)


def interleave(peers, rounds, seconds):
    """Each peer calibrated to about `seconds` of runs, then `rounds` rounds asking every peer in
    rotating order; returns {peer name: [its reply per round]}."""
    for p in peers:
        t = p.time(1)[0]
        p.n = max(1, min(200, int(seconds * 1e3 / max(t, 1e-3))))
    samples = {p.name: [] for p in peers}
    for r in range(rounds):
        for i in range(len(peers)):
            p = peers[(i + r) % len(peers)]
            samples[p.name].append(p.time(p.n))
    return samples


class Peer:
    def __init__(self, name, argv, env=None):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "ready":
            raise RuntimeError("%s did not start (%s)" % (name, " ".join(argv)))
        self.info = line[1:]
        self.n = 1

    def time(self, n):
        self.proc.stdin.write("%d\n" % n)
        self.proc.stdin.flush()
        fields = self.proc.stdout.readline().split()
        if not fields:
            raise RuntimeError(self.name + " stopped")
        return [float(f) for f in fields]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="resnet18,resnet50,inception_v3,squeezenet1_1,mobilenet_v2")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0, help="runs per peer per round: about this long")
    ap.add_argument("--db", default="")
    ap.add_argument("--configs", default="db,onednn,halide", help="tensorperf peers")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench/e2e/out"))
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    tp = os.path.join(a.build, "tensorperf")
    runner = os.path.join(a.build, "bench/e2e/e2e_runner")
    ort_dir = ensure_ort()
    db = a.db
    if not db:
        db = os.path.join(tempfile.mkdtemp(prefix="tp_e2e_"), "best_known.db")
        files = sorted(glob.glob(os.path.join(ROOT, "data/best_known/*.jsonl")))
        subprocess.run([tp, "db", "--db", db, "import"] + files, check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    results = []
    for batch in [int(b) for b in a.batches.split(",")]:
        for model in a.models.split(","):
            onnx = ensure_onnx(model, batch)
            peers = []
            try:
                for c in a.configs.split(","):
                    log("loading %s b%d in tensorperf (%s)" % (model, batch, c))
                    argv = [runner, onnx, str(batch), str(a.threads), c] + ([db] if c == "db" else [])
                    peers.append(Peer("tensorperf-" + c, argv, env))
                log("loading %s b%d in ONNX Runtime and PyTorch" % (model, batch))
                peers.append(Peer("onnxruntime", ["node", os.path.join(ROOT, "bench/e2e/ort_peer.js"), ort_dir, onnx,
                                                  str(batch), str(a.threads)], env))
                peers.append(Peer("pytorch", ["/usr/bin/python3", os.path.join(ROOT, "bench/e2e/torch_peer.py"), model,
                                              str(IMAGE_SIZES.get(model, 224)), str(batch), str(a.threads)], env))
                samples = interleave(peers, a.rounds, a.seconds)
                row = {"model": model, "batch": batch, "threads": a.threads}
                for p in peers:
                    row[p.name + "_ms"] = statistics.median(s[0] for s in samples[p.name])
                    if p.name.startswith("tensorperf"):
                        row[p.name + "_steps_ms"] = statistics.median(s[1] for s in samples[p.name])
                        row[p.name + "_peak_bytes"] = int(p.info[0])
                        row[p.name + "_naive_bytes"] = int(p.info[1])
                        row[p.name + "_coverage"] = json.loads(p.info[2])
                    if p.name == "onnxruntime":
                        row["onnxruntime_version"] = p.info[0]
                    if p.name == "pytorch":
                        row["pytorch_version"] = p.info[0]
                results.append(row)
                log(json.dumps({k: v for k, v in row.items() if k.endswith("_ms")}))
            finally:
                for p in peers:
                    p.close()
    # Table.
    cols = ["model", "batch"] + ["tp-" + c for c in a.configs.split(",")] + ["ORT", "PyTorch", "tp/ORT", "best tp/ORT",
                                                                            "overhead", "peak/naive mem", "db configs"]
    lines = []
    for row in results:
        tps = {c: row["tensorperf-%s_ms" % c] for c in a.configs.split(",")}
        main_c = a.configs.split(",")[0]
        ort = row["onnxruntime_ms"]
        over = (row["tensorperf-%s_ms" % main_c] - row["tensorperf-%s_steps_ms" % main_c]) / row["tensorperf-%s_ms" % main_c]
        cov = row["tensorperf-%s_coverage" % main_c]
        lines.append([row["model"], str(row["batch"])] + ["%.2f" % tps[c] for c in tps] +
                     ["%.2f" % ort, "%.2f" % row["pytorch_ms"], "%.2fx" % (tps[main_c] / ort),
                      "%.2fx" % (min(tps.values()) / ort), "%.1f%%" % (100 * over),
                      "%.0f%%" % (100 * row["tensorperf-%s_peak_bytes" % main_c] / row["tensorperf-%s_naive_bytes" % main_c]),
                      "%d tuned, %d closest, %d default" % (cov["tuned"], cov["closest"], cov["default"])])
    print_table(cols, lines)
    print("\nmedian ms of %d interleaved rounds, %d threads; tp/ORT < 1 means tensorperf is faster; ONNX Runtime %s, "
          "PyTorch %s" % (a.rounds, a.threads, results[0].get("onnxruntime_version", "?") if results else "?",
                          results[0].get("pytorch_version", "?") if results else "?"))
    with open(os.path.join(a.out_dir, "e2e.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(a.out_dir, "e2e.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(lines)
    panels = []
    for batch in sorted({r["batch"] for r in results}):
        rows = [r for r in results if r["batch"] == batch]
        series = [{"label": "tensorperf " + c, "y": [r["onnxruntime_ms"] / r["tensorperf-%s_ms" % c] for r in rows]}
                  for c in a.configs.split(",")]
        series.append({"label": "PyTorch", "y": [r["onnxruntime_ms"] / r["pytorch_ms"] for r in rows]})
        panels.append({"kind": "bars", "title": "batch %d, %d threads" % (batch, a.threads),
                       "ylabel": "speed vs ONNX Runtime (x)", "categories": [r["model"] for r in rows],
                       "series": series, "hline": 1.0})
    plot("Whole-model latency vs ONNX Runtime (higher is faster)", panels, a.out_dir, "e2e")


if __name__ == "__main__":
    main()
