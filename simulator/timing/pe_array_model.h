#pragma once
// Cycle cost of the PE array, per array pass and per SRAM tile, in accelerator cycles.
//
// A pass is one configuration of the array: a block of K_t x N_t stationary values and M_t
// streamed rows. Bandwidth of the on-chip buffers enters through "beats": a buffer delivers
// banks * bank_width bytes per cycle, so moving b bytes takes beats(b) = ceil(b / that)
// cycles (every shipped config gives exactly one array edge of f32 per cycle: beats = 1).
// R x C is the array (rows x cols). A model is built for one multiply mode, the element type
// of an instruction's multiplicands: E is its size in bytes (f32 4, bf16 and f16 2) and m its
// MACs per PE per cycle (pe_array.datatypes; f32 1). Partial sums are always f32 (4 bytes).
//
// weight_stationary (K_t <= R * m, N_t <= C, M_t <= A):
//   A = sram.accumulator.size / (4 * C), the accumulator rows of one PE column: a pass
//   accumulates its M_t output rows of each column in that column's accumulator bank (the
//   RTL's MAX_M; base config 1024).
//   With m > 1 each PE holds m stationary values, from m K-tiles of R rows (k, k + R, ...),
//   and runs m partial-sum chains down its column side by side; the foot of the column adds
//   the m chain sums into the accumulator one after the other, in ascending K-tile order. The
//   sums are therefore exactly the K-tiled sums of isa/numerics/pe_gemm.h with K-tile R: the
//   MAC rate changes the time, never the bits.
//   pass = K_t * beats_w(E*N_t)                           weight load, one row per beat
//        + (R - 1) + (C - 1)                              fill: skew through the whole array
//        + M_t * max(beats_in(E*K_t), beats_acc(4*N_t))   stream, one input row per beat
//        + kAccumulateLatency + (m - 1)                   drain into the accumulator: the
//                                                         read-add-write of the last row, after
//                                                         its m chain sums
//   The fill spans the whole physical array because unused PEs still pass data along.
//   Partial sums of successive K passes are added in the accumulator (the first pass writes).
//
// output_stationary (M_t <= R, N_t <= C): outputs stay in the PEs, both operands stream; a PE
// consumes m reduction steps per cycle, adding each product to its sum in ascending k.
//   pass = (R - 1) + (C - 1)                              fill
//        + ceil(K_t / m) * max(beats_in(E*M_t*m), beats_w(E*N_t*m))
//                                                         stream, m reduction steps per beat
//        + M_t * beats_acc(4*N_t)                         drain: one output row per beat
//        + kAccumulateLatency                             accumulate the last row
//
// A tile of M_b x N_b x K_b (any size) is covered by passes of at most the limits above;
// tile_cycles() is the sum of their costs, in closed form (pass sizes take at most two values
// per dimension). The RTL (rtl_models/pe_array/pe_array.sv, every mode) matches pass_cycles()
// exactly.
//
// The PPU epilogue (all fused stages: bias, activation, residual, gate, statistics, pipelined)
// consumes the array's results as it drains them, one PPU pass per tile over the M_b x N_b
// values of its last K block. A pass of that block (the last of its K passes) makes its
// output rows final one every `d` cycles, the last one at the pass's last cycle:
//   row i of M_t final at edge pass_cycles - (M_t - 1 - i) * d
//   d = max(beats_in(E*K_t), beats_acc(4*N_t))  weight_stationary (the stream's row rate)
//   d = beats_acc(4*N_t)                         output_stationary (the drain's row rate)
// (pe_array.sv's drain port: the row leaves, de-skewed, as it is written into the last
// physical column's accumulator). The PPU takes a row as ceil(N_t / w) beats, one beat per
// cycle at the earliest in the cycle its row is final, w = min(lanes * throughput, output
// port) elements per cycle (ppu_model.h), in the order the rows come; its results are written
// `latency` cycles after their beat (ppu.sv). The passes of a tile run back to back in the
// order N blocks, K blocks, M blocks, so the PPU works on one N block's rows while the array
// runs the next N block. The tile takes
//   streamed = max(array, last beat + latency(epilogue))
// where last beat is the edge that captures the last beat: over the rows in order, a queue
// served one beat per cycle, last = max over rows j of (final edge of j + beats of rows j..
// - 1). When the PPU keeps up with the array (w >= N_t / d; every shipped configuration), the
// epilogue costs latency + ceil(N_t / w) - 1 cycles after the array's last pass instead of a
// pass of latency + ceil(M_b * N_b / w) cycles after it (epilogue_cycles(), the PPU's work).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "isa/common/registry.h"
#include "isa/encoding/instruction.h"
#include "isa/target/target_desc.h"

namespace s2::sim::timing {

inline constexpr uint64_t kAccumulateLatency = 2;
inline constexpr uint64_t kF32Bytes = 4;

struct PassShape {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
};

class PeArrayModel {
 public:
  virtual ~PeArrayModel() = default;
  // The largest pass: M, N and K limits (0: unlimited).
  virtual PassShape max_pass() const = 0;
  // Cycles of one pass; its shape must respect max_pass() and be non-zero (internal error).
  virtual uint64_t pass_cycles(const PassShape& pass) const = 0;

  // How many channel groups of a grouped GEMM (each k x n: k reduction steps, n columns) one
  // pass computes side by side, block-diagonally: group i's weights in rows [i*k, (i+1)*k)
  // and columns [i*n, (i+1)*n), the other PEs of those rows and columns gated off, so each
  // column still sums only its own group's products, in the same order. 1 when the dataflow
  // cannot (a group's k or n exceeds the array, or its columns share a streamed row).
  virtual uint64_t groups_per_pass(uint64_t k, uint64_t n) const = 0;

  // The cycles between two output rows of a pass leaving the array (above: d).
  virtual uint64_t drain_interval(const PassShape& pass) const = 0;

  // Cycles of a whole tile, the sum over its passes. Zero for an empty tile.
  uint64_t tile_cycles(const PassShape& tile) const;
  // Cycles of a tile whose last K block streams through the PPU epilogue as it drains (above:
  // streamed), at `epilogue_rate` elements per cycle with `epilogue_latency` pipeline stages.
  // Zero for an empty tile.
  uint64_t streamed_tile_cycles(const PassShape& tile, double epilogue_rate,
                                uint64_t epilogue_latency) const;
  // Number of passes a tile takes.
  uint64_t passes(const PassShape& tile) const;

  // The multiply mode: bytes per multiplicand element and MACs per PE per cycle.
  isa::DType dtype() const { return dtype_; }
  uint64_t element_bytes() const { return element_bytes_; }
  uint64_t macs_per_pe() const { return macs_per_pe_; }

 protected:
  PeArrayModel(const target::TargetDesc& target, isa::DType dtype);
  isa::DType dtype_;
  uint64_t element_bytes_;
  uint64_t macs_per_pe_;
  uint64_t rows_;
  uint64_t cols_;
  uint64_t in_bytes_per_cycle_;
  uint64_t weight_bytes_per_cycle_;
  uint64_t acc_bytes_per_cycle_;
  static uint64_t beats(uint64_t bytes, uint64_t per_cycle) {
    return (bytes + per_cycle - 1) / per_cycle;
  }
};

// The PE array model of the target's dataflow for one multiply mode, built through the
// registry below. The target's array must multiply `dtype` (an internal error otherwise:
// PeArrayModels checks instructions first).
std::unique_ptr<PeArrayModel> make_pe_array_model(const target::TargetDesc& target,
                                                  isa::DType dtype = isa::DType::F32);

// The registry: dataflow name -> factory. It has a model for every dataflow of the target
// schema (target_desc.h kDataflowNames; checked when it is built), so the overload above never
// fails; an unknown name given here is the registry's UserError listing the known ones.
using PeArrayFactory =
    std::function<std::unique_ptr<PeArrayModel>(const target::TargetDesc&, isa::DType)>;
using PeArrayModelRegistry = Registry<PeArrayFactory>;
const PeArrayModelRegistry& pe_array_model_registry();
std::unique_ptr<PeArrayModel> make_pe_array_model(std::string_view dataflow,
                                                  const target::TargetDesc& target,
                                                  isa::DType dtype = isa::DType::F32);

// One model per element type the target's array multiplies (pe_array.datatypes).
class PeArrayModels {
 public:
  explicit PeArrayModels(const target::TargetDesc& target);
  // The model of the instruction's multiply mode (isa::multiplicand_dtype); for an
  // instruction of another unit, the f32 model (or the first, for an array without f32),
  // which only PE instructions consult. A PE instruction in a type the array does not
  // multiply is a UserError naming the type and the types the target lists.
  const PeArrayModel& for_instruction(const isa::Instruction& inst) const;
  const PeArrayModel& get(isa::DType dtype) const;

 private:
  std::string target_name_;
  std::map<isa::DType, std::unique_ptr<PeArrayModel>> models_;
};

// Cycles the PPU works on the fused epilogue of a finished tile of `elements` values, writing
// results of `element_bytes` each (the output operand's type): one pass, latency + ceil(E / w).
uint64_t epilogue_cycles(const target::TargetDesc& target, uint64_t elements,
                         uint64_t element_bytes = 4);
// The cycles a tile's compute runs past its array passes while its streamed epilogue finishes:
// streamed_tile_cycles() - tile_cycles() at the target's epilogue rate and latency.
uint64_t epilogue_tail(const target::TargetDesc& target, const PeArrayModel& model,
                       const PassShape& tile, uint64_t element_bytes = 4);

}  // namespace s2::sim::timing
