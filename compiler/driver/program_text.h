#pragma once
// The text form of a program at any stage (program.h): what `s2c compile --dump-after=PASS`
// prints and `s2c opt` reads and writes. print, parse, print gives the same text.
//
// An unscheduled graph is the graph text of compiler/ir/printer.h, nothing more. From
// `schedule` on, the graph's ops are listed in execution order and sections follow it:
//
//   graph mlp
//     ...parameters...
//     ...ops, in execution order...
//   outputs %loss ...
//   loss %loss
//   schedule memory-aware
//   plan greedy alignment=64 persistent=0x2c0 arena=0x2c0+0x400 lower_bound=0x400 dram=0x6c0
//     %x @0x0 size=0x80 steps=0..11
//     %fc1 @0x2c0 size=0x100 steps=0..3
//     ...
//   lowered target=s2train_base
//     0: gemm a=x b=fc1.weight ... deps=... from=fc1
//     ...
//
// `schedule NAME`: the ops above are in the execution order made by scheduler NAME (any
// name; it is a label). The parser takes the order from the text and checks that every op
// comes after the ops it depends on (Graph::predecessors()).
//
// `plan`: the memory-plan summary (planner, alignment, persistent bytes, arena base+size,
// lower bound, DRAM size), then one line per buffer (a data node the program uses) in
// buffer order: its address, its size in bytes and its lifetime in steps of the order
// (inclusive; persistent buffers span every step). Sizes and lifetimes follow from the graph
// and the order (schedule/lifetimes.h), and the lower bound from them (memory::live_peak);
// the parser recomputes them and requires the text to agree, takes the addresses and the rest
// of the summary from it, and proves the plan safe (memory::verify_plan), so a hand-written
// plan is checked like a planner's.
//
// `lowered target=NAME`: the instruction listing, one line per instruction in the syntax of
// the disassembler (docs/assembly.md), with operands named by buffer where they match one.
// The listing follows from the program above it; the parser lowers the parsed program
// itself (for target NAME) and requires the text to be that listing, line for line. The
// executable's initial data is not printed (see compiler/ir/parser.h on initial data).
//
// Every problem is a UserError "FILE:LINE:COLUMN: ...".

#include <string>
#include <string_view>

#include "compiler/driver/program.h"

namespace s2::compiler {

// Precondition: the program has a graph (stage Graph or later).
std::string print_program(const Program& program);

Program parse_program(std::string_view text, const std::string& file);

}  // namespace s2::compiler
