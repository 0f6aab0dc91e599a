#include "kernels/onednn/onednn_common.h"

namespace tensorperf::kernels::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

std::string layout_key(const memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  std::string key = "onednn:" + std::to_string(static_cast<int>(m.data_type)) + ":" +
                    std::to_string(static_cast<int>(m.format_kind)) + ":" + std::to_string(m.offset0);
  auto list = [&](const char* name, const dnnl_dim_t* v, int n) {
    key += std::string(";") + name + "=";
    for (int i = 0; i < n; ++i) key += (i ? "," : "") + std::to_string(v[i]);
  };
  list("dims", m.dims, m.ndims);
  list("padded", m.padded_dims, m.ndims);
  list("offsets", m.padded_offsets, m.ndims);
  if (m.format_kind == dnnl_blocked) {
    const dnnl_blocking_desc_t& b = m.format_desc.blocking;
    list("strides", b.strides, m.ndims);
    list("blocks", b.inner_blks, b.inner_nblks);
    list("block_dims", b.inner_idxs, b.inner_nblks);
  }
  return key;
}

Kernel::NativeLayout native_layout(const memory::desc& d) {
  const bool channels_last = d.dims().size() == 4 && d == memory::desc(d.dims(), d.data_type(), Tag::nhwc);
  return {layout_key(d), static_cast<int64_t>(d.get_size()), channels_last};
}

dnnl::reorder make_reorder(const memory::desc& from, const memory::desc& to) {
  return dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
}

}  // namespace tensorperf::kernels::onednn
