#include "rtl_models/pe/pe_mac_rtl.h"

#include "Vpe_mac.h"
#include "verilated.h"

namespace s2::rtl {

RtlPeMac::RtlPeMac()
    : context_(std::make_unique<VerilatedContext>()),
      top_(std::make_unique<Vpe_mac>(context_.get(), "pe_mac")) {}

RtlPeMac::~RtlPeMac() {
  top_->final();
}

PeMacOutputs RtlPeMac::evaluate(uint32_t a, uint32_t b, uint32_t acc_in) {
  top_->a = a;
  top_->b = b;
  top_->acc_in = acc_in;
  top_->eval();
  return {top_->prod, top_->acc_out};
}

}  // namespace s2::rtl
