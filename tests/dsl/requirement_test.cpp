// `require` in the hparams section: what it accepts, when each condition is checked,
// and its mistakes and failures, each with its exact diagnostic (the values that break
// a condition, and where each came from).
#include <gtest/gtest.h>

#include "graph_query.h"
#include "reject_case.h"

namespace tessera::test {
namespace {

// A model whose hparams section is `hparams`; it needs d and v (emb is [v, d]).
std::string model_with(const std::string& hparams) {
  return "model tiny\n"
         "hparams {\n" +
         hparams +
         "\n}\n"
         "weights { emb [v, d] = \"emb\" }\n"
         "forward { logits = linear(outputs(embed(emb)), emb) }\n";
}

TEST(Requirement, ThatHoldsCompiles) {
  const CompiledModel m = compile_text(model_with("  d = 4  v = 8  h = 2\n  require d >= 1, v >= 1, d % h == 0"));
  EXPECT_EQ(m.n_vocab, 8);
}

TEST(Requirement, MayComeBeforeTheHyperParametersItNames) {
  const CompiledModel m = compile_text(model_with("  require d >= 1 && v >= d\n  d = 4  v = 8"));
  EXPECT_EQ(m.n_vocab, 8);
}

TEST(Requirement, InParenthesesReadsAsOneCondition) {
  EXPECT_EQ(compile_text(model_with("  d = 4  v = 8\n  require(d < v)")).n_vocab, 8);
}

TEST(Requirement, OnHfIsCheckedBeforeAnyValue) {
  EXPECT_EQ(compile_text(model_with("  require !hf\n  d = 4  v = 8")).n_vocab, 8);
}

TEST(Requirement, IsCheckedBeforeLaterDefinitionsUseTheValue) {
  // With h = 0, hd = d / h would divide by zero; the requirement on h fails first.
  RejectCase c{"", nullptr, nullptr, {{"h", "0"}}};
  const std::string source = model_with("  d = 4  v = 8  h = 2\n  hd = d / h\n  require h >= 1");
  c.source = source.c_str();
  EXPECT_EQ(diagnose(c),
            "bad.tsr:5:11: error: h = 0 (from --set h=0) breaks h >= 1\n"
            "  require h >= 1\n"
            "          ^\n");
}

const RejectCase kRequirementRejects[] = {
    // ---- syntax ----
    {"RequireWithoutACondition",
     R"(model tiny
hparams {
  d = 4  v = 8
  require
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:1: error: expected a condition after 'require', as 'require n_layers >= 1', found '}'\n"
     "}\n"
     "^\n"},
    {"TrailingComma",
     R"(model tiny
hparams {
  d = 4  v = 8
  require d >= 1,
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:1: error: expected a condition after ',', found '}'\n"
     "}\n"
     "^\n"},
    {"RequireIsAKeywordNotAName",
     R"(model tiny
hparams {
  d = 4  v = 8
  require = 3
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:11: error: expected a condition after 'require', as 'require n_layers >= 1', found '='\n"
     "  require = 3\n"
     "          ^\n"},
    {"RequireOutsideTheHparamsSection",
     R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward {
  require d >= 1
  logits = linear(outputs(embed(emb)), emb)
}
)",
     "bad.tsr:5:11: error: expected '=', found 'd'\n"
     "  require d >= 1\n"
     "          ^\n"},
    // ---- semantic ----
    {"ConditionNamingNoHyperParameter",
     R"(model tiny
hparams {
  d = 4  v = 8
  require 2 > 1
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:11: error: the requirement '2 > 1' names no hyper-parameter, so it checks nothing\n"
     "  require 2 > 1\n"
     "          ^\n"},
    {"ConditionReadingTheFile",
     R"(model tiny
hparams {
  d = 4  v = 8
  require meta("tiny.block_count", 1) >= 1
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:11: error: a requirement checks hyper-parameters and cannot read the weights file; define one as "
     "meta(...) and require a condition on it\n"
     "  require meta(\"tiny.block_count\", 1) >= 1\n"
     "          ^\n"},
    {"ConditionThatIsAString",
     R"(model tiny
hparams {
  d = 4  v = 8
  require d >= 1, "d is positive"
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:19: error: a condition of 'require' must be a number, but '\"d is positive\"' is a string\n"
     "  require d >= 1, \"d is positive\"\n"
     "                  ^\n"},
    {"MisspelledHyperParameter",
     R"(model tiny
hparams {
  n_heads = 4  d = 4  v = 8
  require n_head >= 1
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:11: error: unknown hyper-parameter 'n_head'; did you mean 'n_heads'?\n"
     "  require n_head >= 1\n"
     "          ^\n"},
    {"WeightInACondition",
     R"(model tiny
hparams {
  d = 4  v = 8
  require emb > 0
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:11: error: 'emb' is a weight; only numbers can be used here\n"
     "  require emb > 0\n"
     "          ^\n"},
    {"TrueIsReserved",
     R"(model tiny
hparams {
  d = 4  v = 8
  true = 1
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:3: error: 'true' is reserved: true and false are the flags 1 and 0\n"
     "  true = 1\n"
     "  ^\n"},
    // ---- failed, without a weights file ----
    {"ValueFromTheDefinition",
     R"(model tiny
hparams {
  d = 4  v = 8
  n_heads = 8
  n_kv = 3
  require n_heads % n_kv == 0
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:6:11: error: n_heads = 8 (from the definition) and n_kv = 3 (from the definition) break "
     "n_heads % n_kv == 0\n"
     "  require n_heads % n_kv == 0\n"
     "          ^\n"},
    {"ValueFromAnOverride",
     R"(model tiny
hparams {
  d = 4  v = 8
  n_layers = meta("{arch}.block_count", 2)
  require n_layers >= 1
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:11: error: n_layers = -1 (from --set n_layers=-1) breaks n_layers >= 1\n"
     "  require n_layers >= 1\n"
     "          ^\n",
     {{"n_layers", "-1"}}},
    {"ValueFromTheDefault",
     R"(model tiny
hparams {
  d = 4  v = 8
  window = meta("{arch}.attention.sliding_window", -1)
  require window >= 0
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:11: error: window = -1 (from the default; no weights file) breaks window >= 0\n"
     "  require window >= 0\n"
     "          ^\n"},
    {"ValueFromAComputedDefault",
     R"(model tiny
hparams {
  d = 4  v = 8
  heads = 2
  kv = meta("{arch}.attention.head_count_kv", heads - 2)
  require kv >= 1
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:6:11: error: kv = 0 (from the default heads - 2; no weights file) breaks kv >= 1\n"
     "  require kv >= 1\n"
     "          ^\n"},
    {"ComputedValue",
     R"(model tiny
hparams {
  d = 4  v = 8
  eps = 1e-6 - 1e-5
  require eps > 0
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:11: error: eps = -9e-06 (from 1e-6 - 1e-5) breaks eps > 0\n"
     "  require eps > 0\n"
     "          ^\n"},
    {"TheFailingOperandOfAnd",
     R"(model tiny
hparams {
  d = 4  v = 8
  heads = 8
  kv = 3
  require kv >= 1 && heads % kv == 0
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:6:22: error: heads = 8 (from the definition) and kv = 3 (from the definition) break heads % kv == 0\n"
     "  require kv >= 1 && heads % kv == 0\n"
     "                     ^\n"},
    {"TheSecondConditionOfAList",
     R"(model tiny
hparams {
  d = 4  v = 8
  require d >= 1, v <= d
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:19: error: v = 8 (from the definition) and d = 4 (from the definition) break v <= d\n"
     "  require d >= 1, v <= d\n"
     "                  ^\n"},
    {"ThreeNames",
     R"(model tiny
hparams {
  d = 4  v = 8  h = 3
  require d * h <= v
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:4:11: error: d = 4 (from the definition), h = 3 (from the definition) and v = 8 (from the definition) "
     "break d * h <= v\n"
     "  require d * h <= v\n"
     "          ^\n"},
    {"ConditionOverSeveralLines",
     R"(model tiny
hparams {
  d = 4  v = 8
  require d >= 1 &&
          v < 8     # the vocabulary
}
weights { emb [v, d] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)",
     "bad.tsr:5:11: error: v = 8 (from the definition) breaks v < 8\n"
     "          v < 8     # the vocabulary\n"
     "          ^\n"},
};

class RequirementReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(RequirementReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, RequirementReject, ::testing::ValuesIn(kRequirementRejects), case_name);

}  // namespace
}  // namespace tessera::test
