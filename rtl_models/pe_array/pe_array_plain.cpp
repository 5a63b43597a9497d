// The plain C++ Verilator builds of pe_array.sv and make_rtl_pe_array().
#include <memory>
#include <string>
#include <vector>

#include "Vpe_array_16x16.h"
#include "Vpe_array_32x32.h"
#include "Vpe_array_8x4.h"
#include "isa/common/errors.h"
#include "rtl_models/common/own_context_model.h"
#include "rtl_models/pe/pe_mode.h"
#include "rtl_models/pe_array/pe_array_memories.h"
#include "rtl_models/pe_array/pe_array_ports.h"
#include "rtl_models/pe_array/pe_array_rtl.h"
#include "verilated.h"

namespace s2::rtl {
namespace {

// MAX_M of every build (pe_array.sv's default), and the accumulator address width it implies.
constexpr uint32_t kMaxM = 1024;
constexpr unsigned kAccAddrBits = 10;  // $clog2(kMaxM)

// One verilated size. Model is the Verilator class; all sizes share the port names.
template <class Model>
class VerilatedPeArray final : public RtlPeArray {
 public:
  VerilatedPeArray(uint32_t rows, uint32_t cols, uint32_t macs)
      : rows_(rows),
        cols_(cols),
        macs_(macs),
        word_bits_(macs > 1 ? 16 * macs : 32),
        top_("pe_array") {
    top_->clk = 0;
    top_->rst_n = 0;
    top_->start = 0;
    for (int i = 0; i < 2; ++i)
      tick();
    top_->rst_n = 1;
    top_->eval();
  }

  uint32_t rows() const override { return rows_; }
  uint32_t cols() const override { return cols_; }
  uint32_t max_m() const override { return kMaxM; }
  uint32_t macs() const override { return macs_; }

  uint64_t run_pass(const PePass& pass, const uint32_t* x, size_t ldx, const uint32_t* w,
                    size_t ldw, uint32_t* c, size_t ldc) override {
    return run(pass, false, x, ldx, w, ldw, c, ldc, nullptr);
  }
  uint64_t run_drained_pass(const PePass& pass, bool drain, const uint32_t* x, size_t ldx,
                            const uint32_t* w, size_t ldw, uint32_t* c, size_t ldc,
                            const DrainCycle& each_cycle) override {
    return run(pass, drain, x, ldx, w, ldw, c, ldc, &each_cycle);
  }

 private:
  uint64_t run(const PePass& pass, bool drain, const uint32_t* x, size_t ldx, const uint32_t* w,
               size_t ldw, uint32_t* c, size_t ldc, const DrainCycle* each_cycle) {
    check_pass(pass, ldx, ldw, ldc, "RTL PE array");
    PassMemories mem(pass, x, ldx, w, ldw, c, ldc, rows_, input_bytes_per_cycle());
    const unsigned bits = mem.input_bits();
    const uint32_t slots = chains(pass.mode);
    ports::assign(top_->cfg_mode, pe_mode(pass.mode));
    ports::assign(top_->cfg_m, pass.m);
    ports::assign(top_->cfg_n, pass.n);
    ports::assign(top_->cfg_k, pass.k);
    ports::assign(top_->cfg_drain, drain ? 1 : 0);
    top_->start = 1;
    top_->eval();
    const uint64_t watchdog = mem.watchdog_cycles(rows_, cols_);
    uint64_t cycles = 0;
    for (;;) {
      // Before the edge: answer the buffer reads, record what the SRAM sees at the edge.
      if (top_->w_rd_en)
        for (uint32_t j = 0; j < cols_; ++j)
          ports::put(top_->w_rd_data, 32 * j, 32, mem.weight(top_->w_rd_row, j));
      top_->x_rd_valid = 0;
      if (top_->x_rd_en && mem.input_arrives()) {
        // Row r's word: reduction step q * rows + r in field q (one field of 32 bits in f32).
        for (uint32_t r = 0; r < rows_; ++r)
          for (uint32_t q = 0; q < slots; ++q)
            ports::put(top_->x_rd_data, word_bits_ * r + bits * q, bits,
                       mem.input(top_->x_rd_row, q * rows_ + r));
        top_->x_rd_valid = 1;
      }
      reads_.clear();
      writes_.clear();
      for (uint32_t j = 0; j < cols_; ++j) {
        if (ports::get(top_->acc_rd_en, j, 1))
          reads_.push_back({j, ports::get(top_->acc_rd_addr, kAccAddrBits * j, kAccAddrBits), 0});
        if (ports::get(top_->acc_wr_en, j, 1))
          writes_.push_back({j, ports::get(top_->acc_wr_addr, kAccAddrBits * j, kAccAddrBits),
                             ports::get(top_->acc_wr_data, 32 * j, 32)});
      }
      const bool done = top_->done;
      if (each_cycle != nullptr) {
        const bool valid = top_->drain_valid != 0;
        if (valid)
          for (uint32_t j = 0; j < cols_; ++j)
            drain_row_[j] = ports::get(top_->drain_data, 32 * j, 32);
        (*each_cycle)(valid, drain_row_.data());
      }
      // The edge; then the SRAM: reads see the contents before this edge's writes.
      top_->clk = 1;
      top_->eval();
      ++cycles;
      for (Access& a : reads_)
        a.value = mem.acc_read(a.col, a.addr);
      for (const Access& a : writes_)
        mem.acc_write(a.col, a.addr, a.value);
      for (const Access& a : reads_)
        ports::put(top_->acc_rd_data, 32 * a.col, 32, a.value);
      top_->clk = 0;
      top_->start = 0;
      top_->eval();
      if (done) return cycles;
      S2_CHECK(cycles < watchdog,
               "RTL PE array: no done after " + std::to_string(cycles) + " cycles");
    }
  }

  struct Access {
    uint32_t col;
    uint32_t addr;
    uint32_t value;
  };

  void tick() {
    top_->clk = 1;
    top_->eval();
    top_->clk = 0;
    top_->eval();
  }

  uint32_t rows_;
  uint32_t cols_;
  uint32_t macs_;
  unsigned word_bits_;  // pe_array.sv's XW
  OwnContextModel<Model> top_;
  std::vector<Access> reads_;
  std::vector<Access> writes_;
  std::vector<uint32_t> drain_row_ = std::vector<uint32_t>(cols_);
};

}  // namespace

std::unique_ptr<RtlPeArray> make_rtl_pe_array(uint32_t rows, uint32_t cols) {
  // rows, cols, MACS: rtl_models/pe_array/CMakeLists.part.cmake's S2_RTL_PE_ARRAY_BUILDS.
  if (rows == 32 && cols == 32)
    return std::make_unique<VerilatedPeArray<Vpe_array_32x32>>(32, 32, 4);
  if (rows == 16 && cols == 16)
    return std::make_unique<VerilatedPeArray<Vpe_array_16x16>>(16, 16, 2);
  if (rows == 8 && cols == 4) return std::make_unique<VerilatedPeArray<Vpe_array_8x4>>(8, 4, 2);
  throw UserError("no RTL PE array of " + std::to_string(rows) + "x" + std::to_string(cols) +
                  " is built; built sizes (rows x cols): 32x32, 16x16, 8x4 "
                  "(rtl_models/pe_array/CMakeLists.part.cmake)");
}

}  // namespace s2::rtl
