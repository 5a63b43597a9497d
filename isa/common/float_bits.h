#pragma once
// The one way the toolchain moves between an fp32 value and its IEEE-754 bit pattern (the
// datapath, the encoder's float fields, .npy files, the RTL's 32-bit ports). memcpy is the
// defined way to do it before C++20's std::bit_cast, and compiles to a register move.

#include <cstdint>
#include <cstring>
#include <vector>

namespace s2 {

inline uint32_t f32_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float f32_from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Arrays of them: n floats as words (the RTL's ports) and words back into floats.
inline std::vector<uint32_t> f32_words(const float* values, size_t n) {
  std::vector<uint32_t> words(n);
  if (n > 0) std::memcpy(words.data(), values, n * sizeof(float));
  return words;
}
inline void f32_from_words(const std::vector<uint32_t>& words, float* values) {
  if (!words.empty()) std::memcpy(values, words.data(), words.size() * sizeof(float));
}

}  // namespace s2
