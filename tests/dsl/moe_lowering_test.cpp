// The mixture-of-experts ops of the language: moe_route, moe_linear and moe_combine
// lowered to MOE_ROUTE, MOE_MATMUL and MOE_COMBINE nodes with their shapes and params,
// and the mistakes each refuses, with their exact diagnostics.
#include <gtest/gtest.h>

#include "graph_query.h"
#include "reject_case.h"

namespace tessera::test {
namespace {

const int64_t T = sym(SymDim::Tokens);

// Width d = 8, vocabulary v = 16, E = 4 experts of width f = 6: a router [E, d] and the
// stacked experts `experts` names (of gate, up [E, f, d] and down [E, d, f]); `body`
// turns x = embed(emb) into y [Tokens, d].
std::string moe_model(const std::string& body, const std::vector<std::string>& experts = {"gate", "up", "down"}) {
  std::string weights;
  for (const std::string& w : experts) {
    weights += "  " + w + (w == "down" ? " [e, d, f]" : " [e, f, d]") + " = \"" + w + "\"\n";
  }
  return "model tiny\n"
         "hparams { d = 8  v = 16  e = 4  f = 6 }\n"
         "weights {\n"
         "  emb [v, d] = \"emb\"\n"
         "  router [e, d] = \"router\"\n" +
         weights +
         "}\n"
         "forward {\n"
         "  x = embed(emb)\n" +
         body +
         "\n  logits = linear(outputs(y), emb)\n"
         "}\n";
}

const std::string kExperts =
    "  r = moe_route(linear(x, router), k: 2, normalize: 1)\n"
    "  a = swiglu(moe_linear(x, gate, r), moe_linear(x, up, r))\n"
    "  y = moe_combine(moe_linear(a, down, r), r)";

TEST(LowerMoe, AFeedForwardOfExpertsIsRouteMatmulsAndCombine) {
  const Graph g = compile_text(moe_model(kExperts)).graph;
  EXPECT_EQ(op_sequence(g),
            "get_rows matmul moe_route moe_matmul moe_matmul swiglu moe_matmul moe_combine get_rows matmul");
  const auto matmuls = nodes_of(g, OpKind::MoeMatMul);
  EXPECT_EQ(g.tensor(matmuls[0]->output).shape, (Shape{T, 2 * 6}));  // k slots of f columns
  EXPECT_EQ(g.tensor(matmuls[2]->output).shape, (Shape{T, 2 * 8}));
  EXPECT_EQ(g.tensor(matmuls[0]->inputs[1]).shape, (Shape{4, 6, 8}));
  const GraphNode& combine = *nodes_of(g, OpKind::MoeCombine).front();
  EXPECT_EQ(g.tensor(combine.output).shape, (Shape{T, 8}));
  EXPECT_EQ(combine.inputs[1], nodes_of(g, OpKind::MoeRoute).front()->output);
}

TEST(LowerMoe, TheRouteCarriesItsParams) {
  const Graph g =
      compile_text(moe_model("  r = moe_route(linear(x, router), k: 3, gating: sigmoid, scale: 2.5)\n"
                             "  y = moe_combine(moe_linear(moe_linear(x, gate, r), down, r), r)",
                             {"gate", "down"}))
          .graph;
  const auto& p = only_params<MoeRouteParams>(g, OpKind::MoeRoute);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.gating, TSR_MOE_SIGMOID);
  EXPECT_EQ(p.normalize, 0);
  EXPECT_FLOAT_EQ(p.scale, 2.5f);
  EXPECT_EQ(g.tensor(nodes_of(g, OpKind::MoeRoute).front()->output).shape, (Shape{T, 6}));
}

const std::string kTooManyChosen = moe_model(
    "  r = moe_route(linear(x, router), k: e + 1)\n  y = moe_combine(moe_linear(x, down, r), r)", {"down"});
const std::string kNormalizeTwo = moe_model(
    "  r = moe_route(linear(x, router), k: 2, normalize: 2)\n  y = moe_combine(moe_linear(x, down, r), r)",
    {"down"});
const std::string kExpertsNotStacked = moe_model(
    "  r = moe_route(linear(x, router), k: 2)\n  y = moe_combine(moe_linear(x, router, r), r)", {});
const std::string kRouteNotARoute = moe_model(
    "  r = moe_route(linear(x, router), k: 2)\n  y = moe_combine(moe_linear(x, down, slice(r, 0, 3)), r)",
    {"down"});
const std::string kInputOfTheWrongWidth = moe_model(
    "  r = moe_route(linear(x, router), k: 2)\n  y = moe_combine(moe_linear(x, down, r), r)", {"down"});

const RejectCase kMoeRejects[] = {
    {"MoreChosenThanExperts", kTooManyChosen.c_str(),
     "bad.tsr:10:39: error: moe_route: k is 5 but 'linear(x, router)' [Tokens, 4] scores only 4 experts\n"
     "  r = moe_route(linear(x, router), k: e + 1)\n"
     "                                      ^\n"},
    {"NormalizeIsAFlag", kNormalizeTwo.c_str(),
     "bad.tsr:10:53: error: moe_route: normalize must be 0 or 1, not 2\n"
     "  r = moe_route(linear(x, router), k: 2, normalize: 2)\n"
     "                                                    ^\n"},
    {"ExpertsNotStacked", kExpertsNotStacked.c_str(),
     "bad.tsr:10:33: error: moe_linear needs the experts' matrices stacked ([E, M, K]) as 'experts', but "
     "'router' [4, 8] has 2 dimensions\n"
     "  y = moe_combine(moe_linear(x, router, r), r)\n"
     "                                ^\n"},
    {"RouteNotFromMoeRoute", kRouteNotARoute.c_str(),
     "bad.tsr:11:39: error: moe_linear needs a route from moe_route ([Tokens, 2k]) as 'route', but "
     "'slice(r, 0, 3)' [Tokens, 3] is not\n"
     "  y = moe_combine(moe_linear(x, down, slice(r, 0, 3)), r)\n"
     "                                      ^\n"},
    {"InputOfTheWrongWidth", kInputOfTheWrongWidth.c_str(),
     "bad.tsr:11:19: error: moe_linear: the input 'x' [Tokens, 8] has 8 columns but the experts 'down' "
     "[4, 8, 6] expect 6 (or 12: one part per chosen expert)\n"
     "  y = moe_combine(moe_linear(x, down, r), r)\n"
     "                  ^\n"},
};

class MoeReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(MoeReject, GivesTheExactDiagnostic) { EXPECT_EQ(diagnose(GetParam()), GetParam().diagnostic); }

INSTANTIATE_TEST_SUITE_P(Dsl, MoeReject, ::testing::ValuesIn(kMoeRejects), case_name);

}  // namespace
}  // namespace tessera::test
