#include "compiler/onnx/model_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "compiler/onnx/tensor_data.h"
#include "isa/common/errors.h"
#include "isa/container/reader.h"

namespace s2::onnx_import {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw UserError(path + ": " + problem);
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (const std::string why = isa::not_readable_whole(path); !why.empty())
    fail(path, why + (why == "is a directory" ? ", not an .onnx file"
                                              : "; write the model to a file and give that"));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
  // Protobuf parses no message over 2 GiB - 1 byte; say so before reading gigabytes (a model
  // that large keeps its weights beside it as external data, which is read separately).
  const uint64_t size = std::filesystem::file_size(path, ec);
  constexpr uint64_t kMaxMessage = 2147483647;
  if (!ec && size > kMaxMessage)
    fail(path, "is " + std::to_string(size) + " bytes, more than the " +
                   std::to_string(kMaxMessage) +
                   " bytes protobuf can parse as one ONNX model; export the model with its "
                   "weights as external data (torch.onnx.export does so for models over 2 GB)");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) fail(path, std::string("cannot read the file: ") + std::strerror(errno));
  return bytes.str();
}

std::string text_of(const onnx::StringStringEntryProto& e) {
  return "'" + e.key() + "' = '" + e.value() + "'";
}

uint64_t parse_u64(const std::string& where, const onnx::StringStringEntryProto& e) {
  const std::string& v = e.value();
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    fail(where, "external data entry " + text_of(e) + " is not a non-negative integer");
  return std::stoull(v);
}

// Moves a tensor's external data (ONNX's data_location EXTERNAL: a file beside the model, an
// offset and a length) into its raw_data, so the importer reads it like inline data. The file
// must lie inside the model's directory: a relative path without "..".
void load_external(onnx::TensorProto* t, const std::string& model_path, const std::string& what) {
  const std::string where = model_path + ": " + what;
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto& e : t->external_data()) {
    if (e.key() == "location") {
      location = e.value();
    } else if (e.key() == "offset") {
      offset = parse_u64(where, e);
    } else if (e.key() == "length") {
      length = parse_u64(where, e);
    } else if (e.key() != "checksum") {
      fail(where, "external data entry " + text_of(e) +
                      " is not one ONNX defines (location, offset, length, checksum)");
    }
  }
  const std::filesystem::path rel(location);
  bool inside = !location.empty() && rel.is_relative();
  for (const std::filesystem::path& part : rel)
    inside = inside && part != "..";
  if (!inside)
    fail(where, "external data location '" + location +
                    "' must be a relative path inside the model's directory");
  const std::filesystem::path file = std::filesystem::path(model_path).parent_path() / rel;
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) fail(where, "external data file '" + file.string() + "': " + ec.message());
  if (offset > size || (length && *length > size - offset))
    fail(where, "external data [" + std::to_string(offset) + ", " +
                    std::to_string(offset + length.value_or(0)) + ") reaches past the end of '" +
                    file.string() + "' (" + std::to_string(size) + " bytes)");
  const uint64_t count = length.value_or(size - offset);
  check_raw_data_size(*t, count, where);  // before the bytes are allocated
  std::ifstream in(file, std::ios::binary);
  std::string bytes(count, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(count)))
    fail(where, "cannot read external data file '" + file.string() + "': " + std::strerror(errno));
  t->set_raw_data(std::move(bytes));
  t->clear_external_data();
  t->set_data_location(onnx::TensorProto::DEFAULT);
}

// Every initializer and Constant value stored externally, loaded (PyTorch writes a model of
// more than protobuf's 2 GB limit with external data: regnet_y_128gf).
void load_external_data(onnx::GraphProto* g, const std::string& path) {
  for (onnx::TensorProto& t : *g->mutable_initializer())
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
      load_external(&t, path, "initializer '" + t.name() + "'");
  for (onnx::NodeProto& n : *g->mutable_node())
    for (onnx::AttributeProto& a : *n.mutable_attribute())
      if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL)
        load_external(a.mutable_t(), path, "node '" + n.name() + "' attribute '" + a.name() + "'");
}

}  // namespace

ModelFile load_model_file(const std::string& path) {
  ModelFile file;
  file.path = path;
  const std::string bytes = read_file(path);
  if (!file.model.ParseFromString(bytes))
    fail(path, "not an ONNX model (the file does not parse as an ONNX ModelProto protobuf)");
  // Protobuf parsing is lenient: short or unrelated files often parse as an empty or
  // nonsensical message. A real model always has these.
  if (file.model.ir_version() <= 0 || !file.model.has_graph())
    fail(path, "not an ONNX model (no IR version or no graph)");

  bool found = false;
  for (const onnx::OperatorSetIdProto& op_set : file.model.opset_import()) {
    if (op_set.domain().empty() || op_set.domain() == "ai.onnx") {
      file.opset = op_set.version();
      found = true;
    }
  }
  if (!found) fail(path, "the model imports no ai.onnx opset");
  load_external_data(file.model.mutable_graph(), path);
  if (file.opset < kMinOpset || file.opset > kMaxOpset)
    fail(path, "opset " + std::to_string(file.opset) + " is not supported (ai.onnx opsets " +
                   std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                   " are); re-export with --opset " + std::to_string(kMaxOpset));
  return file;
}

}  // namespace s2::onnx_import
