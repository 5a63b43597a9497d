#include "simulator/dram/address_mapping.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::sim::dram {

namespace {
bool is_pow2(uint32_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}
uint32_t log2_of(uint32_t v) {
  uint32_t bits = 0;
  while ((uint32_t{1} << bits) < v)
    ++bits;
  return bits;
}
}  // namespace

AddressMapping::AddressMapping(const target::DramDesc& desc)
    : burst_bytes_(desc.burst_bytes()),
      channels_(desc.channels),
      bank_groups_(desc.bank_groups),
      columns_(burst_bytes_ == 0 ? 0 : static_cast<uint32_t>(desc.row_size_bytes / burst_bytes_)),
      banks_per_group_(desc.banks_per_group),
      ranks_(desc.ranks),
      bursts_(burst_bytes_ == 0 ? 0 : desc.capacity_bytes / burst_bytes_) {
  // The loader guarantees these (docs/target.md, "Relations checked"); a hand-built DramDesc
  // that breaks them is a bug in the caller.
  S2_CHECK(burst_bytes_ > 0 && channels_ > 0 && bank_groups_ > 0 && columns_ > 0 &&
               banks_per_group_ > 0 && ranks_ > 0 && desc.rows_per_bank > 0,
           "AddressMapping: DRAM organisation has a zero dimension");
  S2_CHECK(desc.row_size_bytes % burst_bytes_ == 0,
           "AddressMapping: row size is not a whole number of bursts");
  const target::AddressOrder& order = desc.controller.address_mapping;
  default_order_ = order == target::kDefaultAddressOrder;
  for (std::size_t i = 0; i < order.size(); ++i) {
    S2_CHECK(std::count(order.begin(), order.end(), order[i]) == 1,
             "AddressMapping: the field order is not a permutation (the loader checks it)");
  }
  // Each field's member and radix, in target::AddressField order.
  const std::array<Field, 6> by_field{{{&DramAddress::row, desc.rows_per_bank, 0},
                                       {&DramAddress::rank, ranks_, 0},
                                       {&DramAddress::bank, banks_per_group_, 0},
                                       {&DramAddress::column, columns_, 0},
                                       {&DramAddress::bank_group, bank_groups_, 0},
                                       {&DramAddress::channel, channels_, 0}}};
  pow2_ = true;
  bool below_channel = true;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const target::AddressField name = order[order.size() - 1 - i];
    Field& f = fields_[i];
    f = by_field[static_cast<std::size_t>(name)];
    if (name == target::AddressField::Channel) below_channel = false;
    if (below_channel) run_length_ *= f.radix;
    // The top field takes whatever is left (bursts() keeps it in range), so its radix need
    // not be a power of two.
    if (i + 1 < order.size()) {
      pow2_ = pow2_ && is_pow2(f.radix);
      f.bits = log2_of(f.radix);
    }
  }
}

DramAddress AddressMapping::decode_burst(uint64_t burst) const {
  DramAddress a;
  uint64_t rest = burst;
  if (pow2_ && default_order_) {  // the shipped case, unrolled: the cursor decodes every access
    const auto field = [&rest](uint32_t bits) {
      const auto v = static_cast<uint32_t>(rest & ((uint64_t{1} << bits) - 1));
      rest >>= bits;
      return v;
    };
    a.channel = field(fields_[0].bits);
    a.bank_group = field(fields_[1].bits);
    a.column = field(fields_[2].bits);
    a.bank = field(fields_[3].bits);
    a.rank = field(fields_[4].bits);
    a.row = static_cast<uint32_t>(rest);
    return a;
  }
  if (pow2_) {  // each radix below the top field a power of two
    for (std::size_t i = 0; i + 1 < fields_.size(); ++i) {
      a.*fields_[i].member = static_cast<uint32_t>(rest & ((uint64_t{1} << fields_[i].bits) - 1));
      rest >>= fields_[i].bits;
    }
  } else {
    for (std::size_t i = 0; i + 1 < fields_.size(); ++i) {
      a.*fields_[i].member = static_cast<uint32_t>(rest % fields_[i].radix);
      rest /= fields_[i].radix;
    }
  }
  a.*fields_.back().member = static_cast<uint32_t>(rest);
  return a;
}

uint64_t AddressMapping::encode(const DramAddress& a) const {
  uint64_t burst = a.*fields_.back().member;
  for (std::size_t i = fields_.size() - 1; i-- > 0;)
    burst = burst * fields_[i].radix + a.*fields_[i].member;
  return burst * burst_bytes_;
}

}  // namespace s2::sim::dram
