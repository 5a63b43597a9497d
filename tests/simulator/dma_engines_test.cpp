// DMA engine probes (simulator/top/dma_engines.h), one per key of the target's `dma` section,
// each number written from DDR4-3200's datasheet timings (tCK 0.625 ns, tRCD 22, tCL 22,
// BL8 = 4 clocks: a read to an open row returns after tCL + 4 = 26 clocks = 16.25 ns) and a
// 1 GHz accelerator clock.
#include "simulator/top/dma_engines.h"

#include <gtest/gtest.h>

#include "dram_test_util.h"
#include "simulator/top/host_link.h"

namespace s2::sim::top {
namespace {

using dram::Access;
using dram::AccessKind;

constexpr dram::Picoseconds kHitLatencyPs = 26 * 625;  // tCL + burst

target::DmaDesc dma(uint32_t engines, uint32_t width, uint32_t max_outstanding) {
  return target::DmaDesc{engines, width, max_outstanding};
}

std::unique_ptr<dram::DramModel> ddr4() {
  return dram::make_dram_model(dram::load_preset("DDR4-3200"));
}

// A read of `bursts` consecutive 64-byte bursts starting at `address`.
std::vector<Access> read(uint64_t address, uint64_t bursts) {
  return {Access{address, bursts * 64, AccessKind::Read}};
}

// What the DRAM alone takes for `group` arriving at 0 on an idle device.
dram::Picoseconds dram_alone(const std::vector<Access>& group) {
  return ddr4()->serve(group, 0).done_ps;
}

TEST(DmaEngines, TheRowHitLatencyIsTheDatasheets) {
  EXPECT_EQ(ddr4()->read_hit_latency_ps(), kHitLatencyPs);
  // The first read of an idle device opens its row first: tRCD more.
  EXPECT_EQ(dram_alone(read(0, 1)), kHitLatencyPs + 22 * 625);
}

TEST(DmaEngines, MaxOutstandingBoundsBurstsPerRoundTrip) {
  const std::vector<Access> group = read(0, 16);
  // One burst in flight: 16 round trips of 16.25 ns, whatever the device could do.
  auto model = ddr4();
  DmaEngines one(dma(1, 4096, 1), 1000);
  EXPECT_EQ(one.transfer(group, 0, *model).done_ps, 16 * kHitLatencyPs);
  // Two in flight: 8 round trips.
  model = ddr4();
  DmaEngines two(dma(1, 4096, 2), 1000);
  EXPECT_EQ(two.transfer(group, 0, *model).done_ps, 8 * kHitLatencyPs);
  // Enough in flight: the DRAM's own time, longer than one round trip.
  model = ddr4();
  DmaEngines many(dma(1, 4096, 16), 1000);
  EXPECT_GT(dram_alone(group), kHitLatencyPs);
  EXPECT_EQ(many.transfer(group, 0, *model).done_ps, dram_alone(group));
}

TEST(DmaEngines, WidthBoundsBytesPerCycle) {
  const std::vector<Access> group = read(0, 16);  // 1 KiB
  auto model = ddr4();
  DmaEngines narrow(dma(1, 1, 1024), 1000);  // 1 B per 1 ns cycle: 1024 cycles
  EXPECT_EQ(narrow.transfer(group, 0, *model).done_ps, 1024u * 1000u);
  model = ddr4();
  DmaEngines wide(dma(1, 64, 1024), 1000);  // 16 cycles: the DRAM is slower
  EXPECT_EQ(wide.transfer(group, 0, *model).done_ps, dram_alone(group));
}

TEST(DmaEngines, ATransferWaitsForAFreeEngine) {
  const std::vector<Access> a = read(0, 8), b = read(1 << 20, 8);
  auto model = ddr4();
  DmaEngines one(dma(1, 4096, 1024), 1000);
  const DmaTransfer first = one.transfer(a, 0, *model);
  const DmaTransfer second = one.transfer(b, 0, *model);
  EXPECT_EQ(first.start_ps, 0u);
  EXPECT_EQ(second.start_ps, first.done_ps);  // the one engine was busy until then
  EXPECT_EQ(one.wait_ps(), first.done_ps);

  model = ddr4();
  DmaEngines two(dma(2, 4096, 1024), 1000);
  const DmaTransfer x = two.transfer(a, 0, *model);
  const DmaTransfer y = two.transfer(b, 0, *model);
  EXPECT_EQ(x.engine, 0u);
  EXPECT_EQ(y.engine, 1u);
  EXPECT_EQ(y.start_ps, 0u);  // a second engine: both start at once
  EXPECT_EQ(two.wait_ps(), 0u);
  EXPECT_LT(y.done_ps, second.done_ps);
}

// Two transfers begun together (on engines of their own) and finished afterwards share the DRAM
// controller's queues: the second, to an idle bank, is not held behind the first, to a bank still
// busy with its last row. Finished one at a time (transfer()), the second waits for the first's
// bursts.
TEST(DmaEngines, TransfersOpenTogetherShareTheDramQueues) {
  dram::DramProbe p("DDR4-3200");
  DmaEngines two(dma(3, 4096, 1024), 1000);
  two.transfer({p.at(0, 0, 1, 0)}, 0, *p.model);  // row 1 of bank (0, 0) opens at 0
  const DmaEngines::Ticket busy = two.begin({p.at(0, 0, 2, 0)}, 1000, *p.model);
  const DmaEngines::Ticket idle = two.begin({p.at(1, 1, 3, 0)}, 2000, *p.model);
  const DmaTransfer b = two.finish(busy, *p.model);
  const DmaTransfer i = two.finish(idle, *p.model);
  EXPECT_EQ(i.start_ps, 2000u);
  EXPECT_LT(i.done_ps, b.done_ps);
  // tRAS, tRP, tRCD, tCL and the burst for the busy bank: (52 + 22 + 22 + 22 + 4) x 0.625 ns.
  EXPECT_EQ(b.done_ps, 122u * 625u);

  dram::DramProbe q("DDR4-3200");
  DmaEngines serial(dma(3, 4096, 1024), 1000);
  serial.transfer({q.at(0, 0, 1, 0)}, 0, *q.model);
  serial.transfer({q.at(0, 0, 2, 0)}, 1000, *q.model);
  EXPECT_GT(serial.transfer({q.at(1, 1, 3, 0)}, 2000, *q.model).done_ps, b.done_ps);
}

// With one engine, a transfer begun while another is open waits for it: the open one is
// finished first to learn when the engine frees.
TEST(DmaEngines, ATransferFindingEveryEngineOpenWaitsForTheirEnds) {
  const std::vector<Access> a = read(0, 8), b = read(1 << 20, 8);
  auto model = ddr4();
  DmaEngines one(dma(1, 4096, 1024), 1000);
  const DmaEngines::Ticket first = one.begin(a, 0, *model);
  const DmaEngines::Ticket second = one.begin(b, 0, *model);
  const DmaTransfer y = one.finish(second, *model);
  const DmaTransfer x = one.finish(first, *model);
  EXPECT_EQ(x.start_ps, 0u);
  EXPECT_EQ(y.start_ps, x.done_ps);
  EXPECT_EQ(x.done_ps, dram_alone(a));
}

// ---- the host link (host_link.h) -----------------------------------------------------------

// 26 GB/s each way and 800 ns: the PCIe 4.0 x16 preset's figures. 26000 bytes take 1 us.
target::HostLinkDesc pcie4() {
  target::HostLinkDesc link;
  link.bandwidth_gb_s = 26;
  link.latency_ns = 800;
  link.memory_bytes = uint64_t{1} << 30;
  return link;
}

TEST(HostLink, ATransferTakesItsBytesAtTheBandwidthPlusTheLatency) {
  HostLink link(pcie4());
  EXPECT_EQ(link.transfer(26000, true, 0), 1000000u + 800000u);
  EXPECT_EQ(link.bytes(true), 26000u);
  EXPECT_EQ(link.busy_ps(true), 1000000u);
  EXPECT_EQ(link.bytes(false), 0u);
}

TEST(HostLink, EachDirectionCarriesOneTransferAtATimeAndTheTwoRunTogether) {
  HostLink link(pcie4());
  // Same direction: the second waits for the first's bytes (not for its latency: the link
  // pipelines), so it ends one transfer time later.
  EXPECT_EQ(link.transfer(26000, false, 0), 1800000u);
  EXPECT_EQ(link.transfer(26000, false, 0), 2800000u);
  // The other direction is free: full duplex.
  EXPECT_EQ(link.transfer(26000, true, 0), 1800000u);
  // A transfer arriving after the direction freed starts on arrival.
  EXPECT_EQ(link.transfer(13000, true, 5000000), 5000000u + 500000u + 800000u);
}

TEST(HostLink, ACopyStreamsThroughOneEngineAtTheSlowerSidesPace) {
  // 1 MiB from DRAM to the host: the link moves it in 40.3 us, the DRAM reads it faster.
  const uint64_t bytes = 1 << 20;
  HostLink link(pcie4());
  auto model = ddr4();
  DmaEngines engines(dma(1, 4096, 1024), 1000);
  const DmaTransfer out = engines.transfer(read(0, bytes / 64), 0, *model, bytes, true, &link);
  const dram::Picoseconds dram_time = dram_alone(read(0, bytes / 64));
  const dram::Picoseconds link_time = (bytes * 1000000 + 25999) / 26000;
  // The link starts when the DRAM's first data is there (a row hit's latency), and the copy
  // ends when the slower side does.
  EXPECT_EQ(out.done_ps, std::max(dram_time, kHitLatencyPs + link_time + 800000));
  EXPECT_GT(out.done_ps, link_time + 800000) << "the link side is the slower one here";
  EXPECT_EQ(link.bytes(true), bytes);

  // From the host into DRAM: the DRAM writes start when the link's first data arrives.
  HostLink back(pcie4());
  model = ddr4();
  DmaEngines engines2(dma(1, 4096, 1024), 1000);
  std::vector<Access> writes = {Access{0, bytes, AccessKind::Write}};
  const DmaTransfer in = engines2.transfer(writes, 0, *model, bytes, false, &back);
  const dram::Picoseconds dram_write = ddr4()->serve(writes, 800000).done_ps;
  EXPECT_EQ(in.done_ps, std::max(dram_write, link_time + 800000));
  EXPECT_EQ(back.bytes(false), bytes);
}

}  // namespace
}  // namespace s2::sim::top
