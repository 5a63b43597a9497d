#pragma once
// Embedding lookup on the PPU (PyTorch's nn.Embedding) and its backward, shared by the
// compiler's reference interpreter and the simulator's functional model. The table is [V, D]
// row-major; ids are n indices, each in [0, V) (callers check them with first_id_outside and
// name their op or instruction).
//
// gather:      y[i, :] = table[ids[i], :]                     (an exact copy)
// scatter_add: dw = 0, then dw[ids[i], :] += dy[i, :] for i = 0..n-1 in order, in fp32, so a
//              repeated id accumulates its rows in token order (PyTorch's CPU backward sums
//              the same rows, possibly in another order: a difference of rounding only).
#include <cstddef>
#include <cstdint>
#include <optional>

namespace s2::numerics {

// The position of the first id outside [0, rows), if any.
std::optional<size_t> first_id_outside(const int32_t* ids, size_t n, size_t rows);

void gather_rows(const float* table, size_t d, const int32_t* ids, size_t n, float* y);

// dw [rows, d] is overwritten.
void scatter_add_rows(const float* dy, size_t d, const int32_t* ids, size_t n, size_t rows,
                      float* dw);

}  // namespace s2::numerics
