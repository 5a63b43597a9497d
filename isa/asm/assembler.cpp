#include "isa/asm/assembler.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "isa/asm/lexer.h"
#include "isa/asm/names.h"
#include "isa/common/errors.h"
#include "isa/common/float_text.h"
#include "isa/container/byte_io.h"
#include "isa/container/validator.h"
#include "isa/encoding/semantics.h"
#include "isa/numerics/low_precision.h"

namespace s2::isa {
namespace {

using asm_text::Statement;
using asm_text::Token;

constexpr size_t kMaxReported = 20;

// data=fill(v) expands to at most this many bytes over all tensors (docs/assembly.md): a few
// characters must not ask for unbounded memory. Zeros of any size are data=zeros, which takes
// no bytes.
constexpr uint64_t kMaxFillBytes = uint64_t{256} << 20;

// Thrown to abandon the current statement after its error has been recorded.
struct StatementFailed {};

struct KeyValue {
  std::string key;
  std::string value;
  const Token* token;
};

std::optional<uint64_t> parse_u64(const std::string& s) {
  uint64_t v = 0;
  const bool is_hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char* begin = s.data() + (is_hex ? 2 : 0);
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(begin, end, v, is_hex ? 16 : 10);
  if (s.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

class Assembler {
 public:
  Assembler(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  Executable run() {
    const std::vector<Statement> statements = asm_text::lex(text_, file_);
    std::vector<const Statement*> code;
    for (const Statement& st : statements) {
      try {
        const std::string& head = st.tokens.front().text;
        if (head == ".target")
          directive_target(st);
        else if (head == ".dram")
          directive_dram(st);
        else if (head == ".host")
          directive_host(st);
        else if (head == ".plan")
          directive_plan(st);
        else if (head == ".tensor")
          directive_tensor(st);
        else if (head[0] == '.')
          fail(st.tokens.front(),
               "unknown directive '" + head + "' (known: .target .dram .host .plan .tensor)");
        else
          code.push_back(&st);
      } catch (const StatementFailed&) {
      }
    }
    if (!target_seen_ && errors_.empty())
      errors_.push_back(file_ + ":1:1: missing '.target NAME' directive");
    for (const Statement* st : code) {
      try {
        instruction(*st);
      } catch (const StatementFailed&) {
      }
    }
    if (exe_.instructions.empty() && errors_.empty())
      errors_.push_back(file_ + ":1:1: the program has no instructions (it must end with 'end')");
    report();
    finish();
    validate(exe_, file_);
    return std::move(exe_);
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& problem) {
    errors_.push_back(file_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                      ": " + problem);
    throw StatementFailed{};
  }

  void report() const {
    if (errors_.empty()) return;
    std::string message;
    for (size_t i = 0; i < errors_.size() && i < kMaxReported; ++i)
      message += (i ? "\n" : "") + errors_[i];
    if (errors_.size() > kMaxReported)
      message += "\n(" + std::to_string(errors_.size() - kMaxReported) + " more errors)";
    throw UserError(message);
  }

  KeyValue key_value(const Token& t) {
    const size_t eq = t.text.find('=');
    if (eq == std::string::npos || eq == 0) fail(t, "expected KEY=VALUE, got '" + t.text + "'");
    return {t.text.substr(0, eq), t.text.substr(eq + 1), &t};
  }

  // The name `text` (part of token `t`) spells: bare or quoted (names.h).
  std::string name_of(const Token& t, const std::string& text) {
    std::string problem;
    const std::optional<std::string> name = asm_text::unquote_name(text, &problem);
    if (!name) fail(t, problem);
    return *name;
  }

  uint64_t number(const Token& t, const std::string& text, const std::string& what) {
    const std::optional<uint64_t> v = parse_u64(text);
    if (!v)
      fail(t, what + ": expected a non-negative integer (decimal or 0x hex), got '" + text + "'");
    return *v;
  }

  uint32_t number32(const Token& t, const std::string& text, const std::string& what) {
    const uint64_t v = number(t, text, what);
    if (v > UINT32_MAX) fail(t, what + ": " + text + " does not fit in 32 bits");
    return static_cast<uint32_t>(v);
  }

  void expect_count(const Statement& st, size_t n, const std::string& usage) {
    if (st.tokens.size() != n) fail(st.tokens.front(), "usage: " + usage);
  }

  void directive_target(const Statement& st) {
    expect_count(st, 2, ".target NAME");
    const std::string name = name_of(st.tokens[1], st.tokens[1].text);
    if (const std::string problem = target_name_problem(name); !problem.empty())
      fail(st.tokens[1], "target name " + problem);
    exe_.target = name;
    target_seen_ = true;
  }

  void directive_dram(const Statement& st) {
    expect_count(st, 2, ".dram BYTES");
    dram_ = number(st.tokens[1], st.tokens[1].text, ".dram");
    if (*dram_ == 0) fail(st.tokens[1], ".dram: the DRAM size must be positive");
  }

  void directive_host(const Statement& st) {
    expect_count(st, 2, ".host BYTES");
    host_ = number(st.tokens[1], st.tokens[1].text, ".host");
    if (*host_ == 0) fail(st.tokens[1], ".host: the host memory size must be positive");
  }

  // "ADDR" or "host:ADDR" (after the '@'): the address and its space.
  std::pair<MemSpace, uint64_t> address(const Token& tok, const std::string& text) {
    static const std::string kHost = "host:";
    if (text.rfind(kHost, 0) == 0)
      return {MemSpace::Host, number(tok, text.substr(kHost.size()), "host address")};
    return {MemSpace::Dram, number(tok, text, "address")};
  }

  void directive_plan(const Statement& st) {
    plan_seen_ = true;
    for (size_t i = 1; i < st.tokens.size(); ++i) {
      const KeyValue kv = key_value(st.tokens[i]);
      MemoryPlanSummary& p = exe_.plan;
      if (kv.key == "planner") {
        p.planner = name_of(*kv.token, kv.value);
      } else if (kv.key == "arena") {
        const std::vector<std::string> parts = split(kv.value, '+');
        if (parts.size() != 2) fail(*kv.token, "arena: expected BASE+SIZE, got '" + kv.value + "'");
        p.arena_base = number(*kv.token, parts[0], "arena base");
        p.arena_size = number(*kv.token, parts[1], "arena size");
      } else if (kv.key == "lower_bound") {
        p.lower_bound = number(*kv.token, kv.value, "lower_bound");
      } else if (kv.key == "alignment") {
        p.alignment = number32(*kv.token, kv.value, "alignment");
      } else {
        fail(*kv.token,
             "unknown .plan key '" + kv.key + "' (known: planner, arena, lower_bound, alignment)");
      }
    }
  }

  // "f32[4,3,8,8]" -> dtype and shape.
  void parse_type(const Token& t, const std::string& text, DType* dtype,
                  std::vector<uint32_t>* shape) {
    const size_t open = text.find('[');
    if (open == std::string::npos || text.back() != ']')
      fail(t, "expected TYPE[D0,D1,...], got '" + text + "'");
    const std::optional<DType> dt = dtype_from_name(text.substr(0, open));
    if (!dt) fail(t, "unknown element type '" + text.substr(0, open) + "' (known: f32, i32, u8)");
    *dtype = *dt;
    shape->clear();
    for (const std::string& d : split(text.substr(open + 1, text.size() - open - 2), ','))
      shape->push_back(number32(t, d, "dimension"));
    if (shape->empty() || shape->size() > kMaxRank)
      fail(t, "rank " + std::to_string(shape->size()) + " outside 1.." + std::to_string(kMaxRank));
    for (uint32_t d : *shape)
      if (d == 0) fail(t, "dimension of size zero in '" + text + "'");
  }

  void directive_tensor(const Statement& st) {
    if (st.tokens.size() < 5)
      fail(st.tokens.front(),
           "usage: .tensor NAME ROLE TYPE[SHAPE] @[host:]ADDR [size=BYTES] "
           "[life=FIRST..LAST] [data=[...]|fill(V)|zeros]");
    TensorEntry t;
    PendingTensor pending;
    t.name = name_of(st.tokens[1], st.tokens[1].text);
    if (tensor_index_.count(t.name)) fail(st.tokens[1], "tensor '" + t.name + "' declared twice");
    const std::optional<TensorRole> role = role_from_name(st.tokens[2].text);
    if (!role) {
      std::string known;
      for (TensorRole r : all_roles())
        known += std::string(known.empty() ? "" : ", ") + role_name(r);
      fail(st.tokens[2], "unknown role '" + st.tokens[2].text + "' (known: " + known + ")");
    }
    t.role = *role;
    parse_type(st.tokens[3], st.tokens[3].text, &t.dtype, &t.shape);
    if (st.tokens[4].text[0] != '@') fail(st.tokens[4], "expected @ADDRESS");
    std::tie(t.space, t.addr) = address(st.tokens[4], st.tokens[4].text.substr(1));
    t.size = t.dense_bytes();
    for (size_t i = 5; i < st.tokens.size(); ++i) {
      const KeyValue kv = key_value(st.tokens[i]);
      if (kv.key == "size") {
        t.size = number(*kv.token, kv.value, "size");
      } else if (kv.key == "life") {
        const size_t dots = kv.value.find("..");
        if (dots == std::string::npos) fail(*kv.token, "life: expected FIRST..LAST");
        t.first = number32(*kv.token, kv.value.substr(0, dots), "life");
        t.last = number32(*kv.token, kv.value.substr(dots + 2), "life");
        pending.explicit_life = true;
      } else if (kv.key == "data") {
        pending.zeros = kv.value == "zeros";
        if (!pending.zeros) pending.data = parse_data(*kv.token, kv.value, t);
        pending.has_data = true;
      } else {
        fail(*kv.token, "unknown .tensor key '" + kv.key + "' (known: size, life, data)");
      }
    }
    tensor_index_[t.name] = exe_.tensors.size();
    exe_.tensors.push_back(std::move(t));
    pending_.push_back(std::move(pending));
  }

  std::vector<uint8_t> parse_data(const Token& tok, const std::string& text, const TensorEntry& t) {
    if (!text.empty() && text[0] == '<')
      fail(tok,
           "data was elided by the disassembler; disassemble with --data to get "
           "text the assembler can read back");
    const uint64_t n = t.dense_bytes() / dtype_bytes(t.dtype);
    std::vector<std::string> items;
    if (text.rfind("fill(", 0) == 0 && text.back() == ')') {
      // One short token stands for every element: bound what it expands to before allocating,
      // over all tensors together (many short lines must not ask for gigabytes either).
      if (t.dense_bytes() > kMaxFillBytes - filled_bytes_) {
        const std::string before = filled_bytes_ == 0 ? ""
                                                      : "and the fills before it to " +
                                                            std::to_string(filled_bytes_) + ": ";
        fail(tok, "data: fill(v) of tensor '" + t.name + "' would expand to " +
                      std::to_string(t.dense_bytes()) + " bytes, " + before +
                      "more than the limit of " + std::to_string(kMaxFillBytes) +
                      (filled_bytes_ == 0 ? "" : " for a file's fills together") +
                      "; use data=zeros for zeros");
      }
      filled_bytes_ += t.dense_bytes();
      ByteWriter one;
      element(tok, text.substr(5, text.size() - 6), t.dtype, &one);
      // The element once, then the filled part copied after itself: a few large copies, not
      // one insert per element (256 MiB of fills took seconds that way).
      const std::vector<uint8_t>& pattern = one.bytes();
      std::vector<uint8_t> bytes(static_cast<size_t>(n) * pattern.size());
      if (bytes.empty()) return bytes;
      std::copy(pattern.begin(), pattern.end(), bytes.begin());
      for (size_t done = pattern.size(); done < bytes.size(); done *= 2)
        std::copy_n(bytes.begin(), std::min(done, bytes.size() - done),
                    bytes.begin() + static_cast<std::ptrdiff_t>(done));
      return bytes;
    } else if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
      items = split(text.substr(1, text.size() - 2), ',');
      if (items.size() != n)
        fail(tok, "data has " + std::to_string(items.size()) + " values, tensor '" + t.name +
                      "' has " + std::to_string(n) + " elements");
    } else {
      fail(tok, "data: expected [v, v, ...], fill(v) or zeros");
    }
    ByteWriter w;
    for (const std::string& item : items)
      element(tok, item, t.dtype, &w);
    return std::move(w.bytes());
  }

  void element(const Token& tok, const std::string& item, DType dtype, ByteWriter* w) {
    if (dtype == DType::BF16 || dtype == DType::F16) {
      w->u16(half_element(tok, item, dtype));
      return;
    }
    if (dtype == DType::F32) {
      const std::optional<float> v = parse_f32(item);
      if (!v) fail(tok, "data: '" + item + "' is not an f32 value");
      w->u32(f32_bits(*v));
      return;
    }
    int64_t v = 0;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    const bool ok = !item.empty() && r.ec == std::errc() && r.ptr == item.data() + item.size();
    if (dtype == DType::I32) {
      if (!ok || v < INT32_MIN || v > INT32_MAX) fail(tok, "data: '" + item + "' is not an i32");
      w->u32(static_cast<uint32_t>(static_cast<int32_t>(v)));
    } else {
      if (!ok || v < 0 || v > 255) fail(tok, "data: '" + item + "' is not a u8");
      w->u8(static_cast<uint8_t>(v));
    }
  }

  // A bf16 or f16 literal: a number read as f32 and rounded to nearest even (exact for what the
  // disassembler prints), or "nan:0xHHHH", a NaN of that bit pattern.
  uint16_t half_element(const Token& tok, const std::string& item, DType dtype) {
    const std::string type(dtype_name(dtype));
    if (item.rfind("nan:0x", 0) == 0) {
      unsigned bits = 0;
      const char* end = item.data() + item.size();
      const auto r = std::from_chars(item.data() + 6, end, bits, 16);
      if (r.ec != std::errc() || r.ptr != end || bits > 0xFFFF ||
          !numerics::is_nan16(dtype, static_cast<uint16_t>(bits)))
        fail(tok, "data: '" + item + "' is not the bit pattern of a " + type + " NaN");
      return static_cast<uint16_t>(bits);
    }
    const std::optional<float> v = parse_f32(item);
    if (!v) fail(tok, "data: '" + item + "' is not a " + type + " value");
    // bf16_from_f32 rounds any f32, so a bf16 subnormal (an f32 subnormal) comes back too.
    return numerics::bits16_from_f32(dtype, *v);
  }

  // The dense descriptor of `shape`, whose strides must fit the descriptor's 32-bit fields.
  TensorDesc dense(const Token& tok, uint64_t addr, DType dtype, const std::vector<uint32_t>& shape,
                   const std::string& what) {
    uint64_t stride = 1;
    for (size_t i = shape.size(); i-- > 1;) {
      stride *= shape[i];
      if (stride > UINT32_MAX)
        fail(tok, what +
                      ": its dense strides do not fit the descriptor's 32-bit stride fields "
                      "(dimension " +
                      std::to_string(i - 1) + " would step " + std::to_string(stride) +
                      " elements)");
    }
    return TensorDesc::contiguous(addr, dtype, shape);
  }

  TensorDesc operand(const Token& tok, const std::string& text) {
    const bool quoted = !text.empty() && text[0] == '"';
    const std::string name = quoted ? name_of(tok, text) : text;
    const auto it = tensor_index_.find(name);
    if (it != tensor_index_.end()) {
      const TensorEntry& t = exe_.tensors[it->second];
      TensorDesc d = dense(tok, t.addr, t.dtype, t.shape, "tensor '" + name + "'");
      d.space = t.space;
      return d;
    }
    if (quoted) fail(tok, "no tensor named " + text + " is declared");
    const size_t at = text.find('@');
    if (at == std::string::npos)
      fail(tok, "'" + text + "' is neither a declared tensor nor a descriptor TYPE[SHAPE]@ADDR");
    std::string type = text.substr(0, at);
    std::optional<std::vector<uint32_t>> strides;
    if (const size_t brace = type.find('{'); brace != std::string::npos) {
      if (type.back() != '}') fail(tok, "strides: expected {S0,S1,...}");
      strides.emplace();
      for (const std::string& s : split(type.substr(brace + 1, type.size() - brace - 2), ','))
        strides->push_back(number32(tok, s, "stride"));
      type = type.substr(0, brace);
    }
    DType dtype;
    std::vector<uint32_t> shape;
    parse_type(tok, type, &dtype, &shape);
    const auto [space, addr] = address(tok, text.substr(at + 1));
    TensorDesc d = strides
                       ? TensorDesc::contiguous(addr, dtype, std::vector<uint32_t>(shape.size(), 1))
                       : dense(tok, addr, dtype, shape, "'" + text + "'");
    if (strides) {
      std::copy(shape.begin(), shape.end(), d.shape.begin());
      if (strides->size() != shape.size())
        fail(tok,
             std::to_string(strides->size()) + " strides for rank " + std::to_string(shape.size()));
      std::copy(strides->begin(), strides->end(), d.strides.begin());
    }
    d.space = space;
    return d;
  }

  void set_field(Instruction* inst, const KeyValue& kv, const FieldInfo& fi) {
    const Token& tok = *kv.token;
    uint32_t v = 0;
    switch (fi.kind) {
      case FieldKind::UInt:
      case FieldKind::Flag:
        v = number32(tok, kv.value, std::string(fi.name));
        if (fi.bits < 32 && v >= (1u << fi.bits))
          fail(tok, std::string(fi.name) + ": " + kv.value + " does not fit in " +
                        std::to_string(fi.bits) + " bits");
        break;
      case FieldKind::Int: {
        const bool negative = !kv.value.empty() && kv.value[0] == '-';
        const uint64_t m =
            number(tok, negative ? kv.value.substr(1) : kv.value, std::string(fi.name));
        if (m > (negative ? uint64_t{1} << 31 : (uint64_t{1} << 31) - 1))
          fail(tok, std::string(fi.name) + ": " + kv.value + " does not fit in 32 signed bits");
        v = negative ? static_cast<uint32_t>(-static_cast<int64_t>(m)) : static_cast<uint32_t>(m);
        break;
      }
      case FieldKind::Float: {
        const std::optional<float> f = parse_f32(kv.value);
        if (!f) fail(tok, std::string(fi.name) + ": '" + kv.value + "' is not an f32 value");
        v = f32_bits(*f);
        break;
      }
      case FieldKind::Enum: {
        bool found = false;
        std::string known;
        for (const EnumValue& e : enum_values(fi.enum_set)) {
          known += std::string(known.empty() ? "" : ", ") + std::string(e.name);
          if (e.name == kv.value) {
            v = e.value;
            found = true;
          }
        }
        if (!found)
          fail(tok,
               std::string(fi.name) + ": unknown value '" + kv.value + "' (known: " + known + ")");
        break;
      }
    }
    inst->set_raw(fi.id, v);
  }

  void instruction(const Statement& st) {
    size_t next = 0;
    const uint32_t index = static_cast<uint32_t>(exe_.instructions.size());
    const Token& first = st.tokens[0];
    if (index == kMaxInstructions)
      fail(first, "more than " + std::to_string(kMaxInstructions) +
                      " instructions, the limit of an executable");
    if (first.text.back() == ':') {
      const uint64_t given = number(first, first.text.substr(0, first.text.size() - 1), "index");
      if (given != index)
        fail(first, "index " + std::to_string(given) + " but this is instruction " +
                        std::to_string(index));
      next = 1;
    }
    if (next >= st.tokens.size()) fail(first, "expected a mnemonic after the index");
    const Token& mn = st.tokens[next++];
    const OpcodeInfo* info = find_opcode(mn.text);
    if (info == nullptr) fail(mn, "unknown mnemonic '" + mn.text + "'");
    Instruction inst(info->id);
    std::vector<std::string> from;
    std::vector<std::string> seen;
    for (; next < st.tokens.size(); ++next) {
      const KeyValue kv = key_value(st.tokens[next]);
      if (std::find(seen.begin(), seen.end(), kv.key) != seen.end())
        fail(*kv.token, "'" + kv.key + "' given twice");
      seen.push_back(kv.key);
      if (kv.key == "deps") {
        for (const std::string& d : split(kv.value, ',')) {
          const uint32_t dep = number32(*kv.token, d, "deps");
          if (dep >= index)
            fail(*kv.token, "dependency on instruction " + std::to_string(dep) +
                                ", which is not earlier than " + std::to_string(index));
          inst.deps.push_back(dep);
        }
        if (inst.deps.size() > kMaxDeps)
          fail(*kv.token, "more than " + std::to_string(kMaxDeps) + " dependencies");
      } else if (kv.key == "from") {
        std::string problem;
        const auto names = asm_text::split_names(kv.value, &problem);
        if (!names) fail(*kv.token, "from: " + problem);
        from = *names;
      } else if (const int slot = slot_named(*info, kv.key); slot >= 0) {
        inst.set_operand(info->operands[static_cast<size_t>(slot)].slot,
                         operand(*kv.token, kv.value));
      } else if (const FieldInfo* fi = field_named(*info, kv.key)) {
        set_field(&inst, kv, *fi);
      } else {
        fail(*kv.token, "'" + info_name(*info) + "' has no operand or field '" + kv.key +
                            "' (it has: " + known_keys(*info) + ")");
      }
    }
    for (Field f : info->fields) {
      const FieldInfo& fi = field_info(f);
      if (!fi.default_value &&
          std::find(seen.begin(), seen.end(), std::string(fi.name)) == seen.end())
        fail(mn, "required field '" + std::string(fi.name) + "' is missing");
    }
    const std::vector<std::string> problems = check_instruction(inst);
    if (!problems.empty()) fail(mn, info_name(*info) + ": " + problems.front());
    exe_.instructions.push_back(std::move(inst));
    debug_.push_back(std::move(from));
  }

  static std::string info_name(const OpcodeInfo& info) { return std::string(info.mnemonic); }

  static int slot_named(const OpcodeInfo& info, const std::string& name) {
    for (size_t i = 0; i < info.operands.size(); ++i)
      if (slot_info(info.operands[i].slot).name == name) return static_cast<int>(i);
    return -1;
  }

  static const FieldInfo* field_named(const OpcodeInfo& info, const std::string& name) {
    for (Field f : info.fields)
      if (field_info(f).name == name) return &field_info(f);
    return nullptr;
  }

  static std::string known_keys(const OpcodeInfo& info) {
    std::string s;
    for (const OperandSig& o : info.operands)
      s += std::string(slot_info(o.slot).name) + ", ";
    for (Field f : info.fields)
      s += std::string(field_info(f).name) + ", ";
    return s + "deps, from";
  }

  // Lays out the data section, fills defaults for lifetimes and the plan summary.
  void finish() {
    const uint32_t last = static_cast<uint32_t>(exe_.instructions.size() - 1);
    uint64_t end = 0, host_end = 0;
    for (size_t i = 0; i < exe_.tensors.size(); ++i) {
      TensorEntry& t = exe_.tensors[i];
      PendingTensor& p = pending_[i];
      if (!p.explicit_life) t.last = last;
      (t.space == MemSpace::Host ? host_end : end) =
          std::max(t.space == MemSpace::Host ? host_end : end, t.addr + t.size);
      if (!p.has_data) continue;
      if (p.zeros) {
        t.data_offset = kZeroData;
        continue;
      }
      while (exe_.data.size() % kSectionAlignment != 0)
        exe_.data.push_back(0);
      t.data_offset = exe_.data.size();
      exe_.data.insert(exe_.data.end(), p.data.begin(), p.data.end());
    }
    for (const Instruction& inst : exe_.instructions)
      for (const OperandSig& sig : inst.info().operands)
        if (const auto& d = inst.operand(sig.slot)) {
          uint64_t& e = d->space == MemSpace::Host ? host_end : end;
          e = std::max(e, d->addr + d->span_bytes());
        }
    exe_.plan.dram_size = dram_.value_or(end == 0 ? exe_.plan.alignment : end);
    exe_.plan.host_size = host_.value_or(host_end);
    if (!plan_seen_) default_plan();
    if (std::any_of(debug_.begin(), debug_.end(), [](const auto& d) { return !d.empty(); }))
      exe_.debug = std::move(debug_);
  }

  // Without a .plan directive: tensors live for the whole program are persistent; the
  // others form the arena, whose lower bound is the largest sum of live arena bytes at any
  // instruction.
  void default_plan() {
    MemoryPlanSummary& p = exe_.plan;
    const uint32_t last = static_cast<uint32_t>(exe_.instructions.size() - 1);
    auto in_arena = [last](const TensorEntry& t) {
      return t.space == MemSpace::Dram && (t.first != 0 || t.last != last);
    };
    uint64_t begin = UINT64_MAX, end = 0;
    for (const TensorEntry& t : exe_.tensors)
      if (in_arena(t)) {
        begin = std::min(begin, t.addr);
        end = std::max(end, t.addr + t.size);
      }
    p.planner = "asm";
    p.arena_base = end == 0 ? 0 : begin;
    p.arena_size = end - p.arena_base;
    // Live bytes per instruction as a prefix sum of +size at each tensor's first instruction
    // and -size after its last: linear in instructions + tensors. Unsigned wrap-around in
    // the running sums cancels out, so each prefix sum is exact.
    std::vector<uint64_t> change(static_cast<size_t>(last) + 2, 0);
    for (const TensorEntry& t : exe_.tensors) {
      if (!in_arena(t) || t.first > std::min(t.last, last)) continue;
      change[t.first] += t.size;
      change[static_cast<size_t>(std::min(t.last, last)) + 1] -= t.size;
    }
    uint64_t live = 0;
    for (uint32_t i = 0; i <= last; ++i) {
      live += change[i];
      p.lower_bound = std::max(p.lower_bound, std::min(live, p.arena_size));
    }
  }

  struct PendingTensor {
    bool explicit_life = false;
    bool has_data = false;
    bool zeros = false;  // data=zeros: no bytes in the data section
    std::vector<uint8_t> data;
  };

  const std::string& text_;
  const std::string& file_;
  Executable exe_;
  std::vector<PendingTensor> pending_;
  std::map<std::string, size_t> tensor_index_;
  std::vector<std::vector<std::string>> debug_;
  std::optional<uint64_t> dram_;
  std::optional<uint64_t> host_;
  uint64_t filled_bytes_ = 0;  // what the fill(v) data so far expanded to
  bool target_seen_ = false;
  bool plan_seen_ = false;
  std::vector<std::string> errors_;
};

}  // namespace

Executable assemble(const std::string& text, const std::string& file_name) {
  return Assembler(text, file_name).run();
}

}  // namespace s2::isa
