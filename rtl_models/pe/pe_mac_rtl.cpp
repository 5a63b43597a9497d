#include "rtl_models/pe/pe_mac_rtl.h"

#include "Vpe_mac.h"
#include "rtl_models/common/own_context_model.h"
#include "rtl_models/pe/pe_mode.h"

namespace s2::rtl {

RtlPeMac::RtlPeMac() : top_(std::make_unique<OwnContextModel<Vpe_mac>>("pe_mac")) {}

RtlPeMac::~RtlPeMac() = default;

PeMacOutputs RtlPeMac::evaluate(uint32_t a, uint32_t b, uint32_t acc_in, isa::DType mode) {
  Vpe_mac& top = **top_;
  top.mode = pe_mode(mode);
  top.a = a;
  top.b = b;
  top.acc_in = acc_in;
  top.eval();
  return {top.prod, top.acc_out};
}

}  // namespace s2::rtl
