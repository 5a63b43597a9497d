#include "isa/numerics/philox.h"

#include "isa/numerics/fp32.h"

namespace s2::numerics {
namespace {

constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;
constexpr uint32_t kWeyl1 = 0xBB67AE85u;

void mulhilo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
  const uint64_t p = uint64_t{a} * b;
  *hi = static_cast<uint32_t>(p >> 32);
  *lo = static_cast<uint32_t>(p);
}

}  // namespace

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0 = 0, lo0 = 0, hi1 = 0, lo1 = 0;
    mulhilo(kMul0, c[0], &hi0, &lo0);
    mulhilo(kMul1, c[2], &hi1, &lo1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  return c;
}

float philox_uniform(PhiloxKey key, uint64_t index) {
  const uint64_t block = index / 4;
  const std::array<uint32_t, 4> out =
      philox4x32({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                 {key.seed, key.step});
  return static_cast<float>(out[index % 4] >> 8) * 0x1p-24f;
}

void dropout_mask(float ratio, PhiloxKey key, float* mask, uint64_t n) {
  const auto keep = static_cast<float>(1.0 - static_cast<double>(ratio));
  const float scale = div(1.0f, keep);
  for (uint64_t block = 0; block * 4 < n; ++block) {
    const std::array<uint32_t, 4> out =
        philox4x32({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                   {key.seed, key.step});
    for (uint64_t j = 0; j < 4 && block * 4 + j < n; ++j) {
      const float u = static_cast<float>(out[j] >> 8) * 0x1p-24f;
      mask[block * 4 + j] = u < keep ? scale : 0.0f;
    }
  }
}

}  // namespace s2::numerics
