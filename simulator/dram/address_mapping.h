#pragma once
// AddressMapping: where a byte address lives in the DRAM organisation.
//
// Mixed-radix fields, most significant first:
//
//     row : rank : bank : column : bank group : channel : offset-in-burst
//
// so consecutive bursts go to consecutive channels, then to consecutive bank groups of each
// channel, and only then to the next column of the same bank. Why this order:
//  * channel lowest: a tile load of any size spreads over all channels at once;
//  * bank group next: back-to-back bursts on one channel alternate bank groups, so column
//    commands are spaced by tCCD_S (= one burst on the bus) instead of tCCD_L, which is what lets
//    a stream reach the peak bandwidth on DDR4 and HBM2;
//  * column before bank: a stream stays in one open row per bank group for a whole row (row
//    hits), then moves to the next bank, whose activation the scheduler issues while the previous
//    row is still streaming;
//  * rank and row highest: different tensors usually differ in high bits, so they land in
//    different rows rather than evicting each other's open rows bank by bank.
// Radices need not be powers of two (the loader allows any channel or rank count).

#include <cstdint>

#include "isa/target/target_desc.h"

namespace s2::sim::dram {

struct DramAddress {
  uint32_t channel = 0;
  uint32_t rank = 0;
  uint32_t bank_group = 0;
  uint32_t bank = 0;  // within its bank group
  uint32_t row = 0;
  uint32_t column = 0;  // in bursts within the row
};

class AddressMapping {
 public:
  explicit AddressMapping(const target::DramDesc& desc);

  // `burst` is address / burst_bytes(). Precondition: burst < bursts().
  DramAddress decode_burst(uint64_t burst) const;
  DramAddress decode(uint64_t address) const { return decode_burst(address / burst_bytes_); }
  // Moves `a` == decode_burst(b) to decode_burst(b + channels()), the same channel's next burst,
  // by carrying through the fields above the channel instead of dividing again (the burst
  // cursor's hot path). Precondition: b + channels() < bursts().
  void step_in_channel(DramAddress& a) const {
    if (++a.bank_group < bank_groups_) return;
    a.bank_group = 0;
    if (++a.column < columns_) return;
    a.column = 0;
    if (++a.bank < banks_per_group_) return;
    a.bank = 0;
    if (++a.rank < ranks_) return;
    a.rank = 0;
    ++a.row;
  }
  // The byte address of the first byte of burst `a`: decode(encode(a)) == a for every field
  // in range (row < rows_per_bank, column < bursts per row, ...).
  uint64_t encode(const DramAddress& a) const;

  uint32_t burst_bytes() const { return burst_bytes_; }
  uint32_t channels() const { return channels_; }
  uint64_t bursts() const { return bursts_; }  // of the configured capacity

 private:
  uint32_t burst_bytes_;
  uint32_t channels_;
  uint32_t bank_groups_;
  uint32_t columns_;  // bursts per row
  uint32_t banks_per_group_;
  uint32_t ranks_;
  uint64_t bursts_;
  // When every radix is a power of two (all shipped presets), decode_burst() shifts and masks
  // instead of dividing: the burst cursor decodes the first burst of every access.
  bool pow2_ = false;
  uint32_t channel_bits_ = 0, bank_group_bits_ = 0, column_bits_ = 0, bank_bits_ = 0,
           rank_bits_ = 0;
};

}  // namespace s2::sim::dram
