#include "isa/asm/disassembler.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <vector>

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

// The tensor table by what an operand must match to print as a tensor's name: its memory,
// address, element type and shape (the first such tensor in table order). A hash, so that a
// listing costs one lookup per operand: a scan of the table per operand made disassembling
// 40000 copies between 40001 tensors take 1.41 s, quadrupling with each doubling.
class TensorNames {
 public:
  explicit TensorNames(const Executable& exe) : exe_(exe) {
    first_.reserve(exe.tensors.size());
    for (size_t i = 0; i < exe.tensors.size(); ++i) {
      const TensorEntry& t = exe.tensors[i];
      first_.emplace(Key{t.space, t.addr, t.dtype, t.shape}, i);  // keeps the first
    }
  }
  // The tensor `d` names exactly (dense strides), if any.
  const TensorEntry* find(const TensorDesc& d) const {
    if (!canonical_strides(d)) return nullptr;
    const auto it = first_.find(Key{d.space, d.addr, d.dtype, d.dims()});
    return it == first_.end() ? nullptr : &exe_.tensors[it->second];
  }

 private:
  struct Key {
    MemSpace space;
    uint64_t addr;
    DType dtype;
    std::vector<uint32_t> shape;
    bool operator==(const Key& o) const {
      return space == o.space && addr == o.addr && dtype == o.dtype && shape == o.shape;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.addr * 0x9e3779b97f4a7c15ull ^ (uint64_t{static_cast<uint8_t>(k.space)} << 8 |
                                                     uint64_t{static_cast<uint8_t>(k.dtype)});
      for (uint32_t dim : k.shape)
        h = (h ^ dim) * 0x100000001b3ull;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  const Executable& exe_;
  std::unordered_map<Key, size_t, KeyHash> first_;
};

std::string operand_text(const TensorNames& names, const TensorDesc& d) {
  if (const TensorEntry* t = names.find(d)) return asm_text::quote_name(t->name);
  const bool canonical = canonical_strides(d);
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

std::string format_instruction(const Executable& exe, const TensorNames& names, size_t index) {
  const Instruction& inst = exe.instructions[index];
  std::string s(inst.info().mnemonic);
  for (const OperandSig& sig : inst.info().operands)
    if (const auto& d = inst.operand(sig.slot))
      s += " " + std::string(slot_info(sig.slot).name) + "=" + operand_text(names, *d);
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

}  // namespace

std::vector<std::string> format_instructions(const Executable& exe) {
  const TensorNames names(exe);
  std::vector<std::string> lines;
  lines.reserve(exe.instructions.size());
  for (size_t i = 0; i < exe.instructions.size(); ++i)
    lines.push_back(format_instruction(exe, names, i));
  return lines;
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
  const std::vector<std::string> lines = format_instructions(exe);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string index = std::to_string(i);
    if (index.size() < 4) index.insert(0, 4 - index.size(), ' ');
    os << index << ": " << lines[i] << "\n";
  }
  return os.str();
}

}  // namespace s2::isa
