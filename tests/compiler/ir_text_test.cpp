// The text form round-trips (compiler/ir/printer.h, parser.h; compiler/driver/program_text.h):
// for every zoo model, after every pass of the pipeline, printing, parsing and printing again
// gives the same text, and the parsed program means the same — every data node keeps its
// role, element type, size, constness and a constant its contents; a lowered program lowers
// to the same instructions and tensor table. Also the corners of the syntax: quoted names,
// every float a constant or attribute can hold, integer constants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "compiler/driver/pass_registry.h"
#include "compiler/driver/program_text.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/zoo/zoo.h"
#include "tests/compiler/onnx_test_model.h"

namespace s2::compiler {
namespace {

// "line N:\n  first:  ...\n  second: ..." at the first line where the texts differ.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t at = 0, line = 1;
  while (at < a.size() && at < b.size() && a[at] == b[at]) {
    if (a[at] == '\n') ++line;
    ++at;
  }
  const size_t start = at == 0 ? 0 : a.rfind('\n', at - 1) + 1;
  auto line_of = [&](const std::string& s) { return s.substr(start, s.find('\n', start) - start); };
  return "line " + std::to_string(line) + ":\n  first:  " + line_of(a) +
         "\n  second: " + line_of(b);
}

// Equal element for element, bit for bit (NaN payloads and -0 included).
bool same_bits(const ir::HostArray& a, const ir::HostArray& b) {
  if (a.dtype() != b.dtype() || a.size() != b.size()) return false;
  switch (a.dtype()) {
    case ir::DType::F32:
    case ir::DType::BF16:
    case ir::DType::F16:
      return std::memcmp(a.f32().data(), b.f32().data(), a.size() * sizeof(float)) == 0;
    case ir::DType::I32:
      return a.i32() == b.i32();
    case ir::DType::U8:
      return a.u8() == b.u8();
  }
  return false;
}

// The data nodes some tensor views. Pass place-concat re-homes a concat part into a slice of
// the concat's buffer and leaves the part's own data node behind, viewed by no tensor: it is
// no longer part of the program, and the text (which declares data through tensors) drops it.
std::vector<ir::DataId> viewed_data(const ir::Graph& g) {
  std::vector<bool> viewed(g.num_datas(), false);
  for (size_t i = 0; i < g.num_tensors(); ++i)
    viewed[g.tensor(ir::TensorId(i)).data.index()] = true;
  std::vector<ir::DataId> out;
  for (size_t i = 0; i < viewed.size(); ++i)
    if (viewed[i]) out.push_back(ir::DataId(i));
  return out;
}

void expect_same_data(const ir::Graph& want, const ir::Graph& got, const std::string& where) {
  std::map<std::string, const ir::Data*> by_name;
  for (size_t i = 0; i < got.num_datas(); ++i)
    by_name[got.data(ir::DataId(i)).name] = &got.data(ir::DataId(i));
  const std::vector<ir::DataId> wanted = viewed_data(want);
  ASSERT_EQ(got.num_datas(), wanted.size()) << where;
  for (const ir::DataId id : wanted) {
    const ir::Data& d = want.data(id);
    const auto it = by_name.find(d.name);
    ASSERT_NE(it, by_name.end()) << where << ": data " << d.name;
    const ir::Data& p = *it->second;
    EXPECT_EQ(p.role, d.role) << where << ": data " << d.name;
    EXPECT_EQ(p.dtype, d.dtype) << where << ": data " << d.name;
    EXPECT_EQ(p.numel, d.numel) << where << ": data " << d.name;
    EXPECT_EQ(p.constant, d.constant) << where << ": data " << d.name;
    EXPECT_EQ(p.init != nullptr, d.init != nullptr) << where << ": data " << d.name;
    if (d.constant && d.init && p.init) {
      EXPECT_TRUE(same_bits(*p.init, *d.init)) << where << ": contents of constant " << d.name;
    }
  }
}

void expect_same_executable(const isa::Executable& want, const isa::Executable& got,
                            const std::string& where) {
  EXPECT_EQ(got.target, want.target) << where;
  EXPECT_EQ(got.instructions.size(), want.instructions.size()) << where;
  ASSERT_EQ(got.tensors.size(), want.tensors.size()) << where;
  for (size_t i = 0; i < want.tensors.size(); ++i) {
    const isa::TensorEntry& w = want.tensors[i];
    const isa::TensorEntry& g = got.tensors[i];
    EXPECT_TRUE(g.name == w.name && g.role == w.role && g.dtype == w.dtype && g.shape == w.shape &&
                g.addr == w.addr && g.size == w.size && g.first == w.first && g.last == w.last &&
                g.has_data() == w.has_data())
        << where << ": tensor " << w.name;
  }
  EXPECT_EQ(got.plan.arena_size, want.plan.arena_size) << where;
  EXPECT_EQ(got.debug, want.debug) << where;
}

zoo::ModelOptions small_options(const std::string& model) {
  zoo::ModelOptions o;
  o.batch = 2;
  if (model == "vgg11") {  // 133M weights whatever the image: the smallest batch
    o.batch = 1;
    o.height = o.width = 224;
  }
  if (model == "gpt2-small") {  // its 50257-token vocabulary and 1024 positions at one layer
    o.batch = 1;
    o.lm.layers = 1;
    o.lm.seq_len = 8;
  }
  return o;
}

// The text never carries the contents of weights, inputs and labels, so the round trip drops
// them (after import, and after autodiff adds the velocities): zero-filling vgg11's 0.5 GB of
// classifier weights at every parse would only cost time. MlpContents below keeps them.
void drop_contents(ir::Graph& g) {
  for (size_t i = 0; i < g.num_datas(); ++i)
    if (!g.data(ir::DataId(i)).constant) g.mutable_data(ir::DataId(i)).init = nullptr;
}

// Runs every pass on `model` (a zoo name or an ONNX file), checking the round trip after each.
void check_round_trips(const std::string& model, bool contents) {
  PassContext context;
  context.front.model = model;
  context.front.model_options = small_options(model);
  Program program;
  for (const auto& pass : pass_registry()) {
    run_pass(pass.name, program, context);
    if (!contents && (pass.name == "import" || pass.name == "autodiff"))
      drop_contents(program.graph);
    const std::string where = model + " after " + pass.name;
    const std::string text = print_program(program);
    const Program parsed = parse_program(text, where);
    const std::string again = print_program(parsed);
    ASSERT_TRUE(again == text) << where << ", " << first_difference(text, again);
    EXPECT_EQ(parsed.stage, program.stage) << where;
    expect_same_data(program.graph, parsed.graph, where);
    if (program.stage == ProgramStage::Lowered)
      expect_same_executable(program.executable, parsed.executable, where);
  }
}

class IrTextZoo : public testing::TestWithParam<std::string> {};

TEST_P(IrTextZoo, RoundTripsAfterEveryPass) {
  check_round_trips(GetParam(), false);
}

INSTANTIATE_TEST_SUITE_P(EveryModel, IrTextZoo, testing::ValuesIn(zoo::model_registry().names()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;  // gtest names: no '-'
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// ONNX names: slashes stay bare, colons and blanks are quoted.
TEST(IrText, OnnxModelWithOddNamesRoundTripsAfterEveryPass) {
  onnx_import::testing::TestModel m;
  m.input("x:0", {2, 6});
  m.initializer("onnx::Gemm_7", {4, 6});
  auto& fc = m.node("Gemm", "/fc/Gemm", {"x:0", "onnx::Gemm_7"}, {"logits out"});
  onnx_import::testing::attr_i(fc, "transB", 1);
  m.node("Relu", "/act/Relu", {"logits out"}, {"/act/Relu_output_0"});
  m.output("/act/Relu_output_0", {2, 4});
  const std::string path = testing::TempDir() + "ir_text_odd_names.onnx";
  m.write(path);
  check_round_trips(path, true);
}

// With contents: the text shows `init`, the parser fills zeros, and the executable lowered
// from the text has the same tensors, each that had initial data now starting as zeros that
// take no bytes of the data section.
TEST(IrText, MlpWithContentsRoundTripsAndLowersToZeros) {
  check_round_trips("mlp", true);
  PassContext context;
  context.front.model = "mlp";
  context.front.model_options = small_options("mlp");
  Program program;
  for (const auto& pass : pass_registry())
    run_pass(pass.name, program, context);
  const Program parsed = parse_program(print_program(program), "mlp");
  const isa::Executable& real = program.executable;
  const isa::Executable& text = parsed.executable;
  EXPECT_GT(real.data.size(), 0u);
  EXPECT_EQ(text.data.size(), 0u);
  ASSERT_EQ(text.tensors.size(), real.tensors.size());
  for (size_t i = 0; i < real.tensors.size(); ++i) {
    EXPECT_EQ(text.tensors[i].addr, real.tensors[i].addr) << real.tensors[i].name;
    EXPECT_EQ(text.tensors[i].has_data(), real.tensors[i].has_data()) << real.tensors[i].name;
    if (real.tensors[i].has_data()) {
      EXPECT_TRUE(text.tensors[i].zero_data()) << real.tensors[i].name;
    }
  }
}

// A graph built in C++ with what the zoo never has: names that must be quoted, constants of
// every element type, floats that only print exactly, a string attribute.
ir::Graph corner_graph() {
  using ir::DType;
  using ir::TensorRole;
  ir::Graph g("graph with \"quotes\"");
  const float inf = std::numeric_limits<float>::infinity();
  auto values = std::make_shared<ir::HostArray>(std::vector<float>{
      0.1f, -0.0f, inf, -inf, std::nanf(""), 1e-45f, 3.4028235e38f, 1.0f / 3.0f});
  const ir::TensorId c =
      g.add_parameter("onnx::Const 1", TensorRole::Scratch, DType::F32, {2, 4}, values, true);
  const ir::TensorId x = g.add_parameter("/input:0", TensorRole::Input, DType::F32, {2, 4},
                                         std::make_shared<ir::HostArray>(DType::F32, 8));
  g.add_parameter("ints", TensorRole::Scratch, DType::I32, {3},
                  std::make_shared<ir::HostArray>(std::vector<int32_t>{-2147483647 - 1, 0, 7}),
                  true);
  g.add_parameter("same", TensorRole::Scratch, DType::I32, {2},
                  std::make_shared<ir::HostArray>(std::vector<int32_t>{5, 5}), true);
  const ir::TensorId sum = g.add(ir::OpType::Add, "a \\ b", ir::OpCategory::Forward, {x, c});
  const ir::TensorId scaled = g.add(ir::OpType::Scale, "scaled", ir::OpCategory::Forward, {sum},
                                    ir::Attrs{{"alpha", 0.1}, {"beta", -0.0}});
  const ir::TensorId labels =
      g.add_parameter("labels", TensorRole::Label, DType::I32, {2},
                      std::make_shared<ir::HostArray>(std::vector<int32_t>{1, 3}));
  g.set_loss(g.add(ir::OpType::SoftmaxCe, "loss", ir::OpCategory::Forward, {scaled, labels},
                   ir::Attrs{{"reduction", std::string("sum")}}));
  g.mark_output(g.loss());
  return g;
}

TEST(IrText, QuotedNamesExactFloatsAndIntegerConstantsRoundTrip) {
  const ir::Graph g = corner_graph();
  const std::string text = ir::print_graph(g);
  EXPECT_NE(text.find("graph \"graph with \\\"quotes\\\"\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("%\"onnx::Const 1\": f32[2,4] scratch constant "
                      "init=[0.1,-0,inf,-inf,nan,1e-45,3.4028235e+38,0.33333334]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%ints: i32[3] scratch constant init=[-2147483648,0,7]"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%same: i32[2] scratch constant init=fill(5)"), std::string::npos) << text;
  EXPECT_NE(
      text.find("%\"a \\\\ b\": f32[2,4] = add(%\"/input:0\", %\"onnx::Const 1\")  # forward\n"),
      std::string::npos)
      << text;
  const ir::Graph parsed = ir::parse_graph(text, "corner");
  EXPECT_EQ(ir::print_graph(parsed), text);
  expect_same_data(g, parsed, "corner");
  EXPECT_EQ(parsed.name(), g.name());
  const ir::Op& scale = parsed.op(parsed.find_op("scaled"));
  EXPECT_TRUE(std::signbit(scale.attrs.f("beta")));
  EXPECT_EQ(scale.attrs.f("alpha"), 0.1);
  // Not a constant: the text has no contents, the parser gives zeros.
  const ir::Data& x = parsed.data(parsed.tensor(parsed.find_tensor("/input:0")).data);
  ASSERT_TRUE(x.init);
  EXPECT_EQ(x.init->f32(), std::vector<float>(8, 0.0f));
  const ir::Data& labels = parsed.data(parsed.tensor(parsed.find_tensor("labels")).data);
  EXPECT_EQ(labels.init->i32(), std::vector<int32_t>(2, 0));
}

}  // namespace
}  // namespace s2::compiler
