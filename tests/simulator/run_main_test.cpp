// Entry point of simulator_run_tests. A binary that links SystemC needs sc_main, and the
// simulations of the other run_*_test.cpp files must run inside it, so this replaces
// GTest::gtest_main: main() silences the SystemC banner and enters SystemC, whose sc_main
// runs the tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
