#pragma once
// The JEDEC backends' part of a config's dram mapping (docs/target.md, `dram`): the
// organisation (channels, ranks, capacity, clock, bus, bursts, bank groups, banks, rows) and the
// 17 timings, read through the typed reader with a preset's values overridden by the config's,
// and the relations every JEDEC device and speed bin satisfies (tRC >= tRAS + tRP, tCCD_L >=
// tCCD_S, ...), so that a violation is a typo rather than an exotic part. Every backend of the
// JedecModel (ddr4, hbm2, jedec, lpddr4) reads its section with this.

#include "isa/target/dram_section.h"
#include "isa/target/target_desc.h"

namespace s2::sim::dram {

// A target::DramSectionParser: fills every field of `desc` but preset, backend and
// controller. A broken relation is reported at a key the config sets when there is one (its
// override broke the relation), otherwise at the key in the file that gave them all.
void read_jedec_section(target::DramSection& section, target::DramDesc& desc);

}  // namespace s2::sim::dram
