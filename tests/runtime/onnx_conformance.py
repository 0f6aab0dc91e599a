#!/usr/bin/python3
"""ONNX backend conformance: every test of the ONNX test data through `tensorperf run`.

    /usr/bin/python3 tests/runtime/onnx_conformance.py --tensorperf build/tensorperf
        [--data /usr/share/libonnx-testdata/data] [--suites node,pytorch-converted,pytorch-operator]
        [--filter SUBSTRING] [--timeout 120] [--list-unsupported]

Each test is a directory with model.onnx and test_data_set_*/{input,output}_*.pb (Debian package
libonnx-testdata). For each data set, the script runs
`tensorperf run --onnx model.onnx --input NAME=input_i.pb ... --output NAME=out_i.pb --repeat 1`
and compares every output with the expected one (|got - want| <= atol + rtol * |want|, rtol 1e-3,
atol 1e-5, the tolerances of ONNX's own backend tests up to float32 reassociation).

A test is
  passing      when every data set runs and matches,
  unsupported  when tensorperf refuses the model with exit code 3 (an operator, attribute, opset
               or dtype it does not support; the one-line reason is kept),
  failing      otherwise: a wrong output, a crash, a timeout or any other error.
Prints the three counts, the failing tests with their reasons, and the unsupported reasons grouped;
exits 1 when any test fails or none passes.
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

EXIT_UNSUPPORTED = 3


def run_test(tensorperf, test_dir, timeout):
    """Returns (status, reason): status in passing / unsupported / failing."""
    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path)
    except Exception as e:  # a model ONNX's own loader cannot read is not ours to judge
        return "unsupported", "onnx cannot load the model: %s" % e
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    outputs = [o.name for o in model.graph.output]
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not sets:
        return "failing", "no test_data_set_* directory"
    with tempfile.TemporaryDirectory(prefix="tp_onnx_") as tmp:
        for data_set in sets:
            in_files = sorted(glob.glob(os.path.join(data_set, "input_*.pb")), key=lambda p: int(p[p.rfind("_") + 1:-3]))
            out_files = sorted(glob.glob(os.path.join(data_set, "output_*.pb")),
                               key=lambda p: int(p[p.rfind("_") + 1:-3]))
            if len(in_files) != len(inputs) or len(out_files) != len(outputs):
                # Optional inputs left out of a data set: the model's input list says more than the data.
                if len(in_files) > len(inputs) or len(out_files) != len(outputs):
                    return "failing", "data set %s has %d inputs / %d outputs for a model of %d / %d" % (
                        os.path.basename(data_set), len(in_files), len(out_files), len(inputs), len(outputs))
            argv = [tensorperf, "run", "--onnx", model_path, "--repeat", "1", "--threads", "1", "--configs", "onednn",
                    "--json"]
            for name, f in zip(inputs, in_files):
                argv += ["--input", "%s=%s" % (name, f)]
            got_files = []
            for k, name in enumerate(outputs):
                got = os.path.join(tmp, "out_%d.pb" % k)
                got_files.append(got)
                argv += ["--output", "%s=%s" % (name, got)]
            try:
                p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return "failing", "timed out after %d s" % timeout
            reason = (p.stderr.strip().splitlines() or [""])[-1]
            if p.returncode == EXIT_UNSUPPORTED:
                return "unsupported", reason
            if p.returncode != 0:
                return "failing", "exit %d: %s" % (p.returncode, reason)
            for name, want_file, got_file in zip(outputs, out_files, got_files):
                want_t = onnx.TensorProto()
                with open(want_file, "rb") as f:
                    want_t.ParseFromString(f.read())
                want = numpy_helper.to_array(want_t)
                if not os.path.exists(got_file):
                    return "failing", "no output file for '%s'" % name
                got_t = onnx.TensorProto()
                with open(got_file, "rb") as f:
                    got_t.ParseFromString(f.read())
                got = numpy_helper.to_array(got_t)
                if got.dtype != want.dtype:
                    return "failing", "output '%s' is %s, expected %s" % (name, got.dtype, want.dtype)
                if got.shape != want.shape:
                    return "failing", "output '%s' has shape %s, expected %s" % (name, got.shape, want.shape)
                want64 = want.astype(np.float64)
                got64 = got.astype(np.float64)
                bad = ~(np.abs(got64 - want64) <= 1e-5 + 1e-3 * np.abs(want64))
                bad &= ~(np.isnan(got64) & np.isnan(want64))
                if bad.any():
                    i = np.flatnonzero(bad)[0]
                    return "failing", "output '%s' differs at %d of %d elements (first: got %g, expected %g)" % (
                        name, bad.sum(), bad.size, got64.flat[i], want64.flat[i])
    return "passing", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tensorperf", required=True)
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--suites", default="node,pytorch-converted,pytorch-operator")
    ap.add_argument("--filter", default="")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--list-unsupported", action="store_true", help="print every unsupported test and its reason")
    args = ap.parse_args()
    tests = []
    for suite in args.suites.split(","):
        root = os.path.join(args.data, suite)
        if not os.path.isdir(root):
            print("onnx_conformance: no %s (install Debian's libonnx-testdata)" % root, file=sys.stderr)
            return 1
        tests += [(suite, d) for d in sorted(glob.glob(os.path.join(root, "*"))) if args.filter in d]
    counts = collections.Counter()
    failing = []
    unsupported = collections.Counter()
    for i, (suite, d) in enumerate(tests):
        status, reason = run_test(args.tensorperf, d, args.timeout)
        counts[status] += 1
        name = "%s/%s" % (suite, os.path.basename(d))
        if status == "failing":
            failing.append((name, reason))
            print("FAIL %s: %s" % (name, reason), flush=True)
        elif status == "unsupported":
            # Grouped without the file and node names: "(Abs, opset 13): operator Abs is not supported".
            unsupported[re.sub(r"node '[^']*' ", "", re.sub(r"^.*?model\.onnx: ", "", reason))] += 1
            if args.list_unsupported:
                print("unsupported %s: %s" % (name, reason), flush=True)
        if (i + 1) % 50 == 0:
            print("[%d/%d] %d passing, %d failing, %d unsupported" % (
                i + 1, len(tests), counts["passing"], counts["failing"], counts["unsupported"]), file=sys.stderr, flush=True)
    print("\nunsupported, by reason (most frequent first):")
    for reason, n in unsupported.most_common(25):
        print("  %4d  %s" % (n, reason))
    print("\nONNX backend conformance (%s): %d passing, %d failing, %d unsupported of %d tests" % (
        args.suites, counts["passing"], counts["failing"], counts["unsupported"], len(tests)))
    for name, reason in failing:
        print("  failing: %s: %s" % (name, reason))
    return 1 if failing or counts["passing"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
