#pragma once
// Reads the graph text of printer.h back into a Graph (`s2c opt`, the lit tests of
// tests/lit/): printing, parsing and printing again gives the same text byte for byte.
//
// The first problem is a UserError "FILE:LINE:COLUMN: what was expected". Checked: every
// name is declared once, before it is used; element types, roles, op types, categories and
// attribute keys exist, and attribute values have the kinds the op's schema declares (left
// out ones take the schema's defaults, so hand-written text may omit them); an op lists at
// most its schema's inputs (left out trailing ones are absent) and exactly its outputs; each
// op's outputs are what its shape inference gives — type and shape, and for views and
// in-place updates the data node, strides and offset (which may be left out and are then
// taken from shape inference). The finished graph must pass verify_graph.
//
// Node ids follow the text: parameters and ops in the order written, an op's new data nodes
// after the ones it reads. A new (non-view) output's data node has the role of its op's
// category (output_role).
//
// Initial data: the text carries the contents of constants only. A parameter marked `init`
// without values gets zeros; `init=fill(V)` and `init=[...]` are used as written, on any
// parameter. So the passes that compute with constants (fold, simplify) see the real
// numbers, while an executable lowered from parsed text starts from zero weights, inputs and
// labels. A constant without values is an error.

#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/text_syntax.h"

namespace s2::ir {

// `text` must hold one graph and nothing else; `file` names it in messages.
Graph parse_graph(std::string_view text, const std::string& file);

struct ParsedGraph {
  Graph graph;
  std::vector<int> op_line;  // per op id, the line that declares it
};

// For texts that go on after the graph (s2c opt's program text): parses the graph starting
// at lines[*next] and leaves *next at the first line after its `outputs` and `loss` lines.
ParsedGraph parse_graph_lines(const std::vector<TextLine>& lines, size_t* next,
                              const std::string& file);

}  // namespace s2::ir
