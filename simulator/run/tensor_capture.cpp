#include "simulator/run/tensor_capture.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::sim {

TensorCapture::TensorCapture(const isa::Executable& exe, const std::vector<size_t>& tensors)
    : exe_(exe),
      pending_(exe.tensors.size()),
      touched_by_(exe.instructions.size()),
      captured_(exe.tensors.size()) {
  // The asked tensors' bytes by memory and address, each with the farthest end of those at or
  // before it (`reach`), so that the tensors an operand overlaps are found by a scan back from
  // its end that stops where nothing reaches its start: it passes the tensors overlapping the
  // operand, and those starting between the lowest of them and the operand. Asking each
  // tensor's life's instructions instead cost tensors x lives: s2sim run --dump-all on 20000
  // copies between 20001 tensors, each live throughout, took 144 s.
  struct Placed {
    isa::MemSpace space;
    uint64_t addr;
    uint64_t end;
    size_t tensor;
  };
  std::vector<Placed> placed;
  std::vector<bool> asked(exe.tensors.size());
  for (size_t t : tensors) {
    S2_CHECK(t < exe.tensors.size(), "TensorCapture: tensor " + std::to_string(t) + " of " +
                                         std::to_string(exe.tensors.size()));
    if (asked[t]) continue;
    asked[t] = true;
    const isa::TensorEntry& entry = exe.tensors[t];
    placed.push_back(
        {entry.space, entry.addr, isa::saturating_add(entry.addr, entry.dense_bytes()), t});
    open_.insert({entry.last, t});
  }
  const auto before = [](const Placed& a, const Placed& b) {
    return a.space != b.space ? a.space < b.space : a.addr < b.addr;
  };
  std::sort(placed.begin(), placed.end(), before);
  std::vector<uint64_t> reach(placed.size());
  for (size_t k = 0; k < placed.size(); ++k)
    reach[k] = k > 0 && placed[k - 1].space == placed[k].space
                   ? std::max(reach[k - 1], placed[k].end)
                   : placed[k].end;
  // touches(i, t) for every instruction i of t's life, each (i, t) once.
  std::vector<uint32_t> seen_at(exe.tensors.size(), UINT32_MAX);
  for (uint32_t i = 0; i < exe.instructions.size(); ++i) {
    const isa::Instruction& inst = exe.instructions[i];
    for (size_t s = 0; s < isa::kNumSlots; ++s) {
      const auto slot = static_cast<isa::Slot>(s);
      if (!inst.has_slot(slot)) continue;
      const auto& d = inst.operand(slot);
      if (!d) continue;
      const uint64_t start = d->addr, end = isa::saturating_add(d->addr, d->span_bytes());
      const Placed probe{d->space, end, end, 0};
      for (size_t k = static_cast<size_t>(
               std::lower_bound(placed.begin(), placed.end(), probe, before) - placed.begin());
           k-- > 0;) {
        const Placed& p = placed[k];
        if (p.space != d->space || reach[k] <= start) break;
        if (p.end <= start || seen_at[p.tensor] == i) continue;
        const isa::TensorEntry& entry = exe.tensors[p.tensor];
        if (i < entry.first || i > entry.last) continue;
        seen_at[p.tensor] = i;
        touched_by_[i].push_back(p.tensor);
        ++pending_[p.tensor].outstanding;
      }
    }
  }
}

bool TensorCapture::touches(uint32_t index, size_t tensor) const {
  const isa::TensorEntry& t = exe_.tensors[tensor];
  const uint64_t lo = t.addr, hi = isa::saturating_add(t.addr, t.dense_bytes());
  const isa::Instruction& inst = exe_.instructions[index];
  for (size_t s = 0; s < isa::kNumSlots; ++s) {
    const auto slot = static_cast<isa::Slot>(s);
    if (!inst.has_slot(slot)) continue;
    const auto& d = inst.operand(slot);
    if (!d || d->space != t.space) continue;
    if (d->addr < hi && lo < isa::saturating_add(d->addr, d->span_bytes())) return true;
  }
  return false;
}

void TensorCapture::before(uint32_t index, const functional::DramImage& image) {
  watched_.clear();
  for (const auto& [last, t] : open_) {
    if (last >= index) break;
    if (!touches(index, t)) continue;
    pending_[t].snapshot = image.entry_bytes(exe_.tensors[t]);
    watched_.push_back(t);
  }
}

void TensorCapture::after(uint32_t index, const functional::DramImage& image) {
  for (size_t t : watched_) {
    Pending& p = pending_[t];
    const std::vector<uint8_t> now = image.entry_bytes(exe_.tensors[t]);
    if (p.saved.empty()) {
      p.saved.resize(now.size());
      p.kept.resize(now.size());
    }
    for (size_t b = 0; b < now.size(); ++b)
      if (!p.kept[b] && now[b] != p.snapshot[b]) {
        p.saved[b] = p.snapshot[b];
        p.kept[b] = true;
      }
    p.snapshot = {};
  }
  watched_.clear();
  for (size_t t : touched_by_[index])
    if (--pending_[t].outstanding == 0) take(t, image);
}

void TensorCapture::finish(const functional::DramImage& image) {
  while (!open_.empty())
    take(open_.begin()->second, image);
}

void TensorCapture::take(size_t tensor, const functional::DramImage& image) {
  Pending& p = pending_[tensor];
  std::vector<uint8_t> bytes = image.entry_bytes(exe_.tensors[tensor]);
  for (size_t b = 0; b < p.kept.size(); ++b)
    if (p.kept[b]) bytes[b] = p.saved[b];
  captured_[tensor] = std::move(bytes);
  p = {};
  open_.erase({exe_.tensors[tensor].last, tensor});
}

}  // namespace s2::sim
