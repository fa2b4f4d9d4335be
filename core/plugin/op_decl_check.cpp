#include "core/plugin/op_decl_check.h"

#include <cstring>
#include <set>

#include "core/util/error.h"

namespace tessera {
namespace {

constexpr int32_t kMaxInputs = 8;
constexpr int32_t kMaxAttrs = 16;

// The bits of an ABI enum field as the plugin wrote them (a value outside the
// enumerators must not be loaded as the enum type).
template <typename Enum>
int32_t raw(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "ABI enums are 32-bit");
  int32_t value = 0;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

class DeclCheck {
 public:
  DeclCheck(const tsr_op_decl& d, int32_t index, const std::string& plugin, const std::string& file)
      : d_(d), plugin_(plugin) {
    where_ = file + ": op " + std::to_string(index) + (d.name ? " ('" + std::string(d.name) + "')" : "");
  }

  void run() {
    check_name();
    check_inputs();
    check_attrs();
    check_output_and_key();
  }

 private:
  [[noreturn]] void fail(const std::string& cause) const { throw Error(where_ + ": " + cause); }

  void check_name() const {
    if (d_.name == nullptr) fail("name is null");
    const std::string name = d_.name;
    const std::string prefix = plugin_ + ".";
    if (name.compare(0, prefix.size(), prefix) != 0 || !is_lower_identifier(d_.name + prefix.size())) {
      fail("the name must be '" + prefix + "<op>' with <op> in [a-z_][a-z0-9_]* (the plugin's own name first)");
    }
  }

  void check_inputs() const {
    if (d_.n_inputs < 1 || d_.n_inputs > kMaxInputs) {
      fail("n_inputs is " + std::to_string(d_.n_inputs) + "; an op takes 1 to " + std::to_string(kMaxInputs));
    }
    if (d_.inputs == nullptr) fail("inputs is null");
    bool optional_seen = false;
    for (int32_t i = 0; i < d_.n_inputs; ++i) {
      const tsr_input_decl& in = d_.inputs[i];
      const std::string which = "input " + std::to_string(i) + (in.name ? " ('" + std::string(in.name) + "')" : "");
      if (in.name == nullptr || !is_lower_identifier(in.name)) fail(which + ": the name must be [a-z_][a-z0-9_]*");
      const int32_t rule = raw(in.rule);
      if (rule < TSR_SHAPE_ANY || rule > TSR_SHAPE_ROW_OF) fail(which + ": unknown shape rule " + std::to_string(rule));
      if ((rule == TSR_SHAPE_SAME_AS || rule == TSR_SHAPE_ROW_OF) && (in.ref < 0 || in.ref >= i)) {
        fail(which + " refers to input " + std::to_string(in.ref) + ", which is not before it");
      }
      if (optional_seen && !in.optional) fail(which + " is required but follows an optional input");
      optional_seen = optional_seen || in.optional;
    }
  }

  void check_attrs() const {
    if (d_.n_attrs < 0 || d_.n_attrs > kMaxAttrs) {
      fail("n_attrs is " + std::to_string(d_.n_attrs) + "; an op has 0 to " + std::to_string(kMaxAttrs));
    }
    if (d_.n_attrs > 0 && d_.attrs == nullptr) fail("attrs is null but n_attrs is " + std::to_string(d_.n_attrs));
    std::set<std::string> names;
    for (int32_t i = 0; i < d_.n_attrs; ++i) {
      const tsr_attr_decl& a = d_.attrs[i];
      const std::string which = "attribute " + std::to_string(i) + (a.name ? " ('" + std::string(a.name) + "')" : "");
      if (a.name == nullptr || !is_lower_identifier(a.name)) fail(which + ": the name must be [a-z_][a-z0-9_]*");
      if (!names.insert(a.name).second) fail(which + " is declared twice");
      const int32_t type = raw(a.type);
      if (type != TSR_ATTR_INT && type != TSR_ATTR_FLOAT) fail(which + ": unknown type " + std::to_string(type));
    }
  }

  // The index of the attribute called `name`, or -1.
  int32_t attr_index(const char* name) const {
    for (int32_t i = 0; i < d_.n_attrs; ++i) {
      if (std::strcmp(d_.attrs[i].name, name) == 0) return i;
    }
    return -1;
  }

  void check_output_and_key() const {
    const auto required_input = [&](int32_t i, const char* what) {
      if (i < 0 || i >= d_.n_inputs || d_.inputs[i].optional) {
        fail(std::string(what) + " is " + std::to_string(i) + ", not one of its required inputs");
      }
    };
    required_input(d_.output_like, "output_like");
    required_input(d_.key_input, "key_input");
    if (d_.output_columns == nullptr) return;
    const int32_t a = attr_index(d_.output_columns);
    if (a < 0 || raw(d_.attrs[a].type) != TSR_ATTR_INT) {
      fail("output_columns '" + std::string(d_.output_columns) + "' is not one of its int attributes");
    }
  }

  const tsr_op_decl& d_;
  const std::string& plugin_;
  std::string where_;
};

}  // namespace

bool is_lower_identifier(const char* text) {
  if (text == nullptr || !(*text == '_' || (*text >= 'a' && *text <= 'z'))) return false;
  for (const char* c = text + 1; *c; ++c) {
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) return false;
  }
  return true;
}

void check_op_decls(const tsr_plugin& t, const std::string& file) {
  if (t.op_count < 0) throw Error(file + ": op_count is " + std::to_string(t.op_count));
  if (t.op_count > 0 && t.ops == nullptr) {
    throw Error(file + ": op list is null but op_count is " + std::to_string(t.op_count));
  }
  std::set<std::string> names;
  for (int32_t i = 0; i < t.op_count; ++i) {
    DeclCheck(t.ops[i], i, t.name, file).run();
    if (!names.insert(t.ops[i].name).second) {
      throw Error(file + ": op " + std::to_string(i) + " ('" + t.ops[i].name + "') is declared twice");
    }
  }
}

}  // namespace tessera
