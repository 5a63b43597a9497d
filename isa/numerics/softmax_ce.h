#pragma once
// Softmax cross-entropy on the PPU, shared by the compiler's reference interpreter and the
// simulator's functional model. Per row of logits x [rows, classes] with label t: m = max x,
// s = sum exp(x - m) (in class order, fp32), loss_row = log(s) - (x[t] - m); the loss is the
// sum of the rows in order, divided by rows for the mean. The gradient is
// exp(x - m) / s - (c == t), divided by rows for the mean, times the upstream gradient of the
// loss when there is one. Labels must be in [0, classes): callers check them, naming their op.
#include <cstddef>
#include <cstdint>

namespace s2::numerics {

float softmax_ce_loss(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                      bool mean);

// dloss: the upstream gradient of the loss (one value), or null for 1.
void softmax_ce_grad(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                     bool mean, const float* dloss, float* dlogits);

}  // namespace s2::numerics
