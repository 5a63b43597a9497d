#include "simulator/dram/address_mapping.h"

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
  pow2_ = is_pow2(channels_) && is_pow2(bank_groups_) && is_pow2(columns_) &&
          is_pow2(banks_per_group_) && is_pow2(ranks_);
  if (pow2_) {
    channel_bits_ = log2_of(channels_);
    bank_group_bits_ = log2_of(bank_groups_);
    column_bits_ = log2_of(columns_);
    bank_bits_ = log2_of(banks_per_group_);
    rank_bits_ = log2_of(ranks_);
  }
}

DramAddress AddressMapping::decode_burst(uint64_t burst) const {
  DramAddress a;
  uint64_t rest = burst;
  if (pow2_) {  // the same fields, each radix a power of two
    const auto field = [&rest](uint32_t bits) {
      const auto v = static_cast<uint32_t>(rest & ((uint64_t{1} << bits) - 1));
      rest >>= bits;
      return v;
    };
    a.channel = field(channel_bits_);
    a.bank_group = field(bank_group_bits_);
    a.column = field(column_bits_);
    a.bank = field(bank_bits_);
    a.rank = field(rank_bits_);
    a.row = static_cast<uint32_t>(rest);
    return a;
  }
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
