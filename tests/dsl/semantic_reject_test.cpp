// Semantic errors found when parsing: names, op calls, duplicates, unused weights,
// the missing output. Each reject has its exact diagnostic.
#include "reject_case.h"

namespace tessera::test {
namespace {

// A valid model the cases below vary (line numbers of the variants match it):
//  1 model tiny            5 }                    9 forward {
//  2 hparams {             6 weights {           10   x = embed(emb)
//  3   d = 4               7   emb [v, d] = ...  11   h = rms_norm(x, norm, eps: 1e-5)
//  4   v = 8               8   norm [d] = ...    12   logits = linear(outputs(h), emb)
const RejectCase kSemanticRejects[] = {
    {"UnknownOpWithHint",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  h = rms_nrom(x, norm, eps: 1e-5)
  logits = linear(outputs(h), emb)
}
)",
     "bad.tsr:12:7: error: unknown op 'rms_nrom'; did you mean 'rms_norm'?\n"
     "  h = rms_nrom(x, norm, eps: 1e-5)\n"
     "      ^\n"},
    {"UnknownAttributeWithHint",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  h = rms_norm(x, norm, epsilon: 1e-5)
  logits = linear(outputs(h), emb)
}
)",
     "bad.tsr:12:25: error: unknown attribute 'epsilon' for rms_norm; did you mean 'eps'?\n"
     "  h = rms_norm(x, norm, epsilon: 1e-5)\n"
     "                        ^\n"},
    {"WrongArity",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  h = rms_norm(x, eps: 1e-5)
  logits = linear(outputs(h), emb)
}
)",
     "bad.tsr:12:7: error: 'rms_norm' takes 2 arguments (x, weight), but 1 was given\n"
     "  h = rms_norm(x, eps: 1e-5)\n"
     "      ^\n"},
    {"UndefinedVariable",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  h = rms_norm(x, norm, eps: 1e-5)
  logits = linear(outputs(hh), emb)
}
)",
     "bad.tsr:13:27: error: undefined variable 'hh'; did you mean 'h'?\n"
     "  logits = linear(outputs(hh), emb)\n"
     "                          ^\n"},
    {"UndefinedWeight",
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
  for i in 0 .. 2 {
    x = rms_norm(x, nrom[i], eps: 1e-5)
  }
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:15:21: error: undefined weight 'nrom'; did you mean 'norm'?\n"
     "    x = rms_norm(x, nrom[i], eps: 1e-5)\n"
     "                    ^\n"},
    {"DuplicateHyperParameter",
     R"(model tiny
hparams {
  d = 4
  v = 8
  d = 6
}
forward {
  logits = x
}
)",
     "bad.tsr:5:3: error: duplicate hyper-parameter 'd' (first defined at line 3)\n"
     "  d = 6\n"
     "  ^\n"},
    {"UnusedWeight",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:8:3: error: weight 'norm' is declared but never used\n"
     "  norm [d] = \"norm\"\n"
     "  ^\n"},
    {"MissingLogits",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  h = rms_norm(x, norm, eps: 1e-5)
  out = linear(outputs(h), emb)
}
)",
     "bad.tsr:10:1: error: the forward section does not assign 'logits', the model's output\n"
     "forward {\n"
     "^\n"},
    {"HyperParameterUsedBeforeDefinition",
     R"(model tiny
hparams {
  d = v / 2
  v = 8
}
forward {
  logits = x
}
)",
     "bad.tsr:3:7: error: hyper-parameter 'v' is used before its definition (line 4)\n"
     "  d = v / 2\n"
     "      ^\n"},
    {"UnknownChoiceWithHint",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = rope(embed(emb), heads: 2, pairing: neo)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:10:43: error: attribute 'pairing' of rope must be one of interleaved, neox, not 'neo'; did you mean 'neox'?\n"
     "  x = rope(embed(emb), heads: 2, pairing: neo)\n"
     "                                          ^\n"},
    {"MissingRequiredAttribute",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = rope(embed(emb))
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:10:7: error: rope needs the attribute 'heads' (heads packed in each row)\n"
     "  x = rope(embed(emb))\n"
     "      ^\n"},
    {"NumberDividedByTensor",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  x = 1 / embed(emb)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:10:9: error: operator '/' cannot divide a number by a tensor ('1' by 'embed(emb)')\n"
     "  x = 1 / embed(emb)\n"
     "        ^\n"},
    {"PerLayerWeightWithoutIndex",
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
  x = rms_norm(embed(emb), norm)
  logits = linear(outputs(x), emb)
}
)",
     "bad.tsr:13:28: error: weight 'norm' is declared per layer; index it, as norm[i]\n"
     "  x = rms_norm(embed(emb), norm)\n"
     "                           ^\n"},
    {"MetaOutsideHyperParameters",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  norm [d] = "norm"
}
forward {
  x = embed(emb)
  h = rms_norm(x, norm, eps: meta("eps"))
  logits = linear(outputs(h), emb)
}
)",
     "bad.tsr:12:30: error: meta() can only be used in the hparams section\n"
     "  h = rms_norm(x, norm, eps: meta(\"eps\"))\n"
     "                             ^\n"},
    {"UnknownPlaceholder",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  layer i in 0 .. 2 {
    norm [d] = "blk.{j}.norm"
  }
}
forward {
  logits = x
}
)",
     "bad.tsr:9:21: error: unknown placeholder '{j}'; did you mean 'i'?\n"
     "    norm [d] = \"blk.{j}.norm\"\n"
     "                    ^\n"},
    {"UndefinedFallback",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  output [v, d] = "output" else embd
}
forward {
  logits = x
}
)",
     "bad.tsr:8:33: error: undefined weight 'embd'; did you mean 'emb'?\n"
     "  output [v, d] = \"output\" else embd\n"
     "                                ^\n"},
    {"VariableHidesHyperParameter",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
}
forward {
  d = embed(emb)
  logits = linear(outputs(d), emb)
}
)",
     "bad.tsr:10:3: error: variable 'd' would hide the hyper-parameter at line 3; choose another name\n"
     "  d = embed(emb)\n"
     "  ^\n"},
    {"DuplicateWeight",
     R"(model tiny
hparams {
  d = 4
  v = 8
}
weights {
  emb [v, d] = "emb"
  emb [d] = "norm"
}
forward {
  logits = x
}
)",
     "bad.tsr:8:3: error: duplicate weight 'emb' (first declared at line 7)\n"
     "  emb [d] = \"norm\"\n"
     "  ^\n"},
    {"DuplicateSection",
     R"(model tiny
hparams {
  d = 4
}
hparams {
  v = 8
}
forward {
  logits = x
}
)",
     "bad.tsr:5:1: error: duplicate section 'hparams' (the first is at line 2)\n"
     "hparams {\n"
     "^\n"},
};

class SemanticReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(SemanticReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, SemanticReject, ::testing::ValuesIn(kSemanticRejects), case_name);

}  // namespace
}  // namespace tessera::test
