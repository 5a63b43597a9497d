// .npy reading and writing: byte-identical to numpy.save, round trips, and every rejected
// file with a message naming the file and the problem.
#include "compiler/io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "isa/common/errors.h"
#include "isa/io/npy.h"

namespace s2::io {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// A .npy file with `header` as its dictionary, padded like NumPy's, followed by `data`.
Bytes npy_file(const std::string& header, const Bytes& data, uint8_t major = 1) {
  std::string h = header;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64 != 0)
    h += ' ';
  h += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  out.push_back(static_cast<uint8_t>(h.size()));
  out.push_back(static_cast<uint8_t>(h.size() >> 8));
  if (major == 2) {
    out.push_back(static_cast<uint8_t>(h.size() >> 16));
    out.push_back(static_cast<uint8_t>(h.size() >> 24));
  }
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes le_bytes(const std::vector<int64_t>& values, size_t width) {
  Bytes out;
  for (int64_t v : values)
    for (size_t i = 0; i < width; ++i)
      out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
  return out;
}

std::string decode_error(const Bytes& bytes) {
  try {
    decode_npy(bytes, "t.npy");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_ERROR(bytes, text)                                \
  do {                                                           \
    const std::string message = decode_error(bytes);             \
    EXPECT_EQ(message.rfind("t.npy: ", 0), 0u) << message;       \
    EXPECT_NE(message.find(text), std::string::npos) << message; \
  } while (0)

TEST(Npy, WritesWhatNumpySaveWrites) {
  // numpy.save of np.array([[0.5, -1, 2], [3.25, 0, 1e-3]], np.float32), NumPy 1.24.
  const Bytes bytes =
      encode_npy(ir::HostArray(std::vector<float>{0.5f, -1.0f, 2.0f, 3.25f, 0.0f, 1e-3f}), {2, 3});
  ASSERT_EQ(bytes.size(), 128u + 24u);
  const std::string prefix(bytes.begin(), bytes.begin() + 10);
  EXPECT_EQ(prefix, std::string("\x93NUMPY\x01\x00v\x00", 10));
  const std::string header(bytes.begin() + 10, bytes.begin() + 128);
  EXPECT_EQ(header, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                        std::string(58, ' ') + "\n");
  const Bytes data(bytes.begin() + 128, bytes.end());
  EXPECT_EQ(data, (Bytes{0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x80, 0xbf, 0x00, 0x00, 0x00, 0x40,
                         0x00, 0x00, 0x50, 0x40, 0x00, 0x00, 0x00, 0x00, 0x6f, 0x12, 0x83, 0x3a}));
}

// Every tool's file for a tensor: one file per name. With '/', '\\' and ':' each made '_',
// 'v/x' and 'v_x' shared v_x.npy, and a dump wrote the second over the first.
TEST(Npy, FileNamesAreOnePerTensorName) {
  EXPECT_EQ(npy::file_name("fc1.weight"), "fc1.weight.npy");
  EXPECT_EQ(npy::file_name("/layer1/Relu_output_0"), "%2Flayer1%2FRelu_output_0.npy");
  EXPECT_EQ(npy::file_name("onnx::Conv_12"), "onnx%3A%3AConv_12.npy");
  EXPECT_EQ(npy::file_name("a\\b%c"), "a%5Cb%25c.npy");
  const std::vector<std::string> names = {"v/x", "v_x", "v:x", "v\\x", "v%2Fx", "v%x", "v%25x"};
  std::set<std::string> files;
  for (const std::string& name : names) {
    const std::string file = npy::file_name(name);
    EXPECT_EQ(file.find('/'), std::string::npos) << name;
    files.insert(file);
  }
  EXPECT_EQ(files.size(), names.size());
}

TEST(Npy, RoundTrips) {
  const std::vector<std::pair<ir::HostArray, ir::Shape>> cases = {
      {ir::HostArray(std::vector<float>{1.5f, -2.0f, 3.0f, 1e-30f, -0.0f, 7.0f}), {2, 3}},
      {ir::HostArray(std::vector<int32_t>{0, -1, 2147483647, -2147483647 - 1}), {4}},
      {ir::HostArray(std::vector<float>{42.0f}), {}},
      {ir::HostArray(std::vector<float>(2 * 3 * 4 * 5, 0.25f)), {2, 3, 4, 5}},
      {ir::HostArray(std::vector<float>{}), {0, 3}},
  };
  for (const auto& [data, shape] : cases) {
    const NpyArray back = decode_npy(encode_npy(data, shape), "t.npy");
    EXPECT_EQ(back.shape, shape);
    EXPECT_TRUE(back.data == data);
    EXPECT_EQ(encode_npy(data, shape).size() % 64, (data.size() * 4) % 64);  // aligned header
  }
}

TEST(Npy, ThroughFiles) {
  const fs::path dir = fs::temp_directory_path() / "s2_npy_test";
  fs::create_directories(dir);
  const std::string path = (dir / "w.npy").string();
  write_npy(path, ir::HostArray(std::vector<float>{1, 2, 3, 4}), {2, 2});
  EXPECT_TRUE(read_npy_expect(path, isa::DType::F32, {2, 2}) ==
              ir::HostArray(std::vector<float>{1, 2, 3, 4}));
  try {
    read_npy_expect(path, isa::DType::F32, {4});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": shape (2, 2) does not match the expected (4,)");
  }
  try {
    read_npy_expect(path, isa::DType::I32, {2, 2});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": holds f32 data, expected i32");
  }
  const std::string missing = (dir / "missing.npy").string();
  try {
    read_npy(missing);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(missing + ": cannot open", 0), 0u) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Npy, ReadsInt64LabelsAsInt32) {
  const Bytes file = npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                              le_bytes({0, 9, -2147483648LL}, 8));
  const NpyArray a = decode_npy(file, "t.npy");
  EXPECT_EQ(a.shape, (ir::Shape{3}));
  EXPECT_EQ(a.data.i32(), (std::vector<int32_t>{0, 9, -2147483647 - 1}));
  EXPECT_ERROR(npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                        le_bytes({1, 2147483648LL}, 8)),
               "element 1 is 2147483648, outside the int32 range");
}

TEST(Npy, AcceptsVersion2AndKeysInAnyOrder) {
  const Bytes file = npy_file("{\"shape\": (1, 1), 'fortran_order': False, 'descr': '<f4'}",
                              le_bytes({0x3f800000}, 4), 2);
  const NpyArray a = decode_npy(file, "t.npy");
  EXPECT_EQ(a.shape, (ir::Shape{1, 1}));
  EXPECT_EQ(a.data.f32(), (std::vector<float>{1.0f}));
}

// A version-2 header may be gigabytes long: a malformed one is quoted in the error only in part.
TEST(Npy, QuotesOnlyTheStartOfALongMalformedHeader) {
  const std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x" + std::string(1 << 20, 'y');
  const std::string message = decode_error(npy_file(header, le_bytes({0}, 4), 2));
  EXPECT_EQ(message.rfind("t.npy: malformed .npy header at character ", 0), 0u) << message;
  EXPECT_NE(message.find("(header: {'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'xyy"),
            std::string::npos)
      << message;
  EXPECT_LT(message.size(), 400u);
  EXPECT_EQ(message.substr(message.size() - 4), "...)");
}

TEST(Npy, RejectsBadMagic) {
  Bytes file =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", le_bytes({0}, 4));
  file[1] = 'X';
  EXPECT_ERROR(file, "not a .npy file (bad magic");
  EXPECT_ERROR(Bytes{}, "bad magic");
}

TEST(Npy, RejectsUnsupportedVersion) {
  Bytes file =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", le_bytes({0}, 4));
  file[6] = 4;
  EXPECT_ERROR(file, "format version 4.0 is not supported");
}

TEST(Npy, RejectsUnsupportedDtypes) {
  for (const char* descr : {"<f8", ">f4", "|i1", ">f2", "|b1"}) {
    const Bytes file =
        npy_file(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1,), }",
                 le_bytes({0}, 8));
    EXPECT_ERROR(file, std::string("unsupported dtype '") + descr + "'");
  }
}

// float16 files (the simulator's f16 dumps) read as f16 arrays, their values widened exactly.
TEST(Npy, Float16IsReadAsF16) {
  const Bytes file = npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
                              le_bytes({0x3c00, 0x0001}, 2));
  const NpyArray a = decode_npy(file, "h.npy");
  EXPECT_EQ(a.data.dtype(), isa::DType::F16);
  EXPECT_EQ(a.data.f32(), (std::vector<float>{1.0f, std::ldexp(1.0f, -24)}));
  EXPECT_EQ(encode_npy(a.data, a.shape), file);
}

// bf16, which NumPy lacks, is written as float32: each value widened, bits kept.
TEST(Npy, Bf16IsWrittenAsTheFloat32ItWidensTo) {
  const Bytes file = npy::encode(isa::DType::BF16, {2}, Bytes{0x80, 0x3f, 0x01, 0xff});
  const npy::Array a = npy::decode(file, "b.npy");
  EXPECT_EQ(a.dtype, isa::DType::F32);
  EXPECT_EQ(a.data, (Bytes{0, 0, 0x80, 0x3f, 0, 0, 0x01, 0xff}));  // 1.0 and a NaN's pattern
}

TEST(Npy, ReadsAndWritesBytes) {
  // The simulator dumps u8 tensors as NumPy's '|u1'.
  const Bytes file =
      npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", Bytes{7, 0, 255});
  const NpyArray a = decode_npy(file, "t.npy");
  EXPECT_EQ(a.data.dtype(), isa::DType::U8);
  EXPECT_EQ(a.data.u8(), (Bytes{7, 0, 255}));
  EXPECT_EQ(encode_npy(a.data, a.shape), file);  // NumPy's own padding, as npy_file writes it
}

TEST(Npy, RejectsFortranOrder) {
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                        le_bytes({0, 0, 0, 0}, 4)),
               "Fortran-ordered arrays are not supported");
}

TEST(Npy, RejectsTruncatedData) {
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                        le_bytes({0, 0, 0, 0, 0}, 4)),
               "truncated data: shape (2, 3) of '<f4' needs 24 bytes, the file has 20");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }",
               le_bytes({0}, 4)),
      "truncated data");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", le_bytes({0, 0}, 4)),
      "4 bytes of unexpected data after the 4 bytes of shape (1,)");
}

TEST(Npy, RejectsTruncatedOrMalformedHeaders) {
  Bytes file = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", {});
  file.resize(40);
  EXPECT_ERROR(file, "truncated .npy header: it declares 118 header bytes");
  EXPECT_ERROR((Bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 5}), "no header length");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'shape': (1,), }", le_bytes({0}, 4)),
               "must have the keys 'descr', 'fortran_order' and 'shape'");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", le_bytes({0}, 4)),
      "unknown key 'x'");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", le_bytes({0}, 4)),
      "expected a non-negative dimension");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,), }", le_bytes({0}, 4)),
      "expected True or False");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,) ", le_bytes({0}, 4)),
      "expected '}'");
}

}  // namespace
}  // namespace s2::io
