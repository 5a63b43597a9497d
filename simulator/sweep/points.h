#pragma once
// The points of a sweep: which value of each axis a point takes, and the configuration it
// makes from the base (docs/sweep.md, "Points").

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "isa/target/target_values.h"
#include "simulator/sweep/sweep_spec.h"

namespace s2::sim::sweep {

struct Point {
  uint64_t index = 0;          // 0-based, in the order enumerate_points gives
  std::vector<size_t> choice;  // per axis: the index of its value
};

// Grid: every combination, the last axis varying fastest. Zip: the i-th value of every axis
// (all axes have one length). Random: `samples` distinct grid points drawn with `seed`
// (a fixed generator, so every machine draws the same), in grid order; all of them when the
// grid has no more. Constraints are not applied here.
std::vector<Point> enumerate_points(const SweepSpec& spec);

// The number of grid (or zip) points before sampling; throws UserError at the spec's axes
// when it passes kMaxPoints.
uint64_t combination_count(const SweepSpec& spec);

// What constraints and objectives may name of a point's configuration: target_values(), and
// with a technology the area model's figures (simulator/energy/energy_model.h): area_mm2 and
// area.pe_array_mm2, area.sram_mm2, area.ppu_mm2, area.dma_mm2.
std::vector<target::NamedTargetValue> point_values(const target::TargetDesc& target);

// key path -> the YAML text a point gives it, in axis order.
std::vector<std::pair<std::string, std::string>> point_settings(const SweepSpec& spec,
                                                                const Point& point);

// The base document (a mapping) with each setting written at its key path, as YAML text
// opened by `comment` lines. Throws UserError when a path runs through a value that is not a
// mapping in the base.
std::string configured_text(const YAML::Node& base,
                            const std::vector<std::pair<std::string, std::string>>& settings,
                            const std::string& comment);

}  // namespace s2::sim::sweep
