#include "rtl_models/pe/pe_mac_rtl.h"

#include "Vpe_mac.h"
#include "rtl_models/common/own_context_model.h"

namespace s2::rtl {

RtlPeMac::RtlPeMac() : top_(std::make_unique<OwnContextModel<Vpe_mac>>("pe_mac")) {}

RtlPeMac::~RtlPeMac() = default;

PeMacOutputs RtlPeMac::evaluate(uint32_t a, uint32_t b, uint32_t acc_in) {
  Vpe_mac& top = **top_;
  top.a = a;
  top.b = b;
  top.acc_in = acc_in;
  top.eval();
  return {top.prod, top.acc_out};
}

}  // namespace s2::rtl
