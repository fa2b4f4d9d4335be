#include "core/ops/custom_op.h"

#include <algorithm>
#include <cstdio>

#include "core/util/error.h"

namespace tessera {

CustomOpSchema CustomOpSchema::from_decl(const tsr_op_decl& d, std::string plugin) {
  CustomOpSchema s;
  s.name = d.name;
  s.plugin = std::move(plugin);
  s.help = d.help ? d.help : "";
  for (int32_t i = 0; i < d.n_inputs; ++i) {
    const tsr_input_decl& in = d.inputs[i];
    s.inputs.push_back({in.name, in.rule, in.ref, in.optional != 0});
  }
  for (int32_t i = 0; i < d.n_attrs; ++i) {
    const tsr_attr_decl& a = d.attrs[i];
    s.attrs.push_back({a.name, a.type, a.required != 0, a.default_value, a.help ? a.help : ""});
  }
  s.output_like = d.output_like;
  s.output_columns = d.output_columns ? s.attr_index(d.output_columns) : -1;
  s.key_input = d.key_input;
  return s;
}

size_t CustomOpSchema::required_inputs() const {
  size_t n = 0;
  while (n < inputs.size() && !inputs[n].optional) ++n;
  return n;
}

int CustomOpSchema::attr_index(std::string_view wanted) const {
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (attrs[i].name == wanted) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> CustomOpSchema::attr_names() const {
  std::vector<std::string> names;
  for (const CustomOpAttr& a : attrs) names.push_back(a.name);
  return names;
}

std::string CustomOpSchema::signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    s += (i ? ", " : "") + (inputs[i].optional ? "[" + inputs[i].name + "]" : inputs[i].name);
  }
  for (size_t i = 0; i < attrs.size(); ++i) {
    const CustomOpAttr& a = attrs[i];
    s += (i ? ", " : "; ") + a.name + ": " + std::string(attr_type_name(a.type)) +
         (a.required ? "" : " = " + attr_value_text(a.type, a.default_value));
  }
  return s + ")";
}

void CustomOpCatalog::add_plugin(std::string name) {
  if (!has_plugin(name)) plugins_.push_back(std::move(name));
}

void CustomOpCatalog::add(CustomOpSchema op) {
  if (const CustomOpSchema* twin = find(op.name)) {
    throw Error("op '" + op.name + "' is declared by plugin '" + op.plugin + "' and by plugin '" + twin->plugin + "'");
  }
  add_plugin(op.plugin);
  ops_.push_back(std::move(op));
}

const CustomOpSchema* CustomOpCatalog::find(std::string_view name) const {
  const auto it = std::find_if(ops_.begin(), ops_.end(), [&](const CustomOpSchema& s) { return s.name == name; });
  return it == ops_.end() ? nullptr : &*it;
}

bool CustomOpCatalog::has_plugin(std::string_view name) const {
  return std::find(plugins_.begin(), plugins_.end(), name) != plugins_.end();
}

std::vector<std::string> CustomOpCatalog::op_names_of(std::string_view plugin) const {
  std::vector<std::string> names;
  for (const CustomOpSchema& s : ops_) {
    if (s.plugin == plugin) names.push_back(s.name);
  }
  return names;
}

std::string_view attr_type_name(tsr_attr_type type) { return type == TSR_ATTR_INT ? "int" : "float"; }

std::string attr_value_text(tsr_attr_type type, tsr_attr_value value) {
  if (type == TSR_ATTR_INT) return std::to_string(value.i);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value.f);
  return buf;
}

}  // namespace tessera
