// The declarations of plugin ops (tsr_plugin.ops) and the kernels of declared ops, as
// the host validates them at load: each broken rule refused with its exact message.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/ops/custom_op.h"
#include "core/plugin/table_check.h"
#include "core/util/error.h"

namespace tessera {
namespace {

tsr_status run_nothing(void*, const tsr_op_call*) { return TSR_OK; }
const char* no_error(void*) { return ""; }

// A valid kernel plugin "acme" declaring acme.mix(a, b same as a, [bias row of a];
// alpha: float = 1, width: int required), keyed by a, its width from `width`, with one
// kernel for it. Each test breaks one thing of a copy.
struct Table {
  tsr_input_decl inputs[3] = {{"a", TSR_SHAPE_MATRIX, 0, 0}, {"b", TSR_SHAPE_SAME_AS, 0, 0},
                              {"bias", TSR_SHAPE_ROW_OF, 0, 1}};
  tsr_attr_decl attrs[2] = {{"alpha", TSR_ATTR_FLOAT, 0, {.f = 1.0}, "slope"},
                            {"width", TSR_ATTR_INT, 1, {.i = 0}, "output columns"}};
  tsr_op_decl ops[1] = {{"acme.mix", "mixes", 3, inputs, 2, attrs, 0, "width", 0}};
  tsr_kernel_desc kernels[1] = {{TSR_OP_CUSTOM, TSR_DTYPE_F32, 0, "acme.mix.f32", run_nothing, "acme.mix"}};
  tsr_plugin plugin{};

  Table() {
    plugin.abi_version = TSR_ABI_VERSION;
    plugin.struct_size = sizeof(tsr_plugin);
    plugin.name = "acme";
    plugin.last_error = no_error;
    plugin.extends = "cpu";
    plugin.kernel_count = 1;
    plugin.kernels = kernels;
    plugin.op_count = 1;
    plugin.ops = ops;
  }
};

std::string refusal(const std::function<void(Table&)>& breakage) {
  Table t;
  breakage(t);
  try {
    check_plugin_table(&t.plugin, "libacme.so");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(OpDeclCheck, AcceptsAValidDeclarationAndItsKernel) { EXPECT_EQ(refusal([](Table&) {}), "accepted"); }

TEST(OpDeclCheck, NameMustStartWithThePluginsOwnName) {
  EXPECT_EQ(refusal([](Table& t) { t.ops[0].name = "other.mix"; }),
            "libacme.so: op 0 ('other.mix'): the name must be 'acme.<op>' with <op> in [a-z_][a-z0-9_]* (the "
            "plugin's own name first)");
  EXPECT_EQ(refusal([](Table& t) { t.ops[0].name = "acme.Mix"; }),
            "libacme.so: op 0 ('acme.Mix'): the name must be 'acme.<op>' with <op> in [a-z_][a-z0-9_]* (the "
            "plugin's own name first)");
}

TEST(OpDeclCheck, RuleMustReferToAnEarlierInput) {
  EXPECT_EQ(refusal([](Table& t) { t.inputs[1].ref = 1; }),
            "libacme.so: op 0 ('acme.mix'): input 1 ('b') refers to input 1, which is not before it");
}

TEST(OpDeclCheck, UnknownShapeRule) {
  EXPECT_EQ(refusal([](Table& t) { t.inputs[0].rule = static_cast<tsr_shape_rule>(9); }),
            "libacme.so: op 0 ('acme.mix'): input 0 ('a'): unknown shape rule 9");
}

TEST(OpDeclCheck, RequiredInputAfterAnOptionalOne) {
  EXPECT_EQ(refusal([](Table& t) { t.inputs[1].optional = 1; t.inputs[2].optional = 0; }),
            "libacme.so: op 0 ('acme.mix'): input 2 ('bias') is required but follows an optional input");
}

TEST(OpDeclCheck, TooManyInputs) {
  EXPECT_EQ(refusal([](Table& t) { t.ops[0].n_inputs = 9; }),
            "libacme.so: op 0 ('acme.mix'): n_inputs is 9; an op takes 1 to 8");
}

TEST(OpDeclCheck, AttributeDeclaredTwice) {
  EXPECT_EQ(refusal([](Table& t) { t.attrs[1].name = "alpha"; }),
            "libacme.so: op 0 ('acme.mix'): attribute 1 ('alpha') is declared twice");
}

TEST(OpDeclCheck, UnknownAttributeType) {
  EXPECT_EQ(refusal([](Table& t) { t.attrs[0].type = static_cast<tsr_attr_type>(5); }),
            "libacme.so: op 0 ('acme.mix'): attribute 0 ('alpha'): unknown type 5");
}

TEST(OpDeclCheck, OutputColumnsMustNameAnIntAttribute) {
  EXPECT_EQ(refusal([](Table& t) { t.ops[0].output_columns = "alpha"; }),
            "libacme.so: op 0 ('acme.mix'): output_columns 'alpha' is not one of its int attributes");
}

TEST(OpDeclCheck, KeyInputMustBeRequired) {
  EXPECT_EQ(refusal([](Table& t) { t.ops[0].key_input = 2; }),
            "libacme.so: op 0 ('acme.mix'): key_input is 2, not one of its required inputs");
}

TEST(OpDeclCheck, OpDeclaredTwice) {
  EXPECT_EQ(refusal([](Table& t) {
              static tsr_op_decl twice[2];
              twice[0] = twice[1] = t.ops[0];
              t.plugin.ops = twice;
              t.plugin.op_count = 2;
            }),
            "libacme.so: op 1 ('acme.mix') is declared twice");
}

TEST(OpDeclCheck, CustomKernelNeedsAnOpName) {
  EXPECT_EQ(refusal([](Table& t) { t.kernels[0].op_name = nullptr; }),
            "libacme.so: kernel 0 ('acme.mix.f32'): a custom-op kernel needs op_name '<plugin>.<op>' naming a "
            "declared op");
}

TEST(OpDeclCheck, BuiltInKernelMustNotNameAnOp) {
  EXPECT_EQ(refusal([](Table& t) { t.kernels[0].op = TSR_OP_ADD; }),
            "libacme.so: kernel 0 ('acme.mix.f32'): op_name 'acme.mix' is set but op is not TSR_OP_CUSTOM");
}

TEST(CustomOpSchema, SignatureShowsOptionalInputsAndAttributeDefaults) {
  const Table t;
  const CustomOpSchema s = CustomOpSchema::from_decl(t.ops[0], "acme");
  EXPECT_EQ(s.signature(), "acme.mix(a, b, [bias]; alpha: float = 1, width: int)");
  EXPECT_EQ(s.required_inputs(), 2u);
  EXPECT_EQ(s.output_columns, 1);
}

TEST(CustomOpCatalog, RefusesTheSameOpTwice) {
  const Table t;
  CustomOpCatalog c;
  c.add(CustomOpSchema::from_decl(t.ops[0], "acme"));
  EXPECT_THROW(c.add(CustomOpSchema::from_decl(t.ops[0], "acme")), Error);
  EXPECT_TRUE(c.has_plugin("acme"));
  EXPECT_EQ(c.op_names_of("acme"), std::vector<std::string>{"acme.mix"});
}

}  // namespace
}  // namespace tessera
