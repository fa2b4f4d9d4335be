#include "core/chat/template_value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tessera::chat {

Value Value::none() {
  Value v;
  v.kind_ = Kind::None;
  return v;
}

Value::Value(bool b) : kind_(Kind::Bool), b_(b), i_(b ? 1 : 0) {}
Value::Value(int64_t i) : kind_(Kind::Int), i_(i) {}
Value::Value(double d) : kind_(Kind::Float), f_(d) {}
namespace {

size_t saturating_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

}  // namespace

Value::Value(std::string s)
    : kind_(Kind::String), s_(std::make_shared<const std::string>(std::move(s))),
      footprint_(saturating_add(kValueWeight, s_->size())) {}

Value::Value(List l) : kind_(Kind::List), l_(std::make_shared<const List>(std::move(l))), depth_(1) {
  for (const Value& v : *l_) {
    footprint_ = saturating_add(footprint_, v.footprint_);
    depth_ = std::max(depth_, v.depth_ + 1);
  }
}

Value::Value(Dict d) : kind_(Kind::Dict), d_(std::make_shared<Dict>(std::move(d))), depth_(1) {
  for (const auto& [k, v] : *d_) {
    footprint_ = saturating_add(footprint_, saturating_add(k.size(), v.footprint_));
    depth_ = std::max(depth_, v.depth_ + 1);
  }
}

Value Value::make_namespace(Dict d) {
  Value v(std::move(d));
  v.kind_ = Kind::Namespace;
  return v;
}

int64_t Value::as_int() const {
  if (kind_ != Kind::Float) return i_;
  if (std::isnan(f_)) return 0;
  // 2^63 is exact as a double; casting anything outside [-2^63, 2^63) is undefined.
  if (f_ >= 9223372036854775808.0) return INT64_MAX;
  if (f_ < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(f_);
}
double Value::as_double() const { return kind_ == Kind::Float ? f_ : static_cast<double>(i_); }

bool Value::truthy() const {
  switch (kind_) {
    case Kind::Undefined:
    case Kind::None: return false;
    case Kind::Bool: return b_;
    case Kind::Int: return i_ != 0;
    case Kind::Float: return f_ != 0;
    case Kind::String: return !s_->empty();
    case Kind::List: return !l_->empty();
    case Kind::Dict:
    case Kind::Namespace: return !d_->empty();
  }
  return false;
}

Value Value::get(const std::string& key) const {
  if (!is_mapping()) return {};
  for (const auto& [k, v] : *d_) {
    if (k == key) return v;
  }
  return {};
}

namespace {

std::string float_text(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  // Python prints the shortest form that reads back; try shorter ones first.
  for (int p = 1; p <= 17; ++p) {
    char s[32];
    std::snprintf(s, sizeof s, "%.*g", p, d);
    if (std::strtod(s, nullptr) == d) {
      std::string out = s;
      if (out.find_first_of(".en") == std::string::npos) out += ".0";
      return out;
    }
  }
  return buf;
}

std::string quoted(const std::string& s) {
  // Python's repr: single quotes unless the text has one and no double quote.
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + q;
}

void json_string(const std::string& s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 kept as it is (ensure_ascii off)
        }
    }
  }
  out += '"';
}

void json(const Value& v, int indent, int depth, size_t max_bytes, std::string& out) {
  if (out.size() > max_bytes) return;  // the caller refuses a text this long
  const auto newline = [&](int d) {
    out += '\n';
    out.append(static_cast<size_t>(indent) * static_cast<size_t>(d), ' ');
  };
  switch (v.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::None: out += "null"; return;
    case Value::Kind::Bool: out += v.as_bool() ? "true" : "false"; return;
    case Value::Kind::Int: out += std::to_string(v.as_int()); return;
    case Value::Kind::Float: out += float_text(v.as_double()); return;
    case Value::Kind::String: json_string(v.as_string(), out); return;
    case Value::Kind::List: {
      const List& l = v.as_list();
      if (l.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < l.size() && out.size() <= max_bytes; ++i) {
        if (i) out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(depth + 1);
        json(l[i], indent, depth + 1, max_bytes, out);
      }
      if (indent >= 0) newline(depth);
      out += ']';
      return;
    }
    case Value::Kind::Dict:
    case Value::Kind::Namespace: {
      const Dict& d = v.as_dict();
      if (d.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t i = 0; i < d.size() && out.size() <= max_bytes; ++i) {
        if (i) out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(depth + 1);
        json_string(d[i].first, out);
        out += ": ";
        json(d[i].second, indent, depth + 1, max_bytes, out);
      }
      if (indent >= 0) newline(depth);
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string Value::str() const {
  switch (kind_) {
    case Kind::Undefined: return "";
    case Kind::String: return *s_;
    default: return repr();
  }
}

std::string Value::repr() const {
  switch (kind_) {
    case Kind::Undefined: return "";
    case Kind::None: return "None";
    case Kind::Bool: return b_ ? "True" : "False";
    case Kind::Int: return std::to_string(i_);
    case Kind::Float: return float_text(f_);
    case Kind::String: return quoted(*s_);
    case Kind::List: {
      std::string out = "[";
      for (size_t i = 0; i < l_->size(); ++i) out += (i ? ", " : "") + (*l_)[i].repr();
      return out + "]";
    }
    case Kind::Dict:
    case Kind::Namespace: {
      std::string out = kind_ == Kind::Namespace ? "<Namespace {" : "{";
      for (size_t i = 0; i < d_->size(); ++i) out += (i ? ", " : "") + quoted((*d_)[i].first) + ": " + (*d_)[i].second.repr();
      return out + (kind_ == Kind::Namespace ? "}>" : "}");
    }
  }
  return "";
}

std::string Value::to_json(int indent, size_t max_bytes) const {
  std::string out;
  json(*this, indent, 0, max_bytes, out);
  return out;
}

const char* Value::type_name() const {
  switch (kind_) {
    case Kind::Undefined: return "undefined";
    case Kind::None: return "none";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "string";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Namespace: return "namespace";
  }
  return "?";
}

bool operator==(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind_ == Value::Kind::Float || b.kind_ == Value::Kind::Float) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::Undefined:
    case Value::Kind::None: return true;
    case Value::Kind::String: return *a.s_ == *b.s_;
    case Value::Kind::List: return *a.l_ == *b.l_;
    case Value::Kind::Dict:
    case Value::Kind::Namespace: return *a.d_ == *b.d_;
    default: return false;
  }
}

}  // namespace tessera::chat
