// Blocks: named pieces of the forward computation, called like ops. A model written with
// blocks compiles to the same graph as written inline; blocks see only their
// parameters, hyper-parameters and weights; misuse is refused with exact diagnostics.
#include <gtest/gtest.h>

#include "graph_query.h"
#include "reject_case.h"

namespace tessera::test {
namespace {

const char* const kInline = R"(model tiny
hparams { d = 8  v = 16  n = 2  eps = 1e-6 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. n {
    norm [d] = "blk.{i}.norm"
    w [d, d] = "blk.{i}.w"
  }
}
forward {
  x = embed(emb)
  for i in 0 .. n {
    x = x + linear(rms_norm(x, norm[i], eps: eps), w[i]) * 0.5
  }
  logits = linear(outputs(x), emb)
}
)";

const char* const kWithBlocks = R"(model tiny
hparams { d = 8  v = 16  n = 2  eps = 1e-6 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. n {
    norm [d] = "blk.{i}.norm"
    w [d, d] = "blk.{i}.w"
  }
}
block normed(x, g) {
  return rms_norm(x, g, eps: eps)
}
block residual(x, i, factor) {
  h = normed(x, norm[i])
  return x + linear(h, w[i]) * factor
}
forward {
  x = embed(emb)
  for i in 0 .. n { x = residual(x, i, 0.5) }
  logits = linear(outputs(x), emb)
}
)";

TEST(Blocks, CompileToTheGraphWrittenInline) {
  const CompiledModel inline_model = compile_text(kInline);
  const CompiledModel block_model = compile_text(kWithBlocks);
  EXPECT_EQ(op_sequence(block_model.graph), op_sequence(inline_model.graph));
  EXPECT_EQ(block_model.node_layers, inline_model.node_layers);
  const auto scales = nodes_of(block_model.graph, OpKind::Scale);
  ASSERT_EQ(scales.size(), 2u);
  EXPECT_FLOAT_EQ(std::get<ScaleParams>(scales[1]->params).scale, 0.5f);
  const auto norms = nodes_of(block_model.graph, OpKind::RmsNorm);
  ASSERT_EQ(norms.size(), 2u);
  EXPECT_FLOAT_EQ(std::get<NormParams>(norms[0]->params).eps, 1e-6f);
  EXPECT_EQ(block_model.graph.tensor(norms[1]->inputs[1]).name, "blk.1.norm");
}

TEST(Blocks, LabelNodesWithTheCallerLayerAndTheBlockStatement) {
  const CompiledModel m = compile_text(kWithBlocks);
  const auto norms = nodes_of(m.graph, OpKind::RmsNorm);
  EXPECT_EQ(norms[1]->label, "layer 1: normed: return rms_norm(x, g, eps: eps)");
  EXPECT_EQ(m.graph.tensor(norms[1]->output).name, "blk.1.h");
  const auto adds = nodes_of(m.graph, OpKind::Add);
  EXPECT_EQ(adds[0]->label, "layer 0: residual: return x + linear(h, w[i]) * factor");
  EXPECT_EQ(m.graph.tensor(adds[0]->output).name, "blk.0.x");
}

// The variant of kWithBlocks with `text` in place of its blocks and forward section.
std::string with(const std::string& text) {
  const std::string base = kWithBlocks;
  return base.substr(0, base.find("block normed")) + text;
}

const RejectCase kBlockRejects[] = {
    {"CallsItself", nullptr,
     "bad.tsr:11:10: error: block 'normed' calls itself; blocks cannot be recursive\n"
     "  return normed(x, g)\n"
     "         ^\n"},
    {"CallsALaterBlock", nullptr,
     "bad.tsr:11:10: error: block 'first' calls 'second', defined after it (line 13); a block can only call "
     "blocks defined before it\n"
     "  return second(x)\n"
     "         ^\n"},
    {"NeverUsed", nullptr,
     "bad.tsr:10:7: error: block 'unused' is defined but never used\n"
     "block unused(x) {\n"
     "      ^\n"},
    {"NoReturn", nullptr,
     "bad.tsr:10:7: error: block 'normed' must end with 'return EXPRESSION', its value\n"
     "block normed(x, g) {\n"
     "      ^\n"},
    {"ReturnNotLast", nullptr,
     "bad.tsr:11:3: error: 'return' must be the last statement of block 'normed'\n"
     "  return x\n"
     "  ^\n"},
    {"WrongArity", nullptr,
     "bad.tsr:15:7: error: block 'normed' takes 2 arguments (x, g), but 1 was given\n"
     "  x = normed(x)\n"
     "      ^\n"},
    {"TypeDiffersBetweenCalls", nullptr,
     "bad.tsr:16:17: error: argument 'g' of block 'normed' is a number here but a tensor in its first call\n"
     "  x = normed(x, 2)\n"
     "                ^\n"},
    {"NamedLikeAnOp", nullptr,
     "bad.tsr:10:7: error: block 'linear' has the name of a built-in op; choose another name\n"
     "block linear(x) {\n"
     "      ^\n"},
    {"ParameterHidesAHyperParameter", nullptr,
     "bad.tsr:10:14: error: parameter 'd' would hide the hyper-parameter at line 2; choose another name\n"
     "block normed(d, g) {\n"
     "             ^\n"},
    {"SeesNoCallerVariables", nullptr,
     "bad.tsr:11:19: error: undefined variable 'y'; did you mean 'd'?\n"
     "  return rms_norm(y, g)\n"
     "                  ^\n"},
};

const char* const kRejectBodies[] = {
    "block normed(x, g) {\n  return normed(x, g)\n}\nforward {\n  x = embed(emb)\n  logits = linear(outputs(normed(x, emb)), emb)\n}\n",
    "block first(x) {\n  return second(x)\n}\nblock second(x) {\n  return x\n}\nforward {\n  logits = linear(outputs(first(embed(emb))), emb)\n}\n",
    "block unused(x) {\n  return x\n}\nforward {\n  x = embed(emb)\n  logits = linear(outputs(x), emb)\n}\n",
    "block normed(x, g) {\n  h = rms_norm(x, g)\n}\nforward {\n  x = embed(emb)\n  logits = linear(outputs(normed(x, norm[0])), emb)\n}\n",
    "block normed(x, g) {\n  return x\n  h = rms_norm(x, g)\n  return h\n}\nforward {\n  logits = linear(outputs(normed(embed(emb), norm[0])), emb)\n}\n",
    "block normed(x, g) {\n  return rms_norm(x, g)\n}\nforward {\n  x = embed(emb)\n  x = normed(x)\n  logits = linear(outputs(x), emb)\n}\n",
    "block normed(x, g) {\n  return x * g\n}\nforward {\n  x = embed(emb)\n  x = normed(x, norm[0])\n  x = normed(x, 2)\n  logits = linear(outputs(x), emb)\n}\n",
    "block linear(x) {\n  return x\n}\nforward {\n  logits = embed(emb)\n}\n",
    "block normed(d, g) {\n  return rms_norm(g, d)\n}\nforward {\n  logits = linear(outputs(normed(embed(emb), norm[0])), emb)\n}\n",
    "block normed(x, g) {\n  return rms_norm(y, g)\n}\nforward {\n  y = embed(emb)\n  logits = linear(outputs(normed(y, norm[0])), emb)\n}\n",
};

class BlockReject : public ::testing::TestWithParam<size_t> {};

TEST_P(BlockReject, GivesTheExactDiagnostic) {
  RejectCase c = kBlockRejects[GetParam()];
  const std::string source = with(kRejectBodies[GetParam()]);
  c.source = source.c_str();
  EXPECT_EQ(diagnose(c), c.diagnostic) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Dsl, BlockReject, ::testing::Range<size_t>(0, std::size(kBlockRejects)),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(kBlockRejects[info.param].name);
                         });

}  // namespace
}  // namespace tessera::test
