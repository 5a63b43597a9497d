# rtl_models/ppu: the PPU RTL (ppu.sv), its plain C++ Verilator builds (LANES 32 and 16), its
# SystemC Verilator build (LANES 32, with VCD tracing) and their harnesses. Included from
# rtl_models/CMakeLists.txt (after the PE part, whose fp32 units the lanes reuse).

set(S2_RTL_PPU_DIR ${CMAKE_CURRENT_LIST_DIR})
set(S2_RTL_PPU_SOURCES
  ${S2_RTL_PPU_DIR}/ppu_pkg.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe/pe_arith_pkg.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe/fp32_mul.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe/fp32_add.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe/fp16_widen.sv
  ${S2_RTL_PPU_DIR}/fp16_round.sv
  ${S2_RTL_PPU_DIR}/ppu_lane.sv
  ${S2_RTL_PPU_DIR}/ppu.sv
)

# Plain C++ builds, one verilated class per lane count (Vppu_l32, Vppu_l16) in one library so the
# Verilator runtime is compiled once. -Wall makes any lint warning fail the build.
add_library(s2_rtl_ppu_verilated STATIC)
foreach(_s2_lanes 32 16)
  verilate(s2_rtl_ppu_verilated
    SOURCES ${S2_RTL_PPU_SOURCES}
    TOP_MODULE ppu
    PREFIX Vppu_l${_s2_lanes}
    OPT_FAST ${S2_VERILATED_OPT_FAST}
    VERILATOR_ARGS -Wall -GLANES=${_s2_lanes})
endforeach()
s2_verilated_library(s2_rtl_ppu_verilated)

# The plain builds behind RtlPpu (ppu_rtl.h): make_rtl_ppu(lanes).
add_library(s2_rtl_ppu STATIC
  ${S2_RTL_PPU_DIR}/ppu_rtl.cpp
  ${S2_RTL_PPU_DIR}/ppu_plain.cpp)
target_include_directories(s2_rtl_ppu PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(s2_rtl_ppu PRIVATE s2_rtl_ppu_verilated)
get_target_property(_s2_vl_ppu_includes s2_rtl_ppu_verilated INCLUDE_DIRECTORIES)
target_include_directories(s2_rtl_ppu SYSTEM PRIVATE ${_s2_vl_ppu_includes})
set_target_properties(s2_rtl_ppu PROPERTIES POSITION_INDEPENDENT_CODE ON)  # as s2_rtl_pe's
s2_warnings(s2_rtl_ppu)

# SystemC build (LANES 32) with VCD tracing, for co-simulation in s2sim.
add_library(s2_rtl_ppu_sc_verilated STATIC)
verilate(s2_rtl_ppu_sc_verilated SYSTEMC TRACE
  SOURCES ${S2_RTL_PPU_SOURCES}
  TOP_MODULE ppu
  PREFIX Vppu_sc
  OPT_FAST ${S2_VERILATED_OPT_FAST}
  VERILATOR_ARGS -Wall -GLANES=32)
target_link_libraries(s2_rtl_ppu_sc_verilated PUBLIC PkgConfig::SystemC)
s2_verilated_library(s2_rtl_ppu_sc_verilated)

# RtlPpuSc (ppu_sc.h). Its sources include the SystemC model's header, so they see the same
# VM_* switches the Verilator runtime was compiled with.
add_library(s2_rtl_ppu_sc STATIC ${S2_RTL_PPU_DIR}/ppu_sc.cpp)
target_link_libraries(s2_rtl_ppu_sc PUBLIC s2_rtl_ppu PkgConfig::SystemC
  PRIVATE s2_rtl_ppu_sc_verilated)
get_target_property(_s2_vl_ppu_sc_includes s2_rtl_ppu_sc_verilated INCLUDE_DIRECTORIES)
target_include_directories(s2_rtl_ppu_sc SYSTEM PRIVATE ${_s2_vl_ppu_sc_includes})
target_compile_definitions(s2_rtl_ppu_sc PRIVATE
  VM_SC=1 VM_TRACE=1 VM_TRACE_VCD=1 VM_TRACE_FST=0 VM_COVERAGE=0)
s2_warnings(s2_rtl_ppu_sc)

add_test(NAME rtl_ppu_lint
  COMMAND ${VERILATOR_BIN} --lint-only -Wall --top-module ppu ${S2_RTL_PPU_SOURCES})
set_tests_properties(rtl_ppu_lint PROPERTIES LABELS rtl)
add_test(NAME rtl_ppu_lint_lanes16
  COMMAND ${VERILATOR_BIN} --lint-only -Wall -GLANES=16 --top-module ppu ${S2_RTL_PPU_SOURCES})
set_tests_properties(rtl_ppu_lint_lanes16 PROPERTIES LABELS rtl)
