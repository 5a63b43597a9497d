#pragma once
// The zoo's deterministic random numbers (initial weights, the input batch, labels).
//
// Each parameter draws from its own stream, keyed by the model seed and the parameter's
// name: its values do not depend on which other parameters the model has or in which order
// they are created (changing the class count changes only the last layer). The generator is
// SplitMix64 and the conversions are written out here, not taken from <random>, whose
// distributions differ between C++ libraries.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace s2::zoo {

class InitRng {
 public:
  InitRng(uint64_t seed, const std::string& stream);

  uint64_t next();
  // Uniform in [-bound, bound].
  float uniform(float bound);
  // Standard normal, by Marsaglia and Tsang's ziggurat: one 64-bit draw per value almost
  // always (gpt2-small draws 124 million).
  float normal();
  // out[k] = normal() * scale for k < count, the float product of the float draw: the same
  // values as calling normal() for each, in one loop with the state in a register.
  void fill_normal(float* out, size_t count, float scale);
  // Uniform integer in [0, n), n >= 1.
  int32_t below(int32_t n);

 private:
  uint64_t state_;
};

std::vector<float> uniform_values(uint64_t seed, const std::string& stream, size_t count,
                                  float bound);
// count N(0, 1) draws of the stream, each times scale (in float, as x * scale).
std::vector<float> normal_values(uint64_t seed, const std::string& stream, size_t count,
                                 float scale = 1.0f);
std::vector<int32_t> class_labels(uint64_t seed, const std::string& stream, size_t count,
                                  int32_t classes);

}  // namespace s2::zoo
