// CRC-32 (zlib/PNG flavour) guards every section of the container; these are the published
// check values, so a table or seed mistake cannot go unnoticed.

#include "isa/common/crc32.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace s2 {
namespace {

uint32_t crc_of(const std::string& s) {
  return crc32(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(Crc32, CheckValue) {
  EXPECT_EQ(crc_of("123456789"), 0xCBF43926u);
}

TEST(Crc32, EmptyInputIsZero) {
  EXPECT_EQ(crc32(nullptr, 0), 0u);
  EXPECT_EQ(crc_of(""), 0u);
}

TEST(Crc32, KnownVectors) {
  EXPECT_EQ(crc_of("a"), 0xE8B7BE43u);
  EXPECT_EQ(crc_of("abc"), 0x352441C2u);
  EXPECT_EQ(crc_of("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
  const std::vector<uint8_t> zeros(32, 0);
  EXPECT_EQ(crc32(zeros.data(), zeros.size()), 0x190A55ADu);
  const std::vector<uint8_t> ones(32, 0xff);
  EXPECT_EQ(crc32(ones.data(), ones.size()), 0xFF6CAB0Bu);
}

// Feeding the running CRC back in continues the computation: the container's writer and any
// streaming reader may checksum a section in pieces.
TEST(Crc32, IncrementalEqualsOneShot) {
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7 + 3);
  const uint32_t whole = crc32(data.data(), data.size());
  for (size_t split : {size_t{0}, size_t{1}, size_t{63}, size_t{500}, size_t{999}, size_t{1000}}) {
    const uint32_t first = crc32(data.data(), split);
    EXPECT_EQ(crc32(data.data() + split, data.size() - split, first), whole) << "split " << split;
  }
  uint32_t running = 0;
  for (uint8_t byte : data)
    running = crc32(&byte, 1, running);
  EXPECT_EQ(running, whole);
}

// 32 MiB and more go in 16 MiB pieces to every core (on a machine with one core, serially): the
// joined pieces equal the same bytes fed in 1 MiB calls, each of which one core takes alone,
// for a size that does not end on a piece and a running CRC carried in.
TEST(Crc32, PiecesOnEveryCoreEqualOneCore) {
  std::vector<uint8_t> data((size_t{40} << 20) + 12345);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint8_t& b : data) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<uint8_t>(x >> 56);
  }
  for (uint32_t start : {0u, 0xdeadbeefu}) {
    uint32_t serial = start;
    for (size_t at = 0; at < data.size(); at += size_t{1} << 20)
      serial = crc32(data.data() + at, std::min(size_t{1} << 20, data.size() - at), serial);
    EXPECT_EQ(crc32(data.data(), data.size(), start), serial) << "start " << start;
  }
}

TEST(Crc32, DetectsEverySingleBitFlip) {
  std::vector<uint8_t> data = {'S', '2', 'T', 'R', 'A', 'I', 'N', 0};
  const uint32_t good = crc32(data.data(), data.size());
  for (size_t i = 0; i < data.size() * 8; ++i) {
    data[i / 8] ^= static_cast<uint8_t>(1u << (i % 8));
    EXPECT_NE(crc32(data.data(), data.size()), good) << "bit " << i;
    data[i / 8] ^= static_cast<uint8_t>(1u << (i % 8));
  }
}

}  // namespace
}  // namespace s2
