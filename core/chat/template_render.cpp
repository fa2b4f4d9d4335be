#include "core/chat/template_render.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/chat/template_parser.h"

namespace tessera::chat {
namespace {

struct BreakLoop {};
struct ContinueLoop {};

// UTF-8 code points of `s`, each as its bytes: Python indexes strings by code point.
std::vector<std::string> code_points(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

bool is_py_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string strip(const std::string& s, const std::string* chars, bool left, bool right) {
  const auto drop = [&](char c) { return chars ? chars->find(c) != std::string::npos : is_py_space(c); };
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e && drop(s[b])) ++b;
  }
  if (right) {
    while (e > b && drop(s[e - 1])) --e;
  }
  return s.substr(b, e - b);
}

std::string title_case(const std::string& s, bool only_first) {
  std::string out = s;
  bool start = true;
  for (char& c : out) {
    const bool alpha = std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (alpha) {
      c = static_cast<char>(start ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
      if (only_first) start = false;
    }
    if (!only_first) start = !alpha;
  }
  return out;
}

std::string map_chars(std::string s, int (*f)(int)) {
  for (char& c : s) c = static_cast<char>(f(static_cast<unsigned char>(c)));
  return s;
}

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
        std::vector<Value> chars;
        for (std::string& c : code_points(v.as_string())) chars.emplace_back(std::move(c));
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
    switch (e.kind) {
      case Expr::Kind::Literal: return e.value;
      case Expr::Kind::Name: return lookup(e.name);
      case Expr::Kind::List: {
        List l;
        for (const ExprPtr& x : e.items) l.push_back(eval(*x));
        return Value(std::move(l));
      }
      case Expr::Kind::Dict: {
        Dict d;
        for (size_t k = 0; k + 1 < e.items.size(); k += 2) {
          const Value key = eval(*e.items[k]);
          if (!key.is_string()) fail(e.items[k]->pos, "dict keys must be strings");
          d.emplace_back(key.as_string(), eval(*e.items[k + 1]));
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
        return v.kind() == Value::Kind::Float ? Value(-v.as_double()) : Value(-v.as_int());
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
      const int64_t i = index_in(key.as_int(), size);
      if (i < 0 || i >= size) return {};
      return obj.as_list()[static_cast<size_t>(i)];
    }
    if (obj.is_string()) {
      const auto cps = code_points(obj.as_string());
      const int64_t i = index_in(key.as_int(), static_cast<int64_t>(cps.size()));
      if (i < 0 || i >= static_cast<int64_t>(cps.size())) return {};
      return Value(cps[static_cast<size_t>(i)]);
    }
    return {};
  }

  Value slice(const Expr& e) {
    const Value obj = eval(*e.items[0]);
    const bool is_list = obj.kind() == Value::Kind::List;
    if (!is_list && !obj.is_string()) fail(e.pos, std::string("cannot slice a ") + obj.type_name());
    const std::vector<std::string> cps = is_list ? std::vector<std::string>{} : code_points(obj.as_string());
    const auto size = static_cast<int64_t>(is_list ? obj.as_list().size() : cps.size());
    const auto value_of = [&](const ExprPtr& x) -> std::optional<int64_t> {
      if (!x) return std::nullopt;
      const Value v = eval(*x);
      if (v.is_none()) return std::nullopt;
      if (!v.is_number()) fail(x->pos, std::string("slice bounds must be numbers, not a ") + v.type_name());
      return v.as_int();
    };
    const int64_t step = value_of(e.items[3]).value_or(1);
    if (step == 0) fail(e.pos, "slice step cannot be zero");
    // Python's rules: negative bounds count from the end, clamped to the sequence.
    const auto bound = [&](std::optional<int64_t> v, int64_t fallback) {
      if (!v) return fallback;
      int64_t i = *v < 0 ? *v + size : *v;
      return step > 0 ? std::clamp<int64_t>(i, 0, size) : std::clamp<int64_t>(i, -1, size - 1);
    };
    const int64_t b = bound(value_of(e.items[1]), step > 0 ? 0 : size - 1);
    const int64_t end = bound(value_of(e.items[2]), step > 0 ? size : -1);
    std::vector<int64_t> picked;
    for (int64_t i = b; step > 0 ? i < end : i > end; i += step) picked.push_back(i);
    if (is_list) {
      List l;
      for (int64_t i : picked) l.push_back(obj.as_list()[static_cast<size_t>(i)]);
      return Value(std::move(l));
    }
    std::string s;
    for (int64_t i : picked) s += cps[static_cast<size_t>(i)];
    return Value(std::move(s));
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
      for (const auto& [k, x] : e.keywords) d.emplace_back(k, eval(*x));
      return Value::make_namespace(std::move(d));
    }
    if (name == "range") {
      int64_t b = 0, end = 0;
      if (args.size() == 1) end = args[0].as_int();
      if (args.size() >= 2) {
        b = args[0].as_int();
        end = args[1].as_int();
      }
      if (end - b > static_cast<int64_t>(max_steps_)) fail(e.pos, "range() too long");
      List l;
      for (int64_t i = b; i < end; ++i) l.emplace_back(i);
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
        return Value(replace_all(s, args[0].str(), args[1].str()));
      }
      if (m == "find") return Value(static_cast<int64_t>(args.empty() ? -1 : s.find(args[0].str())));
      if (m == "join") {
        std::string out;
        const auto items = items_of(args.empty() ? Value() : args[0], e.pos);
        for (size_t i = 0; i < items.size(); ++i) out += (i ? s : "") + items[i].str();
        return Value(out);
      }
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

  static std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
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
    int64_t max = args.size() > 1 ? args[1].as_int() : -1;
    size_t start = 0;
    for (size_t at = s.find(sep); at != std::string::npos && max != 0; at = s.find(sep, start), --max) {
      out.emplace_back(s.substr(start, at - start));
      start = at + sep.size();
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
      if (v.is_string()) return Value(static_cast<int64_t>(code_points(v.as_string()).size()));
      if (v.kind() == Value::Kind::List) return Value(static_cast<int64_t>(v.as_list().size()));
      if (v.is_mapping()) return Value(static_cast<int64_t>(v.as_dict().size()));
      if (!v.is_defined()) return Value(int64_t{0});
      fail(e.pos, std::string("a ") + v.type_name() + " has no length");
    }
    if (f == "tojson") {
      const Value indent = keyword(e, "indent", args, 0);
      return Value(v.to_json(indent.is_number() ? static_cast<int>(indent.as_int()) : -1));
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
    if (f == "join") {
      const auto items = items_of(v, e.pos);
      const std::string sep = keyword(e, "d", args, 0).str();
      std::string out;
      for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i].str();
      return Value(out);
    }
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
      return Value(replace_all(v.str(), args[0].str(), args[1].str()));
    }
    if (f == "int") return Value(v.is_string() ? static_cast<int64_t>(std::strtoll(v.as_string().c_str(), nullptr, 10)) : v.as_int());
    if (f == "float") return Value(v.is_string() ? std::strtod(v.as_string().c_str(), nullptr) : v.as_double());
    if (f == "abs") return v.kind() == Value::Kind::Float ? Value(std::fabs(v.as_double())) : Value(static_cast<int64_t>(std::llabs(v.as_int())));
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
    if (t == "even" || t == "odd") return v.is_number() && (v.as_int() % 2 == 0) == (t == "even");
    if (t == "divisibleby") return !args.empty() && args[0].as_int() != 0 && v.as_int() % args[0].as_int() == 0;
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
    if (op == "==") return Value(a == b);
    if (op == "!=") return Value(!(a == b));
    if (op == "in" || op == "not in") return Value(contains(b, a, e.pos) == (op == "in"));
    if (op == "~") return Value(a.str() + b.str());
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
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;  // Python floors
      return op == "//" ? Value(q) : Value(x - q * y);
    }
    if (op == "**") return floats ? Value(std::pow(a.as_double(), b.as_double()))
                                  : Value(static_cast<int64_t>(std::llround(std::pow(a.as_double(), b.as_double()))));
    if (floats) {
      const double x = a.as_double(), y = b.as_double();
      return Value(op == "+" ? x + y : op == "-" ? x - y : x * y);
    }
    const int64_t x = a.as_int(), y = b.as_int();
    return Value(op == "+" ? x + y : op == "-" ? x - y : x * y);
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
