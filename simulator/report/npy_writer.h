#pragma once
// Writes tensors as NumPy .npy files (format 1.0, little-endian, C order) that NumPy and
// PyTorch read directly (`numpy.load`).

#include <cstdint>
#include <string>
#include <vector>

#include "isa/encoding/isa_table.h"

namespace s2::sim::report {

// `bytes` are the tensor's elements in row-major order, `shape` its dimensions. Writes through
// a temporary file renamed into place; a UserError names the path on failure.
void write_npy(const std::string& path, isa::DType dtype, const std::vector<uint32_t>& shape,
               const std::vector<uint8_t>& bytes);

}  // namespace s2::sim::report
