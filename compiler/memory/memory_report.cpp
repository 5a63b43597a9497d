#include "compiler/memory/memory_report.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "isa/common/errors.h"

namespace s2::memory {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;  // UTF-8 passes through unchanged, as JSON allows
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
  return std::string(buf, r.ptr);
}

std::string field(const char* key, uint64_t value) {
  return std::string("\"") + key + "\": " + std::to_string(value);
}

}  // namespace

std::string memory_report_json(const std::vector<Buffer>& buffers, const MemoryPlan& plan) {
  S2_CHECK(plan.address.size() == buffers.size(),
           "memory report: a plan of " + std::to_string(plan.address.size()) + " addresses for " +
               std::to_string(buffers.size()) + " buffers");
  uint64_t steps = 0;
  for (const Buffer& b : buffers)
    steps = std::max(steps, uint64_t{b.last} + 1);

  std::string s = "{\n";
  s += "  \"planner\": " + json_string(plan.planner) + ",\n";
  s += "  " + field("alignment", plan.alignment) + ",\n";
  s += "  " + field("steps", steps) + ",\n";
  s += "  " + field("persistent_bytes", plan.persistent_bytes) + ",\n";
  s += "  " + field("arena_base", plan.arena_base) + ",\n";
  s += "  " + field("arena_size", plan.arena_size) + ",\n";
  s += "  " + field("dram_size", plan.dram_size) + ",\n";
  s += "  " + field("lower_bound", plan.lower_bound) + ",\n";
  s += "  \"ratio\": " + json_number(plan.ratio()) + ",\n";

  s += "  \"totals\": {";
  bool first_role = true;
  for (const isa::TensorRole role : isa::all_roles()) {
    uint64_t count = 0, bytes = 0;
    for (const Buffer& b : buffers) {
      if (b.role != role) continue;
      ++count;
      bytes += b.size;
    }
    if (count == 0) continue;
    s += std::string(first_role ? "\n" : ",\n") + "    " + json_string(isa::role_name(role)) +
         ": {" + field("count", count) + ", " + field("bytes", bytes) + "}";
    first_role = false;
  }
  s += first_role ? "},\n" : "\n  },\n";

  s += "  \"tensors\": [";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    s += std::string(i ? ",\n" : "\n") + "    {\"name\": " + json_string(b.name) +
         ", \"role\": " + json_string(isa::role_name(b.role)) + ", " + field("size", b.size) +
         ", " + field("first", b.first) + ", " + field("last", b.last) +
         ", \"persistent\": " + (b.persistent ? "true" : "false") + ", " +
         field("address", plan.address[i]) + "}";
  }
  s += buffers.empty() ? "]\n" : "\n  ]\n";
  s += "}\n";
  return s;
}

void write_memory_report(const std::string& path, const std::vector<Buffer>& buffers,
                         const MemoryPlan& plan) {
  const std::string json = memory_report_json(buffers, plan);
  std::ofstream out(path, std::ios::binary);
  if (out) out << json;
  if (!out || !out.flush())
    throw UserError("--memory-report: cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace s2::memory
