#include "isa/asm/disassembler.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "isa/asm/names.h"
#include "isa/common/crc32.h"
#include "isa/common/float_text.h"
#include "isa/common/hex.h"
#include "isa/container/byte_io.h"
#include "isa/numerics/low_precision.h"

namespace s2::isa {
namespace {

std::string join_dims(const uint32_t* dims, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s;
}

std::string type_text(DType dtype, const std::vector<uint32_t>& shape) {
  return std::string(dtype_name(dtype)) + "[" + join_dims(shape.data(), shape.size()) + "]";
}

// Whether d's strides are exactly the dense ones the assembler writes for its shape (a size-1
// dimension's stride addresses nothing, but is still encoded, so it must read back the same).
// A shape whose dense strides would not fit 32 bits is never canonical: its descriptor can
// only hold other strides.
bool canonical_strides(const TensorDesc& d) {
  uint64_t stride = 1;
  for (unsigned i = d.rank; i-- > 0;) {
    if (d.strides[i] != stride) return false;  // also when stride no longer fits 32 bits
    stride *= d.shape[i];                      // < 2^64: stride < 2^32 here
  }
  return true;
}

// "0x40", or "host:0x40" in host memory.
std::string address_text(MemSpace space, uint64_t addr) {
  return (space == MemSpace::Host ? "host:" : "") + hex(addr);
}

std::string operand_text(const Executable& exe, const TensorDesc& d) {
  const bool canonical = canonical_strides(d);
  if (canonical)
    for (const TensorEntry& t : exe.tensors)
      if (t.addr == d.addr && t.space == d.space && t.dtype == d.dtype && t.shape == d.dims())
        return asm_text::quote_name(t.name);
  std::string s = type_text(d.dtype, d.dims());
  if (!canonical) s += "{" + join_dims(d.strides.data(), d.rank) + "}";
  return s + "@" + address_text(d.space, d.addr);
}

std::string field_text(const Instruction& inst, Field f) {
  const FieldInfo& fi = field_info(f);
  const uint32_t v = inst.raw(f);
  switch (fi.kind) {
    case FieldKind::UInt:
    case FieldKind::Flag:
      return std::to_string(v);
    case FieldKind::Int:
      return std::to_string(static_cast<int32_t>(v));
    case FieldKind::Float:
      return format_f32(f32_from_bits(v));
    case FieldKind::Enum:
      for (const EnumValue& e : enum_values(fi.enum_set))
        if (e.value == v) return std::string(e.name);
      return std::to_string(v);  // not reachable for a validated executable
  }
  return std::to_string(v);
}

// A 16-bit float element as the assembler reads it back to the same bits: its value, which
// widens to f32 exactly (bf16 as fp32's top half, subnormals kept), or a NaN's bit pattern.
std::string half_text(DType dtype, uint16_t bits) {
  const bool bf16 = dtype == DType::BF16;
  if (numerics::is_nan16(dtype, bits)) {
    if (bits == (bf16 ? numerics::kBf16CanonicalNaN : numerics::kF16CanonicalNaN)) return "nan";
    return fmt::format("nan:{:#06x}", bits);
  }
  return format_f32(bf16 ? f32_from_bits(uint32_t{bits} << 16) : numerics::f16_to_f32(bits));
}

std::string element_text(DType dtype, const uint8_t* p) {
  switch (dtype) {
    case DType::F32:
      return format_f32(f32_from_bits(load_u32(p)));
    case DType::I32:
      return std::to_string(static_cast<int32_t>(load_u32(p)));
    case DType::U8:
      return std::to_string(unsigned{*p});
    case DType::BF16:
    case DType::F16:
      return half_text(dtype, load_u16(p));
  }
  return "?";
}

std::string data_text(const Executable& exe, const TensorEntry& t, const DisasmOptions& options) {
  if (t.zero_data()) return "zeros";
  const unsigned eb = dtype_bytes(t.dtype);
  const uint64_t n = t.dense_bytes() / eb;
  const uint8_t* p = exe.data.data() + t.data_offset;
  if (options.data_limit != 0 && n > options.data_limit)
    return "<" + std::to_string(n * eb) + " bytes crc32=" + hex(crc32(p, n * eb)) + ">";
  bool uniform = n > 1;
  for (uint64_t i = 1; i < n && uniform; ++i)
    for (unsigned b = 0; b < eb; ++b)
      uniform = uniform && p[i * eb + b] == p[b];
  if (uniform) return "fill(" + element_text(t.dtype, p) + ")";
  // Long lists continue on indented lines of kPerLine values (the brackets keep the
  // statement open for the assembler).
  constexpr uint64_t kPerLine = 12;
  const bool wrap = n > kPerLine;
  std::string s = wrap ? "[\n      " : "[";
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0) s += (wrap && i % kPerLine == 0) ? ",\n      " : ", ";
    s += element_text(t.dtype, p + i * eb);
  }
  return s + "]";
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

constexpr size_t kRoleWidth = 15;  // "optimizer_state"

}  // namespace

std::string format_instruction(const Executable& exe, size_t index) {
  const Instruction& inst = exe.instructions[index];
  std::string s(inst.info().mnemonic);
  for (const OperandSig& sig : inst.info().operands)
    if (const auto& d = inst.operand(sig.slot))
      s += " " + std::string(slot_info(sig.slot).name) + "=" + operand_text(exe, *d);
  for (Field f : inst.info().fields) {
    const FieldInfo& fi = field_info(f);
    if (fi.default_value && *fi.default_value == inst.raw(f)) continue;
    s += " " + std::string(fi.name) + "=" + field_text(inst, f);
  }
  if (!inst.deps.empty()) {
    s += " deps=";
    for (size_t i = 0; i < inst.deps.size(); ++i)
      s += (i ? "," : "") + std::to_string(inst.deps[i]);
  }
  if (index < exe.debug.size() && !exe.debug[index].empty()) {
    s += " from=";
    for (size_t i = 0; i < exe.debug[index].size(); ++i)
      s += (i ? "," : "") + asm_text::quote_name(exe.debug[index][i]);
  }
  return s;
}

std::string disassemble(const Executable& exe, const DisasmOptions& options) {
  std::ostringstream os;
  os << ".target " << asm_text::quote_name(exe.target) << "\n";
  os << ".dram " << hex(exe.plan.dram_size) << "\n";
  if (exe.plan.host_size != 0) os << ".host " << hex(exe.plan.host_size) << "\n";
  os << ".plan planner=" << asm_text::quote_name(exe.plan.planner)
     << " arena=" << hex(exe.plan.arena_base) << "+" << hex(exe.plan.arena_size)
     << " lower_bound=" << hex(exe.plan.lower_bound) << " alignment=" << exe.plan.alignment << "\n";
  if (!exe.tensors.empty()) os << "\n";
  size_t name_width = 0, type_width = 0;
  for (const TensorEntry& t : exe.tensors) {
    name_width = std::max(name_width, asm_text::quote_name(t.name).size());
    type_width = std::max(type_width, type_text(t.dtype, t.shape).size());
  }
  for (const TensorEntry& t : exe.tensors) {
    os << ".tensor " << pad(asm_text::quote_name(t.name), name_width) << " "
       << pad(role_name(t.role), kRoleWidth) << " " << pad(type_text(t.dtype, t.shape), type_width)
       << " @" << address_text(t.space, t.addr);
    if (t.size != t.dense_bytes()) os << " size=" << hex(t.size);
    os << " life=" << t.first << ".." << t.last;
    if (t.has_data()) os << " data=" << data_text(exe, t, options);
    os << "\n";
  }
  os << "\n";
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    std::string index = std::to_string(i);
    if (index.size() < 4) index.insert(0, 4 - index.size(), ' ');
    os << index << ": " << format_instruction(exe, i) << "\n";
  }
  return os.str();
}

}  // namespace s2::isa
