#!/usr/bin/python3
"""ONNX Runtime peer through Python's `onnxruntime` package, for machines where npm's registry (and so
onnxruntime-node) cannot be reached but the Python package is installed. Same protocol and session
options as ort_peer.js: loads one ONNX file (all graph optimisations on), prints "ready VERSION", then
for each line "N" on stdin runs it N times and prints the median run in ms.

    python3 ort_peer.py ONNX_FILE BATCH THREADS [INTER_OP_THREADS]

With INTER_OP_THREADS (> 1), ONNX Runtime's parallel executor runs independent nodes at once on that
many inter-op threads (THREADS intra-op each); without it, the sequential executor.
"""
import statistics
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: ort_peer.py ONNX_FILE BATCH THREADS [INTER_OP_THREADS]")
    path, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    inter = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = inter
    so.execution_mode = ort.ExecutionMode.ORT_PARALLEL if inter > 1 else ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    meta = session.get_inputs()[0]
    dims = [d if isinstance(d, int) else batch for d in meta.shape]
    dims[0] = batch
    x = (np.random.default_rng(0).random(dims, dtype=np.float32) * 2 - 1)
    feeds = {meta.name: x}
    session.run(None, feeds)  # warm-up
    print("ready", ort.__version__, flush=True)
    for line in sys.stdin:
        times = []
        for _ in range(max(1, int(line))):
            t0 = time.perf_counter()
            session.run(None, feeds)
            times.append((time.perf_counter() - t0) * 1e3)
        print("%.4f" % statistics.median(times), flush=True)


if __name__ == "__main__":
    main()
