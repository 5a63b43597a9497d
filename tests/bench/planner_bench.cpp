// Memory planner benchmark: each planner on synthetic ResNet-like training steps of about a
// thousand buffers (compiler/memory/synthetic.h). Prints, per instance and planner, the
// arena, the lower bound, their ratio and the median wall time of several runs. Not a test:
// it asserts nothing and its numbers depend on the machine.
//
//   planner_bench [runs]      (default 5)
//
// The search's wall time is the one number to watch when calibrating: its budget is a work
// cap (compiler/memory/search_planner.cpp), so on the reference machine a search that does
// not reach the lower bound should take about its budget_ms.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_args.h"
#include "compiler/memory/planner.h"
#include "compiler/memory/planner_registry.h"
#include "compiler/memory/synthetic.h"

namespace {

using s2::memory::Buffer;

struct Instance {
  std::string name;
  std::vector<Buffer> buffers;
};

std::vector<Instance> instances() {
  s2::memory::ResNetLike spec;  // ResNet-101's bottleneck layout at batch 8, 64x64 images
  spec.blocks = {3, 4, 23, 3};
  spec.bottleneck = true;
  spec.batch = 8;
  spec.image = 64;
  std::vector<Instance> out;
  spec.update_immediate = true;
  out.push_back({"resnet101-like, update-immediate", resnet_like_buffers(spec)});
  spec.update_immediate = false;
  out.push_back({"resnet101-like, update-last", resnet_like_buffers(spec)});
  spec.jitter = 0.3;
  out.push_back({"resnet101-like, update-last, jittered sizes", resnet_like_buffers(spec)});
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const auto runs = static_cast<int>(
      s2::bench::count_argument(argc, argv, "planner_bench", "planner_bench [RUNS]", 5, 1, 1000));
  const double mib = 1024.0 * 1024.0;
  for (const Instance& instance : instances()) {
    size_t arena_buffers = 0;
    for (const Buffer& b : instance.buffers)
      arena_buffers += b.persistent ? 0 : 1;
    std::printf("%s: %zu buffers (%zu in the arena)\n", instance.name.c_str(),
                instance.buffers.size(), arena_buffers);
    std::printf("  %-11s %12s %12s %8s %10s\n", "planner", "arena MiB", "bound MiB", "ratio",
                "median ms");
    for (const std::string& planner : s2::memory::planner_registry().names()) {
      s2::memory::PlanOptions options;
      options.planner = planner;
      s2::memory::MemoryPlan plan;
      std::vector<double> ms;
      for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        plan = s2::memory::plan_memory(instance.buffers, options);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
      }
      std::printf("  %-11s %12.3f %12.3f %8.4f %10.2f\n", planner.c_str(),
                  static_cast<double>(plan.arena_size) / mib,
                  static_cast<double>(plan.lower_bound) / mib, plan.ratio(), median(ms));
    }
  }
  return 0;
}
