#include "compiler/driver/program_text.h"

#include <algorithm>
#include <map>
#include <optional>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/text_syntax.h"
#include "compiler/lower/lower.h"
#include "compiler/memory/buffer.h"
#include "compiler/memory/verify_plan.h"
#include "isa/asm/disassembler.h"
#include "isa/common/errors.h"
#include "isa/common/hex.h"

namespace s2::compiler {
namespace {

using ir::TextCursor;
using ir::TextLine;

std::string steps_text(const memory::Buffer& b) {
  return std::to_string(b.first) + ".." + std::to_string(b.last);
}

std::string plan_text(const Program& p) {
  const memory::MemoryPlan& plan = p.plan;
  std::string s = "plan " + ir::name_text(plan.planner) +
                  " alignment=" + std::to_string(plan.alignment) +
                  " persistent=" + hex(plan.persistent_bytes) + " arena=" + hex(plan.arena_base) +
                  "+" + hex(plan.arena_size) + " lower_bound=" + hex(plan.lower_bound) +
                  " dram=" + hex(plan.dram_size) +
                  (plan.host_size != 0 ? " host=" + hex(plan.host_size) : std::string()) + "\n";
  for (size_t i = 0; i < p.lifetimes.buffers.size(); ++i) {
    const memory::Buffer& b = p.lifetimes.buffers[i];
    s += "  %" + ir::name_text(b.name) + " @" + (b.space == isa::MemSpace::Host ? "host:" : "") +
         hex(plan.address.at(i)) + " size=" + hex(b.size) + " steps=" + steps_text(b) + "\n";
  }
  return s;
}

std::vector<std::string> listing(const isa::Executable& exe) {
  std::vector<std::string> lines = isa::format_instructions(exe);
  for (size_t i = 0; i < lines.size(); ++i)
    lines[i].insert(0, std::to_string(i) + ": ");
  return lines;
}

// Reads the sections after the graph.
class SectionParser {
 public:
  SectionParser(const std::vector<TextLine>& lines, size_t next, const std::string& file,
                Program& program, std::vector<int> op_line)
      : lines_(lines), next_(next), file_(file), p_(program), op_line_(std::move(op_line)) {}

  void run() {
    if (more() && starts("schedule")) schedule();
    if (p_.stage == ProgramStage::Scheduled && more() && starts("plan")) plan();
    if (p_.stage == ProgramStage::Planned && more() && starts("lowered")) lowered();
    if (more()) {
      TextCursor c(file_, lines_[next_]);
      c.fail(p_.stage == ProgramStage::Graph       ? "expected 'schedule NAME' after the graph"
             : p_.stage == ProgramStage::Scheduled ? "expected 'plan' after the schedule"
             : p_.stage == ProgramStage::Planned   ? "expected 'lowered' after the plan"
                                                   : "unexpected text after the listing");
    }
  }

 private:
  bool more() const { return next_ < lines_.size(); }
  bool starts(std::string_view word) const {
    TextCursor c(file_, lines_[next_]);
    return c.accept_word(word);
  }
  // At the first non-blank column of statement line `line`.
  [[noreturn]] void fail_line(int line, const std::string& problem) const {
    const auto it = std::lower_bound(lines_.begin(), lines_.end(), line,
                                     [](const TextLine& l, int n) { return l.number < n; });
    S2_CHECK(it != lines_.end() && it->number == line,
             "no statement at line " + std::to_string(line));
    TextCursor(file_, *it).fail(problem);
  }

  void schedule() {
    TextCursor c(file_, lines_[next_++]);
    c.accept_word("schedule");
    p_.scheduler = c.name("the scheduler's name");
    c.expect_end("after the scheduler's name");
    const ir::Graph& g = p_.graph;
    const std::vector<std::vector<ir::OpId>> pred = g.predecessors();
    for (size_t i = 0; i < pred.size(); ++i)
      for (ir::OpId q : pred[i])
        if (q.index() > i)
          fail_line(op_line_[i], "op @" + ir::name_text(g.op(ir::OpId(i)).name) +
                                     " is listed before op @" + ir::name_text(g.op(q).name) +
                                     " (line " + std::to_string(op_line_[q.index()]) +
                                     "), which must run first: a scheduled graph lists its "
                                     "ops in execution order");
    p_.order.clear();
    for (size_t i = 0; i < g.num_ops(); ++i)
      p_.order.push_back(ir::OpId(i));
    p_.stage = ProgramStage::Scheduled;
  }

  void plan() {
    const TextLine& header = lines_[next_++];
    TextCursor c(file_, header);
    c.accept_word("plan");
    memory::MemoryPlan& plan = p_.plan;
    plan.planner = c.name("the planner's name");
    std::map<std::string, bool> seen;
    int lower_bound_column = 0;
    while (!c.at_end()) {
      const int column = c.column();
      const std::string key =
          c.word("alignment=, persistent=, arena=, lower_bound=, dram= or host=");
      c.expect('=', "after '" + key + "'");
      if (seen[key]) c.fail_at(column, "'" + key + "' given twice");
      seen[key] = true;
      if (key == "alignment") {
        plan.alignment = address(c, "the alignment");
      } else if (key == "persistent") {
        plan.persistent_bytes = address(c, "the persistent bytes");
      } else if (key == "arena") {
        plan.arena_base = address(c, "the arena base");
        c.expect('+', "between the arena's base and size");
        plan.arena_size = address(c, "the arena size");
      } else if (key == "lower_bound") {
        lower_bound_column = c.column();
        plan.lower_bound = address(c, "the lower bound");
      } else if (key == "dram") {
        plan.dram_size = address(c, "the DRAM size");
      } else if (key == "host") {
        plan.host_size = address(c, "the host memory size");
      } else {
        c.fail_at(column, "unknown plan field '" + key +
                              "'; known: alignment, persistent, arena, lower_bound, dram, host");
      }
    }
    for (const char* key : {"alignment", "persistent", "arena", "lower_bound", "dram"})
      if (!seen[key]) c.fail(std::string("the plan lacks '") + key + "='");

    const schedule::Lifetimes computed = schedule::compute_lifetimes(p_.graph, p_.order);
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < computed.buffers.size(); ++i)
      if (!index.emplace(computed.buffers[i].name, i).second)
        fail_line(header.number, "two buffers are named %" +
                                     ir::name_text(computed.buffers[i].name) +
                                     "; the text form cannot tell them apart");
    std::vector<int> listed(computed.buffers.size(), 0);
    schedule::Lifetimes& mine = p_.lifetimes;
    mine = schedule::Lifetimes{};
    mine.buffer_of_data.assign(p_.graph.num_datas(), -1);
    plan.address.clear();
    while (more() && TextCursor(file_, lines_[next_]).peek() == '%') {
      const TextLine& line = lines_[next_++];
      TextCursor b(file_, line);
      b.expect('%', "");
      const int name_column = b.column();
      const std::string name = b.name("a buffer's name");
      const auto it = index.find(name);
      if (it == index.end())
        b.fail_at(name_column, "no buffer %" + ir::name_text(name) +
                                   ": no data node of that name is used by the program");
      const size_t i = it->second;
      if (listed[i])
        b.fail_at(name_column, "buffer %" + ir::name_text(name) +
                                   " is listed twice (first at line " + std::to_string(listed[i]) +
                                   ")");
      listed[i] = line.number;
      const memory::Buffer& want = computed.buffers[i];
      b.expect('@', "before the buffer's address");
      const int space_column = b.column();
      const bool host = b.accept_word("host");
      if (host) b.expect(':', "after 'host'");
      if (host != (want.space == isa::MemSpace::Host))
        b.fail_at(space_column, "buffer %" + ir::name_text(name) + " is in " +
                                    (want.space == isa::MemSpace::Host
                                         ? "host memory (a copy with host=1 writes it): write "
                                           "@host:ADDRESS"
                                         : "DRAM: write @ADDRESS, without host:"));
      plan.address.push_back(address(b, "the buffer's address"));
      expect_key(b, "size");
      const int size_column = b.column();
      if (address(b, "the buffer's size") != want.size)
        b.fail_at(size_column, "buffer %" + ir::name_text(name) + " has " +
                                   std::to_string(want.size) + " bytes (size=" + hex(want.size) +
                                   ")");
      expect_key(b, "steps");
      const int steps_column = b.column();
      const int64_t first = b.integer("the first step");
      b.expect('.', "in FIRST..LAST");
      b.expect('.', "in FIRST..LAST");
      const int64_t last = b.integer("the last step");
      if (first != want.first || last != want.last)
        b.fail_at(steps_column, "buffer %" + ir::name_text(name) + " is live at steps=" +
                                    steps_text(want) + " under the schedule, not " +
                                    std::to_string(first) + ".." + std::to_string(last));
      b.expect_end("after the buffer's steps");
      mine.buffer_of_data[computed.data[i].index()] = static_cast<int32_t>(mine.buffers.size());
      mine.buffers.push_back(want);
      mine.data.push_back(computed.data[i]);
    }
    for (size_t i = 0; i < listed.size(); ++i)
      if (!listed[i])
        fail_line(header.number, "buffer %" + ir::name_text(computed.buffers[i].name) +
                                     " is missing from the plan (every buffer of the program "
                                     "needs a line)");
    try {
      memory::verify_plan(mine.buffers, plan);
    } catch (const InternalError& e) {
      fail_line(header.number, std::string("the plan is not safe: ") + e.what());
    }
    // The lower bound follows from the buffers, like their sizes and steps (and the executable's
    // validator requires it to fit the arena, which a safe plan's live peak does).
    const uint64_t peak = memory::live_peak(mine.buffers, plan.alignment);
    if (plan.lower_bound != peak)
      c.fail_at(lower_bound_column,
                "the lower bound is the most bytes of arena buffers live at one step under the "
                "schedule: lower_bound=" +
                    hex(peak) + ", not " + hex(plan.lower_bound));
    p_.stage = ProgramStage::Planned;
  }

  void lowered() {
    const TextLine& header = lines_[next_++];
    TextCursor c(file_, header);
    c.accept_word("lowered");
    expect_key(c, "target");
    lower::LowerOptions options;
    options.target = c.name("the target's name");
    c.expect_end("after the target's name");
    try {
      p_.executable = lower::lower_to_executable(p_.graph, p_.order, p_.lifetimes.buffers,
                                                 p_.lifetimes.data, p_.plan, options);
    } catch (const UserError& e) {
      fail_line(header.number, std::string("lowering the program above fails: ") + e.what());
    }
    const std::vector<std::string> want = listing(p_.executable);
    size_t k = 0;
    for (; more(); ++next_, ++k) {
      const TextLine& line = lines_[next_];
      const size_t first = line.text.find_first_not_of(" \t");
      const std::string got =
          line.text.substr(first, line.text.find_last_not_of(" \t") + 1 - first);
      if (k == want.size())
        fail_line(line.number,
                  "the listing has more lines than lowering the program above "
                  "gives (" +
                      std::to_string(want.size()) + " instructions)");
      if (got != want[k])
        throw UserError(
            file_ + ":" + std::to_string(line.number) + ":" + std::to_string(first + 1) +
            ": the listing differs from lowering the program above, which gives\n  " + want[k]);
    }
    if (k < want.size())
      fail_line(lines_.back().number, "the listing ends after " + std::to_string(k) +
                                          " instruction(s); lowering the program above gives " +
                                          std::to_string(want.size()));
    p_.stage = ProgramStage::Lowered;
  }

  static void expect_key(TextCursor& c, const std::string& key) {
    const int column = c.column();
    if (!c.accept_word(key) || !c.accept('=')) c.fail_at(column, "expected '" + key + "='");
  }

  static uint64_t address(TextCursor& c, const std::string& what) {
    const int column = c.column();
    const int64_t v = c.integer(what);
    if (v < 0) c.fail_at(column, what + " must not be negative");
    return static_cast<uint64_t>(v);
  }

  const std::vector<TextLine>& lines_;
  size_t next_;
  const std::string& file_;
  Program& p_;
  std::vector<int> op_line_;
};

}  // namespace

std::string print_program(const Program& p) {
  S2_CHECK(p.stage != ProgramStage::Model, "print_program: the program has no graph yet");
  if (p.stage == ProgramStage::Graph) return ir::print_graph(p.graph);
  std::string s =
      ir::print_graph(p.graph, p.order) + "schedule " + ir::name_text(p.scheduler) + "\n";
  if (p.stage >= ProgramStage::Planned) s += plan_text(p);
  if (p.stage >= ProgramStage::Lowered) {
    s += "lowered target=" + ir::name_text(p.executable.target) + "\n";
    for (const std::string& line : listing(p.executable))
      s += "  " + line + "\n";
  }
  return s;
}

Program parse_program(std::string_view text, const std::string& file) {
  const std::vector<TextLine> lines = ir::split_text_lines(text);
  size_t next = 0;
  ir::ParsedGraph parsed = ir::parse_graph_lines(lines, &next, file);
  Program program;
  program.graph = std::move(parsed.graph);
  program.stage = ProgramStage::Graph;
  SectionParser(lines, next, file, program, std::move(parsed.op_line)).run();
  return program;
}

}  // namespace s2::compiler
