// The grammar and the AST it builds: PEGTL's analysis of the rules, a table of models
// that must be accepted (parsed and compiled), and the shape of the tree for a few inputs.
#include <gtest/gtest.h>
#include <tao/pegtl/contrib/analyze.hpp>

#include "dsl/grammar.h"
#include "dsl/model_definition.h"
#include "support/testdata.h"

namespace tessera::dsl {
namespace {

TEST(Grammar, HasNoRuleThatCanLoopWithoutConsumingInput) {
  EXPECT_EQ(tao::pegtl::analyze<grammar::model_file>(), 0u);
}

struct AcceptCase {
  const char* name;
  const char* source;
};
void PrintTo(const AcceptCase& c, std::ostream* out) { *out << c.name; }

const AcceptCase kAccepted[] = {
    {"MinimalModel", R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
)"},
    {"CommentsEverywhere", R"(# a model
model tiny # name
hparams {  # numbers
  d = 4    # width
  v = 8
}
weights { emb [v, d] = "emb" }  # one table
forward {
  # embedding
  x = embed(emb)  # [Tokens, d]
  logits = linear(outputs(x), emb)
}
# end
)"},
    {"CrLfLineEndings", "model tiny\r\nhparams {\r\n  d = 4\r\n  v = 8\r\n}\r\nweights {\r\n  emb [v, d] = \"emb\"\r\n}\r\n"
                        "forward {\r\n  x = embed(emb)\r\n  logits = linear(outputs(x), emb)\r\n}\r\n"},
    {"SectionsInAnyOrder", R"(model tiny
forward {
  x = embed(emb)
  logits = linear(outputs(x), emb)
}
weights { emb [v, d] = "emb" }
hparams { d = 4  v = 8 }
)"},
    {"ConstantShapesWithoutHyperParameters", R"(model tiny
weights { emb [8, 2 * 2] = "emb" }
forward { logits = linear(outputs(embed(emb)), emb) }
)"},
    {"ExpressionOverSeveralLines", R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb"  w [d, d] = "w" }
forward {
  x = embed(emb)
  x = x +
      linear(x,
             w)
  logits = linear(outputs(x), emb)
}
)"},
    {"NestedLoopsAndLayerGroups", R"(model tiny
hparams { d = 4  v = 8  n = 2 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. n * 2 { w [d, d] = "blk.{i}.w" }
}
forward {
  x = embed(emb)
  for i in 0 .. n {
    for j in 0 .. 2 {
      x = x + linear(x, w[i * 2 + j])
    }
  }
  logits = linear(outputs(x), emb)
}
)"},
    {"EveryAttributeOfRopeAndAttention", R"(model tiny
hparams { d = 8  v = 16  heads = 2  head_dim = d / heads }
weights { emb [v, d] = "emb"  wk [d / 2, d] = "wk" }
forward {
  x = embed(emb)
  q = rope(x, heads: heads, dims: 2, theta: 500000.0, pairing: neox, scale: 0.25)
  k = rope(linear(x, wk), heads: 1, pairing: interleaved)
  x = attention(q, k, linear(x, wk), heads: heads, kv_heads: 1, scale: 1.0 / sqrt(head_dim),
                window: 4096, softcap: 50.0)
  logits = linear(outputs(x), emb)
}
)"},
    {"TensorsScaledByNumbers", R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb" }
forward {
  x = embed(emb) * 0.5
  x = 2 * x / 4
  x = scale(x, -(1 - 3) * 0.1)
  logits = linear(outputs(x), emb)
}
)"},
    {"ActivationsAndElementwiseProducts", R"(model tiny
hparams { d = 4  v = 8  ff = 6 }
weights { emb [v, d] = "emb"  up [ff, d] = "up"  down [d, ff] = "down"  gain [d] = "gain" }
forward {
  x = embed(emb)
  u = linear(x, up)
  x = x + linear(silu(u) * gelu(u) + swiglu(u, u), down)
  x = x * gain
  logits = linear(outputs(x), emb)
}
)"},
    {"TiedOutputWithFallback", R"(model tiny
hparams { d = 4  v = 8 }
weights { emb [v, d] = "emb"  out [v, d] = "output" else emb }
forward { logits = linear(outputs(embed(emb)), out) }
)"},
    {"NamesThatStartWithKeywords", R"(model tiny
hparams { d = 4  v = 8  layers = 1  format = 2 }
weights { emb [v, d] = "emb"  input [d, d] = "in"  else_w [d, d] = "e" }
forward {
  forward_x = embed(emb)
  model_x = linear(forward_x, input) + linear(forward_x, else_w)
  logits = linear(outputs(model_x), emb)
}
)"},
};

class Accept : public ::testing::TestWithParam<AcceptCase> {};

TEST_P(Accept, ParsesAndCompiles) {
  const auto model = parse_model(GetParam().source, "ok.tsr");
  const CompiledModel compiled = compile_model(*model, CompileOptions{});
  EXPECT_GE(compiled.graph.logits(), 0);
}

INSTANTIATE_TEST_SUITE_P(Dsl, Accept, ::testing::ValuesIn(kAccepted),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ParseModelFile, ReadsTheLlamaDefinition) {
  const auto model = parse_model_file(test::source_path("models/llama.tsr"));
  EXPECT_EQ(model->name, "llama");
  EXPECT_EQ(model->hparams.size(), 20u);
  EXPECT_EQ(model->aliases, (std::vector<std::string>{"mistral", "mixtral"}));
  EXPECT_EQ(model->weights.size(), 17u);
  EXPECT_EQ(model->layer_groups.size(), 1u);
}

// The hyper-parameter `name`'s expression in `source`.
const Expr& hparam_expr(const ModelDef& model, std::string_view name) { return *model.find_hparam(name)->value; }

TEST(Ast, ProductsBindTighterThanSumsAndBothAssociateLeft) {
  const auto model = parse_syntax("model m\nhparams { a = 1 + 2 * 3 - 4 }\n", "m.tsr");
  const Expr& e = hparam_expr(*model, "a");  // (1 + (2 * 3)) - 4
  ASSERT_EQ(e.kind, ExprKind::Binary);
  EXPECT_EQ(e.op, "-");
  const Expr& sum = *e.args[0];
  EXPECT_EQ(sum.op, "+");
  EXPECT_EQ(sum.args[1]->op, "*");
  EXPECT_EQ(e.args[1]->integer, 4);
  EXPECT_EQ(model->source.slice(e.begin, e.end), "1 + 2 * 3 - 4");
}

TEST(Ast, LogicBindsLooserThanComparisonsAndThoseThanSums) {
  const auto model = parse_syntax("model m\nhparams { a = !b || c + 1 < d && e == f }\n", "m.tsr");
  const Expr& e = hparam_expr(*model, "a");  // (!b) || (((c + 1) < d) && (e == f))
  ASSERT_EQ(e.kind, ExprKind::Binary);
  EXPECT_EQ(e.op, "||");
  EXPECT_EQ(e.args[0]->kind, ExprKind::Unary);
  EXPECT_EQ(e.args[0]->op, "!");
  const Expr& conjunction = *e.args[1];
  EXPECT_EQ(conjunction.op, "&&");
  EXPECT_EQ(conjunction.args[0]->op, "<");
  EXPECT_EQ(conjunction.args[0]->args[0]->op, "+");
  EXPECT_EQ(conjunction.args[1]->op, "==");
  EXPECT_EQ(model->source.slice(conjunction.begin, conjunction.end), "c + 1 < d && e == f");
}

TEST(Ast, TwoCharacterOperatorsAreOneToken) {
  const auto model = parse_syntax("model m\nhparams { a = b<=c  p = b>=c  q = b!=c  r = (b<c)==(c>b) }\n", "m.tsr");
  EXPECT_EQ(hparam_expr(*model, "a").op, "<=");
  EXPECT_EQ(hparam_expr(*model, "p").op, ">=");
  EXPECT_EQ(hparam_expr(*model, "q").op, "!=");
  const Expr& r = hparam_expr(*model, "r");
  EXPECT_EQ(r.op, "==");
  EXPECT_TRUE(r.args[0]->parenthesized);
  EXPECT_EQ(r.args[1]->op, ">");
}

TEST(Ast, NumbersKnowWhetherTheyAreIntegers) {
  const auto model = parse_syntax("model m\nhparams { a = 8  b = 8.0  c = 1e-5 }\n", "m.tsr");
  EXPECT_TRUE(hparam_expr(*model, "a").is_integer);
  EXPECT_FALSE(hparam_expr(*model, "b").is_integer);
  EXPECT_FALSE(hparam_expr(*model, "c").is_integer);
  EXPECT_DOUBLE_EQ(hparam_expr(*model, "c").number, 1e-5);
}

TEST(Ast, CallsKeepPositionalAndNamedArguments) {
  const auto model = parse_syntax("model m\nforward { h = rms_norm(x, w[i + 1], eps: 1e-6) }\n", "m.tsr");
  const Expr& call = *model->forward.at(0).value;
  ASSERT_EQ(call.kind, ExprKind::Call);
  EXPECT_EQ(call.text, "rms_norm");
  ASSERT_EQ(call.args.size(), 2u);
  EXPECT_EQ(call.args[1]->kind, ExprKind::Index);
  EXPECT_EQ(call.args[1]->text, "w");
  EXPECT_EQ(call.args[1]->args[0]->op, "+");
  ASSERT_EQ(call.named.size(), 1u);
  EXPECT_EQ(call.named[0].name, "eps");
  EXPECT_EQ(call.named[0].loc.column, 37);
}

TEST(Ast, WeightDeclarationsKeepShapeFileNameFallbackAndGroup) {
  const auto model = parse_syntax(R"(model m
weights {
  out [v, d] = "output.weight" else emb
  layer i in 0 .. n { wq [h * k, d] = "blk.{i}.attn_q.weight" }
}
)",
                                  "m.tsr");
  ASSERT_EQ(model->weights.size(), 2u);
  const WeightDecl& out = model->weights[0];
  EXPECT_EQ(out.file_name, "output.weight");
  EXPECT_EQ(out.fallback, "emb");
  EXPECT_EQ(out.group, -1);
  const WeightDecl& wq = model->weights[1];
  EXPECT_EQ(wq.dims.size(), 2u);
  EXPECT_EQ(wq.file_name, "blk.{i}.attn_q.weight");
  EXPECT_EQ(wq.group, 0);
  EXPECT_EQ(model->layer_groups[0].range.var, "i");
}

TEST(Ast, StatementTextIsOneLineWithoutComments) {
  const auto model = parse_syntax("model m\nforward {\n  x = x +   # residual\n      f(x)\n}\n", "m.tsr");
  EXPECT_EQ(model->forward.at(0).text, "x = x + f(x)");
  EXPECT_EQ(model->forward.at(0).target, "x");
}

TEST(Ast, ForLoopsHoldTheirBody) {
  const auto model = parse_syntax("model m\nforward {\n  for i in 0 .. 3 {\n    a = b\n    c = d\n  }\n  e = f\n}\n", "m.tsr");
  ASSERT_EQ(model->forward.size(), 2u);
  const Statement& loop = model->forward[0];
  EXPECT_EQ(loop.kind, Statement::Kind::For);
  EXPECT_EQ(loop.range.var, "i");
  EXPECT_EQ(loop.body.size(), 2u);
  EXPECT_EQ(model->forward[1].target, "e");
}

}  // namespace
}  // namespace tessera::dsl
