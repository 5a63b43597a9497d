#pragma once
// JedecChannel: the bank-state and command-timing model of one DRAM channel (its ranks, bank
// groups and banks), shared by every JEDEC backend: DDR4, LPDDR4 and HBM2 differ only in the
// numbers (target::DramDesc), not in the rules.
//
// What is modelled, per burst (one column command):
//  * row buffers: a row stays open after its access until a conflict, a refresh or the
//    controller's close_row() (closed-page policy) closes it; a burst to the open row is a
//    hit (RD/WR only), to a closed bank a miss (ACT, RD/WR), to another row a conflict
//    (PRE, ACT, RD/WR);
//  * bank timings: ACT->RD/WR tRCD, ACT->PRE tRAS, ACT->ACT tRC, PRE->ACT tRP, RD->PRE tRTP,
//    end of write data->PRE tWR;
//  * rank timings: ACT->ACT tRRD_S / tRRD_L (same bank group), at most four ACTs per tFAW,
//    column->column tCCD_S / tCCD_L, end of write data->RD tWTR_S / tWTR_L;
//  * the channel's data bus: a burst occupies burst_length / data_rate cycles, read data comes
//    tCL after RD, write data tCWL after WR, and a read->write direction change leaves
//    kBusTurnaround idle cycles (JEDEC's RD->WR spacing RL + BL/2 - WL + 2);
//  * all-bank refresh per rank: every tREFI (ranks staggered by tREFI / ranks) the rank's banks
//    are precharged (respecting tRAS/tRTP/tWR) and it is blocked for tRFC. A refresh that falls
//    due while the rank is idle happens on time; one that falls due under traffic is taken
//    before the next request that would start after its due time.
//  * the command bus: one command (PRE, ACT, RD or WR) per cycle; a command whose cycle is taken
//    moves to the next free one. With dram.command_buses: 2 (HBM) row commands (PRE, ACT) and
//    column commands (RD, WR) each have a bus of their own. Auto-precharge rides on its RD/WR
//    and takes no slot.
// Simplifications, stated: ACTs of a rank issue in the order requests are scheduled, and so do
// the channel's column commands (what an in-order command queue per resource does); a refresh's
// PRE-all and REF take no command slot; rank-to-rank data bus switching costs nothing beyond
// the bus occupancy.
//
// Times are DRAM clock cycles (int64). plan() is pure; issue() commits a request.

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "isa/target/target_desc.h"
#include "simulator/dram/address_mapping.h"
#include "simulator/dram/dram_model.h"

namespace s2::sim::dram {

using Cycle = int64_t;

// The timings of target::DramTiming as signed cycles, plus the burst's bus occupancy.
struct JedecTimings {
  Cycle RCD, CL, CWL, RP, RAS, RC, CCD_S, CCD_L, RRD_S, RRD_L, FAW, WR, WTR_S, WTR_L, RTP, REFI,
      RFC;
  Cycle burst;  // burst_length / data_rate

  static JedecTimings from(const target::DramDesc& desc);
};

enum class RowOutcome : uint8_t { Hit, Miss, Conflict };

// A bank's index in its channel: rank, bank group and bank side by side (the loader makes the
// counts powers of two), so the banks of a channel are one flat array.
struct BankIndexer {
  uint32_t group_shift = 0;  // log2(banks per group)
  uint32_t rank_shift = 0;   // log2(banks per rank)
  uint32_t group_mask = 0;   // bank groups - 1
  uint32_t operator()(uint32_t rank, uint32_t bank_group, uint32_t bank) const {
    return (rank << rank_shift) | (bank_group << group_shift) | bank;
  }
  uint32_t rank_of(uint32_t flat) const { return flat >> rank_shift; }
  uint32_t group_of(uint32_t flat) const { return (flat >> group_shift) & group_mask; }
};

// One burst as the scheduler hands it to the channel. Made by JedecChannel::request() (or
// with flat_bank from the channel's bank_indexer()), which fills in flat_bank.
struct BurstRequest {
  uint32_t rank = 0;
  uint32_t bank_group = 0;
  uint32_t row = 0;
  // BankIndexer of (rank, bank_group, bank within the group): computed once per burst, and
  // the only place the bank within its group is kept.
  uint32_t flat_bank = 0;
  bool write = false;
  Cycle ready = 0;  // earliest cycle any of its commands may issue (arrival, queue slot)
};

// The commands a request would issue now; pre/act are meaningful only when needed.
struct CommandPlan {
  RowOutcome outcome = RowOutcome::Hit;
  Cycle pre = 0;
  Cycle act = 0;
  Cycle column = 0;
  Cycle data_end = 0;  // last beat on the bus: the request's completion
  Cycle first() const {
    return outcome == RowOutcome::Conflict ? pre : outcome == RowOutcome::Miss ? act : column;
  }
};

// Which cycles of the command bus are taken, over a window of the latest kWords x 64 cycles
// (commands are planned a few hundred cycles ahead at most; older ones no longer constrain).
class CommandBus {
 public:
  static constexpr Cycle kWords = 64;

  bool taken(Cycle c) const {
    // In the window when top_ - kWords < w <= top_: one unsigned comparison.
    const Cycle w = c >> 6;
    if (static_cast<uint64_t>(top_ - w) >= static_cast<uint64_t>(kWords)) return false;
    return (bits_[static_cast<std::size_t>(w & (kWords - 1))] >> (c & 63)) & 1u;
  }
  // The first free cycle at or after `c`. Nothing after latest_ is taken: a column command,
  // always after the last one, finds its cycle free without a look at the bits.
  Cycle free_from(Cycle c) const { return c > latest_ || !taken(c) ? c : next_free(c); }
  // free_from() of a taken cycle: out of line, so that the common case stays small.
  [[gnu::noinline]] Cycle next_free(Cycle c) const {
    while (taken(c))
      ++c;
    return c;
  }
  void take(Cycle c) {
    latest_ = std::max(latest_, c);
    const Cycle w = c >> 6;
    if (w <= top_ - kWords) return;  // before the window: nothing later can collide with it
    if (w > top_) {
      for (Cycle x = std::max(top_ + 1, w - kWords + 1); x <= w; ++x)
        bits_[static_cast<std::size_t>(x & (kWords - 1))] = 0;
      top_ = w;
    }
    bits_[static_cast<std::size_t>(w & (kWords - 1))] |= uint64_t{1} << (c & 63);
  }

 private:
  std::array<uint64_t, kWords> bits_{};
  Cycle top_ = -1;                                    // the window's latest word
  Cycle latest_ = std::numeric_limits<Cycle>::min();  // the latest cycle taken
};

class JedecChannel {
 public:
  static constexpr Cycle kBusTurnaround = 2;

  JedecChannel(const target::DramDesc& desc, const JedecTimings& timings);

  // Inline (below): the scheduler plans every queued burst for every burst it issues.
  RowOutcome outcome(const BurstRequest& request) const {
    return outcome_at(bank_index(request), request.row);
  }
  // The same for the bank at bank_index() `bank` and `row`: the scheduler keeps both in a
  // stream's key and so tests a stream without loading its request.
  RowOutcome outcome_at(uint32_t bank, uint32_t row) const;
  uint32_t bank_index(const BurstRequest& r) const { return r.flat_bank; }
  // Whether the bank at bank_index() `bank` has a row open, and which (when it has).
  bool bank_open(uint32_t bank) const { return banks_[bank].open; }
  uint32_t open_row(uint32_t bank) const { return banks_[bank].row; }
  const BankIndexer& bank_indexer() const { return indexer_; }
  // The request for a burst at `a` of this channel.
  BurstRequest request(const DramAddress& a, bool write, Cycle ready) const {
    return {a.rank, a.bank_group, a.row, indexer_(a.rank, a.bank_group, a.bank), write, ready};
  }
  CommandPlan plan(const BurstRequest& request) const {
    CommandPlan p;
    plan_into(request, p);
    return p;
  }
  // plan() written field by field into `out`: the scheduler's hot path keeps one plan in place
  // instead of copying it, since a 16-byte copy of fields just stored one by one stalls on
  // store forwarding.
  void plan_into(const BurstRequest& request, CommandPlan& out) const;
  // plan(request).column when request's row is open (outcome Hit), without the rest of the
  // plan: the scheduler compares the column slots of every queued row hit.
  Cycle hit_column(const BurstRequest& request) const {
    return hit_column_at(bank_index(request), request.write, request.ready);
  }
  // The same for a request given by its bank_index() `bank`, direction and ready time: the
  // scheduler keeps these in a stream and so plans a stream's head without loading it.
  [[gnu::always_inline]] Cycle hit_column_at(uint32_t bank, bool write, Cycle ready) const {
    return commands_.free_from(column_slot_at(indexer_.rank_of(bank), indexer_.group_of(bank),
                                              write, std::max(ready, banks_[bank].act + t_.RCD)));
  }
  // plan_into() of a row hit whose hit_column() is `column`, without planning it again.
  void hit_plan_into(const BurstRequest& request, Cycle column, CommandPlan& out) const {
    out.outcome = RowOutcome::Hit;
    out.pre = 0;
    out.act = 0;
    out.column = column;
    out.data_end = column + (request.write ? t_.CWL : t_.CL) + t_.burst;
  }
  // No request's column command can issue before this (tCCD_S after the last one, on a free
  // command cycle): a plan that reaches it cannot be beaten on time.
  Cycle column_floor() const { return commands_.free_from(last_column_ + t_.CCD_S); }
  // Whether outcome(request) is a hit and hit_column(request) <= column_floor(), in one look at
  // the bank; if so `column` is the floor, the hit's column slot. (The slot is the first free
  // command cycle from its bound column_slot(), which is at least last_column_ + tCCD_S; the
  // floor is the first free one from there, so the slot is the floor exactly when the bound is
  // at most the floor.)
  bool hit_at_floor(const BurstRequest& request, Cycle& column) const {
    const Bank& b = bank(request);
    if (!b.open || b.row != request.row) return false;
    const Cycle floor = column_floor();
    if (column_slot(request, std::max(request.ready, b.act + t_.RCD)) > floor) return false;
    column = floor;
    return true;
  }
  // The last column command issued (long ago when none was).
  Cycle last_column() const { return last_column_; }
  // Bit r set for each rank r of the channel (at most 16: the loader's limit).
  uint32_t all_ranks_mask() const { return (1u << ranks_.size()) - 1; }
  // A lower bound, cheaper than plan(), of plan(request).column when the request is a miss or
  // a conflict: its ACT waits for the rank's ACT windows (tRRD_S, tFAW, refresh) and its
  // ready time, and its column command tRCD more and for the column floor. It depends on the
  // request through its rank and ready time only.
  // Both commands land on free command cycles, so the bound does too (free_from() is monotone:
  // a later start never finds an earlier free cycle).
  Cycle activate_column_bound(uint32_t rank_index, Cycle ready) const {
    const Rank& rank = ranks_[rank_index];
    const Cycle act = row_bus().free_from(
        std::max({ready, rank.act + t_.RRD_S, rank.faw[rank.faw_next] + t_.FAW, rank.refresh_end}));
    return std::max(commands_.free_from(act + t_.RCD), column_floor());
  }
  // Takes any refresh due before the request's first command, then commits its commands and
  // counts them in `stats`. Returns what was issued.
  CommandPlan issue(const BurstRequest& request, DramStats& stats) {
    CommandPlan p = plan(request);
    issue(request, p, stats);
    return p;
  }
  // The same, given `plan` == plan(request) computed on the current state (saves planning the
  // picked request twice); on return `plan` is what was issued. Inline for a row hit with no
  // refresh due, nearly every burst of a stream.
  void issue(const BurstRequest& request, CommandPlan& plan, DramStats& stats) {
    if (plan.outcome == RowOutcome::Hit && plan.column < ranks_[request.rank].refresh_due) {
      ++stats.row_hits;
      commit_column(request, plan, stats);
    } else {
      issue_commands(request, plan, stats);
    }
  }
  // Auto-precharge after an issued burst (closed-page policy): request's bank closes as soon
  // as its tRAS, tRTP and tWR windows allow. Nothing when the bank is already closed.
  void close_row(const BurstRequest& request, DramStats& stats) {
    Bank& b = bank(request);
    if (!b.open) return;
    b.pre = precharge_ready(b);
    b.open = false;
    ++stats.precharges;
  }

 private:
  static constexpr Cycle kNever = -(Cycle{1} << 40);  // "long ago": every window is satisfied
  static constexpr uint32_t kMaxBankGroups = 16;      // the loader's limit

  struct Bank {
    bool open = false;
    uint32_t row = 0;
    Cycle act = kNever;        // last ACT
    Cycle pre = kNever;        // last PRE
    Cycle read = kNever;       // last RD command
    Cycle write_end = kNever;  // end of the last write's data
  };
  struct Rank {
    // Per bank group (in place, not on the heap: read for every planned burst).
    std::array<Cycle, kMaxBankGroups> act_in_group;            // last ACT (tRRD_L)
    std::array<Cycle, kMaxBankGroups> column_in_group;         // last RD/WR (tCCD_L)
    std::array<Cycle, kMaxBankGroups> write_end_in_group;      // tWTR_L
    Cycle act = kNever;                                        // last ACT of the rank (tRRD_S)
    std::array<Cycle, 4> faw{kNever, kNever, kNever, kNever};  // last four ACTs, ring
    uint32_t faw_next = 0;
    Cycle write_end = kNever;  // tWTR_S
    Cycle refresh_due = 0;
    Cycle refresh_end = kNever;
  };

  Bank& bank(const BurstRequest& r) { return banks_[bank_index(r)]; }
  const Bank& bank(const BurstRequest& r) const { return banks_[bank_index(r)]; }
  // The column slot of `request` given the earliest its column command may issue for its bank
  // (`command_ready`): the rank's and the channel's column, turnaround and bus windows.
  Cycle column_slot(const BurstRequest& request, Cycle command_ready) const {
    return column_slot_at(request.rank, request.bank_group, request.write, command_ready);
  }
  Cycle column_slot_at(uint32_t rank_index, uint32_t g, bool write, Cycle command_ready) const;
  Cycle precharge_ready(const Bank& b) const;
  Cycle activate_ready(const Rank& rank, const Bank& b, uint32_t bank_group) const;
  // issue() of any plan: takes the refreshes due, then the row commands.
  void issue_commands(const BurstRequest& request, CommandPlan& plan, DramStats& stats);
  // The column command of an issued plan and its data on the bus.
  void commit_column(const BurstRequest& request, const CommandPlan& p, DramStats& stats) {
    commands_.take(p.column);
    Rank& rank = ranks_[request.rank];
    last_column_ = p.column;
    rank.column_in_group[request.bank_group] = p.column;
    bus_free_ = p.data_end;
    if (request.write) {
      Bank& b = bank(request);
      b.write_end = p.data_end;
      rank.write_end = p.data_end;
      rank.write_end_in_group[request.bank_group] = p.data_end;
      ++stats.write_bursts;
    } else {
      bank(request).read = p.column;
      last_read_end_ = p.data_end;
      ++stats.read_bursts;
    }
  }
  // Refreshes `rank` until its next refresh is due after `until`.
  void refresh(uint32_t rank_index, Cycle until, DramStats& stats);

  JedecTimings t_;
  BankIndexer indexer_;
  uint32_t banks_per_rank_;
  // Every bank of the channel, rank by rank (bank_index()): one flat array, so the scheduler's
  // per-burst bank lookups take one indexed load.
  std::vector<Bank> banks_;
  std::vector<Rank> ranks_;
  // The command bus (commands_) and, with two buses, the row commands' own (row_bus_).
  CommandBus& row_bus() { return split_buses_ ? row_bus_ : commands_; }
  const CommandBus& row_bus() const { return split_buses_ ? row_bus_ : commands_; }
  bool split_buses_;
  CommandBus commands_;
  CommandBus row_bus_;
  Cycle last_column_ = kNever;  // any rank (tCCD_S, in-order column commands)
  Cycle bus_free_ = kNever;     // end of the last data burst
  Cycle last_read_end_ = kNever;
};

inline RowOutcome JedecChannel::outcome_at(uint32_t bank, uint32_t row) const {
  const Bank& b = banks_[bank];
  if (!b.open) return RowOutcome::Miss;
  return b.row == row ? RowOutcome::Hit : RowOutcome::Conflict;
}

inline Cycle JedecChannel::precharge_ready(const Bank& b) const {
  return std::max({b.act + t_.RAS, b.read + t_.RTP, b.write_end + t_.WR});
}

inline Cycle JedecChannel::activate_ready(const Rank& rank, const Bank& b,
                                          uint32_t bank_group) const {
  return std::max({b.pre + t_.RP, b.act + t_.RC, rank.act + t_.RRD_S,
                   rank.act_in_group[bank_group] + t_.RRD_L, rank.faw[rank.faw_next] + t_.FAW,
                   rank.refresh_end});
}

[[gnu::always_inline]] inline void JedecChannel::plan_into(const BurstRequest& request,
                                                           CommandPlan& out) const {
  const Rank& rank = ranks_[request.rank];
  const Bank& b = bank(request);
  const uint32_t g = request.bank_group;
  const RowOutcome outcome_now = outcome(request);
  Cycle pre = 0;
  Cycle act = 0;
  Cycle column = request.ready;
  if (outcome_now == RowOutcome::Hit) {
    column = std::max(column, b.act + t_.RCD);
  } else {
    Cycle act_floor = request.ready;
    if (outcome_now == RowOutcome::Conflict) {
      pre = row_bus().free_from(std::max(request.ready, precharge_ready(b)));
      act_floor = pre + t_.RP;
    }
    // faw[faw_next] is the fourth-latest ACT: a fifth must wait tFAW after it.
    act = row_bus().free_from(std::max(act_floor, activate_ready(rank, b, g)));
    column = act + t_.RCD;
  }
  column = commands_.free_from(column_slot(request, column));
  out.outcome = outcome_now;
  out.pre = pre;
  out.act = act;
  out.column = column;
  out.data_end = column + (request.write ? t_.CWL : t_.CL) + t_.burst;
}

inline Cycle JedecChannel::column_slot_at(uint32_t rank_index, uint32_t g, bool write,
                                          Cycle command_ready) const {
  const Rank& rank = ranks_[rank_index];
  Cycle column =
      std::max({command_ready, last_column_ + t_.CCD_S, rank.column_in_group[g] + t_.CCD_L});
  const Cycle latency = write ? t_.CWL : t_.CL;
  if (write) {
    column = std::max(column, last_read_end_ + kBusTurnaround - latency);
  } else {
    column = std::max({column, rank.write_end + t_.WTR_S, rank.write_end_in_group[g] + t_.WTR_L});
  }
  return std::max(column, bus_free_ - latency);
}

}  // namespace s2::sim::dram
