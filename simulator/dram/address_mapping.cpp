#include "simulator/dram/address_mapping.h"

#include "isa/common/errors.h"

namespace s2::sim::dram {

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
  internal_check(burst_bytes_ > 0 && channels_ > 0 && bank_groups_ > 0 && columns_ > 0 &&
                     banks_per_group_ > 0 && ranks_ > 0 && desc.rows_per_bank > 0,
                 "AddressMapping: DRAM organisation has a zero dimension");
  internal_check(desc.row_size_bytes % burst_bytes_ == 0,
                 "AddressMapping: row size is not a whole number of bursts");
}

DramAddress AddressMapping::decode_burst(uint64_t burst) const {
  DramAddress a;
  uint64_t rest = burst;
  a.channel = static_cast<uint32_t>(rest % channels_);
  rest /= channels_;
  a.bank_group = static_cast<uint32_t>(rest % bank_groups_);
  rest /= bank_groups_;
  a.column = static_cast<uint32_t>(rest % columns_);
  rest /= columns_;
  a.bank = static_cast<uint32_t>(rest % banks_per_group_);
  rest /= banks_per_group_;
  a.rank = static_cast<uint32_t>(rest % ranks_);
  rest /= ranks_;
  a.row = static_cast<uint32_t>(rest);
  return a;
}

uint64_t AddressMapping::encode(const DramAddress& a) const {
  uint64_t burst = a.row;
  burst = burst * ranks_ + a.rank;
  burst = burst * banks_per_group_ + a.bank;
  burst = burst * columns_ + a.column;
  burst = burst * bank_groups_ + a.bank_group;
  burst = burst * channels_ + a.channel;
  return burst * burst_bytes_;
}

}  // namespace s2::sim::dram
