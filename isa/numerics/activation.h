#pragma once
// The activation functions of the ISA (isa.def, enum Activation) and their backward, one
// definition for the compiler's reference interpreter, the simulator's functional model and
// the PPU epilogue. Each is a fixed sequence of datapath operations (fp32.h: every operation
// rounded on its own, subnormals flushed) written in the order PyTorch 1.13's CPU kernels use,
// so the result is the bits of that sequence, not of a fused formula. The transcendental
// steps (exp, erf, tanh) are the PPU's special-function unit, modelled by the host's binary32
// libm functions (glibc expf, erff, tanhf) with inputs and results flushed; the PPU RTL
// implements only none and relu (rtl_models/ppu), so --rtl ppu rejects the others.
//
// Backward: act_bwd(act, dy, v) = dy * act'(x), where v is the forward output y for the
// functions whose derivative is a function of y (relu, relu6, sigmoid; reads_output()) and
// the forward input x for the others. Reading y lets the forward activation fuse into the
// op that produces x, whose output then need not be stored.
#include <cstddef>
#include <cstdint>

#include "isa/encoding/isa_table.h"

namespace s2::numerics {

// True when act_bwd takes the forward output y rather than the input x.
bool reads_output(isa::Activation act);

// y = act(x) for a datapath value x; none returns x.
float act_fwd(isa::Activation act, float x);

// dx = dy * act'(x), v being y or x as reads_output() says; none returns dy.
float act_bwd(isa::Activation act, float dy, float v);

// act_fwd over n elements, in place allowed (y may equal x).
void act_fwd(isa::Activation act, const float* x, float* y, size_t n);

// The activation whose backward a gate stage computes (field gate_act; isa::GateAct numbers
// the activations from relu = 0, one below isa::Activation).
constexpr isa::Activation gate_activation(isa::GateAct g) {
  return static_cast<isa::Activation>(static_cast<uint8_t>(g) + 1);
}
static_assert(gate_activation(isa::GateAct::Relu) == isa::Activation::Relu &&
                  gate_activation(isa::GateAct::Sigmoid) == isa::Activation::Sigmoid &&
                  gate_activation(isa::GateAct::GeluTanh) == isa::Activation::GeluTanh,
              "isa.def: GateAct must list the activations after none, in Activation's order");

}  // namespace s2::numerics
