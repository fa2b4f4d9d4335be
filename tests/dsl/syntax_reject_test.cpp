// Syntax errors: each reject gives the expected token and what was found instead.
#include "reject_case.h"

namespace tessera::test {
namespace {

const RejectCase kSyntaxRejects[] = {
    {"MissingCommaBetweenArguments",
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
  h = rms_norm(x, norm eps: 1e-5)
  logits = linear(outputs(h), emb)
}
)",
     "bad.tsr:12:24: error: expected ',' or ')' after an argument, found 'eps'\n"
     "  h = rms_norm(x, norm eps: 1e-5)\n"
     "                       ^\n"},
    {"MissingEqualsInHyperParameter",
     R"(model tiny
hparams {
  d 4
}
forward {
  logits = x
}
)",
     "bad.tsr:3:5: error: expected '=', found '4'\n"
     "  d 4\n"
     "    ^\n"},
    {"UnterminatedString",
     R"(model tiny
weights {
  emb [8, 4] = "emb
}
)",
     "bad.tsr:3:20: error: expected '\"' to close the string before the end of the line, found end of line\n"
     "  emb [8, 4] = \"emb\n"
     "                   ^\n"},
    {"MissingModelLine",
     R"(hparams {
  d = 4
}
)",
     "bad.tsr:1:1: error: expected 'model NAME' at the start of the file, found 'hparams'\n"
     "hparams {\n"
     "^\n"},
    {"PositionalArgumentAfterNamed",
     R"(model tiny
forward {
  h = rms_norm(x, eps: 1e-5, norm)
}
)",
     "bad.tsr:3:30: error: a positional argument cannot follow named arguments\n"
     "  h = rms_norm(x, eps: 1e-5, norm)\n"
     "                             ^\n"},
    {"TextAfterTheLastSection",
     R"(model tiny
forward {
  logits = x
}
logits = y
)",
     "bad.tsr:5:1: error: expected a section: 'hparams {', 'weights {', 'forward {' or 'block NAME(...) {', found 'logits'\n"
     "logits = y\n"
     "^\n"},
    {"WeightWithoutShape",
     R"(model tiny
weights {
  emb = "emb"
}
)",
     "bad.tsr:3:7: error: expected the weight's shape '[dim, ...]' after its name, found '='\n"
     "  emb = \"emb\"\n"
     "      ^\n"},
    {"HyperParameterWithoutValue",
     R"(model tiny
hparams {
  d =
}
)",
     "bad.tsr:4:1: error: expected an expression, found '}'\n"
     "}\n"
     "^\n"},
    {"UnclosedForwardSection",
     R"(model tiny
forward {
  x = embed(emb)
)",
     "bad.tsr:3:17: error: expected a statement 'name = expression', 'for' or '}', found end of file\n"
     "  x = embed(emb)\n"
     "                ^\n"},
    {"ForLoopWithoutIn",
     R"(model tiny
forward {
  for i 0 .. 4 {
  }
}
)",
     "bad.tsr:3:9: error: expected 'in' after the loop variable, found '0'\n"
     "  for i 0 .. 4 {\n"
     "        ^\n"},
    {"IntegerTooLarge",
     R"(model tiny
hparams {
  d = 99999999999999999999
}
)",
     "bad.tsr:3:7: error: integer '99999999999999999999' is too large\n"
     "  d = 99999999999999999999\n"
     "      ^\n"},
};

class SyntaxReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(SyntaxReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, SyntaxReject, ::testing::ValuesIn(kSyntaxRejects), case_name);

}  // namespace
}  // namespace tessera::test
