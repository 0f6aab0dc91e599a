#!/usr/bin/python3
"""Writes a torchvision model as ONNX with PyTorch's own output for one input, to check a runtime.

Usage: /usr/bin/python3 torch_reference.py OUT_DIR MODEL [IMAGE_SIZE] [BATCH]
Writes OUT_DIR/MODEL.onnx (opset 13, eval mode), OUT_DIR/MODEL.input.npy and OUT_DIR/MODEL.output.npy
(float32, C order). Weights are torchvision's random initialisation under seed 0, with batch-norm
statistics and affine parameters randomised too, so that folding them is exercised.
"""
import inspect
import os
import sys

import numpy as np
import torch
import torchvision


def main():
    out_dir, name = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 224
    batch = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    torch.manual_seed(0)
    kwargs = {"weights": None}
    if name in ("inception_v3", "googlenet"):
        kwargs["aux_logits"] = False
        kwargs["init_weights"] = False
    model = getattr(torchvision.models, name)(**kwargs)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
        # A weight initialised to zeros (vit_b_16's classifier) would make every output 0 and the
        # comparison empty.
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.uniform_(-0.05, 0.05)
    model.eval()
    x = torch.rand(batch, 3, size, size) * 2 - 1
    os.makedirs(out_dir, exist_ok=True)
    with torch.no_grad():
        y = model(x)
    # Newer torch exports through dynamo by default; the TorchScript exporter gives the graph that
    # torch 1.13 (Debian's) gives, so it is asked for where the choice exists. Models with attention
    # (vit_b_16) are exported with gradients on: without them, torch 1.13's MultiheadAttention takes
    # its fused inference path, which has no ONNX export; with them it runs the plain operators.
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    attention = any(isinstance(m, torch.nn.MultiheadAttention) for m in model.modules())
    with torch.set_grad_enabled(attention):
        torch.onnx.export(model, x, os.path.join(out_dir, name + ".onnx"), opset_version=13,
                          input_names=["input"], output_names=["output"], **legacy)
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".output.npy"), y.numpy().astype(np.float32))


if __name__ == "__main__":
    main()
