#include "dsl/plugin_op_lowering.h"

#include <cmath>

#include "core/tensor/dtype.h"
#include "dsl/diagnostics.h"

namespace tessera::dsl {
namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Why `name` is not in the catalog: its plugin is missing, or declares other ops.
[[noreturn]] void fail_unknown(const CustomOpCatalog* catalog, const Expr& call, const SourceText& source) {
  const std::string plugin = call.text.substr(0, call.text.find('.'));
  if (catalog == nullptr || !catalog->has_plugin(plugin)) {
    const std::string loaded = catalog && !catalog->plugins().empty() ? " (loaded: " + joined(catalog->plugins()) + ")" : "";
    fail_at(source, call.loc,
            quoted(call.text) + " is an op of plugin " + quoted(plugin) + ", which is not loaded" + loaded +
                "; put its library in a plugin directory (--plugin-dir DIR or TESSERA_PLUGIN_PATH)");
  }
  const std::vector<std::string> ops = catalog->op_names_of(plugin);
  std::string hint = did_you_mean(call.text, ops);
  if (hint.empty()) hint = ops.empty() ? "; it declares none" : "; it declares: " + joined(ops);
  fail_at(source, call.loc, "plugin " + quoted(plugin) + " declares no op " + quoted(call.text) + hint);
}

}  // namespace

const CustomOpSchema& find_plugin_op(const CustomOpCatalog* catalog, const Expr& call, const SourceText& source) {
  const CustomOpSchema* op = catalog ? catalog->find(call.text) : nullptr;
  if (op == nullptr) fail_unknown(catalog, call, source);
  const size_t required = op->required_inputs();
  if (call.args.size() < required || call.args.size() > op->inputs.size()) {
    const std::string count = required == op->inputs.size()
                                  ? std::to_string(required)
                                  : std::to_string(required) + " to " + std::to_string(op->inputs.size());
    fail_at(source, call.loc,
            call.text + " takes " + count + " argument" + (op->inputs.size() == 1 ? "" : "s") + ", " +
                op->signature() + ", but " + std::to_string(call.args.size()) + " " +
                (call.args.size() == 1 ? "was" : "were") + " given");
  }
  return *op;
}

std::vector<tsr_attr_value> bind_plugin_op_attrs(const CustomOpSchema& op, const Expr& call,
                                                 const std::vector<Scalar>& given, const SourceText& source) {
  std::vector<tsr_attr_value> values;
  std::vector<bool> set(op.attrs.size(), false);
  for (const CustomOpAttr& a : op.attrs) values.push_back(a.default_value);
  for (size_t k = 0; k < call.named.size(); ++k) {
    const NamedArg& arg = call.named[k];
    const int i = op.attr_index(arg.name);
    if (i < 0) {
      std::string hint = did_you_mean(arg.name, op.attr_names());
      if (hint.empty()) hint = op.attrs.empty() ? "; it has none" : "; it has: " + joined(op.attr_names());
      fail_at(source, arg.loc, "unknown attribute " + quoted(arg.name) + " for " + op.name + hint);
    }
    const CustomOpAttr& a = op.attrs[static_cast<size_t>(i)];
    if (a.type == TSR_ATTR_INT) {
      values[static_cast<size_t>(i)].i =
          require_integer(given[k], *arg.value, source, "attribute " + quoted(arg.name) + " of " + op.name);
    } else {
      if (!std::isfinite(given[k].as_double())) {
        fail_at(source, arg.value->loc, "attribute " + quoted(arg.name) + " of " + op.name + " must be finite");
      }
      values[static_cast<size_t>(i)].f = given[k].as_double();
    }
    set[static_cast<size_t>(i)] = true;
  }
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    if (op.attrs[i].required && !set[i]) {
      fail_at(source, call.loc, op.name + " needs the attribute " + quoted(op.attrs[i].name) +
                                    (op.attrs[i].help.empty() ? "" : " (" + op.attrs[i].help + ")"));
    }
  }
  return values;
}

int lower_plugin_op(GraphBuilder& b, const CustomOpSchema& op, const Expr& call, const std::vector<int>& inputs,
                    std::vector<tsr_attr_value> attrs) {
  const auto arg = [&](size_t i) { return b.describe(*call.args[i], inputs[i]); };
  const auto fail_arg = [&](size_t i, const std::string& why) -> void {
    fail_at(b.source(), call.args[i]->loc, op.name + ": " + why);
  };
  std::vector<int> present;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] < 0) {  // an optional input given an absent weight: left out, as the ones after it must be
      for (size_t j = i + 1; j < inputs.size(); ++j) {
        if (inputs[j] >= 0) {
          fail_arg(i, quoted(op.inputs[i].name) + " is left out (the weight is absent), so " +
                          quoted(op.inputs[j].name) + " after it cannot be given");
        }
      }
      continue;
    }
    const CustomOpInput& in = op.inputs[i];
    const Shape s = b.shape(inputs[i]);
    const auto ref = static_cast<size_t>(in.ref);
    switch (in.rule) {
      case TSR_SHAPE_ANY: break;
      case TSR_SHAPE_MATRIX:
        if (s.size() != 2) fail_arg(i, quoted(in.name) + " must be a matrix, but " + arg(i) + " is not");
        break;
      case TSR_SHAPE_SAME_AS:
        if (inputs[ref] >= 0 && s != b.shape(inputs[ref])) {
          fail_arg(i, quoted(in.name) + " must have the shape of " + quoted(op.inputs[ref].name) + ", but " + arg(i) +
                          " and " + arg(ref) + " differ");
        }
        break;
      case TSR_SHAPE_ROW_OF:
        if (inputs[ref] >= 0 && (s.size() != 1 || s[0] != b.shape(inputs[ref]).back())) {
          fail_arg(i, quoted(in.name) + " must be a vector [" + std::to_string(b.shape(inputs[ref]).back()) +
                          "] matching the last dimension of " + quoted(op.inputs[ref].name) + " " + arg(ref) +
                          ", but is " + arg(i));
        }
        break;
    }
    const DType dtype = b.tensor(inputs[i]).dtype;
    if (static_cast<int32_t>(i) != op.key_input && dtype != DType::F32) {
      fail_arg(i, quoted(in.name) + " " + arg(i) + " is " + std::string(dtype_name(dtype)) + "; only " +
                      quoted(op.inputs[static_cast<size_t>(op.key_input)].name) + " may be stored other than f32");
    }
    present.push_back(inputs[i]);
  }
  Shape out = b.shape(inputs[static_cast<size_t>(op.output_like)]);
  if (op.output_columns >= 0) {
    const int64_t columns = attrs[static_cast<size_t>(op.output_columns)].i;
    if (columns <= 0) {
      fail_at(b.source(), call.loc, op.name + ": attribute " + quoted(op.attrs[static_cast<size_t>(op.output_columns)].name) +
                                        " is the output's width and must be positive, not " + std::to_string(columns));
    }
    out.back() = columns;
  }
  CustomOpParams params;
  params.name = op.name;
  params.key_input = op.key_input;
  params.attrs = std::move(attrs);
  return b.add_node(OpKind::Custom, std::move(params), std::move(present), std::move(out));
}

}  // namespace tessera::dsl
