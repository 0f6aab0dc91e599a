#!/usr/bin/python3
"""Runs the smallest variant of every torchvision 0.14 image-classification family through
`tensorperf run` and compares its output with PyTorch's for the same input.

    /usr/bin/python3 scripts/check_torchvision.py [--build build] [--configs onednn] [MODEL ...]

Each model is exported by tests/runtime/torch_reference.py (torch.onnx, opset 13, seeded weights,
randomised batch-norm statistics) into a cache directory; the table gives, per model, "ok" with the
relative error (max |difference| / max |PyTorch|, must be <= 1e-3), "wrong" with it, or the one-line
error tensorperf printed. Exit status 0 only when every model is ok.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s", "googlenet",
          "inception_v3", "mnasnet0_5", "mobilenet_v2", "mobilenet_v3_small", "regnet_x_400mf", "resnet18",
          "resnext50_32x4d", "shufflenet_v2_x0_5", "squeezenet1_0", "swin_t", "vgg11", "vit_b_16",
          "wide_resnet50_2"]
SIZES = {"inception_v3": 299}
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tensorperf", "torchvision")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--configs", default="onednn")
    ap.add_argument("models", nargs="*", default=MODELS)
    a = ap.parse_args()
    rows, failures = [], 0
    for i, m in enumerate(a.models):
        print("[%d/%d] %s" % (i + 1, len(a.models), m), file=sys.stderr, flush=True)
        onnx = os.path.join(CACHE, m + ".onnx")
        if not os.path.exists(onnx):
            e = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests/runtime/torch_reference.py"), CACHE, m,
                                str(SIZES.get(m, 224))], capture_output=True, text=True)
            if e.returncode != 0:
                rows.append((m, "export failed", e.stderr.strip().splitlines()[-1] if e.stderr.strip() else ""))
                failures += 1
                continue
        out = os.path.join(CACHE, m + ".tensorperf.npy")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([os.path.join(a.build, "tensorperf"), "run", "--onnx", onnx, "--configs", a.configs,
                            "--repeat", "1", "--threads", "2", "--input", os.path.join(CACHE, m + ".input.npy"),
                            "--output", out], capture_output=True, text=True)
        if r.returncode != 0:
            rows.append((m, "error", r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode))
            failures += 1
            continue
        got, want = np.load(out), np.load(os.path.join(CACHE, m + ".output.npy"))
        err = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)) if got.shape == want.shape else float("inf")
        ok = err <= 1e-3
        failures += 0 if ok else 1
        rows.append((m, "ok" if ok else "wrong", "relative error %.2e" % err))
    w = max(len(r[0]) for r in rows)
    for m, status, detail in rows:
        print("%-*s  %-13s  %s" % (w, m, status, detail))
    print("\n%d of %d models run with PyTorch's output" % (len(rows) - failures, len(rows)))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
