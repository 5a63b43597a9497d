#include "isa/numerics/pe_gemm.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "isa/common/float_bits.h"
#include "isa/numerics/fp32.h"

// How KTiledGemm is fast and still the contract, bit for bit.
//
// Every c element is computed exactly as pe_gemm.h states: per K-tile t = +0.0f, then
// t = add(t, mul(a, b)) in ascending k, then c = add(c, t), tiles in ascending k. What the code
// changes is only which elements are computed side by side:
//  * Register blocking: a block of kRows rows x kCols columns of tile sums lives in registers
//    for a whole K-tile (the loops over the block are unrolled, GCC keeps t[][] in vector
//    registers), so each step loads kCols values of b and kRows values of a for
//    kRows * kCols products, instead of loading and storing the tile sums at every step.
//  * b is copied into panels of column strips, each strip k x kCols contiguous (padded with
//    zeros past n), so the kernel reads it with unit-stride vector loads and a panel (at most
//    kPanelFloats) stays in the L2 cache across all the rows of a.
//  * The flushes are skipped when they provably do nothing (flushes_are_no_ops below), which
//    leaves a plain mul and add per product; otherwise the kernel runs ftz(add(mul)) as
//    written in fp32.h (ftz works on bit patterns, so that loop vectorises too).
// Lanes of a vector each do the same IEEE operation a scalar loop would, and the build has
// -ffp-contract=off (no FMA), so vectorising changes no bits. NaN payloads are left to the
// host, as fp32.h allows (store() canonicalises them where values leave the datapath).
//
// With GCC on x86-64 the same kernel is also compiled for AVX2 and chosen at run time when
// the CPU has it (twice the lanes); the baseline build needs only SSE2.

// The kernel templates are inlined into the few functions below that instantiate them (so
// that each is compiled for its instruction set), and those are kept out of line.
#if defined(__GNUC__)
#define S2_GEMM_INLINE inline __attribute__((always_inline))
#define S2_GEMM_NOINLINE __attribute__((noinline))
#else
#define S2_GEMM_INLINE inline
#define S2_GEMM_NOINLINE
#endif

namespace s2::numerics {
namespace {

// The smallest nonzero product magnitude for which no flush can happen in a tile sum; see
// flushes_are_no_ops.
constexpr double kNoFlushProductBound = 0x1p-102;

// A key for the smallest nonzero magnitude: |x|'s bit pattern minus one, so that +-0 wraps to
// the largest key (ignored) and NaNs, whose patterns are above Inf's, never win unless every
// nonzero value is a NaN. ~0u: every value is zero.
S2_GEMM_INLINE uint32_t magnitude_key(float x) {
  return (f32_bits(x) & ~kSignMask) - 1u;
}

// The operand scans below keep kKeyLanes running minima, one per lane, and fold them at the
// end: a loop of constant trip count with no reduction across lanes, which GCC vectorises even
// at -O2 (its cheap cost model refuses loops that need an epilogue). The scans touch every
// operand once, which matters next to the m * n * k products when m or n is small.
constexpr size_t kKeyLanes = 16;

S2_GEMM_INLINE uint32_t fold_keys(const uint32_t (&lanes)[kKeyLanes], uint32_t key) {
  for (const uint32_t lane : lanes)
    key = std::min(key, lane);
  return key;
}

// The smallest nonzero magnitude key of the rows x cols matrix x (row stride ld).
uint32_t smallest_nonzero_key(const float* x, size_t rows, size_t cols, size_t ld) {
  uint32_t lanes[kKeyLanes];
  std::fill(lanes, lanes + kKeyLanes, ~0u);
  uint32_t key = ~0u;
  for (size_t i = 0; i < rows; ++i) {
    const float* row = x + i * ld;
    size_t j = 0;
    for (; j + kKeyLanes <= cols; j += kKeyLanes)
      for (size_t l = 0; l < kKeyLanes; ++l)
        lanes[l] = std::min(lanes[l], magnitude_key(row[j + l]));
    for (; j < cols; ++j)
      key = std::min(key, magnitude_key(row[j]));
  }
  return fold_keys(lanes, key);
}

// True when, for operands whose nonzero magnitudes are at least those of the keys, the tile
// sum without flushes (t = t + a*b) gives the same bits as with them, so the flushes may be
// skipped. Proof:
//  * a product of nonzero |a| >= amin and |b| >= bmin is at least amin * bmin >= 2^-102 before
//    rounding, hence after (rounding is monotone and 2^-102 is a float): it is normal, Inf or
//    NaN, never subnormal. A product with a zero operand is +-0 or NaN. So mul() never flushes.
//  * t starts at +0.0f; assume t is zero, normal, Inf or NaN (true at the start), and p is
//    zero or |p| >= 2^-102 (or Inf/NaN). If either is zero, Inf or NaN the sum is the other
//    operand, a signed zero, Inf or NaN: not subnormal. Else both are normal: if
//    |t| <= |p| / 2, |t + p| >= |p| / 2 >= 2^-103; if not, both are >= 2^-103, so both are
//    multiples of 2^(-103-23) = 2^-126 and their exact sum is 0 or at least 2^-126 in
//    magnitude, which rounds to a normal (or to 0 only when exactly 0). So add() never flushes
//    and t stays in the assumed set.
// The flush in c = add(c, t) is always kept. The product amin * bmin is exact in double.
bool flushes_are_no_ops(uint32_t key_a, uint32_t key_b) {
  if (key_a == ~0u || key_b == ~0u) return true;  // every product is +-0 or NaN
  const double smallest = static_cast<double>(f32_from_bits(key_a + 1u)) *
                          static_cast<double>(f32_from_bits(key_b + 1u));
  return smallest >= kNoFlushProductBound;  // false (exact path) if the keys are NaNs
}

// The shape of one GEMM call, after the K-tile is resolved.
struct Problem {
  size_t m, n, kd, tile_k;
  const float* a;
  size_t lda;
  const float* b;
  size_t ldb;
  float* c;
  size_t ldc;
};

// Upper bound of a b panel, in floats (512 KiB: half of a typical per-core L2).
constexpr size_t kPanelFloats = size_t{128} * 1024;

// The panel buffer, reused across calls (a fresh 512 KiB allocation per call would be an mmap
// and page faults each time). One per thread so that KTiledGemm stays usable concurrently.
std::vector<float>& panel_buffer() {
  thread_local std::vector<float> buffer;
  return buffer;
}

// The sums of one K-tile [e0, e1) for a kRows x kCols block, added to c: rows x cols of it are
// real (rows <= kRows, cols <= kCols; the rest is padding and not stored). a_rows[r] points at
// row r of a (a padding row repeats a real one); strip points at the panel strip's row e0,
// kCols floats per k.
template <size_t kRows, size_t kCols, bool kFlush>
S2_GEMM_INLINE void tile_block(const float* const (&a_rows)[kRows], const float* strip, size_t e0,
                               size_t e1, float* c, size_t ldc, size_t rows, size_t cols) {
  // Every tile sums from +0.0f. Zeroed with loops shaped like the ones below (not "= {}",
  // which GCC turns into a memset of t[][] in memory: rep stos, costly next to a short tile).
  float t[kRows][kCols];
#pragma GCC unroll 16
  for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 1
    for (size_t j = 0; j < kCols; ++j)
      t[r][j] = 0.0f;
  }
  for (size_t e = e0; e < e1; ++e) {
    const float* bv = strip + (e - e0) * kCols;
    // The row loop is unrolled so that t[][] can live in registers; the column loop must reach
    // the loop vectoriser whole (one or two vectors per row), hence "unroll 1": unrolled early
    // (GCC's -O3 does) it is left to the SLP vectoriser, which keeps t[][] in memory or
    // reduces along k with shuffles, and turns the exact path's ftz into scalar branches.
#pragma GCC unroll 16
    for (size_t r = 0; r < kRows; ++r) {
      const float av = a_rows[r][e];
#pragma GCC unroll 1
      for (size_t j = 0; j < kCols; ++j) {
        if constexpr (kFlush)
          t[r][j] = add(t[r][j], mul(av, bv[j]));
        else
          t[r][j] = t[r][j] + av * bv[j];  // == add(t, mul(av, b)): see flushes_are_no_ops
      }
    }
  }
  // c += t, with the loops shaped as above: t[][] is only ever indexed by constants after
  // unrolling, so GCC keeps it in registers (a ragged block goes through a copy in memory).
  if (rows == kRows && cols == kCols) {
#pragma GCC unroll 16
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 1
      for (size_t j = 0; j < kCols; ++j)
        c[r * ldc + j] = add(c[r * ldc + j], t[r][j]);
    }
  } else {
    float sums[kRows][kCols];
#pragma GCC unroll 16
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 1
      for (size_t j = 0; j < kCols; ++j)
        sums[r][j] = t[r][j];
    }
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < cols; ++j)
        c[r * ldc + j] = add(c[r * ldc + j], sums[r][j]);
  }
}

// A packed block of b: rows [k0, k1) (whole K-tiles) of columns [j0, j0 + width), as strips
// of `cols` columns, each (k1 - k0) x cols contiguous.
struct Panel {
  float* data;
  size_t k0, k1, j0, width;
};

// All row blocks of one panel, tile by tile.
template <size_t kRows, size_t kCols, bool kFlush>
S2_GEMM_INLINE void panel_rows(const Problem& p, const Panel& panel) {
  const size_t strips = (panel.width + kCols - 1) / kCols, depth = panel.k1 - panel.k0;
  for (size_t i0 = 0; i0 < p.m; i0 += kRows) {
    const size_t rows = std::min(kRows, p.m - i0);
    const float* a_rows[kRows];
    for (size_t r = 0; r < kRows; ++r)
      a_rows[r] = p.a + (i0 + std::min(r, rows - 1)) * p.lda;
    float* c_block = p.c + i0 * p.ldc + panel.j0;
    // Tiles outside strips: the block's a values for one tile stay in L1 across the strips.
    for (size_t e0 = panel.k0; e0 < panel.k1; e0 += p.tile_k) {
      const size_t e1 = std::min(panel.k1, e0 + p.tile_k);
      for (size_t s = 0; s < strips; ++s)
        tile_block<kRows, kCols, kFlush>(a_rows, panel.data + (s * depth + (e0 - panel.k0)) * kCols,
                                         e0, e1, c_block + s * kCols, p.ldc, rows,
                                         std::min(kCols, panel.width - s * kCols));
    }
  }
}

// Copies b's rows [k0, k1) of columns [j0, j0 + width) into the panel (zero padded) and returns
// their smallest nonzero magnitude key. Full strips take the constant-width loop, which
// vectorises (see kKeyLanes).
template <size_t kCols>
uint32_t pack_panel(const Problem& p, const Panel& panel) {
  static_assert(kCols <= kKeyLanes);
  uint32_t lanes[kKeyLanes];
  std::fill(lanes, lanes + kKeyLanes, ~0u);
  uint32_t key = ~0u;
  float* strip = panel.data;
  for (size_t j = 0; j < panel.width; j += kCols) {
    const size_t real = std::min(kCols, panel.width - j);
    const float* src = p.b + panel.k0 * p.ldb + panel.j0 + j;
    for (size_t e = panel.k0; e < panel.k1; ++e, src += p.ldb, strip += kCols) {
      if (real == kCols) {
        // Copy and scan apart: together, GCC would need a run-time aliasing check.
        std::copy(src, src + kCols, strip);
        for (size_t l = 0; l < kCols; ++l)
          lanes[l] = std::min(lanes[l], magnitude_key(src[l]));
      } else {
        for (size_t l = 0; l < real; ++l) {
          strip[l] = src[l];
          key = std::min(key, magnitude_key(src[l]));
        }
        std::fill(strip + real, strip + kCols, 0.0f);
      }
    }
  }
  return fold_keys(lanes, key);
}

// The compiled panel kernels: each is its own (not inlined) function so that GCC allocates
// registers and vectorises one kernel at a time, which it does reliably (checked in the
// generated code with GCC 12 at -O2 and -O3: no spills in the k loop). Block shapes: the
// rows * kCols / lanes accumulators, kCols / lanes b vectors, the broadcast a value and
// temporaries (and the exact path's masks) fit the 16 vector registers.
using PanelKernel = void (*)(const Problem&, const Panel&);
struct Kernels {
  size_t cols;  // the strip width
  uint32_t (*pack)(const Problem&, const Panel&);
  PanelKernel no_flush, exact;
};

S2_GEMM_NOINLINE void sse2_no_flush(const Problem& p, const Panel& panel) {
  panel_rows<6, 8, false>(p, panel);
}
S2_GEMM_NOINLINE void sse2_exact(const Problem& p, const Panel& panel) {
  panel_rows<4, 8, true>(p, panel);
}
constexpr Kernels kBaselineKernels{8, pack_panel<8>, sse2_no_flush, sse2_exact};

#if defined(__GNUC__) && defined(__x86_64__)
#define S2_GEMM_HAVE_AVX2 1
// The same kernels compiled for AVX2 (8 lanes): strips twice as wide.
__attribute__((noinline, target("avx2"))) void avx2_no_flush(const Problem& p, const Panel& panel) {
  panel_rows<6, 16, false>(p, panel);
}
__attribute__((noinline, target("avx2"))) void avx2_exact(const Problem& p, const Panel& panel) {
  panel_rows<4, 16, true>(p, panel);
}
constexpr Kernels kAvx2Kernels{16, pack_panel<16>, avx2_no_flush, avx2_exact};

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

// The whole product, panel by panel. A panel holds all of K when kMinPanelStrips strips of it
// fit kPanelFloats; otherwise as many whole K-tiles as fit (so that no tile straddles two
// panels, and each element still sees its tiles in ascending k: a panel's rows come after
// those of the panels before it in K). Then as many strips as fit, at least one.
constexpr size_t kMinPanelStrips = 4;

void blocked_gemm(const Problem& p, const Kernels& kernels, uint32_t key_a) {
  size_t depth = p.kd;
  if (p.tile_k < p.kd && p.kd * kernels.cols * kMinPanelStrips > kPanelFloats)
    depth =
        std::max(p.tile_k, kPanelFloats / (kernels.cols * kMinPanelStrips) / p.tile_k * p.tile_k);
  const size_t panel_cols =
      std::max<size_t>(1, kPanelFloats / (depth * kernels.cols)) * kernels.cols;
  std::vector<float>& buffer = panel_buffer();
  buffer.resize(std::max(buffer.size(), panel_cols * depth));
  for (size_t j0 = 0; j0 < p.n; j0 += panel_cols)
    for (size_t k0 = 0; k0 < p.kd; k0 += depth) {
      const Panel panel{buffer.data(), k0, std::min(p.kd, k0 + depth), j0,
                        std::min(panel_cols, p.n - j0)};
      const uint32_t key_b = kernels.pack(p, panel);
      (flushes_are_no_ops(key_a, key_b) ? kernels.no_flush : kernels.exact)(p, panel);
    }
}

}  // namespace

void KTiledGemm::accumulate(size_t m, size_t n, size_t kd, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  if (m == 0 || n == 0 || kd == 0) return;
  const size_t tile_k = k_tile_ == 0 ? kd : k_tile_;
  const Problem p{m, n, kd, tile_k, a, lda, b, ldb, c, ldc};
  const uint32_t key_a = smallest_nonzero_key(a, m, kd, lda);
#ifdef S2_GEMM_HAVE_AVX2
  if (kernel_ == Kernel::kAuto && cpu_has_avx2()) {
    blocked_gemm(p, kAvx2Kernels, key_a);
    return;
  }
#else
  (void)kernel_;  // one kernel only
#endif
  blocked_gemm(p, kBaselineKernels, key_a);
}

}  // namespace s2::numerics
