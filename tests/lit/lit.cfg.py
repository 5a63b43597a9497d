# lit configuration of s2c's text tests (tests/lit/README.md): each *.s2ir file is a program
# as text with `// RUN:` lines that run s2c on it and `// CHECK:` lines that FileCheck
# matches against the output. ctest runs them all as `lit.compiler_passes`
# (tests/CMakeLists.txt passes the parameters below).
import os

import lit.formats

config.name = "s2c"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".s2ir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = lit_config.params["build_dir"]

# %s2c: the compiler under test; %configs: the accelerator configurations.
config.substitutions.append(("%s2c", lit_config.params["s2c"]))
config.substitutions.append(("%configs", os.path.join(lit_config.params["source_dir"], "configs")))
# FileCheck and not from llvm-14-tools.
config.environment["PATH"] = os.pathsep.join(
    [lit_config.params["llvm_bin"], config.environment.get("PATH", os.environ.get("PATH", ""))])
