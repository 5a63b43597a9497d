// Compiled only into S2_SANITIZE builds, into every program that links SystemC (the top-level
// CMakeLists.txt adds it to PkgConfig::SystemC's interface sources).
//
// Debian's SystemC 2.3.4 tells AddressSanitizer about its coroutine switches through
// __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber, but it never records the
// main coroutine's stack: switching back to it, it announces a stack at address 0 of size 0.
// From the first sc_start() on, ASan therefore no longer knows where the main thread's stack
// is. It then ignores the __asan_handle_no_return of every exception thrown there ("ASan is
// ignoring requested __asan_handle_no_return ... False positive error reports may follow",
// google/sanitizers#189), so the locals of the frames such an exception unwinds stay
// poisoned, and a later call that reuses that stack memory is reported as a
// stack-use-after-scope that is none (e.g. a test that expects a UserError after a pass).
//
// SystemC references the two functions weakly, so the definition in the executable is the one
// it calls. This one puts the main thread's real stack in place of the empty one and forwards
// to ASan's.
#include <dlfcn.h>
#include <pthread.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace {

struct Stack {
  const void* bottom = nullptr;
  size_t size = 0;
};

// The main thread's stack, queried once at start-up (on that stack, before any switch).
Stack query_main_stack() {
  Stack stack;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return stack;
  void* bottom = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &bottom, &size) == 0) {
    stack.bottom = bottom;
    stack.size = size;
  }
  pthread_attr_destroy(&attr);
  return stack;
}

const Stack kMainStack = query_main_stack();

template <class Fn>
Fn asan_function(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr,
                 "systemc_main_stack.cpp: %s not found after this program (is it "
                 "linked with -fsanitize=address?)\n",
                 name);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

}  // namespace

extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom,
                                               size_t size) {
  using Fn = void (*)(void**, const void*, size_t);
  static const Fn forward = asan_function<Fn>("__sanitizer_start_switch_fiber");
  if (bottom == nullptr && size == 0) {  // SystemC's main coroutine
    bottom = kMainStack.bottom;
    size = kMainStack.size;
  }
  forward(fake_stack_save, bottom, size);
}
