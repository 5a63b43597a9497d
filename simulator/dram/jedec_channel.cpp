#include "simulator/dram/jedec_channel.h"

#include <algorithm>

#include "isa/common/errors.h"

namespace s2::sim::dram {

namespace {

// log2 of a power of two (a count the constructor checks is one), 0 for anything below 2.
uint32_t log2_exact(uint32_t n) {
  uint32_t shift = 0;
  while ((uint32_t{1} << shift) < n)
    ++shift;
  return shift;
}

}  // namespace

JedecTimings JedecTimings::from(const target::DramDesc& desc) {
  const target::DramTiming& t = desc.timing;
  JedecTimings j{};
  j.RCD = t.tRCD;
  j.CL = t.tCL;
  j.CWL = t.tCWL;
  j.RP = t.tRP;
  j.RAS = t.tRAS;
  j.RC = t.tRC;
  j.CCD_S = t.tCCD_S;
  j.CCD_L = t.tCCD_L;
  j.RRD_S = t.tRRD_S;
  j.RRD_L = t.tRRD_L;
  j.FAW = t.tFAW;
  j.WR = t.tWR;
  j.WTR_S = t.tWTR_S;
  j.WTR_L = t.tWTR_L;
  j.RTP = t.tRTP;
  j.REFI = t.tREFI;
  j.RFC = t.tRFC;
  j.burst = desc.data_rate == 0 ? 0 : desc.burst_length / desc.data_rate;
  S2_CHECK(j.burst > 0 && j.REFI > j.RFC,
           "JedecTimings: burst shorter than a cycle or tREFI <= tRFC (the loader rejects "
           "both)");
  return j;
}

JedecChannel::JedecChannel(const target::DramDesc& desc, const JedecTimings& timings)
    : t_(timings),
      indexer_{log2_exact(desc.banks_per_group), log2_exact(desc.banks_per_rank()),
               desc.bank_groups - 1},
      banks_per_rank_(desc.banks_per_rank()),
      split_buses_(desc.command_buses == 2) {
  S2_CHECK(desc.ranks >= 1 && desc.ranks <= 16,
           "JedecChannel: ranks outside 1..16 (the loader rejects them; the scheduler numbers "
           "ranks in a 16-bit mask)");
  S2_CHECK(desc.bank_groups >= 1 && desc.bank_groups <= kMaxBankGroups &&
               (desc.bank_groups & (desc.bank_groups - 1)) == 0 &&
               (desc.banks_per_group & (desc.banks_per_group - 1)) == 0,
           "JedecChannel: bank groups or banks per group not a power of two, or more than " +
               std::to_string(kMaxBankGroups) + " bank groups (the loader rejects them)");
  banks_.resize(static_cast<std::size_t>(desc.ranks) * banks_per_rank_);
  ranks_.resize(desc.ranks);
  for (uint32_t r = 0; r < desc.ranks; ++r) {
    Rank& rank = ranks_[r];
    rank.act_in_group.fill(kNever);
    rank.column_in_group.fill(kNever);
    rank.write_end_in_group.fill(kNever);
    // Staggered so that ranks never refresh together and block the whole channel.
    rank.refresh_due = t_.REFI * (r + 1) / desc.ranks;
  }
}

void JedecChannel::refresh(uint32_t rank_index, Cycle until, DramStats& stats) {
  Rank& rank = ranks_[rank_index];
  Bank* const first = banks_.data() + static_cast<std::size_t>(rank_index) * banks_per_rank_;
  while (rank.refresh_due <= until) {
    // Precharge-all: every open bank closes as soon as its own windows allow; REF follows tRP
    // after the last of them (and after any earlier PRE's tRP).
    Cycle start = std::max(rank.refresh_due, rank.refresh_end);
    for (uint32_t i = 0; i < banks_per_rank_; ++i) {
      Bank& b = first[i];
      if (b.open) {
        b.pre = std::max(rank.refresh_due, precharge_ready(b));
        b.open = false;
        ++stats.precharges;
      }
      start = std::max(start, b.pre + t_.RP);
    }
    rank.refresh_end = start + t_.RFC;
    rank.refresh_due += t_.REFI;
    ++stats.refreshes;
    // Idle stretch: every later refresh up to `until` starts exactly when due (banks closed,
    // the previous refresh over since tRFC < tREFI), so count them in closed form.
    if (rank.refresh_due <= until && rank.refresh_end <= rank.refresh_due) {
      const Cycle more = (until - rank.refresh_due) / t_.REFI + 1;
      rank.refresh_end = rank.refresh_due + (more - 1) * t_.REFI + t_.RFC;
      rank.refresh_due += more * t_.REFI;
      stats.refreshes += static_cast<uint64_t>(more);
    }
  }
}

void JedecChannel::issue_commands(const BurstRequest& request, CommandPlan& p, DramStats& stats) {
  Rank& rank = ranks_[request.rank];
  // A refresh takes priority once due; it may close this request's row, so plan again.
  while (p.first() >= rank.refresh_due) {
    refresh(request.rank, p.first(), stats);
    plan_into(request, p);
  }

  Bank& b = bank(request);
  const uint32_t g = request.bank_group;
  if (p.outcome == RowOutcome::Conflict) row_bus().take(p.pre);
  if (p.outcome != RowOutcome::Hit) row_bus().take(p.act);
  switch (p.outcome) {
    case RowOutcome::Hit:
      ++stats.row_hits;
      break;
    case RowOutcome::Conflict:
      ++stats.row_conflicts;
      ++stats.precharges;
      b.pre = p.pre;
      break;
    case RowOutcome::Miss:
      ++stats.row_misses;
      break;
  }
  if (p.outcome != RowOutcome::Hit) {
    ++stats.activates;
    b.open = true;
    b.row = request.row;
    b.act = p.act;
    rank.act = p.act;
    rank.act_in_group[g] = p.act;
    rank.faw[rank.faw_next] = p.act;
    rank.faw_next = (rank.faw_next + 1) % 4;
  }
  commit_column(request, p, stats);
}

}  // namespace s2::sim::dram
