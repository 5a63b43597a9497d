// Every by-name registry of the simulator answers an unknown name the same way, listing the
// known ones (the CLI's choices come from the same names()).
#include <gtest/gtest.h>

#include "simulator/dram/dram_registry.h"
#include "simulator/functional/execute.h"
#include "simulator/timing/pe_array_model.h"
#include "simulator/top/rtl_selection.h"
#include "tests/common/registry_expect.h"

namespace s2 {
namespace {

TEST(Registries, UnknownNamesListTheKnownOnes) {
  testing::expect_unknown_name_lists_known(sim::timing::pe_array_model_registry(),
                                           "PE-array dataflow");
  testing::expect_unknown_name_lists_known(sim::functional::kernel_registry(), "functional kernel");
  testing::expect_unknown_name_lists_known(sim::top::rtl_unit_registry(), "RTL unit");
  testing::expect_unknown_name_lists_known(sim::dram::dram_backend_registry(), "DRAM backend");
}

TEST(Registries, RtlUnitListParsesByTheRegistry) {
  const sim::top::RtlSelection both = sim::top::parse_rtl_units("ppu,pe_array");
  EXPECT_TRUE(both.pe_array && both.ppu);
  EXPECT_FALSE(sim::top::parse_rtl_units("").any());
  try {
    sim::top::parse_rtl_units("pe_array,dma");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--rtl: unknown RTL unit 'dma'; known: pe_array, ppu (e.g. --rtl pe_array,ppu)");
  }
}

}  // namespace
}  // namespace s2
