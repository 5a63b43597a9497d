#include "simulator/dram/dram_registry.h"

#include "isa/common/errors.h"
#include "simulator/dram/jedec_model.h"
#include "simulator/dram/jedec_params.h"

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
    r.add("ddr4",
          {"DDR4: JEDEC bank-state model behind dram.controller", read_jedec_section, make_jedec});
    r.add("hbm2",
          {"HBM2: JEDEC bank-state model behind dram.controller", read_jedec_section, make_jedec});
    r.add("jedec", {"any JEDEC device written out in full: bank-state model behind dram.controller",
                    read_jedec_section, make_jedec});
    r.add("lpddr4", {"LPDDR4: JEDEC bank-state model behind dram.controller", read_jedec_section,
                     make_jedec});
    return r;
  }();
  return registry;
}

target::DramBackendSchemas dram_backend_schemas() {
  const DramBackendRegistry& registry = dram_backend_registry();
  return {[&registry](std::string_view name) -> const target::DramSectionParser* {
            const DramBackend* backend = registry.find(name);
            return backend == nullptr ? nullptr : &backend->parse;
          },
          [&registry](std::string_view name) { return registry.unknown_message(name); }};
}

std::unique_ptr<DramModel> make_dram_model(std::string_view name, const target::DramDesc& desc) {
  return dram_backend_registry().get(name).make(desc, name);
}

std::unique_ptr<DramModel> make_dram_model(const target::DramDesc& desc) {
  return make_dram_model(desc.backend, desc);
}

}  // namespace s2::sim::dram
