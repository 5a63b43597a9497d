#include "isa/container/executable.h"

#include <algorithm>

#include "isa/common/hex.h"
#include "isa/encoding/codec.h"

namespace s2::isa {

const char* section_name(SectionKind kind) {
  switch (kind) {
    case SectionKind::Instructions:
      return "instructions";
    case SectionKind::Tensors:
      return "tensors";
    case SectionKind::Data:
      return "data";
    case SectionKind::MemoryPlan:
      return "memory-plan";
    case SectionKind::Debug:
      return "debug";
  }
  return "?";
}

std::optional<SectionKind> section_kind_from_code(uint32_t code) {
  if (code >= 1 && code <= 5) return static_cast<SectionKind>(code);
  return std::nullopt;
}

const std::vector<TensorRole>& all_roles() {
  static const std::vector<TensorRole> roles = {
      TensorRole::Weight,         TensorRole::Activation,     TensorRole::Gradient,
      TensorRole::WeightGradient, TensorRole::OptimizerState, TensorRole::Input,
      TensorRole::Label,          TensorRole::Scratch,        TensorRole::State};
  return roles;
}

const char* role_name(TensorRole role) {
  switch (role) {
    case TensorRole::Weight:
      return "weight";
    case TensorRole::Activation:
      return "activation";
    case TensorRole::Gradient:
      return "gradient";
    case TensorRole::WeightGradient:
      return "weight_gradient";
    case TensorRole::OptimizerState:
      return "optimizer_state";
    case TensorRole::Input:
      return "input";
    case TensorRole::Label:
      return "label";
    case TensorRole::Scratch:
      return "scratch";
    case TensorRole::State:
      return "state";
  }
  return "?";
}

std::optional<TensorRole> role_from_code(uint32_t code) {
  for (TensorRole r : all_roles())
    if (static_cast<uint32_t>(r) == code) return r;
  return std::nullopt;
}

std::optional<TensorRole> role_from_name(const std::string& name) {
  for (TensorRole r : all_roles())
    if (name == role_name(r)) return r;
  return std::nullopt;
}

uint64_t TensorEntry::dense_bytes() const {
  uint64_t n = dtype_bytes(dtype);
  for (uint32_t d : shape)
    n = saturating_mul(n, d);
  return n;
}

bool TensorEntry::data_within(uint64_t section_bytes) const {
  const uint64_t n = dense_bytes();
  return zero_data() || (data_offset <= section_bytes && n <= section_bytes - data_offset);
}

bool TensorEntry::operator==(const TensorEntry& o) const {
  return name == o.name && role == o.role && dtype == o.dtype && shape == o.shape &&
         space == o.space && addr == o.addr && size == o.size && first == o.first &&
         last == o.last && data_offset == o.data_offset;
}

bool MemoryPlanSummary::operator==(const MemoryPlanSummary& o) const {
  return dram_size == o.dram_size && arena_base == o.arena_base && arena_size == o.arena_size &&
         lower_bound == o.lower_bound && alignment == o.alignment && planner == o.planner &&
         host_size == o.host_size;
}

bool uses_host_memory(const Executable& exe) {
  if (exe.plan.host_size != 0) return true;
  for (const TensorEntry& t : exe.tensors)
    if (t.space == MemSpace::Host) return true;
  return std::any_of(exe.instructions.begin(), exe.instructions.end(),
                     [](const Instruction& inst) { return inst.names_host_memory(); });
}

uint32_t format_version(const Executable& exe) {
  uint32_t version = uses_host_memory(exe) ? 3 : 2;
  for (const Instruction& inst : exe.instructions)
    version = std::max(version, oldest_layout(inst));
  return version;
}

const TensorEntry* Executable::find_tensor(const std::string& name) const {
  for (const TensorEntry& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string target_name_problem(const std::string& name) {
  if (name.size() > kMaxTargetName)
    return "is " + std::to_string(name.size()) +
           " bytes long; an executable's header holds at most " + std::to_string(kMaxTargetName);
  for (size_t i = 0; i < name.size(); ++i) {
    if (!target_name_char(name[i]))
      return "has byte " + hex(static_cast<unsigned char>(name[i])) + " at position " +
             std::to_string(i) +
             ": a target name is printable ASCII without spaces (an executable's header holds "
             "no other)";
  }
  return "";
}

}  // namespace s2::isa
