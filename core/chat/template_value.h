// The values a chat template computes with, as Jinja2 has them: none, booleans,
// integers, floats, strings, lists, dicts (keys in insertion order, as Python's) and
// namespaces (mutable records set with `{% set ns.x = ... %}`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tessera::chat {

class Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;

class Value {
 public:
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace };

  Value() = default;  // undefined
  static Value none();
  Value(bool b);
  Value(int64_t i);
  Value(int i) : Value(static_cast<int64_t>(i)) {}
  Value(double d);
  Value(std::string s);
  Value(const char* s) : Value(std::string(s)) {}
  Value(List l);
  Value(Dict d);
  static Value make_namespace(Dict d);

  Kind kind() const { return kind_; }
  bool is_defined() const { return kind_ != Kind::Undefined; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool; }
  bool is_mapping() const { return kind_ == Kind::Dict || kind_ == Kind::Namespace; }
  bool is_iterable() const { return kind_ == Kind::List || kind_ == Kind::String || is_mapping(); }

  bool as_bool() const { return b_; }
  // A float converts toward zero, saturating at the int64 range (NaN gives 0); callers
  // that must refuse such a float check it first.
  int64_t as_int() const;
  double as_double() const;
  const std::string& as_string() const { return *s_; }
  const List& as_list() const { return *l_; }
  const Dict& as_dict() const { return *d_; }
  // A namespace's fields, shared by every copy of the value (a namespace is a reference).
  Dict& namespace_fields() const { return *d_; }

  // Python truthiness: none, false, 0, "" and empty containers are false.
  bool truthy() const;
  // A mapping's value for `key`, or undefined.
  Value get(const std::string& key) const;
  // What {{ }} writes: Python's str() (True, None, [1, 'a'], {'k': 'v'}); "" when undefined.
  std::string str() const;
  // Python's repr(): strings quoted, as inside lists and dicts.
  std::string repr() const;
  // JSON as the tojson filter writes it (Python's json.dumps with sorted keys off,
  // ", " and ": " separators; `indent` > 0 for one item a line). Writing stops once the
  // text is longer than `max_bytes`: the result is then incomplete, for a caller that
  // refuses anything that long.
  std::string to_json(int indent = -1, size_t max_bytes = SIZE_MAX) const;
  const char* type_name() const;

  // About the memory the value takes, for the renderer's limits: kValueWeight for the
  // value and for each element, key and field inside it (a shared one each time it
  // appears), plus the bytes of every string; saturates at SIZE_MAX. A namespace's
  // counts its fields as they were when it was made.
  size_t footprint() const { return footprint_; }
  // How many lists, dicts and namespaces nest in it: 0 for a scalar.
  int depth() const { return depth_; }
  static constexpr size_t kValueWeight = 64;  // about sizeof(Value)

  friend bool operator==(const Value& a, const Value& b);

 private:
  Kind kind_ = Kind::Undefined;
  bool b_ = false;
  int64_t i_ = 0;
  double f_ = 0;
  std::shared_ptr<const std::string> s_;
  std::shared_ptr<const List> l_;
  std::shared_ptr<Dict> d_;
  size_t footprint_ = kValueWeight;
  int depth_ = 0;
};

}  // namespace tessera::chat
