#include "simulator/dram/dram_registry.h"

#include <algorithm>
#include <cctype>

#include "isa/common/errors.h"
#include "simulator/dram/jedec_model.h"

namespace s2::sim::dram {

namespace {

std::unique_ptr<DramModel> make_jedec(const target::DramDesc& desc, std::string_view name) {
  return std::make_unique<JedecModel>(desc, std::string(name));
}

}  // namespace

const DramBackendRegistry& dram_backend_registry() {
  // The JEDEC families share one bank-state model; they are separate names so a config's preset
  // family always resolves, and so a family can later get a model of its own (e.g. per-bank
  // refresh) without touching the configs.
  static const DramBackendRegistry registry = [] {
    DramBackendRegistry r("DRAM backend", ListOrder::Sorted);
    r.add("ddr4", {"DDR4: JEDEC bank-state model, FR-FCFS, open page", make_jedec});
    r.add("hbm2", {"HBM2: JEDEC bank-state model, FR-FCFS, open page", make_jedec});
    r.add("jedec", {"any JEDEC device written out in full: bank-state model, FR-FCFS, open page",
                    make_jedec});
    r.add("lpddr4", {"LPDDR4: JEDEC bank-state model, FR-FCFS, open page", make_jedec});
    return r;
  }();
  return registry;
}

std::string dram_backend_name(const target::DramDesc& desc) {
  if (desc.preset.empty()) return "jedec";
  std::string family = desc.preset.substr(0, desc.preset.find('-'));
  std::transform(family.begin(), family.end(), family.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return family;
}

std::unique_ptr<DramModel> make_dram_model(std::string_view name, const target::DramDesc& desc) {
  const DramBackend* backend = dram_backend_registry().find(name);
  if (backend == nullptr)
    throw UserError(dram_backend_registry().unknown_message(name) +
                    (desc.preset.empty() ? "" : " (from dram.preset '" + desc.preset + "'") +
                    (desc.preset.empty() ? ""
                                         : ": a preset selects the backend named by its "
                                           "family, the part before '-')"));
  return backend->make(desc, name);
}

std::unique_ptr<DramModel> make_dram_model(const target::DramDesc& desc) {
  return make_dram_model(dram_backend_name(desc), desc);
}

}  // namespace s2::sim::dram
