#!/usr/bin/python3
"""Exports torchvision models to ONNX as test fixtures and prints their conv/linear multiply-adds.

Usage: /usr/bin/python3 export_torchvision.py OUT_DIR [model ...]
Writes OUT_DIR/<model>.onnx for each model (default: resnet18 squeezenet1_1 mobilenet_v2
inception_v3): weights=None, eval mode, batch 1, opset 13, batch-norm folded by the exporter's
constant folding. Prints one line per model: "<model> <input size> <MACs of Conv2d+Linear layers>".
The zoo's tests compare against the same MAC counts (docs/models.md).
"""
import argparse
import os
import sys

import torch
import torchvision

IMAGE_SIZES = {"resnet18": 224, "squeezenet1_1": 224, "mobilenet_v2": 224, "inception_v3": 299}


def count_macs(model, image_size):
    """Multiply-adds of every Conv2d and Linear layer in one batch-1 forward pass."""
    total = 0

    def conv_hook(module, _inputs, output):
        nonlocal total
        kh, kw = module.kernel_size
        total += output.numel() * (module.in_channels // module.groups) * kh * kw

    def linear_hook(module, _inputs, output):
        nonlocal total
        total += output.numel() * module.in_features

    handles = []
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, torch.nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
    with torch.no_grad():
        model(torch.randn(1, 3, image_size, image_size))
    for h in handles:
        h.remove()
    return total


def build(name):
    kwargs = {"weights": None}
    if name == "inception_v3":
        # No aux logits in the inference graph and no input transform: the zoo's definition.
        kwargs.update(aux_logits=False, init_weights=False, transform_input=False)
    return getattr(torchvision.models, name)(**kwargs).eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("models", nargs="*", default=list(IMAGE_SIZES))
    args = parser.parse_args()
    unknown = [m for m in args.models if m not in IMAGE_SIZES]
    if unknown:
        sys.exit(f"export_torchvision: unknown model(s) {', '.join(unknown)}; known: {', '.join(IMAGE_SIZES)}")
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models:
        size = IMAGE_SIZES[name]
        model = build(name)
        path = os.path.join(args.out_dir, f"{name}.onnx")
        torch.onnx.export(model, torch.randn(1, 3, size, size), path, opset_version=13,
                          training=torch.onnx.TrainingMode.EVAL, do_constant_folding=True,
                          input_names=["input"], output_names=["output"])
        print(f"{name} {size} {count_macs(model, size)}")


if __name__ == "__main__":
    main()
