#!/usr/bin/python3
"""PyTorch peer of e2e_bench.py: the torchvision model behind an ONNX file, TorchScript-traced and
frozen, intra-op threads set; for each line "N" on stdin, runs it N times and prints the median ms.

    /usr/bin/python3 torch_peer.py MODEL IMAGE_SIZE BATCH THREADS
"""
import statistics
import sys
import time

import torch
import torchvision


def main():
    name, size, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    kwargs = {"weights": None}
    if name == "inception_v3":
        kwargs.update(aux_logits=False, init_weights=False)
    model = getattr(torchvision.models, name)(**kwargs).eval()
    x = torch.rand(batch, 3, size, size)
    with torch.no_grad():
        frozen = torch.jit.freeze(torch.jit.trace(model, x))
        for _ in range(3):
            frozen(x)
        print("ready", torch.__version__, flush=True)
        for line in sys.stdin:
            times = []
            for _ in range(max(1, int(line))):
                t0 = time.perf_counter()
                frozen(x)
                times.append((time.perf_counter() - t0) * 1e3)
            print("%.4f" % statistics.median(times), flush=True)


if __name__ == "__main__":
    main()
