// The checker's building blocks: exact byte sets of descriptors, the tagged interval map of
// the shadow memory, and the dependency closure with its fences.
#include <gtest/gtest.h>

#include "simulator/checker/byte_runs.h"
#include "simulator/checker/dependency_closure.h"
#include "simulator/checker/shadow_memory.h"

namespace s2::sim::checker {
namespace {

isa::TensorDesc strided(uint64_t addr, std::vector<uint32_t> shape, std::vector<uint32_t> strides) {
  isa::TensorDesc d;
  d.addr = addr;
  d.dtype = isa::DType::F32;
  d.rank = static_cast<uint8_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    d.shape[i] = shape[i];
    d.strides[i] = strides[i];
  }
  return d;
}

TEST(CheckerByteSet, DenseTensorIsOneInterval) {
  const ByteSet s = byte_set(isa::TensorDesc::contiguous(0x100, isa::DType::F32, {2, 3, 4, 5}));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (Interval{0x100, 0x100 + 2 * 3 * 4 * 5 * 4}));
}

TEST(CheckerByteSet, RowSliceGivesOneRunPerRow) {
  // Columns 0..1 of a [3, 8] matrix: rows of 2 floats, 8 floats apart.
  const ByteSet s = byte_set(strided(0x1000, {3, 2}, {8, 1}));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], (Interval{0x1000, 0x1008}));
  EXPECT_EQ(s[1], (Interval{0x1020, 0x1028}));
  EXPECT_EQ(s[2], (Interval{0x1040, 0x1048}));
}

TEST(CheckerByteSet, TransposedViewCoversEveryElementExactlyOnce) {
  // A [4, 3] view of a dense [3, 4] matrix: the same 48 bytes, visited out of order.
  const ByteSet s = byte_set(strided(0x40, {4, 3}, {1, 4}));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (Interval{0x40, 0x40 + 48}));
}

TEST(CheckerByteSet, BroadcastAndUnitDimensionsAddNothing) {
  const ByteSet s = byte_set(strided(0x80, {5, 1, 4}, {0, 99, 1}));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (Interval{0x80, 0x90}));
  EXPECT_TRUE(byte_set(strided(0x80, {5, 0}, {1, 1})).empty());
}

TEST(CheckerByteSet, SetOperations) {
  const ByteSet a = normalize({{30, 40}, {0, 10}, {10, 12}});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], (Interval{0, 12}));
  const ByteSet b{{11, 20}, {35, 50}};
  EXPECT_EQ(first_common(a, b), (Interval{11, 12}));
  EXPECT_EQ(first_common(ByteSet{{0, 5}}, ByteSet{{5, 9}}), std::nullopt);
  EXPECT_EQ(clip(a, 5, 35), (ByteSet{{5, 12}, {30, 35}}));
  EXPECT_EQ(outside(a, 5, 35), (ByteSet{{0, 5}, {35, 40}}));
  EXPECT_EQ(unite(a, b), (ByteSet{{0, 20}, {30, 50}}));
  EXPECT_EQ(total_bytes(a), 22u);
}

struct Seen {
  Interval piece;
  bool written;
  Tag tag;
};

std::vector<Seen> read_all(const ShadowMemory& m, Interval range) {
  std::vector<Seen> out;
  m.read(range, [&](const Interval& piece, const Tag* tag) {
    out.push_back({piece, tag != nullptr, tag ? *tag : Tag{}});
  });
  return out;
}

TEST(CheckerShadowMemory, OverwriteSplitsAndReportsGaps) {
  ShadowMemory m;
  m.write({100, 200}, {1, kNone});
  m.write({150, 250}, {2, 7});
  const std::vector<Seen> seen = read_all(m, {50, 300});
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].piece, (Interval{50, 100}));
  EXPECT_FALSE(seen[0].written);
  EXPECT_EQ(seen[1].piece, (Interval{100, 150}));
  EXPECT_EQ(seen[1].tag, (Tag{1, kNone}));
  EXPECT_EQ(seen[2].piece, (Interval{150, 250}));
  EXPECT_EQ(seen[2].tag, (Tag{2, 7}));
  EXPECT_EQ(seen[3].piece, (Interval{250, 300}));
  EXPECT_FALSE(seen[3].written);
}

TEST(CheckerShadowMemory, WriteInsideAPieceKeepsBothEnds) {
  ShadowMemory m;
  m.write({0, 100}, {1, 0});
  m.write({40, 60}, {2, 1});
  const std::vector<Seen> seen = read_all(m, {0, 100});
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].piece, (Interval{0, 40}));
  EXPECT_EQ(seen[1].tag, (Tag{2, 1}));
  EXPECT_EQ(seen[2].piece, (Interval{60, 100}));
  EXPECT_EQ(seen[2].tag, (Tag{1, 0}));
}

TEST(CheckerShadowMemory, EqualTagsMergeSoStridedWritesDoNotFragment) {
  ShadowMemory m;
  for (uint64_t i = 0; i < 100; ++i)
    m.write({i * 8, i * 8 + 8}, {3, 4});
  EXPECT_EQ(m.pieces(), 1u);
  m.write({0, 800}, {5, 6});
  EXPECT_EQ(m.pieces(), 1u);
}

std::vector<isa::Instruction> chain(size_t n) {
  std::vector<isa::Instruction> p(n, isa::Instruction(isa::Opcode::Fill));
  return p;
}

TEST(CheckerDependencyClosure, PathsAreTransitive) {
  std::vector<isa::Instruction> p = chain(4);
  p[1].deps = {0};
  p[2].deps = {1};
  const DependencyClosure c(p);
  EXPECT_TRUE(c.waits_for(2, 0));
  EXPECT_TRUE(c.ordered(0, 2));
  EXPECT_FALSE(c.waits_for(3, 0));
  EXPECT_FALSE(c.waits_for(0, 2));
}

TEST(CheckerDependencyClosure, FencesOrderEverythingAcrossThem) {
  std::vector<isa::Instruction> p = chain(2);
  p.emplace_back(isa::Opcode::Barrier);
  p.emplace_back(isa::Opcode::Fill);  // no explicit deps: still after the barrier
  p.emplace_back(isa::Opcode::Fill);
  p.emplace_back(isa::Opcode::End);
  const DependencyClosure c(p);
  EXPECT_TRUE(c.waits_for(2, 0));
  EXPECT_TRUE(c.waits_for(3, 1));
  EXPECT_TRUE(c.waits_for(4, 0));
  EXPECT_FALSE(c.waits_for(4, 3));  // both after the same fence, unordered
  EXPECT_TRUE(c.waits_for(5, 4));
}

}  // namespace
}  // namespace s2::sim::checker
