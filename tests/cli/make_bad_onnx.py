#!/usr/bin/python3
"""Writes the malformed ONNX inputs the CLI tests feed to `tensorperf`: OUT_DIR/{garbage,truncated,
unsupported_op,cyclic,huge_input,huge_pads,ok}.onnx. Run with Debian's python3 (python3-onnx)."""
import os
import sys

import onnx
from onnx import TensorProto, helper


def conv_model(nodes, extra_inits=(), shape=(1, 3, 8, 8)):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 3, 3, 3], [0.1] * 108)
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=[w, *extra_inits])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main(out):
    os.makedirs(out, exist_ok=True)
    ok = conv_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                     helper.make_node("Relu", ["c"], ["y"], name="relu")])
    onnx.save(ok, os.path.join(out, "ok.onnx"))
    data = ok.SerializeToString()
    with open(os.path.join(out, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(out, "garbage.onnx"), "wb") as f:
        f.write(b"this is not an onnx model\n" * 8)
    unsupported = conv_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                              helper.make_node("Hardmax", ["c"], ["y"], name="weird_hardmax")])
    onnx.save(unsupported, os.path.join(out, "unsupported_op.onnx"))
    cyclic = conv_model([helper.make_node("Relu", ["y"], ["a"], name="relu_a"),
                         helper.make_node("Add", ["a", "x"], ["y"], name="add_b")])
    onnx.save(cyclic, os.path.join(out, "cyclic.onnx"))
    # Sizes that overflow: an input of 3 x 2^31 x 2^31 elements, and pads of 2^40.
    huge = conv_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                       helper.make_node("Relu", ["c"], ["y"], name="relu")], shape=(1, 3, 2 ** 31, 2 ** 31))
    onnx.save(huge, os.path.join(out, "huge_input.onnx"))
    pads = conv_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[2 ** 40] * 4),
                       helper.make_node("Relu", ["c"], ["y"], name="relu")])
    onnx.save(pads, os.path.join(out, "huge_pads.onnx"))


if __name__ == "__main__":
    main(sys.argv[1])
