// Mistakes with the new ops and scalar functions: '%', pow(), round(), if(), slice,
// softcap, optional arguments, per-head norms and YaRN; each with its exact diagnostic.
#include "reject_case.h"

namespace tessera::test {
namespace {

// `hparams` and `forward` statements in a model of width d = 4, vocabulary v = 8,
// with a weight emb [v, d]; the forward section must end with logits.
std::string model(const std::string& hparams, const std::string& weights, const std::string& forward) {
  return "model tiny\nhparams {\n  d = 4\n  v = 8\n" + hparams + "}\nweights {\n  emb [v, d] = \"emb\"\n" + weights +
         "}\nforward {\n" + forward + "}\n";
}

const std::string kLogits = "  logits = linear(outputs(x), emb)\n";

const std::string kRemainderOfAFloat = model("  every = 2.0\n  local = 3 % every\n", "", "  x = embed(emb)\n" + kLogits);
const std::string kRemainderByZero = model("  local = d % (d - 4)\n", "", "  x = embed(emb)\n" + kLogits);
const std::string kPowOverflows = model("  big = pow(10, 19)\n", "", "  x = embed(emb)\n" + kLogits);
const std::string kPowNotFinite = model("  inf = pow(0, -1)\n", "", "  x = embed(emb)\n" + kLogits);
const std::string kRoundOfTwo = model("  n_rot = round(d * 0.4, 1)\n", "", "  x = embed(emb)\n" + kLogits);
const std::string kIfOfTwo = model("  w = if(hf, 1)\n", "", "  x = embed(emb)\n" + kLogits);
const std::string kChoiceTypoInIf =
    model("", "", "  x = rope(embed(emb), heads: 2, pairing: if(hf, neox, interleave))\n" + kLogits);
const std::string kIfOfATensor =
    model("", "", "  x = embed(emb)\n  x = rope(x, heads: 2, pairing: if(x, neox, interleaved))\n" + kLogits);
const std::string kSliceOutOfRange = model("", "", "  x = slice(embed(emb), 2, 3)\n" + kLogits);
const std::string kSliceGroupsOutOfRange =
    model("", "", "  x = slice(embed(emb), 0, 2, groups: 2, stride: 3)\n" + kLogits);
const std::string kSliceStrideOverflows =  // (3 - 1) * 2^62 wraps past int64
    model("", "", "  x = slice(embed(emb), 0, 1, groups: 3, stride: 4611686018427387904)\n" + kLogits);
const std::string kSliceStartNotWhole = model("", "", "  x = slice(embed(emb), d / 8.0, 2)\n" + kLogits);
const std::string kSoftcapNegative = model("", "", "  x = softcap(embed(emb), -1.5)\n" + kLogits);
const std::string kAttentionSoftcapNegative =
    model("", "", "  x = embed(emb)\n  x = attention(x, x, x, heads: 2, softcap: -50.0)\n" + kLogits);
const std::string kLinearOfOne = model("", "", "  x = linear(embed(emb))\n" + kLogits);
const std::string kLinearOfFour =
    model("", "  b [v] = \"b\"\n", "  x = embed(emb)\n  logits = linear(outputs(x), emb, b, b)\n");
const std::string kLinearBiasLength =
    model("", "  b [d] = \"b\"\n", "  x = embed(emb)\n  logits = linear(outputs(x), emb, b)\n");
const std::string kPerHeadNormOfAWholeRow =
    model("", "  qn [d] = \"qn\"\n", "  x = rms_norm(embed(emb), qn, heads: 2)\n" + kLogits);
const std::string kLayerNormBiasOfAnotherShape = model(
    "", "  qn [2, 2] = \"qn\"\n  qb [2] = \"qb\"\n", "  x = layer_norm(embed(emb), qn, qb, heads: 2)\n" + kLogits);
const std::string kYarnOrigCtxNegative =
    model("", "", "  x = rope(embed(emb), heads: 2, yarn_orig_ctx: -4096)\n" + kLogits);

const RejectCase kOpRejects[] = {
    {"RemainderOfAFloat", kRemainderOfAFloat.c_str(),
     "bad.tsr:6:13: error: '%' needs integers, but '3 % every' has a float operand\n"
     "  local = 3 % every\n"
     "            ^\n"},
    {"RemainderByZero", kRemainderByZero.c_str(),
     "bad.tsr:5:13: error: division by zero in 'd % (d - 4)'\n"
     "  local = d % (d - 4)\n"
     "            ^\n"},
    {"PowOverflows", kPowOverflows.c_str(),
     "bad.tsr:5:9: error: integer overflow in 'pow(10, 19)'\n"
     "  big = pow(10, 19)\n"
     "        ^\n"},
    {"PowIsNotFinite", kPowNotFinite.c_str(),
     "bad.tsr:5:9: error: 'pow(0, -1)' is not a finite number\n"
     "  inf = pow(0, -1)\n"
     "        ^\n"},
    {"RoundTakesOneArgument", kRoundOfTwo.c_str(),
     "bad.tsr:5:11: error: 'round' takes 1 argument (x), but 2 were given\n"
     "  n_rot = round(d * 0.4, 1)\n"
     "          ^\n"},
    {"IfTakesThreeArguments", kIfOfTwo.c_str(),
     "bad.tsr:5:7: error: 'if' takes 3 arguments (condition, then, else), but 2 were given\n"
     "  w = if(hf, 1)\n"
     "      ^\n"},
    {"ChoiceTypoInsideIf", kChoiceTypoInIf.c_str(),
     "bad.tsr:10:56: error: attribute 'pairing' of rope must be one of interleaved, neox, not 'interleave'; "
     "did you mean 'interleaved'?\n"
     "  x = rope(embed(emb), heads: 2, pairing: if(hf, neox, interleave))\n"
     "                                                       ^\n"},
    {"IfConditionIsATensor", kIfOfATensor.c_str(),
     "bad.tsr:11:37: error: the condition of if() must be a number, but 'x' is a tensor\n"
     "  x = rope(x, heads: 2, pairing: if(x, neox, interleaved))\n"
     "                                    ^\n"},
    {"SliceOutOfRange", kSliceOutOfRange.c_str(),
     "bad.tsr:10:7: error: slice: columns 2 .. 5 of 1 group(s) of 3 (stride 3) do not fit the 4 columns of "
     "'embed(emb)' [Tokens, 4]\n"
     "  x = slice(embed(emb), 2, 3)\n"
     "      ^\n"},
    {"SliceGroupsOutOfRange", kSliceGroupsOutOfRange.c_str(),
     "bad.tsr:10:7: error: slice: columns 0 .. 5 of 2 group(s) of 2 (stride 3) do not fit the 4 columns of "
     "'embed(emb)' [Tokens, 4]\n"
     "  x = slice(embed(emb), 0, 2, groups: 2, stride: 3)\n"
     "      ^\n"},
    {"SliceStrideOverflows", kSliceStrideOverflows.c_str(),
     "bad.tsr:10:7: error: slice: columns 0 .. 9223372036854775807 of 3 group(s) of 1 (stride 4611686018427387904) "
     "do not fit the 4 columns of 'embed(emb)' [Tokens, 4]\n"
     "  x = slice(embed(emb), 0, 1, groups: 3, stride: 4611686018427387904)\n"
     "      ^\n"},
    {"SliceStartNotWhole", kSliceStartNotWhole.c_str(),
     "bad.tsr:10:25: error: slice: start must be a whole number >= 0, not 0.5\n"
     "  x = slice(embed(emb), d / 8.0, 2)\n"
     "                        ^\n"},
    {"SoftcapNegative", kSoftcapNegative.c_str(),
     "bad.tsr:10:27: error: softcap: the cap must be 0 (no cap) or positive, not -1.5\n"
     "  x = softcap(embed(emb), -1.5)\n"
     "                          ^\n"},
    {"AttentionSoftcapNegative", kAttentionSoftcapNegative.c_str(),
     "bad.tsr:11:45: error: attention: softcap and alibi must be 0 (off) or positive\n"
     "  x = attention(x, x, x, heads: 2, softcap: -50.0)\n"
     "                                            ^\n"},
    {"LinearWithOneArgument", kLinearOfOne.c_str(),
     "bad.tsr:10:7: error: 'linear' takes 2 to 3 arguments (x, weight, [bias]), but 1 was given\n"
     "  x = linear(embed(emb))\n"
     "      ^\n"},
    {"LinearWithFourArguments", kLinearOfFour.c_str(),
     "bad.tsr:12:12: error: 'linear' takes 2 to 3 arguments (x, weight, [bias]), but 4 were given\n"
     "  logits = linear(outputs(x), emb, b, b)\n"
     "           ^\n"},
    {"LinearBiasOfTheWrongLength", kLinearBiasLength.c_str(),
     "bad.tsr:12:36: error: linear: 'b' [4] must be a vector [8] matching the 8 rows of the weight 'emb' [8, 4]\n"
     "  logits = linear(outputs(x), emb, b)\n"
     "                                   ^\n"},
    {"PerHeadNormWeightOfAWholeRow", kPerHeadNormOfAWholeRow.c_str(),
     "bad.tsr:11:28: error: rms_norm: 'qn' [4] must be a vector [2] matching one head (4 columns / 2 heads), or be [2, 2], a gain per head\n"
     "  x = rms_norm(embed(emb), qn, heads: 2)\n"
     "                           ^\n"},
    {"LayerNormBiasOfAnotherShapeThanItsWeight", kLayerNormBiasOfAnotherShape.c_str(),
     "bad.tsr:12:34: error: layer_norm: 'qb' [2] must have the shape of the weight 'qn' [2, 2]\n"
     "  x = layer_norm(embed(emb), qn, qb, heads: 2)\n"
     "                                 ^\n"},
    {"YarnOrigCtxNegative", kYarnOrigCtxNegative.c_str(),
     "bad.tsr:10:49: error: rope: yarn_orig_ctx must be 0 or a positive token count\n"
     "  x = rope(embed(emb), heads: 2, yarn_orig_ctx: -4096)\n"
     "                                                ^\n"},
};

class OpReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(OpReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, OpReject, ::testing::ValuesIn(kOpRejects), case_name);

}  // namespace
}  // namespace tessera::test
