# rtl_models/pe_array/: the weight-stationary systolic PE array (pe_array.sv), its Verilator
# builds and harnesses. Included from rtl_models/CMakeLists.txt (CMAKE_CURRENT_SOURCE_DIR is
# rtl_models/); needs S2_RTL_PE_SOURCES (the PE arithmetic) defined there first.

set(S2_RTL_PE_ARRAY_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/pe_array/pe_array.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe_array/pe_array_pe.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe_array/pe_array_acc.sv
  ${S2_RTL_PE_SOURCES}
)

# Plain C++ builds, one model per size (prefix Vpe_array_<rows>x<cols>): 32x32 (base config),
# 16x16 (small config), 8x4 (rectangular). -Wall: any lint warning fails the build.
add_library(s2_rtl_pe_array_verilated STATIC)
foreach(_s2_size 32x32 16x16 8x4)
  string(REPLACE "x" ";" _s2_dims ${_s2_size})
  list(GET _s2_dims 0 _s2_rows)
  list(GET _s2_dims 1 _s2_cols)
  verilate(s2_rtl_pe_array_verilated
    SOURCES ${S2_RTL_PE_ARRAY_SOURCES}
    TOP_MODULE pe_array
    PREFIX Vpe_array_${_s2_size}
    VERILATOR_ARGS -Wall -GROWS=${_s2_rows} -GCOLS=${_s2_cols})
endforeach()
s2_verilated_library(s2_rtl_pe_array_verilated)

# The Verilator-free interface (pe_array_rtl.h) and the plain C++ harness.
add_library(s2_rtl_pe_array STATIC
  pe_array/pe_array_rtl.cpp
  pe_array/pe_array_memories.cpp
  pe_array/pe_array_plain.cpp
)
target_include_directories(s2_rtl_pe_array PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(s2_rtl_pe_array PRIVATE s2_rtl_pe_array_verilated)
get_target_property(_s2_vl_array_includes s2_rtl_pe_array_verilated INCLUDE_DIRECTORIES)
target_include_directories(s2_rtl_pe_array SYSTEM PRIVATE ${_s2_vl_array_includes})
set_target_properties(s2_rtl_pe_array PROPERTIES POSITION_INDEPENDENT_CODE ON)
s2_warnings(s2_rtl_pe_array)

# SystemC build of the 32x32 and 16x16 arrays with VCD tracing, for co-simulation in s2sim.
add_library(s2_rtl_pe_array_sc_verilated STATIC)
foreach(_s2_size 32x32 16x16)
  string(REPLACE "x" ";" _s2_dims ${_s2_size})
  list(GET _s2_dims 0 _s2_rows)
  list(GET _s2_dims 1 _s2_cols)
  verilate(s2_rtl_pe_array_sc_verilated SYSTEMC TRACE
    SOURCES ${S2_RTL_PE_ARRAY_SOURCES}
    TOP_MODULE pe_array
    PREFIX Vpe_array_sc_${_s2_size}
    VERILATOR_ARGS -Wall -GROWS=${_s2_rows} -GCOLS=${_s2_cols})
endforeach()
target_link_libraries(s2_rtl_pe_array_sc_verilated PUBLIC PkgConfig::SystemC)
s2_verilated_library(s2_rtl_pe_array_sc_verilated)

add_library(s2_rtl_pe_array_sc STATIC pe_array/pe_array_sc.cpp)
target_link_libraries(s2_rtl_pe_array_sc
  PUBLIC s2_rtl_pe_array PkgConfig::SystemC PRIVATE s2_rtl_pe_array_sc_verilated)
get_target_property(_s2_vl_sc_includes s2_rtl_pe_array_sc_verilated INCLUDE_DIRECTORIES)
target_include_directories(s2_rtl_pe_array_sc SYSTEM PRIVATE ${_s2_vl_sc_includes})
target_compile_definitions(s2_rtl_pe_array_sc PRIVATE VM_SC=1 VM_TRACE=1)
set_target_properties(s2_rtl_pe_array_sc PROPERTIES POSITION_INDEPENDENT_CODE ON)
s2_warnings(s2_rtl_pe_array_sc)

add_test(NAME rtl_pe_array_lint
  COMMAND ${VERILATOR_BIN} --lint-only -Wall --top-module pe_array ${S2_RTL_PE_ARRAY_SOURCES})
set_tests_properties(rtl_pe_array_lint PROPERTIES LABELS rtl)
