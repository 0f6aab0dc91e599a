#include "graphsched/merge.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "ir/task_extraction.h"
#include "runtime/constants.h"

namespace tensorperf::graphsched {

using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

Result<MergePlanner> MergePlanner::analyse(const ir::Graph& g) {
  MergePlanner p;
  p.graph_ = &g;
  TP_ASSIGN_OR_RETURN(auto ops, ir::fuse_graph(g));
  for (const auto& [f, w] : ops) {
    const ir::Node& a = g.node(f.anchor);
    if (a.op != OpKind::kConv2d || a.inputs.size() < 2 || !g.is_constant(a.inputs[1])) continue;
    if (a.inputs.size() == 3 && !g.is_constant(a.inputs[2])) continue;
    if (a.attrs.get_int("groups", 1) != 1) continue;
    const std::vector<int64_t> dil = a.attrs.get_ints("dilations", {1, 1});
    if (std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; })) continue;
    Conv c;
    c.anchor = f.anchor;
    c.input = a.inputs[0];
    c.strides = a.attrs.get_ints("strides", {1, 1});
    c.pads = a.attrs.get_ints("pads", {0, 0, 0, 0});
    const ir::Shape& ws = g.type(a.inputs[1]).shape;
    c.out_channels = ws[0];
    c.kh = ws[2];
    c.kw = ws[3];
    ValueId cur = a.outputs[0];
    bool ok = true;
    for (NodeId id : f.fused) {
      const ir::Node& n = g.node(id);
      if (n.op == OpKind::kBatchNorm && !c.relu) {
        for (size_t i = 1; i < n.inputs.size(); ++i) ok = ok && g.is_constant(n.inputs[i]);
      } else if (n.op == OpKind::kAdd && !c.relu) {
        const ValueId other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
        ok = ok && g.is_constant(other) && g.type(other).num_elements() == c.out_channels;
      } else if (n.op == OpKind::kRelu && !c.relu) {
        c.relu = true;
      } else {
        ok = false;
      }
      c.chain.push_back(id);
      cur = n.outputs[0];
    }
    if (!ok) continue;
    c.tail = cur;
    p.convs_[a.name] = std::move(c);
  }
  return p;
}

namespace {

struct Geometry {
  int64_t kh = 0, kw = 0;
  std::vector<int64_t> pads;
};

// The merged kernel size and padding, when every member pads to them centred.
std::optional<Geometry> common_geometry(const std::vector<const MergePlanner::Conv*>& convs) {
  Geometry geo;
  for (const MergePlanner::Conv* c : convs) geo.kh = std::max(geo.kh, c->kh), geo.kw = std::max(geo.kw, c->kw);
  for (const MergePlanner::Conv* c : convs) {
    if ((geo.kh - c->kh) % 2 || (geo.kw - c->kw) % 2) return std::nullopt;
    const int64_t oy = (geo.kh - c->kh) / 2, ox = (geo.kw - c->kw) / 2;
    std::vector<int64_t> pads = {c->pads[0] + oy, c->pads[1] + ox, c->pads[2] + oy, c->pads[3] + ox};
    if (geo.pads.empty()) geo.pads = pads;
    else if (pads != geo.pads) return std::nullopt;
  }
  return geo;
}

}  // namespace

bool MergePlanner::can_merge(const std::vector<std::string>& ops) const {
  if (ops.size() < 2) return false;
  std::vector<const Conv*> convs;
  std::set<std::string> seen;
  for (const std::string& name : ops) {
    auto it = convs_.find(name);
    if (it == convs_.end() || !seen.insert(name).second) return false;
    convs.push_back(&it->second);
  }
  for (const Conv* c : convs)
    if (c->input != convs[0]->input || c->strides != convs[0]->strides || c->relu != convs[0]->relu) return false;
  return common_geometry(convs).has_value();
}

namespace {

std::shared_ptr<const std::vector<std::byte>> bytes_of(const float* data, size_t n) {
  auto v = std::make_shared<std::vector<std::byte>>(n * sizeof(float));
  std::memcpy(v->data(), data, n * sizeof(float));
  return v;
}

// The merged weight [sum O, C, KH, KW] and bias [sum O] of `convs`, batch norms and bias adds folded.
Status merged_constants(const ir::Graph& g, const std::vector<std::shared_ptr<kernels::HostTensor>>& constants,
                        const std::vector<const MergePlanner::Conv*>& convs, const Geometry& geo,
                        std::vector<float>& weight, std::vector<float>& bias, int64_t& channels_in) {
  int64_t total = 0;
  for (const MergePlanner::Conv* c : convs) total += c->out_channels;
  channels_in = g.type(g.node(convs[0]->anchor).inputs[1]).shape[1];
  const int64_t C = channels_in;
  weight.assign(total * C * geo.kh * geo.kw, 0.0f);
  bias.assign(total, 0.0f);
  int64_t row = 0;
  for (const MergePlanner::Conv* c : convs) {
    const ir::Node& a = g.node(c->anchor);
    const int64_t O = c->out_channels;
    std::vector<float> scale(O, 1.0f), b(O, 0.0f);
    if (a.inputs.size() == 3) std::copy_n(constants[a.inputs[2]]->f32(), O, b.begin());
    ValueId cur = a.outputs[0];
    for (NodeId id : c->chain) {
      const ir::Node& n = g.node(id);
      if (n.op == OpKind::kBatchNorm) {
        const float* gamma = constants[n.inputs[1]]->f32();
        const float* beta = constants[n.inputs[2]]->f32();
        const float* mean = constants[n.inputs[3]]->f32();
        const float* var = constants[n.inputs[4]]->f32();
        const double eps = n.attrs.get_float("epsilon", 1e-5);
        for (int64_t o = 0; o < O; ++o) {
          const float s = static_cast<float>(gamma[o] / std::sqrt(static_cast<double>(var[o]) + eps));
          scale[o] *= s;
          b[o] = (b[o] - mean[o]) * s + beta[o];
        }
      } else if (n.op == OpKind::kAdd) {
        const ValueId other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
        const float* add = constants[other]->f32();
        for (int64_t o = 0; o < O; ++o) b[o] += add[o];
      }
      cur = n.outputs[0];
    }
    const float* w = constants[a.inputs[1]]->f32();
    const int64_t oy = (geo.kh - c->kh) / 2, ox = (geo.kw - c->kw) / 2;
    for (int64_t o = 0; o < O; ++o) {
      bias[row + o] = b[o];
      for (int64_t ci = 0; ci < C; ++ci)
        for (int64_t y = 0; y < c->kh; ++y)
          for (int64_t x = 0; x < c->kw; ++x)
            weight[(((row + o) * C + ci) * geo.kh + y + oy) * geo.kw + x + ox] =
                w[((o * C + ci) * c->kh + y) * c->kw + x] * scale[o];
    }
    row += O;
  }
  return Status::Ok();
}

// Adds the merged conv (+ relu) and its split to `out`, reading `input`; returns the split's outputs.
Result<std::vector<ValueId>> add_merged(ir::Graph& out, const std::string& name, ValueId input,
                                        const std::vector<const MergePlanner::Conv*>& convs, const Geometry& geo,
                                        const std::vector<float>& weight, const std::vector<float>& bias,
                                        int64_t channels_in) {
  int64_t total = 0;
  std::vector<int64_t> sizes;
  for (const MergePlanner::Conv* c : convs) total += c->out_channels, sizes.push_back(c->out_channels);
  const ValueId w = out.add_constant(name + "/weight", ir::TensorType{{total, channels_in, geo.kh, geo.kw}, ir::DType::kFloat32},
                                     bytes_of(weight.data(), weight.size()));
  const ValueId b = out.add_constant(name + "/bias", ir::TensorType{{total}, ir::DType::kFloat32}, bytes_of(bias.data(), bias.size()));
  ir::Attrs attrs;
  attrs.set("strides", convs[0]->strides);
  attrs.set("pads", geo.pads);
  attrs.set("dilations", std::vector<int64_t>{1, 1});
  attrs.set("groups", int64_t{1});
  TP_ASSIGN_OR_RETURN(ValueId y, out.add_op(OpKind::kConv2d, name, {input, w, b}, attrs));
  if (convs[0]->relu) {
    TP_ASSIGN_OR_RETURN(y, out.add_op(OpKind::kRelu, name + "/relu", {y}));
  }
  ir::Attrs split;
  split.set("axis", int64_t{1});
  split.set("sizes", sizes);
  TP_ASSIGN_OR_RETURN(NodeId s, out.add_node(OpKind::kSplit, name + "/split", {y}, split, static_cast<int>(convs.size())));
  return out.node(s).outputs;
}

}  // namespace

Result<ir::Graph> MergePlanner::merged_subgraph(const std::vector<std::string>& ops, uint64_t seed) const {
  if (!can_merge(ops)) return Status::InvalidArgument("these operators cannot merge");
  const ir::Graph& g = *graph_;
  std::vector<const Conv*> convs;
  for (const std::string& n : ops) convs.push_back(&convs_.at(n));
  if (constants_.empty() || constants_seed_ != seed) {
    TP_ASSIGN_OR_RETURN(constants_, runtime::load_constants(g, seed));
    constants_seed_ = seed;
  }
  const auto& constants = constants_;
  const Geometry geo = *common_geometry(convs);
  std::vector<float> weight, bias;
  int64_t channels_in = 0;
  TP_RETURN_IF_ERROR(merged_constants(g, constants, convs, geo, weight, bias, channels_in));
  ir::Graph out("merged");
  const ValueId x = out.add_input("x", g.type(convs[0]->input));
  std::string name = "merge:";
  for (size_t i = 0; i < ops.size(); ++i) name += (i ? "+" : "") + ops[i];
  TP_ASSIGN_OR_RETURN(std::vector<ValueId> outs, add_merged(out, name, x, convs, geo, weight, bias, channels_in));
  for (ValueId v : outs) out.mark_output(v);
  TP_RETURN_IF_ERROR(out.validate());
  return out;
}

Result<ir::Graph> apply_merges(const ir::Graph& g, const std::vector<runtime::MergeSpec>& merges, uint64_t seed) {
  if (merges.empty()) return g;
  TP_ASSIGN_OR_RETURN(MergePlanner planner, MergePlanner::analyse(g));
  TP_ASSIGN_OR_RETURN(auto constants, runtime::load_constants(g, seed));
  std::map<std::string, NodeId> by_name;
  for (size_t i = 0; i < g.nodes().size(); ++i) by_name[g.nodes()[i].name] = static_cast<NodeId>(i);
  // Per merge: its members, and the node where the merged operator goes (the first member's anchor).
  std::vector<std::vector<const MergePlanner::Conv*>> members(merges.size());
  std::map<NodeId, size_t> emit_at;
  std::set<NodeId> removed;
  for (size_t m = 0; m < merges.size(); ++m) {
    if (!planner.can_merge(merges[m].ops))
      return Status::InvalidArgument("merge '" + merges[m].name +
                                     "': its operators are not convolutions of one input that can merge here");
    NodeId first = -1;
    for (const std::string& op : merges[m].ops) {
      const MergePlanner::Conv* c = planner.conv(op);
      members[m].push_back(c);
      first = first < 0 ? c->anchor : std::min(first, c->anchor);
      if (!removed.insert(c->anchor).second) return Status::InvalidArgument("operator '" + op + "' is merged twice");
      removed.insert(c->chain.begin(), c->chain.end());
    }
    emit_at[first] = m;
  }
  ir::Graph out(g.name());
  std::vector<ValueId> map(g.values().size(), -1);
  for (ValueId v : g.inputs()) map[v] = out.add_input(g.value(v).name, g.type(v));
  auto value = [&](ValueId v) -> ValueId {
    if (map[v] < 0 && g.is_constant(v)) {
      const kernels::HostTensor& t = *constants[v];
      auto data = std::make_shared<std::vector<std::byte>>(t.bytes(), t.bytes() + t.type().num_bytes());
      map[v] = out.add_constant(g.value(v).name, g.type(v), std::move(data));
    }
    return map[v];
  };
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const NodeId id = static_cast<NodeId>(i);
    const ir::Node& n = g.node(id);
    if (removed.count(id)) {
      auto at = emit_at.find(id);
      if (at == emit_at.end()) continue;
      const size_t m = at->second;
      const Geometry geo = *common_geometry(members[m]);
      std::vector<float> weight, bias;
      int64_t channels_in = 0;
      TP_RETURN_IF_ERROR(merged_constants(g, constants, members[m], geo, weight, bias, channels_in));
      const ValueId input = value(members[m][0]->input);
      if (input < 0) return Status::Internal("merge '" + merges[m].name + "' reads a value not yet defined");
      TP_ASSIGN_OR_RETURN(std::vector<ValueId> outs,
                          add_merged(out, merges[m].name, input, members[m], geo, weight, bias, channels_in));
      for (size_t k = 0; k < outs.size(); ++k) map[members[m][k]->tail] = outs[k];
      continue;
    }
    // A concat of a merge's whole output, its parts in order, is the merged output itself.
    if (n.op == OpKind::kConcat && n.attrs.get_int("axis", 1) == 1 && !n.inputs.empty()) {
      const ValueId first = value(n.inputs[0]);
      if (first >= 0 && out.value(first).kind == ir::ValueKind::kNodeOutput) {
        const ir::Node& split = out.node(out.value(first).producer);
        bool whole = split.op == OpKind::kSplit && split.name.size() > 6 &&
                     split.name.compare(split.name.size() - 6, 6, "/split") == 0 && split.outputs.size() == n.inputs.size();
        for (size_t k = 0; whole && k < n.inputs.size(); ++k) whole = value(n.inputs[k]) == split.outputs[k];
        if (whole) {
          map[n.outputs[0]] = split.inputs[0];
          continue;
        }
      }
    }
    std::vector<ValueId> inputs;
    for (ValueId v : n.inputs) {
      const ValueId nv = value(v);
      if (nv < 0) return Status::Internal("node '" + n.name + "' reads a value that the merges left undefined");
      inputs.push_back(nv);
    }
    TP_ASSIGN_OR_RETURN(NodeId nid, out.add_node(n.op, n.name, inputs, n.attrs, static_cast<int>(n.outputs.size())));
    for (size_t k = 0; k < n.outputs.size(); ++k) map[n.outputs[k]] = out.node(nid).outputs[k];
  }
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const ValueId v = map[g.outputs()[i]];
    if (v < 0) return Status::Internal("a graph output is undefined after merging");
    const std::string& name = g.output_name(i);
    out.mark_output(v, name.empty() ? g.value(g.outputs()[i]).name : name);
  }
  TP_RETURN_IF_ERROR(out.validate());
  return out;
}

}  // namespace tensorperf::graphsched
