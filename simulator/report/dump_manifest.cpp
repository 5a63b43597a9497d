#include "simulator/report/dump_manifest.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "isa/common/errors.h"
#include "isa/io/npy.h"
#include "simulator/report/json_text.h"

namespace s2::sim::report {
namespace {

using isa::Field;
using isa::Opcode;
using isa::Slot;

uint64_t elements(const isa::TensorEntry& e) {
  uint64_t n = 1;
  for (uint32_t d : e.shape)
    n = isa::saturating_mul(n, d);
  return n;
}

// The tensor-table entry an operand of instruction `index` stands for: live there, starting at
// the operand's address, with its element count. The plan reuses addresses, so a written
// operand may also match the entry that ends here and a read one the entry that starts here:
// a written operand is the entry whose lifetime starts here, a read one an entry that already
// holds data (initial data, or produced earlier).
// nullptr when that leaves no entry or more than one.
const isa::TensorEntry* operand_tensor(const isa::Executable& exe, uint32_t index, Slot slot,
                                       bool written) {
  const std::optional<isa::TensorDesc>& desc = exe.instructions[index].operand(slot);
  if (!desc) return nullptr;
  const isa::TensorEntry* found = nullptr;
  for (const isa::TensorEntry& e : exe.tensors) {
    if (e.addr != desc->addr || e.first > index || e.last < index) continue;
    if (elements(e) != desc->elements()) continue;
    const bool produced_here = e.first == index && !e.has_data();
    if (written ? e.first != index : produced_here) continue;
    if (found != nullptr) return nullptr;
    found = &e;
  }
  return found;
}

std::string name_or_null(const isa::TensorEntry* e) {
  return e == nullptr ? "null" : json_string(e->name);
}

std::string source_op(const isa::Executable& exe, uint32_t index) {
  return index < exe.debug.size() && !exe.debug[index].empty() ? exe.debug[index].front() : "";
}

bool applies_relu(const isa::Instruction& inst) {
  if (inst.has_field(Field::Act) && inst.as<isa::Activation>(Field::Act) == isa::Activation::Relu)
    return true;
  return inst.opcode() == Opcode::Eltwise &&
         inst.as<isa::EltwiseOp>(Field::Op) == isa::EltwiseOp::Relu;
}

void write_sgd(const isa::Executable& exe, std::ostream& os) {
  os << "  \"sgd\": [";
  const char* sep = "\n";
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::Sgd) continue;
    os << sep << "    {\"weight\": " << name_or_null(operand_tensor(exe, i, Slot::Weight, false))
       << ", \"grad\": " << name_or_null(operand_tensor(exe, i, Slot::Grad, false))
       << ", \"velocity\": " << name_or_null(operand_tensor(exe, i, Slot::Velocity, false))
       << ", \"lr\": " << json_number(inst.f32(Field::Lr))
       << ", \"momentum\": " << json_number(inst.f32(Field::Momentum))
       << ", \"weight_decay\": " << json_number(inst.f32(Field::WeightDecay)) << "}";
    sep = ",\n";
  }
  os << "\n  ],\n";
}

// The forward pass's decisions, in program order.
void write_decisions(const isa::Executable& exe, std::ostream& os) {
  os << "  \"decisions\": [";
  const char* sep = "\n";
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    const isa::TensorEntry* tensor = nullptr;
    std::string op;
    const char* type = nullptr;
    if (inst.opcode() == Opcode::MaxPoolFwd) {
      tensor = operand_tensor(exe, i, Slot::Idx, true);
      op = source_op(exe, i);
      type = "max_pool2d";
    } else if (applies_relu(inst)) {
      tensor = operand_tensor(exe, i, Slot::Y, true);
      if (tensor != nullptr) op = tensor->name;
      type = "relu";
    } else {
      continue;
    }
    os << sep << "    {\"op\": " << (op.empty() ? "null" : json_string(op)) << ", \"type\": \""
       << type << "\", \"tensor\": " << name_or_null(tensor) << ", \"instruction\": " << i << "}";
    sep = ",\n";
  }
  os << "\n  ],\n";
}

void write_loss(const isa::Executable& exe, std::ostream& os) {
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    if (inst.opcode() != Opcode::SoftmaxCe || !inst.operand(Slot::Loss)) continue;
    os << "  \"softmax_ce\": {\"logits\": "
       << name_or_null(operand_tensor(exe, i, Slot::Logits, false))
       << ", \"labels\": " << name_or_null(operand_tensor(exe, i, Slot::Labels, false))
       << ", \"loss\": " << name_or_null(operand_tensor(exe, i, Slot::Loss, true)) << "},\n";
    return;
  }
  os << "  \"softmax_ce\": null,\n";
}

void write_tensors(const isa::Executable& exe, const DumpRun& run, std::ostream& os) {
  std::vector<bool> dumped(exe.tensors.size(), false);
  for (size_t t : run.dumped)
    dumped.at(t) = true;
  os << "  \"tensors\": [";
  for (size_t t = 0; t < exe.tensors.size(); ++t) {
    const isa::TensorEntry& e = exe.tensors[t];
    std::string shape;
    for (uint32_t d : e.shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    const std::string file = dump_file_name(e.name);
    os << (t == 0 ? "\n" : ",\n") << "    {\"name\": " << json_string(e.name)
       << ", \"role\": " << json_string(isa::role_name(e.role)) << ", \"shape\": [" << shape
       << "], \"dtype\": " << json_string(isa::dtype_name(e.dtype))
       << ", \"file\": " << (dumped[t] ? json_string(file) : "null")
       << ", \"initial\": " << (e.has_data() ? json_string("initial/" + file) : "null") << "}";
  }
  os << "\n  ]\n";
}

void write_initial_data(const std::string& dir, const isa::Executable& exe) {
  const std::filesystem::path initial = std::filesystem::path(dir) / "initial";
  std::error_code ec;
  std::filesystem::create_directories(initial, ec);
  if (ec) throw UserError(initial.string() + ": cannot create the directory: " + ec.message());
  for (const isa::TensorEntry& e : exe.tensors) {
    if (!e.has_data()) continue;
    // The reader validated that the data lies inside the data section.
    const auto begin = exe.data.begin() + static_cast<std::ptrdiff_t>(e.data_offset);
    const std::vector<uint8_t> bytes(begin, begin + static_cast<std::ptrdiff_t>(e.dense_bytes()));
    npy::write((initial / dump_file_name(e.name)).string(), e.dtype,
               npy::Shape(e.shape.begin(), e.shape.end()), bytes);
  }
}

}  // namespace

std::string dump_file_name(const std::string& tensor) {
  std::string name = tensor;
  for (char& c : name)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return name + ".npy";
}

void write_dump_manifest(const std::string& dir, const isa::Executable& exe, const DumpRun& run) {
  write_initial_data(dir, exe);
  std::ostringstream os;
  os << "{\n  \"format\": " << json_string(kDumpManifestFormat)
     << ",\n  \"executable\": " << json_string(run.executable)
     << ",\n  \"target\": " << json_string(exe.target)
     << ",\n  \"config\": " << json_string(run.config) << ",\n  \"steps\": " << run.steps
     << ",\n  \"loss\": " << (run.loss ? json_number(*run.loss) : "null") << ",\n";
  write_loss(exe, os);
  write_sgd(exe, os);
  write_decisions(exe, os);
  write_tensors(exe, run, os);
  os << "}\n";
  const std::string path = (std::filesystem::path(dir) / "manifest.json").string();
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw UserError(path + ": cannot open for writing");
  file << os.str();
  file.flush();
  if (!file) throw UserError(path + ": write failed");
}

}  // namespace s2::sim::report
