#pragma once
// The verilated pe_mac.sv (plain C++ Verilator build) behind a small interface, so callers need
// no Verilator headers. The RTL is combinational: one evaluate() is one PE step.
#include <cstdint>
#include <memory>

#include "isa/encoding/isa_table.h"

class Vpe_mac;

namespace s2::rtl {

template <class Model>
class OwnContextModel;

struct PeMacOutputs {
  uint32_t prod;     // fp32_mul(widen(a), widen(b))
  uint32_t acc_out;  // fp32_add(acc_in, prod)
};

class RtlPeMac {
 public:
  RtlPeMac();
  ~RtlPeMac();
  RtlPeMac(const RtlPeMac&) = delete;
  RtlPeMac& operator=(const RtlPeMac&) = delete;

  // a and b are f32 bit patterns, or for bf16 and f16 the 16-bit patterns in bits 15:0 (the
  // upper bits are passed to the RTL as given: it must ignore them). mode: f32, bf16 or f16
  // (rtl_models/pe/pe_mode.h).
  PeMacOutputs evaluate(uint32_t a, uint32_t b, uint32_t acc_in, isa::DType mode = isa::DType::F32);

 private:
  std::unique_ptr<OwnContextModel<Vpe_mac>> top_;
};

}  // namespace s2::rtl
