#include "kernels/onednn/layout_passing_kernel.h"

#include <omp.h>

#include <optional>
#include <utility>
#include <vector>

#include "kernels/native_io.h"
#include "kernels/onednn/onednn_common.h"

namespace tensorperf::kernels::onednn {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

bool element_wise(ir::OpKind op) {
  switch (op) {
    case ir::OpKind::kAdd:
    case ir::OpKind::kMul:
    case ir::OpKind::kRelu:
    case ir::OpKind::kRelu6:
    case ir::OpKind::kSigmoid:
    case ir::OpKind::kTanh:
    case ir::OpKind::kGelu:
      return true;
    default:
      return false;
  }
}

bool unary_epilogue(const std::string& op) {
  return op == "relu" || op == "relu6" || op == "sigmoid" || op == "tanh" || op == "gelu";
}

// The layouts of one family for w's output (empty where it pads or is plain).
std::optional<memory::desc> layout_of(const ir::Workload& w, Tag tag) {
  const ir::Shape& s = w.output.shape;
  const memory::dims dims(s.begin(), s.end());
  const memory::desc d(dims, memory::data_type::f32, tag);
  const memory::desc plain(dims, memory::data_type::f32, Tag::nchw);
  if (d == plain || d.get_size() != plain.get_size()) return std::nullopt;
  return d;
}

// What every instance of one wrapped kernel shares.
struct Shared {
  std::vector<bool> full;  // per kernel input: of the output's shape (else one element)
  ir::TensorType type;     // the output's, and every full-shape input's
  memory::desc plain;
  std::vector<memory::desc> layouts;  // what a full-shape input may adopt
};

class LayoutPassingKernel final : public Kernel {
 public:
  LayoutPassingKernel(std::unique_ptr<Kernel> inner, std::shared_ptr<const Shared> shared, int threads)
      : inner_(std::move(inner)), shared_(std::move(shared)), threads_(threads), stream_(cpu_engine()) {}

  NativeLayout native_output_layout() const override { return adopted_ ? native_layout(*adopted_) : NativeLayout{}; }
  NativeLayout native_input_layout(size_t index) const override {
    return adopted_ && full(index) ? native_layout(*adopted_) : NativeLayout{};
  }
  std::vector<NativeLayout> alternative_input_layouts(size_t index) const override {
    std::vector<NativeLayout> out;
    if (adopted_ || !full(index)) return out;
    for (const memory::desc& d : shared_->layouts) out.push_back(native_layout(d));
    return out;
  }
  Status adopt_input_layout(size_t index, const std::string& key) override {
    if (full(index) && adopted_ && layout_key(*adopted_) == key) return Status::Ok();
    if (full(index) && !adopted_)
      for (const memory::desc& d : shared_->layouts)
        if (layout_key(d) == key) {
          adopted_ = d;
          native_in_.clear();
          native_out_ = false;
          return Status::Ok();
        }
    return Status::InvalidArgument("element-wise kernel: input " + std::to_string(index) + " cannot take layout '" +
                                   key + "'" + (adopted_ ? " (its inputs are in another one)" : ""));
  }
  Status use_native_layouts(const std::vector<bool>& native_inputs, bool native_output) override {
    for (size_t i = 0; i < native_inputs.size(); ++i)
      if (native_inputs[i] && native_input_layout(i).key.empty())
        return Status::InvalidArgument("element-wise kernel: input " + std::to_string(i) + " has no native layout");
    if (native_output && !adopted_)
      return Status::InvalidArgument("element-wise kernel: the output has no native layout");
    native_in_ = native_inputs;
    native_in_.resize(shared_->full.size(), false);
    native_out_ = native_output;
    in_tmp_.clear();
    in_views_.clear();
    out_tmp_.reset();
    out_view_.reset();
    to_layout_.reset();
    to_plain_.reset();
    args_.reserve(shared_->full.size());
    if (!adopted_) return Status::Ok();
    try {
      const OmpThreads scoped(threads_);  // the reorders run with the kernel's threads
      auto view_of = [&](memory& m) {
        return HostTensor::view(shared_->type, static_cast<std::byte*>(m.get_data_handle()));
      };
      for (size_t i = 0; i < shared_->full.size(); ++i)
        if (full(i) && !native_in_[i]) in_tmp_.emplace_back(i, memory(*adopted_, cpu_engine()));
      for (auto& [i, tmp] : in_tmp_) in_views_.push_back(view_of(tmp));
      if (!in_tmp_.empty()) to_layout_ = make_reorder(shared_->plain, *adopted_);
      if (!native_out_) {
        out_tmp_ = memory(*adopted_, cpu_engine());
        out_view_ = view_of(*out_tmp_);
        to_plain_ = make_reorder(*adopted_, shared_->plain);
      }
    } catch (const dnnl::error& e) {
      return Status::Internal(std::string("element-wise kernel: oneDNN reorder: ") + e.what());
    }
    return Status::Ok();
  }

  Status run(const std::vector<const HostTensor*>& inputs, HostTensor& output) override {
    if (!adopted_) return inner_->run(inputs, output);
    try {
      omp_set_num_threads(threads_);
      args_.assign(inputs.begin(), inputs.end());
      for (size_t t = 0; t < in_tmp_.size(); ++t) {
        const size_t i = in_tmp_[t].first;
        memory from(shared_->plain, cpu_engine(), const_cast<float*>(inputs[i]->f32()));
        to_layout_->execute(stream_, from, in_tmp_[t].second);
        args_[i] = &in_views_[t];
      }
      stream_.wait();
      if (native_out_) return inner_->run(args_, output);
      TP_RETURN_IF_ERROR(inner_->run(args_, *out_view_));
      memory to(shared_->plain, cpu_engine(), output.f32());
      to_plain_->execute(stream_, *out_tmp_, to);
      stream_.wait();
    } catch (const dnnl::error& e) {
      return Status::Internal(std::string("element-wise kernel: oneDNN reorder failed: ") + e.what());
    }
    return Status::Ok();
  }

  std::unique_ptr<Kernel> new_instance() const override {
    std::unique_ptr<Kernel> k = inner_->new_instance();
    return k ? std::make_unique<LayoutPassingKernel>(std::move(k), shared_, threads_) : nullptr;
  }
  std::unique_ptr<Kernel> instance_with_threads(int threads) const override {
    std::unique_ptr<Kernel> k = inner_->instance_with_threads(threads);
    return k ? std::make_unique<LayoutPassingKernel>(std::move(k), shared_, threads) : nullptr;
  }

 private:
  bool full(size_t index) const { return index < shared_->full.size() && shared_->full[index]; }

  std::unique_ptr<Kernel> inner_;
  std::shared_ptr<const Shared> shared_;
  int threads_;
  dnnl::stream stream_;
  std::optional<memory::desc> adopted_;
  std::vector<bool> native_in_;
  bool native_out_ = false;
  std::vector<std::pair<size_t, memory>> in_tmp_;  // full-shape inputs that arrive plain, converted here
  std::vector<HostTensor> in_views_;               // in_tmp_'s memory, as the inner kernel's inputs
  std::optional<memory> out_tmp_;                  // the output before it is converted to plain
  std::optional<HostTensor> out_view_;             // out_tmp_'s memory, as the inner kernel's output
  std::vector<const HostTensor*> args_;            // the inner kernel's inputs (no allocation per run)
  std::optional<dnnl::reorder> to_layout_, to_plain_;
};

}  // namespace

bool passes_layouts_through(const ir::Workload& w) {
  if (!element_wise(w.op) || w.output.rank() != 4 || w.output.dtype != ir::DType::kFloat32) return false;
  for (const std::string& op : w.epilogue)
    if (!unary_epilogue(op)) return false;
  bool any_full = false;
  for (const ir::TensorType& t : w.inputs) {
    if (t.dtype != ir::DType::kFloat32) return false;
    if (t.shape == w.output.shape)
      any_full = true;
    else if (t.num_elements() != 1)
      return false;
  }
  return any_full;
}

bool passes_layout_family(const ir::Workload& w, const std::string& family) {
  if (!passes_layouts_through(w)) return false;
  const int64_t channels = w.output.shape[1];
  if (family == "onednn:nhwc") return true;
  if (family == "onednn:blocked16") return channels % 16 == 0;
  if (family == "onednn:blocked8") return channels % 8 == 0;
  return false;
}

std::unique_ptr<Kernel> pass_layouts_through(std::unique_ptr<Kernel> inner, const ir::Workload& w, int threads) {
  if (!inner || !passes_layouts_through(w) || has_native_layout(*inner)) return inner;
  auto shared = std::make_shared<Shared>();
  for (const ir::TensorType& t : w.inputs) shared->full.push_back(t.shape == w.output.shape);
  const ir::Shape& s = w.output.shape;
  shared->type = w.output;
  shared->plain = memory::desc(memory::dims(s.begin(), s.end()), memory::data_type::f32, Tag::nchw);
  for (Tag tag : {Tag::nhwc, Tag::nChw16c, Tag::nChw8c})
    if (std::optional<memory::desc> d = layout_of(w, tag)) shared->layouts.push_back(*d);
  return std::make_unique<LayoutPassingKernel>(std::move(inner), std::move(shared), threads);
}

}  // namespace tensorperf::kernels::onednn
