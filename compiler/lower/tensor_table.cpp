#include "compiler/lower/tensor_table.h"

#include <cstring>

#include "isa/common/errors.h"
#include "isa/common/float_bits.h"
#include "isa/numerics/low_precision.h"

namespace s2::lower {
namespace {

// The tensor whose shape best describes a data node: the first dense view of all of it with a
// descriptor rank (normally the tensor the data was created with).
std::vector<ir::TensorId> main_tensors(const ir::Graph& graph) {
  std::vector<ir::TensorId> main(graph.num_datas());
  for (size_t i = 0; i < graph.num_tensors(); ++i) {
    const ir::Tensor& t = graph.tensor(ir::TensorId(i));
    ir::TensorId& slot = main[t.data.index()];
    if (slot.valid() || t.offset != 0 || !t.contiguous() || t.shape.empty() ||
        t.shape.size() > isa::kMaxRank || t.numel() != graph.data(t.data).numel)
      continue;
    slot = ir::TensorId(i);
  }
  return main;
}

std::vector<uint32_t> entry_shape(const ir::Graph& graph, ir::DataId d, ir::TensorId main) {
  const ir::Data& data = graph.data(d);
  const ir::Shape shape = main.valid() ? graph.tensor(main).shape : ir::Shape{data.numel};
  std::vector<uint32_t> out;
  for (int64_t extent : shape) {
    if (extent < 1 || extent > INT64_C(0xffffffff))
      throw UserError("data '" + data.name + "' " + ir::shape_text(data.dtype, shape) +
                      " does not fit an S2Train tensor-table entry (32-bit dimensions)");
    out.push_back(static_cast<uint32_t>(extent));
  }
  return out;
}

// Little-endian, byte by byte: compilers turn this into one store on little-endian hosts
// (isa::store_u32 lives in another translation unit and costs a call per element).
inline void put_u32(uint8_t* out, uint32_t v) {
  out[0] = static_cast<uint8_t>(v);
  out[1] = static_cast<uint8_t>(v >> 8);
  out[2] = static_cast<uint8_t>(v >> 16);
  out[3] = static_cast<uint8_t>(v >> 24);
}

// Appends the initial contents of `data` to the data section, little-endian, at the section's
// next 64-byte boundary (where `s2c asm` puts each tensor's contents too, so a compiled
// executable disassembles and reassembles to the same bytes); returns the offset, or
// isa::kZeroData for zeros that were never written (they take no bytes).
uint64_t append_init(const ir::Data& data, std::vector<uint8_t>& section) {
  const ir::HostArray& init = *data.init;
  S2_CHECK(init.dtype() == data.dtype && static_cast<int64_t>(init.size()) == data.numel,
           "lowering: initial data of '" + data.name + "' does not match its node");
  if (init.lazy_zeros()) return isa::kZeroData;
  section.resize((section.size() + isa::kSectionAlignment - 1) / isa::kSectionAlignment *
                 isa::kSectionAlignment);
  const auto offset = static_cast<uint64_t>(section.size());
  section.resize(section.size() + init.size() * isa::dtype_bytes(data.dtype));
  uint8_t* out = section.data() + offset;
  switch (data.dtype) {
    case isa::DType::F32:
      for (float v : init.f32()) {
        put_u32(out, f32_bits(v));
        out += 4;
      }
      break;
    case isa::DType::I32:
      for (int32_t v : init.i32()) {
        put_u32(out, static_cast<uint32_t>(v));
        out += 4;
      }
      break;
    case isa::DType::U8:
      std::memcpy(out, init.u8().data(), init.size());
      break;
    case isa::DType::BF16:
    case isa::DType::F16:
      for (float v : init.f32()) {
        const uint16_t bits = numerics::bits16_from_f32(data.dtype, v);
        out[0] = static_cast<uint8_t>(bits);
        out[1] = static_cast<uint8_t>(bits >> 8);
        out += 2;
      }
      break;
  }
  return offset;
}

// Instruction indices bounding each step: the first instruction at or after it and the last
// at or before it (views emit none, so a lifetime edge on a view moves to its neighbour).
struct StepBounds {
  std::vector<uint32_t> at_or_after, at_or_before;
};

StepBounds step_bounds(const std::vector<int64_t>& instruction_of_step, uint32_t end_index) {
  const size_t steps = instruction_of_step.size();
  StepBounds b{std::vector<uint32_t>(steps, end_index), std::vector<uint32_t>(steps, 0)};
  uint32_t next = end_index;
  for (size_t s = steps; s-- > 0;) {
    if (instruction_of_step[s] >= 0) next = static_cast<uint32_t>(instruction_of_step[s]);
    b.at_or_after[s] = next;
  }
  uint32_t previous = 0;
  for (size_t s = 0; s < steps; ++s) {
    if (instruction_of_step[s] >= 0) previous = static_cast<uint32_t>(instruction_of_step[s]);
    b.at_or_before[s] = previous;
  }
  return b;
}

}  // namespace

void emit_tensor_table(const ir::Graph& graph, const std::vector<memory::Buffer>& buffers,
                       const std::vector<ir::DataId>& buffer_data, const memory::MemoryPlan& plan,
                       const std::vector<int64_t>& instruction_of_step, isa::Executable& exe) {
  S2_CHECK(!exe.instructions.empty(), "lowering: tensor table before the instructions");
  const auto end_index = static_cast<uint32_t>(exe.instructions.size() - 1);
  const size_t steps = instruction_of_step.size();
  const StepBounds bounds = step_bounds(instruction_of_step, end_index);
  const std::vector<ir::TensorId> main = main_tensors(graph);
  // Hundreds of MiB for large models: one allocation instead of repeated growth.
  uint64_t init_bytes = exe.data.size();
  for (ir::DataId d : buffer_data)
    if (graph.data(d).init && !graph.data(d).init->lazy_zeros())
      init_bytes +=
          static_cast<uint64_t>(graph.data(d).numel) * isa::dtype_bytes(graph.data(d).dtype);
  exe.data.reserve(static_cast<size_t>(init_bytes));
  for (size_t i = 0; i < buffers.size(); ++i) {
    const memory::Buffer& b = buffers[i];
    const ir::DataId d = buffer_data[i];
    const ir::Data& data = graph.data(d);
    S2_CHECK(b.first <= b.last && b.last < steps,
             "lowering: buffer '" + b.name + "' has lifetime " + std::to_string(b.first) + ".." +
                 std::to_string(b.last) + " outside the " + std::to_string(steps) +
                 " steps of the order");
    isa::TensorEntry e;
    e.name = b.name;
    e.role = b.role;
    e.dtype = data.dtype;
    e.shape = entry_shape(graph, d, main[d.index()]);
    e.addr = plan.address[i];
    e.space = b.space;
    S2_CHECK(b.size >= e.dense_bytes(), "lowering: buffer '" + b.name + "' of " +
                                            std::to_string(b.size) + " bytes cannot hold '" +
                                            data.name + "'");
    // The planner reserves whole alignment units; record that unless it would run past DRAM
    // (a last buffer the planner did not pad).
    const uint64_t reserved = memory::align_up(b.size, plan.alignment);
    const uint64_t space_end = b.space == isa::MemSpace::Host ? plan.host_size : plan.dram_size;
    e.size = e.addr + reserved <= space_end ? reserved : b.size;
    if (b.persistent) {
      e.first = 0;
      e.last = end_index;
    } else {
      e.first = bounds.at_or_after[b.first];
      // Live to the final step: the host reads it after the program ends.
      e.last = b.last + 1 == steps ? end_index : bounds.at_or_before[b.last];
      if (e.last < e.first) e.last = e.first;
    }
    if (data.init) {
      // Loaded before the first instruction runs: only safe where nothing else lives earlier.
      S2_CHECK(b.persistent || b.first == 0, "lowering: buffer '" + b.name +
                                                 "' has initial data but starts at step " +
                                                 std::to_string(b.first));
      e.data_offset = append_init(data, exe.data);
    }
    exe.tensors.push_back(std::move(e));
  }
  exe.plan.dram_size = plan.dram_size;
  exe.plan.arena_base = plan.arena_base;
  exe.plan.arena_size = plan.arena_size;
  exe.plan.lower_bound = plan.lower_bound;
  S2_CHECK(plan.alignment <= UINT32_MAX, "lowering: alignment does not fit 32 bits");
  exe.plan.alignment = static_cast<uint32_t>(plan.alignment);
  exe.plan.planner = plan.planner;
  exe.plan.host_size = plan.host_size;
}

}  // namespace s2::lower
