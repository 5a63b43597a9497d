#pragma once
// Little-endian byte serialisation for the container, and the bounds-checked reader whose
// every failure names the file, the section and the absolute file offset.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/common/errors.h"

namespace s2::isa {

// A malformed executable: "FILE: section 'NAME' at offset 0xN: problem".
class FormatError : public UserError {
 public:
  FormatError(const std::string& file, const std::string& section, uint64_t offset,
              const std::string& problem);
};

class ByteWriter {
 public:
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void raw(const void* data, size_t size);
  // u16 length, then the bytes.
  void str(const std::string& s);
  void pad_to(size_t alignment);
  size_t size() const { return bytes_.size(); }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Little-endian words at `p`; inline, since the DRAM images of the functional model and the
// stream checker move every element through them.
inline void store_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void store_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void store_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint16_t load_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t load_u32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline uint64_t load_u64(const uint8_t* p) {
  return uint64_t{load_u32(p)} | (uint64_t{load_u32(p + 4)} << 32);
}

// Reads [begin, end) of a file image; `begin` and `end` are absolute file offsets.
class ByteReader {
 public:
  ByteReader(const uint8_t* file, size_t begin, size_t end, std::string file_name,
             std::string section);

  uint8_t u8();
  uint16_t u16();
  uint32_t u32();
  uint64_t u64();
  std::string str();
  const uint8_t* take(size_t n);

  size_t offset() const { return pos_; }
  size_t remaining() const { return end_ - pos_; }
  bool done() const { return pos_ == end_; }
  [[noreturn]] void fail(const std::string& problem) const { fail_at(pos_, problem); }
  [[noreturn]] void fail_at(size_t offset, const std::string& problem) const;
  const std::string& file_name() const { return file_name_; }
  const std::string& section() const { return section_; }

 private:
  const uint8_t* file_;
  size_t pos_;
  size_t end_;
  std::string file_name_;
  std::string section_;
};

}  // namespace s2::isa
