#!/usr/bin/python3
"""Writes the small ONNX models the importer's tests read: OUT_DIR/<name>.onnx, one or a few nodes
each, covering every converted operator family and the error cases. Run with Debian's python3
(python3-onnx): /usr/bin/python3 make_onnx_fixtures.py OUT_DIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def arange(*shape):
    """Deterministic float32 data: 0, 1, 2, ... in row-major order."""
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def const(name, array):
    return helper.make_node("Constant", [], [name], name=name, value=numpy_helper.from_array(np.asarray(array)))


def model(nodes, inputs, outputs=("y",), inits=(), opset=13):
    """inputs: [(name, shape)], all float32; outputs have no declared shape."""
    ins = [helper.make_tensor_value_info(n, F, s) for n, s in inputs]
    outs = [helper.make_tensor_value_info(n, F, None) for n in outputs]
    graph = helper.make_graph(nodes, "g", ins, outs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or outs[0], **attrs)


FIXTURES = {}


def fixture(fn):
    FIXTURES[fn.__name__] = fn
    return fn


# --- convolution --------------------------------------------------------------------------------
@fixture
def conv():
    return model([node("Conv", ["x", "w", "b"], ["y"], strides=[2, 1], pads=[1, 2, 3, 4], dilations=[1, 2])],
                 [("x", [1, 3, 16, 16])], inits=[init("w", arange(8, 3, 3, 3)), init("b", arange(8))])


@fixture
def conv_same_upper():
    return model([node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
                 [("x", [1, 3, 8, 8])], inits=[init("w", arange(4, 3, 3, 3))])


@fixture
def conv_depthwise():
    return model([node("Conv", ["x", "w"], ["y"], group=6, kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
                 [("x", [1, 6, 10, 10])], inits=[init("w", arange(6, 1, 3, 3))])


@fixture
def conv_bad_auto_pad():
    return model([node("Conv", ["x", "w"], ["y"], name="conv_weird", auto_pad="SAME_MIDDLE")],
                 [("x", [1, 3, 8, 8])], inits=[init("w", arange(4, 3, 3, 3))])


# --- gemm and matmul ----------------------------------------------------------------------------
@fixture
def gemm():
    return model([node("Gemm", ["x", "w", "b"], ["y"], transB=1)], [("x", [2, 8])],
                 inits=[init("w", arange(4, 8)), init("b", arange(4))])


@fixture
def gemm_transb0_alpha():
    return model([node("Gemm", ["x", "w", "b"], ["y"], alpha=2.0, beta=0.5)], [("x", [2, 3])],
                 inits=[init("w", arange(3, 2)), init("b", arange(1, 2))])


@fixture
def gemm_two_inputs():
    return model([node("Gemm", ["a", "b"], ["y"], transA=1)], [("a", [3, 2]), ("b", [3, 5])])


@fixture
def matmul_const():
    return model([node("MatMul", ["x", "w"], ["y"])], [("x", [1, 4, 8])], inits=[init("w", arange(8, 6))])


@fixture
def matmul_2d():
    return model([node("MatMul", ["a", "b"], ["y"])], [("a", [3, 4]), ("b", [4, 5])])


@fixture
def matmul_batch():
    return model([node("MatMul", ["a", "b"], ["y"])], [("a", [2, 3, 4]), ("b", [2, 4, 5])])


# --- pooling ------------------------------------------------------------------------------------
@fixture
def max_pool():
    return model([node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)],
                 [("x", [1, 4, 9, 9])])


@fixture
def avg_pool():
    return model([node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], count_include_pad=1,
                       pads=[0, 0, 1, 1])], [("x", [1, 4, 7, 7])])


@fixture
def global_avg_pool():
    return model([node("GlobalAveragePool", ["x"], ["y"])], [("x", [1, 4, 7, 7])])


@fixture
def pad_avg_pool():
    """torch.onnx's export of avg_pool2d(padding=1, count_include_pad=True) at opset 13."""
    return model([const("p", np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64)),
                  node("Pad", ["x", "p"], ["xp"], mode="constant"),
                  node("AveragePool", ["xp"], ["y"], kernel_shape=[3, 3], strides=[1, 1])], [("x", [1, 4, 7, 7])])


@fixture
def pad_conv():
    return model([const("p", np.array([0, 0, 2, 1, 0, 0, 0, 3], dtype=np.int64)),
                  node("Pad", ["x", "p"], ["xp"]), node("Conv", ["xp", "w"], ["y"], pads=[1, 1, 1, 1])],
                 [("x", [1, 3, 8, 8])], inits=[init("w", arange(4, 3, 3, 3))])


@fixture
def pad_relu():
    return model([const("p", np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64)),
                  node("Pad", ["x", "p"], ["xp"], name="lonely_pad"), node("Relu", ["xp"], ["y"])],
                 [("x", [1, 4, 7, 7])])


# --- elementwise --------------------------------------------------------------------------------
@fixture
def elementwise():
    """Add/Mul with broadcasting, Sub and Div by constants, Relu, Sigmoid, Tanh, Clip(0,6), Clip(0,)."""
    return model([node("Add", ["a", "b"], ["s"]), node("Mul", ["s", "c"], ["m"]), node("Sub", ["m", "k"], ["d"]),
                  node("Div", ["d", "k"], ["q"]), node("Relu", ["q"], ["r"]), node("Sigmoid", ["r"], ["g"]),
                  node("Tanh", ["g"], ["t"]), node("Clip", ["t", "zero", "six"], ["r6"]),
                  node("Clip", ["r6", "zero"], ["y"], name="clip_relu")],
                 [("a", [1, 4, 5, 5]), ("b", [1, 4, 1, 1])],
                 inits=[init("c", arange(5)), init("k", np.array([2.0], dtype=np.float32)),
                        init("zero", np.array(0.0, dtype=np.float32)), init("six", np.array(6.0, dtype=np.float32))])


@fixture
def clip_other():
    return model([node("Clip", ["x", "lo", "hi"], ["y"], name="clip_1_2")], [("x", [4])],
                 inits=[init("lo", np.array(1.0, dtype=np.float32)), init("hi", np.array(2.0, dtype=np.float32))])


@fixture
def gelu():
    """torch.onnx's export of nn.GELU() at opset 13: x * (1 + erf(x / sqrt 2)) * 0.5, then a Relu."""
    return model([const("sqrt2", np.array(1.4142135, dtype=np.float32)), node("Div", ["x", "sqrt2"], ["d"]),
                  node("Erf", ["d"], ["e"]), const("one", np.array(1.0, dtype=np.float32)),
                  node("Add", ["e", "one"], ["a"]), node("Mul", ["x", "a"], ["m"]),
                  const("half", np.array(0.5, dtype=np.float32)), node("Mul", ["m", "half"], ["g"]),
                  node("Relu", ["g"], ["y"])], [("x", [2, 16])])


@fixture
def gelu_half_first():
    """The other association: (0.5 * x) * (1 + erf(x * (1 / sqrt 2)))."""
    return model([const("r", np.array(0.70710677, dtype=np.float32)), node("Mul", ["r", "x"], ["d"]),
                  node("Erf", ["d"], ["e"]), const("one", np.array(1.0, dtype=np.float32)),
                  node("Add", ["one", "e"], ["a"]), const("half", np.array(0.5, dtype=np.float32)),
                  node("Mul", ["x", "half"], ["h"]), node("Mul", ["h", "a"], ["y"])], [("x", [2, 16])])


@fixture
def erf_alone():
    return model([node("Erf", ["x"], ["y"], name="lonely_erf")], [("x", [2, 16])])


# --- normalization ------------------------------------------------------------------------------
@fixture
def batch_norm():
    c = 4
    return model([node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)], [("x", [1, c, 5, 5])],
                 inits=[init(n, arange(c)) for n in "sbmv"])


@fixture
def layer_norm():
    return model([node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-6)], [("x", [2, 7, 16])],
                 inits=[init("g", arange(16)), init("b", arange(16))], opset=17)


@fixture
def layer_norm_no_bias():
    return model([node("LayerNormalization", ["x", "g"], ["y"], axis=2)], [("x", [2, 7, 16])],
                 inits=[init("g", arange(16))], opset=17)


@fixture
def layer_norm_decomposed():
    """torch.onnx's export of nn.LayerNorm(16) before opset 17, beta aliased through an Identity as
    torch does for equal weights."""
    return model([node("ReduceMean", ["x"], ["m"], axes=[-1]), node("Sub", ["x", "m"], ["d"]),
                  const("two", np.array(2.0, dtype=np.float32)), node("Pow", ["d", "two"], ["p"]),
                  node("ReduceMean", ["p"], ["v"], axes=[-1]), const("eps", np.array(1e-5, dtype=np.float32)),
                  node("Add", ["v", "eps"], ["ve"]), node("Sqrt", ["ve"], ["s"]), node("Div", ["d", "s"], ["n"]),
                  node("Mul", ["n", "g"], ["ng"]), node("Identity", ["b0"], ["b"]), node("Add", ["ng", "b"], ["y"])],
                 [("x", [2, 7, 16])], inits=[init("g", arange(16)), init("b0", arange(16))])


@fixture
def softmax():
    return model([node("Softmax", ["x"], ["y"])], [("x", [2, 3, 5])])


@fixture
def softmax_opset11():
    """Before opset 13, Softmax(axis=1) on [2,3,5] normalises over the 15 trailing elements."""
    return model([node("Softmax", ["x"], ["y"], axis=1)], [("x", [2, 3, 5])], opset=11)


# --- layout -------------------------------------------------------------------------------------
@fixture
def concat():
    return model([node("Concat", ["a", "b"], ["y"], axis=-3)], [("a", [1, 2, 4, 4]), ("b", [1, 3, 4, 4])])


@fixture
def split13():
    return model([node("Split", ["x", "sizes"], ["y", "z"], axis=1)], [("x", [1, 6, 4])], outputs=["y", "z"],
                 inits=[init("sizes", np.array([2, 4], dtype=np.int64))])


@fixture
def split11():
    return model([node("Split", ["x"], ["y", "z", "w"], axis=-1)], [("x", [1, 6, 9])], outputs=["y", "z", "w"],
                 opset=11)


@fixture
def slice_():
    return model([node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], [("x", [1, 8, 10])],
                 inits=[init("st", np.array([1, -4], dtype=np.int64)),
                        init("en", np.array([2**63 - 1, 10], dtype=np.int64)),
                        init("ax", np.array([1, -1], dtype=np.int64)), init("sp", np.array([2, 1], dtype=np.int64))])


@fixture
def reshape_chain():
    """x.view(x.size(0), -1) as torch exports it: Shape -> Gather -> Unsqueeze -> Concat -> Reshape."""
    return model([node("Shape", ["x"], ["s"]), const("i0", np.array(0, dtype=np.int64)),
                  node("Gather", ["s", "i0"], ["n"], axis=0), const("ax0", np.array([0], dtype=np.int64)),
                  node("Unsqueeze", ["n", "ax0"], ["n1"]), const("m1", np.array([-1], dtype=np.int64)),
                  node("Concat", ["n1", "m1"], ["shape"], axis=0), node("Reshape", ["x", "shape"], ["y"])],
                 [("x", [3, 4, 2, 2])])


@fixture
def class_token():
    """ViT's class token as torch 1.13 exports it: the token expanded to the batch (shape arithmetic
    through Equal / Where / Expand), concatenated before the patches, then x[:, 0]."""
    i64 = lambda *v: np.array(v, dtype=np.int64)
    return model([node("Shape", ["x"], ["s"]), const("i0", np.array(0, dtype=np.int64)),
                  node("Gather", ["s", "i0"], ["n"], axis=0), const("ax0", i64(0)),
                  node("Unsqueeze", ["n", "ax0"], ["n1"]), const("m1", i64(-1, -1)),
                  node("Concat", ["n1", "m1"], ["shape"], axis=0),
                  const("neg", i64(-1)), node("Equal", ["shape", "neg"], ["is_neg"]),
                  const("ones", i64(1, 1, 1)), node("Where", ["is_neg", "ones", "shape"], ["target"]),
                  node("Expand", ["cls", "target"], ["tokens"]),
                  node("Concat", ["tokens", "x"], ["seq"], axis=1),
                  const("first", np.array(0, dtype=np.int64)), node("Gather", ["seq", "first"], ["y"], axis=1)],
                 [("x", [1, 3, 4])], inits=[init("cls", arange(1, 1, 4))])


@fixture
def mod_expand():
    """Mod with fmod=0 takes the divisor's sign (-4 mod 3 = 2; C's fmod gives -1): a constant of
    ones expanded to that shape, added to x."""
    return model([const("a", np.array([-4, 5], dtype=np.int64)), const("b", np.array([3, 3], dtype=np.int64)),
                  node("Mod", ["a", "b"], ["shape"]), const("one", np.array([1.0], dtype=np.float32)),
                  node("Expand", ["one", "shape"], ["ones"]), node("Add", ["x", "ones"], ["y"])],
                 [("x", [2, 2])])


@fixture
def swin_folds():
    """What Swin's export computes on constants: Range, ScatterND (its attention mask), Pow (the
    scale), a reversed 2-D Slice (its pads); a Pad of zeros and a Dropout of ratio 0 in training mode
    with its mask output, both no-ops on computed tensors."""
    i64 = lambda *v: np.array(v, dtype=np.int64)
    f32 = lambda *v: np.array(v, dtype=np.float32)
    nodes = [const("r0", np.array(0, dtype=np.int64)), const("r4", np.array(4, dtype=np.int64)),
             const("r1", np.array(1, dtype=np.int64)), node("Range", ["r0", "r4", "r1"], ["r"]),
             node("Cast", ["r"], ["rf"], to=F),
             const("zeros", f32(0, 0, 0, 0)), const("idx", i64([1], [3])), const("upd", f32(5, 7)),
             node("ScatterND", ["zeros", "idx", "upd"], ["mask"]),
             const("two", np.array(2.0, dtype=np.float32)), const("three", np.array(3.0, dtype=np.float32)),
             node("Pow", ["two", "three"], ["eight"]), node("Mul", ["mask", "eight"], ["m8"]),
             node("Add", ["rf", "m8"], ["c1"]), node("Add", ["x", "c1"], ["y1"]),
             const("grid", np.arange(6, dtype=np.float32).reshape(2, 3)), const("st", i64(-1)),
             const("en", i64(np.iinfo(np.int64).min)), const("ax", i64(1)), const("sp", i64(-1)),
             node("Slice", ["grid", "st", "en", "ax", "sp"], ["rev"]), node("Add", ["x2", "rev"], ["y2"]),
             const("pads", i64(0, 0, 0, 0)), node("Pad", ["x", "pads"], ["padded"]), node("Relu", ["padded"], ["y3"]),
             const("ratio", np.array(0.0, dtype=np.float32)), const("train", np.array(True)),
             node("Dropout", ["x", "ratio", "train"], ["dropped", "dmask"]), node("Relu", ["dropped"], ["y4"])]
    return model(nodes, [("x", [4]), ("x2", [2, 3])], outputs=("y1", "y2", "y3", "y4"))


@fixture
def equal_computed():
    return model([node("Equal", ["x", "x"], ["y"])], [("x", [2, 2])])


@fixture
def transpose_flatten():
    return model([node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]), node("Flatten", ["t"], ["y"], axis=-2)],
                 [("x", [1, 3, 4, 5])])


@fixture
def squeeze_unsqueeze():
    return model([node("Squeeze", ["x", "a1"], ["s"]), node("Unsqueeze", ["s", "a2"], ["y"])], [("x", [2, 1, 5])],
                 inits=[init("a1", np.array([1], dtype=np.int64)), init("a2", np.array([0, 3], dtype=np.int64))])


@fixture
def identity_dropout():
    return model([node("Identity", ["x"], ["i"]), node("Dropout", ["i"], ["d"]), node("Relu", ["d"], ["y"])],
                 [("x", [2, 3])])


# --- initializers, ordering, graph structure ----------------------------------------------------
@fixture
def typed_initializer():
    """The weight in float_data (not raw_data), the bias as raw_data, a Constant for the Add."""
    w = helper.make_tensor("w", F, [2, 3], [1.5, -2.0, 3.25, 4.0, 5.0, -6.5], raw=False)
    b = helper.make_tensor("b", F, [2], np.array([0.25, -0.5], dtype=np.float32).tobytes(), raw=True)
    return model([node("Gemm", ["x", "w", "b"], ["y"], transB=1)], [("x", [1, 3])], inits=[w, b])


@fixture
def out_of_order():
    """Nodes listed consumers first; the importer must sort them."""
    return model([node("Relu", ["c"], ["y"]), node("Conv", ["x", "w"], ["c"], name="conv")], [("x", [1, 3, 8, 8])],
                 inits=[init("w", arange(4, 3, 3, 3))])


@fixture
def symbolic_batch():
    return model([node("Relu", ["x"], ["y"])], [("x", ["N", 3, 8, 8])])


@fixture
def fixed_batch_reshape():
    """A Reshape whose target shape hard-codes the exported batch (2)."""
    return model([node("Reshape", ["x", "shape"], ["y"])], [("x", [2, 12])],
                 inits=[init("shape", np.array([2, 3, 4], dtype=np.int64))])


# --- errors -------------------------------------------------------------------------------------
@fixture
def unsupported_op():
    return model([node("Relu", ["x"], ["r"]), node("Hardmax", ["r"], ["y"], name="weird_hardmax")], [("x", [2, 3])])


@fixture
def max_pool_storage_order():
    return model([node("MaxPool", ["x"], ["y"], name="column_major_pool", kernel_shape=[2, 2], storage_order=1)],
                 [("x", [1, 4, 8, 8])])


@fixture
def short_initializer():
    w = TensorProto(name="short_w", data_type=F, dims=[4, 3, 3, 3], raw_data=b"\0" * 10)  # needs 432 bytes
    return model([node("Conv", ["x", "short_w"], ["y"])], [("x", [1, 3, 8, 8])], inits=[w])


@fixture
def opset10():
    return model([node("Relu", ["x"], ["y"])], [("x", [2, 3])], opset=10)


@fixture
def opset18():
    return model([node("Relu", ["x"], ["y"])], [("x", [2, 3])], opset=18)


@fixture
def cyclic():
    return model([node("Relu", ["x"], ["a"], name="entry"), node("Add", ["a", "c"], ["b"], name="loop_add"),
                  node("Relu", ["b"], ["c"], name="loop_relu"), node("Relu", ["c"], ["y"], name="exit")],
                 [("x", [2, 3])])


@fixture
def dangling_input():
    return model([node("Add", ["x", "ghost"], ["y"], name="haunted")], [("x", [2, 3])])


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, fn in FIXTURES.items():
        onnx.save(fn(), os.path.join(out, name.rstrip("_") + ".onnx"))
    data = FIXTURES["conv"]().SerializeToString()
    with open(os.path.join(out, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(out, "garbage.onnx"), "wb") as f:
        f.write(b"this is not an onnx model\n" * 8)
    open(os.path.join(out, "empty.onnx"), "wb").close()


if __name__ == "__main__":
    main(sys.argv[1])
