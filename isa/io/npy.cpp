#include "isa/io/npy.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"

namespace s2::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlign = 64;
// numpy.save leaves room after the header for the first axis to grow to 21 digits in place;
// we pad the same way so our files are byte-identical to NumPy's.
constexpr size_t kGrowthDigits = 21;

// ---- the header dictionary: a Python literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }

struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<Shape> shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source) : s_(text), source_(source) {}

  Header parse() {
    Header h;
    expect('{');
    while (!take('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
      } else {
        fail("unknown key '" + key + "'");
      }
      if (!take(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the dictionary");
    if (!h.descr || !h.fortran_order || !h.shape)
      fail("the dictionary must have the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    // The header is quoted for context, cut short: a version-2 header may be gigabytes long.
    constexpr std::size_t kShown = 200;
    const std::string shown = s_.size() > kShown ? s_.substr(0, kShown) + "..." : s_;
    throw UserError(source_ + ": malformed .npy header at character " + std::to_string(pos_) +
                    ": " + what + " (header: " + shown + ")");
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  std::string string_literal() {
    skip_space();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) fail("expected a string");
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) fail("unterminated string");
    std::string value = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] :
         {std::pair<const char*, bool>{"True", true}, {"False", false}}) {
      const size_t n = std::strlen(word);
      if (s_.compare(pos_, n, word) == 0) {
        pos_ += n;
        return value;
      }
    }
    fail("expected True or False");
  }
  Shape tuple() {
    Shape shape;
    expect('(');
    while (!take(')')) {
      skip_space();
      const size_t start = pos_;
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        const int64_t digit = s_[pos_] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) fail("dimension too large");
        v = v * 10 + digit;
        ++pos_;
      }
      if (pos_ == start) fail("expected a non-negative dimension");
      shape.push_back(v);
      if (!take(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  const std::string& s_;
  const std::string& source_;
  size_t pos_ = 0;
};

// ---- element codecs (little-endian regardless of the host)

uint64_t load_le(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = bytes; i-- > 0;)
    v = (v << 8) | p[i];
  return v;
}

void store_le(uint64_t v, size_t bytes, std::vector<uint8_t>* out) {
  for (size_t i = 0; i < bytes; ++i)
    out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

const char* descr_of(isa::DType dtype) {
  switch (stored_dtype(dtype)) {
    case isa::DType::F32:
      return "<f4";
    case isa::DType::I32:
      return "<i4";
    case isa::DType::U8:
      return "|u1";
    case isa::DType::F16:
      return "<f2";
    case isa::DType::BF16:
      break;  // stored as f32
  }
  S2_CHECK(false, "npy: no descr for dtype " + std::to_string(static_cast<int>(dtype)));
  return "";
}

}  // namespace

isa::DType stored_dtype(isa::DType dtype) {
  return dtype == isa::DType::BF16 ? isa::DType::F32 : dtype;
}

std::string file_name(const std::string& tensor) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string name;
  name.reserve(tensor.size() + 4);
  for (const char c : tensor) {
    if (c == '/' || c == '\\' || c == ':' || c == '%') {
      const auto byte = static_cast<unsigned char>(c);
      name += '%';
      name += kHex[byte >> 4];
      name += kHex[byte & 15];
    } else {
      name += c;
    }
  }
  return name + ".npy";
}

std::string shape_text(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::vector<uint8_t> encode(isa::DType dtype, const Shape& shape,
                            const std::vector<uint8_t>& data) {
  uint64_t numel = 1;
  for (int64_t d : shape)
    numel *= static_cast<uint64_t>(d);
  S2_CHECK(numel * isa::dtype_bytes(dtype) == data.size(),
           "npy::encode: " + std::to_string(data.size()) + " bytes for shape " + shape_text(shape) +
               " of " + std::string(isa::dtype_name(dtype)));
  std::string header = std::string("{'descr': '") + descr_of(dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  if (!shape.empty()) {
    const size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthDigits) header.append(kGrowthDigits - digits, ' ');
  }
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;  // + version, length, '\n'
  header.append(kAlign - unpadded % kAlign, ' ');
  header += '\n';
  S2_CHECK(header.size() <= 0xffff, "npy::encode: header too long");

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(1);
  out.push_back(0);
  store_le(header.size(), 2, &out);
  out.insert(out.end(), header.begin(), header.end());
  if (dtype != isa::DType::BF16) {
    out.insert(out.end(), data.begin(), data.end());
    return out;
  }
  // bf16 is the top half of a float32: widening is exact, every bit pattern kept.
  out.reserve(out.size() + 2 * data.size());
  for (size_t i = 0; i + 1 < data.size(); i += 2) {
    out.insert(out.end(), {0, 0});
    out.insert(out.end(), {data[i], data[i + 1]});
  }
  return out;
}

Array decode(const std::vector<uint8_t>& bytes, const std::string& source) {
  auto fail = [&](const std::string& what) -> UserError { return UserError(source + ": " + what); };
  if (bytes.size() < kMagicSize || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    throw fail("not a .npy file (bad magic: it must start with \\x93NUMPY)");
  if (bytes.size() < kMagicSize + 2) throw fail("truncated .npy header (no format version)");
  const uint8_t major = bytes[6];
  const uint8_t minor = bytes[7];
  if ((major != 1 && major != 2) || minor != 0)
    throw fail(".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
               " is not supported (1.0 and 2.0 are)");
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicSize + 2 + length_bytes;
  if (bytes.size() < prefix) throw fail("truncated .npy header (no header length)");
  const uint64_t header_len = load_le(bytes.data() + 8, length_bytes);
  if (header_len > bytes.size() - prefix)
    throw fail("truncated .npy header: it declares " + std::to_string(header_len) +
               " header bytes but the file has " + std::to_string(bytes.size() - prefix) +
               " after the prefix");
  const std::string text(bytes.begin() + static_cast<std::ptrdiff_t>(prefix),
                         bytes.begin() + static_cast<std::ptrdiff_t>(prefix + header_len));
  const Header h = HeaderParser(text, source).parse();

  if (*h.fortran_order)
    throw fail(
        "Fortran-ordered arrays are not supported; save a C-ordered array "
        "(numpy.ascontiguousarray)");
  const std::string& descr = *h.descr;
  size_t item = 0;
  isa::DType dtype = isa::DType::F32;
  if (descr == "<f4") {
    item = 4;
  } else if (descr == "<i4") {
    item = 4;
    dtype = isa::DType::I32;
  } else if (descr == "<i8") {
    item = 8;
    dtype = isa::DType::I32;
  } else if (descr == "|u1") {
    item = 1;
    dtype = isa::DType::U8;
  } else if (descr == "<f2") {
    item = 2;
    dtype = isa::DType::F16;
  } else {
    throw fail("unsupported dtype '" + descr +
               "': supported are '<f4' (float32), '<f2' (float16), '<i4' (int32), '|u1' (uint8) "
               "and '<i8' (int64, read as int32)");
  }

  Array array;
  array.dtype = dtype;
  array.shape = *h.shape;
  uint64_t numel = 1;
  for (int64_t d : array.shape) {
    const uint64_t ud = static_cast<uint64_t>(d);
    if (ud != 0 && numel > (bytes.size() / item) / ud)
      throw fail("truncated data: shape " + shape_text(array.shape) +
                 " needs more bytes than the file holds");
    numel *= ud;
  }
  const size_t data_at = prefix + static_cast<size_t>(header_len);
  const uint64_t have = bytes.size() - data_at;
  const uint64_t need = numel * item;
  if (have < need)
    throw fail("truncated data: shape " + shape_text(array.shape) + " of '" + descr + "' needs " +
               std::to_string(need) + " bytes, the file has " + std::to_string(have));
  if (have > need)
    throw fail(std::to_string(have - need) + " bytes of unexpected data after the " +
               std::to_string(need) + " bytes of shape " + shape_text(array.shape));

  const uint8_t* p = bytes.data() + data_at;
  const size_t n = static_cast<size_t>(numel);
  if (item != 8) {
    array.data.assign(p, p + n * item);
    return array;
  }
  array.data.reserve(n * 4);
  for (size_t i = 0; i < n; ++i) {
    const auto v = static_cast<int64_t>(load_le(p + 8 * i, 8));
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      throw fail("element " + std::to_string(i) + " is " + std::to_string(v) +
                 ", outside the int32 range that '<i8' data is narrowed to");
    store_le(static_cast<uint32_t>(v), 4, &array.data);
  }
  return array;
}

void write(const std::string& path, isa::DType dtype, const Shape& shape,
           const std::vector<uint8_t>& data) {
  isa::write_file(path, encode(dtype, shape, data));
}

Array read(const std::string& path) {
  return decode(isa::read_file_bytes(path), path);
}

}  // namespace s2::npy
