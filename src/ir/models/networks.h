// The zoo's network definitions, one file per family (resnet.cc, vgg.cc, ...), gathered by the
// registry table in zoo.cc. Each returns a validated graph or InvalidArgument for options it cannot
// build (a batch below 1, an image too small for its strides). Internal to src/ir/models/.
#pragma once

#include "base/status.h"
#include "ir/graph.h"
#include "ir/models/zoo.h"

namespace tensorperf::ir::models {

Result<Graph> build_resnet18(const ModelOptions& options);
Result<Graph> build_resnet50(const ModelOptions& options);
Result<Graph> build_vgg16(const ModelOptions& options);
Result<Graph> build_inception_v3(const ModelOptions& options);
Result<Graph> build_squeezenet1_1(const ModelOptions& options);
Result<Graph> build_mobilenet_v2(const ModelOptions& options);
Result<Graph> build_nasnet_a_mobile(const ModelOptions& options);
Result<Graph> build_randwire(const ModelOptions& options);
Result<Graph> build_bert_base(const ModelOptions& options);

}  // namespace tensorperf::ir::models
