#pragma once
// The tiny in-compiler stream checker of issue 4: runs an executable's instructions in
// program order on a flat DRAM image with the op registry's reference kernels, so a test can
// compare the numbers with the reference interpreter on the graph the executable came from.
// Agreement proves lowering, planning and operand addressing together; a plan that lets two
// live tensors share bytes shows up as different numbers. It is not the simulator: no
// timing, no overlap, and dependencies are not consulted (program order is always safe).
//
// Each instruction maps back to the op type(s) and attributes of op_lowering.h; operands are
// gathered from the image into dense arrays (strided descriptors included), the kernel runs,
// and its outputs are scattered back. In-place operands (sgd's weight and velocity, batch
// norm's running statistics) are read and written through the same array, as the interpreter
// does. copy and fill are moved directly; an instruction no registry kernel computes (eltwise
// `sub`, reduce `max`, ...) is a UserError naming it, since the compiler never emits one.

#include "compiler/lower/dram_image.h"
#include "isa/container/executable.h"

namespace s2::lower {

// The DRAM image after the last instruction, starting from DramImage::load(exe).
DramImage execute_stream(const isa::Executable& exe);

// Runs one instruction (index `index` of `exe`, for messages) on `image`.
void execute_instruction(const isa::Executable& exe, size_t index, DramImage& image);

}  // namespace s2::lower
