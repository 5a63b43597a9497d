#include "simulator/sweep/points.h"

#include <algorithm>
#include <random>
#include <set>
#include <sstream>

#include "isa/common/errors.h"
#include "isa/target/param_reader.h"
#include "simulator/energy/energy_model.h"

namespace s2::sim::sweep {

uint64_t combination_count(const SweepSpec& spec) {
  if (spec.axes.empty()) return 1;
  if (spec.combine == Combine::Zip) return spec.axes.front().values.size();
  uint64_t count = 1;
  for (const Axis& axis : spec.axes) {
    count *= axis.values.size();
    if (count > kMaxPoints)
      target::throw_at(spec.file, spec.axes.front().line, "axes",
                       "the grid has more than " + std::to_string(kMaxPoints) +
                           " points; sample it (combine: random, samples: N) or split the sweep");
  }
  return count;
}

namespace {

Point grid_point(const SweepSpec& spec, uint64_t index) {
  Point p;
  p.choice.resize(spec.axes.size());
  uint64_t rest = index;
  for (size_t a = spec.axes.size(); a-- > 0;) {
    const uint64_t n = spec.axes[a].values.size();
    p.choice[a] = static_cast<size_t>(rest % n);
    rest /= n;
  }
  return p;
}

// A uniform draw in [0, n) from the 64-bit generator by rejection: the same on every machine
// (std::uniform_int_distribution is not).
uint64_t draw(std::mt19937_64& rng, uint64_t n) {
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  for (;;) {
    const uint64_t x = rng();
    if (x < limit) return x % n;
  }
}

}  // namespace

std::vector<Point> enumerate_points(const SweepSpec& spec) {
  const uint64_t count = combination_count(spec);
  std::vector<uint64_t> chosen;
  if (spec.combine == Combine::Random && spec.samples < count) {
    // Floyd's algorithm: `samples` distinct indices in as many draws.
    std::mt19937_64 rng(spec.seed);
    std::set<uint64_t> picked;
    for (uint64_t j = count - spec.samples; j < count; ++j) {
      const uint64_t t = draw(rng, j + 1);
      picked.insert(picked.count(t) != 0 ? j : t);
    }
    chosen.assign(picked.begin(), picked.end());
  } else {
    chosen.resize(static_cast<size_t>(count));
    for (uint64_t i = 0; i < count; ++i)
      chosen[static_cast<size_t>(i)] = i;
  }
  std::vector<Point> points;
  points.reserve(chosen.size());
  for (uint64_t c : chosen) {
    Point p;
    if (spec.combine == Combine::Zip)
      p.choice.assign(spec.axes.size(), static_cast<size_t>(c));
    else
      p = grid_point(spec, c);
    p.index = points.size();
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<target::NamedTargetValue> point_values(const target::TargetDesc& target) {
  std::vector<target::NamedTargetValue> values = target::target_values(target);
  if (target.tech) {
    const energy::AreaBreakdown a = energy::area(target);
    values.push_back({"area_mm2", a.total_mm2()});
    values.push_back({"area.pe_array_mm2", a.pe_array_mm2});
    values.push_back({"area.sram_mm2", a.sram_total_mm2()});
    values.push_back({"area.ppu_mm2", a.ppu_mm2});
    values.push_back({"area.dma_mm2", a.dma_mm2});
  }
  return values;
}

std::vector<std::pair<std::string, std::string>> point_settings(const SweepSpec& spec,
                                                                const Point& point) {
  std::vector<std::pair<std::string, std::string>> settings;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const Axis& axis = spec.axes[a];
    for (size_t k = 0; k < axis.keys.size(); ++k)
      settings.emplace_back(axis.keys[k], axis.values[point.choice[a]][k]);
  }
  return settings;
}

std::string configured_text(const YAML::Node& base,
                            const std::vector<std::pair<std::string, std::string>>& settings,
                            const std::string& comment) {
  YAML::Node root = YAML::Clone(base);
  for (const auto& [path, text] : settings) {
    YAML::Node node = root;
    size_t start = 0;
    std::string walked;
    for (;;) {
      const size_t dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
      walked += (walked.empty() ? "" : ".") + key;
      if (dot == std::string::npos) {
        node[key] = text;
        break;
      }
      YAML::Node next = node[key];
      if (next.IsDefined() && !next.IsNull() && !next.IsMap())
        throw UserError(walked + " is a value in the base configuration, not a mapping with " +
                        path.substr(dot + 1));
      if (!next.IsDefined() || next.IsNull()) {
        node[key] = YAML::Node(YAML::NodeType::Map);
        next.reset(node[key]);  // reset rebinds; operator= would write through `next`
      }
      node.reset(next);
      start = dot + 1;
    }
  }
  YAML::Emitter out;
  out << root;
  std::ostringstream text;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);)
    text << "# " << line << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

}  // namespace s2::sim::sweep
