#pragma once
// Softmax cross-entropy on the PPU, shared by the compiler's reference interpreter and the
// simulator's functional model. Per row of logits x [rows, classes] with label t: m = max x,
// s = sum exp(x - m) (in class order, fp32), loss_row = log(s) - (x[t] - m); the loss is the
// sum of the rows in order, divided by the number of counted rows for the mean. The gradient
// is exp(x - m) / s - (c == t), divided by the counted rows for the mean, times the upstream
// gradient of the loss when there is one.
//
// A row whose label equals ignore_index (PyTorch's ignore_index, -100 by default: padding
// tokens of a language model) adds nothing to the loss, gets a zero gradient and is not
// counted; when every row is ignored the mean is 0/0 = NaN, as in PyTorch. Every other label
// must be in [0, classes): callers check them (label_outside), naming their op.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace s2::numerics {

// The row of the first label that is neither in [0, classes) nor ignore_index, if any.
std::optional<size_t> label_outside(const int32_t* labels, size_t rows, size_t classes,
                                    int32_t ignore_index);

float softmax_ce_loss(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                      bool mean, int32_t ignore_index);

// dloss: the upstream gradient of the loss (one value), or null for 1. dlogits may be logits
// (in place): each row's max and sum are taken before any element of the row is written, and
// element c is read before it is written.
void softmax_ce_grad(const float* logits, const int32_t* labels, size_t rows, size_t classes,
                     bool mean, int32_t ignore_index, const float* dloss, float* dlogits);

}  // namespace s2::numerics
