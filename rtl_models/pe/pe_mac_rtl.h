#pragma once
// The verilated pe_mac.sv (plain C++ Verilator build) behind a small interface, so callers need
// no Verilator headers. The RTL is combinational: one evaluate() is one PE step.
#include <cstdint>
#include <memory>

class Vpe_mac;

namespace s2::rtl {

template <class Model>
class OwnContextModel;

struct PeMacOutputs {
  uint32_t prod;     // fp32_mul(a, b)
  uint32_t acc_out;  // fp32_add(acc_in, prod)
};

class RtlPeMac {
 public:
  RtlPeMac();
  ~RtlPeMac();
  RtlPeMac(const RtlPeMac&) = delete;
  RtlPeMac& operator=(const RtlPeMac&) = delete;

  PeMacOutputs evaluate(uint32_t a, uint32_t b, uint32_t acc_in);

 private:
  std::unique_ptr<OwnContextModel<Vpe_mac>> top_;
};

}  // namespace s2::rtl
