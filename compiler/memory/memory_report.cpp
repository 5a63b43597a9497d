#include "compiler/memory/memory_report.h"

#include <algorithm>

#include "isa/common/errors.h"
#include "isa/common/json.h"
#include "isa/container/writer.h"

namespace s2::memory {

std::string memory_report_json(const std::vector<Buffer>& buffers, const MemoryPlan& plan) {
  S2_CHECK(plan.address.size() == buffers.size(),
           "memory report: a plan of " + std::to_string(plan.address.size()) + " addresses for " +
               std::to_string(buffers.size()) + " buffers");
  uint64_t steps = 0;
  for (const Buffer& b : buffers)
    steps = std::max(steps, uint64_t{b.last} + 1);

  Json totals = Json::object();
  for (const isa::TensorRole role : isa::all_roles()) {
    uint64_t count = 0, bytes = 0;
    for (const Buffer& b : buffers) {
      if (b.role != role) continue;
      ++count;
      bytes += b.size;
    }
    if (count > 0) totals[std::string(isa::role_name(role))] = {{"count", count}, {"bytes", bytes}};
  }
  Json tensors = Json::array();
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    tensors.push_back({{"name", b.name},
                       {"role", isa::role_name(b.role)},
                       {"size", b.size},
                       {"first", b.first},
                       {"last", b.last},
                       {"persistent", b.persistent},
                       {"space", isa::space_name(b.space)},
                       {"address", plan.address[i]}});
  }
  return json_text({{"planner", plan.planner},
                    {"alignment", plan.alignment},
                    {"steps", steps},
                    {"persistent_bytes", plan.persistent_bytes},
                    {"arena_base", plan.arena_base},
                    {"arena_size", plan.arena_size},
                    {"dram_size", plan.dram_size},
                    {"host_size", plan.host_size},
                    {"lower_bound", plan.lower_bound},
                    {"ratio", plan.ratio()},
                    {"totals", totals},
                    {"tensors", tensors}});
}

void write_memory_report(const std::string& path, const std::vector<Buffer>& buffers,
                         const MemoryPlan& plan) {
  try {
    const std::string json = memory_report_json(buffers, plan);
    isa::write_file(path, std::vector<uint8_t>(json.begin(), json.end()));
  } catch (const UserError& e) {
    throw UserError(std::string("--memory-report: ") + e.what());
  }
}

}  // namespace s2::memory
