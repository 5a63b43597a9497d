#pragma once
// The DRAM backend registry (STYLE.md "Wiring"): backends by name, each with the parser of its
// part of the config's dram mapping and the factory of its model.
//
// The name is `dram.backend`, by default the config's DRAM preset's family, i.e. the preset
// name up to the first '-', lower-cased ("DDR4-3200" -> "ddr4", "LPDDR4-4266" -> "lpddr4",
// "HBM2" -> "hbm2"); a fully explicit dram mapping (no preset) is a generic JEDEC device:
// "jedec". A new backend is a new file (its model and its section parser) plus one line in
// dram_registry.cpp; the target loader then accepts its name and hands it its section
// (load_target.h). Asking for a name that is not there is a UserError that lists the names
// that are.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "isa/common/registry.h"
#include "isa/target/dram_section.h"
#include "simulator/dram/dram_model.h"

namespace s2::sim::dram {

using DramFactory = std::unique_ptr<DramModel> (*)(const target::DramDesc&, std::string_view name);

struct DramBackend {
  std::string summary;              // one line, for help texts
  target::DramSectionParser parse;  // reads and checks its keys of the dram mapping
  DramFactory make;
};

// Every registered backend, by name.
using DramBackendRegistry = Registry<DramBackend>;
const DramBackendRegistry& dram_backend_registry();

// The registry as the target loader sees it.
target::DramBackendSchemas dram_backend_schemas();

// Builds backend `name`; an unknown name is the registry's UserError listing the known ones.
std::unique_ptr<DramModel> make_dram_model(std::string_view name, const target::DramDesc& desc);

}  // namespace s2::sim::dram
