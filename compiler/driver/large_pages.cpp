// Large allocations on transparent huge pages, for the compiler. Compiled into s2c's executable
// (its CMake target lists this file among its sources), not into the libraries, so tests and
// embedders keep their own operator new.
//
// The compiler allocates a few very large arrays once: every weight's initial values and the
// executable's data section, half a GiB each for gpt2-small. Touching such an array for the
// first time costs a page fault per 4 KiB page, and under virtualisation each fault is
// expensive: they were half of `s2c compile gpt2-small --batch 8 --seq-len 1024`'s time. Linux
// backs a region with 2 MiB pages when the region asks for them (MADV_HUGEPAGE; Debian's
// transparent_hugepage setting is "madvise"), 512 times fewer faults. So this global operator
// new, after malloc() as before, asks for huge pages on the whole 2 MiB pages inside every
// block of at least kLargeBytes. The blocks themselves are malloc()'s, so its reuse of freed
// memory is unchanged and the default operator delete frees them; the other operator new forms
// reach this one (libstdc++'s array and nothrow forms call it). Where the kernel has no
// transparent huge pages the advice is ignored and nothing changes.
//
// Not for s2sim: with it, a one-layer gpt2-small step simulated 1.15x slower (median of 3
// paired runs). The likely reason: the simulator allocates and frees large tile lists
// instruction after instruction, and each fresh huge page is zeroed whole on its first fault.
// Sanitizer builds keep the sanitizer's operator new, which checks new/delete pairing.

#if defined(__SANITIZE_ADDRESS__)
#define S2_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define S2_SANITIZED 1
#endif
#endif

#ifndef S2_SANITIZED

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Below this a block would mostly be its rounding to a whole huge page.
constexpr std::size_t kLargeBytes = std::size_t{4} << 20;

}  // namespace

void* operator new(std::size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  if (bytes >= kLargeBytes) {
    // The whole huge pages inside the block; its ends stay on ordinary pages.
    const auto first = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t begin = (first + kHugePage - 1) / kHugePage * kHugePage;
    const std::uintptr_t end = (first + bytes) / kHugePage * kHugePage;
    // Advice: a refusal leaves ordinary pages.
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  return p;
}

#endif  // S2_SANITIZED
