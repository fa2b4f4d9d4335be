// A norm's gain per head ([heads, head_dim], Command R+'s QK-norm): a matrix in shape
// that its kernels read as f32 values, so a file's f16 copy is widened at load, a
// block-quantised one is refused at the call, and converters keep it f32.
#include <gtest/gtest.h>

#include "fake_weight_file.h"
#include "graph_query.h"

namespace tessera::test {
namespace {

const std::string kModel =
    "model tiny\n"
    "hparams {\n  d = 4\n  v = 8\n}\n"
    "weights {\n  emb [v, d] = \"emb\"\n  qn [2, 2] = \"qn\"\n}\n"
    "forward {\n"
    "  x = layer_norm(embed(emb), qn, heads: 2)\n"
    "  logits = linear(outputs(x), emb)\n"
    "}\n";

FakeWeightFile file_with_gain(DType gain_dtype) {
  FakeWeightFile f("tiny.gguf");
  f.set_string("general.architecture", "tiny");
  f.add_tensor("emb", {8, 4});
  f.add_tensor("qn", {2, 2}, gain_dtype);
  return f;
}

TEST(PerHeadGain, F16GainIsWidenedToF32AndMarked) {
  const FakeWeightFile f = file_with_gain(DType::F16);
  const CompiledModel m = compile_text(kModel, &f);
  const GraphTensor* qn = find_tensor(m.graph, "qn");
  ASSERT_NE(qn, nullptr);
  EXPECT_EQ(qn->dtype, DType::F32);
  EXPECT_TRUE(qn->widened);
  EXPECT_TRUE(qn->vector_operand);
  // The matrix of the same file stays as stored.
  EXPECT_FALSE(find_tensor(m.graph, "emb")->vector_operand);
}

TEST(PerHeadGain, F32GainIsMarkedAndNotWidened) {
  const FakeWeightFile f = file_with_gain(DType::F32);
  const CompiledModel m = compile_text(kModel, &f);  // owns the graph qn points into
  const GraphTensor* qn = find_tensor(m.graph, "qn");
  ASSERT_NE(qn, nullptr);
  EXPECT_FALSE(qn->widened);
  EXPECT_TRUE(qn->vector_operand);
}

TEST(PerHeadGain, QuantisedGainIsRefusedAtTheCall) {
  const FakeWeightFile f = file_with_gain(DType::Q8_0);
  EXPECT_EQ(dsl_error(kModel, &f),
            "'qn' [2, 2] is q8_0 in the file, but its values are read as f32 (f16 and bf16 are widened at load)");
}

}  // namespace
}  // namespace tessera::test
