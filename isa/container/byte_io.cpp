#include "isa/container/byte_io.h"

#include "isa/common/hex.h"

namespace s2::isa {

FormatError::FormatError(const std::string& file, const std::string& section, uint64_t offset,
                         const std::string& problem)
    : UserError(file + ": section '" + section + "' at offset " + hex(offset) + ": " + problem) {}

void ByteWriter::u16(uint16_t v) {
  u8(static_cast<uint8_t>(v));
  u8(static_cast<uint8_t>(v >> 8));
}

void ByteWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i)
    u8(static_cast<uint8_t>(v >> (8 * i)));
}

void ByteWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i)
    u8(static_cast<uint8_t>(v >> (8 * i)));
}

void ByteWriter::raw(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  bytes_.insert(bytes_.end(), p, p + size);
}

void ByteWriter::str(const std::string& s) {
  S2_CHECK(s.size() <= 0xffff,
           "ByteWriter::str: string of " + std::to_string(s.size()) + " bytes exceeds 65535");
  u16(static_cast<uint16_t>(s.size()));
  raw(s.data(), s.size());
}

void ByteWriter::pad_to(size_t alignment) {
  while (bytes_.size() % alignment != 0)
    u8(0);
}

ByteReader::ByteReader(const uint8_t* file, size_t begin, size_t end, std::string file_name,
                       std::string section)
    : file_(file),
      pos_(begin),
      end_(end),
      file_name_(std::move(file_name)),
      section_(std::move(section)) {}

void ByteReader::fail_at(size_t offset, const std::string& problem) const {
  throw FormatError(file_name_, section_, offset, problem);
}

const uint8_t* ByteReader::take(size_t n) {
  if (n > remaining())
    fail("truncated: needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) +
         " left in the section");
  const uint8_t* p = file_ + pos_;
  pos_ += n;
  return p;
}

uint8_t ByteReader::u8() {
  return *take(1);
}
uint16_t ByteReader::u16() {
  const uint8_t* p = take(2);
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t ByteReader::u32() {
  return load_u32(take(4));
}
uint64_t ByteReader::u64() {
  return load_u64(take(8));
}

std::string ByteReader::str() {
  const uint16_t n = u16();
  const uint8_t* p = take(n);
  return std::string(reinterpret_cast<const char*>(p), n);
}

}  // namespace s2::isa
