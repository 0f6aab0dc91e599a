// The import pipeline, top to bottom: read and check the file, rewrite recognised patterns, sort the
// nodes, bind initializers and graph inputs, convert each node through the op table, mark the
// outputs, validate.
#include "ir/onnx/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <filesystem>

#include "ir/onnx/gelu_pattern.h"
#include "ir/onnx/import_context.h"
#include "ir/onnx/layer_norm_pattern.h"
#include "ir/onnx/onnx_node.h"
#include "ir/onnx/onnx_reader.h"
#include "ir/onnx/op_table.h"
#include "ir/onnx/tensor_proto.h"
#include "ir/onnx/topo_sort.h"

namespace tensorperf::ir {
namespace {

using onnx_import::ImportContext;

constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 17;

Result<DType> input_dtype(const onnx::ValueInfoProto& v) {
  switch (v.type().tensor_type().elem_type()) {
    case onnx::TensorProto::FLOAT:
      return DType::kFloat32;
    case onnx::TensorProto::FLOAT16:
      return DType::kFloat16;
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::INT32:
      return DType::kInt32;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    default:
      return Status::Unsupported("graph input '" + v.name() + "' has element type " +
                                 onnx::TensorProto::DataType_Name(
                                     static_cast<onnx::TensorProto::DataType>(v.type().tensor_type().elem_type())) +
                                 ", which tensorperf does not import");
  }
}

// A graph input's type. A symbolic dim 0 (the batch) becomes options.batch or 1; options.batch, when
// set, replaces dim 0 of every input; any other symbolic dim is Unsupported.
Result<TensorType> input_type(const onnx::ValueInfoProto& v, const OnnxImportOptions& options) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) {
    return Status::Unsupported("graph input '" + v.name() + "' is not a tensor of known rank");
  }
  TP_ASSIGN_OR_RETURN(DType dtype, input_dtype(v));
  Shape shape;
  const auto& dims = v.type().tensor_type().shape().dim();
  for (int d = 0; d < dims.size(); ++d) {
    if (d == 0 && (options.batch > 0 || !dims[d].has_dim_value())) {
      shape.push_back(options.batch > 0 ? options.batch : 1);
    } else if (dims[d].has_dim_value() && dims[d].dim_value() >= 0) {
      shape.push_back(dims[d].dim_value());
    } else {
      return Status::Unsupported("graph input '" + v.name() + "' has a symbolic dimension '" + dims[d].dim_param() +
                                 "' at axis " + std::to_string(d) + "; export the model with fixed input sizes");
    }
  }
  return TensorType{std::move(shape), dtype};
}

Result<Graph> import_model(onnx::ModelProto& model, const std::string& path, const OnnxImportOptions& options) {
  const int64_t opset = onnx_import::default_opset(model);
  if (opset == 0) {
    std::string domains;
    for (const auto& o : model.opset_import())
      domains += (domains.empty() ? "" : ", ") + o.domain() + " " + std::to_string(o.version());
    return Status::Unsupported("the model imports no ai.onnx opset (only " + (domains.empty() ? "none" : domains) +
                               "); tensorperf imports ai.onnx opsets " + std::to_string(kMinOpset) + " to " +
                               std::to_string(kMaxOpset));
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    return Status::Unsupported("opset " + std::to_string(opset) + " is not supported: tensorperf imports opsets " +
                               std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                               " (re-export with opset_version=13)");
  }
  onnx::GraphProto& proto = *model.mutable_graph();
  onnx_import::fuse_gelu(proto);
  onnx_import::fuse_layer_norm(proto);
  TP_ASSIGN_OR_RETURN(std::vector<int> order, onnx_import::topo_sort(proto));

  Graph graph(std::filesystem::path(path).stem().string());
  ImportContext ctx(graph);
  for (const onnx::TensorProto& t : proto.initializer()) {
    TP_ASSIGN_OR_RETURN(onnx_import::ConstTensor c, onnx_import::tensor_from_proto(t));
    ctx.bind_constant(t.name(), std::move(c));
  }
  for (const onnx::ValueInfoProto& v : proto.input()) {
    if (ctx.is_bound(v.name())) continue;  // an initializer also listed as an input (IR version < 4)
    TP_ASSIGN_OR_RETURN(TensorType type, input_type(v, options));
    ctx.bind_value(v.name(), graph.add_input(v.name(), std::move(type)));
  }
  for (int i : order) {
    const onnx_import::OnnxNode node(proto.node(i), opset);
    const onnx_import::Converter convert = onnx_import::find_converter(proto.node(i).domain(), node.op_type());
    if (convert == nullptr) {
      const std::string& domain = proto.node(i).domain();
      return node.unsupported("operator " + (domain.empty() ? "" : domain + ".") + node.op_type() +
                              " is not supported");
    }
    if (!node.has_output(0)) return node.invalid("has no output");
    TP_RETURN_IF_ERROR(convert(node, ctx));
  }
  for (const onnx::ValueInfoProto& v : proto.output()) {
    TP_ASSIGN_OR_RETURN(ValueId out, ctx.value(v.name()));
    graph.mark_output(out, v.name());
  }
  TP_RETURN_IF_ERROR(graph.validate());
  return graph;
}

// Names in messages come from the file: control characters become \xNN so an error stays one line.
std::string one_line(const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Status with_message(StatusCode code, std::string message) {
  switch (code) {
    case StatusCode::kNotFound:
      return Status::NotFound(std::move(message));
    case StatusCode::kIoError:
      return Status::IoError(std::move(message));
    case StatusCode::kCorruption:
      return Status::Corruption(std::move(message));
    case StatusCode::kUnsupported:
      return Status::Unsupported(std::move(message));
    case StatusCode::kTimeout:
      return Status::Timeout(std::move(message));
    case StatusCode::kInternal:
      return Status::Internal(std::move(message));
    case StatusCode::kOk:
    case StatusCode::kInvalidArgument:
      break;
  }
  return Status::InvalidArgument(std::move(message));
}

// Dim 0 of the first graph input that is not an initializer, when the file fixes it.
int64_t declared_batch(const onnx::GraphProto& graph) {
  for (const onnx::ValueInfoProto& v : graph.input()) {
    bool is_initializer = false;
    for (const onnx::TensorProto& t : graph.initializer()) is_initializer = is_initializer || t.name() == v.name();
    if (is_initializer) continue;
    const auto& shape = v.type().tensor_type().shape();
    return shape.dim_size() > 0 && shape.dim(0).has_dim_value() ? shape.dim(0).dim_value() : 0;
  }
  return 0;
}

// The graph of a parsed model; `path` names it in messages.
Result<Graph> import_parsed(onnx::ModelProto& model, const std::string& path, const OnnxImportOptions& options) {
  const int64_t file_batch = declared_batch(model.graph());
  Result<Graph> graph = import_model(model, path, options);
  if (graph.ok()) return graph;
  std::string message = path + ": " + graph.status().message();
  if (graph.status().code() == StatusCode::kInvalidArgument && options.batch > 0 && file_batch > 0 &&
      options.batch != file_batch) {
    // Exporters often write the batch into Reshape shapes; a different batch then breaks them.
    message += " (the file was exported at batch " + std::to_string(file_batch) +
               "; shapes fixed in it may not allow batch " + std::to_string(options.batch) + ")";
  }
  return with_message(graph.status().code(), one_line(message));
}

}  // namespace

Result<Graph> import_onnx(const std::string& path, const OnnxImportOptions& options) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<onnx::ModelProto> model, onnx_import::read_onnx_model(path));
  return import_parsed(*model, path, options);
}

Result<Graph> import_onnx_bytes(std::string_view bytes, const std::string& name, const OnnxImportOptions& options) {
  TP_ASSIGN_OR_RETURN(std::unique_ptr<onnx::ModelProto> model, onnx_import::parse_onnx_model(bytes, name));
  return import_parsed(*model, name, options);
}

}  // namespace tensorperf::ir
