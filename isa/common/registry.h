#pragma once
// Registry<T>: the one mechanism by which the toolchain finds components by name (STYLE.md,
// "Wiring"): op schemas and lowerings, ONNX translators, schedulers, memory planners, zoo
// models, passes, DRAM backends, PE-array dataflows, functional kernels.
//
// Entries keep their registration order, which is the order names() and the error messages
// list them in (so a registry's file decides how it reads in --help), unless the registry is
// made with ListOrder::Sorted (long lists, like the ONNX operators, read better sorted).
// Registering an empty or a duplicate name is an internal error. Looking up an unknown name with
// get() is a UserError with one wording everywhere:
//
//     unknown memory planner 'gredy'; known: none, grad-reuse, greedy, search
//
// A registry is filled once (by the register_*() functions its owner calls when first asked)
// and read-only after that; it is not thread-safe while being filled.

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "isa/common/errors.h"

namespace s2 {

enum class ListOrder { Registration, Sorted };

template <typename T>
class Registry {
 public:
  struct Entry {
    std::string name;
    T value;
  };

  // `what` names one entry in messages: "memory planner", "ONNX operator", "DRAM backend".
  explicit Registry(std::string what, ListOrder order = ListOrder::Registration)
      : what_(std::move(what)), order_(order) {}

  // Registers `value` under `name` and returns the stored value.
  T& add(std::string name, T value) {
    S2_CHECK(!name.empty(), what_ + " registry: an entry without a name");
    S2_CHECK(index_.find(name) == index_.end(),
             what_ + " registry: '" + name + "' registered twice");
    index_.emplace(name, entries_.size());
    entries_.push_back({std::move(name), std::move(value)});
    return entries_.back().value;
  }

  // The entry named `name`, or null.
  const T* find(std::string_view name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second].value;
  }
  bool contains(std::string_view name) const { return index_.find(name) != index_.end(); }

  // The entry named `name`; UserError(unknown_message(name)) when there is none.
  const T& get(std::string_view name) const {
    if (const T* value = find(name)) return *value;
    throw UserError(unknown_message(name));
  }

  // "unknown WHAT 'NAME'; known: A, B, C": callers that add a place (a flag, a file and
  // line) put it in front.
  std::string unknown_message(std::string_view name) const {
    return "unknown " + what_ + " '" + std::string(name) + "'; known: " + known();
  }

  // Every name in the registry's list order, and the same joined by ", ".
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    if (order_ == ListOrder::Sorted) {
      for (const auto& [name, index] : index_)
        out.push_back(name);
    } else {
      for (const Entry& e : entries_)
        out.push_back(e.name);
    }
    return out;
  }
  std::string known() const {
    std::string out;
    for (const std::string& name : names())
      out += (out.empty() ? "" : ", ") + name;
    return out;
  }

  const std::string& what() const { return what_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Entries in registration order (whatever the list order).
  typename std::deque<Entry>::const_iterator begin() const { return entries_.begin(); }
  typename std::deque<Entry>::const_iterator end() const { return entries_.end(); }

 private:
  std::string what_;
  ListOrder order_;
  std::deque<Entry> entries_;  // a deque: values never move once registered
  std::map<std::string, size_t, std::less<>> index_;
};

}  // namespace s2
