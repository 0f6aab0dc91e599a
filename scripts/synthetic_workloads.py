#!/usr/bin/env python3
"""Workload keys of synthetic shapes for the measurement dataset, drawn over the ranges of channels,
sizes and batches that networks use, so that a cost model sees each kind at shapes of no particular
network. Three sets, each with its own shares and its own draws (so one set's keys never change with
another's):
  memory  the memory-bound kinds that the zoo's networks cover only at a few shapes each (depthwise
          and pointwise convolutions, pools, element-wise and normalisation ops); 240 keys by default
  matmul  the matrix products of transformer layers, which only one zoo network has (dense layers
          over a sequence, with their epilogues, and attention's batched products); 48 by default
  fc      fully connected layers of one or a few rows (classifier heads, VGG's 25088-wide layers):
          matrix-vector products bound by reading their weights; 24 by default

A key that is a task of a zoo model (batch 1 or 8) is never emitted: such a workload belongs to that
network, and a cross-model evaluation must not meet it in training when the network is held out.
The keys are a function of --seed and --count alone (the zoo's keys only take some out).

Usage: scripts/synthetic_workloads.py --tensorperf build/tensorperf [--set memory|matmul|fc|all] [--count N] [--seed S]
                                     [--kind K]
  prints one workload key per line (for `tensorperf tune --workload KEY`); `all` (the default) prints
  each set's keys in the order above, each at its default count unless --count is given; --kind K
  prints only the keys of kind K (e.g. depthwise) that the set(s) hold
"""
import argparse
import json
import math
import random
import subprocess
import sys

# Share of the keys per kind in each set (they sum to 1 per set).
MEMORY_KINDS = [
    ("depthwise", 0.30),
    ("pointwise", 0.12),
    ("max_pool", 0.10),
    ("avg_pool", 0.08),
    ("global_avg_pool", 0.04),
    ("relu", 0.09),
    ("add", 0.09),
    ("mul", 0.05),
    ("batch_norm", 0.05),
    ("layer_norm", 0.04),
    ("softmax", 0.04),
]
MATMUL_KINDS = [
    ("dense_rows", 0.55),
    ("batch_matmul", 0.45),
]
FC_KINDS = [
    ("fully_connected", 1.0),
]
DEFAULT_COUNT = {"memory": 240, "matmul": 48, "fc": 24}


def log_uniform(rng, lo, hi):
    """An integer between lo and hi, uniform in its logarithm."""
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def dims(shape):
    return "float32[" + ",".join(str(d) for d in shape) + "]"


def batch(rng):
    return 8 if rng.random() < 0.2 else 1


def image(rng, c_lo, c_hi, hw_lo, hw_hi):
    """[N, C, H, W] with C and H log-uniform, drawn again until the image holds at most 2M elements
    (so large images come with fewer channels, as in networks) and its batch at most 64 MiB."""
    while True:
        n, c, hw = batch(rng), log_uniform(rng, c_lo, c_hi), log_uniform(rng, hw_lo, hw_hi)
        if n * c * hw * hw * 4 <= 64 << 20 and c * hw * hw <= 2_000_000:
            return [n, c, hw, hw]


def depthwise(rng):
    k = rng.choice([3, 3, 3, 5, 5, 7])
    s = rng.choice([1, 1, 2])
    n, c, h, w = image(rng, 8, 1536, 7, 150)
    p = k // 2
    pads = [p, p, p, p] if rng.random() < 0.8 else [p - 1, p - 1, p, p]  # asymmetric, TF-style "same"
    epi = rng.choice(["", "bias", "bias+relu", "bias+relu6"])
    return (f"conv2d|{dims([n, c, h, w])};{dims([c, 1, k, k])}|dilations=[1,1];groups={c};"
            f"pads=[{','.join(map(str, pads))}];strides=[{s},{s}]|{epi}")


def pointwise(rng):
    n, c, h, w = image(rng, 8, 1024, 7, 112)
    oc = log_uniform(rng, 8, 1024)
    epi = rng.choice(["", "bias", "bias+relu", "bias+relu6"])
    return (f"conv2d|{dims([n, c, h, w])};{dims([oc, c, 1, 1])}|dilations=[1,1];groups=1;"
            f"pads=[0,0,0,0];strides=[1,1]|{epi}")


def max_pool(rng):
    n, c, h, w = image(rng, 8, 1024, 7, 224)
    k, s, pads, ceil = rng.choice([(2, 2, [0, 0, 0, 0], 0), (3, 2, [0, 0, 0, 0], 0), (3, 2, [0, 0, 0, 0], 1),
                                   (3, 2, [1, 1, 1, 1], 0), (3, 2, [0, 0, 1, 1], 0), (3, 1, [1, 1, 1, 1], 0)])
    return (f"max_pool2d|{dims([n, c, h, w])}|ceil_mode={ceil};dilations=[1,1];kernel=[{k},{k}];"
            f"pads=[{','.join(map(str, pads))}];strides=[{s},{s}]|")


def avg_pool(rng):
    n, c, h, w = image(rng, 8, 2048, 7, 150)
    s, pads = rng.choice([(1, [1, 1, 1, 1]), (2, [1, 1, 1, 1]), (2, [0, 0, 1, 1])])
    include = rng.choice([0, 1])
    return (f"avg_pool2d|{dims([n, c, h, w])}|ceil_mode=0;count_include_pad={include};kernel=[3,3];"
            f"pads=[{','.join(map(str, pads))}];strides=[{s},{s}]|")


def global_avg_pool(rng):
    return f"global_avg_pool2d|{dims(image(rng, 64, 2048, 5, 28))}||"


def relu(rng):
    return f"relu|{dims(image(rng, 8, 1536, 7, 150))}||"


def add(rng):
    shape = image(rng, 8, 1536, 7, 112)
    return f"add|{dims(shape)};{dims(shape)}||{rng.choice(['', 'relu'])}"


def mul(rng):
    return f"mul|{dims(image(rng, 8, 1024, 7, 112))};float32[1]||{rng.choice(['', 'relu'])}"


def batch_norm(rng):
    n, c, h, w = image(rng, 8, 1024, 7, 112)
    return f"batch_norm|{dims([n, c, h, w])}" + f";float32[{c}]" * 4 + "|epsilon=0.001|"


def rows_and_width(rng):
    return batch(rng), log_uniform(rng, 16, 512), rng.choice([128, 256, 384, 512, 768, 1024, 2048])


def layer_norm(rng):
    n, t, d = rows_and_width(rng)
    return f"layer_norm|{dims([n, t, d])};float32[{d}];float32[{d}]|axis=-1;epsilon=1e-12|"


def softmax(rng):
    n, heads, t = batch(rng), rng.choice([4, 8, 12, 16]), log_uniform(rng, 16, 384)
    return f"softmax|{dims([n, heads, t, t])}|axis=-1|"


def dense_rows(rng):
    """A dense layer over rows: [N, T, K] x [O, K] (a transformer's projections and feed-forward
    layers), at most 2 GFLOP per run (so that a slow config on one thread times in seconds)."""
    while True:
        n, t = batch(rng), log_uniform(rng, 16, 512)
        k, o = (rng.choice([256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]) for _ in range(2))
        if 2 * n * t * k * o <= 2e9 and n * t * max(k, o) * 4 <= 64 << 20:
            break
    epi = rng.choice(["", "bias", "bias+relu", "bias+gelu", "bias+add"])
    return f"dense|{dims([n, t, k])};{dims([o, k])}||{epi}"


def batch_matmul(rng):
    """Attention's products: scores Q x K^T ([N, H, T, D] x [N, H, T, D], transpose_b) or the
    context S x V ([N, H, T, T] x [N, H, T, D])."""
    n, heads, t, d = batch(rng), rng.choice([4, 8, 12, 16]), log_uniform(rng, 16, 512), rng.choice([32, 64, 80, 128])
    if rng.random() < 0.5:
        return f"batch_matmul|{dims([n, heads, t, d])};{dims([n, heads, t, d])}|transpose_a=0;transpose_b=1|"
    return f"batch_matmul|{dims([n, heads, t, t])};{dims([n, heads, t, d])}|transpose_a=0;transpose_b=0|"


def fully_connected(rng):
    """[N, K] x [O, K] with N 1 (or 8), K 256-32,768 and O 10-8,192 log-uniform, at most 512 MiB of
    weights (VGG-16's first is 392 MiB)."""
    while True:
        n, k, o = batch(rng), log_uniform(rng, 256, 32768), log_uniform(rng, 10, 8192)
        if k * o * 4 <= 512 << 20:
            break
    return f"dense|{dims([n, k])};{dims([o, k])}||{rng.choice(['', 'bias', 'bias', 'bias+relu'])}"


MAKERS = {"depthwise": depthwise, "pointwise": pointwise, "max_pool": max_pool, "avg_pool": avg_pool,
          "global_avg_pool": global_avg_pool, "relu": relu, "add": add, "mul": mul, "batch_norm": batch_norm,
          "layer_norm": layer_norm, "softmax": softmax, "dense_rows": dense_rows, "batch_matmul": batch_matmul,
          "fully_connected": fully_connected}
SETS = {"memory": MEMORY_KINDS, "matmul": MATMUL_KINDS, "fc": FC_KINDS}


def zoo_keys(tensorperf):
    """Every task key of every zoo model at batch 1 and 8."""
    models = json.loads(subprocess.check_output([tensorperf, "models", "--json"], stdin=subprocess.DEVNULL))
    keys = set()
    for m in models:
        for b in (1, 8):
            out = subprocess.check_output([tensorperf, "tasks", "--model", m["name"], "--batch", str(b), "--json"],
                                          stdin=subprocess.DEVNULL)
            keys.update(t["key"] for t in json.loads(out)["tasks"])
    return keys


def synthetic_keys(count, seed, exclude, kinds="memory", only_kind=None):
    """`count` distinct keys of the set `kinds`, none of `exclude`, in a fixed order given the seed.
    The memory set draws from the seed itself (its keys predate the other sets); each other set from
    a stream of its own. With `only_kind`, only the keys of that kind of the set, in their order: the
    same keys as the whole set's of that kind (the draws are the set's)."""
    return [key for kind, key in drawn_keys(count, seed, exclude, kinds) if only_kind in (None, kind)]


def drawn_keys(count, seed, exclude, kinds):
    """(kind, key) of each of `synthetic_keys`'s draws."""
    rng = random.Random(seed if kinds == "memory" else f"{kinds}:{seed}")
    plan = []
    shares = SETS[kinds]
    for kind, share in shares:
        plan += [kind] * max(1, round(share * count))
    # Rounding may leave the plan short: the largest kinds make it up, in turn.
    by_share = [kind for kind, _ in sorted(shares, key=lambda k: -k[1])]
    plan += [by_share[i % len(by_share)] for i in range(max(0, count - len(plan)))]
    plan = plan[:count]
    rng.shuffle(plan)
    keys, seen = [], set(exclude)
    for kind in plan:
        for _ in range(1000):
            key = MAKERS[kind](rng)
            if key not in seen:
                break
        else:
            raise SystemExit(f"synthetic_workloads: no new {kind} shape found after 1000 draws")
        seen.add(key)
        keys.append((kind, key))
    return keys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tensorperf", required=True, help="the tensorperf binary (for the zoo's task keys)")
    ap.add_argument("--set", choices=["memory", "matmul", "fc", "all"], default="all", help="which set (default all)")
    ap.add_argument("--count", type=int, help="how many keys per set (default: memory 240, matmul 48, fc 24)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the shapes (default 1)")
    ap.add_argument("--kind", choices=list(MAKERS), help="only the keys of this kind (the set's own keys of it)")
    a = ap.parse_args()
    if a.count is not None and a.count < 1:
        sys.exit("synthetic_workloads: --count must be at least 1")
    sets = list(SETS) if a.set == "all" else [a.set]
    if a.kind and not any(a.kind == kind for s in sets for kind, _ in SETS[s]):
        sys.exit(f"synthetic_workloads: the {a.set} set has no kind '{a.kind}'")
    zoo = zoo_keys(a.tensorperf)
    for kinds in sets:
        for key in synthetic_keys(a.count or DEFAULT_COUNT[kinds], a.seed, zoo, kinds, a.kind):
            print(key)


if __name__ == "__main__":
    main()
