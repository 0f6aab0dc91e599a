#include "ir/graph_dot.h"

namespace tensorperf::ir {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string type_label(const Value& v) { return v.type ? shape_to_string(v.type->shape) : "?"; }

}  // namespace

std::string to_dot(const Graph& g) {
  std::string out = "digraph \"" + escape(g.name()) + "\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (ValueId v : g.inputs())
    out += "  v" + std::to_string(v) + " [shape=ellipse, label=\"" + escape(g.value(v).name) + "\\n" +
           type_label(g.value(v)) + "\"];\n";
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    out += "  n" + std::to_string(i) + " [shape=box, label=\"" + escape(n.name) + "\\n" + std::string(op_name(n.op)) +
           "\\n" + type_label(g.value(n.outputs[0])) + "\"];\n";
  }
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    for (ValueId in : g.node(static_cast<NodeId>(i)).inputs) {
      const Value& v = g.value(in);
      std::string from;
      if (v.kind == ValueKind::kInput) from = "v" + std::to_string(in);
      else if (v.kind == ValueKind::kNodeOutput) from = "n" + std::to_string(v.producer);
      else continue;
      out += "  " + from + " -> n" + std::to_string(i) + " [label=\"" + type_label(v) + "\"];\n";
    }
  }
  return out + "}\n";
}

}  // namespace tensorperf::ir
