#pragma once
// Operator fusion: a PE op and the PPU work that follows it become one op, the way an S2Train
// PE instruction streams its result through the PPU epilogue
// (y = act(pe + bias + residual), then gate) before anything reaches DRAM. The fused ops are
// the ordinary op types with their epilogue inputs and `act` filled in (ops/epilogue.h), so
// every later stage, and the reference interpreter, handles them like any other op.
//
// Patterns, each needing the target's epilogue feature in brackets:
//   residual     conv2d / gemm (forward) -> add, the PE result either operand  [residual]
//   grad_sum     conv2d_bwd_data / conv2d_bwd_weight / gemm (gradients) -> the add summing
//                two gradient contributions                                     [residual]
//   activation   conv2d / gemm [+ residual] -> relu or an activation op, when the target's
//                pe_array.activations lists its function                       [activation]
//   gate         conv2d_bwd_data / gemm [+ residual] -> relu_bwd reading the PE result as
//                dy; the relu output becomes the gate                           [gate]
//   bn_relu      batch_norm -> relu or an activation op               (bn_fwd's act: always)
// An activation whose backward reads its input x (silu, gelu, ...; numerics::reads_output
// false) leaves x a second use in a training step: activation and bn_relu then fuse with
// keep_pre=1, the fused op writing x as its output `pre` beside y, which saves the
// activation's read of x (half of x's write + read) and its instruction.
//   bn_bwd_gate  relu_bwd or activation_bwd -> batch_norm_bwd's dy     (bn_bwd's gate: always;
//                gate_act names the activation; its output must have dy's type)
// Bias needs no pattern: the front end already gives conv2d and gemm their bias input.
//
// Not fused: per-channel statistics (conv2d -> batch_norm through the epilogue's stats
// stage). batch_norm reduces its statistics in double (ops/batch_norm.cpp), and fp32 [2,C]
// sums from the epilogue could not reproduce that bit for bit, which fusion promises.
//
// Legality: every intermediate of a group has exactly one use (the next op of the chain), is
// not a graph output or the loss, and is not a view or viewed; and the merge closes no cycle.
// Ops are stamped with their position in a topological order; a group is rejected when one
// of its outside predecessors depends on one of its members (the merged op would have to
// run both before and after it), found by a backward search that never visits ops stamped
// before the group's first op. Among the legal candidates a depth-first search picks, per
// set of overlapping ones, the non-overlapping combination that saves the most DRAM bytes
// (then removes the most ops; ties go to the candidate found first, i.e. the longest PE
// epilogue). A final check of the merged graph as a whole drops the latest group while two
// groups together would close a cycle (only possible through in-place writes).
//
// Results are bit-identical to the unfused graph under the reference interpreter: each
// epilogue step rounds like the op it replaces.
//
// Preconditions: a well-formed graph (verify_graph), typically a training step after
// autodiff and simplification; ops already fused are extended no further. The result is a new
// graph where each group is one op named after its main op (the PE op, batch_norm or
// batch_norm_bwd) producing the group's last tensor; changed == false, and the graph as it
// was, when nothing fuses.

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "compiler/passes/pass.h"
#include "isa/target/target_desc.h"

namespace s2::ir {

struct FusionOptions {
  std::set<target::EpilogueFeature> features;  // the target's pe_array.epilogue
  // The functions the PE epilogue's activation stage computes (pe_array.activations). The
  // PPU's bn_fwd computes every one, so batch_norm -> activation fuses regardless.
  std::set<isa::Activation> activations = target::all_activations();
};

// The options for a target: its PE array's epilogue features and activations.
FusionOptions fusion_options(const target::TargetDesc& target);

enum class FusionPattern : uint8_t { Residual, GradSum, Activation, Gate, BnRelu, BnBwdGate };
inline constexpr size_t kNumFusionPatterns = 6;
const char* fusion_pattern_name(FusionPattern pattern);

// One op of the result that absorbed others: for debug info and reports.
struct FusedGroup {
  std::string op;                     // the fused op's name (its main op's)
  std::vector<std::string> absorbed;  // names of the ops merged into it
};

struct FusionStats {
  size_t ops_before = 0;
  size_t ops_after = 0;
  size_t ops_fused = 0;      // ops merged into another (ops_before - ops_after)
  uint64_t bytes_saved = 0;  // DRAM traffic of the eliminated intermediates (write + read),
                             // and the read of each kept pre
  std::array<size_t, kNumFusionPatterns> by_pattern{};  // absorbed ops per pattern
  size_t candidates = 0;      // chains matching a pattern the target supports
  size_t rejected_cycle = 0;  // of those, rejected because the merge closes a cycle
  std::vector<FusedGroup> groups;
};

// One line: "26 fused ops absorbed 33 ops (residual 0, grad_sum 8, ...): 223 -> 190 ops,
// 2.97 MiB (3112960 bytes) less DRAM traffic; 47 candidates, 0 rejected as cycles".
std::string fusion_stats_text(const FusionStats& stats);

// Fuses every chosen group; `stats`, when given, receives what happened.
PassResult fuse_epilogues(const Graph& graph, const FusionOptions& options,
                          FusionStats* stats = nullptr);

}  // namespace s2::ir
