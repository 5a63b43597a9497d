#pragma once
// The DRAM backend registry (STYLE.md "Wiring"): backends by name, built from a DramDesc.
//
// The name comes from the config's DRAM preset: its family, i.e. the preset name up to the
// first '-', lower-cased ("DDR4-3200" -> "ddr4", "LPDDR4-4266" -> "lpddr4", "HBM2" -> "hbm2").
// A fully explicit dram mapping (no preset) is a generic JEDEC device: "jedec". A new backend
// is a new file plus one line in dram_registry.cpp; asking for a name that is not there is a
// UserError that lists the names that are.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "isa/common/registry.h"
#include "simulator/dram/dram_model.h"

namespace s2::sim::dram {

using DramFactory = std::unique_ptr<DramModel> (*)(const target::DramDesc&, std::string_view name);

struct DramBackend {
  std::string summary;  // one line, for help texts
  DramFactory make;
};

// Every registered backend, by name.
using DramBackendRegistry = Registry<DramBackend>;
const DramBackendRegistry& dram_backend_registry();

// Builds backend `name`; an unknown name is the registry's UserError listing the known ones.
std::unique_ptr<DramModel> make_dram_model(std::string_view name, const target::DramDesc& desc);

}  // namespace s2::sim::dram
