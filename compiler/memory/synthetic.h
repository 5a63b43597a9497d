#pragma once
// Synthetic planning problems, for the planners' tests and benchmark.
//
// Real lifetimes need a scheduled graph; these reproduce their structure without one, so the
// planners can be measured on thousands of instances and on sizes no test graph reaches.
// Both generators are deterministic for a given seed (mt19937_64, reduced by `%`).

#include <cstdint>
#include <vector>

#include "compiler/memory/buffer.h"

namespace s2::memory {

// A residual CNN's training step in execution order: stem, stages of residual blocks (two
// 3x3 convolutions, or 1x1-3x3-1x1 bottlenecks) with a projection on the skip path where the
// shape changes, global pooling, a fully connected layer, softmax cross-entropy, then the
// backward in reverse and the SGD updates. Each convolution's output is saved for its batch
// norm's backward and each batch norm + ReLU output for the next convolution's weight
// gradient, so feature maps live from the forward to the backward; activation gradients
// live from producer to last consumer; weight gradients until their update (right after
// they are complete with `update_immediate`, else after the whole backward). Weights,
// momentum, the input batch and labels are persistent.
struct ResNetLike {
  std::vector<uint32_t> blocks = {2, 2, 2, 2};  // per stage; ResNet-18
  bool bottleneck = false;
  uint64_t batch = 4;
  uint64_t image = 32;  // square input, 3 channels
  uint64_t width = 64;  // channels of the first stage, doubled per stage
  uint64_t classes = 10;
  bool update_immediate = true;
  // 0: exact float32 sizes. Otherwise every feature-map size is scaled by a random factor
  // in [1, 1 + jitter) and gets a random tail of 0..63 bytes, for varied instances.
  double jitter = 0;
  uint64_t seed = 1;
};
std::vector<Buffer> resnet_like_buffers(const ResNetLike& spec);

// `count` buffers with random lifetimes in [0, steps) (a mix of short and long ones), sizes
// spread log-uniformly over 1 B .. 4 MiB and not multiples of any alignment, about one in
// eight persistent and one in forty of size 0.
std::vector<Buffer> random_buffers(uint64_t seed, size_t count, uint32_t steps);

}  // namespace s2::memory
