// Ops declared by plugins (tsr_op_decl), as the host keeps them: a C++ copy of each
// declaration, the schema a model's calls are checked against, and the catalog of the
// declarations of the loaded plugins, which the DSL compiler is given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tessera/plugin_abi.h>

namespace tessera {

struct CustomOpInput {
  std::string name;
  tsr_shape_rule rule = TSR_SHAPE_ANY;
  int32_t ref = -1;  // SAME_AS, ROW_OF: the earlier input the rule refers to
  bool optional = false;
};

struct CustomOpAttr {
  std::string name;
  tsr_attr_type type = TSR_ATTR_FLOAT;
  bool required = false;
  tsr_attr_value default_value{};
  std::string help;
};

struct CustomOpSchema {
  std::string name;    // "acme.fused_silu_mul"
  std::string plugin;  // the declaring plugin: "acme"
  std::string help;
  std::vector<CustomOpInput> inputs;
  std::vector<CustomOpAttr> attrs;
  int32_t output_like = 0;
  int32_t output_columns = -1;  // index into attrs of the output's width, or -1
  int32_t key_input = 0;

  // A copy of a declaration that passed check_op_decl.
  static CustomOpSchema from_decl(const tsr_op_decl& decl, std::string plugin);

  size_t required_inputs() const;                // inputs before the first optional one
  int attr_index(std::string_view name) const;   // -1 if it has no such attribute
  std::vector<std::string> attr_names() const;
  // "acme.fused_silu_mul(gate, up, [bias]; alpha: float = 1)": the inputs (optional ones
  // in brackets), then the attributes with their types and defaults.
  std::string signature() const;
};

// The ops the loaded plugins declare, and which plugins are loaded (so that a call to
// `acme.x` can say whether plugin acme is missing or lacks the op).
class CustomOpCatalog {
 public:
  void add_plugin(std::string name);  // a loaded plugin, with or without ops
  // Throws tessera::Error when an op of that name is already there.
  void add(CustomOpSchema op);

  const CustomOpSchema* find(std::string_view name) const;  // nullptr if undeclared
  bool has_plugin(std::string_view name) const;
  std::vector<std::string> op_names_of(std::string_view plugin) const;
  const std::vector<CustomOpSchema>& ops() const { return ops_; }
  const std::vector<std::string>& plugins() const { return plugins_; }

 private:
  std::vector<std::string> plugins_;
  std::vector<CustomOpSchema> ops_;
};

// "float", "int": for messages.
std::string_view attr_type_name(tsr_attr_type type);
// The value as written: "0.5", "8".
std::string attr_value_text(tsr_attr_type type, tsr_attr_value value);

}  // namespace tessera
