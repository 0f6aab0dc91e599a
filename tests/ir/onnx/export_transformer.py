#!/usr/bin/python3
"""Exports a small transformer encoder layer (attention, GELU feed-forward, LayerNorm) and a Linear
head with torch.onnx, once per opset given: OUT_DIR/transformer_<opset>.onnx. Before opset 17 torch
decomposes LayerNorm; at 17 it writes LayerNormalization. Weights are random (seed 0), batch 1,
sequence 7, width 32. Usage: /usr/bin/python3 export_transformer.py OUT_DIR OPSET..."""
import os
import sys

import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, activation="gelu",
                                                      batch_first=True)
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.layer(x))


def main(out, opsets):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    block = Block().eval()
    for opset in opsets:
        torch.onnx.export(block, torch.randn(1, 7, 32), os.path.join(out, f"transformer_{opset}.onnx"),
                          opset_version=int(opset))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
