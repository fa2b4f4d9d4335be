// Errors found when compiling, once hyper-parameters have values: shapes that are not
// whole numbers, operands whose shapes do not fit, missing values. Exact diagnostics.
#include "reject_case.h"

namespace tessera::test {
namespace {

const RejectCase kCompileRejects[] = {
    {"NonIntegerShape",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d * 1.5] = "emb"
}
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:7:11: error: a dimension of 'emb' must be an integer, but 'd * 1.5' is 6.0\n"
     "  emb [v, d * 1.5] = \"emb\"\n"
     "          ^\n"},
    {"DivisionNotExact",
     R"(model tiny
hparams {
  d = 4
  v = 8
  head_dim = d / 3
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:5:16: error: integer division 'd / 3' is not exact: 4 / 3 leaves a remainder of 1 (write a float, as 1.0 * a / b, for a fractional result)\n"
     "  head_dim = d / 3\n"
     "               ^\n"},
    {"DivisionByZero",
     R"(model tiny
hparams {
  d = 4
  v = 8
  n = 0
  head_dim = d / n
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:6:16: error: division by zero in 'd / n'\n"
     "  head_dim = d / n\n"
     "               ^\n"},
    {"LinearInnerDimensionsDiffer",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  proj [d, v] = "proj"
}
forward {
  x = linear(embed(emb), proj)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:11:7: error: linear: the input 'embed(emb)' [Tokens, 4] has 4 columns but the weight 'proj' [4, 8] expects 8\n"
     "  x = linear(embed(emb), proj)\n"
     "      ^\n"},
    {"AddOfDifferentShapes",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  up [v, d] = "up"
}
forward {
  x = embed(emb)
  x = x + linear(x, up)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:12:9: error: '+' needs tensors of the same shape (or a row [C] and a [N, C]), but 'x' [Tokens, 4] and 'linear(x, up)' [Tokens, 8] differ\n"
     "  x = x + linear(x, up)\n"
     "        ^\n"},
    {"AttentionKeyWidthIsNotKvHeadsTimesHeadDim",
     R"(model tiny
hparams {
  d = 8
  v = 16
}
weights {
  emb [v, d] = "emb"
  wk [d / 2, d] = "wk"
}
forward {
  x = embed(emb)
  x = attention(x, x, linear(x, wk), heads: 4, kv_heads: 2)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:12:20: error: attention: 'x' [Tokens, 8] must have kv_heads * head_dim = 2 * 2 = 4 columns\n"
     "  x = attention(x, x, linear(x, wk), heads: 4, kv_heads: 2)\n"
     "                   ^\n"},
    {"RopeHeadsDoNotSplitTheColumns",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = rope(embed(emb), heads: 3)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:10:12: error: rope: the 4 columns of 'embed(emb)' [Tokens, 4] do not split into 3 heads\n"
     "  x = rope(embed(emb), heads: 3)\n"
     "           ^\n"},
    {"LogitsNotOneRowPerOutput",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = embed(emb)
  logits = linear(x, emb)
}
)",
     "bad.tsr:11:12: error: 'logits' must be [Outputs, n_vocab], but is [Tokens, 8]; select the rows with outputs(x) before the output projection\n"
     "  logits = linear(x, emb)\n"
     "           ^\n"},
    {"HyperParameterWithoutValueOrFile",
     R"(model tiny
hparams {
  d = meta("{arch}.embedding_length")
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:3:7: error: hyper-parameter 'd' has no value: it reads meta(\"tiny.embedding_length\") and no weights file was given; pass -m FILE or --set d=N\n"
     "  d = meta(\"{arch}.embedding_length\")\n"
     "      ^\n"},
    {"FloatGivenForIntegerAttribute",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = rope(embed(emb), heads: d / 1.6)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:10:31: error: attribute 'heads' of rope must be an integer, but 'd / 1.6' is 2.5\n"
     "  x = rope(embed(emb), heads: d / 1.6)\n"
     "                              ^\n"},
    {"LayerIndexOutOfRange",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  layer i in 0 .. 2 {
    norm [d] = "blk.{i}.norm"
  }
}
forward {
  x = embed(emb)
  for i in 0 .. 3 {
    x = rms_norm(x, norm[i])
  }
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:15:21: error: index 2 of 'norm' is out of range: it is declared for i in 0 .. 2\n"
     "    x = rms_norm(x, norm[i])\n"
     "                    ^\n"},
    {"OverrideMakesShapeNonInteger",
     R"(model tiny
hparams {
  d = 4.0   # a number, so --set may give it a fraction
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:7:11: error: a dimension of 'emb' must be an integer, but 'd' is 4.5\n"
     "  emb [v, d] = \"emb\"\n"
     "          ^\n",
     {{"d", "4.5"}}},
};

class CompileReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(CompileReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, CompileReject, ::testing::ValuesIn(kCompileRejects), case_name);

}  // namespace
}  // namespace tessera::test
