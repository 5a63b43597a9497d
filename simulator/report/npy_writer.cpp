#include "simulator/report/npy_writer.h"

#include "isa/common/errors.h"
#include "isa/container/writer.h"

namespace s2::sim::report {

void write_npy(const std::string& path, isa::DType dtype, const std::vector<uint32_t>& shape,
               const std::vector<uint8_t>& bytes) {
  const char* descr = dtype == isa::DType::F32 ? "<f4" : dtype == isa::DType::I32 ? "<i4" : "|u1";
  std::string dims;
  for (uint32_t d : shape)
    dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();  // (n,) keeps its comma, (a,b) has none
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + header length (2) + header + '\n', padded to 64 bytes.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> file = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  file.push_back(static_cast<uint8_t>(header.size() & 0xff));
  file.push_back(static_cast<uint8_t>(header.size() >> 8));
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), bytes.begin(), bytes.end());
  isa::write_file(path, file);
}

}  // namespace s2::sim::report
