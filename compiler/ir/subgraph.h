#pragma once
// Copies the kept part of a graph into a new one, renumbering its nodes: the rebuild behind
// passes that remove nodes (dead-code elimination, fusion). Nodes keep their relative order,
// so the printed graph changes only where something was removed or replaced.

#include <optional>
#include <vector>

#include "compiler/ir/graph.h"

namespace s2::ir {

struct Selection {
  std::vector<bool> op, tensor, data;  // what survives, indexed by the old ids
  // Optional: op i is written as replacement[i] (old ids inside) instead of itself.
  std::vector<std::optional<Op>> replacement;
  // Optional: a kept tensor whose producer p was removed is produced by producer[p] now.
  std::vector<OpId> producer;
};

// Internal error, prefixed with `who`, when a kept node refers to one that is not kept.
Graph copy_selected(const Graph& in, const Selection& keep, const char* who);

}  // namespace s2::ir
