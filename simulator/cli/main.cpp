// s2sim: the S2Train simulator front end.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <systemc>

#include "isa/common/cli_checks.h"
#include "isa/common/tool_main.h"
#include "s2/version.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/run_command.h"
#include "simulator/rtl/regress.h"
#include "simulator/sweep/sweep_run.h"
#include "simulator/top/rtl_selection.h"

int sc_main(int argc, char** argv) {
  CLI::App app{"s2sim - the S2Train simulator: inspect and run S2Train executables (*.bin)"};
  app.set_version_flag("--version", std::string("s2sim ") + s2::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 bad input (the message names the file and place), 2 internal "
      "error.");

  std::string disasm_path;
  bool all_data = false;
  uint64_t data_limit = 64;
  CLI::App* disasm = app.add_subcommand(
      "disasm", "Print an executable as assembly text that `s2c asm` reads back");
  disasm->add_option("executable", disasm_path, "S2Train executable (.bin)")
      ->required()
      ->check(CLI::ExistingFile);
  disasm->add_flag("--data", all_data, "print the initial data of every tensor");
  disasm
      ->add_option("--data-limit", data_limit,
                   "print initial data of tensors up to this many elements; larger ones as a "
                   "size and CRC (default 64)")
      ->transform(s2::cli::whole());

  std::string info_path;
  CLI::App* info = app.add_subcommand(
      "info", "Print sections, instruction mix, tensor table and memory-plan summary");
  info->add_option("executable", info_path, "S2Train executable (.bin)")
      ->required()
      ->check(CLI::ExistingFile);

  std::string config_path;
  CLI::App* validate = app.add_subcommand(
      "validate-config", "Check an accelerator configuration (YAML) and print what it describes");
  validate->add_option("config", config_path, "target description (.yaml)")
      ->required()
      ->check(CLI::ExistingFile);

  s2::sim::RunCommandOptions run_options;
  CLI::App* run = app.add_subcommand("run",
                                     "Simulate one training step and report cycles, "
                                     "utilization, DRAM traffic and memory");
  run->add_option("executable", run_options.executable, "S2Train executable (.bin)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("--config", run_options.config,
                  "target description (.yaml; default: the shipped s2train_base.yaml)")
      ->check(CLI::ExistingFile);
  run->add_option("--report", run_options.report, "write the JSON report here");
  run->add_flag("--force", run_options.force,
                "replace existing output files of another kind (--report, --trace, "
                "--memory-trace, the dumps); the executable and config are never overwritten");
  run->add_option("--trace", run_options.trace, "write a Chrome/Perfetto trace here");
  run->add_option("--memory-trace", run_options.memory_trace,
                  "write live DRAM bytes over time (CSV) here");
  run->add_flag("--layers", run_options.layers, "print the per-layer table");
  run->add_flag("--functional", run_options.functional,
                "compute real numbers on a DRAM image initialised from the executable; prints "
                "the loss");
  run->add_option("--steps", run_options.steps,
                  "training steps on the same executable, weights carried over (implies "
                  "--functional)")
      ->transform(s2::cli::positive_whole());
  run->add_option("--dump", run_options.dump,
                  "tensors to write as NAME.npy, comma-separated (implies --functional)")
      ->check(s2::cli::name_list());
  run->add_option("--dump-dir", run_options.dump_dir, "directory for --dump (default .)");
  run->add_option("--dump-all", run_options.dump_all,
                  "write every tensor as .npy into this directory (implies --functional)");
  run->add_flag("--check", run_options.check,
                "prove the memory plan and dependencies with the shadow-memory checker; exit 1 "
                "on any finding");
  run->add_option("--window", run_options.window,
                  "controller decode window in instructions; 1 runs sequentially (default 64)")
      ->transform(s2::cli::positive_whole());
  run->add_option("--threads", run_options.threads,
                  "threads that serve the DRAM channels of each transfer (default: one per core; "
                  "the results are the same for every count)")
      ->transform(s2::cli::positive_whole());
  run->add_option("--rtl", run_options.rtl,
                  "RTL units that replace the models, comma-separated, of: " +
                      s2::sim::top::rtl_unit_registry().known() +
                      " (SystemC Verilator builds; implies --functional). They clock the units' "
                      "tiles in the "
                      "timing simulation and compute the functional replay; every tile and pass is "
                      "also run on the model and compared, cycles and bits; exit 1 on a divergence")
      ->check(s2::cli::name_list());
  run->add_option("--vcd", run_options.vcd,
                  "with --rtl: dump the RTL units' waveforms during the functional replay to "
                  "PREFIX.pe_array.vcd and PREFIX.ppu.vcd");
  run->add_flag("--rtl-clock-every-tile", run_options.rtl_every_tile,
                "with --rtl: clock every tile of the timing simulation on the RTL; by default a "
                "tile identical to one already clocked (same passes, mode and stages; the "
                "operands carry no data) takes that tile's RTL cycles. The cycles are the same");

  s2::sim::sweep::SweepOptions sweep_options;
  std::string sweep_shard, sweep_collect;
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "Design-space exploration: run every point of a sweep spec (configurations x workloads) "
      "in parallel and write results.csv, results.jsonl and pareto.csv into DIR; an "
      "interrupted sweep rerun with the same spec continues (docs/sweep.md)");
  sweep->add_option("spec", sweep_options.spec, "sweep spec (.yaml; configs/sweeps/ has examples)")
      ->check(CLI::ExistingFile);
  sweep->add_option("-o,--output", sweep_options.dir,
                    "directory of the results: new, empty, or this spec's earlier run");
  sweep
      ->add_option("-j,--jobs", sweep_options.jobs,
                   "simulations (and compiles) at once (default: one per core; with --slurm, "
                   "the CPUs of each task, default 1)")
      ->transform(s2::cli::positive_whole());
  sweep
      ->add_option("--s2c", sweep_options.s2c,
                   "the compiler for the spec's models (default: s2c beside s2sim)")
      ->check(CLI::ExistingFile);
  sweep->add_option("--shard", sweep_shard,
                    "I/N: run only the rows whose number modulo N is I, into DIR/shards/I/ "
                    "(a Slurm array task does this; --collect merges the shards)");
  sweep->add_flag("--slurm", sweep_options.slurm,
                  "compile every workload here, write DIR/sweep.sbatch (a job array of --tasks "
                  "tasks, task i running --shard i/N) and submit it with sbatch");
  sweep->add_option("--tasks", sweep_options.shards, "with --slurm: array tasks (default 4)")
      ->transform(s2::cli::positive_whole());
  sweep->add_option("--partition", sweep_options.partition,
                    "with --slurm: the partition (default: the cluster's)");
  sweep->add_flag("--wait", sweep_options.wait,
                  "with --slurm: wait for the job array to finish (sbatch --wait), then collect");
  sweep->add_option("--collect", sweep_collect,
                    "merge the shards' rows in DIR into results.jsonl, results.csv and "
                    "pareto.csv (no spec is given)");

  s2::sim::rtl::RegressOptions regress_options;
  std::string regress_unit = "all";
  std::string regress_rounding = "nearest";
  uint64_t regress_tile = 0;
  CLI::App* regress = app.add_subcommand(
      "regress",
      "Co-design regression: random and directed tiles through the RTL (plain C++ Verilator "
      "builds of the PE array at 32x32, 16x16, 8x4 multiplying f32, bf16 and f16, and the PPU "
      "at 32 and 16 lanes) and the "
      "simulator's models; cycles and bits must agree exactly");
  regress->add_option("--seed", regress_options.seed, "seed of the tiles (default 1)")
      ->transform(s2::cli::whole());
  regress->add_option("--count", regress_options.count, "tiles per unit (default 1000)")
      ->transform(s2::cli::positive_whole());
  std::vector<std::string> regress_units = s2::sim::top::rtl_unit_registry().names();
  regress_units.push_back("all");
  regress->add_option("--unit", regress_unit, "the RTL unit to regress, or all (default all)")
      ->check(CLI::IsMember(regress_units));
  CLI::Option* tile_option =
      regress->add_option("--tile", regress_tile, "run only this tile (to reproduce a mismatch)")
          ->transform(s2::cli::whole());
  regress
      ->add_option("--model-rounding", regress_rounding,
                   "rounding of the model: nearest (correct), or toward-zero to prove the "
                   "regression catches a wrong model (it must then fail)")
      ->check(CLI::IsMember({"nearest", "toward-zero"}));

  try {
    s2::cli::refuse_empty_values(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? s2::kExitOk : s2::kExitUserError;
  }
  return s2::run_tool("s2sim", [&] {
    if (*disasm) std::cout << s2::sim::run_disasm(disasm_path, all_data ? 0 : data_limit);
    if (*info) std::cout << s2::sim::run_info(info_path);
    if (*validate) std::cout << s2::sim::run_validate_config(config_path);
    if (*run) return s2::sim::run_simulation(run_options, std::cout);
    if (*sweep) {
      if (!sweep_collect.empty()) {
        if (!sweep_options.spec.empty() || !sweep_options.dir.empty())
          throw s2::UserError("--collect DIR takes no spec and no -o: it merges DIR's shards");
        s2::sim::sweep::collect_sweep(sweep_collect, std::cout);
        return s2::kExitOk;
      }
      if (sweep_options.spec.empty() || sweep_options.dir.empty())
        throw s2::UserError("sweep: give a spec and -o DIR (or --collect DIR)");
      if (!sweep_shard.empty()) {
        if (sweep_options.slurm) throw s2::UserError("--shard and --slurm exclude each other");
        const size_t slash = sweep_shard.find('/');
        uint32_t index = 0, count = 0;
        const char* text = sweep_shard.c_str();
        if (slash == std::string::npos || std::sscanf(text, "%u/%u", &index, &count) != 2 ||
            count == 0 || index >= count ||
            sweep_shard.find_first_not_of("0123456789/") != std::string::npos)
          throw s2::UserError("--shard " + sweep_shard +
                              ": expected I/N with 0 <= I < N, such as 0/4");
        sweep_options.shard = index;
        sweep_options.shards = count;
      } else if (sweep_options.slurm) {
        if (sweep_options.shards == 0) sweep_options.shards = 4;
      } else if (sweep_options.shards != 0 || !sweep_options.partition.empty() ||
                 sweep_options.wait) {
        throw s2::UserError("--tasks, --partition and --wait apply to --slurm");
      }
      sweep_options.progress = isatty(STDERR_FILENO) != 0 && sweep_options.shards == 0;
      s2::sim::sweep::run_sweep(sweep_options, std::cout);
    }
    if (*regress) {
      regress_options.pe_array = regress_unit != "ppu";
      regress_options.ppu = regress_unit != "pe_array";
      if (*tile_option) regress_options.tile = regress_tile;
      regress_options.model_round_toward_zero = regress_rounding == "toward-zero";
      return s2::sim::rtl::run_regress(regress_options, std::cout).passed() ? s2::kExitOk
                                                                            : s2::kExitUserError;
    }
    return s2::kExitOk;
  });
}

// SystemC's entry point wraps sc_main; the banner must be off before SystemC starts.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
