#include "isa/numerics/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "isa/numerics/low_precision.h"

namespace s2::numerics {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

bool saturated(float mask) {
  return std::isfinite(mask) && mask <= kSaturatedMask;
}

// The block `v` as the PE array multiplies it in `mode`: v itself for f32, else its values
// rounded to the 16-bit type in `scratch` (attention.h: the on-chip multiplicands).
const float* multiplicand(const std::vector<float>& v, isa::DType mode,
                          std::vector<float>& scratch) {
  if (mode == isa::DType::F32) return v.data();
  scratch.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    scratch[i] = round_to(mode, v[i]);
  return scratch.data();
}

// Keys [0, kept) of query row i take part (causal keeps j <= i).
size_t kept_keys(const AttentionGeometry& g, size_t i) {
  return g.causal ? std::min(i + 1, g.tk) : g.tk;
}

// t [cols x rows] = the transpose of the rows x cols block at `src` (row stride ld).
void transpose_into(const float* src, size_t rows, size_t cols, size_t ld, std::vector<float>& t) {
  t.assign(rows * cols, 0.0f);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      t[c * rows + r] = src[r * ld + c];
}

// Each query row's offset (attention.h): the largest mask value of its kept keys when every
// one of them saturates, else 0; all 0 without a mask. `mask` is one batch's [Tq, Tk].
void row_offsets(const AttentionGeometry& g, const float* mask, std::vector<float>& offset) {
  offset.assign(g.tq, 0.0f);
  if (mask == nullptr) return;
  for (size_t i = 0; i < g.tq; ++i) {
    const size_t kept = kept_keys(g, i);
    float top = kNegInf;
    size_t j = 0;
    for (; j < kept && saturated(mask[i * g.tk + j]); ++j)
      top = std::max(top, mask[i * g.tk + j]);
    if (kept > 0 && j == kept) offset[i] = top;
  }
}

// The scores z of query rows [i0, i0 + bq) against keys [j0, j0 + bk) of one batch, as
// softmax forms them, less each row's offset, into z [bq x bk]; kT is the key block
// transposed [d x bk]. Left-out entries are not written.
void block_scores(const AttentionGeometry& g, const float* q, const std::vector<float>& kT,
                  const float* mask, const std::vector<float>& offset, size_t i0, size_t bq,
                  size_t j0, size_t bk, std::vector<float>& z, PeGemm& pe) {
  z.assign(bq * bk, 0.0f);
  pe.accumulate(bq, bk, g.d, q + i0 * g.d, g.d, kT.data(), bk, z.data(), bk);
  for (size_t r = 0; r < bq; ++r) {
    const size_t i = i0 + r;
    for (size_t c = 0; c < bk; ++c) {
      float s = g.scale * z[r * bk + c];
      if (mask != nullptr) s = s + mask[i * g.tk + j0 + c];
      if (offset[i] != 0.0f)
        s = static_cast<float>(static_cast<double>(s) - static_cast<double>(offset[i]));
      z[r * bk + c] = s;
    }
  }
}

// Keys of the block [j0, j0 + bk) that row i keeps: [j0, j0 + n).
size_t kept_in_block(const AttentionGeometry& g, size_t i, size_t j0, size_t bk) {
  const size_t kept = kept_keys(g, i);
  return kept <= j0 ? 0 : std::min(bk, kept - j0);
}

}  // namespace

void attention_forward(const AttentionGeometry& g, const float* q, const float* k, const float* v,
                       const float* mask, float* y, float* lse, PeGemm& pe) {
  std::vector<float> kT, z, p, p16, offset;
  std::vector<float> m(g.tq);
  std::vector<double> l(g.tq);
  std::vector<float> acc(g.tq * g.dv);
  for (size_t b = 0; b < g.batches; ++b) {
    const float* qb = q + b * g.tq * g.d;
    const float* kb = k + b * g.tk * g.d;
    const float* vb = v + b * g.tk * g.dv;
    const float* maskb = mask != nullptr ? mask + b * g.tq * g.tk : nullptr;
    float* yb = y + b * g.tq * g.dv;
    row_offsets(g, maskb, offset);
    for (size_t i0 = 0; i0 < g.tq; i0 += g.block_q) {
      const size_t bq = std::min(g.block_q, g.tq - i0);
      std::fill(m.begin(), m.end(), kNegInf);
      std::fill(l.begin(), l.end(), 0.0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (size_t j0 = 0; j0 < g.tk; j0 += g.block_k) {
        const size_t bk = std::min(g.block_k, g.tk - j0);
        if (kept_in_block(g, i0 + bq - 1, j0, bk) == 0) break;  // causal: nothing further
        transpose_into(kb + j0 * g.d, bk, g.d, g.d, kT);
        block_scores(g, qb, kT, maskb, offset, i0, bq, j0, bk, z, pe);
        p.assign(bq * bk, 0.0f);
        for (size_t r = 0; r < bq; ++r) {
          const size_t n = kept_in_block(g, i0 + r, j0, bk);
          float mb = m[r];
          for (size_t c = 0; c < n; ++c) {
            const float s = z[r * bk + c];
            if (std::isnan(s) || s > mb) mb = s;  // a NaN stays the max: the row is NaN
          }
          if (n == 0 || mb == kNegInf) continue;  // nothing finite kept yet
          const double alpha = std::exp(static_cast<double>(m[r]) - static_cast<double>(mb));
          double sum = 0.0;
          for (size_t c = 0; c < n; ++c) {
            const float e = static_cast<float>(
                std::exp(static_cast<double>(z[r * bk + c]) - static_cast<double>(mb)));
            p[r * bk + c] = e;
            sum += static_cast<double>(e);
          }
          l[r] = l[r] * alpha + sum;
          m[r] = mb;
          if (alpha != 1.0) {
            float* row = acc.data() + r * g.dv;
            for (size_t e = 0; e < g.dv; ++e)
              row[e] = static_cast<float>(static_cast<double>(row[e]) * alpha);
          }
        }
        pe.accumulate(bq, g.dv, bk, multiplicand(p, g.mode, p16), bk, vb + j0 * g.dv, g.dv,
                      acc.data(), g.dv);
      }
      for (size_t r = 0; r < bq; ++r) {
        const size_t i = i0 + r;
        for (size_t e = 0; e < g.dv; ++e)
          yb[i * g.dv + e] = static_cast<float>(static_cast<double>(acc[r * g.dv + e]) / l[r]);
        lse[b * g.tq + i] = static_cast<float>(static_cast<double>(m[r]) + std::log(l[r]));
      }
    }
  }
}

void attention_backward(const AttentionGeometry& g, const float* q, const float* k, const float* v,
                        const float* mask, const float* y, const float* dy, const float* lse,
                        float* dq, float* dk, float* dv, PeGemm& pe) {
  std::vector<double> dr(g.tq);
  std::vector<float> kT, vT, z, p, pT, dp, ds, dsT, offset, scratch;
  std::fill(dq, dq + g.batches * g.tq * g.d, 0.0f);
  std::fill(dk, dk + g.batches * g.tk * g.d, 0.0f);
  std::fill(dv, dv + g.batches * g.tk * g.dv, 0.0f);
  for (size_t b = 0; b < g.batches; ++b) {
    const float* qb = q + b * g.tq * g.d;
    const float* kb = k + b * g.tk * g.d;
    const float* vb = v + b * g.tk * g.dv;
    const float* maskb = mask != nullptr ? mask + b * g.tq * g.tk : nullptr;
    const float* yb = y + b * g.tq * g.dv;
    const float* dyb = dy + b * g.tq * g.dv;
    const float* lseb = lse + b * g.tq;
    float* dqb = dq + b * g.tq * g.d;
    float* dkb = dk + b * g.tk * g.d;
    float* dvb = dv + b * g.tk * g.dv;
    row_offsets(g, maskb, offset);
    for (size_t i = 0; i < g.tq; ++i) {
      double s = 0.0;
      for (size_t e = 0; e < g.dv; ++e)
        s += static_cast<double>(dyb[i * g.dv + e]) * static_cast<double>(yb[i * g.dv + e]);
      dr[i] = s;
    }
    for (size_t j0 = 0; j0 < g.tk; j0 += g.block_k) {
      const size_t bk = std::min(g.block_k, g.tk - j0);
      transpose_into(kb + j0 * g.d, bk, g.d, g.d, kT);
      transpose_into(vb + j0 * g.dv, bk, g.dv, g.dv, vT);
      for (size_t i0 = 0; i0 < g.tq; i0 += g.block_q) {
        const size_t bq = std::min(g.block_q, g.tq - i0);
        if (kept_in_block(g, i0 + bq - 1, j0, bk) == 0) continue;  // causal: left out
        block_scores(g, qb, kT, maskb, offset, i0, bq, j0, bk, z, pe);
        p.assign(bq * bk, 0.0f);
        for (size_t r = 0; r < bq; ++r) {
          const size_t n = kept_in_block(g, i0 + r, j0, bk);
          const double m = static_cast<double>(lseb[i0 + r]);
          for (size_t c = 0; c < n; ++c)
            p[r * bk + c] = static_cast<float>(std::exp(static_cast<double>(z[r * bk + c]) - m));
        }
        transpose_into(multiplicand(p, g.mode, scratch), bq, bk, bk, pT);
        pe.accumulate(bk, g.dv, bq, pT.data(), bq, dyb + i0 * g.dv, g.dv, dvb + j0 * g.dv, g.dv);
        dp.assign(bq * bk, 0.0f);
        pe.accumulate(bq, bk, g.dv, dyb + i0 * g.dv, g.dv, vT.data(), bk, dp.data(), bk);
        ds.assign(bq * bk, 0.0f);
        for (size_t r = 0; r < bq; ++r) {
          const double d = dr[i0 + r];
          for (size_t c = 0; c < bk; ++c) {
            const size_t at = r * bk + c;
            ds[at] = static_cast<float>(static_cast<double>(g.scale) * static_cast<double>(p[at]) *
                                        (static_cast<double>(dp[at]) - d));
          }
        }
        const float* ds_mul = multiplicand(ds, g.mode, scratch);
        pe.accumulate(bq, g.d, bk, ds_mul, bk, kb + j0 * g.d, g.d, dqb + i0 * g.d, g.d);
        transpose_into(ds_mul, bq, bk, bk, dsT);
        pe.accumulate(bk, g.d, bq, dsT.data(), bq, qb + i0 * g.d, g.d, dkb + j0 * g.d, g.d);
      }
    }
  }
}

}  // namespace s2::numerics
