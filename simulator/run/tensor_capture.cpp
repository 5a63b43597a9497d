#include "simulator/run/tensor_capture.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::sim {

TensorCapture::TensorCapture(const isa::Executable& exe, const std::vector<size_t>& tensors)
    : exe_(exe),
      pending_(exe.tensors.size()),
      touched_by_(exe.instructions.size()),
      captured_(exe.tensors.size()) {
  std::vector<bool> asked(exe.tensors.size());
  for (size_t t : tensors) {
    S2_CHECK(t < exe.tensors.size(), "TensorCapture: tensor " + std::to_string(t) + " of " +
                                         std::to_string(exe.tensors.size()));
    if (asked[t]) continue;
    asked[t] = true;
    const isa::TensorEntry& entry = exe.tensors[t];
    const size_t end = std::min<size_t>(entry.last + size_t{1}, exe.instructions.size());
    for (size_t i = entry.first; i < end; ++i)
      if (touches(static_cast<uint32_t>(i), t)) {
        touched_by_[i].push_back(t);
        ++pending_[t].outstanding;
      }
    open_.insert({entry.last, t});
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
