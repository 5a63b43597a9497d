#pragma once
// How the target loader hands a config's dram mapping to the DRAM backend that models it.
//
// The loader reads the keys every backend shares: `preset` (loading the preset file),
// `backend` (defaulting from the preset's family, target_desc.h) and `controller`. Everything
// else in the mapping belongs to the backend, which reads it through the typed reader and
// checks it: the JEDEC devices' organisation, timings and the relations between them are read
// and checked next to the JEDEC model (simulator/dram/jedec_params.h). The loader gets the
// backends as a DramBackendSchemas, which the simulator's DRAM registry provides
// (simulator/dram/load_target.h), so s2c and s2sim load a target through the same code and
// refuse a configuration with the same message.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "isa/target/param_reader.h"
#include "isa/target/target_desc.h"

namespace s2::target {

struct DramSection {
  ParamReader config;                 // the config's dram mapping
  std::optional<ParamReader> preset;  // the preset file's top level, when `preset` names one
  // Records every key of the dram mapping and of the preset file that nobody read. A backend
  // calls it once, after reading its keys and before checking relations between them, and
  // checks no relation when a problem was recorded while it read (ParamReader::problem_count),
  // so that a misspelt override is reported as such rather than as the relation it failed to
  // repair.
  std::function<void()> finish_reading;
};

// Reads the backend's keys of `section` (the preset's values, each overridden by the config's)
// into `desc`, every field but preset, backend and controller, and checks them; a mistake is
// the problem "FILE:LINE: KEY.PATH: problem" of the file that holds the key, recorded with the
// config's other problems (param_reader.h, "Every problem at once").
using DramSectionParser = std::function<void(DramSection& section, DramDesc& desc)>;

// The DRAM backends as the loader sees them.
struct DramBackendSchemas {
  // The parser of backend `name`, or nullptr when there is none.
  std::function<const DramSectionParser*(std::string_view name)> find;
  // "unknown DRAM backend 'x'; known: a, b, ..."
  std::function<std::string(std::string_view name)> unknown_message;
};

}  // namespace s2::target
