#pragma once
// Field access on the packed ports of a verilated pe_array (plain C++ build). Verilator gives a
// port of w bits the type CData/SData/IData/QData (w <= 64) or VlWide<words> (w > 64), so
// which type a port has depends on ROWS/COLS; these overloads read and write a field of up
// to 32 bits at any bit offset in either kind. Include only where the Verilator headers are.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "verilated.h"

namespace s2::rtl::ports {

// A whole narrow port (<= 32 bits); the value must fit (the caller checked the ranges).
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
void assign(T& port, uint32_t value) {
  port = static_cast<T>(value);
}

template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
uint32_t get(const T& port, unsigned lsb, unsigned width) {
  const uint64_t mask = (uint64_t{1} << width) - 1;
  return static_cast<uint32_t>((static_cast<uint64_t>(port) >> lsb) & mask);
}

template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
void put(T& port, unsigned lsb, unsigned width, uint32_t value) {
  const uint64_t mask = ((uint64_t{1} << width) - 1) << lsb;
  const uint64_t cleared = static_cast<uint64_t>(port) & ~mask;
  port = static_cast<T>(cleared | ((uint64_t{value} << lsb) & mask));
}

template <std::size_t N>
uint32_t get(const VlWide<N>& port, unsigned lsb, unsigned width) {
  const unsigned word = lsb / 32;
  const unsigned shift = lsb % 32;
  uint64_t pair = port[word];
  if (word + 1 < N) pair |= uint64_t{port[word + 1]} << 32;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  return static_cast<uint32_t>((pair >> shift) & mask);
}

template <std::size_t N>
void put(VlWide<N>& port, unsigned lsb, unsigned width, uint32_t value) {
  const unsigned word = lsb / 32;
  const unsigned shift = lsb % 32;
  if (shift == 0 && width == 32) {  // the data fields: one whole word
    port[word] = value;
    return;
  }
  const uint64_t mask = ((uint64_t{1} << width) - 1) << shift;
  uint64_t pair = port[word];
  if (word + 1 < N) pair |= uint64_t{port[word + 1]} << 32;
  pair = (pair & ~mask) | ((uint64_t{value} << shift) & mask);
  port[word] = static_cast<uint32_t>(pair);
  if (word + 1 < N) port[word + 1] = static_cast<uint32_t>(pair >> 32);
}

}  // namespace s2::rtl::ports
