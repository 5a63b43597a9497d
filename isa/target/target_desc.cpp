#include "isa/target/target_desc.h"

#include "isa/common/errors.h"

namespace s2::target {

std::set<isa::Activation> all_activations() {
  std::set<isa::Activation> acts;
  for (const isa::EnumValue& v : isa::enum_values(isa::EnumSet::Activation))
    if (v.value != static_cast<uint32_t>(isa::Activation::None))
      acts.insert(static_cast<isa::Activation>(v.value));
  return acts;
}

std::string TargetDesc::where(const std::string& key_path) const {
  for (std::string path = key_path; !path.empty();) {
    const auto it = locations.find(path);
    if (it != locations.end())
      return it->second.file + ":" + std::to_string(it->second.line) + ": " + key_path;
    const size_t dot = path.rfind('.');
    path = dot == std::string::npos ? std::string() : path.substr(0, dot);
  }
  return (source_file.empty() ? std::string() : source_file + ": ") + key_path;
}

void TargetDesc::fail(const std::string& key_path, const std::string& problem) const {
  throw UserError(where(key_path) + ": " + problem);
}

}  // namespace s2::target
