#include "ir/onnx/topo_sort.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <queue>
#include <set>
#include <string>

namespace tensorperf::ir::onnx_import {
namespace {

std::string node_label(const onnx::NodeProto& n) {
  const std::string name = n.name().empty() && n.output_size() > 0 ? n.output(0) : n.name();
  return "node '" + name + "' (" + n.op_type() + ")";
}

}  // namespace

Result<std::vector<int>> topo_sort(const onnx::GraphProto& graph) {
  const int n = graph.node_size();
  std::set<std::string> sources;  // tensors available before any node runs
  for (const auto& t : graph.initializer()) sources.insert(t.name());
  for (const auto& v : graph.input()) sources.insert(v.name());
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    for (const std::string& out : graph.node(i).output()) {
      if (out.empty()) continue;
      if (!producer.emplace(out, i).second) {
        return Status::InvalidArgument(node_label(graph.node(i)) + " produces tensor '" + out +
                                       "', which another node also produces");
      }
    }
  }
  // deps[i]: the producers node i waits for; users[j]: the nodes waiting for j.
  std::vector<std::vector<int>> deps(n);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : graph.node(i).input()) {
      if (in.empty()) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        if (sources.count(in) == 0) {
          return Status::InvalidArgument(node_label(graph.node(i)) + " reads tensor '" + in +
                                         "', which no node, initializer or graph input provides");
        }
        continue;
      }
      deps[i].push_back(it->second);
      users[it->second].push_back(i);
    }
  }
  std::vector<int> waiting(n);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;  // smallest index first
  for (int i = 0; i < n; ++i) {
    waiting[i] = static_cast<int>(deps[i].size());
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[i]) {
      if (--waiting[u] == 0) ready.push(u);
    }
  }
  if (static_cast<int>(order.size()) == n) return order;
  // Every unsorted node waits on another unsorted one; walking back from any of them must revisit a
  // node, and that node lies on a cycle.
  int at = 0;
  while (waiting[at] == 0) ++at;
  std::vector<bool> seen(n, false);
  while (!seen[at]) {
    seen[at] = true;
    for (int d : deps[at]) {
      if (waiting[d] > 0) {
        at = d;
        break;
      }
    }
  }
  return Status::InvalidArgument("the graph has a cycle through " + node_label(graph.node(at)));
}

}  // namespace tensorperf::ir::onnx_import
