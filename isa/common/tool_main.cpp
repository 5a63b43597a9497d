#include "isa/common/tool_main.h"

#include <exception>
#include <iostream>
#include <new>

#include "isa/common/errors.h"

namespace s2 {

int run_tool(const char* tool, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UserError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return kExitUserError;
  } catch (const InternalError& e) {
    std::cerr << tool << ": internal error: " << e.what()
              << "\n(this is a bug in the S2Train toolchain; please report it with the input)\n";
    return kExitInternalError;
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": internal error: out of memory\n";
    return kExitInternalError;
  } catch (const std::exception& e) {
    std::cerr << tool << ": internal error: " << e.what() << "\n";
    return kExitInternalError;
  }
}

}  // namespace s2
