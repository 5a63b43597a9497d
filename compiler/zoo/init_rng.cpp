#include "compiler/zoo/init_rng.h"

#include <cmath>

namespace s2::zoo {
namespace {

// FNV-1a: a stable hash of the stream name (std::hash may differ between libraries).
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

constexpr double kTwoPi = 6.283185307179586476925286766559;

}  // namespace

InitRng::InitRng(uint64_t seed, const std::string& stream) : state_(seed ^ fnv1a(stream)) {
  next();  // decorrelates streams whose keys differ in few bits
}

uint64_t InitRng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

float InitRng::uniform(float bound) {
  // 24 random bits: every value of u is an exact float in [0, 1).
  const double u = static_cast<double>(next() >> 40) * 0x1.0p-24;
  return static_cast<float>((2.0 * u - 1.0) * static_cast<double>(bound));
}

float InitRng::normal() {
  const double u1 = static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2));
}

int32_t InitRng::below(int32_t n) {
  // Multiply-shift (Lemire) maps 32 random bits onto [0, n); the bias is below n / 2^32.
  const uint64_t r = next() >> 32;
  return static_cast<int32_t>((r * static_cast<uint64_t>(n)) >> 32);
}

std::vector<float> uniform_values(uint64_t seed, const std::string& stream, size_t count,
                                  float bound) {
  InitRng rng(seed, stream);
  std::vector<float> v(count);
  for (float& x : v)
    x = rng.uniform(bound);
  return v;
}

std::vector<float> normal_values(uint64_t seed, const std::string& stream, size_t count) {
  InitRng rng(seed, stream);
  std::vector<float> v(count);
  for (float& x : v)
    x = rng.normal();
  return v;
}

std::vector<int32_t> class_labels(uint64_t seed, const std::string& stream, size_t count,
                                  int32_t classes) {
  InitRng rng(seed, stream);
  std::vector<int32_t> v(count);
  for (int32_t& x : v)
    x = rng.below(classes);
  return v;
}

}  // namespace s2::zoo
