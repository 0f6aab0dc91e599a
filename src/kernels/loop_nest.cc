#include "kernels/loop_nest.h"

#include <algorithm>
#include <sstream>

namespace tensorperf::kernels {

double Leaf::executions(const std::vector<Loop>& all_loops) const {
  double n = fraction;
  for (int l : loops) n *= all_loops[static_cast<size_t>(l)].trips;
  return n;
}

const BufferInfo* LoopNest::find_buffer(const std::string& name) const {
  for (const BufferInfo& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

namespace {

std::string stride_text(int64_t s) { return s == kUnknownStride ? "?" : std::to_string(s); }

std::string access_text(const Access& a) {
  std::ostringstream o;
  o << a.buffer << "[";
  for (size_t i = 0; i < a.strides.size(); ++i) o << (i ? "," : "") << stride_text(a.strides[i]);
  o << "]";
  if (a.lanes > 1) o << "x" << a.lanes << "/" << stride_text(a.lane_stride);
  if (a.count > 1) o << "*" << a.count;
  return o.str();
}

std::string fmt_trips(double t) {
  std::ostringstream o;
  o.precision(3);
  o << t;
  return o.str();
}

}  // namespace

std::string LoopNest::to_string() const {
  // Loops and leaves interleaved in pre-order.
  struct Item {
    int preorder;
    int depth;
    std::string text;
  };
  std::vector<Item> items;
  for (const Loop& l : loops)
    items.push_back({l.preorder, l.depth,
                     std::string(l.kind == LoopKind::kParallel ? "parallel " : "for ") + l.var + " in 0.." +
                         std::to_string(l.extent) +
                         (l.trips != static_cast<double>(l.extent) ? " (mean " + fmt_trips(l.trips) + ")" : "")});
  for (const Leaf& f : leaves) {
    std::ostringstream o;
    o << f.buffer << (f.lanes > 1 ? "<" + std::to_string(f.lanes) + ">" : "") << " = ";
    if (f.unrolled > 1) o << "(unrolled x" << f.unrolled << ") ";
    if (f.fraction < 1) o << "(in " << f.fraction << " of iterations) ";
    o << "add " << f.ops.float_add << " mul " << f.ops.float_mul << " fma " << f.ops.float_fma << " div "
      << f.ops.float_div << " cmp " << f.ops.float_cmp << " math " << f.ops.float_math << " int " << f.ops.int_ops
      << " | ";
    for (size_t i = 0; i < f.accesses.size(); ++i) o << (i ? " " : "") << (f.accesses[i].is_store ? "store " : "")
                                                     << access_text(f.accesses[i]);
    items.push_back({f.preorder, f.depth, o.str()});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.preorder < b.preorder; });
  std::ostringstream out;
  for (const Allocation& a : allocations)
    out << "allocate " << a.name << " " << a.bytes << " bytes"
        << (a.loop >= 0 ? " in " + loops[static_cast<size_t>(a.loop)].var : std::string()) << "\n";
  for (const Item& i : items) out << std::string(static_cast<size_t>(2 * i.depth), ' ') << i.text << "\n";
  return out.str();
}

nlohmann::json loop_nest_to_json(const LoopNest& nest) {
  using J = nlohmann::json;
  J loops = J::array(), leaves = J::array(), allocs = J::array(), buffers = J::array();
  for (const Loop& l : nest.loops)
    loops.push_back({{"var", l.var},
                     {"extent", l.extent},
                     {"trips", l.trips},
                     {"kind", l.kind == LoopKind::kParallel ? "parallel" : "serial"},
                     {"parent", l.parent},
                     {"depth", l.depth},
                     {"preorder", l.preorder}});
  for (const Leaf& f : nest.leaves) {
    J accesses = J::array();
    for (const Access& a : f.accesses) {
      J strides = J::array();
      for (int64_t s : a.strides) strides.push_back(s == kUnknownStride ? J(nullptr) : J(s));
      accesses.push_back({{"buffer", a.buffer},
                          {"store", a.is_store},
                          {"elem_bytes", a.elem_bytes},
                          {"lanes", a.lanes},
                          {"lane_stride", a.lane_stride == kUnknownStride ? J(nullptr) : J(a.lane_stride)},
                          {"strides", strides},
                          {"count", a.count}});
    }
    const OpCounts& o = f.ops;
    leaves.push_back({{"buffer", f.buffer},
                      {"loops", f.loops},
                      {"parent", f.parent},
                      {"depth", f.depth},
                      {"preorder", f.preorder},
                      {"lanes", f.lanes},
                      {"unrolled", f.unrolled},
                      {"fraction", f.fraction},
                      {"ops",
                       {{"float_add", o.float_add},
                        {"float_mul", o.float_mul},
                        {"float_fma", o.float_fma},
                        {"float_div", o.float_div},
                        {"float_cmp", o.float_cmp},
                        {"float_math", o.float_math},
                        {"int_ops", o.int_ops},
                        {"select", o.select},
                        {"casts", o.casts}}},
                      {"accesses", accesses}});
  }
  for (const Allocation& a : nest.allocations) allocs.push_back({{"name", a.name}, {"bytes", a.bytes}, {"loop", a.loop}});
  for (const BufferInfo& b : nest.buffers)
    buffers.push_back({{"name", b.name}, {"bytes", b.bytes}, {"input", b.is_input}, {"output", b.is_output}});
  return {{"loops", loops}, {"leaves", leaves}, {"allocations", allocs}, {"buffers", buffers}};
}

}  // namespace tensorperf::kernels
