#include "isa/encoding/semantics.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>

namespace s2::isa {
namespace {

std::string shape_text(const std::vector<uint32_t>& dims) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < dims.size(); ++i)
    os << (i ? "," : "") << dims[i];
  os << ']';
  return os.str();
}

// Collects problems for one instruction; the helpers quietly skip absent optional operands.
class Checker {
 public:
  explicit Checker(const Instruction& inst) : inst_(inst) {}

  std::vector<std::string>& problems() { return problems_; }
  const Instruction& inst() const { return inst_; }

  // False also for slots the opcode does not have, so shared rules can name them freely.
  bool has(Slot s) const { return inst_.has_slot(s) && inst_.operand(s).has_value(); }
  std::vector<uint32_t> dims(Slot s) const { return inst_.get(s).dims(); }

  void fail(const std::string& message) { problems_.push_back(message); }

  void expect_shape(Slot s, const std::vector<uint32_t>& want, const std::string& why) {
    if (!has(s)) return;
    if (dims(s) != want)
      fail("operand '" + name(s) + "' has shape " + shape_text(dims(s)) + ", expected " +
           shape_text(want) + " (" + why + ")");
  }

  void expect_same_elements(Slot s, Slot like) {
    if (!has(s) || !has(like)) return;
    if (inst_.get(s).elements() != inst_.get(like).elements())
      fail("operand '" + name(s) + "' has " + std::to_string(inst_.get(s).elements()) +
           " elements, '" + name(like) + "' has " + std::to_string(inst_.get(like).elements()));
  }

  static std::string name(Slot s) { return std::string(slot_info(s).name); }

 private:
  const Instruction& inst_;
  std::vector<std::string> problems_;
};

// Why some two index tuples of `d` address the same element, or nullopt when none do. With
// the dimensions of extent above 1 in stride order, each stride must lie beyond the farthest
// element the finer dimensions reach: sufficient for distinct addresses, and met by every
// layout a tensor is stored in (dense, permuted, sliced).
std::optional<std::string> repeated_addresses(const TensorDesc& d) {
  std::array<unsigned, kMaxRank> order{};
  unsigned n = 0;
  for (unsigned i = 0; i < d.rank; ++i)
    if (d.shape[i] > 1) order[n++] = i;
  std::stable_sort(order.begin(), order.begin() + n,
                   [&](unsigned a, unsigned b) { return d.strides[a] < d.strides[b]; });
  __extension__ using u128 = unsigned __int128;
  u128 reach = 0;  // farthest element offset of the finer dimensions
  for (unsigned k = 0; k < n; ++k) {
    const unsigned i = order[k];
    if (d.strides[i] == 0)
      return "dimension " + std::to_string(i) + " has stride 0 and extent " +
             std::to_string(d.shape[i]);
    if (d.strides[i] <= reach)
      return "dimension " + std::to_string(i) + " (stride " + std::to_string(d.strides[i]) +
             ") steps inside the " + std::to_string(static_cast<uint64_t>(reach) + 1) +
             " elements the finer dimensions span";
    reach += u128{d.shape[i] - 1} * d.strides[i];
  }
  return std::nullopt;
}

void check_signature(Checker& c) {
  const Instruction& inst = c.inst();
  for (const OperandSig& sig : inst.info().operands) {
    const auto& d = inst.operand(sig.slot);
    const std::string name = Checker::name(sig.slot);
    if (!d) {
      if (!sig.optional) c.fail("required operand '" + name + "' is missing");
      continue;
    }
    if (sig.rank != 0 && d->rank != sig.rank)
      c.fail("operand '" + name + "' has rank " + std::to_string(d->rank) + ", expected " +
             std::to_string(sig.rank));
    if (!dtype_allowed(sig.dtype, d->dtype))
      c.fail("operand '" + name + "' has element type " + std::string(dtype_name(d->dtype)) +
             ", expected " + std::string(dtype_req_name(sig.dtype)));
    // An element written twice by one instruction has no defined value (the PPU's lanes and
    // the array's columns write in parallel), and a zero stride would let a few bytes of
    // descriptor promise unbounded work.
    if (sig.access != Access::In)
      if (const std::optional<std::string> why = repeated_addresses(*d))
        c.fail("output operand '" + name + "' writes some elements more than once: " + *why +
               " (each element an instruction writes needs its own address)");
    if (d->space == MemSpace::Host && inst.opcode() != Opcode::Copy)
      c.fail("operand '" + name +
             "' is in host memory: only copy reaches host memory (over the host link)");
  }
  if (inst.opcode() == Opcode::Copy && c.has(Slot::Src) && c.has(Slot::Dst) &&
      inst.get(Slot::Src).space == MemSpace::Host && inst.get(Slot::Dst).space == MemSpace::Host)
    c.fail("copy from host memory to host memory: a copy has at least one side in DRAM");
  for (Field f : inst.info().fields) {
    const FieldInfo& fi = field_info(f);
    const uint32_t v = inst.raw(f);
    if (fi.kind == FieldKind::UInt && v < fi.min_value)
      c.fail("field '" + std::string(fi.name) + "' is " + std::to_string(v) + ", minimum " +
             std::to_string(fi.min_value));
    if (fi.kind == FieldKind::Enum) {
      bool known = false;
      for (const EnumValue& e : enum_values(fi.enum_set))
        known = known || e.value == v;
      if (!known)
        c.fail("field '" + std::string(fi.name) + "' has no " +
               std::string(enum_set_name(fi.enum_set)) + " with value " + std::to_string(v));
    }
  }
}

struct Window {
  uint32_t kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
  bool ceil;
};

Window window_of(const Instruction& inst, uint32_t kh, uint32_t kw) {
  const bool has_dil = inst.has_field(Field::DilationH);
  const bool has_ceil = inst.has_field(Field::CeilMode);
  return {kh,
          kw,
          inst.u(Field::StrideH),
          inst.u(Field::StrideW),
          inst.u(Field::PadTop),
          inst.u(Field::PadLeft),
          inst.u(Field::PadBottom),
          inst.u(Field::PadRight),
          has_dil ? inst.u(Field::DilationH) : 1,
          has_dil ? inst.u(Field::DilationW) : 1,
          has_ceil && inst.flag(Field::CeilMode)};
}

// Output [N, K, P, Q] of a sweep over input [N, C, H, W]; reports a window that does not fit.
std::vector<uint32_t> swept(Checker& c, const std::vector<uint32_t>& in, uint32_t k,
                            const Window& w) {
  const uint64_t p = window_output_size(in[2], w.pt, w.pb, w.kh, w.sh, w.dh, w.ceil);
  const uint64_t q = window_output_size(in[3], w.pl, w.pr, w.kw, w.sw, w.dw, w.ceil);
  if (p == 0 || q == 0)
    c.fail("window " + std::to_string(w.kh) + "x" + std::to_string(w.kw) +
           " does not fit the padded input " + shape_text(in));
  return {in[0], k, static_cast<uint32_t>(p), static_cast<uint32_t>(q)};
}

// The pre operand (the value the activation reads): the output's shape, and only with an
// activation, since without one it would be the output itself.
void check_pre(Checker& c, const std::vector<uint32_t>& out, Slot out_slot) {
  if (!c.has(Slot::Pre)) return;
  c.expect_shape(Slot::Pre, out, "shape of '" + Checker::name(out_slot) + "'");
  if (c.inst().as<Activation>(Field::Act) == Activation::None)
    c.fail("operand 'pre' needs an activation (field 'act'): without one it is 'y' itself");
}

void check_epilogue(Checker& c, const std::vector<uint32_t>& out, Slot out_slot,
                    uint32_t channels) {
  c.expect_shape(Slot::Bias, {channels}, "one bias per output channel");
  c.expect_shape(Slot::Residual, out, "shape of '" + Checker::name(out_slot) + "'");
  c.expect_shape(Slot::Gate, out, "shape of '" + Checker::name(out_slot) + "'");
  if (c.inst().has_field(Field::GateAct) && !c.has(Slot::Gate) &&
      c.inst().as<GateAct>(Field::GateAct) != GateAct::Relu)
    c.fail("field 'gate_act' applies only with a 'gate' operand");
  c.expect_shape(Slot::Stats, {2, channels}, "sum and sum of squares per output channel");
  check_pre(c, out, out_slot);
}

// Convolution geometry shared by the forward and both backward instructions: x is the
// forward input, w the weights, returns the forward output shape (empty on failure).
std::vector<uint32_t> conv_output(Checker& c, const std::vector<uint32_t>& x,
                                  const std::vector<uint32_t>& w) {
  const uint32_t groups = c.inst().u(Field::Groups);
  if (groups == 0 || x[1] % groups != 0 || w[0] % groups != 0) {
    c.fail("groups " + std::to_string(groups) + " must divide the input channels " +
           std::to_string(x[1]) + " and the output channels " + std::to_string(w[0]));
    return {};
  }
  if (uint64_t{w[1]} * groups != x[1]) {
    c.fail("weights " + shape_text(w) + " take " + std::to_string(w[1]) +
           " channels per group, the input " + shape_text(x) + " has " + std::to_string(x[1]) +
           " channels in " + std::to_string(groups) + " groups");
    return {};
  }
  return swept(c, x, w[0], window_of(c.inst(), w[2], w[3]));
}

// {M, N} of op(a) x op(b) over the last two dimensions of 'a' and 'b' (gemm, bmm), or nullopt
// after reporting inner dimensions that differ.
std::optional<std::vector<uint32_t>> product_shape(Checker& c) {
  const auto a = c.dims(Slot::A), b = c.dims(Slot::B);
  const size_t r = a.size();
  const bool ta = c.inst().flag(Field::TransA), tb = c.inst().flag(Field::TransB);
  const uint32_t m = ta ? a[r - 1] : a[r - 2], ka = ta ? a[r - 2] : a[r - 1];
  const uint32_t kb = tb ? b[r - 1] : b[r - 2], n = tb ? b[r - 2] : b[r - 1];
  if (ka != kb) {
    c.fail("inner dimensions differ: 'a' " + shape_text(a) + (ta ? " (transposed)" : "") +
           " gives K=" + std::to_string(ka) + ", 'b' " + shape_text(b) +
           (tb ? " (transposed)" : "") + " gives K=" + std::to_string(kb));
    return std::nullopt;
  }
  return std::vector<uint32_t>{m, n};
}

// The PE array multiplies in one mode per instruction: its multiplicands share an element type.
void check_multiplicands(Checker& c) {
  const std::optional<DType> mode = multiplicand_dtype(c.inst());
  if (!mode) return;
  for (Slot s : kMultiplicands) {
    if (!c.has(s)) continue;
    const TensorDesc& d = c.inst().get(s);
    if (d.dtype != *mode)
      c.fail("operand '" + Checker::name(s) + "' is " + std::string(dtype_name(d.dtype)) +
             " but the PE array multiplies " + std::string(dtype_name(*mode)) +
             " in this instruction: every multiplicand has one element type");
  }
}

void check_shapes(Checker& c) {
  const Instruction& inst = c.inst();
  switch (inst.opcode()) {
    case Opcode::End:
    case Opcode::Barrier:
    case Opcode::Fill:
      return;
    case Opcode::Copy:
      c.expect_same_elements(Slot::Dst, Slot::Src);
      if (inst.get(Slot::Src).dtype != inst.get(Slot::Dst).dtype)
        c.fail("copy converts no element types: 'src' is " +
               std::string(dtype_name(inst.get(Slot::Src).dtype)) + ", 'dst' is " +
               std::string(dtype_name(inst.get(Slot::Dst).dtype)));
      return;
    case Opcode::Conv2d: {
      const auto y = conv_output(c, c.dims(Slot::X), c.dims(Slot::W));
      if (y.empty()) return;
      c.expect_shape(Slot::Y, y, "conv2d output of the input and window");
      check_epilogue(c, y, Slot::Y, y[1]);
      return;
    }
    case Opcode::Conv2dBwdData: {
      const auto x = c.dims(Slot::Dx);
      const auto y = conv_output(c, x, c.dims(Slot::W));
      if (y.empty()) return;
      c.expect_shape(Slot::Dy, y, "forward output of 'dx' and 'w'");
      check_epilogue(c, x, Slot::Dx, x[1]);
      return;
    }
    case Opcode::Conv2dBwdWeight: {
      const auto y = conv_output(c, c.dims(Slot::X), c.dims(Slot::Dw));
      if (y.empty()) return;
      c.expect_shape(Slot::Dy, y, "forward output of 'x' and 'dw'");
      c.expect_shape(Slot::Residual, c.dims(Slot::Dw), "shape of 'dw'");
      return;
    }
    case Opcode::Gemm: {
      const auto mn = product_shape(c);
      if (!mn) return;
      c.expect_shape(Slot::Y, *mn, "M x N of a and b");
      check_epilogue(c, *mn, Slot::Y, (*mn)[1]);
      return;
    }
    case Opcode::Bmm: {
      const auto a = c.dims(Slot::A), b = c.dims(Slot::B);
      if (a.size() < 3 || a.size() != b.size()) {
        c.fail("operands 'a' " + shape_text(a) + " and 'b' " + shape_text(b) +
               " must have the same rank, 3 or 4: one or two batch dimensions, then a matrix");
        return;
      }
      const std::vector<uint32_t> batch(a.begin(), a.end() - 2);
      if (!std::equal(batch.begin(), batch.end(), b.begin())) {
        c.fail("batch dimensions differ: 'a' " + shape_text(a) + ", 'b' " + shape_text(b));
        return;
      }
      const auto mn = product_shape(c);
      if (!mn) return;
      std::vector<uint32_t> y = batch;
      y.insert(y.end(), mn->begin(), mn->end());
      c.expect_shape(Slot::Y, y, "batch dimensions, then M x N of a and b");
      return;
    }
    case Opcode::BnFwd: {
      const auto x = c.dims(Slot::X);
      c.expect_shape(Slot::Y, x, "shape of 'x'");
      for (Slot s :
           {Slot::Gamma, Slot::Beta, Slot::Mean, Slot::InvStd, Slot::RunningMean, Slot::RunningVar})
        c.expect_shape(s, {x[1]}, "one per channel of 'x'");
      c.expect_shape(Slot::Stats, {2, x[1]}, "sum and sum of squares per channel");
      check_pre(c, x, Slot::Y);
      return;
    }
    case Opcode::BnBwd: {
      const auto x = c.dims(Slot::X);
      for (Slot s : {Slot::Dy, Slot::Dx, Slot::Gate})
        c.expect_shape(s, x, "shape of 'x'");
      for (Slot s : {Slot::Gamma, Slot::Mean, Slot::InvStd, Slot::DGamma, Slot::DBeta})
        c.expect_shape(s, {x[1]}, "one per channel of 'x'");
      return;
    }
    case Opcode::LnFwd:
    case Opcode::LnBwd: {
      const auto x = c.dims(Slot::X);
      if (x.size() < 2) {
        c.fail("operand 'x' has rank " + std::to_string(x.size()) +
               "; layer norm needs rows: rank 2 to 4");
        return;
      }
      const std::vector<uint32_t> rows(x.begin(), x.end() - 1);
      for (Slot s : {Slot::Y, Slot::Dy, Slot::Dx})
        c.expect_shape(s, x, "shape of 'x'");
      for (Slot s : {Slot::Gamma, Slot::Beta, Slot::DGamma, Slot::DBeta})
        c.expect_shape(s, {x.back()}, "one per element of the last dimension of 'x'");
      for (Slot s : {Slot::Mean, Slot::InvStd})
        c.expect_shape(s, rows, "one per row: the shape of 'x' without its last dimension");
      return;
    }
    case Opcode::AttnFwd:
    case Opcode::AttnBwd: {
      const auto q = c.dims(Slot::Q), k = c.dims(Slot::K), v = c.dims(Slot::V);
      if (q.size() < 3 || q.size() != k.size() || q.size() != v.size()) {
        c.fail("operands 'q' " + shape_text(q) + ", 'k' " + shape_text(k) + " and 'v' " +
               shape_text(v) +
               " must have the same rank, 3 or 4: one or two batch dimensions, "
               "then rows and a head dimension");
        return;
      }
      const size_t r = q.size();
      const std::vector<uint32_t> batch(q.begin(), q.end() - 2);
      if (!std::equal(batch.begin(), batch.end(), k.begin()) ||
          !std::equal(batch.begin(), batch.end(), v.begin())) {
        c.fail("batch dimensions differ: 'q' " + shape_text(q) + ", 'k' " + shape_text(k) +
               ", 'v' " + shape_text(v));
        return;
      }
      if (k[r - 1] != q[r - 1] || v[r - 2] != k[r - 2]) {
        c.fail("'k' " + shape_text(k) + " must have the head dimension of 'q' " + shape_text(q) +
               " and the rows of 'v' " + shape_text(v));
        return;
      }
      std::vector<uint32_t> scores = batch, y = batch, rows = batch;
      scores.insert(scores.end(), {q[r - 2], k[r - 2]});
      y.insert(y.end(), {q[r - 2], v[r - 1]});
      rows.push_back(q[r - 2]);
      c.expect_shape(Slot::Mask, scores, "batch dimensions, then query rows x key rows");
      c.expect_shape(Slot::Y, y, "batch dimensions, then query rows x the head dimension of 'v'");
      c.expect_shape(Slot::Dy, y, "shape of 'y'");
      c.expect_shape(Slot::Lse, rows, "one per query row: batch dimensions, then query rows");
      c.expect_shape(Slot::DQ, q, "shape of 'q'");
      c.expect_shape(Slot::DK, k, "shape of 'k'");
      c.expect_shape(Slot::DV, v, "shape of 'v'");
      c.expect_shape(Slot::DqAcc, q, "shape of 'q'");
      if (inst.opcode() == Opcode::AttnBwd) {
        const bool wide = inst.get(Slot::DQ).dtype == DType::F32;
        if (!wide && !c.has(Slot::DqAcc))
          c.fail("'dq' is " + std::string(dtype_name(inst.get(Slot::DQ).dtype)) +
                 ", so its partial sums over key blocks need 'dq_acc' (f32, the shape of 'q')");
        if (wide && c.has(Slot::DqAcc))
          c.fail("'dq' is f32 and sums its key blocks itself; 'dq_acc' must be absent");
      }
      return;
    }
    case Opcode::Softmax: {
      const auto x = c.dims(Slot::X);
      if (inst.flag(Field::Causal) && x.size() < 2)
        c.fail("operand 'x' has rank " + std::to_string(x.size()) +
               "; a causal softmax needs rows and columns: rank 2 to 4");
      for (Slot s : {Slot::Mask, Slot::Y})
        c.expect_shape(s, x, "shape of 'x'");
      return;
    }
    case Opcode::Gather:
    case Opcode::ScatterAdd: {
      const bool fwd = inst.opcode() == Opcode::Gather;
      const auto table = c.dims(fwd ? Slot::Table : Slot::Dw);
      std::vector<uint32_t> rows = c.dims(Slot::Ids);
      if (rows.size() > 3) {
        c.fail("operand 'ids' has rank " + std::to_string(rows.size()) +
               "; with the table's row appended the result must fit rank 4");
        return;
      }
      rows.push_back(table.back());
      c.expect_shape(fwd ? Slot::Y : Slot::Dy, rows,
                     "the shape of 'ids' with the table's row length appended");
      return;
    }
    case Opcode::SoftmaxBwd:
      for (Slot s : {Slot::Dy, Slot::Dx})
        c.expect_shape(s, c.dims(Slot::Y), "shape of 'y'");
      return;
    case Opcode::MaxPoolFwd:
    case Opcode::AvgPoolFwd:
    case Opcode::MaxPoolBwd:
    case Opcode::AvgPoolBwd: {
      const bool fwd = inst.opcode() == Opcode::MaxPoolFwd || inst.opcode() == Opcode::AvgPoolFwd;
      const auto x = c.dims(fwd ? Slot::X : Slot::Dx);
      const Window w = window_of(inst, inst.u(Field::KernelH), inst.u(Field::KernelW));
      if (2 * w.pt > w.kh || 2 * w.pb > w.kh || 2 * w.pl > w.kw || 2 * w.pr > w.kw)
        c.fail("padding must be at most half the pooling window");
      const auto y = swept(c, x, x[1], w);
      const std::string why = "pooling output of the input and window";
      c.expect_shape(fwd ? Slot::Y : Slot::Dy, y, why);
      if (inst.has_slot(Slot::Idx)) c.expect_shape(Slot::Idx, y, why);
      return;
    }
    case Opcode::Eltwise: {
      const auto op = inst.as<EltwiseOp>(Field::Op);
      const bool unary = is_unary(op);
      const bool act = inst.as<Activation>(Field::Act) != Activation::None;
      if (uses_act(op) && !act) c.fail("eltwise act and act_bwd need an 'act' other than none");
      if (!uses_act(op) && act) c.fail("field 'act' applies only to eltwise act and act_bwd");
      if (unary && c.has(Slot::B)) c.fail("eltwise op takes no operand 'b'");
      if (!unary && !c.has(Slot::B)) c.fail("eltwise op needs operand 'b'");
      c.expect_same_elements(Slot::B, Slot::A);
      c.expect_same_elements(Slot::Y, Slot::A);
      return;
    }
    case Opcode::SoftmaxCe: {
      if (!c.has(Slot::Loss) && !c.has(Slot::DLogits))
        c.fail("softmax_ce writes neither 'loss' nor 'dlogits'");
      const auto logits = c.dims(Slot::Logits);
      c.expect_shape(Slot::Labels, {logits[0]}, "one label per row of 'logits'");
      c.expect_shape(Slot::Loss, {1}, "a scalar");
      c.expect_shape(Slot::DLogits, logits, "shape of 'logits'");
      c.expect_shape(Slot::DLoss, {1}, "a scalar");
      if (c.has(Slot::DLoss) && !c.has(Slot::DLogits))
        c.fail("softmax_ce reads 'dloss' but writes no 'dlogits' for it to scale");
      return;
    }
    case Opcode::Sgd:
      c.expect_same_elements(Slot::Grad, Slot::Weight);
      c.expect_same_elements(Slot::Velocity, Slot::Weight);
      c.expect_same_elements(Slot::WeightCopy, Slot::Weight);
      c.expect_shape(Slot::FoundInf, {1}, "a flag");
      if (inst.f32(Field::Momentum) != 0.0f && !c.has(Slot::Velocity))
        c.fail("momentum is not zero but operand 'velocity' is missing");
      c.expect_shape(Slot::GradScale, {1}, "a scalar");
      return;
    case Opcode::AdamW: {
      for (Slot s : {Slot::Grad, Slot::ExpAvg, Slot::ExpAvgSq, Slot::WeightCopy})
        c.expect_same_elements(s, Slot::Weight);
      c.expect_shape(Slot::Step, {1}, "one step count");
      c.expect_shape(Slot::GradScale, {1}, "a scalar");
      c.expect_shape(Slot::FoundInf, {1}, "a flag");
      for (Field f : {Field::OneMinusBeta1, Field::OneMinusBeta2}) {
        const float b = inst.f32(f);
        if (!(b > 0.0f && b <= 1.0f))
          c.fail("field '" + std::string(field_info(f).name) + "' is " + std::to_string(b) +
                 ", outside (0, 1]");
      }
      return;
    }
    case Opcode::Cast:
      c.expect_same_elements(Slot::Y, Slot::X);
      return;
    case Opcode::AmpCheck:
      c.expect_shape(Slot::FoundInf, {1}, "a flag");
      return;
    case Opcode::AmpUpdate: {
      for (Slot s : {Slot::FoundInf, Slot::LossScale, Slot::GrowthTracker, Slot::InvScale})
        c.expect_shape(s, {1}, "a scalar");
      for (Field f : {Field::GrowthFactor, Field::BackoffFactor}) {
        const float v = inst.f32(f);
        if (!(v > 0.0f && std::isfinite(v)))
          c.fail("field '" + std::string(field_info(f).name) + "' is " + std::to_string(v) +
                 "; it must be finite and > 0");
      }
      if (inst.u(Field::GrowthInterval) > uint32_t{INT32_MAX})
        c.fail("field 'growth_interval' is " + std::to_string(inst.u(Field::GrowthInterval)) +
               ", more than the i32 growth tracker counts (2147483647)");
      return;
    }
    case Opcode::ClipScale: {
      c.expect_shape(Slot::GradScale, {1}, "a scalar");
      c.expect_shape(Slot::TotalNorm, {1}, "a scalar");
      const float max_norm = inst.f32(Field::MaxNorm);
      if (!(max_norm > 0.0f && std::isfinite(max_norm)))
        c.fail("field 'max_norm' is " + std::to_string(max_norm) + "; it must be finite and > 0");
      return;
    }
    case Opcode::DropoutMask: {
      const float ratio = inst.f32(Field::Ratio);
      if (!(ratio >= 0.0f && ratio < 1.0f))
        c.fail("ratio " + std::to_string(ratio) + " is outside [0, 1)");
      c.expect_shape(Slot::Counter, {1}, "one step counter");
      return;
    }
    case Opcode::Reduce: {
      const TensorDesc& x = inst.get(Slot::X);
      const uint32_t axes = inst.u(Field::Axes);
      if ((axes >> x.rank) != 0) {
        c.fail("axes mask " + std::to_string(axes) + " names dimensions past the rank " +
               std::to_string(x.rank) + " of 'x'");
        return;
      }
      uint64_t kept = 1;
      for (unsigned i = 0; i < x.rank; ++i)
        if ((axes & (1u << i)) == 0) kept *= x.shape[i];
      if (inst.get(Slot::Y).elements() != kept)
        c.fail("operand 'y' has " + std::to_string(inst.get(Slot::Y).elements()) +
               " elements, the kept dimensions of 'x' have " + std::to_string(kept));
      return;
    }
  }
}

}  // namespace

uint64_t window_output_size(uint64_t input, uint64_t pad_before, uint64_t pad_after,
                            uint64_t kernel, uint64_t stride, uint64_t dilation, bool ceil_mode) {
  const uint64_t padded = input + pad_before + pad_after;
  const uint64_t extent = dilation * (kernel - 1) + 1;
  if (kernel == 0 || stride == 0 || padded < extent) return 0;
  uint64_t out = (padded - extent + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // PyTorch: with ceil_mode the last window must start inside the input or left padding.
  if (ceil_mode && (out - 1) * stride >= input + pad_before) --out;
  return out;
}

std::optional<DType> multiplicand_dtype(const Instruction& inst) {
  if (inst.info().unit != Unit::Pe) return std::nullopt;
  for (Slot s : kMultiplicands)
    if (inst.has_slot(s) && inst.operand(s)) return inst.operand(s)->dtype;
  return std::nullopt;
}

std::vector<std::string> check_instruction(const Instruction& inst) {
  Checker c(inst);
  check_signature(c);
  check_multiplicands(c);
  // Shape rules assume the signature holds (operands present, right ranks).
  if (c.problems().empty()) check_shapes(c);
  return std::move(c.problems());
}

}  // namespace s2::isa
