#include "runtime/layout_chains.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "kernels/onednn/layout_passing_kernel.h"

namespace tensorperf::runtime {
namespace {

constexpr const char* kAdopt = "onednn:adopt";
constexpr const char* kChannelsLast = "onednn:nhwc";
constexpr const char* kPass = "pass";  // an element-wise plain kernel not yet given a layout

}  // namespace

std::vector<ChainedIo> estimate_chained_io(const ir::Graph& g,
                                           std::span<const std::pair<ir::FusedOp, ir::Workload>> fused,
                                           std::span<const std::string> layouts,
                                           std::vector<ir::NodeId>* channels_last_concats) {
  std::vector<ChainedIo> out(fused.size());
  std::vector<int> owner(g.nodes().size(), -1);  // node -> the fused op it belongs to
  std::vector<int> writer(g.values().size(), -1);  // value -> the fused op whose output it is
  for (size_t i = 0; i < fused.size(); ++i) {
    const ir::FusedOp& f = fused[i].first;
    owner[static_cast<size_t>(f.anchor)] = static_cast<int>(i);
    for (ir::NodeId n : f.fused) owner[static_cast<size_t>(n)] = static_cast<int>(i);
    const ir::Node& last = g.node(f.fused.empty() ? f.anchor : f.fused.back());
    if (!last.outputs.empty()) writer[static_cast<size_t>(last.outputs[0])] = static_cast<int>(i);
  }
  const std::vector<std::vector<ir::NodeId>> consumers = g.consumers();
  std::vector<bool> graph_output(g.values().size(), false);
  for (ir::ValueId v : g.outputs()) graph_output[static_cast<size_t>(v)] = true;
  std::vector<std::string> family(layouts.begin(), layouts.end());
  // Element-wise plain kernels that pass the layout of their inputs through
  // (kernels/onednn/layout_passing_kernel.h): any full-shape input may take it.
  std::vector<bool> passes(fused.size(), false);
  for (size_t i = 0; i < fused.size(); ++i)
    if (family[i].empty() && kernels::onednn::passes_layouts_through(fused[i].second)) {
      passes[i] = true;
      family[i] = kPass;
    }
  auto full_input = [&](int j, ir::ValueId v) {
    return g.type(v).shape == fused[static_cast<size_t>(j)].second.output.shape;
  };
  auto can_pass = [&](int j, const std::string& f) {
    const std::string& fj = family[static_cast<size_t>(j)];
    return fj == f || (fj == kPass && kernels::onednn::passes_layout_family(fused[static_cast<size_t>(j)].second, f));
  };

  // The concats assumed to copy channels last (the executor's fixed point, below).
  std::vector<bool> planned(g.nodes().size(), false);
  // Every reader of v takes family f for it: the anchor of a kernel of family f (or of one that
  // adopts its producer's) reading v as its activation input, an element-wise kernel that passes f
  // through reading v as a full-shape input, the residual add of such a kernel's epilogue (the
  // kernel's sum input takes its output's layout), or a planned concat where f is channels last.
  auto readers_take = [&](ir::ValueId v, const std::string& f, int except) {
    const std::vector<ir::NodeId>& readers = consumers[static_cast<size_t>(v)];
    if (graph_output[static_cast<size_t>(v)] || readers.empty()) return false;
    for (ir::NodeId r : readers) {
      if (planned[static_cast<size_t>(r)] && f == kChannelsLast) continue;
      const int j = owner[static_cast<size_t>(r)];
      if (j < 0 || j == except) return false;
      const ir::Node& node = g.node(r);
      const std::string& fj = family[static_cast<size_t>(j)];
      if (r == fused[static_cast<size_t>(j)].first.anchor && passes[static_cast<size_t>(j)]) {
        if (!full_input(j, v) || !can_pass(j, f)) return false;
      } else if (r == fused[static_cast<size_t>(j)].first.anchor) {
        for (size_t k = 0; k < node.inputs.size(); ++k)
          if (node.inputs[k] == v && k != 0) return false;
        if (fj != f && fj != kAdopt) return false;
      } else if (node.op != ir::OpKind::kAdd || fj != f) {
        return false;
      }
    }
    return true;
  };
  // A candidate for the executor's channels-last concat: along the channels of rank-4 tensors, of
  // distinct values that kernels write (could_hold and holds say what else it needs).
  auto concat_shape = [&](ir::NodeId c) {
    const ir::Node& n = g.node(c);
    if (n.op != ir::OpKind::kConcat || n.outputs.size() != 1 || g.type(n.outputs[0]).rank() != 4) return false;
    const int64_t axis = n.attrs.get_int("axis", 1);
    if (axis != 1 && axis != -3) return false;
    std::set<ir::ValueId> seen;
    for (ir::ValueId v : n.inputs)
      if (writer[static_cast<size_t>(v)] < 0 || graph_output[static_cast<size_t>(v)] || !seen.insert(v).second)
        return false;
    return true;
  };
  // Before adoption: each input's writer is channels last or may adopt a layout.
  auto could_hold = [&](ir::NodeId c) {
    const ir::Node& n = g.node(c);
    for (ir::ValueId v : n.inputs) {
      const int w = writer[static_cast<size_t>(v)];
      const std::string& fw = family[static_cast<size_t>(w)];
      if ((fw != kChannelsLast && fw != kAdopt && fw != kPass) || !readers_take(v, kChannelsLast, w)) return false;
    }
    return readers_take(n.outputs[0], kChannelsLast, -1);
  };
  // After adoption: each input written channels last and taken so by its other readers, the
  // output taken channels last by every reader.
  auto holds = [&](ir::NodeId c) {
    const ir::Node& n = g.node(c);
    for (ir::ValueId v : n.inputs) {
      const int w = writer[static_cast<size_t>(v)];
      if (family[static_cast<size_t>(w)] != kChannelsLast || !readers_take(v, kChannelsLast, w)) return false;
    }
    return readers_take(n.outputs[0], kChannelsLast, -1);
  };
  // The family value v's producer writes ("": none), for a reader that adopts it.
  auto written = [&](ir::ValueId v) -> std::string {
    if (const int w = writer[static_cast<size_t>(v)];
        w >= 0 && family[static_cast<size_t>(w)] != kAdopt && family[static_cast<size_t>(w)] != kPass)
      return family[static_cast<size_t>(w)];
    if (const ir::Value& value = g.value(v);
        value.kind == ir::ValueKind::kNodeOutput && planned[static_cast<size_t>(value.producer)])
      return kChannelsLast;
    return "";
  };
  // Every element-wise reader of v not given a layout yet takes f (the executor adopts it for all
  // readers of v at once).
  auto pass_readers_take = [&](ir::ValueId v, const std::string& f) {
    for (ir::NodeId r : consumers[static_cast<size_t>(v)])
      if (const int j = owner[static_cast<size_t>(r)]; j >= 0 && family[static_cast<size_t>(j)] == kPass)
        family[static_cast<size_t>(j)] = f;
  };
  // Adoption, in order: a kernel of family "onednn:adopt" takes its producer's family when every
  // reader of that value takes it too; else it stays plain. An element-wise kernel takes the family
  // of its first full-shape input whose producer writes one that every reader of it takes.
  auto adopt = [&] {
    for (size_t i = 0; i < fused.size(); ++i) {
      if (family[i] == kPass) {
        const ir::Node& anchor = g.node(fused[i].first.anchor);
        for (ir::ValueId v : anchor.inputs) {
          if (!full_input(static_cast<int>(i), v)) continue;
          const std::string f = written(v);
          if (f.empty() || !kernels::onednn::passes_layout_family(fused[i].second, f) ||
              !readers_take(v, f, writer[static_cast<size_t>(v)]))
            continue;
          pass_readers_take(v, f);
          break;
        }
        if (family[i] == kPass) family[i].clear();
        continue;
      }
      if (family[i] != kAdopt) continue;
      const ir::Node& anchor = g.node(fused[i].first.anchor);
      if (anchor.inputs.empty()) {
        family[i].clear();
        continue;
      }
      const ir::ValueId v = anchor.inputs[0];
      const std::string f = written(v);
      const bool take = !f.empty() && readers_take(v, f, writer[static_cast<size_t>(v)]);
      family[i] = take ? f : "";
      if (take) pass_readers_take(v, f);
    }
    for (std::string& f : family)
      if (f == kAdopt || f == kPass) f.clear();
  };
  // As the executor: every concat that could copy channels last is assumed to, adoption runs, and
  // the concats it did not bear out are dropped and adoption runs again, until none is dropped.
  // Unplans the concats that fail `check`; whether any did.
  auto drop_failing = [&](const std::function<bool(ir::NodeId)>& check) {
    bool dropped = false;
    for (size_t n = 0; n < g.nodes().size(); ++n)
      if (planned[n] && !check(static_cast<ir::NodeId>(n))) {
        planned[n] = false;
        dropped = true;
      }
    return dropped;
  };
  for (size_t n = 0; n < g.nodes().size(); ++n) planned[n] = concat_shape(static_cast<ir::NodeId>(n));
  while (drop_failing(could_hold)) {
  }
  const std::vector<std::string> initial = family;
  do {
    family = initial;
    adopt();
  } while (drop_failing(holds));
  std::vector<ir::NodeId> concats;
  for (size_t n = 0; n < g.nodes().size(); ++n)
    if (planned[n]) {
      concats.push_back(static_cast<ir::NodeId>(n));
      for (ir::NodeId r : consumers[static_cast<size_t>(g.node(static_cast<ir::NodeId>(n)).outputs[0])])
        out[static_cast<size_t>(owner[static_cast<size_t>(r)])].input = true;
    }
  if (channels_last_concats != nullptr) *channels_last_concats = std::move(concats);

  for (size_t i = 0; i < fused.size(); ++i) {
    if (family[i].empty()) continue;
    const ir::FusedOp& f = fused[i].first;
    const ir::Node& last = g.node(f.fused.empty() ? f.anchor : f.fused.back());
    if (last.outputs.empty()) continue;
    const ir::ValueId v = last.outputs[0];
    if (!readers_take(v, family[i], static_cast<int>(i))) continue;
    out[i].output = true;
    for (ir::NodeId r : consumers[static_cast<size_t>(v)])
      if (const int j = owner[static_cast<size_t>(r)]; j >= 0 && r == fused[static_cast<size_t>(j)].first.anchor)
        out[static_cast<size_t>(j)].input = true;
  }
  // An element-wise kernel given a layout reorders into it each full-shape input that arrives plain
  // (its writer's output not kept in a layout, and not a channels-last concat's) and out of it an
  // output that no reader takes in it.
  for (size_t i = 0; i < fused.size(); ++i) {
    if (!passes[i] || family[i].empty()) continue;
    const int64_t bytes = fused[i].second.output.num_bytes();
    if (!out[i].output) out[i].converted_bytes += bytes;
    for (ir::ValueId v : g.node(fused[i].first.anchor).inputs) {
      if (!full_input(static_cast<int>(i), v)) continue;
      const int w = writer[static_cast<size_t>(v)];
      const ir::Value& value = g.value(v);
      const bool planned_concat = value.kind == ir::ValueKind::kNodeOutput && planned[static_cast<size_t>(value.producer)];
      if (!planned_concat && !(w >= 0 && out[static_cast<size_t>(w)].output)) out[i].converted_bytes += bytes;
    }
  }
  return out;
}

}  // namespace tensorperf::runtime
