#pragma once
// Float arrays as the RTL's 32-bit words and back, and words in the reports' hex form.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace s2::sim::rtl {

inline std::vector<uint32_t> to_words(const float* v, size_t n) {
  std::vector<uint32_t> w(n);
  if (n > 0) std::memcpy(w.data(), v, n * sizeof(float));
  return w;
}

inline void from_words(const std::vector<uint32_t>& w, float* v) {
  if (!w.empty()) std::memcpy(v, w.data(), w.size() * sizeof(float));
}

std::string hex32(uint32_t word);

}  // namespace s2::sim::rtl
