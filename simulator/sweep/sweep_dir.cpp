#include "simulator/sweep/sweep_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <sstream>

#include "isa/common/errors.h"
#include "isa/container/reader.h"
#include "isa/container/writer.h"
#include "s2/version.h"
#include "simulator/sweep/results.h"
#include "simulator/sweep/sweep_run.h"

namespace s2::sim::sweep {

DirectoryLock::DirectoryLock(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw UserError(dir.string() +
                    ": exists and is not a directory; give -o a new or empty directory");
  fs::create_directories(dir, ec);
  if (ec) throw UserError(dir.string() + ": cannot create: " + ec.message());
  fd_ = ::open((dir / kLockName).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
    throw UserError((dir / kLockName).string() + ": cannot lock: " + std::strerror(errno));
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::string read_all(const fs::path& path) {
  const std::vector<uint8_t> bytes = isa::read_file_bytes(path.string());
  return std::string(bytes.begin(), bytes.end());
}

void write_text(const fs::path& path, const std::string& text) {
  isa::write_file(path.string(), std::vector<uint8_t>(text.begin(), text.end()));
}

void append_line(const fs::path& path, const std::string& line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) throw UserError(path.string() + ": cannot append: " + std::strerror(errno));
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      throw UserError(path.string() + ": cannot append: " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

namespace {

// The points of an excluded.csv ("point,constraint", the constraint a CSV field that may be
// quoted and span lines): each must be one of the sweep's `points`, else a UserError naming
// the file and line.
std::set<uint64_t> excluded_points(const std::string& text, const std::string& file,
                                   uint64_t points) {
  std::set<uint64_t> excluded;
  size_t i = text.find('\n');  // after the header
  int line = 1;
  while (i != std::string::npos && ++i < text.size()) {
    ++line;
    const size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0)
      ++i;
    uint64_t point = 0;
    const auto [end, error] = std::from_chars(text.data() + start, text.data() + i, point);
    if (i == start || i >= text.size() || text[i] != ',' || error != std::errc() ||
        end != text.data() + i || point >= points)
      throw UserError(
          fmt::format("{}:{}: not \"point,constraint\" with a point of this sweep "
                      "(0 to {})",
                      file, line, points == 0 ? 0 : points - 1));
    excluded.insert(point);
    const int opened = line;
    if (++i < text.size() && text[i] == '"') {  // a quoted constraint: to its closing quote
      for (++i; i < text.size() && (text[i] != '"' || (i + 1 < text.size() && text[i + 1] == '"'));
           ++i) {
        if (text[i] == '"') ++i;  // a doubled quote
        if (text[i] == '\n') ++line;
      }
      if (i >= text.size())
        throw UserError(
            fmt::format("{}:{}: a quoted constraint without its closing quote", file, opened));
    }
    i = text.find('\n', i);
  }
  return excluded;
}

// FNV-1a, 64 bits: the sweep's identity, not a security boundary.
struct Fingerprint {
  uint64_t h = 1469598103934665603ull;
  void add(const std::string& bytes) {
    for (char c : bytes) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
    add_size(bytes.size());
  }
  void add_size(uint64_t n) {
    for (int i = 0; i < 8; ++i) {
      h ^= (n >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  std::string hex() const { return fmt::format("{:016x}", h); }
};

}  // namespace

std::vector<fs::path> side_files(const SweepSpec& spec) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const char* kind : {"dram", "tech", "host_link"})
    for (const auto& entry :
         fs::directory_iterator(fs::path(spec.base_config).parent_path() / kind, ec))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string fingerprint(const SweepSpec& spec) {
  Fingerprint f;
  f.add(std::string("s2sim sweep ") + kVersion);
  f.add(spec.text);
  f.add(read_all(spec.base_config));
  for (const fs::path& p : side_files(spec)) {
    f.add(p.parent_path().filename().string() + "/" + p.filename().string());
    f.add(read_all(p));
  }
  for (const Workload& w : spec.workloads)
    if (fs::path(w.model).is_absolute()) f.add(read_all(w.model));
  return f.hex();
}

bool claim_directory(const Layout& l, const SweepSpec& spec, const std::string& print,
                     const std::vector<std::string>& columns, uint64_t points) {
  std::error_code ec;
  const std::string dir = l.dir.string();
  if (fs::exists(l.dir, ec) && !fs::is_directory(l.dir, ec))
    throw UserError(dir + ": exists and is not a directory; give -o a new or empty directory");
  if (fs::exists(l.state, ec)) {
    Json state;
    try {
      state = Json::parse(read_all(l.state));
    } catch (const Json::exception& e) {
      throw UserError(l.state.string() + ": not a sweep state file (" + e.what() +
                      "); give -o a new or empty directory");
    }
    if (row_text(state, "fingerprint") != print)
      throw UserError(dir + " holds the results of another sweep (" + row_text(state, "spec") +
                      ", or this one before its spec, base configuration, presets, workload "
                      "files or the simulator changed); they are never mixed or overwritten: "
                      "give -o another directory, or remove " +
                      dir);
    return true;
  }
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(l.dir, ec))
    empty = empty && entry.path().filename() == kLockName;
  if (!empty)
    throw UserError(dir +
                    ": not empty and holds no sweep (no sweep.json); give -o a new or "
                    "empty directory");
  for (const fs::path& d : {l.dir, l.configs, l.configs / "dram", l.bin, l.logs}) {
    fs::create_directories(d, ec);
    if (ec) throw UserError(d.string() + ": cannot create: " + ec.message());
  }
  Json state;
  state["spec"] = fs::absolute(spec.file).string();
  state["fingerprint"] = print;
  state["version"] = kVersion;
  state["points"] = points;
  state["workloads"] = Json::array();
  for (const Workload& w : spec.workloads)
    state["workloads"].push_back(w.name);
  state["axes"] = Json::array();  // per axis, the keys it sets together
  for (const Axis& axis : spec.axes)
    state["axes"].push_back(axis.keys);
  state["objectives"] = spec.objectives;
  state["columns"] = columns;
  // The spec's copy first, the state last: a DIR with sweep.json is complete.
  write_text(l.dir / "spec.yaml", spec.text);
  write_text(l.state, state.dump(2) + "\n");
  return false;
}

void copy_side_files(const SweepSpec& spec, const Layout& l) {
  std::error_code ec;
  for (const fs::path& from : side_files(spec)) {
    const fs::path to = l.configs / from.parent_path().filename() / from.filename();
    fs::create_directories(to.parent_path(), ec);
    if (!fs::exists(to, ec)) write_text(to, read_all(from));
  }
}

void write_rows(const fs::path& jsonl, const fs::path& csv, const std::vector<std::string>& columns,
                const std::map<uint64_t, Json>& rows) {
  std::string lines, table = csv_header(columns);
  for (const auto& [r, row] : rows) {
    lines += row.dump() + "\n";
    table += csv_line(row, columns);
  }
  write_text(jsonl, lines);
  write_text(csv, table);
}

std::string write_final(const Layout& l, const std::vector<std::string>& columns,
                        const std::vector<std::string>& objectives,
                        const std::map<uint64_t, Json>& done) {
  write_rows(l.jsonl, l.csv, columns, done);
  std::vector<Json> rows;
  size_t ok = 0;
  for (const auto& [r, row] : done) {
    rows.push_back(row);
    if (row_text(row, "status") == "ok") ++ok;
  }
  std::string text =
      fmt::format("  results            {} rows ({} ok, {} failed) in {}, {}\n", rows.size(), ok,
                  rows.size() - ok, l.csv.string(), l.jsonl.string());
  if (objectives.empty()) return text;
  const std::vector<const Json*> front = pareto_rows(rows, objectives);
  std::string pareto = csv_header(columns);
  for (const Json* row : front)
    pareto += csv_line(*row, columns);
  write_text(l.pareto, pareto);
  return text + fmt::format("  Pareto front       {} row(s) over {} in {}\n", front.size(),
                            fmt::join(objectives, ", "), l.pareto.string());
}

void collect_sweep(const std::string& dir, std::ostream& out) {
  const Layout l{fs::path(dir)};
  std::error_code ec;
  if (!fs::exists(l.state, ec))
    throw UserError(dir +
                    ": holds no sweep (no sweep.json); --collect merges the shards of a "
                    "sweep run with --shard or --slurm");
  Json state;
  try {
    state = Json::parse(read_all(l.state));
  } catch (const Json::exception& e) {
    throw UserError(l.state.string() + ": not a sweep state file (" + e.what() + ")");
  }
  const auto strings = [&](const char* key) {
    std::vector<std::string> v;
    const auto it = state.find(key);
    if (it != state.end() && it->is_array())
      for (const Json& item : *it)
        if (const std::string* text = item.get_ptr<const std::string*>()) v.push_back(*text);
    return v;
  };
  const std::vector<std::string> columns = strings("columns");
  if (columns.empty()) throw UserError(l.state.string() + ": no columns; not a sweep state file");
  std::vector<fs::path> files{l.jsonl};
  size_t shards = 0;
  for (const auto& entry : fs::directory_iterator(l.dir / "shards", ec)) {
    files.push_back(entry.path() / "results.jsonl");
    ++shards;
  }
  const std::vector<std::string> workloads = strings("workloads");
  const auto count = state.find("points");
  if (count == state.end() || !count->is_number_unsigned() || count->get<uint64_t>() > kMaxPoints)
    throw UserError(l.state.string() + ": points: not a count of at most " +
                    std::to_string(kMaxPoints) + "; not a sweep state file");
  const uint64_t points = count->get<uint64_t>();
  // A torn last line of a killed shard, or a line that is not a result of this sweep
  // (is_result_row()), is left out: that row is reported missing below and runs again when
  // its shard reruns.
  std::map<uint64_t, Json> done;
  for (const fs::path& file : files) {
    if (!fs::exists(file, ec)) continue;
    std::istringstream lines(read_all(file));
    for (std::string line; std::getline(lines, line);) {
      Json row = Json::parse(line, nullptr, false);
      if (!is_result_row(row, columns, workloads, points * workloads.size())) continue;
      const uint64_t r = row.at("row").get<uint64_t>();
      if (done.count(r) == 0) done.emplace(r, std::move(row));
    }
  }
  out << fmt::format("collected {} from {} shard(s)\n", dir, shards);
  out << write_final(l, columns, strings("objectives"), done);
  // Every row of every point the constraints kept must be there: a shard that has not run or
  // not finished would leave the files, and their Pareto front, quietly short of it.
  const std::set<uint64_t> excluded =
      fs::exists(l.excluded, ec)
          ? excluded_points(read_all(l.excluded), l.excluded.string(), points)
          : std::set<uint64_t>();
  const uint64_t nw = workloads.size();
  std::vector<uint64_t> missing;
  uint64_t expected = 0;
  for (uint64_t p = 0; p < points; ++p)
    for (uint64_t w = 0; w < nw && excluded.count(p) == 0; ++w, ++expected)
      if (done.count(p * nw + w) == 0) missing.push_back(p * nw + w);
  if (missing.empty()) return;
  std::string rows;
  for (size_t k = 0; k < missing.size() && k < 8; ++k)
    rows += (k ? ", " : "") + std::to_string(missing[k]);
  if (missing.size() > 8) rows += fmt::format(" and {} more", missing.size() - 8);
  throw UserError(fmt::format(
      "{}: {} of the sweep's {} rows have no result (rows {}): a shard has not run or not "
      "finished; the files above hold the {} collected. Run the missing shards (s2sim sweep "
      "SPEC -o {} --shard I/N: row R is shard R % N) and collect again",
      dir, missing.size(), expected, rows, done.size(), dir));
}

}  // namespace s2::sim::sweep
