// End to end on the Vulkan backend, a model written with the language's expression
// features: LayerNorm without parameters, clamp, a row subtracted, negation and a tensor
// shifted by numbers (SUB, AFFINE, CLAMP), if() on tensors (no RoPE on every fourth
// layer), named numbers and a final soft-cap. Random weights (`tessera init`), then
// `tessera generate` on every op's Vulkan kernel (--no-fallback), each checked against
// the CPU's (--verify cpu), giving the CPU's tokens.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cli_generation.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using tessera::test::CommandResult;
using tessera::test::run_command;
using tessera::test::shell_quote;

const char* kDefinition = R"(model expression_ops

hparams {
  d_model  = meta("{arch}.embedding_length", 64)
  n_layers = meta("{arch}.block_count", 4)
  n_heads  = meta("{arch}.attention.head_count", 4)
  d_ff     = meta("{arch}.feed_forward_length", 96)
  n_vocab  = shape("token_embd.weight", 0, 300)
  clip     = meta("{arch}.attention.clamp_kqv", 0.0)
  cap      = meta("{arch}.final_logit_softcapping", 0.0)
}

weights {
  tok_embd [n_vocab, d_model] = "token_embd.weight"
  shift    [d_model]          = "shift.weight"
  layer i in 0 .. n_layers {
    wq [d_model, d_model]  = "blk.{i}.attn_q.weight"
    wk [d_model, d_model]  = "blk.{i}.attn_k.weight"
    wv [d_model, d_model]  = "blk.{i}.attn_v.weight"
    wo [d_model, d_model]  = "blk.{i}.attn_output.weight"
    w_gate [d_ff, d_model] = "blk.{i}.ffn_gate.weight"
    w_up [d_ff, d_model]   = "blk.{i}.ffn_up.weight"
    w_down [d_model, d_ff] = "blk.{i}.ffn_down.weight"
  }
}

block clipped(t) {
  return if(clip > 0, clamp(t, -clip, clip), t)
}

forward {
  x = embed(tok_embd) - shift
  qk_scale = 1.0 / sqrt(d_model / n_heads)
  for i in 0 .. n_layers {
    h = layer_norm(x, gain: none)
    q = clipped(linear(h, wq[i]))
    k = clipped(linear(h, wk[i]))
    q = if(i % 4 == 3, q, rope(q, heads: n_heads, pairing: neox))
    k = if(i % 4 == 3, k, rope(k, heads: n_heads, pairing: neox))
    x = x + linear(attention(q, k, clipped(linear(h, wv[i])), heads: n_heads, scale: qk_scale), wo[i])
    h = 1.0 - layer_norm(x, gain: none) * 0.5
    x = -(linear(swiglu(linear(h, w_gate[i]), linear(h, w_up[i])), w_down[i]) - x)
  }
  logits = softcap(linear(layer_norm(outputs(x), gain: none), tok_embd), cap)
}
)";

class VulkanExpressionModel : public VulkanTest {};

TEST_F(VulkanExpressionModel, RunsEveryOpOnVulkanAsTheCpuDoes) {
  const std::string arch = tessera::test::temp_path("expression_ops.tsr");
  const std::string model = tessera::test::temp_path("expression_ops.gguf");
  std::ofstream(arch) << kDefinition;
  const CommandResult init = run_command(tessera_cli("init --arch " + shell_quote(arch) +
                                                     " --set clip=0.5 --set cap=3.0 --dtype f32 -o " + shell_quote(model)));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  expect_vulkan_generation_matches_cpu("-m " + shell_quote(model) + " --arch " + shell_quote(arch) +
                                       " -p 'hello world, again' -n 8 --temp 0");
  std::remove(arch.c_str());
  std::remove(model.c_str());
}

}  // namespace
}  // namespace tessera::vulkan::test
