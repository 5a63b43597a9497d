#include "simulator/sweep/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "isa/target/param_reader.h"

namespace s2::sim::sweep {

struct Expression::Node {
  enum class Kind { Number, String, Name, Not, Negate, Binary };
  Kind kind = Kind::Number;
  double number = 0;
  std::string text;  // string literal, name, or the binary operator
  size_t column = 0;
  size_t depth = 1;  // levels of the tree from here down: evaluation recurses this deep
  std::shared_ptr<const Node> left, right;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
}

// How deep an expression may nest. The parser recurses once per parenthesis, `!` and unary
// `-`, and evaluation (and freeing the tree) once per level of the tree, where a chain of
// binary operators is a level each (a + b + c is (a + b) + c): without a bound, a spec of
// "((((...", "----1" or "1 + 1 + ... + 1" a few hundred thousand long overflows the stack.
// A constraint a person writes nests a handful of levels.
constexpr size_t kMaxDepth = 256;

// A recursive-descent parser over the text; positions are 0-based, columns 1-based.
class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  NodePtr parse_all(std::vector<std::string>& names) {
    names_ = &names;
    NodePtr root = parse_or();
    skip_space();
    if (at_ < s_.size()) fail("unexpected \"" + s_.substr(at_, 1) + "\"");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw ExpressionError{problem, at_ + 1};
  }

  void skip_space() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_])) != 0)
      ++at_;
  }

  bool take(const char* op) {
    skip_space();
    const std::string_view want(op);
    if (s_.compare(at_, want.size(), want) != 0) return false;
    // "<" must not take the first character of "<=", nor "!" of "!=".
    if (want.size() == 1 && (want == "<" || want == ">" || want == "!" || want == "=") &&
        at_ + 1 < s_.size() && s_[at_ + 1] == '=')
      return false;
    at_ += want.size();
    return true;
  }

  // One level deeper for the parse below a parenthesis, `!` or unary `-` at `column`; the
  // caller's level is given back when the guard goes out of scope.
  struct Level {
    Level(Parser& p, size_t column) : parser(p) {
      if (++parser.nesting_ > kMaxDepth) too_deep(column);
    }
    ~Level() { --parser.nesting_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    Parser& parser;
  };

  [[noreturn]] static void too_deep(size_t column) {
    throw ExpressionError{"the expression nests more than " + std::to_string(kMaxDepth) +
                              " levels deep (parentheses, ! and unary -, and each operator of "
                              "a chain)",
                          column};
  }

  // A node over `left` (and `right`): its depth, checked against the bound.
  NodePtr with_children(std::shared_ptr<Node> node, NodePtr left, NodePtr right = nullptr) {
    node->depth = 1 + std::max(left->depth, right ? right->depth : 0);
    if (node->depth > kMaxDepth) too_deep(node->column);
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }

  NodePtr binary(const std::string& op, size_t column, NodePtr left, NodePtr right) {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::Binary;
    node->text = op;
    node->column = column;
    return with_children(std::move(node), std::move(left), std::move(right));
  }

  NodePtr parse_or() {
    NodePtr left = parse_and();
    for (;;) {
      const size_t column = at_ + 1;
      if (!take("||")) return left;
      left = binary("||", column, left, parse_and());
    }
  }

  NodePtr parse_and() {
    NodePtr left = parse_not();
    for (;;) {
      const size_t column = at_ + 1;
      if (!take("&&")) return left;
      left = binary("&&", column, left, parse_not());
    }
  }

  NodePtr parse_not() {
    skip_space();
    const size_t column = at_ + 1;
    if (!take("!")) return parse_comparison();
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::Not;
    node->column = column;
    const Level level(*this, column);
    return with_children(std::move(node), parse_not());
  }

  NodePtr parse_comparison() {
    NodePtr left = parse_sum();
    skip_space();
    const size_t column = at_ + 1;
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (take(op)) {
        NodePtr node = binary(op, column, left, parse_sum());
        skip_space();
        for (const char* again : {"<", ">", "==", "!="})
          if (s_.compare(at_, std::string_view(again).size(), again) == 0)
            fail("comparisons do not chain; join them with &&");
        return node;
      }
    return left;
  }

  NodePtr parse_sum() {
    NodePtr left = parse_product();
    for (;;) {
      skip_space();
      const size_t column = at_ + 1;
      if (take("+"))
        left = binary("+", column, left, parse_product());
      else if (take("-"))
        left = binary("-", column, left, parse_product());
      else
        return left;
    }
  }

  NodePtr parse_product() {
    NodePtr left = parse_unary();
    for (;;) {
      skip_space();
      const size_t column = at_ + 1;
      if (take("*"))
        left = binary("*", column, left, parse_unary());
      else if (take("/"))
        left = binary("/", column, left, parse_unary());
      else
        return left;
    }
  }

  NodePtr parse_unary() {
    skip_space();
    const size_t column = at_ + 1;
    if (!take("-")) return parse_atom();
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::Negate;
    node->column = column;
    const Level level(*this, column);
    return with_children(std::move(node), parse_unary());
  }

  NodePtr parse_atom() {
    skip_space();
    auto node = std::make_shared<Node>();
    node->column = at_ + 1;
    if (at_ >= s_.size()) fail("expected a value, got the end of the expression");
    const char c = s_[at_];
    if (c == '(') {
      const Level level(*this, at_ + 1);
      ++at_;
      NodePtr inner = parse_or();
      if (!take(")")) fail("expected \")\"");
      return inner;
    }
    if (c == '"') {
      const size_t end = s_.find('"', at_ + 1);
      if (end == std::string::npos) fail("a string without its closing \"");
      node->kind = Node::Kind::String;
      node->text = s_.substr(at_ + 1, end - at_ - 1);
      at_ = end + 1;
      return node;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
      node->kind = Node::Kind::Number;
      node->number = parse_number();
      return node;
    }
    if (is_name_start(c)) {
      const size_t start = at_;
      while (at_ < s_.size() && is_name_char(s_[at_]))
        ++at_;
      node->kind = Node::Kind::Name;
      node->text = s_.substr(start, at_ - start);
      if (std::find(names_->begin(), names_->end(), node->text) == names_->end())
        names_->push_back(node->text);
      return node;
    }
    fail("expected a number, a name, a string or \"(\", got \"" + s_.substr(at_, 1) + "\"");
  }

  // A number, then an optional binary unit right after it ("1MiB", "64 KiB").
  double parse_number() {
    const size_t start = at_;
    while (at_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[at_])) != 0 ||
                               s_[at_] == '.' || s_[at_] == 'e' || s_[at_] == 'E' ||
                               ((s_[at_] == '+' || s_[at_] == '-') && at_ > start &&
                                (s_[at_ - 1] == 'e' || s_[at_ - 1] == 'E'))))
      ++at_;
    const std::string digits = s_.substr(start, at_ - start);
    std::optional<double> value = target::parse_number_text(digits);
    if (!value) {
      at_ = start;
      fail("malformed number \"" + digits + "\"");
    }
    size_t unit_at = at_;
    while (unit_at < s_.size() && s_[unit_at] == ' ')
      ++unit_at;
    size_t unit_end = unit_at;
    while (unit_end < s_.size() && std::isalpha(static_cast<unsigned char>(s_[unit_end])) != 0)
      ++unit_end;
    const std::string unit = s_.substr(unit_at, unit_end - unit_at);
    if (unit.empty() || (unit_at > at_ && !(unit == "B" || unit.size() == 3))) return *value;
    std::string problem;
    const std::optional<uint64_t> scale = target::parse_byte_size_text("1" + unit, problem);
    if (!scale) {
      if (unit_at > at_) return *value;  // "1 && ..." or "2 * x": a name follows, not a unit
      fail(problem);
    }
    at_ = unit_end;
    return *value * static_cast<double>(*scale);
  }

  const std::string& s_;
  size_t at_ = 0;
  size_t nesting_ = 0;  // parentheses, ! and unary - open around the parse in progress
  std::vector<std::string>* names_ = nullptr;
};

const char* kind_name(const ExprValue& v) {
  return std::holds_alternative<double>(v) ? "a number" : "a string";
}

double number_of(const ExprValue& v, const Node& at, const char* role) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  throw ExpressionError{std::string(role) + " \"" + at.text +
                            "\" needs numbers, got the string \"" + std::get<std::string>(v) + "\"",
                        at.column};
}

using Lookup = std::function<std::optional<ExprValue>(const std::string&)>;

ExprValue eval(const Node& n, const Lookup& lookup) {
  switch (n.kind) {
    case Node::Kind::Number:
      return n.number;
    case Node::Kind::String:
      return n.text;
    case Node::Kind::Name: {
      std::optional<ExprValue> v = lookup(n.text);
      if (!v) throw ExpressionError{"unknown name \"" + n.text + "\"", n.column};
      return *v;
    }
    case Node::Kind::Not:
      return truthy(eval(*n.left, lookup), n.column) ? 0.0 : 1.0;
    case Node::Kind::Negate:
      return -number_of(eval(*n.left, lookup), n, "unary -");
    case Node::Kind::Binary:
      break;
  }
  const std::string& op = n.text;
  if (op == "&&" || op == "||") {
    const bool left = truthy(eval(*n.left, lookup), n.left->column);
    if (op == "&&" && !left) return 0.0;
    if (op == "||" && left) return 1.0;
    return truthy(eval(*n.right, lookup), n.right->column) ? 1.0 : 0.0;
  }
  const ExprValue a = eval(*n.left, lookup);
  const ExprValue b = eval(*n.right, lookup);
  if (op == "==" || op == "!=") {
    if (a.index() != b.index())
      throw ExpressionError{"\"" + op + "\" compares " + kind_name(a) + " with " + kind_name(b),
                            n.column};
    return (a == b) == (op == "==") ? 1.0 : 0.0;
  }
  const double x = number_of(a, n, "operator");
  const double y = number_of(b, n, "operator");
  if (op == "+") return x + y;
  if (op == "-") return x - y;
  if (op == "*") return x * y;
  if (op == "/") {
    if (y == 0) throw ExpressionError{"division by zero", n.column};
    return x / y;
  }
  if (op == "<") return x < y ? 1.0 : 0.0;
  if (op == "<=") return x <= y ? 1.0 : 0.0;
  if (op == ">") return x > y ? 1.0 : 0.0;
  return x >= y ? 1.0 : 0.0;  // ">="
}

}  // namespace

bool truthy(const ExprValue& value, size_t column) {
  if (const double* d = std::get_if<double>(&value)) return *d != 0;
  throw ExpressionError{"the string \"" + std::get<std::string>(value) +
                            "\" is not a condition; compare it with == or !=",
                        column};
}

Expression Expression::parse(const std::string& text) {
  Expression e;
  e.text_ = text;
  e.root_ = Parser(text).parse_all(e.names_);
  return e;
}

ExprValue Expression::evaluate(const Lookup& lookup) const {
  return eval(*root_, lookup);
}

}  // namespace s2::sim::sweep
