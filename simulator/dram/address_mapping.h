#pragma once
// AddressMapping: where a byte address lives in the DRAM organisation.
//
// A burst index (address / burst size) is cut into six mixed-radix fields in the order that
// `dram.controller.address_mapping` lists, most significant first. The default order is
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
// Other orders model other controllers (docs/target.md lists worked examples), e.g.
// row:column:rank:bank:bank_group:channel, which sends consecutive bursts of a channel to
// different banks (what a closed-page controller wants), or channel:row:rank:bank:column:
// bank_group, which fills one channel before the next.
// Radices need not be powers of two (the loader allows any channel or rank count).
//
// `dram.controller.address_hash: xor` then permutes the parallel fields after the cut, in the
// manner of permutation-based page interleaving (Zhang, Zhu and Zhang, MICRO 2000):
//   * F = fold(row : rank) over the widths of the bank and of the pair (bank group : channel)
//     together. Its low bits move the bank and its high bits the pair, so a power-of-two stride
//     whose bits land in the row flips successive bits of bank and pair alike: every 2^(wb+W)
//     strides visit every bank of every bank group of every channel once;
//   * the pair is also moved by fold(C), C the number the bank (as cut) and the column form
//     when they lie above both the channel and the bank group, so that strides inside a row
//     (of a column or a bank) spread over the channels and bank groups too.
// fold(x) is the XOR of x's chunks of the target's width; for a radix that is not a power of
// two the amount is added modulo the radix instead. Each target moves by fields it does not
// change, so the mapping stays one to one (encode() undoes it). The bank never moves with the
// column, so a row's bursts stay in one bank (row hits). Only fields above both the channel and
// the bank group move the pair, so the channel is the same for a whole run (below).
//
// Without the hash, the bursts of one channel form runs of run_length() consecutive bursts
// (the product of the radices below the channel field; 1 when the channel is the lowest field),
// every channels() runs one run per channel. With it, each block of channels() runs holds one
// run of every channel, in an order that depends on the block (first_in_channel()).

#include <array>
#include <cstddef>
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

// x / d for a divisor fixed at construction: a shift when d is a power of two (every shipped
// preset's burst size and channel count), since a 64-bit division costs tens of cycles and
// the burst cursor divides for every access.
class Divisor {
 public:
  explicit Divisor(uint64_t d = 1);
  uint64_t operator()(uint64_t x) const { return shift_ >= 0 ? x >> shift_ : x / d_; }

 private:
  uint64_t d_;
  int shift_;  // log2(d) when d is a power of two, else -1
};

class AddressMapping {
 public:
  explicit AddressMapping(const target::DramDesc& desc);

  // `burst` is address / burst_bytes(). Precondition: burst < bursts().
  DramAddress decode_burst(uint64_t burst) const {
    return hashed_ ? decode_hashed(burst) : decode_fields(burst);
  }
  DramAddress decode(uint64_t address) const { return decode_burst(burst_index(address)); }
  // The burst holding byte `address`: address / burst_bytes().
  uint64_t burst_index(uint64_t address) const { return by_burst_(address); }
  // Moves `a` == decode_burst(b) to decode_burst(b + channels()), the same channel's next burst,
  // by carrying through the fields above the channel instead of dividing again (the burst
  // cursor's hot path). Preconditions: !hashed(), run_length() == 1, b + channels() < bursts().
  void step_in_channel(DramAddress& a) const {
    if (!default_order_) return step_above_channel(a);
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
  // Moves `a` == decode_burst(b) to decode_burst(b + 1) when both are in one run (b + 1 is not
  // a multiple of run_length()). Precondition: !hashed().
  void step_in_run(DramAddress& a) const { increment(a, 0); }
  // The first burst >= b of `channel`: in b's run when that run is the channel's, otherwise
  // the first of the channel's next run.
  uint64_t first_in_channel(uint32_t channel, uint64_t b) const;
  // The byte address of the first byte of burst `a`: decode(encode(a)) == a for every field
  // in range (row < rows_per_bank, column < bursts per row, ...).
  uint64_t encode(const DramAddress& a) const;

  uint32_t burst_bytes() const { return burst_bytes_; }
  uint32_t channels() const { return channels_; }
  uint64_t run_length() const { return run_length_; }
  uint64_t bursts() const { return bursts_; }  // of the configured capacity
  bool hashed() const { return hashed_; }

 private:
  // One field, least significant first in fields_.
  struct Field {
    uint32_t DramAddress::*member;
    uint32_t radix;
    uint32_t bits;  // log2(radix) when pow2_
  };
  // A hash target: a value in [0, radix) moved by an amount (XOR, or addition modulo a radix
  // that is not a power of two).
  struct Permutation {
    uint32_t radix = 1;
    uint32_t width = 0;  // ceil(log2(radix))
    bool pow2 = true;
    uint32_t apply(uint32_t value, uint64_t amount) const;
    uint32_t undo(uint32_t value, uint64_t amount) const;
  };
  // What the hash moves the bank and the pair by, from the fields as cut.
  struct Amounts {
    uint64_t bank = 0;
    uint64_t pair = 0;
  };
  // The fields as cut, without the hash.
  DramAddress decode_fields(uint64_t burst) const;
  // decode_fields(), then the hash.
  [[gnu::noinline]] DramAddress decode_hashed(uint64_t burst) const;
  // The amounts from `a`'s fields as cut; the bank is read only for the pair's amount, so
  // `a.bank` may be hashed when `with_pair` is false.
  Amounts amounts(const DramAddress& a, bool with_pair) const;
  // step_in_channel() of any other order, out of line to keep the default path small.
  [[gnu::noinline]] void step_above_channel(DramAddress& a) const { increment(a, 1); }
  // Adds one at fields_[from], carrying upwards; the top field never wraps.
  void increment(DramAddress& a, std::size_t from) const {
    for (std::size_t i = from; i + 1 < fields_.size(); ++i) {
      uint32_t& value = a.*fields_[i].member;
      if (++value < fields_[i].radix) return;
      value = 0;
    }
    ++(a.*fields_.back().member);
  }

  uint32_t burst_bytes_;
  Divisor by_burst_;  // by burst_bytes_
  Divisor by_block_;  // by a block of every channel's run: run_length_ * channels_
  uint32_t channels_;
  uint32_t bank_groups_;
  uint32_t columns_;  // bursts per row
  uint32_t banks_per_group_;
  uint32_t ranks_;
  uint64_t bursts_;
  uint64_t run_length_ = 1;
  std::array<Field, 6> fields_{};  // least significant first
  bool default_order_ = true;      // target::kDefaultAddressOrder: the hand-unrolled paths
  bool hashed_ = false;            // address_hash: xor
  Permutation bank_hash_;          // of the bank
  Permutation pair_hash_;          // of bank_group * channels + channel
  std::size_t pair_above_ = 0;   // fields_ from this index up lie above the channel and bank group
  bool row_moves_pair_ = false;  // row and rank both lie there
  // When every radix is a power of two (all shipped presets), decode_burst() shifts and masks
  // instead of dividing: the burst cursor decodes the first burst of every access.
  bool pow2_ = false;
};

}  // namespace s2::sim::dram
