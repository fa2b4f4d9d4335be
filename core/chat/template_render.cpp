#include "core/chat/template_render.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/chat/template_parser.h"
#include "core/chat/template_strings.h"

namespace tessera::chat {
namespace {

struct BreakLoop {};
struct ContinueLoop {};

// Lists, dicts and namespaces nest at most this deep in a value: deeper ones would
// recurse that deep when printed, compared or freed.
constexpr int kMaxValueDepth = 64;
// tojson's indent at most (Python has no limit; no template needs more).
constexpr int64_t kMaxJsonIndent = 1024;
// The largest value a template may hold (Value::footprint): four times the text of a
// conversation of a million tokens. A string doubled in a loop, or a list appended to
// itself, stops here, in well under a second.
constexpr size_t kMaxValueBytes = size_t{16} << 20;
// The work one rendering may do, counted as the footprints of the values it builds and
// compares: sixteen times the largest value (real templates build a few copies of the
// conversation). A loop that grows a string a character at a time, or searches a long
// list at every step (quadratic work), stops here instead of running for hours.
constexpr size_t kMaxWorkBytes = kMaxValueBytes * 16;

class Renderer {
 public:
  Renderer(const Value& context, const std::string& name, size_t max_output, size_t max_steps)
      : name_(name), max_output_(max_output), max_steps_(max_steps) {
    scopes_.emplace_back();
    if (context.is_mapping()) {
      for (const auto& [k, v] : context.as_dict()) scopes_.back()[k] = v;
    }
  }

  void run(const NodeList& nodes) {
    for (const Node& n : nodes) run(n);
  }
  std::string take() { return std::move(out_); }

 private:
  [[noreturn]] void fail(SourcePos pos, const std::string& message) const { throw TemplateError(name_, pos, message); }

  void emit(const std::string& s, SourcePos pos) {
    out_ += s;
    if (out_.size() > max_output_) fail(pos, "the output passed " + std::to_string(max_output_) + " bytes");
  }

  // Every value an expression makes is checked, so a template cannot grow one without
  // bound, nor nest one deeper than kMaxValueDepth.
  void check_size(size_t footprint, SourcePos pos) const {
    if (footprint > kMaxValueBytes) {
      fail(pos, "a value is larger than the limit of " + std::to_string(kMaxValueBytes) + " bytes");
    }
  }
  void check_value(const Value& v, SourcePos pos) const {
    check_size(v.footprint(), pos);
    if (v.depth() > kMaxValueDepth) {
      fail(pos, "lists and dicts nested more than " + std::to_string(kMaxValueDepth) + " deep");
    }
  }
  // A namespace is a reference: one stored inside a list, dict or namespace could come to
  // hold itself. Only variables hold namespaces.
  void refuse_namespace(const Value& v, SourcePos pos) const {
    if (v.kind() == Value::Kind::Namespace) fail(pos, "a namespace cannot be stored inside a list, dict or namespace");
  }

  // A number as a 64-bit integer (floats toward zero); one out of range is an error.
  int64_t to_int(const Value& v, SourcePos pos) const {
    if (v.kind() == Value::Kind::Float) {
      const double f = v.as_double();
      if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) {
        fail(pos, "cannot convert " + v.str() + " to a 64-bit integer");
      }
    }
    return v.as_int();
  }
  [[noreturn]] void overflow(SourcePos pos, const std::string& expression) const {
    fail(pos, "integer overflow: " + expression + " does not fit in 64 bits");
  }
  [[noreturn]] void overflow(SourcePos pos, int64_t x, const std::string& op, int64_t y) const {
    overflow(pos, std::to_string(x) + " " + op + " " + std::to_string(y));
  }

  void run(const Node& n) {
    switch (n.kind) {
      case Node::Kind::Text: emit(n.text, n.pos); return;
      case Node::Kind::Output: emit(eval(*n.expr).str(), n.pos); return;
      case Node::Kind::If:
        for (const auto& [cond, body] : n.branches) {
          if (!cond || eval(*cond).truthy()) {
            run(body);
            return;
          }
        }
        return;
      case Node::Kind::For: run_for(n); return;
      case Node::Kind::Set: run_set(n); return;
      case Node::Kind::Break: throw BreakLoop{};
      case Node::Kind::Continue: throw ContinueLoop{};
    }
  }

  std::vector<Value> items_of(const Value& v, SourcePos pos) const {
    switch (v.kind()) {
      case Value::Kind::List: return v.as_list();
      case Value::Kind::Dict:
      case Value::Kind::Namespace: {
        std::vector<Value> keys;
        for (const auto& [k, x] : v.as_dict()) keys.emplace_back(k);
        return keys;
      }
      case Value::Kind::String: {
        const std::string& s = v.as_string();
        check_size(code_point_count(s) * Value::kValueWeight + s.size(), pos);  // the list of its characters
        std::vector<Value> chars;
        for (size_t i = 0; i < s.size(); i += code_point_bytes(s, i)) {
          chars.emplace_back(s.substr(i, code_point_bytes(s, i)));
        }
        return chars;
      }
      case Value::Kind::Undefined: return {};
      default: fail(pos, std::string("cannot iterate over a ") + v.type_name());
    }
  }

  void run_for(const Node& n) {
    std::vector<Value> items;
    for (Value& item : items_of(eval(*n.expr), n.expr->pos)) {
      if (!n.filter) {
        items.push_back(std::move(item));
        continue;
      }
      scopes_.emplace_back();
      bind(n, item);
      const bool keep = eval(*n.filter).truthy();
      scopes_.pop_back();
      if (keep) items.push_back(std::move(item));
    }
    if (items.empty()) {
      run(n.else_body);
      return;
    }
    const auto count = static_cast<int64_t>(items.size());
    for (int64_t i = 0; i < count; ++i) {
      if (++steps_ > max_steps_) fail(n.pos, "the template ran more than " + std::to_string(max_steps_) + " loop steps");
      scopes_.emplace_back();
      bind(n, items[static_cast<size_t>(i)]);
      Dict loop = {{"index", Value(i + 1)},         {"index0", Value(i)},
                   {"revindex", Value(count - i)},  {"revindex0", Value(count - i - 1)},
                   {"first", Value(i == 0)},        {"last", Value(i == count - 1)},
                   {"length", Value(count)}};
      if (i > 0) loop.emplace_back("previtem", items[static_cast<size_t>(i - 1)]);
      if (i + 1 < count) loop.emplace_back("nextitem", items[static_cast<size_t>(i + 1)]);
      scopes_.back()["loop"] = Value(std::move(loop));
      bool stop = false;
      try {
        run(n.body);
      } catch (const BreakLoop&) {
        stop = true;
      } catch (const ContinueLoop&) {
      }
      scopes_.pop_back();
      if (stop) break;
    }
  }

  void bind(const Node& n, const Value& item) {
    if (n.targets.size() == 1) {
      scopes_.back()[n.targets[0]] = item;
      return;
    }
    if (item.kind() != Value::Kind::List || item.as_list().size() != n.targets.size()) {
      fail(n.pos, "cannot unpack a " + std::string(item.type_name()) + " into " + std::to_string(n.targets.size()) +
                      " loop variables");
    }
    for (size_t k = 0; k < n.targets.size(); ++k) scopes_.back()[n.targets[k]] = item.as_list()[k];
  }

  void run_set(const Node& n) {
    Value v = eval(*n.expr);
    if (!n.set_field) {
      scopes_.back()[n.targets[0]] = std::move(v);
      return;
    }
    const Value ns = lookup(n.targets[0]);
    if (ns.kind() != Value::Kind::Namespace) {
      fail(n.pos, "cannot set '" + n.targets[1] + "' on '" + n.targets[0] + "', a " + ns.type_name() +
                      " (only a namespace() takes fields)");
    }
    refuse_namespace(v, n.pos);
    Dict& fields = ns.namespace_fields();
    for (auto& [k, x] : fields) {
      if (k == n.targets[1]) {
        x = std::move(v);
        return;
      }
    }
    fields.emplace_back(n.targets[1], std::move(v));
  }

  Value lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      const auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return {};
  }

  // ---- expressions ----------------------------------------------------------------

  Value eval(const Expr& e) {
    Value v = compute(e);
    check_value(v, e.pos);
    // Names, literals, attributes, items and conditionals share values; the rest build.
    const bool builds = e.kind != Expr::Kind::Literal && e.kind != Expr::Kind::Name &&
                        e.kind != Expr::Kind::Attribute && e.kind != Expr::Kind::Subscript &&
                        e.kind != Expr::Kind::Conditional;
    if (builds) add_work(v.footprint(), e.pos);
    return v;
  }

  void add_work(size_t bytes, SourcePos pos) {
    work_ += bytes;
    if (work_ > kMaxWorkBytes) {
      fail(pos, "the template did more than " + std::to_string(kMaxWorkBytes) +
                    " bytes of work (values built and compared)");
    }
  }

  Value compute(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Literal: return e.value;
      case Expr::Kind::Name: return lookup(e.name);
      case Expr::Kind::List: {
        List l;
        for (const ExprPtr& x : e.items) {
          l.push_back(eval(*x));
          refuse_namespace(l.back(), x->pos);
        }
        return Value(std::move(l));
      }
      case Expr::Kind::Dict: {
        Dict d;
        for (size_t k = 0; k + 1 < e.items.size(); k += 2) {
          const Value key = eval(*e.items[k]);
          if (!key.is_string()) fail(e.items[k]->pos, "dict keys must be strings");
          d.emplace_back(key.as_string(), eval(*e.items[k + 1]));
          refuse_namespace(d.back().second, e.items[k + 1]->pos);
        }
        return Value(std::move(d));
      }
      case Expr::Kind::Attribute: {
        const Value obj = eval(*e.items[0]);
        if (!obj.is_defined()) fail(e.pos, "'" + describe(*e.items[0]) + "' is undefined (reading ." + e.name + ")");
        return attribute(obj, e.name);
      }
      case Expr::Kind::Subscript: {
        const Value obj = eval(*e.items[0]);
        if (!obj.is_defined()) fail(e.pos, "'" + describe(*e.items[0]) + "' is undefined (reading an item)");
        return subscript(obj, eval(*e.items[1]), e.pos);
      }
      case Expr::Kind::Slice: return slice(e);
      case Expr::Kind::Call: return call(e);
      case Expr::Kind::Filter: return filter(e);
      case Expr::Kind::Test: return Value(test(e) != e.negated);
      case Expr::Kind::Unary: {
        const Value v = eval(*e.items[0]);
        if (e.name == "not") return Value(!v.truthy());
        if (!v.is_number()) fail(e.pos, "unary " + e.name + " needs a number, got a " + v.type_name());
        if (e.name == "+") return v;
        if (v.kind() == Value::Kind::Float) return Value(-v.as_double());
        if (v.as_int() == INT64_MIN) overflow(e.pos, "-(" + std::to_string(v.as_int()) + ")");
        return Value(-v.as_int());
      }
      case Expr::Kind::Binary: return binary(e);
      case Expr::Kind::Conditional:
        if (eval(*e.items[1]).truthy()) return eval(*e.items[0]);
        return e.items[2] ? eval(*e.items[2]) : Value();
    }
    return {};
  }

  static std::string describe(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Name: return e.name;
      case Expr::Kind::Attribute: return describe(*e.items[0]) + "." + e.name;
      case Expr::Kind::Subscript: return describe(*e.items[0]) + "[...]";
      default: return "value";
    }
  }

  static Value attribute(const Value& obj, const std::string& name) {
    if (obj.is_mapping()) return obj.get(name);
    return {};
  }

  static int64_t index_in(int64_t i, int64_t size) { return i < 0 ? i + size : i; }

  Value subscript(const Value& obj, const Value& key, SourcePos pos) const {
    if (obj.is_mapping()) {
      if (!key.is_string()) return {};
      return obj.get(key.as_string());
    }
    if (key.is_string()) return {};  // Jinja falls back to an attribute: none on lists and strings
    if (!key.is_number()) {
      fail(pos, std::string("a ") + obj.type_name() + " index must be a number, not a " + key.type_name());
    }
    if (obj.kind() == Value::Kind::List) {
      const auto size = static_cast<int64_t>(obj.as_list().size());
      const int64_t i = index_in(to_int(key, pos), size);
      if (i < 0 || i >= size) return {};
      return obj.as_list()[static_cast<size_t>(i)];
    }
    if (obj.is_string()) {
      const std::string& s = obj.as_string();
      const int64_t i = index_in(to_int(key, pos), static_cast<int64_t>(code_point_count(s)));
      if (i < 0) return {};
      size_t at = 0;
      for (int64_t k = 0; k < i && at < s.size(); ++k) at += code_point_bytes(s, at);
      if (at >= s.size()) return {};
      return Value(s.substr(at, code_point_bytes(s, at)));
    }
    return {};
  }

  Value slice(const Expr& e) {
    const Value obj = eval(*e.items[0]);
    const bool is_list = obj.kind() == Value::Kind::List;
    if (!is_list && !obj.is_string()) fail(e.pos, std::string("cannot slice a ") + obj.type_name());
    // A string is sliced by code point: where each starts, unless all are single bytes.
    const std::string no_text;
    const std::string& text = is_list ? no_text : obj.as_string();
    const size_t n_code_points = is_list ? 0 : code_point_count(text);
    const std::vector<size_t> starts = n_code_points == text.size() ? std::vector<size_t>{} : code_point_starts(text);
    const auto size = static_cast<int64_t>(is_list ? obj.as_list().size() : n_code_points);
    const auto value_of = [&](const ExprPtr& x) -> std::optional<int64_t> {
      if (!x) return std::nullopt;
      const Value v = eval(*x);
      if (v.is_none()) return std::nullopt;
      if (!v.is_number()) fail(x->pos, std::string("slice bounds must be numbers, not a ") + v.type_name());
      return to_int(v, x->pos);
    };
    const int64_t step = value_of(e.items[3]).value_or(1);
    if (step == 0) fail(e.pos, "slice step cannot be zero");
    // Python's rules: negative bounds count from the end, clamped to the sequence.
    const auto bound = [&](std::optional<int64_t> v, int64_t fallback) {
      if (!v) return fallback;
      const int64_t i = *v < 0 ? *v + size : *v;
      return step > 0 ? std::clamp<int64_t>(i, 0, size) : std::clamp<int64_t>(i, -1, size - 1);
    };
    const int64_t b = bound(value_of(e.items[1]), step > 0 ? 0 : size - 1);
    const int64_t end = bound(value_of(e.items[2]), step > 0 ? size : -1);
    List l;
    std::string s;
    for (int64_t i = b; step > 0 ? i < end : i > end;) {
      const auto k = static_cast<size_t>(i);
      if (is_list) {
        l.push_back(obj.as_list()[k]);
      } else if (starts.empty()) {
        s += text[k];
      } else {
        s.append(text, starts[k], starts[k + 1] - starts[k]);
      }
      if (__builtin_add_overflow(i, step, &i)) break;  // past either end
    }
    return is_list ? Value(std::move(l)) : Value(std::move(s));
  }

  std::vector<Value> args_of(const Expr& e, size_t first) {
    std::vector<Value> args;
    for (size_t k = first; k < e.items.size(); ++k) args.push_back(eval(*e.items[k]));
    return args;
  }
  Value keyword(const Expr& e, const std::string& name, std::vector<Value>& args, size_t position) {
    for (const auto& [k, x] : e.keywords) {
      if (k == name) return eval(*x);
    }
    return position < args.size() ? args[position] : Value();
  }

  Value call(const Expr& e) {
    const Expr& callee = *e.items[0];
    if (callee.kind == Expr::Kind::Name && !lookup(callee.name).is_defined()) return call_global(e, callee.name);
    if (callee.kind != Expr::Kind::Attribute) fail(e.pos, "'" + describe(callee) + "' is not callable");
    const Value obj = eval(*callee.items[0]);
    std::vector<Value> args = args_of(e, 1);
    return call_method(obj, callee.name, args, e);
  }

  Value call_global(const Expr& e, const std::string& name) {
    std::vector<Value> args = args_of(e, 1);
    if (name == "raise_exception") fail(e.pos, "the template raised: " + (args.empty() ? "" : args[0].str()));
    if (name == "namespace") {
      Dict d;
      for (const auto& [k, x] : e.keywords) {
        d.emplace_back(k, eval(*x));
        refuse_namespace(d.back().second, x->pos);
      }
      return Value::make_namespace(std::move(d));
    }
    if (name == "range") {
      int64_t b = 0, end = 0, step = 1;
      if (args.size() == 1) end = to_int(args[0], e.pos);
      if (args.size() >= 2) {
        b = to_int(args[0], e.pos);
        end = to_int(args[1], e.pos);
      }
      if (args.size() >= 3) step = to_int(args[2], e.pos);
      if (step == 0) fail(e.pos, "range() step cannot be zero");
      // The count in unsigned arithmetic: end - b may not fit in 64 signed bits.
      const auto ub = static_cast<uint64_t>(b), uend = static_cast<uint64_t>(end);
      uint64_t count = 0;
      if (step > 0 && end > b) count = (uend - ub - 1) / static_cast<uint64_t>(step) + 1;
      if (step < 0 && end < b) count = (ub - uend - 1) / (0 - static_cast<uint64_t>(step)) + 1;
      if (count > max_steps_) fail(e.pos, "range() too long");
      check_size(static_cast<size_t>(count + 1) * Value::kValueWeight, e.pos);  // before building it
      List l;
      l.reserve(static_cast<size_t>(count));
      for (uint64_t k = 0; k < count; ++k) l.emplace_back(static_cast<int64_t>(ub + k * static_cast<uint64_t>(step)));
      return Value(std::move(l));
    }
    fail(e.pos, "'" + name + "' is undefined (not a function this renderer knows)");
  }

  Value call_method(const Value& obj, const std::string& m, std::vector<Value>& args, const Expr& e) {
    if (obj.is_string()) {
      const std::string& s = obj.as_string();
      const std::string* chars = !args.empty() && args[0].is_string() ? &args[0].as_string() : nullptr;
      if (m == "strip") return Value(strip(s, chars, true, true));
      if (m == "lstrip") return Value(strip(s, chars, true, false));
      if (m == "rstrip") return Value(strip(s, chars, false, true));
      if (m == "upper") return Value(map_chars(s, ::toupper));
      if (m == "lower") return Value(map_chars(s, ::tolower));
      if (m == "title") return Value(title_case(s, false));
      if (m == "capitalize") return Value(title_case(map_chars(s, ::tolower), true));
      if (m == "startswith" || m == "endswith") {
        if (args.empty() || !args[0].is_string()) fail(e.pos, m + "() needs a string");
        const std::string& a = args[0].as_string();
        const bool ok = m == "startswith" ? s.rfind(a, 0) == 0
                                          : s.size() >= a.size() && s.compare(s.size() - a.size(), a.size(), a) == 0;
        return Value(ok);
      }
      if (m == "split") return Value(split(s, args, e));
      if (m == "replace") {
        if (args.size() < 2) fail(e.pos, "replace() needs two strings");
        return Value(replace_all(s, args[0].str(), args[1].str(), e.pos));
      }
      if (m == "find") return Value(static_cast<int64_t>(args.empty() ? -1 : s.find(args[0].str())));
      if (m == "join") return Value(join(items_of(args.empty() ? Value() : args[0], e.pos), s, e.pos));
    }
    if (obj.is_mapping()) {
      if (m == "items" || m == "keys" || m == "values") {
        List l;
        for (const auto& [k, v] : obj.as_dict()) {
          if (m == "items") {
            l.emplace_back(List{Value(k), v});
          } else {
            l.push_back(m == "keys" ? Value(k) : v);
          }
        }
        return Value(std::move(l));
      }
      if (m == "get") {
        const Value v = args.empty() || !args[0].is_string() ? Value() : obj.get(args[0].as_string());
        return v.is_defined() ? v : args.size() > 1 ? args[1] : Value::none();
      }
    }
    fail(e.pos, std::string("a ") + obj.type_name() + " has no method '" + m + "' this renderer knows");
  }

  // Every `from` in `s` replaced by `to`, in one pass; refused before it is built when it
  // would pass the limit.
  std::string replace_all(const std::string& s, const std::string& from, const std::string& to, SourcePos pos) const {
    if (from.empty()) return s;
    size_t count = 0;
    if (from.size() == 1) {
      count = static_cast<size_t>(std::count(s.begin(), s.end(), from[0]));
    } else {
      for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + from.size())) ++count;
    }
    if (count == 0) return s;
    // count <= s.size() <= the limit, so none of this overflows
    const size_t size = s.size() - count * from.size() + count * to.size();
    check_size(size, pos);
    std::string out;
    out.reserve(size);
    if (from.size() == 1) {
      for (const char c : s) {
        if (c == from[0]) {
          out += to;
        } else {
          out += c;
        }
      }
      return out;
    }
    size_t start = 0;
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, start)) {
      out.append(s, start, at - start);
      out += to;
      start = at + from.size();
    }
    out.append(s, start, std::string::npos);
    return out;
  }

  std::string join(const std::vector<Value>& items, const std::string& sep, SourcePos pos) const {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += sep;
      out += items[i].str();
      check_size(out.size(), pos);
    }
    return out;
  }

  List split(const std::string& s, const std::vector<Value>& args, const Expr& e) const {
    List out;
    if (args.empty() || args[0].is_none()) {  // runs of whitespace
      size_t i = 0;
      while (i < s.size()) {
        while (i < s.size() && is_py_space(s[i])) ++i;
        size_t j = i;
        while (j < s.size() && !is_py_space(s[j])) ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
      }
      return out;
    }
    const std::string sep = args[0].str();
    if (sep.empty()) fail(e.pos, "split() with an empty separator");
    int64_t max = args.size() > 1 ? to_int(args[1], e.pos) : -1;
    if (max < 0) max = -1;  // no limit
    size_t start = 0, footprint = Value::kValueWeight;
    for (size_t at = s.find(sep); at != std::string::npos && max != 0; at = s.find(sep, start)) {
      out.emplace_back(s.substr(start, at - start));
      start = at + sep.size();
      if (max > 0) --max;
      footprint += out.back().footprint();
      check_size(footprint, e.pos);
    }
    out.emplace_back(s.substr(start));
    return out;
  }

  Value filter(const Expr& e) {
    const Value v = eval(*e.items[0]);
    std::vector<Value> args = args_of(e, 1);
    const std::string& f = e.name;
    if (f == "trim") return Value(strip(v.str(), nullptr, true, true));
    if (f == "length" || f == "count") {
      if (v.is_string()) return Value(static_cast<int64_t>(code_point_count(v.as_string())));
      if (v.kind() == Value::Kind::List) return Value(static_cast<int64_t>(v.as_list().size()));
      if (v.is_mapping()) return Value(static_cast<int64_t>(v.as_dict().size()));
      if (!v.is_defined()) return Value(int64_t{0});
      fail(e.pos, std::string("a ") + v.type_name() + " has no length");
    }
    if (f == "tojson") {
      const Value indent = keyword(e, "indent", args, 0);
      const int64_t spaces = indent.is_number() ? to_int(indent, e.pos) : -1;
      if (spaces > kMaxJsonIndent) {
        fail(e.pos, "tojson indent " + std::to_string(spaces) + " is over " + std::to_string(kMaxJsonIndent));
      }
      std::string json = v.to_json(static_cast<int>(std::max<int64_t>(spaces, -1)), kMaxValueBytes);
      check_size(json.size(), e.pos);
      return Value(std::move(json));
    }
    if (f == "upper") return Value(map_chars(v.str(), ::toupper));
    if (f == "lower") return Value(map_chars(v.str(), ::tolower));
    if (f == "title") return Value(title_case(v.str(), false));
    if (f == "capitalize") return Value(title_case(map_chars(v.str(), ::tolower), true));
    if (f == "string") return Value(v.str());
    if (f == "safe" || f == "e" || f == "escape") return v;  // no autoescaping: the text is not HTML
    if (f == "default" || f == "d") {
      const bool boolean = keyword(e, "boolean", args, 1).truthy();
      const bool use_default = boolean ? !v.truthy() : !v.is_defined();
      return use_default ? (args.empty() ? Value("") : args[0]) : v;
    }
    if (f == "first" || f == "last") {
      const auto items = items_of(v, e.pos);
      if (items.empty()) return {};
      return f == "first" ? items.front() : items.back();
    }
    if (f == "join") return Value(join(items_of(v, e.pos), keyword(e, "d", args, 0).str(), e.pos));
    if (f == "list") return Value(items_of(v, e.pos));
    if (f == "reverse") {
      auto items = items_of(v, e.pos);
      std::reverse(items.begin(), items.end());
      if (v.is_string()) {
        std::string s;
        for (const Value& c : items) s += c.as_string();
        return Value(s);
      }
      return Value(std::move(items));
    }
    if (f == "items") return call_method(v, "items", args, e);
    if (f == "replace") {
      if (args.size() < 2) fail(e.pos, "replace needs two strings");
      return Value(replace_all(v.str(), args[0].str(), args[1].str(), e.pos));
    }
    if (f == "int") return Value(v.is_string() ? static_cast<int64_t>(std::strtoll(v.as_string().c_str(), nullptr, 10)) : to_int(v, e.pos));
    if (f == "float") return Value(v.is_string() ? std::strtod(v.as_string().c_str(), nullptr) : v.as_double());
    if (f == "abs") {
      if (v.kind() == Value::Kind::Float) return Value(std::fabs(v.as_double()));
      if (v.as_int() == INT64_MIN) overflow(e.pos, "abs(" + std::to_string(v.as_int()) + ")");
      return Value(static_cast<int64_t>(std::llabs(v.as_int())));
    }
    if (f == "map") {
      const Value attr = keyword(e, "attribute", args, 99);
      if (!attr.is_string()) fail(e.pos, "map() is supported with attribute= only");
      List out;
      for (const Value& item : items_of(v, e.pos)) out.push_back(attribute(item, attr.as_string()));
      return Value(std::move(out));
    }
    if (f == "selectattr" || f == "rejectattr") {
      if (args.empty() || !args[0].is_string()) fail(e.pos, f + " needs an attribute name");
      List out;
      for (const Value& item : items_of(v, e.pos)) {
        const Value a = attribute(item, args[0].as_string());
        bool pass = a.truthy();
        if (args.size() > 1) pass = named_test(args[1].str(), a, std::vector<Value>(args.begin() + 2, args.end()), e.pos);
        if (pass == (f == "selectattr")) out.push_back(item);
      }
      return Value(std::move(out));
    }
    fail(e.pos, "unknown filter '" + f + "'");
  }

  bool test(const Expr& e) {
    const Value v = eval(*e.items[0]);
    return named_test(e.name, v, args_of(e, 1), e.pos);
  }

  bool named_test(const std::string& t, const Value& v, const std::vector<Value>& args, SourcePos pos) const {
    if (t == "defined") return v.is_defined();
    if (t == "undefined") return !v.is_defined();
    if (t == "none") return v.is_none();
    if (t == "string") return v.is_string();
    if (t == "number") return v.kind() == Value::Kind::Int || v.kind() == Value::Kind::Float;
    if (t == "integer") return v.kind() == Value::Kind::Int;
    if (t == "float") return v.kind() == Value::Kind::Float;
    if (t == "boolean") return v.kind() == Value::Kind::Bool;
    if (t == "true") return v.kind() == Value::Kind::Bool && v.as_bool();
    if (t == "false") return v.kind() == Value::Kind::Bool && !v.as_bool();
    if (t == "mapping") return v.is_mapping();
    if (t == "iterable") return v.is_iterable();
    if (t == "sequence") return v.kind() == Value::Kind::List || v.is_string() || v.is_mapping();
    if (t == "even" || t == "odd") return v.is_number() && (to_int(v, pos) % 2 == 0) == (t == "even");
    if (t == "divisibleby") {
      if (args.empty()) return false;
      const int64_t d = to_int(args[0], pos);
      return d != 0 && (d == -1 || to_int(v, pos) % d == 0);  // INT64_MIN % -1 would trap
    }
    if (t == "equalto" || t == "eq" || t == "==" || t == "sameas") return !args.empty() && v == args[0];
    if (t == "ne" || t == "!=") return args.empty() || !(v == args[0]);
    fail(pos, "unknown test '" + t + "'");
  }

  Value binary(const Expr& e) {
    const std::string& op = e.name;
    if (op == "and") {
      Value a = eval(*e.items[0]);
      return a.truthy() ? eval(*e.items[1]) : a;
    }
    if (op == "or") {
      Value a = eval(*e.items[0]);
      return a.truthy() ? a : eval(*e.items[1]);
    }
    const Value a = eval(*e.items[0]);
    const Value b = eval(*e.items[1]);
    if (op == "==" || op == "!=" || op == "in" || op == "not in") add_work(a.footprint() + b.footprint(), e.pos);
    if (op == "==") return Value(a == b);
    if (op == "!=") return Value(!(a == b));
    if (op == "in" || op == "not in") return Value(contains(b, a, e.pos) == (op == "in"));
    if (op == "~") {
      std::string as = a.str(), bs = b.str();
      check_size(as.size() + bs.size(), e.pos);
      return Value(as + bs);
    }
    if (op == "<" || op == ">" || op == "<=" || op == ">=") {
      int c = 0;
      if (a.is_number() && b.is_number()) {
        c = a.as_double() < b.as_double() ? -1 : a.as_double() > b.as_double() ? 1 : 0;
      } else if (a.is_string() && b.is_string()) {
        c = a.as_string().compare(b.as_string());
      } else {
        fail(e.pos, std::string("cannot compare a ") + a.type_name() + " with a " + b.type_name());
      }
      return Value(op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0);
    }
    if (op == "+") check_size(a.footprint() + b.footprint(), e.pos);  // before building it (each is in the limit)
    if (op == "+") {
      if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
      if (a.kind() == Value::Kind::List && b.kind() == Value::Kind::List) {
        List l = a.as_list();
        l.insert(l.end(), b.as_list().begin(), b.as_list().end());
        return Value(std::move(l));
      }
    }
    if (!a.is_number() || !b.is_number()) {
      fail(e.pos, "unsupported operand types for " + op + ": " + a.type_name() + " and " + b.type_name());
    }
    const bool floats = a.kind() == Value::Kind::Float || b.kind() == Value::Kind::Float;
    if (op == "/") {
      if (b.as_double() == 0) fail(e.pos, "division by zero");
      return Value(a.as_double() / b.as_double());
    }
    if (op == "//" || op == "%") {
      if (b.as_double() == 0) fail(e.pos, "division by zero");
      if (floats) {
        const double q = std::floor(a.as_double() / b.as_double());
        return op == "//" ? Value(q) : Value(a.as_double() - q * b.as_double());
      }
      const int64_t x = a.as_int(), y = b.as_int();
      if (y == -1) {  // INT64_MIN / -1 traps; x // -1 is -x, x % -1 is 0
        if (op == "%") return Value(int64_t{0});
        if (x == INT64_MIN) overflow(e.pos, x, op, y);
        return Value(-x);
      }
      int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {  // Python floors; r + y cannot overflow (opposite signs)
        --q;
        r += y;
      }
      return op == "//" ? Value(q) : Value(r);
    }
    if (op == "**") {
      if (floats || b.as_int() < 0) return Value(std::pow(a.as_double(), b.as_double()));  // Python: 2 ** -1 is 0.5
      return Value(int_power(a.as_int(), b.as_int(), e.pos));
    }
    if (floats) {
      const double x = a.as_double(), y = b.as_double();
      return Value(op == "+" ? x + y : op == "-" ? x - y : x * y);
    }
    const int64_t x = a.as_int(), y = b.as_int();
    int64_t r = 0;
    const bool over = op == "+" ? __builtin_add_overflow(x, y, &r)
                      : op == "-" ? __builtin_sub_overflow(x, y, &r)
                                  : __builtin_mul_overflow(x, y, &r);
    if (over) overflow(e.pos, x, op, y);
    return Value(r);
  }

  // base ** exponent (exponent >= 0) by squaring, every step checked.
  int64_t int_power(int64_t base, int64_t exponent, SourcePos pos) const {
    int64_t result = 1, square = base;
    for (int64_t k = exponent; k > 0; k >>= 1) {
      if ((k & 1) && __builtin_mul_overflow(result, square, &result)) overflow(pos, base, "**", exponent);
      if (k > 1 && __builtin_mul_overflow(square, square, &square)) overflow(pos, base, "**", exponent);
    }
    return result;
  }

  bool contains(const Value& haystack, const Value& needle, SourcePos pos) const {
    if (haystack.is_string()) {
      if (!needle.is_string()) fail(pos, "'in <string>' needs a string on the left");
      return haystack.as_string().find(needle.as_string()) != std::string::npos;
    }
    if (haystack.kind() == Value::Kind::List) {
      return std::find(haystack.as_list().begin(), haystack.as_list().end(), needle) != haystack.as_list().end();
    }
    if (haystack.is_mapping()) return needle.is_string() && haystack.get(needle.as_string()).is_defined();
    if (!haystack.is_defined()) return false;
    fail(pos, std::string("'in' needs a string, list or dict on the right, got a ") + haystack.type_name());
  }

  const std::string& name_;
  size_t max_output_, max_steps_;
  size_t steps_ = 0;
  size_t work_ = 0;  // footprints of the values built and compared so far (kMaxWorkBytes)
  std::vector<std::map<std::string, Value>> scopes_;
  std::string out_;
};

}  // namespace

std::string render_template(const NodeList& nodes, const Value& context, const std::string& name,
                            size_t max_output_bytes, size_t max_steps) {
  Renderer r(context, name, max_output_bytes, max_steps);
  try {
    r.run(nodes);
  } catch (const BreakLoop&) {
    throw TemplateError(name, SourcePos{}, "'break' outside a loop");
  } catch (const ContinueLoop&) {
    throw TemplateError(name, SourcePos{}, "'continue' outside a loop");
  }
  return r.take();
}

}  // namespace tessera::chat
