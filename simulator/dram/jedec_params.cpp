#include "simulator/dram/jedec_params.h"

#include <fmt/format.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "isa/target/param_fields.h"
#include "isa/target/param_reader.h"

namespace s2::sim::dram {
namespace {

using target::ByteSize;
using target::DramDesc;
using target::DramTiming;
using target::field;
using target::format_bytes;
using target::is_power_of_two;
using target::ParamReader;
using target::positive_field;
using target::power_of_two_field;

constexpr uint64_t kKiB = uint64_t{1} << 10;

std::string str(uint64_t value) {
  return std::to_string(value);
}

// "1 rank", "2 ranks".
std::string count(uint64_t n, const std::string& noun) {
  return str(n) + " " + noun + (n == 1 ? "" : "s");
}

constexpr uint32_t kMaxTimingCycles = 10000000;

// One dram mapping as read, with the readers needed to blame a key in it later.
struct DramSource {
  DramDesc desc;
  ParamReader reader;
  ParamReader timing;
};

// `power`: the device width and a mapping of datasheet currents per supply rail. The currents
// of each state must not be below the standby current they are measured against, or an
// activate, burst or refresh would cost negative energy (a typo in a datasheet transcription).
target::DramPowerDesc read_power(ParamReader power) {
  target::DramPowerDesc p;
  p.device_width_bits = power_of_two_field(power, "device_width_bits", nullptr, 1, 1024);
  const std::optional<target::ParamValue> rails = power.value("rails");
  if (!rails) power.fail("rails", "missing required key");  // ends the dram section
  for (const target::ParamValue& item : rails->items()) {
    ParamReader r = power.mapping(item);
    target::DramRail rail;
    rail.vdd = positive_field(r, "vdd", nullptr, 100.0);
    const std::pair<const char*, double target::DramRail::*> currents[] = {
        {"idd0", &target::DramRail::idd0},   {"idd2n", &target::DramRail::idd2n},
        {"idd3n", &target::DramRail::idd3n}, {"idd4r", &target::DramRail::idd4r},
        {"idd4w", &target::DramRail::idd4w}, {"idd5b", &target::DramRail::idd5b}};
    for (const auto& [key, member] : currents)
      rail.*member = r.required<double>(key, 0.0, 1e6);
    if (rail.idd3n < rail.idd2n)
      r.relation_problem("idd3n",
                         fmt::format("active standby {} mA is below precharge standby idd2n {} mA",
                                     rail.idd3n, rail.idd2n));
    for (const auto& [key, member] : {currents[3], currents[4], currents[5]})
      if (rail.*member < rail.idd3n)
        r.relation_problem(key, fmt::format("{} mA is below active standby idd3n {} mA",
                                            rail.*member, rail.idd3n));
    p.rails.push_back(rail);
  }
  if (p.rails.empty()) rails->fail("lists no supply rail");
  // The interface's energy per bit, when the preset has a figure for it.
  if (std::optional<ParamReader> io = power.optional_child("io")) {
    target::DramIoDesc d;
    d.read_pj_per_bit = io->required<double>("read_pj_per_bit", 0.0, 1e6);
    d.write_pj_per_bit = io->required<double>("write_pj_per_bit", 0.0, 1e6);
    p.io = d;
  }
  return p;
}

// Reads a dram mapping (a preset file's top level, or the config's `dram:`). With `base`, every
// key is an override of base's value. capacity_bytes stays 0 when not given: its default
// depends on the final organisation.
DramSource read_dram(ParamReader reader, const DramDesc* base) {
  DramDesc d;
  const auto from = [base](auto member) { return base != nullptr ? &(base->*member) : nullptr; };
  d.channels = field<uint32_t>(reader, "channels", from(&DramDesc::channels), 1, 64);
  d.ranks = field<uint32_t>(reader, "ranks", from(&DramDesc::ranks), 1, 16);
  if (std::optional<ByteSize> capacity =
          reader.optional<ByteSize>("capacity", ByteSize{1}, ByteSize{uint64_t{1} << 60})) {
    d.capacity_bytes = capacity->bytes;
  } else if (base != nullptr) {
    d.capacity_bytes = base->capacity_bytes;
  }
  d.clock_mhz = positive_field(reader, "clock_mhz", from(&DramDesc::clock_mhz), 20000.0);
  d.data_rate = field<uint32_t>(reader, "data_rate", from(&DramDesc::data_rate), 1, 8);
  d.bus_width_bits =
      power_of_two_field(reader, "bus_width_bits", from(&DramDesc::bus_width_bits), 8, 1024);
  d.burst_length = power_of_two_field(reader, "burst_length", from(&DramDesc::burst_length), 1, 64);
  d.bank_groups = power_of_two_field(reader, "bank_groups", from(&DramDesc::bank_groups), 1, 16);
  d.banks_per_group =
      power_of_two_field(reader, "banks_per_group", from(&DramDesc::banks_per_group), 1, 64);
  const ByteSize base_row{base != nullptr ? base->row_size_bytes : 0};
  d.row_size_bytes = field<ByteSize>(reader, "row_size", base != nullptr ? &base_row : nullptr,
                                     ByteSize{64}, ByteSize{64 * kKiB})
                         .bytes;
  if (!is_power_of_two(d.row_size_bytes))
    reader.problem("row_size", "must be a power of two, got " + str(d.row_size_bytes) + " bytes");
  d.rows_per_bank =
      field<uint32_t>(reader, "rows_per_bank", from(&DramDesc::rows_per_bank), 1, 1u << 24);
  d.command_buses = reader.get<uint32_t>(
      "command_buses", base != nullptr ? base->command_buses : d.command_buses, 1, 2);

  ParamReader timing = base != nullptr ? reader.child_or_empty("timing") : reader.child("timing");
  for (const target::DramTimingField& f : target::kDramTimingFields) {
    const uint32_t* fallback = base != nullptr ? &(base->timing.*f.member) : nullptr;
    d.timing.*f.member = field<uint32_t>(timing, f.key, fallback, 1, kMaxTimingCycles);
  }
  // A config's power mapping replaces the preset's whole (a device's currents go together).
  if (std::optional<ParamReader> power = reader.optional_child("power"))
    d.power = read_power(*power);
  else if (base != nullptr)
    d.power = base->power;
  return DramSource{d, reader, timing};
}

// Where the final DRAM values came from: the config's dram mapping and, with a preset, the
// preset file. A broken relation is blamed on a key the config sets when there is one (its
// override broke the relation), otherwise on the first key in the file that defined them all.
struct DramOrigin {
  DramSource config;
  std::optional<DramSource> preset;

  // `keys` are relative to the dram mapping ("burst_length", "timing.tRC"), the first being
  // the one the message is about. Throws when the reader does not collect problems.
  void problem(std::initializer_list<std::string> keys, const std::string& problem) const {
    for (const std::string& key : keys) {
      const auto [reader, local_key] = locate(config, key);
      if (reader.has(local_key)) return reader.problem(local_key, problem);
    }
    const auto [reader, local_key] = locate(preset ? *preset : config, *keys.begin());
    reader.problem(local_key, problem);
  }

 private:
  static std::pair<ParamReader, std::string> locate(const DramSource& source,
                                                    const std::string& key) {
    const std::string timing = "timing.";
    if (key.compare(0, timing.size(), timing) == 0) {
      return {source.timing, key.substr(timing.size())};
    }
    return {source.reader, key};
  }
};

// Relations that hold for every JEDEC device and speed bin, so that a violation is a typo
// rather than an exotic part. They are checked in cycles; where JEDEC states an equality of
// ns values (tRC = tRAS + tRP) one cycle of slack allows for rounding each term up on its own.
// Not checked, because rounding or real parts break them: tFAW >= 4 x tRRD_S (LPDDR4-4266:
// tFAW 40 ns = 86 nCK < 4 x 22 nCK) and tCL >= tCWL.
void check_dram(const DramDesc& d, const DramOrigin& origin) {
  const DramTiming& t = d.timing;
  // Opening a row must complete before it may be closed: tRAS(min) > tRCD(min).
  if (t.tRAS < t.tRCD) {
    origin.problem({"timing.tRAS", "timing.tRCD"},
                   "tRAS (" + str(t.tRAS) + ") must be at least tRCD (" + str(t.tRCD) +
                       "): a row cannot be closed before it can be accessed");
  }
  // The row cycle is activate-to-precharge plus precharge: tRC = tRAS + tRP.
  if (uint64_t{t.tRC} + 1 < uint64_t{t.tRAS} + t.tRP) {
    origin.problem({"timing.tRC", "timing.tRAS", "timing.tRP"},
                   "tRC (" + str(t.tRC) + ") must be at least tRAS + tRP = " + str(t.tRAS) + " + " +
                       str(t.tRP) + " (JEDEC: tRC = tRAS + tRP; 1 cycle of rounding is allowed)");
  }
  // Within one bank group commands are never allowed closer together than across groups.
  struct LongShort {
    const char* long_key;
    uint32_t long_value;
    const char* short_key;
    uint32_t short_value;
  };
  for (const LongShort& pair : {LongShort{"tCCD_L", t.tCCD_L, "tCCD_S", t.tCCD_S},
                                LongShort{"tRRD_L", t.tRRD_L, "tRRD_S", t.tRRD_S},
                                LongShort{"tWTR_L", t.tWTR_L, "tWTR_S", t.tWTR_S}}) {
    if (pair.long_value < pair.short_value) {
      origin.problem(
          {std::string("timing.") + pair.long_key, std::string("timing.") + pair.short_key},
          std::string(pair.long_key) + " (" + str(pair.long_value) + ") must be at least " +
              pair.short_key + " (" + str(pair.short_value) +
              "): the same bank group is never faster than another one");
    }
  }
  // A burst occupies whole clock cycles on the data bus ...
  if (d.burst_length % d.data_rate != 0) {
    origin.problem({"burst_length", "data_rate"},
                   "burst_length (" + str(d.burst_length) + ") must be a multiple of data_rate (" +
                       str(d.data_rate) + "): a burst occupies whole clock cycles");
  }
  // ... and two bursts cannot overlap there.
  const uint32_t burst_cycles = d.burst_length / d.data_rate;
  if (t.tCCD_S < burst_cycles) {
    origin.problem({"timing.tCCD_S", "burst_length", "data_rate"},
                   "tCCD_S (" + str(t.tCCD_S) + ") must be at least burst_length / data_rate = " +
                       str(burst_cycles) + ", the cycles one burst occupies the data bus");
  }
  // A refresh performs at least one row cycle, and must leave time between refreshes.
  if (t.tRFC < t.tRC) {
    origin.problem({"timing.tRFC", "timing.tRC"},
                   "tRFC (" + str(t.tRFC) + ") must be at least tRC (" + str(t.tRC) +
                       "): a refresh includes at least one row cycle");
  }
  if (t.tREFI <= t.tRFC) {
    origin.problem({"timing.tREFI", "timing.tRFC"},
                   "tREFI (" + str(t.tREFI) + ") must be greater than tRFC (" + str(t.tRFC) +
                       "), or the device would do nothing but refresh");
  }
  // A burst never straddles two rows.
  if (d.row_size_bytes % d.burst_bytes() != 0) {
    origin.problem({"row_size", "burst_length", "bus_width_bits"},
                   "row_size (" + str(d.row_size_bytes) +
                       " bytes) must be a multiple of the burst size, bus_width_bits / 8 x "
                       "burst_length = " +
                       str(d.burst_bytes()) + " bytes");
  }
  // A rank is a whole number of devices.
  if (d.power && (d.power->device_width_bits > d.bus_width_bits ||
                  d.bus_width_bits % d.power->device_width_bits != 0)) {
    origin.problem({"power", "bus_width_bits"},
                   "power.device_width_bits (" + str(d.power->device_width_bits) +
                       ") must divide bus_width_bits (" + str(d.bus_width_bits) +
                       "): a rank is a whole number of devices");
  }
  // Every address must map to a channel, rank, bank, row and column.
  if (d.capacity_bytes > d.addressable_bytes()) {
    origin.problem({"capacity", "channels", "ranks", "bank_groups", "banks_per_group",
                    "rows_per_bank", "row_size"},
                   "capacity " + format_bytes(d.capacity_bytes) +
                       " exceeds what the organisation addresses: " + count(d.channels, "channel") +
                       " x " + count(d.ranks, "rank") + " x " + count(d.banks_per_rank(), "bank") +
                       " x " + count(d.rows_per_bank, "row") + " x " +
                       format_bytes(d.row_size_bytes) + " = " +
                       format_bytes(d.addressable_bytes()));
  }
}

}  // namespace

void read_jedec_section(target::DramSection& section, DramDesc& desc) {
  const std::size_t problems_before = section.config.problem_count();
  std::optional<DramSource> from_preset;
  if (section.preset) from_preset = read_dram(*section.preset, nullptr);
  DramSource merged = read_dram(section.config, from_preset ? &from_preset->desc : nullptr);
  // Unknown keys first: a misspelt override would otherwise surface as a broken relation.
  section.finish_reading();
  DramDesc& d = merged.desc;
  if (d.capacity_bytes == 0) d.capacity_bytes = d.addressable_bytes();
  // Relations between placeholders of bad values would be problems of their own making.
  if (section.config.problem_count() == problems_before)
    check_dram(d, DramOrigin{merged, from_preset});
  desc = d;
}

}  // namespace s2::sim::dram
