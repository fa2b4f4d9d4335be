// Mistakes with comparisons and logic, arithmetic on tensors, if() on tensors, named
// numbers, has(), clamp and layer_norm without a weight; each with its exact diagnostic.
#include "reject_case.h"

namespace tessera::test {
namespace {

// `hparams`, `weights` and `forward` lines in a model of width d = 4, vocabulary v = 8,
// with a weight emb [v, d]: line 5 is the first of `hparams`.
std::string model(const std::string& hparams, const std::string& weights, const std::string& forward) {
  return "model tiny\nhparams {\n  d = 4\n  v = 8\n" + hparams + "}\nweights {\n  emb [v, d] = \"emb\"\n" + weights +
         "}\nforward {\n" + forward + "}\n";
}

const std::string kLogits = "  logits = linear(outputs(x), emb)\n";
const std::string kForward = "  x = embed(emb)\n" + kLogits;

// clang-format off
const std::string kNotWithoutOperand = model("  r = !* 2\n", "", kForward);
const std::string kComparisonWithoutOperand = model("  r = d < * 2\n", "", kForward);
const std::string kNotOfATensor = model("", "", "  x = !embed(emb)\n" + kLogits);
const std::string kMinusOfAString = model("  r = -\"d\"\n", "", kForward);
const std::string kRemainderOfATensor = model("", "", "  x = embed(emb) % 2\n" + kLogits);
const std::string kTensorDividedByTensor = model("", "", "  x = embed(emb) / embed(emb)\n" + kLogits);
const std::string kTensorComparison = model("", "", "  x = embed(emb)\n  x = if(x < 1, x, x)\n" + kLogits);
const std::string kChainedComparison = model("  r = 0 < d < 8\n", "", kForward);
const std::string kChainedEquality = model("  r = d == 4 == 1\n", "", kForward);
const std::string kIfBranchesDiffer = model("", "", "  x = if(d > 2, embed(emb), 1.0)\n" + kLogits);
const std::string kIfBranchIsAString = model("", "", "  x = if(d > 2, embed(emb), \"emb\")\n" + kLogits);
const std::string kTensorBecomesNumber = model("", "", "  x = embed(emb)\n  x = 2.0\n" + kLogits);
const std::string kNumberBecomesTensor = model("", "", "  s = 2\n  s = embed(emb)\n  x = s\n" + kLogits);
const std::string kValueIsAString = model("", "", "  s = \"emb\"\n" + kForward);
const std::string kLogitsIsANumber = model("", "", "  x = embed(emb)\n  logits = 2\n");
const std::string kNumberHidesHparam = model("", "", "  d = 8\n" + kForward);
const std::string kHasInWeights = model("", "  w [if(has(\"w\"), d, v), d] = \"w\"\n",
                                        "  x = linear(embed(emb), w)\n" + kLogits);
const std::string kSubOfTwoShapes = model("", "  w [v, d] = \"w\"\n", "  x = embed(emb) - linear(embed(emb), w)\n" + kLogits);
const std::string kClampBoundsSwapped = model("", "", "  x = clamp(embed(emb), 2.0, 1.0)\n" + kLogits);
const std::string kLayerNormGainNoneWithWeight =
    model("", "  g [d] = \"g\"\n", "  x = layer_norm(embed(emb), g, gain: none)\n" + kLogits);
const std::string kLayerNormWithoutWeight = model("", "", "  x = layer_norm(embed(emb), eps: 1e-5)\n" + kLogits);
const std::string kLayerNormAbsentWeight =
    model("", "  g [d] = \"g\" else none\n", "  x = layer_norm(embed(emb), g)\n" + kLogits);
const std::string kLayerNormBiasWithoutWeight = model("", "  g [d] = \"g\" else none\n  b [d] = \"b\"\n",
                                                      "  x = layer_norm(embed(emb), g, b, gain: none)\n" + kLogits);
// clang-format on

const RejectCase kExpressionRejects[] = {
    {"NotWithoutOperand", kNotWithoutOperand.c_str(),
     "bad.tsr:5:8: error: expected an operand after '!', found '*'\n"
     "  r = !* 2\n"
     "       ^\n"},
    {"ComparisonWithoutOperand", kComparisonWithoutOperand.c_str(),
     "bad.tsr:5:11: error: expected an operand after the operator, found '*'\n"
     "  r = d < * 2\n"
     "          ^\n"},
    {"NotOfATensor", kNotOfATensor.c_str(),
     "bad.tsr:10:7: error: operator '!' needs a number, but 'embed(emb)' is a tensor\n"
     "  x = !embed(emb)\n"
     "      ^\n"},
    {"MinusOfAString", kMinusOfAString.c_str(),
     "bad.tsr:5:8: error: the operand of '-' must be a number, but '\"d\"' is a string\n"
     "  r = -\"d\"\n"
     "       ^\n"},
    {"RemainderOfATensor", kRemainderOfATensor.c_str(),
     "bad.tsr:10:18: error: operator '%' needs two integers, but 'embed(emb)' is a tensor\n"
     "  x = embed(emb) % 2\n"
     "                 ^\n"},
    {"TensorDividedByTensor", kTensorDividedByTensor.c_str(),
     "bad.tsr:10:18: error: operator '/' is not defined for two tensors (only +, - and elementwise *)\n"
     "  x = embed(emb) / embed(emb)\n"
     "                 ^\n"},
    {"TensorComparison", kTensorComparison.c_str(),
     "bad.tsr:11:12: error: operator '<' needs numbers, but 'x' is a tensor\n"
     "  x = if(x < 1, x, x)\n"
     "           ^\n"},
    {"ChainedComparison", kChainedComparison.c_str(),
     "bad.tsr:5:13: error: comparisons do not chain: '0 < d < 8' would compare the 1 or 0 of '0 < d'; "
     "write '0 < d && d < 8'\n"
     "  r = 0 < d < 8\n"
     "            ^\n"},
    {"ChainedEquality", kChainedEquality.c_str(),
     "bad.tsr:5:14: error: comparisons do not chain: 'd == 4 == 1' would compare the 1 or 0 of 'd == 4'; "
     "write 'd == 4 && 4 == 1'\n"
     "  r = d == 4 == 1\n"
     "             ^\n"},
    {"IfBranchesDiffer", kIfBranchesDiffer.c_str(),
     "bad.tsr:10:29: error: the branches of if() must both be numbers or both tensors, but 'embed(emb)' is a "
     "tensor and '1.0' is a number\n"
     "  x = if(d > 2, embed(emb), 1.0)\n"
     "                            ^\n"},
    {"IfBranchIsAString", kIfBranchIsAString.c_str(),
     "bad.tsr:10:29: error: the branches of if() must be numbers or tensors, but '\"emb\"' is a string\n"
     "  x = if(d > 2, embed(emb), \"emb\")\n"
     "                            ^\n"},
    {"TensorBecomesNumber", kTensorBecomesNumber.c_str(),
     "bad.tsr:11:7: error: 'x' is a tensor (line 10), so it cannot be given a number; choose another name\n"
     "  x = 2.0\n"
     "      ^\n"},
    {"NumberBecomesTensor", kNumberBecomesTensor.c_str(),
     "bad.tsr:11:7: error: 's' is a number (line 10), so it cannot be given a tensor; choose another name\n"
     "  s = embed(emb)\n"
     "      ^\n"},
    {"ValueIsAString", kValueIsAString.c_str(),
     "bad.tsr:10:7: error: the value of 's' must be a tensor or a number, but '\"emb\"' is a string\n"
     "  s = \"emb\"\n"
     "      ^\n"},
    {"LogitsIsANumber", kLogitsIsANumber.c_str(),
     "bad.tsr:11:3: error: 'logits', the model's output, must be a tensor, but is a number\n"
     "  logits = 2\n"
     "  ^\n"},
    {"NumberHidesAHyperParameter", kNumberHidesHparam.c_str(),
     "bad.tsr:10:3: error: number 'd' would hide the hyper-parameter at line 3; choose another name\n"
     "  d = 8\n"
     "  ^\n"},
    {"HasInAWeightShape", kHasInWeights.c_str(),
     "bad.tsr:8:9: error: has() can only be used in the hparams and forward sections\n"
     "  w [if(has(\"w\"), d, v), d] = \"w\"\n"
     "        ^\n"},
    {"SubOfTwoShapes", kSubOfTwoShapes.c_str(),
     "bad.tsr:11:18: error: '-' needs tensors of the same shape (or a row [C] and a [N, C]), but 'embed(emb)' "
     "[Tokens, 4] and 'linear(embed(emb), w)' [Tokens, 8] differ\n"
     "  x = embed(emb) - linear(embed(emb), w)\n"
     "                 ^\n"},
    {"ClampBoundsSwapped", kClampBoundsSwapped.c_str(),
     "bad.tsr:10:30: error: clamp: hi 1.0 is below lo 2.0\n"
     "  x = clamp(embed(emb), 2.0, 1.0)\n"
     "                             ^\n"},
    {"LayerNormGainNoneWithAWeight", kLayerNormGainNoneWithWeight.c_str(),
     "bad.tsr:11:30: error: layer_norm: gain: none takes no weight, but 'g' [4] is given\n"
     "  x = layer_norm(embed(emb), g, gain: none)\n"
     "                             ^\n"},
    {"LayerNormWithoutAWeight", kLayerNormWithoutWeight.c_str(),
     "bad.tsr:10:7: error: layer_norm without a weight needs gain: none (a norm without parameters)\n"
     "  x = layer_norm(embed(emb), eps: 1e-5)\n"
     "      ^\n"},
    {"LayerNormWithAnAbsentWeight", kLayerNormAbsentWeight.c_str(),
     "bad.tsr:11:30: error: layer_norm: the weight 'g' is absent (`else none`); a norm without a weight needs "
     "gain: none\n"
     "  x = layer_norm(embed(emb), g)\n"
     "                             ^\n"},
    {"LayerNormBiasWithoutAWeight", kLayerNormBiasWithoutWeight.c_str(),
     "bad.tsr:12:33: error: layer_norm: the bias 'b' [4] needs a weight, but 'g' is absent\n"
     "  x = layer_norm(embed(emb), g, b, gain: none)\n"
     "                                ^\n"},
};

class ExpressionReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(ExpressionReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, ExpressionReject, ::testing::ValuesIn(kExpressionRejects), case_name);

}  // namespace
}  // namespace tessera::test
