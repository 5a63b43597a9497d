#pragma once
// The contents of ONNX TensorProtos (initializers and Constant values) as host data: float
// tensors become weight contents, integer tensors constant shapes. External data was loaded
// with the model (model_file.h); a tensor still marked external is an error.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace s2::onnx_import {

// "FLOAT", "INT64", ... for messages.
std::string elem_type_name(int32_t elem_type);

// The dims of `t`; UserError (prefixed with `where`) when one is negative.
std::vector<int64_t> tensor_dims(const onnx::TensorProto& t, const std::string& where);

// The elements of a FLOAT tensor, in row-major order. UserError (prefixed with `where`, e.g.
// "model.onnx: initializer 'fc.weight'") for another element type, external data, or a
// payload whose size does not match the dims.
std::vector<float> float_values(const onnx::TensorProto& t, const std::string& where);

// The elements of an INT64, INT32 or BOOL (as 0 and 1) tensor; UserError as above.
std::vector<int64_t> int_values(const onnx::TensorProto& t, const std::string& where);

// Before `bytes` of raw data for `t` are read from elsewhere (external data): the UserError
// that decoding them would give when they cannot be its payload (the element count times the
// size of FLOAT, INT64, INT32 or BOOL), so nothing is allocated for a length the dims do not
// promise. Other element types are left to the decoder.
void check_raw_data_size(const onnx::TensorProto& t, uint64_t bytes, const std::string& where);

}  // namespace s2::onnx_import
