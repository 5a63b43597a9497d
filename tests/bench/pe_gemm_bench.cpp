// Benchmark, not a test: KTiledGemm (isa/numerics/pe_gemm.h) on the im2col GEMM shapes of a
// resnet18 training step (batch 4, 32x32), against the plain loop it replaced (kept below as
// the baseline). Prints the median of 5 runs per kernel in ms of CPU time and in GFLOP/s
// (2 m n k / time), and checks that every kernel gives the baseline's bits.
//   pe_gemm_bench [REPS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <vector>

#include "bench_args.h"
#include "isa/numerics/fp32.h"
#include "isa/numerics/pe_gemm.h"

namespace {

using s2::numerics::KTiledGemm;

// The loop KTiledGemm had before register blocking: one row of c at a time, the tile sums of
// a 256-column block in memory.
void baseline_gemm(size_t k_tile, size_t m, size_t n, size_t kd, const float* a, size_t lda,
                   const float* b, size_t ldb, float* c, size_t ldc) {
  using s2::numerics::add;
  using s2::numerics::mul;
  constexpr size_t kColumnBlock = 256;
  const size_t tile_k = k_tile == 0 ? std::max<size_t>(kd, 1) : k_tile;
  float tile[kColumnBlock];
  for (size_t j0 = 0; j0 < n; j0 += kColumnBlock) {
    const size_t width = std::min(kColumnBlock, n - j0);
    for (size_t i = 0; i < m; ++i) {
      const float* a_row = a + i * lda;
      float* c_row = c + i * ldc + j0;
      for (size_t e0 = 0; e0 < kd; e0 += tile_k) {
        std::fill(tile, tile + width, 0.0f);
        const size_t e1 = std::min(kd, e0 + tile_k);
        for (size_t e = e0; e < e1; ++e) {
          const float av = a_row[e];
          const float* b_row = b + e * ldb + j0;
          for (size_t j = 0; j < width; ++j)
            tile[j] = add(tile[j], mul(av, b_row[j]));
        }
        for (size_t j = 0; j < width; ++j)
          c_row[j] = add(c_row[j], tile[j]);
      }
    }
  }
}

struct Shape {
  const char* what;
  size_t m, n, k;
};

// conv forward: m = output channels, n = pixels of the chunk, k = taps (C * R * S);
// backward-data: m = taps, k = output channels; backward-weight: k = pixels.
constexpr Shape kShapes[] = {
    {"fwd 64x(3x3x64) 4x32x32", 64, 4096, 576},
    {"bwd-data 576 taps <- 64ch", 576, 4096, 64},
    {"bwd-weight 64x576 <- 4096 px", 64, 576, 4096},
    {"fwd 512x(3x3x256) 4x4x4 (m=256 n=512 k=4608 transposed)", 256, 512, 4608},
    {"bwd-weight 64 x 4608 <- 512", 64, 512, 4608},
    {"task shape m=4096 n=64 k=576", 4096, 64, 576},
    {"fc 4x512 -> 10", 4, 10, 512},
};

// Median CPU time of `reps` runs, in ms: CPU time rather than wall time, so that other
// processes on a shared machine inflate it less (one thread, so the process's CPU time).
double median_ms(int reps, const std::function<void()>& run) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const std::clock_t start = std::clock();
    run();
    ms.push_back(1e3 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const auto reps = static_cast<int>(
      s2::bench::count_argument(argc, argv, "pe_gemm_bench", "pe_gemm_bench [REPS]", 5, 1, 1000));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  bool all_same = true;
  std::printf("%-58s %4s %10s %10s %10s %10s  (ms; GFLOP/s)\n", "shape", "kt", "baseline", "new",
              "new-sse2", "new-flush");
  for (const Shape& s : kShapes)
    for (const size_t kt : {size_t{32}, size_t{16}}) {
      std::vector<float> a(s.m * s.k), b(s.k * s.n), c0(s.m * s.n);
      for (float& v : a)
        v = uniform(rng);
      for (float& v : b)
        v = uniform(rng);
      for (float& v : c0)
        v = uniform(rng);
      // The same values but one tiny product operand, which sends the call down the path that
      // flushes every product and sum (the rest of the bits are unaffected by it).
      std::vector<float> a_tiny = a;
      a_tiny[0] = std::ldexp(1.0f, -100);

      std::vector<float> c_base = c0, c_new = c0, c_sse2 = c0, c_flush_base = c0, c_flush = c0;
      auto run_into = [&](std::vector<float>& c, const std::function<void(float*)>& f) {
        return [&c, f, &c0] {
          std::memcpy(c.data(), c0.data(), c0.size() * sizeof(float));
          f(c.data());
        };
      };
      const double t_base =
          median_ms(reps, run_into(c_base, [&](float* c) {
                      baseline_gemm(kt, s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, c, s.n);
                    }));
      const double t_new = median_ms(reps, run_into(c_new, [&](float* c) {
                                       KTiledGemm(kt).accumulate(s.m, s.n, s.k, a.data(), s.k,
                                                                 b.data(), s.n, c, s.n);
                                     }));
      const double t_sse2 =
          median_ms(reps, run_into(c_sse2, [&](float* c) {
                      KTiledGemm(kt, KTiledGemm::Kernel::kBaseline)
                          .accumulate(s.m, s.n, s.k, a.data(), s.k, b.data(), s.n, c, s.n);
                    }));
      const double t_flush = median_ms(reps, run_into(c_flush, [&](float* c) {
                                         KTiledGemm(kt).accumulate(s.m, s.n, s.k, a_tiny.data(),
                                                                   s.k, b.data(), s.n, c, s.n);
                                       }));
      baseline_gemm(kt, s.m, s.n, s.k, a_tiny.data(), s.k, b.data(), s.n, c_flush_base.data(), s.n);
      const bool same =
          std::memcmp(c_base.data(), c_new.data(), c0.size() * sizeof(float)) == 0 &&
          std::memcmp(c_base.data(), c_sse2.data(), c0.size() * sizeof(float)) == 0 &&
          std::memcmp(c_flush_base.data(), c_flush.data(), c0.size() * sizeof(float)) == 0;
      all_same = all_same && same;
      const double gflop = 2.0 * double(s.m) * double(s.n) * double(s.k) * 1e-9;
      std::printf("%-58s %4zu %10.2f %10.2f %10.2f %10.2f\n", s.what, kt, t_base, t_new, t_sse2,
                  t_flush);
      std::printf("%-58s %4s %10.1f %10.1f %10.1f %10.1f  x%.1f%s\n", "", "", gflop / t_base * 1e3,
                  gflop / t_new * 1e3, gflop / t_sse2 * 1e3, gflop / t_flush * 1e3, t_base / t_new,
                  same ? "" : "  BITS DIFFER");
    }
  std::printf(all_same ? "all kernels gave the baseline's bits\n" : "BITS DIFFER\n");
  return all_same ? 0 : 1;
}
