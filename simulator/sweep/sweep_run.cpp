#include "simulator/sweep/sweep_run.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "isa/common/config_dir.h"
#include "isa/common/errors.h"
#include "isa/common/json.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "isa/target/param_reader.h"
#include "isa/target/target_values.h"
#include "s2/version.h"
#include "simulator/dram/load_target.h"
#include "simulator/run/run_program.h"
#include "simulator/sweep/points.h"
#include "simulator/sweep/results.h"
#include "simulator/sweep/sweep_dir.h"

namespace s2::sim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

// ---- points ------------------------------------------------------------------------------

struct PointState {
  Point point;
  fs::path config;
  std::optional<target::TargetDesc> target;  // nullopt: refused
  std::string refused;                       // the loader's message
  std::string excluded_by;                   // the constraint that rules it out
  std::vector<target::NamedTargetValue> values;
};

std::optional<ExprValue> lookup(const std::vector<target::NamedTargetValue>& values,
                                const std::string& name) {
  for (const auto& v : values)
    if (v.path == name) return std::visit([](const auto& x) { return ExprValue(x); }, v.value);
  return std::nullopt;
}

std::vector<PointState> prepare_points(const SweepSpec& spec, const Layout& l) {
  const YAML::Node base = YAML::Load(read_all(spec.base_config));
  std::vector<PointState> states;
  for (const Point& p : enumerate_points(spec)) {
    PointState s;
    s.point = p;
    s.config = l.configs / fmt::format("point-{}.yaml", p.index);
    const auto settings = point_settings(spec, p);
    std::string comment =
        fmt::format("point {} of sweep {}, on {}", p.index, spec.file, spec.base_config);
    for (const auto& [key, value] : settings)
      comment += "\n  " + key + ": " + value;
    std::error_code ec;
    if (!fs::exists(s.config, ec)) write_text(s.config, configured_text(base, settings, comment));
    try {
      s.target = target::load_target(s.config.string());
      s.values = point_values(*s.target);
      for (const Constraint& c : spec.constraints) {
        bool holds = false;
        try {
          holds = truthy(
              c.expression.evaluate([&](const std::string& n) { return lookup(s.values, n); }), 1);
        } catch (const ExpressionError& e) {
          throw UserError(fmt::format("{}:{}: {}: {} at column {} for point {}", spec.file, c.line,
                                      c.path, e.problem, e.column, p.index));
        }
        if (!holds) {
          s.excluded_by = c.expression.text();
          break;
        }
      }
    } catch (const UserError& e) {
      if (std::string(e.what()).rfind(spec.file + ":", 0) == 0) throw;
      s.target.reset();
      s.refused = e.what();
    }
    states.push_back(std::move(s));
  }
  return states;
}

// ---- compiling ---------------------------------------------------------------------------

std::string find_s2c(const std::string& given) {
  if (!given.empty()) {
    if (::access(given.c_str(), X_OK) != 0)
      throw UserError("--s2c " + given + ": not an executable");
    return given;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& p : {self / "s2c", self / ".." / "compiler" / "s2c"})
    if (!ec && ::access(p.c_str(), X_OK) == 0) return fs::weakly_canonical(p, ec).string();
  throw UserError("cannot find s2c beside s2sim (" + self.string() +
                  ") or in the build tree's compiler/; give --s2c PATH");
}

struct CompileJob {
  size_t workload = 0;
  std::string properties;   // compiler_properties() of its points
  size_t config_point = 0;  // the point whose configuration it compiles with
  fs::path bin, log;
  std::string error;  // empty: compiled
};

// Runs `argv` with stdout and stderr into `log`; returns the child's pid.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw UserError(std::string("cannot start a process: ") + std::strerror(errno));
  if (pid > 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
  }
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  return last;
}

// What a failed s2c's log says went wrong: its last line, except CLI11's closing advice after
// a flag's error ("Run with --help ..."), which names nothing.
std::string failure_line(const std::string& log) {
  std::istringstream lines(log);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line.rfind("Run with --help", 0) != 0) last = line;
  return last;
}

void run_compiles(std::vector<CompileJob>& jobs, const SweepSpec& spec,
                  const std::vector<PointState>& points, const std::string& s2c, uint32_t width,
                  std::ostream& out) {
  std::map<pid_t, CompileJob*> running;
  auto reap = [&](bool block) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, block ? 0 : WNOHANG);
    if (pid <= 0) return false;
    const auto it = running.find(pid);
    if (it == running.end()) return true;
    CompileJob& job = *it->second;
    running.erase(it);
    std::error_code ec;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(job.bin, ec)) {
      const std::string why = failure_line(read_all(job.log));
      job.error = "s2c compile failed (logs/" + job.log.filename().string() +
                  "): " + (why.empty() ? "no message" : why);
    }
    return true;
  };
  for (CompileJob& job : jobs) {
    std::error_code ec;
    if (fs::exists(job.bin, ec)) continue;  // s2c writes through a rename: a file is whole
    while (running.size() >= width)
      reap(true);
    const Workload& w = spec.workloads[job.workload];
    std::vector<std::string> argv{s2c, "compile", w.model};
    argv.insert(argv.end(), w.options.begin(), w.options.end());
    argv.insert(argv.end(),
                {"--config", points[job.config_point].config.string(), "-o", job.bin.string()});
    out << "compiling " << w.name << " for " << job.bin.filename().string() << "\n" << std::flush;
    running[spawn(argv, job.log)] = &job;
  }
  while (!running.empty())
    reap(true);
}

// ---- simulating --------------------------------------------------------------------------

struct RowTask {
  uint64_t row = 0;
  size_t point = 0, workload = 0;
  std::string executable;  // what runs
};

// A number as an integer when it is one (JSON readers then see 8, not 8.0).
Json json_value(const ExprValue& v) {
  if (const std::string* text = std::get_if<std::string>(&v)) return *text;
  const double d = std::get<double>(v);
  if (d >= 0 && d < 9.0e18 && d == std::floor(d)) return static_cast<uint64_t>(d);
  return d;
}

Json base_row(const SweepSpec& spec, const PointState& p, size_t workload, uint64_t row,
              const std::vector<std::string>& columns) {
  Json j;
  j["row"] = row;
  j["point"] = p.point.index;
  j["workload"] = spec.workloads[workload].name;
  const auto settings = point_settings(spec, p.point);
  for (size_t c = 3; c < columns.size() && columns[c] != "status"; ++c) {
    Json value;  // null when unknown
    if (std::optional<ExprValue> v = lookup(p.values, columns[c]))
      value = json_value(*v);
    else
      for (const auto& [key, text] : settings)
        if (key == columns[c]) value = text;
    j[columns[c]] = value;
  }
  j["status"] = "failed";
  for (const std::string& m : metric_names())
    j[m] = nullptr;
  j["error"] = nullptr;
  return j;
}

Json failed(Json row, const std::string& error) {
  row["status"] = "failed";
  row["error"] = error;
  return row;
}

// What a child adds to its row for the parent's accounting: its simulation's wall seconds.
constexpr const char* kSecondsKey = "_simulation_seconds";

// In the forked child: the row's timing simulation.
Json simulate(Json row, const isa::Executable& exe, const std::string& path,
              const target::TargetDesc& t) {
  try {
    try {
      check_memory_fits(exe, t, "this point");
    } catch (const UserError& e) {
      throw UserError(path + ": " + e.what());
    }
    RunOptions run;
    run.threads = 1;
    run.program = path;
    const auto start = Clock::now();
    const report::RunResult r = run_program(exe, t, run).timing;
    // For the sweep's overhead figure only; taken out before the row is recorded.
    row[kSecondsKey] = std::chrono::duration<double>(Clock::now() - start).count();
    if (!r.deadlock.empty())
      throw InternalError("deadlock at cycle " + std::to_string(r.total_cycles));
    row["status"] = "ok";
    row["cycles"] = r.total_cycles;
    row["ms"] = r.milliseconds();
    row["pe_utilization"] = r.mac_utilization();
    row["ppu_utilization"] = r.busy_fraction(isa::Unit::Ppu);
    row["dram_bytes"] = r.dram.bytes_read + r.dram.bytes_written;
    row["dram_gbps"] = r.dram_bandwidth_bytes_per_s() / 1e9;
    row["peak_memory"] = r.memory_peak;
    row["roofline_ratio"] = r.roofline_ratio();
    if (r.energy) {
      row["energy_mj"] = r.energy->total_pj() * 1e-9;
      row["power_w"] = r.average_power_w();
    }
    if (r.area) row["area_mm2"] = r.area->total_mm2();
    return row;
  } catch (const UserError& e) {
    return failed(std::move(row), e.what());
  } catch (const std::exception& e) {
    return failed(std::move(row), std::string("internal error: ") + e.what());
  }
}

struct Child {
  RowTask task;
  Json row;  // what it reports when it dies without a result
  int fd = -1;
  pid_t pid = 0;
  Clock::time_point started;
  std::string received;
};

// A progress bar with the rate and ETA, redrawn when a row finishes (stderr, a terminal).
class Progress {
 public:
  Progress(bool on, size_t total) : on_(on), total_(total), start_(Clock::now()) {}
  void update(size_t done, size_t failed) {
    if (!on_) return;
    const double s = std::chrono::duration<double>(Clock::now() - start_).count();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    const size_t filled = total_ == 0 ? 30 : done * 30 / total_;
    std::fprintf(stderr, "\r[%s%s] %zu/%zu rows, %zu failed, %.1f rows/s, ETA %d:%02d ",
                 std::string(filled, '#').c_str(), std::string(30 - filled, ' ').c_str(), done,
                 total_, failed, rate, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60);
    if (done == total_) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  bool on_;
  size_t total_;
  Clock::time_point start_;
};

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Writes DIR/sweep.sbatch, a job array of one task per shard, and submits it.
void submit_slurm(const SweepOptions& options, const SweepSpec& spec, const Layout& l,
                  std::ostream& out) {
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  const std::string dir = fs::absolute(l.dir).lexically_normal().string();
  const uint32_t tasks = options.shards;
  const uint32_t cpus = std::max(1u, options.jobs);
  std::string script = "#!/bin/sh\n";
  script += "# s2sim sweep " + spec.file + " -o " + dir + " --slurm: task i runs shard i/" +
            std::to_string(tasks) + "; then s2sim sweep --collect " + dir + "\n";
  script += "#SBATCH --job-name=s2sweep\n";
  script += fmt::format("#SBATCH --array=0-{}\n", tasks - 1);
  script += fmt::format("#SBATCH --cpus-per-task={}\n", cpus);
  script += "#SBATCH --output=" + dir + "/logs/slurm-%A_%a.out\n";
  if (!options.partition.empty()) script += "#SBATCH --partition=" + options.partition + "\n";
  script += "exec " + shell_quote(self) + " sweep " +
            shell_quote(fs::absolute(spec.file).string()) + " -o " + shell_quote(dir) +
            " --shard \"$SLURM_ARRAY_TASK_ID/" + std::to_string(tasks) + "\" -j " +
            std::to_string(cpus) + " --s2c " + shell_quote(find_s2c(options.s2c)) + "\n";
  const fs::path path = l.dir / "sweep.sbatch";
  write_text(path, script);
  const std::string command = std::string("sbatch --parsable") + (options.wait ? " --wait" : "") +
                              " " + shell_quote(path.string()) + " 2>&1";
  std::fflush(nullptr);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw UserError("cannot run sbatch: " + std::string(std::strerror(errno)));
  std::string reply;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    reply.append(buffer, n);
  const int status = ::pclose(pipe);
  while (!reply.empty() && (reply.back() == '\n' || reply.back() == '\r'))
    reply.pop_back();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw UserError("sbatch " + path.string() + " failed" +
                    (WIFEXITED(status) && WEXITSTATUS(status) == 127
                         ? std::string(": sbatch not found (--slurm needs Slurm's sbatch on PATH)")
                         : ": " + reply));
  out << fmt::format("submitted {} as Slurm job {} ({} tasks{}){}\n", path.string(),
                     last_line(reply), tasks,
                     options.partition.empty() ? "" : ", partition " + options.partition,
                     options.wait ? ", finished" : "");
  if (!options.wait) out << "  when it has finished: s2sim sweep --collect " << dir << "\n";
}

}  // namespace

void run_sweep(const SweepOptions& options, std::ostream& out) {
  const auto start = Clock::now();
  const SweepSpec spec = load_sweep_spec(options.spec, default_config());
  const uint32_t width =
      options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  const std::vector<std::string> columns = result_columns(spec);
  const Layout l{fs::path(options.dir)};
  std::error_code ec;
  if (fs::exists(options.spec, ec) && fs::exists(l.dir / "spec.yaml", ec) &&
      fs::equivalent(options.spec, l.dir / "spec.yaml", ec) && !fs::exists(l.state, ec))
    throw UserError(options.spec + ": the spec lies in -o " + options.dir +
                    " without a sweep there; give another -o directory");
  const std::string print = fingerprint(spec);
  const uint64_t point_count = enumerate_points(spec).size();
  std::vector<PointState> points;
  {
    const DirectoryLock lock(l.dir);
    claim_directory(l, spec, print, columns, point_count);
    copy_side_files(spec, l);
    points = prepare_points(spec, l);
  }
  const size_t nw = spec.workloads.size();
  const bool sharded = options.shards != 0;
  if (sharded && options.shard >= options.shards)
    throw UserError(fmt::format("--shard {}/{}: the shard must be below the count", options.shard,
                                options.shards));
  const auto mine = [&](uint64_t row) {
    return options.slurm || !sharded || row % options.shards == options.shard;
  };
  // A shard keeps its rows apart; collect_sweep merges them.
  const fs::path results_dir =
      sharded && !options.slurm ? l.dir / "shards" / std::to_string(options.shard) : l.dir;
  const fs::path jsonl_path = results_dir / "results.jsonl";
  const fs::path csv_path = results_dir / "results.csv";
  fs::create_directories(results_dir, ec);

  // The rows already done; a torn last line (a killed run) or a line that is not a result of
  // this sweep (is_result_row()) is dropped, its row runs again, and the files are rebuilt.
  std::map<uint64_t, Json> done;
  if (fs::exists(jsonl_path, ec)) {
    std::vector<std::string> names;
    for (const Workload& w : spec.workloads)
      names.push_back(w.name);
    std::istringstream lines(read_all(jsonl_path));
    size_t dropped = 0;
    for (std::string line; std::getline(lines, line);) {
      Json row = Json::parse(line, nullptr, false);  // a torn line: discarded
      if (!is_result_row(row, columns, names, points.size() * nw)) {
        if (!line.empty()) ++dropped;
        continue;
      }
      const uint64_t r = row.at("row").get<uint64_t>();
      if (mine(r) && done.count(r) == 0) done.emplace(r, std::move(row));
    }
    if (dropped != 0)
      out << fmt::format(
          "{}: dropped {} line(s) that are not results of this sweep (torn by a kill, or "
          "edited); their rows run again\n",
          jsonl_path.string(), dropped);
  }
  const auto rewrite = [&] { write_rows(jsonl_path, csv_path, columns, done); };
  if (!options.slurm) rewrite();
  auto record = [&](Json row) {
    const uint64_t r = row.at("row").get<uint64_t>();
    append_line(jsonl_path, row.dump() + "\n");
    append_line(csv_path, csv_line(row, columns));
    done.emplace(r, std::move(row));
  };

  // Excluded points, and the rows of refused configurations.
  std::string excluded_csv = "point,constraint\n";
  size_t excluded = 0;
  for (const PointState& p : points) {
    if (!p.excluded_by.empty()) {
      ++excluded;
      excluded_csv += fmt::format("{},{}\n", p.point.index, csv_field(p.excluded_by));
    }
    if (!p.target && !options.slurm)
      for (size_t w = 0; w < nw; ++w) {
        const uint64_t r = p.point.index * nw + w;
        if (mine(r) && done.count(r) == 0)
          record(failed(base_row(spec, p, w, r, columns), "configuration refused: " + p.refused));
      }
  }
  write_text(l.excluded, excluded_csv);

  // The compiles: one per workload and distinct compiler_properties() over all the points
  // that run (so a rerun names them alike), named by the group's first point; the largest
  // DRAM of the group compiles it (a plan that fits there is the same plan everywhere, and
  // the points with less DRAM refuse it when they run).
  std::vector<CompileJob> compiles;
  std::map<std::pair<size_t, std::string>, size_t> compile_of;
  std::vector<std::vector<size_t>> compile_index(points.size(), std::vector<size_t>(nw, 0));
  for (const PointState& p : points) {
    if (!p.target || !p.excluded_by.empty()) continue;
    for (size_t w = 0; w < nw; ++w) {
      const Workload& wl = spec.workloads[w];
      if (wl.kind != Workload::Kind::Model) continue;
      const std::string props = target::compiler_properties(*p.target, wl.fuse_attention);
      const size_t index = static_cast<size_t>(p.point.index);
      const auto [it, fresh] = compile_of.emplace(std::make_pair(w, props), compiles.size());
      if (fresh) {
        CompileJob job;
        job.workload = w;
        job.properties = props;
        job.config_point = index;
        job.bin = l.bin / fmt::format("{}.p{}.bin", wl.name, index);
        job.log = l.logs / fmt::format("{}.p{}.log", wl.name, index);
        compiles.push_back(job);
      }
      CompileJob& job = compiles[it->second];
      if (p.target->dram.capacity_bytes > points[job.config_point].target->dram.capacity_bytes)
        job.config_point = index;
      compile_index[index][w] = it->second;
    }
  }

  // The rows to simulate, and the compiles they need.
  std::vector<RowTask> tasks;
  std::vector<CompileJob> needed;
  std::set<size_t> needed_index;
  for (const PointState& p : points) {
    if (!p.target || !p.excluded_by.empty()) continue;
    for (size_t w = 0; w < nw; ++w) {
      const uint64_t r = p.point.index * nw + w;
      if (!mine(r) || done.count(r) != 0) continue;
      const size_t index = static_cast<size_t>(p.point.index);
      tasks.push_back(RowTask{r, index, w, spec.workloads[w].model});
      if (spec.workloads[w].kind == Workload::Kind::Model)
        needed_index.insert(compile_index[index][w]);
    }
  }
  if (!needed_index.empty()) {
    const std::string s2c = find_s2c(options.s2c);
    std::vector<CompileJob> run;
    for (size_t i : needed_index)
      run.push_back(compiles[i]);
    run_compiles(run, spec, points, s2c, width, out);
    size_t k = 0;
    for (size_t i : needed_index)
      compiles[i] = run[k++];
    // A failed compile fails its rows; say so now, not only in each row.
    for (const CompileJob& job : run)
      if (!job.error.empty())
        out << "  " << spec.workloads[job.workload].name << ": " << job.error
            << "; its rows fail\n";
  }

  if (options.slurm) {
    submit_slurm(options, spec, l, out);
    if (options.wait) collect_sweep(l.dir.string(), out);
    return;
  }

  // Executables, loaded once here and shared with the forked children.
  std::map<std::string, std::shared_ptr<const isa::Executable>> loaded;
  std::map<std::string, std::string> load_error;
  auto executable_of = [&](const RowTask& t, std::string& path) -> std::string {
    path = t.executable;
    if (spec.workloads[t.workload].kind == Workload::Kind::Model) {
      const CompileJob& job = compiles[compile_index[t.point][t.workload]];
      if (!job.error.empty()) return job.error;
      path = job.bin.string();
    }
    if (loaded.count(path) == 0 && load_error.count(path) == 0) {
      try {
        loaded[path] = std::make_shared<const isa::Executable>(isa::load_executable(path));
      } catch (const UserError& e) {
        load_error[path] = e.what();
      }
    }
    return load_error.count(path) != 0 ? load_error[path] : std::string();
  };

  Progress progress(options.progress, tasks.size());
  size_t finished = 0, failures = 0;
  auto note = [&](Json row) {
    if (row_text(row, "status") != "ok") ++failures;
    record(std::move(row));
    progress.update(++finished, failures);
  };
  progress.update(0, 0);
  std::vector<Child> children;
  size_t next = 0;
  double simulation_seconds = 0, overhead_seconds = 0;  // summed over the rows
  size_t forked = 0;  // rows that ran (the others failed before: no executable)
  const auto sim_start = Clock::now();
  while (next < tasks.size() || !children.empty()) {
    while (next < tasks.size() && children.size() < width) {
      const RowTask& t = tasks[next++];
      const PointState& p = points[t.point];
      Json row = base_row(spec, p, t.workload, t.row, columns);
      std::string path;
      if (std::string error = executable_of(t, path); !error.empty()) {
        note(failed(std::move(row), error));
        continue;
      }
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0)
        throw UserError(std::string("cannot create a pipe: ") + std::strerror(errno));
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) throw UserError(std::string("cannot start a process: ") + std::strerror(errno));
      if (pid == 0) {
        ::close(fds[0]);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        // Compiled executables are named inside DIR, so rows do not depend on where it is.
        const std::string shown = fs::path(path).parent_path() == l.bin
                                      ? "bin/" + fs::path(path).filename().string()
                                      : path;
        const std::string line = simulate(row, *loaded[path], shown, *p.target).dump() + "\n";
        size_t sent = 0;
        while (sent < line.size()) {
          const ssize_t n = ::write(fds[1], line.data() + sent, line.size() - sent);
          if (n <= 0 && errno != EINTR) break;
          if (n > 0) sent += static_cast<size_t>(n);
        }
        ::_exit(0);
      }
      ::close(fds[1]);
      ++forked;
      Child c;
      c.task = t;
      c.row = std::move(row);
      c.fd = fds[0];
      c.pid = pid;
      c.started = Clock::now();
      children.push_back(std::move(c));
    }
    if (children.empty()) continue;
    std::vector<pollfd> polls;
    for (const Child& c : children)
      polls.push_back(pollfd{c.fd, POLLIN, 0});
    if (::poll(polls.data(), polls.size(), -1) < 0 && errno != EINTR)
      throw UserError(std::string("poll: ") + std::strerror(errno));
    for (size_t i = polls.size(); i-- > 0;) {
      if (polls[i].revents == 0) continue;
      Child& c = children[i];
      char buffer[65536];
      const ssize_t n = ::read(c.fd, buffer, sizeof buffer);
      if (n > 0) {
        c.received.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      ::close(c.fd);
      int status = 0;
      ::waitpid(c.pid, &status, 0);
      const double lifetime = std::chrono::duration<double>(Clock::now() - c.started).count();
      Json row;
      try {
        row = Json::parse(c.received);
        double simulated = 0;
        if (const auto it = row.find(kSecondsKey); it != row.end()) {
          simulated = it->get<double>();
          row.erase(kSecondsKey);
        }
        simulation_seconds += simulated;
        overhead_seconds += lifetime - simulated;
      } catch (const Json::exception&) {
        row = failed(c.row, WIFSIGNALED(status) ? fmt::format("the simulation crashed (signal {})",
                                                              WTERMSIG(status))
                                                : "the simulation ended without a result");
      }
      note(std::move(row));
      children.erase(children.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  const double sim_seconds = std::chrono::duration<double>(Clock::now() - sim_start).count();

  rewrite();
  size_t ok = 0;
  for (const auto& [r, row] : done)
    if (row_text(row, "status") == "ok") ++ok;
  out << fmt::format(
      "sweep {}: {} points x {} workload(s); {} rows: {} ok, {} failed; {} point(s) excluded by "
      "constraints ({}); {} compile(s)\n",
      spec.file, points.size(), nw, done.size(), ok, done.size() - ok, excluded,
      l.excluded.string(), compiles.size());
  if (forked != 0) {
    const double n = static_cast<double>(forked);
    out << fmt::format(
        "  simulated {} row(s) in {:.2f} s on {} process(es): {:.2f} rows/s; per row {:.1f} ms "
        "of simulation and {:.1f} ms of overhead (process, collecting, writing)\n",
        forked, sim_seconds, width, sim_seconds > 0 ? n / sim_seconds : 0.0,
        1e3 * simulation_seconds / n, 1e3 * overhead_seconds / n);
  }
  if (sharded)
    out << fmt::format(
        "  shard {} of {}: results in {}; merge the shards with s2sim sweep --collect {}\n",
        options.shard, options.shards, csv_path.string(), l.dir.string());
  else
    out << write_final(l, columns, spec.objectives, done);
  out << fmt::format("  wall time          {:.2f} s\n",
                     std::chrono::duration<double>(Clock::now() - start).count());
}

}  // namespace s2::sim::sweep
