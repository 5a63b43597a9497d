#include "simulator/dram/address_mapping.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::sim::dram {

namespace {
bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}
uint32_t log2_of(uint64_t v) {  // ceil(log2(v)), 0 for v <= 1
  uint32_t bits = 0;
  while ((uint64_t{1} << bits) < v)
    ++bits;
  return bits;
}
}  // namespace

Divisor::Divisor(uint64_t d) : d_(d), shift_(-1) {
  S2_CHECK(d != 0, "Divisor: division by zero");
  if (is_pow2(d)) shift_ = static_cast<int>(log2_of(d));
}

AddressMapping::AddressMapping(const target::DramDesc& desc)
    : burst_bytes_(desc.burst_bytes()),
      by_burst_(burst_bytes_ == 0 ? 1 : burst_bytes_),
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
  hashed_ = desc.controller.address_hash == target::AddressHash::Xor;
  bank_hash_ = Permutation{banks_per_group_, log2_of(banks_per_group_), is_pow2(banks_per_group_)};
  const uint32_t pair = channels_ * bank_groups_;
  pair_hash_ = Permutation{pair, log2_of(pair), is_pow2(pair)};
  bool below_channel = true;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const target::AddressField name = order[order.size() - 1 - i];
    Field& f = fields_[i];
    f = by_field[static_cast<std::size_t>(name)];
    if (name == target::AddressField::Channel) below_channel = false;
    if (name == target::AddressField::Channel || name == target::AddressField::BankGroup)
      pair_above_ = std::max(pair_above_, i + 1);
    if (below_channel) run_length_ *= f.radix;
    // The top field takes whatever is left (bursts() keeps it in range), so its radix need
    // not be a power of two.
    if (i + 1 < order.size()) {
      pow2_ = pow2_ && is_pow2(f.radix);
      f.bits = log2_of(f.radix);
    }
  }
  by_block_ = Divisor(run_length_ * channels_);
  row_moves_pair_ = true;
  for (std::size_t i = 0; i < pair_above_; ++i)
    if (fields_[i].member == &DramAddress::row || fields_[i].member == &DramAddress::rank)
      row_moves_pair_ = false;
}

DramAddress AddressMapping::decode_fields(uint64_t burst) const {
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

namespace {

// The XOR of `input`'s chunks of `width` bits.
uint64_t fold(uint64_t input, uint32_t width) {
  if (width == 0) return 0;
  uint64_t h = 0;
  for (; input != 0; input >>= width)
    h ^= input & ((uint64_t{1} << width) - 1);
  return h;
}

}  // namespace

uint32_t AddressMapping::Permutation::apply(uint32_t value, uint64_t amount) const {
  return static_cast<uint32_t>(pow2 ? value ^ amount : (value + amount % radix) % radix);
}

uint32_t AddressMapping::Permutation::undo(uint32_t value, uint64_t amount) const {
  return static_cast<uint32_t>(pow2 ? value ^ amount : (value + radix - amount % radix) % radix);
}

AddressMapping::Amounts AddressMapping::amounts(const DramAddress& a, bool with_pair) const {
  const uint32_t bank_width = bank_hash_.width;
  const uint64_t f = fold(uint64_t{a.row} * ranks_ + a.rank, bank_width + pair_hash_.width);
  Amounts out;
  out.bank = f & ((uint64_t{1} << bank_width) - 1);
  if (!with_pair) return out;
  uint64_t c = 0;  // the bank and column above the pair, in their order
  for (std::size_t i = fields_.size(); i-- > pair_above_;) {
    const uint32_t DramAddress::*member = fields_[i].member;
    if (member == &DramAddress::bank || member == &DramAddress::column)
      c = c * fields_[i].radix + a.*member;
  }
  out.pair = fold(c, pair_hash_.width) ^ (row_moves_pair_ ? f >> bank_width : 0);
  return out;
}

DramAddress AddressMapping::decode_hashed(uint64_t burst) const {
  DramAddress a = decode_fields(burst);
  const Amounts by = amounts(a, true);
  const uint32_t pair = pair_hash_.apply(a.bank_group * channels_ + a.channel, by.pair);
  a.channel = pair % channels_;
  a.bank_group = pair / channels_;
  a.bank = bank_hash_.apply(a.bank, by.bank);
  return a;
}

uint64_t AddressMapping::encode(const DramAddress& hashed) const {
  DramAddress a = hashed;
  if (hashed_) {  // the bank's amount needs only row and rank; the pair's the bank as cut
    a.bank = bank_hash_.undo(a.bank, amounts(a, false).bank);
    const uint32_t pair =
        pair_hash_.undo(a.bank_group * channels_ + a.channel, amounts(a, true).pair);
    a.channel = pair % channels_;
    a.bank_group = pair / channels_;
  }
  uint64_t burst = a.*fields_.back().member;
  for (std::size_t i = fields_.size() - 1; i-- > 0;)
    burst = burst * fields_[i].radix + a.*fields_[i].member;
  return burst * burst_bytes_;
}

uint64_t AddressMapping::first_in_channel(uint32_t channel, uint64_t b) const {
  // The pair moves by fields above the channel only, so by the same amount in every burst of
  // a block of channels() runs, and the channel by that amount modulo channels() (the low bits
  // under XOR, or the sum modulo channels under addition).
  const uint64_t block_bursts = run_length_ * channels_;
  for (uint64_t block = by_block_(b);; ++block) {
    uint32_t raw = channel;
    if (hashed_) {
      const uint64_t amount = amounts(decode_fields(block * block_bursts), true).pair;
      raw = pair_hash_.pow2
                ? static_cast<uint32_t>(channel ^ (amount & (channels_ - 1)))
                : static_cast<uint32_t>(
                      (channel + channels_ - amount % pair_hash_.radix % channels_) % channels_);
    }
    const uint64_t start = (block * channels_ + raw) * run_length_;
    if (b < start + run_length_) return std::max(b, start);
  }
}

}  // namespace s2::sim::dram
