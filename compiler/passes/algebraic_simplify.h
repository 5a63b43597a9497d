#pragma once
// Algebraic simplification: local identities, each replacing an op by an input, a simpler op
// or a constant.
//
//   scale(x) alpha=1 beta=0          -> x
//   scale(scale(x))                  -> one scale (alpha2*alpha1, alpha2*beta1 + beta2)
//   reshape(x) to x's own shape      -> x
//   reshape(reshape(x))              -> one reshape of x
//   transpose(x) identity perm       -> x
//   transpose(transpose(x))          -> one transpose with the composed perm (identity: x)
//   add(x, zeros), add(zeros, x)     -> x            (zeros: a constant tensor of 0.0)
//   mul(x, ones), mul(ones, x)       -> x            (ones: a constant tensor of 1.0)
//   mul(x, zeros), mul(zeros, x)     -> a new constant of zeros of x's shape
//   relu(relu(x))                    -> relu(x)
//   softmax(add(scale(x, a), m))     -> softmax(x, mask=m) scale=a (attention's scores; an
//                                       all-zero mask is dropped, a constant causal one, 0 on
//                                       and below the diagonal and -inf above, is causal=1)
//   scale(softmax_bwd(dy, y), a)     -> softmax_bwd(dy, y) scale=a
//   activation_bwd(reshape(dy), v)   -> reshape(activation_bwd(dy, v as dy's shape)), and
//   relu_bwd likewise                   (a Linear's rows: the backward joins the gemm, pass fuse)
//
// These hold in real arithmetic; in fp32 three differ in corner cases, as in any algebraic
// simplifier: merging two scales (or a scale into softmax_bwd) rounds once where the chain
// rounded twice (the last bit may change), 1*x+0 and x+0 turn -0 into +0 where the forwarded
// x keeps -0, and mul by zeros turns NaN, infinities and negative x into +0. The others are
// exact (softmax's z = scale * x + mask is the scale and add ops' arithmetic, in their order).
//
// Guards: an op's output is replaced by an existing tensor only when that tensor is a dense
// (contiguous) view, since scale and add also serve as copies that densify a strided view
// for reshape or the PE array, and only when neither tensor lives on data that some op
// updates in place (the consumers would then read the data after the update, not the copy
// taken before it).
//
// Preconditions: a well-formed graph. A replaced op is gone from the result, but what only
// it read stays (the inner op of a merged pair, a constant); run dead_code_elimination
// after. Outputs of the step that became one tensor are listed once. Returns
// changed == false, and the graph as it was, when no identity applies.

#include "compiler/passes/pass.h"

namespace s2::ir {

PassResult algebraic_simplify(const Graph& graph);

}  // namespace s2::ir
