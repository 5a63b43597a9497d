#pragma once
// The human-readable summary printed by `s2sim info`: header, sections, instruction mix,
// tensor table and memory-plan summary.

#include <string>

#include "isa/container/executable.h"
#include "isa/container/reader.h"

namespace s2::sim {

std::string info_report(const isa::Executable& exe, const isa::FileLayout& layout,
                        const std::string& file_name, uint64_t file_bytes);

}  // namespace s2::sim
