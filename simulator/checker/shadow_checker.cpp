#include "simulator/checker/shadow_checker.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>

#include "isa/common/errors.h"
#include "simulator/checker/hazard_scan.h"

namespace s2::sim::checker {
namespace {

uint64_t resolve_dram_bytes(const isa::Executable& exe, const CheckOptions& options) {
  if (options.dram_bytes != 0) return options.dram_bytes;
  if (exe.plan.dram_size != 0) return exe.plan.dram_size;
  uint64_t end = 0;
  for (const isa::TensorEntry& t : exe.tensors)
    end = std::max(end, isa::saturating_add(t.addr, t.size));
  return end;
}

// Affected bytes of one finding, gathered piece by piece.
struct Gathered {
  uint64_t begin = UINT64_MAX;
  uint64_t end = 0;
  uint64_t bytes = 0;

  void add(const Interval& iv) {
    begin = std::min(begin, iv.begin);
    end = std::max(end, iv.end);
    bytes += iv.bytes();
  }
};

}  // namespace

ShadowChecker::ShadowChecker(const isa::Executable& exe, const CheckOptions& options)
    : exe_(exe),
      dram_bytes_(resolve_dram_bytes(exe, options)),
      spaces_{dram_bytes_, exe.plan.host_size},
      tensors_(checked_tensors(exe.tensors, spaces_)),
      attribution_(tensors_),
      accesses_(collect_accesses(exe, tensors_, attribution_, spaces_)) {
  for (size_t t = 0; t < exe.tensors.size(); ++t) {
    const isa::TensorEntry& entry = exe.tensors[t];
    // Host memory starts empty (the validator refuses initial data there).
    if (!entry.has_data() || entry.space != isa::MemSpace::Dram) continue;
    const uint64_t end =
        std::min(isa::saturating_add(entry.addr, entry.dense_bytes()), dram_bytes_);
    shadow_.write({entry.addr, end}, Tag{static_cast<int64_t>(t), kNone});
  }
}

void ShadowChecker::add(Finding f) {
  spaces_.localise(f);
  findings_.push_back(std::move(f));
}

void ShadowChecker::check_reads(uint32_t index, const OperandAccess& op) {
  Gathered never;
  // Stale pieces per (read tensor, writer tensor, writer instruction).
  std::map<std::tuple<uint32_t, int64_t, int64_t>, Gathered> stale;
  for (const Interval& iv : op.in_tensor) {
    shadow_.read(iv, [&](const Interval& piece, const Tag* tag) {
      if (tag == nullptr) {
        never.add(piece);
        return;
      }
      for (uint32_t reader : op.readable) {
        const isa::TensorEntry& t = tensors_[reader];
        const uint64_t lo = std::max(piece.begin, t.addr);
        const uint64_t hi = std::min(piece.end, isa::saturating_add(t.addr, t.size));
        if (lo < hi && tag->tensor != static_cast<int64_t>(reader))
          stale[{reader, tag->tensor, tag->instruction}].add({lo, hi});
      }
    });
  }
  const std::string slot(isa::slot_info(op.slot).name);
  const std::string tensor =
      op.tensor >= 0 ? exe_.tensors[static_cast<size_t>(op.tensor)].name : std::string();
  if (never.bytes > 0) {
    Finding f;
    f.kind = FindingKind::NeverWritten;
    f.instruction = instruction_ref(exe_, index);
    f.slot = slot;
    f.tensor = tensor;
    f.begin = never.begin;
    f.end = never.end;
    f.bytes = never.bytes;
    add(std::move(f));
  }
  for (const auto& [key, g] : stale) {
    const auto& [reader, writer_tensor, writer_instruction] = key;
    Finding f;
    f.kind = FindingKind::StaleRead;
    f.instruction = instruction_ref(exe_, index);
    f.slot = slot;
    f.tensor = exe_.tensors[reader].name;
    f.begin = g.begin;
    f.end = g.end;
    f.bytes = g.bytes;
    if (writer_tensor >= 0) f.other_tensor = exe_.tensors[static_cast<size_t>(writer_tensor)].name;
    if (writer_instruction >= 0) {
      f.has_other = true;
      f.other = instruction_ref(exe_, static_cast<uint32_t>(writer_instruction));
    }
    add(std::move(f));
  }
}

void ShadowChecker::complete(uint32_t index) {
  S2_CHECK(index < accesses_.size(), "shadow checker: instruction " + std::to_string(index) +
                                         " completed, but the program has " +
                                         std::to_string(accesses_.size()));
  const InstructionAccess& acc = accesses_[index];
  findings_.insert(findings_.end(), acc.out_of_bounds.begin(), acc.out_of_bounds.end());
  for (const OperandAccess& op : acc.operands)
    if (op.read) check_reads(index, op);
  for (const OperandAccess& op : acc.operands) {
    if (!op.write) continue;
    const Tag tag{op.tensor, static_cast<int64_t>(index)};
    for (const Interval& iv : op.bytes)
      shadow_.write(iv, tag);
  }
}

const std::vector<Finding>& ShadowChecker::finish() {
  if (!finished_) {
    finished_ = true;
    const DependencyClosure closure(exe_.instructions);
    for (Finding& f : find_hazards(exe_, accesses_, closure))
      add(std::move(f));
  }
  return findings_;
}

std::vector<Finding> check_executable(const isa::Executable& exe, const CheckOptions& options) {
  ShadowChecker checker(exe, options);
  for (size_t i = 0; i < exe.instructions.size(); ++i)
    checker.complete(static_cast<uint32_t>(i));
  return checker.finish();
}

}  // namespace s2::sim::checker
