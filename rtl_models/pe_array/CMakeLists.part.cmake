# rtl_models/pe_array/: the weight-stationary systolic PE array (pe_array.sv), its Verilator
# builds and harnesses. Included from rtl_models/CMakeLists.txt (CMAKE_CURRENT_SOURCE_DIR is
# rtl_models/); needs S2_RTL_PE_SOURCES (the PE arithmetic) defined there first.

set(S2_RTL_PE_ARRAY_SOURCES  # the PE's first: its package (pe_arith_pkg.sv) before its users
  ${S2_RTL_PE_SOURCES}
  ${CMAKE_CURRENT_SOURCE_DIR}/pe_array/pe_array.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe_array/pe_array_pe.sv
  ${CMAKE_CURRENT_SOURCE_DIR}/pe_array/pe_array_acc.sv
)

# The builds: <rows>x<cols>x<MACs per PE per cycle in the 16-bit modes>. 32x32x4 is the base
# config's array (pe_array.datatypes bf16 4, f16 4), 16x16x2 the small config's, 8x4x2 a
# rectangular one for the tests. pe_array_plain.cpp and pe_array_sc.cpp list the same.
set(S2_RTL_PE_ARRAY_BUILDS 32x32x4 16x16x2 8x4x2)

# Plain C++ builds, one model per size (prefix Vpe_array_<rows>x<cols>). -Wall: any lint
# warning fails the build.
add_library(s2_rtl_pe_array_verilated STATIC)
foreach(_s2_build ${S2_RTL_PE_ARRAY_BUILDS})
  string(REPLACE "x" ";" _s2_dims ${_s2_build})
  list(GET _s2_dims 0 _s2_rows)
  list(GET _s2_dims 1 _s2_cols)
  list(GET _s2_dims 2 _s2_macs)
  verilate(s2_rtl_pe_array_verilated
    SOURCES ${S2_RTL_PE_ARRAY_SOURCES}
    TOP_MODULE pe_array
    PREFIX Vpe_array_${_s2_rows}x${_s2_cols}
    OPT_FAST ${S2_VERILATED_OPT_FAST}
    VERILATOR_ARGS -Wall -GROWS=${_s2_rows} -GCOLS=${_s2_cols} -GMACS=${_s2_macs})
endforeach()
s2_verilated_library(s2_rtl_pe_array_verilated)

# The Verilator-free interface (pe_array_rtl.h) and the plain C++ harness.
add_library(s2_rtl_pe_array STATIC
  pe_array/pe_array_rtl.cpp
  pe_array/pe_array_memories.cpp
  pe_array/pe_array_plain.cpp
)
target_include_directories(s2_rtl_pe_array PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(s2_rtl_pe_array PUBLIC s2_isa PRIVATE s2_rtl_pe_array_verilated)
get_target_property(_s2_vl_array_includes s2_rtl_pe_array_verilated INCLUDE_DIRECTORIES)
target_include_directories(s2_rtl_pe_array SYSTEM PRIVATE ${_s2_vl_array_includes})
set_target_properties(s2_rtl_pe_array PROPERTIES POSITION_INDEPENDENT_CODE ON)
s2_warnings(s2_rtl_pe_array)

# SystemC build of the 32x32 and 16x16 arrays with VCD tracing, for co-simulation in s2sim.
add_library(s2_rtl_pe_array_sc_verilated STATIC)
foreach(_s2_build 32x32x4 16x16x2)
  string(REPLACE "x" ";" _s2_dims ${_s2_build})
  list(GET _s2_dims 0 _s2_rows)
  list(GET _s2_dims 1 _s2_cols)
  list(GET _s2_dims 2 _s2_macs)
  verilate(s2_rtl_pe_array_sc_verilated SYSTEMC TRACE
    SOURCES ${S2_RTL_PE_ARRAY_SOURCES}
    TOP_MODULE pe_array
    PREFIX Vpe_array_sc_${_s2_rows}x${_s2_cols}
    OPT_FAST ${S2_VERILATED_OPT_FAST}
    VERILATOR_ARGS -Wall -GROWS=${_s2_rows} -GCOLS=${_s2_cols} -GMACS=${_s2_macs})
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
  COMMAND ${VERILATOR_BIN} --lint-only -Wall --top-module pe_array -GMACS=4
          ${S2_RTL_PE_ARRAY_SOURCES})
set_tests_properties(rtl_pe_array_lint PROPERTIES LABELS rtl)
