// PE array cycle probes: every expected number is written from the formula in
// simulator/timing/pe_array_model.h, for the base config (32 x 32, 128-byte SRAM ports, so
// one beat per array edge of f32).
#include <gtest/gtest.h>

#include "isa/common/errors.h"
#include "simulator/dram/load_target.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/timing/plan.h"
#include "timing_test_util.h"

namespace s2::sim::timing {
namespace {

using test::config;
using test::gemm;

TEST(TimingPeArray, WeightStationaryFullArrayPass) {
  const auto t = config("base");
  const auto model = make_pe_array_model(t);
  // load K=32 + fill 31+31 + stream M=64 + accumulate 2
  EXPECT_EQ(model->pass_cycles({64, 32, 32}), 32u + 62u + 64u + 2u);
  // A single instruction tile exactly rows x cols: one tile, one pass, the same count.
  const InstructionPlan plan = plan_instruction(gemm(64, 32, 32), t);
  ASSERT_EQ(plan.tiles.size(), 1u);
  EXPECT_EQ(plan.tiles[0].pe_cycles, 160u);
  EXPECT_EQ(model->passes(plan.tiles[0].shape), 1u);
  // Epilogue: default latency 4 + 64*32 elements / 32 lanes at throughput 1.
  EXPECT_EQ(plan.tiles[0].ppu_cycles, 4u + 64u);
}

// The epilogue streams the rows as the array drains them (pe_array_model.h, "streamed").
TEST(TimingPeArray, TheEpilogueStreamsBehindTheDrain) {
  auto t = config("base");
  const InstructionPlan plan = plan_instruction(gemm(64, 32, 32), t);
  ASSERT_EQ(plan.tiles.size(), 1u);
  // Row i final at edge 160 - (63 - i); one beat each at 32 elements per cycle: the last beat
  // at 160, written 4 later. The PPU's own work is still the 4 + 64 cycles above.
  EXPECT_EQ(plan.tiles[0].epilogue_tail, 4u);
  EXPECT_EQ(plan.tiles[0].compute_cycles(), 164u);
  EXPECT_EQ(plan.compute_cycles(), 164u);
  // At half the rate (16 elements per cycle) a row is two beats: 128 beats from edge 97, the
  // last at 224, written at 228.
  t.ppu.ops[static_cast<size_t>(target::PpuOp::Epilogue)].throughput = 0.5;
  const auto model = make_pe_array_model(t);
  EXPECT_EQ(model->streamed_tile_cycles({64, 32, 32}, 16.0, 4), 228u);
  EXPECT_EQ(plan_instruction(gemm(64, 32, 32), t).tiles[0].epilogue_tail, 68u);
  // 10 x 40 x 70: N blocks of 32 and 8 columns, each K blocks 32, 32, 6. The first N block's
  // rows (final at 283..292) the PPU finishes while the array runs the second N block (212 +
  // 80 cycles), whose 8-column rows (final at 575..584) are one beat each at 16 or at 8 per
  // cycle: whatever the first block's queue, the tail is the pipeline alone.
  EXPECT_EQ(model->tile_cycles({10, 40, 70}), 584u);
  for (double rate : {32.0, 16.0, 8.0})
    EXPECT_EQ(model->streamed_tile_cycles({10, 40, 70}, rate, 4), 588u) << rate;
  // At 1 element per cycle the first block's 10 rows are 320 beats from edge 283, busy up to
  // edge 602, past the second block's rows: their 80 beats queue behind, the last at 682.
  EXPECT_EQ(model->streamed_tile_cycles({10, 40, 70}, 1.0, 4), 682u + 4u);
}

TEST(TimingPeArray, OneRowTile) {
  const auto t = config("base");
  const InstructionPlan plan = plan_instruction(gemm(1, 32, 32), t);
  ASSERT_EQ(plan.tiles.size(), 1u);
  EXPECT_EQ(plan.tiles[0].pe_cycles, 32u + 62u + 1u + 2u);
}

TEST(TimingPeArray, PartialArrayStillFillsTheWholeArray) {
  const auto model = make_pe_array_model(config("base"));
  // K=5 weight rows, N=3 columns, 7 input rows: the skew crosses all 32 x 32 PEs.
  EXPECT_EQ(model->pass_cycles({7, 3, 5}), 5u + 62u + 7u + 2u);
}

TEST(TimingPeArray, KLargerThanRowsSplitsIntoKPasses) {
  const auto t = config("base");
  const auto model = make_pe_array_model(t);
  EXPECT_EQ(model->passes({64, 32, 64}), 2u);
  EXPECT_EQ(model->tile_cycles({64, 32, 64}), 2u * 160u);
  // K = 70 = 2 full passes of 32 and one of 6; N = 40 = one of 32 and one of 8.
  const uint64_t expected =
      2 * (32 + 62 + 10 + 2) + 2 * (32 + 62 + 10 + 2) + (6 + 62 + 10 + 2) + (6 + 62 + 10 + 2);
  EXPECT_EQ(model->tile_cycles({10, 40, 70}), expected);
  EXPECT_EQ(model->passes({10, 40, 70}), 6u);
  const InstructionPlan plan = plan_instruction(gemm(64, 32, 64), t);
  EXPECT_EQ(plan.pe_cycles(), 320u);
}

TEST(TimingPeArray, NarrowSramPortThrottlesStreaming) {
  auto t = config("base");
  t.sram.input.banks = 4;              // 64 B/cycle: a 32-wide input row takes two beats
  t.sram.weight.bank_width_bytes = 8;  // 64 B/cycle: a weight row of 32 takes two beats
  const auto model = make_pe_array_model(t);
  EXPECT_EQ(model->pass_cycles({64, 32, 32}), 32u * 2u + 62u + 64u * 2u + 2u);
}

TEST(TimingPeArray, OutputStationary) {
  auto t = config("base");
  t.pe_array.dataflow = target::Dataflow::OutputStationary;
  const auto model = make_pe_array_model(t);
  // fill 62 + stream K=64 + drain M=32 rows + accumulate 2
  EXPECT_EQ(model->pass_cycles({32, 32, 64}), 62u + 64u + 32u + 2u);
  // M = 64 > rows: two passes, each streaming all of K.
  EXPECT_EQ(model->passes({64, 32, 64}), 2u);
  EXPECT_EQ(model->tile_cycles({64, 32, 64}), 2u * 160u);
}

// bf16 with 4 MACs per PE per cycle: a pass reduces K = 4 x 32 = 128 (four chains of 32 rows
// per column); its rows of 128 bf16 (256 B) take two beats of the 128-byte input port; the
// accumulator still takes one f32 row of 32 per beat; the column foot adds 3 more chain sums.
TEST(TimingPeArray, Bf16PacksFourKTilesIntoAPass) {
  auto t = config("base");
  t.pe_array.datatypes = {{isa::DType::F32, 1}, {isa::DType::BF16, 4}};
  const auto model = make_pe_array_model(t, isa::DType::BF16);
  EXPECT_EQ(model->max_pass().k, 128u);
  EXPECT_EQ(model->element_bytes(), 2u);
  // load K=128 rows of 32 bf16 (64 B, one beat) + fill 62 + stream 64 rows x 2 beats
  // + accumulate 2 + 3 chain sums
  EXPECT_EQ(model->pass_cycles({64, 32, 128}), 128u + 62u + 128u + 2u + 3u);
  // The same work in f32 takes four passes of K=32.
  const auto f32 = make_pe_array_model(t);
  EXPECT_EQ(f32->tile_cycles({64, 32, 128}), 4u * (32u + 62u + 64u + 2u));
  // A K of 32 in bf16 reads 64-byte rows: one beat; only the foot's chain sums cost extra.
  EXPECT_EQ(model->pass_cycles({64, 32, 32}), 32u + 62u + 64u + 2u + 3u);
  // Groups pack along the 128 reduction steps: depthwise 3x3 (k=9) fits 14 groups of rows,
  // capped by the 32 columns at one column each.
  EXPECT_EQ(model->groups_per_pass(9, 1), 14u);
}

TEST(TimingPeArray, OutputStationaryTakesMReductionStepsPerBeat) {
  auto t = config("base");
  t.pe_array.dataflow = target::Dataflow::OutputStationary;
  t.pe_array.datatypes = {{isa::DType::F16, 2}};
  const auto model = make_pe_array_model(t, isa::DType::F16);
  // fill 62 + ceil(63/2) = 32 beats of 2 steps (32 rows x 2 x 2 B = 128 B: one beat each)
  // + drain 32 rows + accumulate 2
  EXPECT_EQ(model->pass_cycles({32, 32, 63}), 62u + 32u + 32u + 2u);
}

// The plan picks the model of the instruction's multiplicands; a mode the array lacks is a
// UserError that names it and what the target lists.
TEST(TimingPeArray, PlansUseTheMultiplicandsModeAndRefuseOnesTheArrayLacks) {
  auto t = config("base");
  t.pe_array.datatypes = {{isa::DType::F32, 1}, {isa::DType::BF16, 4}};
  isa::Instruction g = gemm(64, 32, 128);
  for (isa::Slot s : {isa::Slot::A, isa::Slot::B, isa::Slot::Y}) {
    isa::TensorDesc d = g.get(s);
    d.dtype = isa::DType::BF16;
    g.set_operand(s, d);
  }
  const InstructionPlan low = plan_instruction(g, t);
  const auto bf16 = make_pe_array_model(t, isa::DType::BF16);
  uint64_t expected = 0;
  for (const Tile& tile : low.tiles)
    expected += bf16->tile_cycles(tile.shape);
  EXPECT_EQ(low.pe_cycles(), expected);
  EXPECT_LT(low.pe_cycles(), plan_instruction(gemm(64, 32, 128), t).pe_cycles());
  // Its roofline takes the mode's peak: 64*32*128 MACs at 4 per PE per cycle.
  EXPECT_EQ(low.macs, 64u * 32u * 128u);
  EXPECT_EQ(roofline(g, t).compute_cycles, 64u * 32u * 128u / (32u * 32u * 4u));
  t.pe_array.datatypes = {{isa::DType::F32, 1}};
  try {
    plan_instruction(g, t);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("does not multiply bf16 (pe_array.datatypes lists f32)"),
              std::string::npos)
        << e.what();
  }
}

// Issue 18 point 6: the roofline counts an operand's distinct elements. Overlapping axes
// ({1888, 2655} over [3, 194]: every element distinct, spread over 2 MB) are 582 elements, not
// their span, which no schedule moves; a broadcast axis adds nothing; a padded slice its rows.
TEST(TimingPeArray, RooflineCountsTheElementsOfStridedOperands) {
  const auto t = config("base");
  isa::Instruction g = gemm(175, 194, 3);
  const uint64_t dense = roofline(g, t).bytes_read;  // a [175,3] + b [3,194]
  EXPECT_EQ(dense, (175u * 3u + 3u * 194u) * 4u);
  isa::TensorDesc b = g.get(isa::Slot::B);
  b.strides[0] = 1888;
  b.strides[1] = 2655;
  g.set_operand(isa::Slot::B, b);
  EXPECT_EQ(roofline(g, t).bytes_read, dense);
  b.strides = {0, 1};  // one row, broadcast
  g.set_operand(isa::Slot::B, b);
  EXPECT_EQ(roofline(g, t).bytes_read, (175u * 3u + 194u) * 4u);
  b.strides = {2, 1};  // rows overlapping by 192 elements: 198 distinct
  g.set_operand(isa::Slot::B, b);
  EXPECT_EQ(roofline(g, t).bytes_read, (175u * 3u + 198u) * 4u);
  b.strides = {500, 1};  // a slice of rows 500 wide
  g.set_operand(isa::Slot::B, b);
  EXPECT_EQ(roofline(g, t).bytes_read, dense);
}

TEST(TimingPeArray, PassLargerThanTheArrayIsAnInternalError) {
  const auto model = make_pe_array_model(config("base"));
  EXPECT_THROW(model->pass_cycles({1, 33, 1}), InternalError);
  EXPECT_THROW(model->pass_cycles({1, 1, 0}), InternalError);
}

// A value the model cannot take is reported where the YAML wrote it, like the loader's errors;
// a key left at its default points at the enclosing mapping that was written.
TEST(TimingPeArray, ConfigErrorsNameTheFileAndLine) {
  const std::string yaml = R"(name: tiny_accumulator
clock_mhz: 1000
pe_array: {rows: 32, cols: 32}
sram:
  input:       {size: 256KiB, banks: 8, bank_width: 16}
  weight:      {size: 256KiB, banks: 8, bank_width: 16}
  accumulator: {size: 64, banks: 1, bank_width: 64}
  output:      {size: 128KiB, banks: 8, bank_width: 16}
ppu:
  lanes: 32
  ops:
    default: {throughput: 1, latency: 4}
dma: {engines: 2, width: 64, max_outstanding: 16}
dram: {preset: DDR4-3200}
)";
  const target::TargetDesc t =
      target::parse_target(yaml, "tiny.yaml", std::string(S2_SOURCE_DIR) + "/configs/dram");
  try {
    make_pe_array_model(t);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "tiny.yaml:7: sram.accumulator.size: 64 bytes hold no row of partial sums for 32 PE "
              "columns (128 bytes)");
  }
  EXPECT_EQ(t.where("ppu.ops.sgd.throughput"), "tiny.yaml:11: ppu.ops.sgd.throughput");
  EXPECT_EQ(t.where("dram.timing.tRCD")
                .rfind(std::string(S2_SOURCE_DIR) + "/configs/dram/DDR4-3200.yaml:", 0),
            0u)
      << t.where("dram.timing.tRCD");
  target::TargetDesc hand_built;
  hand_built.source_file = "(built in)";
  EXPECT_EQ(hand_built.where("clock_mhz"), "(built in): clock_mhz");
}

TEST(TimingPeArray, UnknownDataflowListsTheKnownOnes) {
  try {
    make_pe_array_model("row_stationary", config("base"));
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "unknown PE-array dataflow 'row_stationary'; known: weight_stationary, "
                 "output_stationary");
  }
  // Every dataflow a target can name has its model.
  for (std::string_view name : target::kDataflowNames)
    EXPECT_TRUE(pe_array_model_registry().contains(name)) << name;
}

}  // namespace
}  // namespace s2::sim::timing
