#include <tessera/kit/custom_call.h>

#include <cstring>
#include <string>

#include <tessera/kit/call_args.h>
#include <tessera/kit/kernel_error.h>

namespace tessera::kit {
namespace {

int required_inputs(const tsr_op_decl& d) {
  int n = 0;
  while (n < d.n_inputs && !d.inputs[n].optional) ++n;
  return n;
}

int attr_index(const tsr_op_decl& d, std::string_view name) {
  for (int32_t i = 0; i < d.n_attrs; ++i) {
    if (name == d.attrs[i].name) return i;
  }
  return -1;
}

bool same_shape(const TensorInfo& a, const TensorInfo& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t k = 0; k < a.ndim; ++k) {
    if (a.shape[k] != b.shape[k]) return false;
  }
  return true;
}

void check_rule(const CustomCall& c, int i, std::string_view op) {
  const tsr_input_decl& in = c.decl->inputs[i];
  const HostView& t = c.inputs[static_cast<size_t>(i)];
  const std::string role = in.name;
  switch (in.rule) {
    case TSR_SHAPE_ANY: return;
    case TSR_SHAPE_MATRIX:
      if (t.ndim != 2) fail(op, role + " has shape " + shape_label(t) + ", expected a matrix");
      return;
    case TSR_SHAPE_SAME_AS: {
      const HostView& ref = c.inputs[static_cast<size_t>(in.ref)];
      if (!same_shape(t, ref)) {
        fail(op, role + " has shape " + shape_label(t) + ", expected that of " + c.decl->inputs[in.ref].name + " " +
                     shape_label(ref));
      }
      return;
    }
    case TSR_SHAPE_ROW_OF:
      expect_vector(t, c.inputs[static_cast<size_t>(in.ref)].cols(), op, role);
      return;
  }
  fail(op, role + " has an unknown shape rule");
}

}  // namespace

CustomCall check_custom_call(const tsr_op_call& call, const tsr_op_decl& decl) {
  const std::string_view op = decl.name;
  if (call.op != TSR_OP_CUSTOM) fail(op, "called as op " + std::to_string(call.op) + ", not TSR_OP_CUSTOM");
  const auto* params = static_cast<const tsr_custom_params*>(call.params);
  if (params == nullptr || params->op_name == nullptr || std::strcmp(params->op_name, decl.name) != 0) {
    fail(op, "called for another op (" + std::string(params && params->op_name ? params->op_name : "none") + ")");
  }
  if (params->n_attrs != decl.n_attrs || (decl.n_attrs > 0 && params->attrs == nullptr)) {
    fail(op, "expects " + std::to_string(decl.n_attrs) + " attribute values, got " + std::to_string(params->n_attrs));
  }
  expect_input_count(call, required_inputs(decl), decl.n_inputs, op);
  CustomCall c;
  c.decl = &decl;
  c.params = params;
  for (int32_t i = 0; i < call.n_inputs; ++i) {
    c.inputs.push_back(host_input(call, i, op, decl.inputs[i].name));
    if (i != decl.key_input) expect_dtype(c.inputs.back(), TSR_DTYPE_F32, op, decl.inputs[i].name);
  }
  for (int32_t i = 0; i < call.n_inputs; ++i) check_rule(c, i, op);
  c.out = host_output(call, op);
  expect_dtype(c.out, TSR_DTYPE_F32, op, "out");
  TensorInfo want = c.inputs[static_cast<size_t>(decl.output_like)];
  want.dtype = TSR_DTYPE_F32;
  if (decl.output_columns != nullptr) want.shape[want.ndim - 1] = c.attr_int(decl.output_columns);
  if (!same_shape(c.out, want)) fail(op, "out has shape " + shape_label(c.out) + ", expected " + shape_label(want));
  return c;
}

int64_t CustomCall::attr_int(std::string_view name) const {
  const int i = attr_index(*decl, name);
  if (i < 0 || decl->attrs[i].type != TSR_ATTR_INT) fail(decl->name, "has no int attribute " + std::string(name));
  return params->attrs[i].i;
}

double CustomCall::attr_float(std::string_view name) const {
  const int i = attr_index(*decl, name);
  if (i < 0 || decl->attrs[i].type != TSR_ATTR_FLOAT) fail(decl->name, "has no float attribute " + std::string(name));
  return params->attrs[i].f;
}

}  // namespace tessera::kit
