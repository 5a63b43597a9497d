#include "compiler/zoo/init_rng.h"

#include <array>
#include <cmath>
#include <cstdlib>

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

// Marsaglia and Tsang's ziggurat ("The Ziggurat Method for Generating Random Variables",
// J. Stat. Software 5(8), 2000) for the standard normal, 128 layers: the constants are the
// paper's (the start of the tail R and the common area V of the layers).
constexpr int kLayers = 128;
constexpr double kTail = 3.442619855899;
constexpr double kArea = 9.91256303526217e-3;

struct Ziggurat {
  std::array<uint32_t, kLayers> k{};  // |j| < k[i]: inside layer i's rectangle
  std::array<double, kLayers> w{};    // j * w[i] is the sample
  std::array<double, kLayers> f{};    // the density exp(-x^2 / 2) at layer i's edge
};

const Ziggurat& ziggurat() {
  static const Ziggurat z = [] {
    Ziggurat t;
    constexpr double m = 2147483648.0;  // 2^31: j is a signed 32-bit draw
    double dn = kTail, tn = dn;
    const double q = kArea / std::exp(-0.5 * dn * dn);
    t.k[0] = static_cast<uint32_t>((dn / q) * m);
    t.k[1] = 0;
    t.w[0] = q / m;
    t.w[kLayers - 1] = dn / m;
    t.f[0] = 1.0;
    t.f[kLayers - 1] = std::exp(-0.5 * dn * dn);
    for (int i = kLayers - 2; i >= 1; --i) {
      dn = std::sqrt(-2.0 * std::log(kArea / dn + std::exp(-0.5 * dn * dn)));
      t.k[static_cast<size_t>(i) + 1] = static_cast<uint32_t>((dn / tn) * m);
      tn = dn;
      t.f[static_cast<size_t>(i)] = std::exp(-0.5 * dn * dn);
      t.w[static_cast<size_t>(i)] = dn / m;
    }
    return t;
  }();
  return z;
}

// SplitMix64's step on a state held by the caller (in a register inside fill_normal's loop).
inline uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline double open_unit(uint64_t& state) {
  return static_cast<double>((splitmix(state) >> 11) + 1) * 0x1.0p-53;  // (0, 1]: log is finite
}

inline float draw_normal(uint64_t& state, const Ziggurat& z) {
  for (;;) {
    const uint64_t bits = splitmix(state);
    const auto i = static_cast<size_t>(bits & (kLayers - 1));
    const auto j = static_cast<int32_t>(static_cast<uint32_t>(bits >> 32));
    const double x = static_cast<double>(j) * z.w[i];
    // Inside the layer's rectangle (about 98.8% of draws): no further arithmetic.
    if (static_cast<uint32_t>(std::abs(static_cast<int64_t>(j))) < z.k[i])
      return static_cast<float>(x);
    if (i == 0) {
      // The tail beyond R, by Marsaglia's exponential method.
      double t = 0.0, y = 0.0;
      do {
        t = -std::log(open_unit(state)) / kTail;
        y = -std::log(open_unit(state));
      } while (y + y < t * t);
      return static_cast<float>(j > 0 ? kTail + t : -kTail - t);
    }
    // The wedge between the rectangle and the density.
    if (z.f[i] + open_unit(state) * (z.f[i - 1] - z.f[i]) < std::exp(-0.5 * x * x))
      return static_cast<float>(x);
  }
}

}  // namespace

InitRng::InitRng(uint64_t seed, const std::string& stream) : state_(seed ^ fnv1a(stream)) {
  next();  // decorrelates streams whose keys differ in few bits
}

uint64_t InitRng::next() {
  return splitmix(state_);
}

float InitRng::uniform(float bound) {
  // 24 random bits: every value of u is an exact float in [0, 1).
  const double u = static_cast<double>(next() >> 40) * 0x1.0p-24;
  return static_cast<float>((2.0 * u - 1.0) * static_cast<double>(bound));
}

float InitRng::normal() {
  return draw_normal(state_, ziggurat());
}

void InitRng::fill_normal(float* out, size_t count, float scale) {
  const Ziggurat& z = ziggurat();
  uint64_t state = state_;
  for (size_t k = 0; k < count; ++k)
    out[k] = draw_normal(state, z) * scale;
  state_ = state;
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

std::vector<float> normal_values(uint64_t seed, const std::string& stream, size_t count,
                                 float scale) {
  InitRng rng(seed, stream);
  std::vector<float> v(count);
  rng.fill_normal(v.data(), count, scale);
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
