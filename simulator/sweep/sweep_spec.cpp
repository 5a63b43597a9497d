#include "simulator/sweep/sweep_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include "isa/common/errors.h"
#include "isa/target/param_reader.h"
#include "isa/target/target_values.h"
#include "simulator/dram/load_target.h"
#include "simulator/sweep/points.h"

namespace s2::sim::sweep {
namespace fs = std::filesystem;
using target::ParamReader;
using target::ParamValue;

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names{
      "cycles",     "ms",        "pe_utilization", "ppu_utilization",
      "dram_bytes", "dram_gbps", "peak_memory",    "roofline_ratio",
      "energy_mj",  "power_w",   "area_mm2"};
  return names;
}

namespace {

constexpr const char* kPointFile = "(point)";

// The loader's message about a configuration built in memory, without the file and line of
// text nobody wrote: "(point):12: sram.input.size: ..." -> "sram.input.size: ...".
std::string without_point_places(std::string message) {
  const std::string prefix = std::string(kPointFile) + ":";
  for (size_t at = message.find(prefix); at != std::string::npos; at = message.find(prefix, at)) {
    size_t end = at + prefix.size();
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])) != 0)
      ++end;
    if (message.compare(end, 2, ": ") == 0) end += 2;
    message.erase(at, end - at);
  }
  return message;
}

// `text` quoted for a message about its 1-based `column`: whole when short, otherwise the
// part around the column (a constraint of thousands of characters is not repeated in full).
std::string quoted_around(const std::string& text, size_t column) {
  constexpr size_t kWhole = 120, kSide = 40;
  if (text.size() <= kWhole) return "\"" + text + "\"";
  const size_t at = std::min(column == 0 ? 0 : column - 1, text.size());
  const size_t from = at > kSide ? at - kSide : 0;
  const size_t to = std::min(text.size(), at + kSide);
  return std::string(from > 0 ? "\"..." : "\"") + text.substr(from, to - from) +
         (to < text.size() ? "...\"" : "\"") + " (characters " + std::to_string(from + 1) + "-" +
         std::to_string(to) + " of " + std::to_string(text.size()) + ")";
}

// A number written with an optional binary unit (a range's ends).
double range_number(const ParamValue& v) {
  const std::string text = v.text("a number");
  if (std::optional<double> n = target::parse_number_text(text)) return *n;
  std::string problem;
  if (std::optional<uint64_t> bytes = target::parse_byte_size_text(text, problem))
    return static_cast<double>(*bytes);
  v.fail("expected a number or a byte size such as 64KiB, got \"" + text + "\"");
}

std::string number_text(double value) {
  if (std::fabs(value) < 9e15 && value == std::floor(value))
    return fmt::format("{}", static_cast<int64_t>(value));
  return fmt::format("{:.10g}", value);
}

ParamValue need(ParamReader& r, const std::string& key) {
  std::optional<ParamValue> v = r.value(key);
  if (!v) r.fail(key, "missing required key");
  return *v;
}

// `linear: {from, to, step}` or `geometric: {from, to, factor}`: the values as YAML text, each
// with the range's line.
std::vector<std::string> range_values(ParamReader range, bool geometric) {
  const ParamValue from_v = need(range, "from");
  const ParamValue to_v = need(range, "to");
  const char* step_key = geometric ? "factor" : "step";
  const ParamValue step_v = need(range, step_key);
  range.finish();
  const double from = range_number(from_v);
  const double to = range_number(to_v);
  const double step = range_number(step_v);
  if (to < from) to_v.fail("must not be below from (" + number_text(from) + ")");
  if (geometric ? !(step > 1) : !(step > 0))
    step_v.fail(geometric ? "must be greater than 1" : "must be greater than 0");
  if (geometric && !(from > 0)) from_v.fail("must be greater than 0 in a geometric range");
  std::vector<std::string> values;
  const double slack = 1e-9 * std::max(std::fabs(to), 1.0);
  for (uint64_t i = 0;; ++i) {
    const double v = geometric ? from * std::pow(step, static_cast<double>(i))
                               : from + step * static_cast<double>(i);
    if (v > to + slack) break;
    if (values.size() >= kMaxPoints)
      step_v.fail("the range has more than " + std::to_string(kMaxPoints) + " values");
    values.push_back(number_text(
        std::round(v) == v || std::fabs(v - std::round(v)) < slack ? std::round(v) : v));
  }
  return values;
}

Axis read_axis(ParamReader& spec_reader, const ParamValue& item) {
  ParamReader r = spec_reader.mapping(item);
  Axis axis;
  axis.path = item.path();
  axis.line = item.line();
  const ParamValue key = need(r, "key");
  if (key.is_list()) {
    for (const ParamValue& k : key.items())
      axis.keys.push_back(k.text("a key path such as sram.input.size"));
    if (axis.keys.empty()) key.fail("names no key");
  } else {
    axis.keys.push_back(key.text("a key path such as sram.input.size, or a list of them"));
  }
  for (size_t i = 0; i < axis.keys.size(); ++i) {
    const std::string& k = axis.keys[i];
    if (k.empty() || k.front() == '.' || k.back() == '.' || k.find("..") != std::string::npos)
      key.fail("\"" + k + "\" is not a key path such as sram.input.size");
    if (std::find(axis.keys.begin(), axis.keys.begin() + static_cast<std::ptrdiff_t>(i), k) !=
        axis.keys.begin() + static_cast<std::ptrdiff_t>(i))
      key.fail(k + " is listed twice");
  }
  std::optional<ParamValue> values = r.value("values");
  std::optional<ParamReader> linear = r.optional_child("linear");
  std::optional<ParamReader> geometric = r.optional_child("geometric");
  const int given = (values ? 1 : 0) + (linear ? 1 : 0) + (geometric ? 1 : 0);
  if (given != 1)
    r.fail("values", given == 0 ? "missing: give values, linear or geometric"
                                : "give one of values, linear and geometric");
  if (values) {
    for (const ParamValue& v : values->items()) {
      std::vector<std::string> texts;
      if (v.is_list()) {
        for (const ParamValue& part : v.items())
          texts.push_back(part.text());
        if (texts.size() != axis.keys.size())
          v.fail(fmt::format("gives {} values for the {} keys of the axis", texts.size(),
                             axis.keys.size()));
      } else {
        texts.assign(axis.keys.size(), v.text());
      }
      axis.values.push_back(std::move(texts));
      axis.value_lines.push_back(v.line());
    }
  } else {
    ParamReader& range = linear ? *linear : *geometric;
    for (std::string& v : range_values(range, !linear)) {
      axis.values.push_back(std::vector<std::string>(axis.keys.size(), v));
      axis.value_lines.push_back(range.line());
    }
  }
  if (axis.values.empty()) r.fail("values", "the axis has no values");
  return axis;
}

// A value an axis lists twice (a grid or random sweep), or a zipped point listed twice: the
// same configuration simulated again under another point number, which the results and the
// Pareto front would then list twice. Ranges cannot repeat.
void check_repeats(const SweepSpec& spec, const std::string& path) {
  if (spec.axes.empty()) return;
  const auto point_of = [&](size_t v) {
    std::vector<std::vector<std::string>> point;
    for (const Axis& axis : spec.axes)
      point.push_back(axis.values[v]);
    return point;
  };
  if (spec.combine == Combine::Zip) {
    std::map<std::vector<std::vector<std::string>>, size_t> first;
    for (size_t v = 0; v < spec.axes.front().values.size(); ++v)
      if (const auto [at, fresh] = first.emplace(point_of(v), v); !fresh)
        target::throw_at(path, spec.axes.front().value_lines[v],
                         fmt::format("{}.values[{}]", spec.axes.front().path, v),
                         fmt::format("with the other zipped axes, repeats point {} (values[{}] of "
                                     "each); it would be simulated twice",
                                     at->second, at->second));
    return;
  }
  for (const Axis& axis : spec.axes) {
    std::map<std::vector<std::string>, size_t> first;
    for (size_t v = 0; v < axis.values.size(); ++v)
      if (const auto [at, fresh] = first.emplace(axis.values[v], v); !fresh)
        target::throw_at(path, axis.value_lines[v], fmt::format("{}.values[{}]", axis.path, v),
                         fmt::format("repeats values[{}]; every point with it would be "
                                     "simulated twice",
                                     at->second));
  }
}

const std::vector<std::string> kSetBySweep{
    "--config", "-o", "--output", "--force", "--memory-report", "--dump-after", "--dump-file"};
const std::vector<std::string> kFileFlags{"--input", "--labels", "--attention-mask"};

Workload read_workload(ParamReader& spec_reader, const ParamValue& item, const fs::path& dir) {
  ParamReader r = spec_reader.mapping(item);
  Workload w;
  w.path = item.path();
  w.line = item.line();
  const std::optional<std::string> model = r.optional<std::string>("model");
  const std::optional<std::string> exe = r.optional<std::string>("executable");
  if (model.has_value() == exe.has_value())
    r.fail("model", model ? "give model or executable, not both"
                          : "missing: give model (a zoo name or an .onnx file) or executable");
  const auto resolve = [&](const std::string& key, const std::string& file) {
    const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : dir / file;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) r.fail(key, "no file " + p.string());
    return fs::weakly_canonical(p, ec).string();
  };
  if (exe) {
    w.kind = Workload::Kind::Executable;
    w.model = resolve("executable", *exe);
    w.name = fs::path(*exe).stem().string();
  } else {
    const bool onnx = model->size() > 5 && model->compare(model->size() - 5, 5, ".onnx") == 0;
    w.model = onnx ? resolve("model", *model) : *model;
    w.name = onnx ? fs::path(*model).stem().string() : *model;
  }
  if (std::optional<ParamValue> options = r.value("options")) {
    if (exe) options->fail("an executable is compiled already; options apply to a model");
    if (options->is_list()) {
      for (const ParamValue& o : options->items())
        w.options.push_back(o.text());
    } else {
      std::istringstream words(options->text("s2c compile flags, as text or a list"));
      for (std::string word; words >> word;)
        w.options.push_back(word);
    }
    for (size_t i = 0; i < w.options.size(); ++i) {
      const std::string flag = w.options[i].substr(0, w.options[i].find('='));
      if (std::find(kSetBySweep.begin(), kSetBySweep.end(), flag) != kSetBySweep.end())
        options->fail(flag + " is set by the sweep (each compile's configuration and output)");
      if (flag == "--fuse-attention") w.fuse_attention = true;
      if (std::find(kFileFlags.begin(), kFileFlags.end(), w.options[i]) != kFileFlags.end() &&
          i + 1 < w.options.size() && !fs::path(w.options[i + 1]).is_absolute())
        w.options[i + 1] = (dir / w.options[i + 1]).lexically_normal().string();
    }
  }
  if (std::optional<std::string> name = r.optional<std::string>("name")) {
    if (name->empty() || name->find_first_of(",\"\n/") != std::string::npos)
      r.fail("name", "must be a non-empty name without commas, quotes, slashes or newlines");
    w.name = *name;
  }
  return w;
}

// Each axis value the sweep's points use, applied alone to the base configuration: a key the
// configuration does not have, or a value it refuses, is the spec's mistake, reported at the
// value. Each distinct value is loaded once. The points use every value of a grid or a zip,
// and only the drawn points' values when random sampling draws fewer points than the grid has:
// a load costs a millisecond or two, so checking every value made a 4-line spec (a linear
// range of 16320 values, one point drawn) take 27 s before its one point, and a range of a
// million values half an hour, out of proportion to both the spec and its sweep.
void check_axes(const SweepSpec& spec, const YAML::Node& base, const std::string& preset_dir) {
  std::vector<std::vector<bool>> used(spec.axes.size());
  const bool sampled = spec.combine == Combine::Random && spec.samples < combination_count(spec);
  for (size_t a = 0; a < spec.axes.size(); ++a)
    used[a].assign(spec.axes[a].values.size(), !sampled);
  if (sampled)
    for (const Point& p : enumerate_points(spec))
      for (size_t a = 0; a < spec.axes.size(); ++a)
        used[a][p.choice[a]] = true;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const Axis& axis = spec.axes[a];
    std::set<std::vector<std::string>> checked;
    for (size_t v = 0; v < axis.values.size(); ++v) {
      if (!used[a][v] || !checked.insert(axis.values[v]).second) continue;
      std::vector<std::pair<std::string, std::string>> settings;
      for (size_t k = 0; k < axis.keys.size(); ++k)
        settings.emplace_back(axis.keys[k], axis.values[v][k]);
      try {
        target::parse_target(configured_text(base, settings, ""), kPointFile, preset_dir);
      } catch (const UserError& e) {
        std::string what;
        for (const auto& [key, value] : settings)
          what += (what.empty() ? "" : ", ") + key + " = " + value;
        target::throw_at(spec.file, axis.value_lines[v],
                         axis.path + ".values[" + std::to_string(v) + "]",
                         "the base configuration " + spec.base_config + " with " + what +
                             " is refused: " + without_point_places(e.what()));
      }
    }
  }
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path, const std::string& default_base) {
  SweepSpec spec;
  spec.file = path;
  spec.text = target::read_text_file(path);
  ParamReader r = ParamReader::parse(spec.text, path);
  const fs::path dir = fs::absolute(path).parent_path();

  std::error_code ec;
  if (std::optional<std::string> base = r.optional<std::string>("base")) {
    const fs::path p = fs::path(*base).is_absolute() ? fs::path(*base) : dir / *base;
    if (!fs::is_regular_file(p, ec)) r.fail("base", "no file " + p.string());
    spec.base_config = fs::weakly_canonical(p, ec).string();
  } else {
    spec.base_config = fs::weakly_canonical(default_base, ec).string();
  }

  if (std::optional<ParamValue> axes = r.value("axes"))
    for (const ParamValue& item : axes->items())
      spec.axes.push_back(read_axis(r, item));
  for (size_t a = 0; a < spec.axes.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      for (const std::string& key : spec.axes[a].keys)
        if (std::find(spec.axes[b].keys.begin(), spec.axes[b].keys.end(), key) !=
            spec.axes[b].keys.end())
          target::throw_at(path, spec.axes[a].line, spec.axes[a].path + ".key",
                           key + " is already varied by " + spec.axes[b].path);

  static constexpr std::array<std::string_view, 3> kCombineNames{"grid", "zip", "random"};
  spec.combine = r.get_enum("combine", Combine::Grid, kCombineNames);
  if (spec.combine == Combine::Random) {
    spec.samples = r.required<uint64_t>("samples", 1, kMaxPoints);
    spec.seed = r.get<uint64_t>("seed", 1);
  } else {
    for (const char* key : {"samples", "seed"})
      if (r.has(key)) r.fail(key, "applies to combine: random");
  }
  if (spec.combine == Combine::Zip)
    for (const Axis& axis : spec.axes)
      if (axis.values.size() != spec.axes.front().values.size())
        target::throw_at(path, axis.line, axis.path,
                         fmt::format("has {} values, but {} has {}: zipped axes must be equally "
                                     "long",
                                     axis.values.size(), spec.axes.front().path,
                                     spec.axes.front().values.size()));
  check_repeats(spec, path);
  combination_count(spec);

  // The base configuration, and each axis value on it alone.
  const YAML::Node base = YAML::Load(target::read_text_file(spec.base_config));
  const target::TargetDesc base_target = target::load_target(spec.base_config);
  const std::string preset_dir = (fs::path(spec.base_config).parent_path() / "dram").string();
  check_axes(spec, base, preset_dir);

  const std::vector<target::NamedTargetValue> base_values = point_values(base_target);
  std::vector<std::string> value_names;
  for (const auto& v : base_values)
    value_names.push_back(v.path);
  if (std::optional<ParamValue> constraints = r.value("constraints"))
    for (const ParamValue& item : constraints->items()) {
      const std::string text = item.text("an expression such as sram.size <= 1MiB");
      Constraint c{Expression(), item.path(), item.line()};
      try {
        c.expression = Expression::parse(text);
        truthy(c.expression.evaluate([&](const std::string& name) -> std::optional<ExprValue> {
          for (const auto& v : base_values)
            if (v.path == name)
              return std::visit([](const auto& x) { return ExprValue(x); }, v.value);
          return std::nullopt;
        }),
               1);
      } catch (const ExpressionError& e) {
        std::string problem = e.problem + " at column " + std::to_string(e.column);
        for (const std::string& name : c.expression.names())
          if (std::find(value_names.begin(), value_names.end(), name) == value_names.end()) {
            const auto meant = target::closest_name(name, value_names);
            problem += meant ? "; did you mean \"" + *meant + "\"?"
                             : "; names are configuration key paths (docs/sweep.md lists them)";
            break;
          }
        item.fail(problem + " in " + quoted_around(text, e.column));
      }
      spec.constraints.push_back(std::move(c));
    }

  const ParamValue workloads = need(r, "workloads");
  for (const ParamValue& item : workloads.items())
    spec.workloads.push_back(read_workload(r, item, dir));
  if (spec.workloads.empty()) workloads.fail("lists no workload");
  std::unordered_set<std::string> names;  // a hash, not a scan per workload: 30000 fit 1 MiB
  for (const Workload& w : spec.workloads)
    if (!names.insert(w.name).second)
      target::throw_at(path, w.line, w.path,
                       "a second workload named \"" + w.name + "\"; give each a distinct name");

  if (std::optional<ParamValue> objectives = r.value("objectives")) {
    spec.objectives_line = objectives->line();
    for (const ParamValue& item : objectives->items()) {
      const std::string name = item.text("a metric or configuration key path");
      const bool metric =
          std::find(metric_names().begin(), metric_names().end(), name) != metric_names().end();
      const auto value = std::find_if(base_values.begin(), base_values.end(),
                                      [&](const auto& v) { return v.path == name; });
      if (!metric &&
          (value == base_values.end() || !std::holds_alternative<double>(value->value))) {
        std::vector<std::string> known = metric_names();
        const auto meant = target::closest_name(name, known);
        item.fail("\"" + name + "\" is neither a metric (" +
                  fmt::format("{}", fmt::join(known, ", ")) +
                  ") nor a numeric configuration value" +
                  (meant ? "; did you mean \"" + *meant + "\"?" : std::string()));
      }
      spec.objectives.push_back(name);
    }
  }
  r.finish();
  return spec;
}

}  // namespace s2::sim::sweep
