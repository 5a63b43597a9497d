// A yardstick for scripts/bench-large-inputs.sh: the growth this machine shows on work that is
// linear by construction but shaped like the compiler's IR tables (one heap node per item with a
// name, two small vectors and a small map, all found again by name through a hash table). On a
// machine whose caches hold the table at N items but not at 4N, the time per item grows with N
// although the algorithm does not, and a tool's 4N/2N ratio is to be read against this one.
// Not a test: it asserts nothing, and the numbers depend on the machine.
//
//   memory_yardstick [N]      (default 10000; prints one row: seconds at N, 2N and 4N, 4N/2N)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_args.h"

namespace {

struct Node {
  std::string name;
  std::vector<uint64_t> inputs;
  std::vector<uint64_t> outputs;
  std::unordered_map<std::string, uint64_t> attrs;
};

// Builds `n` nodes named in a scattered order, indexes them by name and finds each again, ten
// times over; returns the wall seconds.
double run(uint64_t n) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t checksum = 0;
  for (int round = 0; round < 10; ++round) {
    std::vector<std::unique_ptr<Node>> nodes;
    std::unordered_map<std::string, uint64_t> by_name;
    for (uint64_t i = 0; i < n; ++i) {
      auto node = std::make_unique<Node>();
      node->name = "x" + std::to_string(i * 7919 % n) + "_tensor";
      node->inputs = {i, 0};
      node->outputs = {i + 1};
      node->attrs["k"] = i;
      by_name[node->name] = i;
      nodes.push_back(std::move(node));
    }
    for (uint64_t i = 0; i < n; ++i)
      checksum += by_name.at(nodes[i * 104729 % n]->name);
  }
  if (checksum == 1) std::puts("");  // keeps the lookups
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  // 4N nodes of about 200 bytes each must fit in memory.
  const uint64_t size = s2::bench::count_argument(argc, argv, "memory_yardstick",
                                                  "memory_yardstick [N]", 10000, 1, 100000000);
  const double t1 = run(size), t2 = run(2 * size), t4 = run(4 * size);
  std::printf("%-26s %9.3f %9.3f %9.3f %7.2f\n", "yardstick (linear, tables)", t1, t2, t4, t4 / t2);
  return 0;
}
