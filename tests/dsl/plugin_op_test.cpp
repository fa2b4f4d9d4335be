// Calls to ops that plugins declare (`acme.fused_silu_mul(a, b, alpha: 0.5)`): lowered to
// Custom nodes against a catalog of declarations, and each mistake with its exact
// diagnostic (plugin missing, op undeclared, arguments, attributes, shape rules, dtypes).
#include <gtest/gtest.h>

#include "core/ops/custom_op.h"
#include "graph_query.h"
#include "reject_case.h"

namespace tessera::test {
namespace {

CustomOpSchema schema(std::string name, std::vector<CustomOpInput> inputs, std::vector<CustomOpAttr> attrs,
                      int32_t key_input = 0, int32_t output_columns = -1) {
  CustomOpSchema s;
  s.plugin = name.substr(0, name.find('.'));
  s.name = std::move(name);
  s.inputs = std::move(inputs);
  s.attrs = std::move(attrs);
  s.key_input = key_input;
  s.output_columns = output_columns;
  return s;
}

CustomOpAttr float_attr(std::string name, double value, bool required = false) {
  CustomOpAttr a{std::move(name), TSR_ATTR_FLOAT, required, {}, "a number"};
  a.default_value.f = value;
  return a;
}

CustomOpAttr int_attr(std::string name, int64_t value, bool required = false) {
  CustomOpAttr a{std::move(name), TSR_ATTR_INT, required, {}, "a count"};
  a.default_value.i = value;
  return a;
}

// acme declares three ops; `other` is loaded and declares none.
const CustomOpCatalog& catalog() {
  static const CustomOpCatalog c = [] {
    CustomOpCatalog out;
    out.add(schema("acme.fused_silu_mul", {{"gate", TSR_SHAPE_ANY, -1, false}, {"up", TSR_SHAPE_SAME_AS, 0, false}},
                   {float_attr("alpha", 1.0)}));
    out.add(schema("acme.scaled_norm",
                   {{"x", TSR_SHAPE_MATRIX, -1, false}, {"w", TSR_SHAPE_ROW_OF, 0, false}, {"bias", TSR_SHAPE_ROW_OF, 0, true}},
                   {float_attr("eps", 0, true), int_attr("groups", 1)}));
    out.add(schema("acme.project", {{"x", TSR_SHAPE_MATRIX, -1, false}, {"w", TSR_SHAPE_MATRIX, -1, false}},
                   {int_attr("cols", 0, true)}, /*key_input=*/1, /*output_columns=*/0));
    out.add_plugin("other");
    return out;
  }();
  return c;
}

// A model of width d = 4 and vocabulary v = 8 with weights emb [v, d], g [d], m [d, d]
// (`forward` sets x, then kLogits ends it).
std::string model(const std::string& forward) {
  return "model tiny\nhparams {\n  d = 4\n  v = 8\n}\nweights {\n  emb [v, d] = \"emb\"\n  g [d] = \"g\"\n"
         "  m [d, d] = \"m\"\n}\nforward {\n" + forward + "}\n";
}
// Uses every weight (a definition must), after the statement under test set x [Tokens, d].
const std::string kLogits = "  y = rms_norm(x + linear(x, m), g)\n  logits = linear(outputs(y), emb)\n";

CompiledModel compile_with_catalog(const std::string& source, DType weight_dtype = DType::F32) {
  dsl::CompileOptions options;
  options.plugin_ops = &catalog();
  options.weight_dtype = weight_dtype;
  return dsl::compile_model(*dsl::parse_model(source, "bad.tsr"), options);
}

std::string diagnose_with_catalog(const std::string& source, DType weight_dtype = DType::F32) {
  try {
    compile_with_catalog(source, weight_dtype);
    return "accepted";
  } catch (const dsl::DslError& e) {
    return e.what();
  }
}

TEST(PluginOp, LowersToOneCustomNodeWithTheAttributesInDeclarationOrder) {
  const CompiledModel m = compile_with_catalog(
      model("  h = embed(emb)\n  x = acme.fused_silu_mul(h, h * 2.0, alpha: 0.5)\n" + kLogits));
  const auto nodes = nodes_of(m.graph, OpKind::Custom);
  ASSERT_EQ(nodes.size(), 1u);
  const auto& p = std::get<CustomOpParams>(nodes[0]->params);
  EXPECT_EQ(p.name, "acme.fused_silu_mul");
  EXPECT_EQ(p.key_input, 0);
  ASSERT_EQ(p.attrs.size(), 1u);
  EXPECT_EQ(p.attrs[0].f, 0.5);
  EXPECT_EQ(nodes[0]->inputs.size(), 2u);
  EXPECT_EQ(m.graph.tensor(nodes[0]->output).shape, (Shape{sym(SymDim::Tokens), 4}));
  EXPECT_EQ(nodes[0]->op_label(), "acme.fused_silu_mul");
  EXPECT_EQ(m.graph.tensor(nodes[0]->output).name, "x");  // the statement's variable
  EXPECT_EQ(nodes[0]->origin, "bad.tsr:13:3");
}

TEST(PluginOp, FillsDefaultsAndLeavesOutAnAbsentOptionalWeight) {
  // nb is optional (`else none`); without a weights file the optional weight is absent.
  const std::string text =
      "model tiny\nhparams {\n  d = 4\n  v = 8\n}\nweights {\n  emb [v, d] = \"emb\"\n  g [d] = \"g\"\n"
      "  nb [d] = \"nb\" else none\n}\nforward {\n  x = acme.scaled_norm(embed(emb), g, nb, eps: 1e-5)\n"
      "  logits = linear(outputs(x), emb)\n}\n";
  const CompiledModel m = compile_with_catalog(text);
  const auto nodes = nodes_of(m.graph, OpKind::Custom);
  ASSERT_EQ(nodes.size(), 1u);
  const auto& p = std::get<CustomOpParams>(nodes[0]->params);
  ASSERT_EQ(p.attrs.size(), 2u);
  EXPECT_FLOAT_EQ(static_cast<float>(p.attrs[0].f), 1e-5f);
  EXPECT_EQ(p.attrs[1].i, 1);  // groups: the default
  EXPECT_EQ(nodes[0]->inputs.size(), 2u);  // x and g; the bias left out
}

TEST(PluginOp, OutputWidthFromAnIntAttributeAndKeyDtypeFromItsInput) {
  const CompiledModel m = compile_with_catalog(
      model("  x = acme.project(embed(emb), m, cols: 4)\n" + kLogits), DType::F16);
  const auto nodes = nodes_of(m.graph, OpKind::Custom);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(m.graph.tensor(nodes[0]->output).shape, (Shape{sym(SymDim::Tokens), 4}));
  EXPECT_EQ(std::get<CustomOpParams>(nodes[0]->params).key_input, 1);
  EXPECT_EQ(m.graph.tensor(nodes[0]->inputs[1]).dtype, DType::F16);
}

TEST(PluginOp, ModelDefinitionSaysWhetherItCallsPluginOps) {
  EXPECT_TRUE(dsl::parse_model(model("  x = acme.fused_silu_mul(embed(emb), embed(emb))\n" + kLogits), "t.tsr")
                  ->calls_plugin_ops());
  EXPECT_FALSE(dsl::parse_model(model("  x = embed(emb)\n" + kLogits), "t.tsr")->calls_plugin_ops());
}

struct PluginRejectCase {
  const char* name;
  std::string forward;
  const char* diagnostic;
  DType weight_dtype = DType::F32;
};
void PrintTo(const PluginRejectCase& c, std::ostream* out) { *out << c.name; }

class PluginOpReject : public ::testing::TestWithParam<PluginRejectCase> {};

TEST_P(PluginOpReject, GivesItsDiagnostic) {
  EXPECT_EQ(diagnose_with_catalog(model(GetParam().forward), GetParam().weight_dtype), GetParam().diagnostic);
}

const PluginRejectCase kPluginRejects[] = {
    {"PluginNotLoaded", "  x = zeta.gate(embed(emb))\n" + kLogits,
     "bad.tsr:12:7: error: 'zeta.gate' is an op of plugin 'zeta', which is not loaded (loaded: acme, other); put "
     "its library in a plugin directory (--plugin-dir DIR or TESSERA_PLUGIN_PATH)\n"
     "  x = zeta.gate(embed(emb))\n"
     "      ^\n"},
    {"OpNotDeclaredWithAHint", "  x = acme.fused_silu_mull(embed(emb), embed(emb))\n" + kLogits,
     "bad.tsr:12:7: error: plugin 'acme' declares no op 'acme.fused_silu_mull'; did you mean "
     "'acme.fused_silu_mul'?\n"
     "  x = acme.fused_silu_mull(embed(emb), embed(emb))\n"
     "      ^\n"},
    {"OpNotDeclaredListsTheOps", "  x = acme.gelu(embed(emb))\n" + kLogits,
     "bad.tsr:12:7: error: plugin 'acme' declares no op 'acme.gelu'; it declares: acme.fused_silu_mul, "
     "acme.scaled_norm, acme.project\n"
     "  x = acme.gelu(embed(emb))\n"
     "      ^\n"},
    {"PluginDeclaresNone", "  x = other.gelu(embed(emb))\n" + kLogits,
     "bad.tsr:12:7: error: plugin 'other' declares no op 'other.gelu'; it declares none\n"
     "  x = other.gelu(embed(emb))\n"
     "      ^\n"},
    {"TooFewArguments", "  x = acme.fused_silu_mul(embed(emb))\n" + kLogits,
     "bad.tsr:12:7: error: acme.fused_silu_mul takes 2 arguments, acme.fused_silu_mul(gate, up; alpha: float = "
     "1), but 1 was given\n"
     "  x = acme.fused_silu_mul(embed(emb))\n"
     "      ^\n"},
    {"TooManyArguments", "  x = acme.scaled_norm(embed(emb), g, g, g, eps: 1e-5)\n" + kLogits,
     "bad.tsr:12:7: error: acme.scaled_norm takes 2 to 3 arguments, acme.scaled_norm(x, w, [bias]; eps: float, "
     "groups: int = 1), but 4 were given\n"
     "  x = acme.scaled_norm(embed(emb), g, g, g, eps: 1e-5)\n"
     "      ^\n"},
    {"UnknownAttribute", "  h = embed(emb)\n  x = acme.fused_silu_mul(h, h, alpah: 2.0)\n" + kLogits,
     "bad.tsr:13:33: error: unknown attribute 'alpah' for acme.fused_silu_mul; did you mean 'alpha'?\n"
     "  x = acme.fused_silu_mul(h, h, alpah: 2.0)\n"
     "                                ^\n"},
    {"FractionForAnIntAttribute", "  x = acme.scaled_norm(embed(emb), g, eps: 1e-5, groups: 1.5)\n" + kLogits,
     "bad.tsr:12:58: error: attribute 'groups' of acme.scaled_norm must be an integer, but '1.5' is 1.5\n"
     "  x = acme.scaled_norm(embed(emb), g, eps: 1e-5, groups: 1.5)\n"
     "                                                         ^\n"},
    {"RequiredAttributeLeftOut", "  x = acme.scaled_norm(embed(emb), g)\n" + kLogits,
     "bad.tsr:12:7: error: acme.scaled_norm needs the attribute 'eps' (a number)\n"
     "  x = acme.scaled_norm(embed(emb), g)\n"
     "      ^\n"},
    {"AttributeGivenTwice", "  h = embed(emb)\n  x = acme.fused_silu_mul(h, h, alpha: 1.0, alpha: 2.0)\n" + kLogits,
     "bad.tsr:13:45: error: attribute 'alpha' is given twice\n"
     "  x = acme.fused_silu_mul(h, h, alpha: 1.0, alpha: 2.0)\n"
     "                                            ^\n"},
    {"SameShapeRule", "  h = embed(emb)\n  x = acme.fused_silu_mul(h, linear(h, emb))\n" + kLogits,
     "bad.tsr:13:30: error: acme.fused_silu_mul: 'up' must have the shape of 'gate', but 'linear(h, emb)' "
     "[Tokens, 8] and 'h' [Tokens, 4] differ\n"
     "  x = acme.fused_silu_mul(h, linear(h, emb))\n"
     "                             ^\n"},
    {"RowOfRule", "  x = acme.scaled_norm(embed(emb), emb, eps: 1e-5)\n" + kLogits,
     "bad.tsr:12:36: error: acme.scaled_norm: 'w' must be a vector [4] matching the last dimension of 'x' "
     "'embed(emb)' [Tokens, 4], but is 'emb' [8, 4]\n"
     "  x = acme.scaled_norm(embed(emb), emb, eps: 1e-5)\n"
     "                                   ^\n"},
    {"MatrixRule", "  x = acme.scaled_norm(g, g, eps: 1e-5)\n" + kLogits,
     "bad.tsr:12:24: error: acme.scaled_norm: 'x' must be a matrix, but 'g' [4] is not\n"
     "  x = acme.scaled_norm(g, g, eps: 1e-5)\n"
     "                       ^\n"},
    {"OnlyTheKeyInputMayBeQuantised", "  x = acme.project(m, m, cols: 4)\n" + kLogits,
     "bad.tsr:12:20: error: acme.project: 'x' 'm' [4, 4] is f16; only 'w' may be stored other than f32\n"
     "  x = acme.project(m, m, cols: 4)\n"
     "                   ^\n",
     DType::F16},
    {"OutputWidthMustBePositive", "  x = acme.project(embed(emb), m, cols: 0)\n" + kLogits,
     "bad.tsr:12:7: error: acme.project: attribute 'cols' is the output's width and must be positive, not 0\n"
     "  x = acme.project(embed(emb), m, cols: 0)\n"
     "      ^\n"},
};

INSTANTIATE_TEST_SUITE_P(Dsl, PluginOpReject, ::testing::ValuesIn(kPluginRejects),
                         [](const ::testing::TestParamInfo<PluginRejectCase>& info) { return info.param.name; });

TEST(PluginOp, CannotBeCalledInHparams) {
  const std::string text =
      "model tiny\nhparams {\n  d = acme.count(4)\n}\nweights {\n  emb [8, d] = \"emb\"\n}\n"
      "forward {\n  logits = linear(outputs(embed(emb)), emb)\n}\n";
  EXPECT_EQ(diagnose_with_catalog(text),
            "bad.tsr:3:7: error: 'acme.count' is an op of plugin 'acme'; it can only be used in the forward section\n"
            "  d = acme.count(4)\n"
            "      ^\n");
}

TEST(PluginOp, NameWithoutArgumentsIsASyntaxError) {
  EXPECT_EQ(diagnose_with_catalog(model("  x = acme.gate\n" + kLogits)),
            "bad.tsr:12:16: error: expected '(' and the arguments after the name of a plugin's op, found end of line\n"
            "  x = acme.gate\n"
            "               ^\n");
}

TEST(PluginOp, WithoutACatalogThePluginIsNotLoaded) {
  EXPECT_EQ(dsl_error(model("  x = acme.fused_silu_mul(embed(emb), embed(emb))\n" + kLogits)),
            "'acme.fused_silu_mul' is an op of plugin 'acme', which is not loaded; put its library in a plugin "
            "directory (--plugin-dir DIR or TESSERA_PLUGIN_PATH)");
}

}  // namespace
}  // namespace tessera::test
