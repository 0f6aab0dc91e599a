// SqueezeNet 1.1 as torchvision 0.14 defines it (torchvision/models/squeezenet.py): convs with bias,
// ceil-mode max pools, eight Fire modules, a 1x1 conv classifier. Dropout is omitted (inference).
#include <string>

#include "ir/models/builder.h"
#include "ir/models/networks.h"

namespace tensorperf::ir::models {
namespace {

ConvSpec biased(ConvSpec spec) {
  spec.bias = true;
  return spec;
}

// torchvision Fire: squeeze 1x1 -> relu, then concat(expand 1x1 -> relu, expand 3x3 -> relu).
ValueId fire(ModelBuilder& b, ValueId x, int64_t squeeze, int64_t expand1x1, int64_t expand3x3) {
  ValueId s = b.relu("squeeze_activation", b.conv("squeeze", x, biased(conv_spec(squeeze, 1))));
  ValueId e1 = b.relu("expand1x1_activation", b.conv("expand1x1", s, biased(conv_spec(expand1x1, 1))));
  ValueId e3 = b.relu("expand3x3_activation", b.conv("expand3x3", s, biased(conv_spec(expand3x3, 3, 1, 1))));
  return b.concat("concat", {e1, e3});
}

}  // namespace

Result<Graph> build_squeezenet1_1(const ModelOptions& options) {
  TP_ASSIGN_OR_RETURN(const int64_t size, checked_image_size(options, 224, 32, "squeezenet1_1"));
  ModelBuilder b("squeezenet1_1");
  ValueId x = b.input("input", {options.batch, 3, size, size});
  {
    Scope features(b, "features");
    x = b.relu("1", b.conv("0", x, biased(conv_spec(64, 3, 2))));
    int index = 2;
    auto pool = [&] { x = b.max_pool(std::to_string(index++), x, 3, 2, {0, 0, 0, 0}, /*ceil_mode=*/true); };
    auto fire_module = [&](int64_t squeeze, int64_t expand) {
      Scope scope(b, std::to_string(index++));
      x = fire(b, x, squeeze, expand, expand);
    };
    pool();
    fire_module(16, 64);
    fire_module(16, 64);
    pool();
    fire_module(32, 128);
    fire_module(32, 128);
    pool();
    fire_module(48, 192);
    fire_module(48, 192);
    fire_module(64, 256);
    fire_module(64, 256);
  }
  {
    Scope classifier(b, "classifier");
    x = b.relu("2", b.conv("1", x, biased(conv_spec(1000, 1))));
    x = b.global_avg_pool("3", x);
  }
  return b.finish({b.flatten("flatten", x)});
}

}  // namespace tensorperf::ir::models
