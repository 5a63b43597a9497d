#include "simulator/cli/info_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "isa/common/hex.h"

namespace s2::sim {
namespace {

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} {}", v, units[u]) : fmt::format("{:.2f} {}", v, units[u]);
}

std::string shape_text(const isa::TensorEntry& t) {
  std::string s = std::string(isa::dtype_name(t.dtype)) + "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(t.shape[i]);
  return s + "]";
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

void sections(std::ostream& os, const isa::FileLayout& layout) {
  os << "Sections:\n  " << pad("name", 14) << pad("offset", 12) << pad("size", 14) << "crc32\n";
  for (const isa::SectionInfo& s : layout.sections)
    os << "  " << pad(isa::section_name(s.kind), 14) << pad(hex(s.offset), 12)
       << pad(std::to_string(s.size), 14) << hex(s.crc) << "\n";
}

void instruction_mix(std::ostream& os, const isa::Executable& exe) {
  std::map<std::string, size_t> per_unit, per_op;
  size_t deps = 0;
  for (const isa::Instruction& inst : exe.instructions) {
    ++per_unit[std::string(isa::unit_name(inst.info().unit))];
    ++per_op[std::string(inst.info().mnemonic)];
    deps += inst.deps.size();
  }
  os << "Instructions: " << exe.instructions.size() << " (" << deps << " dependencies)\n";
  os << "  by unit:";
  for (const auto& [unit, n] : per_unit)
    os << " " << unit << "=" << n;
  os << "\n  by opcode:";
  for (const auto& [op, n] : per_op)
    os << " " << op << "=" << n;
  os << "\n";
}

void tensor_table(std::ostream& os, const isa::Executable& exe) {
  size_t name_width = 4;
  for (const isa::TensorEntry& t : exe.tensors)
    name_width = std::max(name_width, t.name.size());
  os << "Tensors: " << exe.tensors.size() << "\n  " << pad("name", name_width + 2)
     << pad("role", 17) << pad("type", 22) << pad("address", 14) << pad("bytes", 12)
     << pad("life", 14) << "data\n";
  for (const isa::TensorEntry& t : exe.tensors)
    os << "  " << pad(t.name, name_width + 2) << pad(isa::role_name(t.role), 17)
       << pad(shape_text(t), 22)
       << pad((t.space == isa::MemSpace::Host ? "host:" : "") + hex(t.addr), 14)
       << pad(std::to_string(t.size), 12)
       << pad(std::to_string(t.first) + ".." + std::to_string(t.last), 14)
       << (t.zero_data()  ? "zeros"
           : t.has_data() ? "yes"
                          : "-")
       << "\n";
}

void memory_summary(std::ostream& os, const isa::Executable& exe) {
  const isa::MemoryPlanSummary& p = exe.plan;
  os << "Memory plan:\n"
     << "  planner      " << (p.planner.empty() ? "(none)" : p.planner) << "\n"
     << "  DRAM used    " << hex(p.dram_size) << " (" << human_bytes(p.dram_size) << ")\n";
  if (p.host_size != 0)
    os << "  host used    " << hex(p.host_size) << " (" << human_bytes(p.host_size)
       << ", swap space behind the host link)\n";
  os << "  arena        " << hex(p.arena_base) << " + " << hex(p.arena_size) << " ("
     << human_bytes(p.arena_size) << ")\n"
     << "  lower bound  " << human_bytes(p.lower_bound);
  if (p.lower_bound > 0) {
    os << " (arena / lower bound = "
       << fmt::format("{:.3f}",
                      static_cast<double>(p.arena_size) / static_cast<double>(p.lower_bound))
       << ")";
  }
  os << "\n  alignment    " << p.alignment << " bytes\n  bytes by role:";
  std::map<std::string, uint64_t> per_role;
  for (const isa::TensorEntry& t : exe.tensors)
    per_role[isa::role_name(t.role)] += t.size;
  for (const auto& [role, bytes] : per_role)
    os << " " << role << "=" << human_bytes(bytes);
  os << "\n";
}

}  // namespace

std::string info_report(const isa::Executable& exe, const isa::FileLayout& layout,
                        const std::string& file_name, uint64_t file_bytes) {
  std::ostringstream os;
  os << file_name << ": S2Train executable, format version " << layout.version << ", target "
     << exe.target << ", " << file_bytes << " bytes\n\n";
  sections(os, layout);
  os << "\n";
  instruction_mix(os, exe);
  os << "\n";
  tensor_table(os, exe);
  os << "\n";
  memory_summary(os, exe);
  return os.str();
}

}  // namespace s2::sim
