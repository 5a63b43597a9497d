#pragma once
// A plain C++ verilated model with a VerilatedContext of its own, which leaves the thread's
// current context (Verilated::threadContextp()) as it found it. Header-only; internal to
// rtl_models.
//
// A new VerilatedContext makes itself the thread's current context. Other models that use the
// current context (the SystemC builds, VerilatedVcdSc) would then share it and, once it is
// destroyed, dangle on it: a heap-use-after-free (found by ASan, tests/rtl_models/
// ppu_sc_test.cpp opens a VCD after a plain PPU has come and gone). So the current context is
// restored after construction, and made this model's only while its scopes unregister.
#include <memory>

#include "verilated.h"

namespace s2::rtl {

template <class Model>
class OwnContextModel {
 public:
  explicit OwnContextModel(const char* name) {
    VerilatedContext* const previous = Verilated::threadContextp();
    context_ = std::make_unique<VerilatedContext>();
    model_ = std::make_unique<Model>(context_.get(), name);
    Verilated::threadContextp(previous);
  }
  ~OwnContextModel() {
    VerilatedContext* const previous = Verilated::threadContextp();
    Verilated::threadContextp(context_.get());
    model_->final();
    model_.reset();
    // Never leave the current context on the one about to be destroyed (nullptr falls back to
    // Verilator's default context).
    Verilated::threadContextp(previous == context_.get() ? nullptr : previous);
  }
  OwnContextModel(const OwnContextModel&) = delete;
  OwnContextModel& operator=(const OwnContextModel&) = delete;

  Model* operator->() { return model_.get(); }
  const Model* operator->() const { return model_.get(); }
  Model& operator*() { return *model_; }

 private:
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
};

}  // namespace s2::rtl
