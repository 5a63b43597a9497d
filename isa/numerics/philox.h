#pragma once
// The PPU's random numbers: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC 2011), a counter-based generator, so element i of a mask is a pure function of
// the seed and i and any unit can compute any element in any order: a run is reproducible
// bit for bit, on every configuration, with or without the RTL.
//
// Element i of a stream uses block i / 4 (counter {i/4 low 32 bits, i/4 high 32 bits, 0, 0})
// and word i % 4 of the block's output; its uniform is (word >> 8) * 2^-24, exact in fp32, in
// [0, 1). The key is {seed, step}: the instruction's seed and the training step's counter.
#include <array>
#include <cstdint>

namespace s2::numerics {

struct PhiloxKey {
  uint32_t seed = 0;
  uint32_t step = 0;
};

// The 4 x 32-bit output of Philox4x32-10 for a counter and key.
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// The uniform of element `index` under `key`, in [0, 1) with 24 random bits.
float philox_uniform(PhiloxKey key, uint64_t index);

// Dropout's scaled keep mask of n elements: mask[i] = u(key, i) < keep ? scale : 0, with
// keep = 1 - ratio and scale = 1 / keep, each rounded to fp32 as PyTorch rounds them
// (bernoulli_(1 - p) then div_(1 - p)).
void dropout_mask(float ratio, PhiloxKey key, float* mask, uint64_t n);

}  // namespace s2::numerics
