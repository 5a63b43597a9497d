#pragma once
// The terms of the graph text (printer.h) that parser.cpp reads inside a statement: element
// types and shapes, view details, roles, constants' contents, op types, attributes and
// categories. Each fails through the cursor, at the column of the offending term.

#include <optional>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/ir/host_array.h"
#include "compiler/ir/text_syntax.h"
#include "compiler/ops/registry.h"

namespace s2::ir {

// The most elements a tensor of the text may have: what the ISA's 32-bit descriptor fields
// can address (so a shape's element count never overflows, and no size sum does).
inline constexpr int64_t kMaxElements = 0xffffffffLL;

struct TypeTerm {
  int column = 0;
  DType dtype = DType::F32;
  Shape shape;
};

// "{strides=[..] offset=N data=%NAME}"; each part may be left out.
struct ViewTerm {
  bool present = false;
  int column = 0;
  std::optional<Shape> strides;
  std::optional<int64_t> offset;
  std::optional<std::string> data;
  int data_column = 0;
};

TypeTerm parse_type(TextCursor& c);
ViewTerm parse_view(TextCursor& c);
TensorRole parse_role(TextCursor& c);
// "fill(V)" or "[v0,v1,...]" with one value per element of `type`; `what` names the tensor.
HostArray parse_values(TextCursor& c, const TypeTerm& type, const std::string& what);
OpType parse_op_type(TextCursor& c);
// NAME=VALUE pairs up to '#' or the end of the line, of the kinds the schema declares, with
// the schema's defaults for those left out; a missing required one fails at `op_column`.
Attrs parse_attrs(TextCursor& c, const OpSchema& schema, int op_column);
OpCategory parse_category(TextCursor& c);

}  // namespace s2::ir
