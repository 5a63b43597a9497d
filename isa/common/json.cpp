#include "isa/common/json.h"

#include "isa/container/writer.h"

namespace s2 {

std::string json_text(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string json_line(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void write_json_file(const std::string& path, const Json& json) {
  const std::string text = json_text(json);
  isa::write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace s2
